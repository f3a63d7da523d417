//! `TaintNodesByCondition` (`plugin/pkg/admission/nodetaint/admission.go`): a new
//! Node starts tainted `node.kubernetes.io/not-ready:NoSchedule`, until the node
//! lifecycle controller sees it Ready, so nothing is scheduled onto it too early.

use k8s_openapi::api::core::v1::Taint;

use super::{AdmissionRequest, Plugin, Verdict, is_kind};
use crate::apiserver::request::Operation;
use crate::rng::Rng;
use podflow_model::{Kind, Object};

/// The taint a new Node gets.
pub const NOT_READY: &str = "node.kubernetes.io/not-ready";

/// The `TaintNodesByCondition` admission plugin (mutating).
#[derive(Debug, Clone, Copy, Default)]
pub struct TaintNodesByCondition;

impl Plugin for TaintNodesByCondition {
    fn name(&self) -> &'static str {
        "TaintNodesByCondition"
    }

    /// Node creates.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        operation == Operation::Create && subresource.is_none() && is_kind(kind, "", "Node")
    }

    fn mutating(&self) -> bool {
        true
    }

    fn admit(&self, _req: &AdmissionRequest<'_>, object: &mut Object, _rng: &mut Rng) -> Verdict {
        let Object::Node(node) = object else {
            return Verdict::Allow;
        };
        let taints = node
            .spec
            .get_or_insert_default()
            .taints
            .get_or_insert_default();
        if taints
            .iter()
            .any(|t| t.key == NOT_READY && t.effect == "NoSchedule")
        {
            return Verdict::Allow;
        }
        taints.push(Taint {
            key: NOT_READY.into(),
            effect: "NoSchedule".into(),
            ..Taint::default()
        });
        Verdict::Mutate(format!("added taint {NOT_READY}:NoSchedule"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::StaticCluster;
    use crate::apiserver::admission::testing::request;
    use podflow_model::kinds::kind_of;
    use serde_json::json;

    /// Mirrors `nodetaint/admission_test.go` `Test_nodeTaints`.
    #[test]
    fn node_taints() {
        let cluster = StaticCluster::default();
        let req = request(Operation::Create, "Node", None, "node-1", &cluster);
        for (taints, want_mutate, want_len) in [
            (json!([]), true, 1),
            (
                json!([{"key": NOT_READY, "effect": "NoSchedule"}]),
                false,
                1,
            ),
            (json!([{"key": "other", "effect": "NoSchedule"}]), true, 2),
        ] {
            let mut node = Object::from_json(
                kind_of("Node"),
                json!({"metadata": {"name": "node-1"}, "spec": {"taints": taints}}),
            )
            .unwrap();
            let verdict = TaintNodesByCondition.admit(&req, &mut node, &mut Rng::new(1));
            assert_eq!(matches!(verdict, Verdict::Mutate(_)), want_mutate);
            let got = node
                .as_node()
                .unwrap()
                .spec
                .clone()
                .unwrap()
                .taints
                .unwrap();
            assert_eq!(got.len(), want_len);
            assert!(
                got.iter()
                    .any(|t| t.key == NOT_READY && t.effect == "NoSchedule")
            );
        }
        assert!(!TaintNodesByCondition.handles(Operation::Update, kind_of("Node"), None));
        assert!(!TaintNodesByCondition.handles(Operation::Create, kind_of("Pod"), None));
    }
}
