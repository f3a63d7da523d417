//! The binding cycle (mirrors the binding half of
//! `pkg/scheduler/schedule_one.go`: `assume`, `bindingCycle`, `bind`,
//! `handleBindingCycleError`): the chosen node's Reserve, Permit and `PreBind`
//! plugins, the Binding sent to the API server and its answer, and the assumed
//! pod forgotten when any of it fails.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::Pod;

use super::framework::{BindAction, Code, CycleState, Status};
use super::profile::ProfilePlugins;
use super::{ME, Scheduler, identity, plugins, pod_request};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Request, Verb};
use crate::component::{Cx, RequestId, pod_event};
use crate::trace::Stage;
use crate::trace::{Actor, Outcome, StageName};

impl Scheduler {
    /// Assumes the pod on `node`, then Reserve, Permit and `PreBind`, and
    /// sends the Bind plugin's binding (`schedulingCycle` after selection, then
    /// `bindingCycle`); a plugin's refusal forgets the pod and requeues it.
    pub(super) fn bind(
        &mut self,
        key: &str,
        pod: &Pod,
        node: &str,
        profile: &ProfilePlugins,
        cycle: &mut CycleState,
        cx: &mut Cx<'_>,
    ) {
        self.assumed.insert(key.to_owned(), node.to_owned());
        if let Some(known) = self.pods.get(key) {
            self.cache.set_pod(key, known.clone(), Some(node));
        }
        match run_binding_plugins(profile, key, pod, node, cycle, cx) {
            Ok(()) if plugins::volume_binding::writes_of(cycle).is_some() => {
                let writes = plugins::volume_binding::writes_of(cycle)
                    .cloned()
                    .unwrap_or_default();
                cx.stage(
                    Stage::new(
                        Actor::Scheduler,
                        StageName::PreBind,
                        Outcome::Waiting,
                        format!(
                            "{key}: waiting for {} to be bound",
                            writes.claims.join(", ")
                        ),
                    )
                    .plugin(plugins::volume_binding::NAME)
                    .node(node)
                    .pod(key),
                );
                for object in writes.objects {
                    let request = Request::new(
                        ME,
                        identity(),
                        Verb::Update,
                        object.kind(),
                        object.namespace().map(str::to_owned),
                        object.name().to_owned(),
                    )
                    .body(Body::Object(Box::new(object)));
                    let id = cx.send(request);
                    self.volumes.sent(id, key);
                }
                self.volumes.wait(key, node, writes.claims);
                for (key, node) in self.volumes.ready() {
                    if let Some(pod) = self.pods.get(&key).cloned() {
                        self.send_binding(&key, &pod, &node, cx);
                    }
                }
            }
            Ok(()) => self.send_binding(key, pod, node, cx),
            // Inside the cycle: the timer that ran it schedules the next.
            Err(message) => self.forget_assumed(key, message, cx),
        }
    }

    /// Sends the Bind plugin's binding of `key` to `node`.
    pub(super) fn send_binding(&mut self, key: &str, pod: &Pod, node: &str, cx: &mut Cx<'_>) {
        let request = pod_request(Verb::Create, pod)
            .subresource("binding")
            .body(Body::Binding {
                node: node.to_owned(),
            });
        cx.stage(
            Stage::new(
                Actor::Scheduler,
                StageName::Bind,
                Outcome::Request,
                format!("binding {key} to {node}"),
            )
            .node(node)
            .pod(key),
        );
        let id = cx.send(request);
        self.binding.insert(id, (key.to_owned(), node.to_owned()));
    }

    /// An answer arrived (a binding's, or a status patch's).
    pub fn on_response(&mut self, id: RequestId, response: &Response, cx: &mut Cx<'_>) {
        if let Some(failed) = self.volumes.answered(id, response.code < 300) {
            if let Some(key) = failed {
                let message = format!(
                    "running PreBind plugin {:?}: {}",
                    plugins::volume_binding::NAME,
                    response.message()
                );
                self.binding_failed(&key, message, cx);
            }
            return;
        }
        let Some((key, node)) = self.binding.remove(&id) else {
            return;
        };
        let (ns, name) = key.split_once('/').unwrap_or(("", &key));
        let source = self.source_for(&key);
        if response.code < 300 {
            cx.event(pod_event(
                false,
                "Scheduled",
                format!("Successfully assigned {key} to {node}"),
                (ns, name),
                None,
                &source,
            ));
        } else {
            let message = format!("binding rejected: {}", response.message());
            self.binding_failed(&key, message, cx);
        }
    }

    /// The binding cycle of `key` failed on an answer: as
    /// [`Scheduler::forget_assumed`], then the next cycle is armed.
    fn binding_failed(&mut self, key: &str, message: String, cx: &mut Cx<'_>) {
        self.forget_assumed(key, message, cx);
        self.kick(cx);
    }

    /// The binding cycle of `key` failed (`handleBindingCycleError`): the
    /// assumed Pod is forgotten, `FailedScheduling` says why, and the Pod
    /// goes back to the queue; no plugin refused it, so any cluster event
    /// may help.
    fn forget_assumed(&mut self, key: &str, message: String, cx: &mut Cx<'_>) {
        self.assumed.remove(key);
        self.cache.remove_pod(key);
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        let source = self.source_for(key);
        cx.event(pod_event(
            true,
            "FailedScheduling",
            message,
            (ns, name),
            None,
            &source,
        ));
        self.requeue_failed(key, BTreeSet::new(), cx);
    }
}

/// Reserve, Permit and `PreBind` on the chosen node, then the first Bind
/// plugin that takes the pod; one record per plugin. The error is the
/// `FailedScheduling` message upstream's framework words
/// (`pkg/scheduler/framework/runtime/framework.go`).
fn run_binding_plugins(
    profile: &ProfilePlugins,
    key: &str,
    pod: &Pod,
    node: &str,
    cycle: &mut CycleState,
    cx: &mut Cx<'_>,
) -> Result<(), String> {
    let record = |cx: &mut Cx<'_>, stage: StageName, plugin: &'static str, status: &Status| {
        let outcome = if status.is_success() {
            Outcome::Pass
        } else {
            Outcome::Fail
        };
        let mut record = Stage::new(Actor::Scheduler, stage, outcome, status.reasons.join(", "))
            .plugin(plugin)
            .node(node)
            .pod(key);
        record.extra_mut().code = Some(status.code.as_str().into());
        cx.stage(record);
    };
    for (done, plugin) in profile.reservers.iter().enumerate() {
        let status = plugin.reserve(cycle, pod, node);
        if status.code == Code::Skip {
            continue;
        }
        record(cx, StageName::Reserve, plugin.name(), &status);
        if !status.is_success() {
            for earlier in profile.reservers[..=done].iter().rev() {
                earlier.unreserve(cycle, pod, node);
            }
            return Err(format!(
                "running Reserve plugin {:?}: {}",
                plugin.name(),
                status.reasons.join(", ")
            ));
        }
    }
    let unreserve_all = |cycle: &mut CycleState| {
        for plugin in profile.reservers.iter().rev() {
            plugin.unreserve(cycle, pod, node);
        }
    };
    for plugin in &profile.permits {
        let status = plugin.permit(cycle, pod, node);
        record(cx, StageName::Permit, plugin.name(), &status);
        if !status.is_success() {
            unreserve_all(cycle);
            return Err(format!(
                "rejected pod {:?} by permit plugin {:?}: {}",
                pod.metadata.name.as_deref().unwrap_or_default(),
                plugin.name(),
                status.reasons.join(", ")
            ));
        }
    }
    for plugin in &profile.pre_binders {
        let status = match plugin.pre_bind_pre_flight(cycle, pod, node) {
            pre_flight if pre_flight.code == Code::Skip => continue,
            pre_flight if !pre_flight.is_success() => pre_flight,
            _ => plugin.pre_bind(cycle, pod, node),
        };
        record(cx, StageName::PreBind, plugin.name(), &status);
        if !status.is_success() {
            unreserve_all(cycle);
            return Err(format!(
                "running PreBind plugin {:?}: {}",
                plugin.name(),
                status.reasons.join(", ")
            ));
        }
    }
    let bound = profile
        .binders
        .iter()
        .any(|plugin| plugin.bind(pod, node) != BindAction::Skip);
    if bound {
        Ok(())
    } else {
        unreserve_all(cycle);
        Err("no bind plugin handled the pod".to_owned())
    }
}
