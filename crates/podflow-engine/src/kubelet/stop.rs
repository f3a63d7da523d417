//! Deleting a pod (`pkg/kubelet/pod_workers.go`, `killPodWithSyncResult`):
//! the `Killing` events, SIGTERM to every container, SIGKILL to those still
//! running when the grace period ends, then `StopPodSandbox` and the final
//! status; the pod is deleted once that status is written.

use k8s_openapi::api::core::v1::Pod;

use super::lifecycle::{self, KillReason};
use super::process::Signal;
use super::worker::Kill;
use super::{Kubelet, Step};
use crate::apiserver::request::{Body, Verb};
use crate::component::Cx;
use crate::trace::{Outcome, StageName};
use podflow_model::Shared;

impl Kubelet {
    /// The pod is being deleted: stop its containers, then confirm the deletion.
    pub(super) fn terminate(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get_mut(key) else {
            return;
        };
        if w.terminating {
            return;
        }
        w.terminating = true;
        let grace = w
            .pod
            .metadata
            .deletion_grace_period_seconds
            .map_or(w.grace_ms(), |s| {
                u64::try_from(s.max(0)).unwrap_or(0) * 1000
            });
        let running: Vec<(usize, String, String)> = w
            .ctrs
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_running())
            .map(|(i, c)| (i, c.spec.name.clone(), c.field_path()))
            .collect();
        let mut all_exited = true;
        // The first moment a container's fate is known: its SIGTERM after a
        // `preStop` sleep, else its SIGKILL.
        let mut check: Option<u64> = None;
        let mut queued = false;
        for (i, cname, field) in running {
            Self::event(
                cx,
                key,
                false,
                "Killing",
                lifecycle::kill_message(&cname, KillReason::Stop, false),
                Some(field),
            );
            let (term_in, left) = self.pre_stop(key, i, grace, cx);
            cx.message(
                &self.me(),
                &self.containerd(),
                format!("StopContainer {cname} (grace {}s)", left / 1000),
            );
            let exited = term_in == 0 && self.signal(key, i, Signal::Term, cx);
            if !exited {
                all_exited = false;
                let deadline = term_in + left;
                if let Some(ctr) = self.workers.get_mut(key).and_then(|w| w.ctrs.get_mut(i)) {
                    ctr.kill = Some(Kill {
                        deadline: cx.now.plus(deadline),
                    });
                }
                queued |= term_in > 0;
                let at = if term_in > 0 { term_in + 200 } else { deadline };
                check = Some(check.map_or(at, |c| c.min(at)));
            }
        }
        // Servers exit promptly on SIGTERM; others wait for the grace period's SIGKILL.
        let delay = if all_exited {
            200
        } else {
            check.unwrap_or(grace).max(1)
        };
        if queued {
            // A queued SIGTERM: wake the process for it.
            self.schedule_wake(key, cx);
        }
        self.timer(cx, delay, key, Step::Stopped);
    }

    /// The containers have stopped (SIGKILL for the ones still running): stop
    /// the sandbox and write the final status; the pod is deleted when it is answered.
    pub(super) fn stopped(&mut self, key: &str, cx: &mut Cx<'_>) {
        // A container still within its grace period (after a `preStop` sleep) is waited for.
        let pending = self.workers.get(key).and_then(|w| {
            w.ctrs
                .iter()
                .filter(|c| c.is_running())
                .filter_map(|c| c.kill.map(|k| k.deadline))
                .filter(|d| *d > cx.now)
                .min()
        });
        if let Some(deadline) = pending {
            let delay = deadline.as_millis() - cx.now.as_millis();
            self.timer(cx, delay, key, Step::Stopped);
            return;
        }
        let running: Vec<usize> = self.workers.get(key).map_or_else(Vec::new, |w| {
            (0..w.ctrs.len())
                .filter(|&i| w.ctrs[i].is_running())
                .collect()
        });
        for i in running {
            self.signal(key, i, Signal::Kill, cx);
        }
        let Some(w) = self.workers.get(key) else {
            return;
        };
        let pod = w.pod.clone();
        self.sandbox_stopped(key, cx);
        if let Some(id) = self.send_status(key, true, cx) {
            self.deleting.insert(id, pod);
        }
    }

    /// A pod that was running before the story started is being deleted.
    /// Its containers were not started in the story, so the kubelet has no
    /// process of theirs: each gets its `Killing` event and the whole grace
    /// period before the deletion is confirmed (simplified: a server would
    /// exit at once on SIGTERM).
    pub(super) fn terminate_settled(&mut self, key: &str, pod: &Shared<Pod>, cx: &mut Cx<'_>) {
        let Some(slot) = self.settled.get_mut(key) else {
            return;
        };
        if slot.is_some() {
            return;
        }
        *slot = Some(pod.clone());
        let seconds = pod
            .metadata
            .deletion_grace_period_seconds
            .or_else(|| {
                pod.spec
                    .as_ref()
                    .and_then(|s| s.termination_grace_period_seconds)
            })
            .unwrap_or(30);
        for c in pod
            .spec
            .as_ref()
            .map(|s| s.containers.as_slice())
            .unwrap_or_default()
        {
            Self::event(
                cx,
                key,
                false,
                "Killing",
                lifecycle::kill_message(&c.name, KillReason::Stop, false),
                Some(format!("spec.containers{{{}}}", c.name)),
            );
            cx.message(
                &self.me(),
                &self.containerd(),
                format!("StopContainer {} (grace {seconds}s)", c.name),
            );
        }
        let delay = u64::try_from(seconds.max(0)).unwrap_or(0) * 1000;
        self.timer(cx, delay.max(1), key, Step::SettledStopped);
    }

    /// `StopPodSandbox`: the pod's containers are gone; its deletion is confirmed next.
    fn sandbox_stopped(&self, key: &str, cx: &mut Cx<'_>) {
        cx.message(&self.me(), &self.containerd(), "StopPodSandbox");
        self.stage(
            cx,
            key,
            StageName::Status,
            Outcome::Terminated,
            "containers stopped; confirming deletion",
        );
    }

    /// A settled pod's grace period ended: its sandbox stops and the kubelet
    /// confirms the deletion (`DELETE` with grace period 0).
    pub(super) fn settled_stopped(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(Some(pod)) = self.settled.get(key).cloned() else {
            return;
        };
        self.sandbox_stopped(key, cx);
        let request = self.pod_request(Verb::Delete, &pod).body(Body::Delete {
            grace_period_seconds: Some(0),
        });
        cx.send(request);
    }
}
