//! Running the probe workers against the simulated containers
//! (`pkg/kubelet/prober/worker.go` `doProbe`, `prober.go` `runProbe`): a tick
//! every `periodSeconds`, the `Unhealthy` events, and the kill on a failed
//! liveness or startup probe.
//!
//! A tick is foreground work only while it may change something (the probe has
//! not run yet, a threshold is being counted, or the next run's answer would
//! differ); otherwise it is background work and does not keep the cluster busy.

use super::dns::Dns;
use super::lifecycle::KillReason;
use super::prober::{self, Handler, Outcome, ProbeResult, ProbeType, Target, Transition};
use super::worker::Ctr;
use super::{Kubelet, Step, until};
use crate::clock::SimTime;
use crate::component::Cx;
use crate::trace::{self, StageName};

/// Runs probe `slot` of `ctr` at `now`: the resolved target and the verdict,
/// or the error that kept the probe from running.
fn run_probe(
    ctr: &mut Ctr,
    slot: usize,
    pod_ip: &str,
    world: &Dns<'_>,
    now: SimTime,
) -> Result<(Target, ProbeResult), String> {
    let spec = ctr.probes[slot].worker.spec.clone();
    let target = prober::resolve(&spec, &ctr.spec, pod_ip)?;
    let Some(process) = ctr.process.as_mut() else {
        return Ok((
            target.clone(),
            prober::evaluate(&target, spec.timeout_seconds, &Outcome::Refused),
        ));
    };
    let port = |p: &prober::Port| {
        prober::resolve_port(p, &ctr.spec).map(|n| u16::try_from(n).unwrap_or(0))
    };
    let outcome = match (&target, &spec.handler) {
        (Target::Exec { command }, _) => {
            let r = process.exec(command, now, world);
            Outcome::Exec {
                exit_code: r.code,
                output: r.output.trim_end().to_owned(),
            }
        }
        (Target::Http { .. }, Some(Handler::HttpGet { port: p, path, .. })) => {
            let path = if path.is_empty() { "/" } else { path };
            match process.http_get(port(p)?, path, now) {
                Some(status) => Outcome::Http { status },
                None => Outcome::Refused,
            }
        }
        (Target::Tcp { .. }, Some(Handler::TcpSocket { port: p, .. })) => {
            if process.tcp_open(port(p)?, now) {
                Outcome::Http { status: 200 }
            } else {
                Outcome::Refused
            }
        }
        (Target::Grpc { .. }, Some(Handler::Grpc { port: p, .. })) => {
            if process.tcp_open(u16::try_from(*p).unwrap_or(0), now) {
                Outcome::Grpc(prober::GrpcStatus::Serving)
            } else {
                Outcome::Refused
            }
        }
        _ => Outcome::Refused,
    };
    let result = prober::evaluate(&target, spec.timeout_seconds, &outcome);
    Ok((target, result))
}

impl Kubelet {
    /// Sets the timer of probe `slot` of container `i` for its next tick.
    pub(super) fn schedule_probe(&mut self, key: &str, i: usize, s: usize, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get(key) else {
            return;
        };
        let ctr = &w.ctrs[i];
        if !ctr.is_running() || ctr.kill.is_some() {
            return;
        }
        let slot = &ctr.probes[s];
        if slot.worker.probe_type == ProbeType::Startup && ctr.started() {
            return;
        }
        let next = slot.worker.next_tick(cx.now.plus(1));
        let generation = slot.generation;
        let settled = slot.last.is_some() && slot.last == slot.worker.result();
        let foreground = !settled || {
            // Would the next run answer otherwise? Ask a copy of the container.
            let ns = w.pod.metadata.namespace.clone().unwrap_or_default();
            let world = Dns::new(&self.services, &ns, &self.net);
            let mut copy = ctr.clone();
            let pod_ip = w.pod_ip.clone().unwrap_or_default();
            run_probe(&mut copy, s, &pod_ip, &world, next)
                .is_ok_and(|(_, r)| Some(r.success) != slot.last)
        };
        let step = Step::Probe {
            ctr: i,
            slot: s,
            generation,
        };
        let delay = until(cx.now, next).max(1);
        if foreground {
            self.timer(cx, delay, key, step);
        } else {
            self.background_timer(cx, delay, key, step);
        }
    }

    /// A probe worker ticks.
    pub(super) fn probe_tick(
        &mut self,
        key: &str,
        i: usize,
        s: usize,
        generation: u64,
        cx: &mut Cx<'_>,
    ) {
        let current = self.workers.get(key).is_some_and(|w| {
            !w.terminating
                && w.ctrs.get(i).is_some_and(|c| {
                    c.is_running()
                        && c.kill.is_none()
                        && c.probes.get(s).is_some_and(|p| p.generation == generation)
                })
        });
        if !current {
            return;
        }
        self.advance(key, cx);
        let Some(w) = self.workers.get_mut(key) else {
            return;
        };
        let ns = w.pod.metadata.namespace.clone().unwrap_or_default();
        let world = Dns::new(&self.services, &ns, &self.net);
        let pod_ip = w.pod_ip.clone().unwrap_or_default();
        let ctr = &mut w.ctrs[i];
        if !ctr.is_running() {
            return;
        }
        let started = ctr.started();
        let worker = &ctr.probes[s].worker;
        let probe_type = worker.probe_type;
        if !worker.due(cx.now, ctr.running_since, started) {
            self.schedule_probe(key, i, s, cx);
            return;
        }
        let (cname, field) = (ctr.spec.name.clone(), ctr.field_path());
        let ran = run_probe(ctr, s, &pod_ip, &world, cx.now);
        // A probe that could not run is not counted (`doProbe` returns early).
        let counted = ran.is_ok();
        let (transition, failure) = match ran {
            Err(error) => (
                Transition::None,
                Some(prober::errored_event(probe_type, &error)),
            ),
            Ok((_, result)) => {
                let slot = &mut ctr.probes[s];
                slot.last = Some(result.success);
                (
                    slot.worker.record(result.success),
                    prober::unhealthy_event(probe_type, &result),
                )
            }
        };
        if let Some(message) = failure {
            let worker = &ctr.probes[s].worker;
            let detail = trace::ProbeDetail {
                container: cname.clone(),
                message: message.clone(),
                failures: if counted { worker.failures() } else { 0 },
                failure_threshold: worker.spec.failure_threshold,
            };
            Self::event(cx, key, true, "Unhealthy", message, Some(field));
            self.stage(cx, key, StageName::Probe, trace::Outcome::Failure, detail);
        }
        let kind = probe_type.as_str().to_ascii_lowercase();
        match transition {
            Transition::LivenessFailed => self.kill(key, i, KillReason::LivenessProbe, cx),
            Transition::StartupFailed => self.kill(key, i, KillReason::StartupProbe, cx),
            Transition::BecameReady | Transition::StartupSucceeded => {
                self.stage(
                    cx,
                    key,
                    StageName::Probe,
                    trace::Outcome::Success,
                    format!("{cname}: {kind} probe succeeded"),
                );
                self.sync(key, cx);
            }
            Transition::BecameUnready => {
                self.stage(
                    cx,
                    key,
                    StageName::Probe,
                    trace::Outcome::Unready,
                    format!("{cname}: {kind} probe failed"),
                );
                self.sync(key, cx);
            }
            Transition::None => {}
        }
        self.schedule_probe(key, i, s, cx);
    }
}
