//! `PodSecurity` (`plugin/pkg/admission/security/podsecurity/admission.go`, checks in
//! `staging/src/k8s.io/pod-security-admission/policy`): enforces the Pod Security
//! Standard named by the namespace label `pod-security.kubernetes.io/enforce`
//! (default `privileged`, which allows everything).
//!
//! Simplification: of the `baseline` checks podflow enforces host namespaces,
//! privileged containers and hostPath volumes; `restricted` adds
//! allowPrivilegeEscalation, capabilities (drop ALL), runAsNonRoot and seccompProfile.

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec, SecurityContext};

use super::{AdmissionRequest, Plugin, SideEffects, Verdict, deny, is_kind};
use crate::apiserver::request::Operation;
use podflow_model::kinds::kind_of;
use podflow_model::{Kind, Object};

/// The namespace label that names the enforced level.
pub const ENFORCE_LABEL: &str = "pod-security.kubernetes.io/enforce";
const VERSION_LABEL: &str = "pod-security.kubernetes.io/enforce-version";

/// The `PodSecurity` admission plugin (validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct PodSecurity;

impl Plugin for PodSecurity {
    fn name(&self) -> &'static str {
        "PodSecurity"
    }

    /// Pods (and `pods/ephemeralcontainers`), Namespaces and Pod-template workloads, on create and update.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        if !matches!(operation, Operation::Create | Operation::Update) {
            return false;
        }
        if is_kind(kind, "", "Pod") {
            return matches!(subresource, None | Some("ephemeralcontainers"));
        }
        subresource.is_none()
            && (is_kind(kind, "", "Namespace")
                || is_kind(kind, "apps", "Deployment")
                || is_kind(kind, "apps", "ReplicaSet"))
    }

    fn validating(&self) -> bool {
        true
    }

    fn validate(
        &self,
        req: &AdmissionRequest<'_>,
        object: &Object,
        _effects: &mut SideEffects,
    ) -> Verdict {
        let Object::Pod(pod) = object else {
            return Verdict::Allow;
        };
        let Some(namespace) = req.namespace else {
            return Verdict::Allow;
        };
        let labels = req
            .cluster
            .get(kind_of("Namespace"), None, namespace)
            .and_then(|ns| ns.metadata().labels.clone())
            .unwrap_or_default();
        let level = labels
            .get(ENFORCE_LABEL)
            .map_or("privileged", String::as_str);
        let version = labels.get(VERSION_LABEL).map_or("latest", String::as_str);
        let restricted = match level {
            "baseline" => false,
            "restricted" => true,
            _ => return Verdict::Allow,
        };
        let violations = violations(pod, restricted);
        if violations.is_empty() {
            Verdict::Allow
        } else {
            deny(
                req,
                &format!(
                    "violates PodSecurity \"{level}:{version}\": {}",
                    violations.join(", ")
                ),
            )
        }
    }
}

/// `container "a"` or `containers "a", "b"`.
fn containers_phrase(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let noun = if names.len() == 1 {
        "container"
    } else {
        "containers"
    };
    format!("{noun} {}", quoted.join(", "))
}

fn all_containers(spec: &PodSpec) -> Vec<&Container> {
    spec.init_containers
        .iter()
        .flatten()
        .chain(spec.containers.iter())
        .collect()
}

fn names_where(spec: &PodSpec, bad: impl Fn(Option<&SecurityContext>) -> bool) -> Vec<&str> {
    all_containers(spec)
        .into_iter()
        .filter(|c| bad(c.security_context.as_ref()))
        .map(|c| c.name.as_str())
        .collect()
}

/// The failed checks, in the order of their IDs, as the evaluator reports them.
fn violations(pod: &Pod, restricted: bool) -> Vec<String> {
    let Some(spec) = &pod.spec else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if restricted {
        let escalate = names_where(spec, |sc| {
            sc.and_then(|s| s.allow_privilege_escalation) != Some(false)
        });
        if !escalate.is_empty() {
            out.push(format!(
                "allowPrivilegeEscalation != false ({} must set securityContext.allowPrivilegeEscalation=false)",
                containers_phrase(&escalate)
            ));
        }
        let caps = names_where(spec, |sc| {
            !sc.and_then(|s| s.capabilities.as_ref())
                .and_then(|c| c.drop.as_ref())
                .is_some_and(|d| d.iter().any(|x| x == "ALL"))
        });
        if !caps.is_empty() {
            out.push(format!(
                "unrestricted capabilities ({} must set securityContext.capabilities.drop=[\"ALL\"])",
                containers_phrase(&caps)
            ));
        }
    }
    let host: Vec<&str> = [
        ("hostNetwork", spec.host_network),
        ("hostPID", spec.host_pid),
        ("hostIPC", spec.host_ipc),
    ]
    .into_iter()
    .filter(|(_, on)| *on == Some(true))
    .map(|(name, _)| name)
    .collect();
    if !host.is_empty() {
        let set: Vec<String> = host.iter().map(|h| format!("{h}=true")).collect();
        out.push(format!("host namespaces ({})", set.join(", ")));
    }
    let host_paths: Vec<String> = spec
        .volumes
        .iter()
        .flatten()
        .filter(|v| v.host_path.is_some())
        .map(|v| format!("\"{}\"", v.name))
        .collect();
    if !host_paths.is_empty() {
        let noun = if host_paths.len() == 1 {
            "volume"
        } else {
            "volumes"
        };
        out.push(format!(
            "hostPath volumes ({noun} {})",
            host_paths.join(", ")
        ));
    }
    let privileged = names_where(spec, |sc| sc.and_then(|s| s.privileged) == Some(true));
    if !privileged.is_empty() {
        out.push(format!(
            "privileged ({} must not set securityContext.privileged=true)",
            containers_phrase(&privileged)
        ));
    }
    if restricted {
        let pod_sc = spec.security_context.as_ref();
        let pod_non_root = pod_sc.and_then(|s| s.run_as_non_root) == Some(true);
        let root = names_where(spec, |sc| match sc.and_then(|s| s.run_as_non_root) {
            Some(value) => !value,
            None => !pod_non_root,
        });
        if !root.is_empty() {
            out.push(format!(
                "runAsNonRoot != true (pod or {} must set securityContext.runAsNonRoot=true)",
                containers_phrase(&root)
            ));
        }
        let good = |t: &str| t == "RuntimeDefault" || t == "Localhost";
        let pod_seccomp = pod_sc
            .and_then(|s| s.seccomp_profile.as_ref())
            .is_some_and(|p| good(&p.type_));
        let seccomp = names_where(spec, |sc| {
            match sc.and_then(|s| s.seccomp_profile.as_ref()) {
                Some(profile) => !good(&profile.type_),
                None => !pod_seccomp,
            }
        });
        if !seccomp.is_empty() {
            out.push(format!(
                "seccompProfile (pod or {} must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")",
                containers_phrase(&seccomp)
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::StaticCluster;
    use crate::apiserver::admission::testing::{pod, request};
    use serde_json::json;

    fn namespace(level: Option<&str>) -> Object {
        let labels = level.map_or(json!({}), |l| json!({ENFORCE_LABEL: l}));
        Object::from_json(
            kind_of("Namespace"),
            json!({"metadata": {"name": "dev", "labels": labels}}),
        )
        .unwrap()
    }

    /// Mirrors `pod-security-admission/admission/admission_test.go` `TestValidatePodAndController`
    /// on the levels, with the policy checks' own messages.
    #[test]
    fn enforces_the_namespace_level() {
        let nginx = pod(
            json!({"metadata": {"name": "nginx"}, "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}),
        );
        let privileged = pod(
            json!({"metadata": {"name": "nginx"}, "spec": {"hostNetwork": true, "containers": [
            {"name": "nginx", "image": "nginx", "securityContext": {"privileged": true}}]}}),
        );
        let cases = [
            (None, &nginx, None),
            (Some("privileged"), &privileged, None),
            (Some("baseline"), &nginx, None),
            (
                Some("baseline"),
                &privileged,
                Some(
                    r#"pods "nginx" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), privileged (container "nginx" must not set securityContext.privileged=true)"#,
                ),
            ),
            (
                Some("restricted"),
                &nginx,
                Some(
                    r#"pods "nginx" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")"#,
                ),
            ),
        ];
        for (level, object, want) in cases {
            let cluster = StaticCluster::new(vec![namespace(level)]);
            let req = request(Operation::Create, "Pod", Some("dev"), "nginx", &cluster);
            let verdict = PodSecurity.validate(&req, object, &mut SideEffects::default());
            match (want, verdict) {
                (None, Verdict::Allow) => {}
                (Some(message), Verdict::Deny(status)) => {
                    assert_eq!(status.code, Some(403));
                    assert_eq!(status.message.as_deref(), Some(message));
                }
                (want, got) => panic!("{level:?}: want {want:?}, got {got:?}"),
            }
        }
        let compliant = pod(json!({"metadata": {"name": "nginx"}, "spec": {
            "securityContext": {"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [{"name": "nginx", "image": "nginx", "securityContext": {
                "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]}}));
        let cluster = StaticCluster::new(vec![namespace(Some("restricted"))]);
        let req = request(Operation::Create, "Pod", Some("dev"), "nginx", &cluster);
        assert_eq!(
            PodSecurity.validate(&req, &compliant, &mut SideEffects::default()),
            Verdict::Allow
        );
    }
}
