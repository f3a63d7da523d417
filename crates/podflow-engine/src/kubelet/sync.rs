//! One sync of a pod worker (`syncPod`, then `computePodActions` and `SyncPod`
//! in `kuberuntime_manager.go`): report the status the runtime shows now, then
//! do the next thing — the next init container (`computeInitContainerActions`),
//! or the regular containers that are not running and should be, one at a time.

use k8s_openapi::api::core::v1::Container;

use super::lifecycle::{self, InitState, InitStep};
use super::status::ContainerState;
use super::{Kubelet, Step};
use crate::component::Cx;

impl Kubelet {
    /// Syncs the pod `key`.
    pub(super) fn sync(&mut self, key: &str, cx: &mut Cx<'_>) {
        self.advance(key, cx);
        if self.exit_unseen(key) {
            return;
        }
        self.report_status(key, cx);
        self.sync_actions(key, cx);
    }

    /// Whether a container exited that the PLEG has not relisted yet: the sync
    /// waits for the relist, which syncs (`pod_workers.go` reads the runtime's
    /// state with `podCache.GetNewerThan`, which the relist fills), so the
    /// back-off that refuses the restart, and its `BackOff` event, come from
    /// that sync rather than from the instant the container started.
    fn exit_unseen(&self, key: &str) -> bool {
        self.workers
            .get(key)
            .is_some_and(|w| w.pleg.iter().any(|(_, kind)| *kind == "ContainerDied"))
    }

    /// The actions of a sync, after its status (`computePodActions`, `SyncPod`).
    pub(super) fn sync_actions(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get(key) else {
            return;
        };
        if w.terminating || w.finished || w.sandbox_id.is_none() {
            return;
        }
        if w.ctrs.iter().any(|c| c.pulling) {
            return;
        }
        let policy = w.restart_policy();
        let n_init = w.n_init();
        let step = if n_init == 0 {
            InitStep::Done
        } else {
            let states: Vec<(&Container, InitState)> = w.ctrs[..n_init]
                .iter()
                .map(|c| (&*c.spec, c.init_state()))
                .collect();
            lifecycle::next_init_step(&states, &policy)
        };
        if self.init_step(key, step, cx) {
            self.start_regular(key, cx);
        }
        self.schedule_wake(key, cx);
    }

    /// Acts on an init step; returns whether the regular containers may start.
    fn init_step(&mut self, key: &str, step: InitStep, cx: &mut Cx<'_>) -> bool {
        match step {
            InitStep::Start(i) => {
                self.start(key, i, cx);
                false
            }
            InitStep::Wait | InitStep::Failed(_) => false,
            InitStep::RestartSidecars { sidecars, then } => {
                for i in sidecars {
                    self.start(key, i, cx);
                }
                self.init_step(key, *then, cx)
            }
            InitStep::Done => true,
        }
    }

    /// Starts the first regular container that is not running and should be.
    fn start_regular(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get(key) else {
            return;
        };
        let policy = w.restart_policy();
        let wanted: Vec<usize> = w
            .ctrs
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                if c.init || c.kill.is_some() {
                    return false;
                }
                match &c.view.state {
                    ContainerState::Running { .. } => false,
                    ContainerState::Terminated { exit_code, .. } => {
                        c.definition_changed
                            || lifecycle::should_restart(&c.spec, &policy, *exit_code)
                    }
                    ContainerState::Waiting { .. } => {
                        c.definition_changed
                            || c.last.as_ref().is_none_or(|l| {
                                lifecycle::should_restart(&c.spec, &policy, l.exit_code)
                            })
                    }
                }
            })
            .map(|(i, _)| i)
            .collect();
        for i in wanted {
            if self.start(key, i, cx) {
                self.continue_after(key, i, cx);
                return;
            }
            if self.workers.get(key).is_some_and(|w| w.ctrs[i].pulling) {
                return;
            }
        }
    }

    /// After container `i` started: if a regular container after it still
    /// waits for its first start, the worker goes on with it.
    pub(super) fn continue_after(&mut self, key: &str, i: usize, cx: &mut Cx<'_>) {
        let more = self.workers.get(key).is_some_and(|w| {
            w.ctrs[i..]
                .iter()
                .skip(1)
                .any(|c| !c.init && c.view.container_id.is_none())
                && !w.ctrs[i].init
        });
        if more {
            self.timer(cx, 1, key, Step::Continue);
        }
    }
}
