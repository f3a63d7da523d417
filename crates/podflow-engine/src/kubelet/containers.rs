//! A container's life in the runtime: create and start it (`startContainer` in
//! `kuberuntime_container.go`) with the restart back-off before a restart
//! (`doBackOff`), run its process as time passes, notice its exit, kill it
//! (`killContainer`: SIGTERM, then SIGKILL after the grace period) and stop the
//! whole pod when it is deleted.

use super::backoff::{self, Restart};
use super::dns::Dns;
use super::env;
use super::hooks::{self, Hook, HookRun};
use super::lifecycle::{self, KillReason};
use super::process::{Launch, Process, Signal, State};
use super::status::ContainerState;
use super::worker::Kill;
use super::{Kubelet, Step, until};
use crate::clock::SimTime;
use crate::component::Cx;
use crate::trace::{CrashBackoffDetail, Outcome, StageName};

/// A process wake-up further away than this does not keep the cluster busy:
/// a container that sleeps for an hour must not hold `wait idle`.
const FOREGROUND_WAKE_MS: u64 = 5 * 60 * 1000;

impl Kubelet {
    /// Starts (or restarts) container `i`, unless its restart is in back-off;
    /// the image is ensured first. Returns whether it started now.
    pub(super) fn start(&mut self, key: &str, i: usize, cx: &mut Cx<'_>) -> bool {
        if self.config_blocked(key, i) {
            return false;
        }
        let Some(w) = self.workers.get_mut(key) else {
            return false;
        };
        let (ns, name, uid) = w.names();
        let ctr = &mut w.ctrs[i];
        if let Some(finished) = ctr.finished_at() {
            let crash_key = backoff::crash_key(&ns, &name, &uid, &ctr.spec.name);
            if let Restart::Wait { backoff_ms } = self.crash.restart(&crash_key, finished, cx.now) {
                let full = backoff::pod_full_name(&ns, &name, &uid);
                ctr.retire();
                ctr.start_error = None;
                ctr.view.state = ContainerState::Waiting {
                    reason: lifecycle::CRASH_LOOP_BACK_OFF.into(),
                    message: Some(backoff::crash_loop_message(
                        backoff_ms,
                        &ctr.spec.name,
                        &full,
                    )),
                };
                let announce = !ctr.waiting_announced;
                ctr.waiting_announced = true;
                let (field, cname) = (ctr.field_path(), ctr.spec.name.clone());
                if announce {
                    // The decision, then the Event that tells it (doBackOff).
                    self.stage(
                        cx,
                        key,
                        StageName::Container,
                        Outcome::Backoff,
                        CrashBackoffDetail {
                            container: cname.clone(),
                            delay: super::klog::go_duration(backoff_ms),
                            delay_ms: backoff_ms,
                            restart_at_ms: finished.plus(backoff_ms).as_millis(),
                        },
                    );
                    Self::event(
                        cx,
                        key,
                        true,
                        "BackOff",
                        backoff::crash_loop_event(&cname, &full),
                        Some(field),
                    );
                }
                let at = finished.plus(backoff_ms);
                self.timer(cx, until(cx.now, at).max(1), key, Step::Sync);
                if announce {
                    self.timer(cx, super::pull::RESYNC_AFTER_FAILURE_MS, key, Step::Sync);
                }
                return false;
            }
        }
        if !self.ensure_image(key, i, cx) {
            return false;
        }
        self.create_start(key, i, cx)
    }

    /// `CreateContainer` and `StartContainer`: the process starts with its
    /// environment and mounted files; returns whether it started (not when its
    /// configuration refers to a missing `ConfigMap`, `Secret` or key).
    pub(super) fn create_start(&mut self, key: &str, i: usize, cx: &mut Cx<'_>) -> bool {
        let me = self.me();
        let containerd = self.containerd();
        let Some(w) = self.workers.get(key) else {
            return false;
        };
        let ctr = &w.ctrs[i];
        let image_info = self.image_info(ctr.spec.image.as_deref().unwrap_or_default());
        let (env, files) = match self.generate_container_config(key, i) {
            Ok(config) => config,
            Err(message) => {
                self.config_error(key, i, &message, cx);
                return false;
            }
        };
        let ns = w.names().0;
        let world = Dns::new(&self.services, &ns, &self.net);
        let empty = Vec::new();
        let launch = Launch {
            image: image_info.as_ref(),
            command: ctr.spec.command.as_ref().unwrap_or(&empty),
            args: ctr.spec.args.as_ref().unwrap_or(&empty),
            env,
            files,
            dirs: super::etc_files::mount_points(&ctr.spec),
            memory_limit_bytes: env::memory_limit(&ctr.spec),
        };
        let process = Process::start(launch, cx.now, &world);
        let image = ctr.image();
        let image_id = self.images.get(&image).cloned();
        let id = cx.rng.hex(64);
        let (cname, field) = (ctr.spec.name.clone(), ctr.field_path());
        cx.message(&me, &containerd, format!("CreateContainer {cname}"));
        Self::event(
            cx,
            key,
            false,
            "Created",
            "Container created".into(),
            Some(field.clone()),
        );
        cx.message(&me, &containerd, format!("StartContainer {}", &id[..13]));
        if let Some(error) = process.message() {
            Self::event(
                cx,
                key,
                true,
                "Failed",
                lifecycle::error_event(error),
                Some(field),
            );
        } else {
            Self::event(
                cx,
                key,
                false,
                "Started",
                "Container started".into(),
                Some(field),
            );
        }
        self.stage(
            cx,
            key,
            StageName::Container,
            Outcome::Started,
            format!("{cname} ({})", &id[..13]),
        );
        let Some(w) = self.workers.get_mut(key) else {
            return false;
        };
        let ctr = &mut w.ctrs[i];
        ctr.retire();
        if ctr.view.container_id.is_some() {
            ctr.view.restart_count += 1;
        }
        ctr.view.container_id = Some(format!("containerd://{id}"));
        ctr.view.image = image;
        ctr.view.image_id = image_id;
        ctr.definition_changed = false;
        ctr.start_error = None;
        ctr.view.state = ContainerState::Running { started_at: cx.now };
        ctr.running_since = Some(cx.now);
        ctr.run(process);
        ctr.waiting_announced = false;
        for slot in &mut ctr.probes {
            slot.worker.observe_container(&id);
            slot.generation += 1;
            slot.last = None;
        }
        let slots = ctr.probes.len();
        w.pleg.push((id, "ContainerStarted"));
        for s in 0..slots {
            self.schedule_probe(key, i, s, cx);
        }
        self.schedule_pleg(key, cx);
        self.post_start(key, i, cx);
        true
    }

    /// `startContainer` step 4: the `postStart` hook. On failure the container
    /// is killed (`Killing` with the message `FailedPostStartHook`) and
    /// restarts as its policy says.
    fn post_start(&mut self, key: &str, i: usize, cx: &mut Cx<'_>) {
        match self.run_hook(key, i, Hook::PostStart, cx) {
            None => {}
            Some(HookRun::Failed(message)) => {
                let Some(w) = self.workers.get_mut(key) else {
                    return;
                };
                // startContainer returns ErrPostStartHook with the hook's
                // message: the reason cache's entry for the container.
                w.ctrs[i].start_error = Some((hooks::POST_START_HOOK_ERROR.into(), message));
                let grace = w.grace_ms();
                self.kill_with(key, i, hooks::FAILED_POST_START_HOOK.into(), grace, cx);
            }
            // The hook may have changed the process (`nginx -s quit`).
            Some(_) => self.wake(key, cx),
        }
    }

    /// Runs every running process up to now; exits are recorded for the PLEG.
    pub(super) fn advance(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get_mut(key) else {
            return;
        };
        let ns = w.pod.metadata.namespace.clone().unwrap_or_default();
        let world = Dns::new(&self.services, &ns, &self.net);
        let mut exited = Vec::new();
        for ctr in &mut w.ctrs {
            if !ctr.is_running() {
                continue;
            }
            let Some(process) = ctr.process.as_mut() else {
                continue;
            };
            if process.advance(cx.now, &world) != State::Running
                && let Some((code, reason)) = ctr.record_exit(cx.now)
            {
                let id = ctr.view.container_id.clone().unwrap_or_default();
                let id = id.trim_start_matches("containerd://").to_owned();
                w.pleg.push((id, "ContainerDied"));
                exited.push(ctr.exit_detail(code, reason));
            }
        }
        for stage in world.connection_stages(&self.node) {
            cx.stage(stage.pod(key));
        }
        let any = !exited.is_empty();
        for detail in exited {
            self.stage(cx, key, StageName::Container, Outcome::Exited, detail);
        }
        if any {
            self.schedule_pleg(key, cx);
        }
    }

    /// A process woke up (or the world it polls changed): run it, then set the next wake-up.
    pub(super) fn wake(&mut self, key: &str, cx: &mut Cx<'_>) {
        self.advance(key, cx);
        self.schedule_wake(key, cx);
    }

    /// Sets a timer for the earliest process wake-up of the pod.
    pub(super) fn schedule_wake(&mut self, key: &str, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get_mut(key) else {
            return;
        };
        let running = w
            .ctrs
            .iter()
            .filter(|c| c.is_running())
            .filter_map(|c| c.process.as_ref());
        let mut next: Option<SimTime> = None;
        let mut busy = false;
        for p in running {
            busy |= p.is_busy();
            if let Some(t) = p.next_wakeup() {
                next = Some(next.map_or(t, |n: SimTime| n.min(t)));
            }
        }
        if busy {
            let t = cx.now.plus(1000);
            next = Some(next.map_or(t, |n| n.min(t)));
        }
        let Some(at) = next.map(|t| t.max(cx.now)) else {
            return;
        };
        if w.wake_at
            .is_some_and(|current| current <= at && current >= cx.now)
        {
            return;
        }
        w.wake_at = Some(at);
        let delay = until(cx.now, at);
        if delay > FOREGROUND_WAKE_MS || busy {
            self.background_timer(cx, delay, key, Step::Wake(at));
        } else {
            self.timer(cx, delay, key, Step::Wake(at));
        }
    }

    /// Kills container `i` (`killContainer`): the `Killing` event, SIGTERM, and
    /// SIGKILL when the grace period ends.
    pub(super) fn kill(&mut self, key: &str, i: usize, reason: KillReason, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get_mut(key) else {
            return;
        };
        let policy = w.restart_policy();
        let mut grace = w.grace_ms();
        let ctr = &w.ctrs[i];
        if !ctr.is_running() || ctr.kill.is_some() {
            return;
        }
        let probe = match reason {
            KillReason::LivenessProbe => ctr.spec.liveness_probe.as_ref(),
            KillReason::StartupProbe => ctr.spec.startup_probe.as_ref(),
            KillReason::Stop => None,
        };
        if let Some(seconds) = probe.and_then(|p| p.termination_grace_period_seconds) {
            grace = u64::try_from(seconds.max(0)).unwrap_or(0) * 1000;
        }
        let restart = reason != KillReason::Stop && lifecycle::is_restartable(&ctr.spec, &policy);
        let message = lifecycle::kill_message(&ctr.spec.name, reason, restart);
        self.kill_with(key, i, message, grace, cx);
    }

    /// `killContainer` with the `Killing` event's `message`: the event, the
    /// `preStop` hook (its time counts against `grace`), SIGTERM, and SIGKILL
    /// when the grace period ends.
    pub(super) fn kill_with(
        &mut self,
        key: &str,
        i: usize,
        message: String,
        grace: u64,
        cx: &mut Cx<'_>,
    ) {
        let Some(ctr) = self.workers.get(key).and_then(|w| w.ctrs.get(i)) else {
            return;
        };
        if !ctr.is_running() || ctr.kill.is_some() {
            return;
        }
        let (cname, field) = (ctr.spec.name.clone(), ctr.field_path());
        Self::event(cx, key, false, "Killing", message, Some(field));
        let (term_in, grace) = self.pre_stop(key, i, grace, cx);
        cx.message(
            &self.me(),
            &self.containerd(),
            format!("StopContainer {cname} (grace {}s)", grace / 1000),
        );
        self.stage(
            cx,
            key,
            StageName::Container,
            Outcome::Killing,
            format!("{cname}: SIGTERM, SIGKILL after {}s", grace / 1000),
        );
        let exited = term_in == 0 && self.signal(key, i, Signal::Term, cx);
        if !exited {
            if let Some(ctr) = self.workers.get_mut(key).map(|w| &mut w.ctrs[i]) {
                ctr.kill = Some(Kill {
                    deadline: cx.now.plus(term_in + grace),
                });
            }
            self.timer(cx, term_in + grace, key, Step::KillDeadline(i));
            if term_in > 0 {
                self.schedule_wake(key, cx);
            }
        }
    }

    /// Runs container `i`'s `preStop` hook (`executePreStopHook`) when the
    /// grace period allows one: returns how long until SIGTERM (a `sleep`
    /// hook, at most the grace period) and the grace period SIGTERM then gets
    /// (what is left, at least two seconds). A `sleep` hook's SIGTERM is
    /// queued on the process.
    pub(super) fn pre_stop(
        &mut self,
        key: &str,
        i: usize,
        grace: u64,
        cx: &mut Cx<'_>,
    ) -> (u64, u64) {
        if grace == 0 {
            return (0, grace);
        }
        let took = match self.run_hook(key, i, Hook::PreStop, cx) {
            None => return (0, grace),
            Some(HookRun::Sleep(ms) | HookRun::Took(ms)) => ms.min(grace),
            Some(_) => 0,
        };
        if took > 0
            && let Some(process) = self
                .workers
                .get_mut(key)
                .and_then(|w| w.ctrs.get_mut(i))
                .and_then(|c| c.process.as_mut())
        {
            process.term_at(cx.now.plus(took));
        }
        (took, hooks::grace_after_pre_stop(grace, took))
    }

    /// Sends `signal` to container `i`; returns whether it has exited.
    pub(super) fn signal(&mut self, key: &str, i: usize, signal: Signal, cx: &mut Cx<'_>) -> bool {
        let Some(w) = self.workers.get_mut(key) else {
            return true;
        };
        let ns = w.pod.metadata.namespace.clone().unwrap_or_default();
        let world = Dns::new(&self.services, &ns, &self.net);
        let ctr = &mut w.ctrs[i];
        let Some(process) = ctr.process.as_mut() else {
            return true;
        };
        if process.stop(signal, cx.now, &world) == State::Running {
            return false;
        }
        if let Some((code, reason)) = ctr.record_exit(cx.now) {
            let id = ctr.view.container_id.clone().unwrap_or_default();
            let id = id.trim_start_matches("containerd://").to_owned();
            let detail = ctr.exit_detail(code, reason);
            w.pleg.push((id, "ContainerDied"));
            self.stage(cx, key, StageName::Container, Outcome::Exited, detail);
            self.schedule_pleg(key, cx);
        }
        true
    }

    /// The grace period of a kill ended: SIGKILL.
    pub(super) fn kill_deadline(&mut self, key: &str, i: usize, cx: &mut Cx<'_>) {
        let due = self
            .workers
            .get(key)
            .and_then(|w| w.ctrs.get(i))
            .and_then(|c| c.kill)
            .is_some_and(|k| k.deadline <= cx.now);
        if due {
            self.signal(key, i, Signal::Kill, cx);
        }
    }
}
