//! `kubectl describe KIND NAME`: the object's GET, then the LISTs its
//! describer reads besides it, one after another (a Deployment's replica
//! sets, a Node's Pods and Lease, a replica set's Pods, a Service's endpoint
//! slices, and the Events about it, `searchEvents`), then the printout
//! ([`crate::kubectl_printers::describe`]).

use std::sync::Arc;

use super::{Cx, InFlight, Kind, Kubectl, Object, Request, Response, Verb, error_lines};
use crate::kubectl_printers::describe::{Related, describe};
use crate::store::selector::{FieldRequirement, LabelRequirement};
use podflow_model::kinds::kind_of;

/// Where a LIST's items go in [`Related`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    Events,
    ReplicaSets,
    Pods,
    EndpointSlices,
    Lease,
}

/// A describe between its requests: the object, what is read so far, and
/// the LISTs still to send.
#[derive(Debug, Clone)]
pub(super) struct Describing {
    object: Arc<Object>,
    related: Related,
    pending: Vec<(Request, Slot)>,
    waiting_for: Slot,
}

fn equals(field: &str, value: &str) -> FieldRequirement {
    FieldRequirement {
        field: field.to_owned(),
        value: value.to_owned(),
        negated: false,
    }
}

impl Kubectl {
    /// The object's GET.
    pub(super) fn start_describe(
        &mut self,
        kind: &'static Kind,
        name: &str,
        namespace: Option<String>,
        cx: &mut Cx<'_>,
    ) {
        let req = self.request(Verb::Get, kind, namespace, name);
        self.send(req, InFlight::DescribeGet, cx);
    }

    /// The LISTs `object`'s describer reads, in kubectl's order.
    fn related_requests(&self, object: &Object) -> Vec<(Request, Slot)> {
        let namespace = object.namespace().map(str::to_owned);
        let list = |kind: &str, ns: Option<String>| self.request(Verb::List, kind_of(kind), ns, "");
        let mut out = Vec::new();
        match object {
            Object::Deployment(_) => {
                out.push((list("ReplicaSet", namespace.clone()), Slot::ReplicaSets));
            }
            Object::ReplicaSet(_) => out.push((list("Pod", namespace.clone()), Slot::Pods)),
            Object::Node(_) => {
                let mut pods = list("Pod", None);
                pods.selector.fields = vec![equals("spec.nodeName", object.name())];
                out.push((pods, Slot::Pods));
                let lease = self.request(
                    Verb::Get,
                    kind_of("Lease"),
                    Some("kube-node-lease".into()),
                    object.name(),
                );
                out.push((lease, Slot::Lease));
            }
            Object::Service(_) => {
                let mut slices = list("EndpointSlice", namespace.clone());
                slices.selector.labels = vec![LabelRequirement::equals(
                    "kubernetes.io/service-name",
                    object.name(),
                )];
                out.push((slices, Slot::EndpointSlices));
            }
            _ => {}
        }
        // `EventInterface.Search`'s field selector (`GetFieldSelector`):
        // the object's kind, name, namespace and UID.
        let mut events = list("Event", namespace.clone());
        events.selector.fields = vec![
            equals("involvedObject.kind", object.kind().kind),
            equals("involvedObject.name", object.name()),
        ];
        if let Some(ns) = &namespace {
            events
                .selector
                .fields
                .push(equals("involvedObject.namespace", ns));
        }
        if let Some(uid) = object.metadata().uid.as_deref() {
            events
                .selector
                .fields
                .push(equals("involvedObject.uid", uid));
        }
        out.push((events, Slot::Events));
        out
    }

    /// The object's GET answered: start the LISTs.
    pub(super) fn describe_after_get(&mut self, response: &Response, cx: &mut Cx<'_>) {
        let Some(object) = response.object.clone().filter(|_| response.code < 300) else {
            return Self::print_all(cx, error_lines(response, ""));
        };
        let mut pending = self.related_requests(&object);
        pending.reverse();
        let describing = Describing {
            object,
            related: Related::default(),
            pending,
            waiting_for: Slot::Events,
        };
        self.describe_next(describing, cx);
    }

    /// One LIST answered: keep its items, then send the next or print.
    pub(super) fn describe_after_list(
        &mut self,
        mut describing: Describing,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let items = match &response.object {
            Some(one) if response.code < 300 => vec![Arc::clone(one)],
            _ if response.code < 300 => response.items.clone(),
            _ => Vec::new(),
        };
        let related = &mut describing.related;
        match describing.waiting_for {
            Slot::Events => related.events = items,
            Slot::ReplicaSets => related.replica_sets = items,
            Slot::Pods => related.pods = items,
            Slot::EndpointSlices => related.endpoint_slices = items,
            Slot::Lease => related.lease = items.into_iter().next(),
        }
        self.describe_next(describing, cx);
    }

    fn describe_next(&mut self, mut describing: Describing, cx: &mut Cx<'_>) {
        if let Some((req, slot)) = describing.pending.pop() {
            describing.waiting_for = slot;
            self.send(req, InFlight::DescribeRelated(Box::new(describing)), cx);
        } else {
            let lines = describe(&describing.object, &describing.related, cx.now);
            Self::print_all(cx, lines);
        }
    }
}
