//! `fault node` / `recover node`: a node cut off from the control plane. Its
//! kubelet stops reaching the API server (its Lease and status go stale, so
//! the node lifecycle controller marks it `NotReady`), while what it would have
//! sent and received is held and delivered when it reconnects.

use super::{Engine, Event, HOP_MS};
use crate::apiserver::request::Request;
use crate::component::{ComponentId, RequestId};
use crate::store::WatchEvent;
use crate::trace::{Actor, NodeName, Outcome, StageName};
use crate::trace::{Record, Stage};

/// What a faulted node's kubelet missed: its watch events and its requests,
/// delivered when it reconnects (a watch resumes from its resourceVersion).
#[derive(Debug, Clone, Default)]
pub(super) struct Held {
    pub(super) watches: Vec<WatchEvent>,
    /// Its kube-proxy's watch events.
    pub(super) proxy_watches: Vec<WatchEvent>,
    pub(super) requests: Vec<(RequestId, Box<Request>)>,
}

impl Engine {
    /// `fault node NODE memory-pressure` (`on`) / `recover node NODE`: a
    /// process outside the pods takes the node's memory (its kubelet's
    /// eviction manager notices at its next synchronize), or lets it go.
    pub(super) fn set_memory_fault(
        &mut self,
        node: &str,
        on: bool,
        asked: bool,
        records: &mut Vec<Record>,
    ) {
        let Some(kubelet) = self.kubelets.get_mut(node) else {
            if asked {
                records.push(Record::Log {
                    component: Actor::Kubectl,
                    node: None,
                    line: format!("error: no node \"{node}\" to fault"),
                });
            }
            return;
        };
        if !on && !kubelet.memory_hogged() {
            return;
        }
        kubelet.set_memory_hog(on);
        let me = Actor::Kubelet(NodeName::from(node));
        let detail = if on {
            format!(
                "a process outside the pods takes {node}'s memory: memory.available falls below the kubelet's hard eviction threshold (memory.available<100Mi)"
            )
        } else {
            format!("the process outside the pods ends: {node}'s memory is free again")
        };
        records.push(Record::from(
            Stage::new(
                me,
                StageName::Fault,
                if on {
                    Outcome::Failed
                } else {
                    Outcome::Recovered
                },
                detail,
            )
            .node(node.to_owned()),
        ));
    }

    /// `fault node` / `recover node`: cuts a node's kubelet off from the API
    /// server, or reconnects it and delivers what it missed.
    pub(super) fn set_fault(&mut self, node: &str, faulted: bool, records: &mut Vec<Record>) {
        let me = Actor::Kubelet(NodeName::from(node));
        let Some(kubelet) = self.kubelets.get_mut(node) else {
            records.push(Record::Log {
                component: Actor::Kubectl,
                node: None,
                line: format!(
                    "error: no node \"{node}\" to {}",
                    if faulted { "fault" } else { "recover" }
                ),
            });
            return;
        };
        kubelet.set_faulted(faulted);
        if faulted {
            self.faults.entry(node.to_owned()).or_default();
            records.push(Record::message(
                me.clone(),
                Actor::ApiServer,
                "✕ connection lost (node fault)",
            ));
            records.push(Record::from(
                Stage::new(
                    me.clone(),
                    StageName::Fault,
                    Outcome::Partitioned,
                    format!(
                        "{node} is cut off from the control plane: its kubelet stops renewing its Lease and posting node status; its containers keep running"
                    ),
                )
                .node(node.to_owned()),
            ));
            return;
        }
        let Some(held) = self.faults.remove(node) else {
            return;
        };
        records.push(Record::message(
            me.clone(),
            Actor::ApiServer,
            "connection restored (node recovered)",
        ));
        records.push(Record::from(
            Stage::new(
                me.clone(),
                StageName::Fault,
                Outcome::Recovered,
                format!(
                    "{node} reaches the control plane again: {} watch events and {} requests it missed are delivered",
                    held.watches.len(),
                    held.requests.len()
                ),
            )
            .node(node.to_owned()),
        ));
        let who = ComponentId::Kubelet(node.to_owned());
        for (id, request) in held.requests {
            self.queue.push(
                self.now.plus(HOP_MS),
                Event::Request {
                    id,
                    from: who.clone(),
                    request,
                },
                false,
            );
        }
        let proxy = ComponentId::KubeProxy(node.to_owned());
        let last = self.last_delivery.entry(proxy.clone()).or_default();
        for event in held.proxy_watches {
            *last = (*last).max(self.now.plus(HOP_MS));
            let to = proxy.clone();
            self.queue.push(*last, Event::Watch { to, event }, false);
        }
        let last = self.last_delivery.entry(who.clone()).or_default();
        for event in held.watches {
            *last = (*last).max(self.now.plus(HOP_MS));
            self.queue.push(
                *last,
                Event::Watch {
                    to: who.clone(),
                    event,
                },
                false,
            );
        }
    }
}
