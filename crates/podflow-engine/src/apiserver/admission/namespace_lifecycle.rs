//! `NamespaceLifecycle` (`staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go`):
//! nothing may be created in a namespace that does not exist or is being
//! terminated, and `default`, `kube-system` and `kube-public` may not be deleted.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::StatusCause;

use super::{AdmissionRequest, Plugin, Verdict, deny, is_kind};
use crate::apiserver::request::Operation;
use crate::rng::Rng;
use podflow_model::kinds::kind_of;
use podflow_model::status::not_found;
use podflow_model::{Kind, Object};

/// The namespaces kube-apiserver refuses to delete (`--immortal-namespaces` defaults).
pub const IMMORTAL_NAMESPACES: [&str; 3] = ["default", "kube-system", "kube-public"];

/// The `NamespaceLifecycle` admission plugin (mutating, as upstream's `Admit`).
#[derive(Debug, Clone, Copy, Default)]
pub struct NamespaceLifecycle;

impl Plugin for NamespaceLifecycle {
    fn name(&self) -> &'static str {
        "NamespaceLifecycle"
    }

    fn handles(&self, _operation: Operation, _kind: &Kind, _subresource: Option<&str>) -> bool {
        true
    }

    fn mutating(&self) -> bool {
        true
    }

    fn admit(&self, req: &AdmissionRequest<'_>, _object: &mut Object, _rng: &mut Rng) -> Verdict {
        let is_namespace = is_kind(req.kind, "", "Namespace");
        if req.operation == Operation::Delete
            && is_namespace
            && IMMORTAL_NAMESPACES.contains(&req.name)
        {
            return deny(req, "this namespace may not be deleted");
        }
        // Namespaces themselves, cluster-scoped objects and deletes always pass.
        let Some(namespace) = req.namespace.filter(|_| req.kind.namespaced) else {
            return Verdict::Allow;
        };
        if is_namespace || req.operation == Operation::Delete {
            return Verdict::Allow;
        }
        let namespaces = kind_of("Namespace");
        let Some(found) = req.cluster.get(namespaces, None, namespace) else {
            return Verdict::Deny(not_found(namespaces, namespace));
        };
        let terminating = matches!(
            &*found,
            Object::Namespace(ns) if ns.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Terminating")
        );
        if req.operation == Operation::Create && terminating {
            let Verdict::Deny(mut status) = deny(
                req,
                &format!(
                    "unable to create new content in namespace {namespace} because it is being terminated"
                ),
            ) else {
                return Verdict::Allow;
            };
            let details = status.details.get_or_insert_default();
            details.causes.get_or_insert_default().push(StatusCause {
                reason: Some("NamespaceTerminating".into()),
                message: Some(format!("namespace {namespace} is being terminated")),
                field: Some("metadata.namespace".into()),
            });
            return Verdict::Deny(status);
        }
        Verdict::Allow
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::StaticCluster;
    use crate::apiserver::admission::testing::{namespace, pod, request};
    use k8s_openapi::api::core::v1::{Namespace, NamespaceStatus};
    use serde_json::json;

    fn terminating(name: &str) -> Object {
        let Object::Namespace(mut ns) = namespace(name) else {
            unreachable!()
        };
        ns.status = Some(NamespaceStatus {
            phase: Some("Terminating".into()),
            ..NamespaceStatus::default()
        });
        Object::Namespace(Namespace { ..ns })
    }

    /// Operation, kind, namespace, name, and the expected code and message.
    type Case = (
        Operation,
        &'static str,
        Option<&'static str>,
        &'static str,
        Option<(i32, &'static str)>,
    );

    /// Mirrors `lifecycle/admission_test.go`: `TestAdmissionNamespaceDoesNotExist`,
    /// `TestAdmissionNamespaceTerminating`, `TestAdmissionNamespaceForceLiveLookup` and the
    /// immortal-namespace delete case.
    #[test]
    fn admission_table() {
        let cluster = StaticCluster::new(vec![namespace("default"), terminating("old")]);
        let cases: [Case; 8] = [
            (Operation::Create, "Pod", Some("default"), "nginx", None),
            (
                Operation::Create,
                "Pod",
                Some("dev"),
                "nginx",
                Some((404, r#"namespaces "dev" not found"#)),
            ),
            (
                Operation::Update,
                "Pod",
                Some("dev"),
                "nginx",
                Some((404, r#"namespaces "dev" not found"#)),
            ),
            (Operation::Delete, "Pod", Some("dev"), "nginx", None),
            (
                Operation::Create,
                "Pod",
                Some("old"),
                "nginx",
                Some((
                    403,
                    r#"pods "nginx" is forbidden: unable to create new content in namespace old because it is being terminated"#,
                )),
            ),
            (Operation::Update, "Pod", Some("old"), "nginx", None),
            (
                Operation::Delete,
                "Namespace",
                None,
                "kube-system",
                Some((
                    403,
                    r#"namespaces "kube-system" is forbidden: this namespace may not be deleted"#,
                )),
            ),
            (Operation::Create, "Node", None, "node-1", None),
        ];
        for (operation, kind, ns, name, want) in cases {
            let req = request(operation, kind, ns, name, &cluster);
            let mut object = pod(json!({"metadata": {"name": name}, "spec": {"containers": []}}));
            let got = NamespaceLifecycle.admit(&req, &mut object, &mut Rng::new(1));
            match (want, got) {
                (None, Verdict::Allow) => {}
                (Some((code, message)), Verdict::Deny(status)) => {
                    assert_eq!(status.code, Some(code), "{kind} {name}");
                    assert_eq!(status.message.as_deref(), Some(message));
                }
                (want, got) => {
                    panic!("{operation:?} {kind} {ns:?}/{name}: want {want:?}, got {got:?}")
                }
            }
        }
    }

    #[test]
    fn terminating_answer_carries_the_namespace_terminating_cause() {
        let cluster = StaticCluster::new(vec![terminating("old")]);
        let req = request(Operation::Create, "Pod", Some("old"), "nginx", &cluster);
        let mut object = pod(json!({"spec": {"containers": []}}));
        let Verdict::Deny(status) = NamespaceLifecycle.admit(&req, &mut object, &mut Rng::new(1))
        else {
            panic!("expected a denial");
        };
        let causes = status.details.unwrap().causes.unwrap();
        assert_eq!(causes[0].reason.as_deref(), Some("NamespaceTerminating"));
        assert_eq!(
            causes[0].message.as_deref(),
            Some("namespace old is being terminated")
        );
    }
}
