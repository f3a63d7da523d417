//! The requests of `cordon`, `uncordon` and `taint`: the node's GET, then
//! (if something changes) a strategic merge patch made as
//! `CreateTwoWayMergePatch` makes it (`pkg/drain/cordon.go`,
//! `pkg/cmd/drain/drain.go` `RunCordonOrUncordon`; `pkg/cmd/taint/taint.go`).

use k8s_openapi::api::core::v1::Node;
use serde_json::{Value, json};

use super::taint_plan::{self, TaintChanges};
use super::{Body, Cx, InFlight, Kubectl, Object, Response, Verb, error_lines};
use podflow_model::kinds::kind_of;

impl Kubectl {
    /// `cordon` and `uncordon`: first the node's GET.
    pub(super) fn start_cordon(&mut self, node: &str, unschedulable: bool, cx: &mut Cx<'_>) {
        let req = self.request(Verb::Get, kind_of("Node"), None, node);
        self.send(req, InFlight::CordonGet { unschedulable }, cx);
    }

    /// The node a GET answered, or kubectl's error lines printed.
    fn node_read<'r>(response: &'r Response, cx: &mut Cx<'_>) -> Option<&'r Node> {
        let node = response
            .object
            .as_deref()
            .and_then(Object::as_node)
            .filter(|_| response.code < 300);
        if node.is_none() {
            Self::print_all(cx, error_lines(response, ""));
        }
        node
    }

    /// `UpdateIfRequired`: `already cordoned` when nothing changes, else the
    /// patch of `spec.unschedulable` (`null` to clear it: the field is `omitempty`).
    pub(super) fn cordon_after_get(
        &mut self,
        unschedulable: bool,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let Some(node) = Self::node_read(response, cx) else {
            return;
        };
        let name = node.metadata.name.clone().unwrap_or_default();
        let now = node
            .spec
            .as_ref()
            .and_then(|s| s.unschedulable)
            .unwrap_or(false);
        let word = if unschedulable {
            "cordoned"
        } else {
            "uncordoned"
        };
        if now == unschedulable {
            return Self::print(cx, format!("node/{name} already {word}"));
        }
        let value = if unschedulable {
            Value::Bool(true)
        } else {
            Value::Null
        };
        let req = self
            .request(Verb::Patch, kind_of("Node"), None, &name)
            .body(Body::Patch(json!({"spec": {"unschedulable": value}})));
        self.send_plain(req, format!("node/{name} {word}"), cx);
    }

    /// `taint`: first the node's GET.
    pub(super) fn start_taint(
        &mut self,
        node: &str,
        changes: TaintChanges,
        overwrite: bool,
        cx: &mut Cx<'_>,
    ) {
        let req = self.request(Verb::Get, kind_of("Node"), None, node);
        let meaning = InFlight::TaintGet {
            changes: Box::new(changes),
            overwrite,
        };
        self.send(req, meaning, cx);
    }

    /// `updateTaints` on the node read, then the patch of `spec.taints`.
    pub(super) fn taint_after_get(
        &mut self,
        changes: &TaintChanges,
        overwrite: bool,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let Some(node) = Self::node_read(response, cx) else {
            return;
        };
        let name = node.metadata.name.clone().unwrap_or_default();
        let current = node
            .spec
            .as_ref()
            .and_then(|s| s.taints.clone())
            .unwrap_or_default();
        match taint_plan::plan(&name, &current, changes, overwrite) {
            Ok(plan) => {
                let patch = if plan.taints == current {
                    json!({})
                } else {
                    taint_plan::patch(&plan.taints)
                };
                let req = self
                    .request(Verb::Patch, kind_of("Node"), None, &name)
                    .body(Body::Patch(patch));
                self.send_plain(req, format!("node/{name} {}", plan.operation), cx);
            }
            Err(message) => Self::print(cx, format!("error: {message}")),
        }
    }
}
