//! `DefaultTolerationSeconds` (`plugin/pkg/admission/defaulttolerationseconds/admission.go`):
//! every Pod tolerates `node.kubernetes.io/not-ready` and `node.kubernetes.io/unreachable`
//! (`NoExecute`) for 300 s, so it is evicted five minutes after its node fails.

use k8s_openapi::api::core::v1::Toleration;

use super::{AdmissionRequest, Plugin, Verdict, is_pod};
use crate::apiserver::request::Operation;
use crate::rng::Rng;
use podflow_model::{Kind, Object};

/// `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`.
pub const DEFAULT_SECONDS: i64 = 300;
const NOT_READY: &str = "node.kubernetes.io/not-ready";
const UNREACHABLE: &str = "node.kubernetes.io/unreachable";

/// The `DefaultTolerationSeconds` admission plugin (mutating).
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultTolerationSeconds;

impl Plugin for DefaultTolerationSeconds {
    fn name(&self) -> &'static str {
        "DefaultTolerationSeconds"
    }

    /// Pod creates and updates (not subresources).
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        matches!(operation, Operation::Create | Operation::Update) && is_pod(kind, subresource)
    }

    fn mutating(&self) -> bool {
        true
    }

    fn admit(&self, _req: &AdmissionRequest<'_>, object: &mut Object, _rng: &mut Rng) -> Verdict {
        let Object::Pod(pod) = object else {
            return Verdict::Allow;
        };
        let tolerations = pod
            .spec
            .get_or_insert_default()
            .tolerations
            .get_or_insert_default();
        // A toleration with an empty key or effect matches every key or effect.
        let tolerates = |key: &str| {
            tolerations.iter().any(|t| {
                t.key.as_deref().is_none_or(|k| k.is_empty() || k == key)
                    && t.effect
                        .as_deref()
                        .is_none_or(|e| e.is_empty() || e == "NoExecute")
            })
        };
        let missing: Vec<&str> = [NOT_READY, UNREACHABLE]
            .into_iter()
            .filter(|k| !tolerates(k))
            .collect();
        if missing.is_empty() {
            return Verdict::Allow;
        }
        for key in &missing {
            tolerations.push(Toleration {
                key: Some((*key).into()),
                operator: Some("Exists".into()),
                effect: Some("NoExecute".into()),
                toleration_seconds: Some(DEFAULT_SECONDS),
                ..Toleration::default()
            });
        }
        let added: Vec<String> = missing
            .iter()
            .map(|k| format!("{k}:NoExecute op=Exists for {DEFAULT_SECONDS}s"))
            .collect();
        Verdict::Mutate(format!("added tolerations {}", added.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::StaticCluster;
    use crate::apiserver::admission::testing::{pod, request};
    use serde_json::json;

    /// Mirrors `defaulttolerationseconds/admission_test.go` `TestForgivenessAdmission`.
    #[test]
    fn forgiveness_admission() {
        let cluster = StaticCluster::default();
        let req = request(Operation::Create, "Pod", Some("default"), "nginx", &cluster);
        let both = "added tolerations node.kubernetes.io/not-ready:NoExecute op=Exists for 300s, node.kubernetes.io/unreachable:NoExecute op=Exists for 300s";
        let cases = [
            ("no tolerations", json!([]), Some(both), 2),
            (
                "not-ready already tolerated",
                json!([{"key": NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 700}]),
                Some(
                    "added tolerations node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
                ),
                2,
            ),
            (
                "empty key and effect tolerate everything",
                json!([{"operator": "Exists"}]),
                None,
                1,
            ),
            (
                "NoSchedule does not count",
                json!([{"key": NOT_READY, "operator": "Exists", "effect": "NoSchedule"}]),
                Some(both),
                3,
            ),
        ];
        for (description, tolerations, want, len) in cases {
            let mut object = pod(json!({"spec": {"containers": [], "tolerations": tolerations}}));
            let verdict = DefaultTolerationSeconds.admit(&req, &mut object, &mut Rng::new(1));
            let want = want.map_or(Verdict::Allow, |d| Verdict::Mutate(d.into()));
            assert_eq!(verdict, want, "{description}");
            let got = object
                .as_pod()
                .unwrap()
                .spec
                .clone()
                .unwrap()
                .tolerations
                .unwrap();
            assert_eq!(got.len(), len, "{description}");
        }
    }
}
