//! `ServiceAccount` (`plugin/pkg/admission/serviceaccount/admission.go`): gives a
//! Pod the `default` `ServiceAccount` when it names none, refuses Pods whose
//! `ServiceAccount` does not exist, and mounts the projected API token volume
//! `kube-api-access-xxxxx` into every container and init container.
//!
//! `getServiceAccount` looks in its informer cache, then GETs the account;
//! for `default`, which the serviceaccount controller creates in a new
//! namespace, it tries the GET 10 times, one interval of 100–199 ms apart,
//! before refusing the Pod. podflow's API server reads the store for both,
//! and parks the request between tries ([`Verdict::Wait`]).

use k8s_openapi::api::core::v1::{
    ConfigMapProjection, Container, DownwardAPIProjection, DownwardAPIVolumeFile, KeyToPath,
    ObjectFieldSelector, Pod, ProjectedVolumeSource, ServiceAccount as Account,
    ServiceAccountTokenProjection, Volume, VolumeMount, VolumeProjection,
};

use super::{AdmissionRequest, Plugin, SideEffects, Verdict, deny, is_kind};
use crate::apiserver::request::Operation;
use crate::rng::Rng;
use podflow_model::kinds::kind_of;
use podflow_model::{Kind, Object};

/// Where the token, CA and namespace files appear in a container.
pub const TOKEN_MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
/// The prefix of the projected token volume's name.
pub const VOLUME_PREFIX: &str = "kube-api-access-";
/// The `ServiceAccount` a Pod gets when it names none.
pub const DEFAULT_SERVICE_ACCOUNT: &str = "default";
/// The lifetime of the projected token (`serviceaccount.WarnOnlyBoundTokenExpirationSeconds`).
pub const TOKEN_EXPIRATION_SECONDS: i64 = 3607;
/// How many GETs `getServiceAccount` tries for `default` (`numAttempts`).
pub const DEFAULT_LOOKUP_ATTEMPTS: u32 = 10;
/// Its `retryInterval`: 100 ms plus up to 99 ms, drawn once per lookup.
const RETRY_BASE_MS: u64 = 100;
const RETRY_SPREAD_MS: u64 = 100;
/// Marks a mirror (static) Pod.
const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";
/// A `ServiceAccount` annotation that limits Pods to the secrets it lists.
const ENFORCE_MOUNTABLE_SECRETS: &str = "kubernetes.io/enforce-mountable-secrets";

/// The `ServiceAccount` admission plugin (mutating and validating).
#[derive(Debug, Clone, Copy, Default)]
pub struct ServiceAccount;

impl Plugin for ServiceAccount {
    fn name(&self) -> &'static str {
        "ServiceAccount"
    }

    /// `shouldIgnore`: Pods and `pods/ephemeralcontainers`, on create and update.
    fn handles(&self, operation: Operation, kind: &Kind, subresource: Option<&str>) -> bool {
        is_kind(kind, "", "Pod")
            && matches!(subresource, None | Some("ephemeralcontainers"))
            && matches!(operation, Operation::Create | Operation::Update)
    }

    fn mutating(&self) -> bool {
        true
    }

    fn validating(&self) -> bool {
        true
    }

    fn may_wait(&self) -> bool {
        true
    }

    fn admit(&self, req: &AdmissionRequest<'_>, object: &mut Object, rng: &mut Rng) -> Verdict {
        if req.operation != Operation::Create || req.subresource.is_some() {
            return Verdict::Allow;
        }
        let Object::Pod(pod) = object else {
            return Verdict::Allow;
        };
        if is_mirror(pod) {
            return check(req, pod);
        }
        let chosen = pod
            .spec
            .as_ref()
            .and_then(|s| s.service_account_name.as_deref())
            .filter(|n| !n.is_empty());
        let name = chosen.unwrap_or(DEFAULT_SERVICE_ACCOUNT).to_owned();
        let defaulted = chosen.is_none();
        // Looked up before anything changes: a Pod that waits is parked as it came.
        let account = match lookup(req, &name) {
            Ok(account) => account,
            Err(_) if name == DEFAULT_SERVICE_ACCOUNT && req.attempt < DEFAULT_LOOKUP_ATTEMPTS => {
                return wait_for_default(req, rng);
            }
            Err(reason) => return deny(req, &reason),
        };
        let mut changes = Vec::new();
        if defaulted {
            pod.spec.get_or_insert_default().service_account_name =
                Some(DEFAULT_SERVICE_ACCOUNT.into());
            changes.push(format!(
                "set serviceAccountName to \"{DEFAULT_SERVICE_ACCOUNT}\""
            ));
        }
        if should_automount(&account, pod) {
            changes.extend(mount_token(pod, rng));
        }
        let spec = pod.spec.get_or_insert_default();
        let pull_secrets = account.image_pull_secrets.clone().unwrap_or_default();
        if spec.image_pull_secrets.as_ref().is_none_or(Vec::is_empty) && !pull_secrets.is_empty() {
            let names: Vec<String> = pull_secrets.iter().map(|s| s.name.clone()).collect();
            changes.push(format!("added imagePullSecrets {}", names.join(", ")));
            spec.image_pull_secrets = Some(pull_secrets);
        }
        if let Verdict::Deny(status) = check(req, pod) {
            return Verdict::Deny(status);
        }
        if changes.is_empty() {
            Verdict::Allow
        } else {
            Verdict::Mutate(changes.join("; "))
        }
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
        match (req.operation, req.subresource) {
            (Operation::Create, None) => check(req, pod),
            (Operation::Update, Some("ephemeralcontainers")) => {
                let name = service_account_name(pod);
                if name.is_empty() {
                    return no_account(req);
                }
                lookup(req, name)
                    .err()
                    .map_or(Verdict::Allow, |reason| deny(req, &reason))
            }
            _ => Verdict::Allow,
        }
    }
}

/// The `default` account is not there yet: look again after the interval
/// (`time.Sleep(retryInterval)` between GETs), drawn on the first pass.
fn wait_for_default(req: &AdmissionRequest<'_>, rng: &mut Rng) -> Verdict {
    let retry_ms = if req.retry_ms > 0 {
        req.retry_ms
    } else {
        RETRY_BASE_MS + rng.below(RETRY_SPREAD_MS)
    };
    let namespace = req.namespace.unwrap_or_default();
    Verdict::Wait {
        detail: format!(
            "serviceaccount \"{DEFAULT_SERVICE_ACCOUNT}\" not found in {namespace} (GET {} of {DEFAULT_LOOKUP_ATTEMPTS}); waiting {retry_ms} ms for the serviceaccount controller to create it",
            req.attempt
        ),
        retry_ms,
    }
}

fn is_mirror(pod: &Pod) -> bool {
    pod.metadata
        .annotations
        .as_ref()
        .is_some_and(|a| a.contains_key(MIRROR_ANNOTATION))
}

fn service_account_name(pod: &Pod) -> &str {
    pod.spec
        .as_ref()
        .and_then(|s| s.service_account_name.as_deref())
        .unwrap_or_default()
}

fn no_account(req: &AdmissionRequest<'_>) -> Verdict {
    let namespace = req.namespace.unwrap_or_default();
    deny(
        req,
        &format!(
            "no service account specified for pod {namespace}/{}",
            req.name
        ),
    )
}

/// `getServiceAccount`, answered as the plugin words a failure.
fn lookup(req: &AdmissionRequest<'_>, name: &str) -> Result<Account, String> {
    let namespace = req.namespace.unwrap_or_default();
    match req
        .cluster
        .get(kind_of("ServiceAccount"), Some(namespace), name)
        .as_deref()
    {
        Some(Object::ServiceAccount(account)) => Ok(account.clone()),
        _ => Err(format!(
            "error looking up service account {namespace}/{name}: serviceaccount \"{name}\" not found"
        )),
    }
}

/// `Validate` for a Pod create: mirror Pods may reference no account or secrets;
/// others must name an existing account (and only its secrets, when it enforces that).
fn check(req: &AdmissionRequest<'_>, pod: &Pod) -> Verdict {
    if is_mirror(pod) {
        return check_mirror(req, pod);
    }
    let name = service_account_name(pod);
    if name.is_empty() {
        return no_account(req);
    }
    let account = match lookup(req, name) {
        Ok(account) => account,
        Err(reason) => return deny(req, &reason),
    };
    let enforce = account
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(ENFORCE_MOUNTABLE_SECRETS))
        .is_some_and(|v| matches!(v.as_str(), "true" | "1" | "t" | "T" | "TRUE" | "True"));
    if enforce && let Some(reason) = secret_violation(&account, pod) {
        return deny(req, &reason);
    }
    Verdict::Allow
}

fn check_mirror(req: &AdmissionRequest<'_>, pod: &Pod) -> Verdict {
    let Some(spec) = &pod.spec else {
        return Verdict::Allow;
    };
    if !service_account_name(pod).is_empty() {
        return deny(req, "a mirror pod may not reference service accounts");
    }
    let volumes = spec.volumes.iter().flatten();
    if volumes.clone().any(|v| v.secret.is_some()) {
        return deny(req, "a mirror pod may not reference secrets");
    }
    let projects_token = volumes
        .filter_map(|v| v.projected.as_ref())
        .flat_map(|p| p.sources.iter().flatten())
        .any(|s| s.service_account_token.is_some());
    if projects_token {
        return deny(
            req,
            "a mirror pod may not use ServiceAccountToken volume projections",
        );
    }
    Verdict::Allow
}

/// `limitSecretReferences`: the first secret the Pod uses that the account does not list.
fn secret_violation(account: &Account, pod: &Pod) -> Option<String> {
    let spec = pod.spec.as_ref()?;
    let sa = account.metadata.name.as_deref().unwrap_or_default();
    let mountable: Vec<&str> = account
        .secrets
        .iter()
        .flatten()
        .filter_map(|s| s.name.as_deref())
        .collect();
    for volume in spec.volumes.iter().flatten() {
        if let Some(secret) = volume
            .secret
            .as_ref()
            .and_then(|s| s.secret_name.as_deref())
            && !mountable.contains(&secret)
        {
            return Some(format!(
                "volume with secret.secretName=\"{secret}\" is not allowed because service account {sa} does not reference that secret"
            ));
        }
    }
    let groups = [
        (
            "init container",
            spec.init_containers.as_deref().unwrap_or_default(),
        ),
        ("container", &spec.containers[..]),
    ];
    for (what, containers) in groups {
        for container in containers {
            for env in container.env.iter().flatten() {
                let secret = env
                    .value_from
                    .as_ref()
                    .and_then(|v| v.secret_key_ref.as_ref())
                    .map(|r| r.name.as_str());
                if let Some(secret) = secret.filter(|s| !mountable.contains(s)) {
                    return Some(format!(
                        "{what} {} with envVar {} referencing secret.secretName=\"{secret}\" is not allowed because service account {sa} does not reference that secret",
                        container.name, env.name
                    ));
                }
            }
            for from in container.env_from.iter().flatten() {
                let secret = from.secret_ref.as_ref().map(|r| r.name.as_str());
                if let Some(secret) = secret.filter(|s| !mountable.contains(s)) {
                    return Some(format!(
                        "{what} {} with envFrom referencing secret.secretName=\"{secret}\" is not allowed because service account {sa} does not reference that secret",
                        container.name
                    ));
                }
            }
        }
    }
    let pull: Vec<&str> = account
        .image_pull_secrets
        .iter()
        .flatten()
        .map(|s| s.name.as_str())
        .collect();
    for (i, reference) in spec.image_pull_secrets.iter().flatten().enumerate() {
        if !pull.contains(&reference.name.as_str()) {
            return Some(format!(
                "imagePullSecrets[{i}].name=\"{}\" is not allowed because service account {sa} does not reference that imagePullSecret",
                reference.name
            ));
        }
    }
    None
}

/// `shouldAutomount`: the Pod's choice wins, then the account's, then yes.
fn should_automount(account: &Account, pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.automount_service_account_token)
        .or(account.automount_service_account_token)
        .unwrap_or(true)
}

/// `TokenVolumeSource`: the projected token, cluster CA and namespace.
pub fn token_volume(name: &str) -> Volume {
    let token = ServiceAccountTokenProjection {
        expiration_seconds: Some(TOKEN_EXPIRATION_SECONDS),
        path: "token".into(),
        ..ServiceAccountTokenProjection::default()
    };
    let ca = ConfigMapProjection {
        name: "kube-root-ca.crt".into(),
        items: Some(vec![KeyToPath {
            key: "ca.crt".into(),
            path: "ca.crt".into(),
            ..KeyToPath::default()
        }]),
        ..ConfigMapProjection::default()
    };
    let namespace = DownwardAPIProjection {
        items: Some(vec![DownwardAPIVolumeFile {
            path: "namespace".into(),
            field_ref: Some(ObjectFieldSelector {
                api_version: Some("v1".into()),
                field_path: "metadata.namespace".into(),
            }),
            ..DownwardAPIVolumeFile::default()
        }]),
    };
    let sources = vec![
        VolumeProjection {
            service_account_token: Some(token),
            ..VolumeProjection::default()
        },
        VolumeProjection {
            config_map: Some(ca),
            ..VolumeProjection::default()
        },
        VolumeProjection {
            downward_api: Some(namespace),
            ..VolumeProjection::default()
        },
    ];
    Volume {
        name: name.to_owned(),
        projected: Some(ProjectedVolumeSource {
            default_mode: Some(420),
            sources: Some(sources),
            ..ProjectedVolumeSource::default()
        }),
        ..Volume::default()
    }
}

/// `mountServiceAccountToken`: returns what it did, for the verdict.
fn mount_token(pod: &mut Pod, rng: &mut Rng) -> Option<String> {
    let spec = pod.spec.get_or_insert_default();
    let existing = spec
        .volumes
        .iter()
        .flatten()
        .map(|v| v.name.clone())
        .find(|n| n.starts_with(VOLUME_PREFIX));
    let has_volume = existing.is_some();
    let name = existing.unwrap_or_else(|| format!("{VOLUME_PREFIX}{}", rng.name_suffix(5)));
    let mount = VolumeMount {
        name: name.clone(),
        read_only: Some(true),
        mount_path: TOKEN_MOUNT_PATH.into(),
        ..VolumeMount::default()
    };
    let mut mounted = false;
    let add = |c: &mut Container| {
        let mounts = c.volume_mounts.get_or_insert_default();
        if mounts.iter().any(|m| m.mount_path == TOKEN_MOUNT_PATH) {
            false
        } else {
            mounts.push(mount.clone());
            true
        }
    };
    for container in spec.init_containers.iter_mut().flatten() {
        mounted |= add(container);
    }
    for container in &mut spec.containers {
        mounted |= add(container);
    }
    if !mounted {
        return None;
    }
    if !has_volume {
        spec.volumes
            .get_or_insert_default()
            .push(token_volume(&name));
        return Some(format!("added volume {name} mounted at {TOKEN_MOUNT_PATH}"));
    }
    Some(format!("mounted volume {name} at {TOKEN_MOUNT_PATH}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::StaticCluster;
    use crate::apiserver::admission::testing::{pod, request, service_account};
    use serde_json::json;

    fn nginx(spec_extra: &serde_json::Value) -> Object {
        let mut spec = json!({
            "initContainers": [{"name": "init", "image": "busybox"}],
            "containers": [{"name": "nginx", "image": "nginx:1.27"}]
        });
        if let (Some(s), Some(extra)) = (spec.as_object_mut(), spec_extra.as_object()) {
            s.extend(extra.clone());
        }
        pod(json!({"metadata": {"name": "nginx", "namespace": "dev"}, "spec": spec}))
    }

    /// Mirrors `serviceaccount/admission_test.go` `TestAssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens`.
    #[test]
    fn assigns_default_account_and_bound_token_volume() {
        let cluster = StaticCluster::new(vec![service_account("dev", "default")]);
        let req = request(Operation::Create, "Pod", Some("dev"), "nginx", &cluster);
        let mut object = nginx(&json!({}));
        let mut rng = Rng::new(7);
        let suffix = Rng::new(7).name_suffix(5);
        let verdict = ServiceAccount.admit(&req, &mut object, &mut rng);
        assert_eq!(
            verdict,
            Verdict::Mutate(format!(
                "set serviceAccountName to \"default\"; added volume kube-api-access-{suffix} mounted at /var/run/secrets/kubernetes.io/serviceaccount"
            ))
        );
        let spec = object.as_pod().unwrap().spec.clone().unwrap();
        assert_eq!(spec.service_account_name.as_deref(), Some("default"));
        let volume = serde_json::to_value(&spec.volumes.unwrap()[0]).unwrap();
        assert_eq!(
            volume,
            json!({"name": format!("kube-api-access-{suffix}"), "projected": {"defaultMode": 420, "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}
            ]}})
        );
        for container in spec
            .containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
        {
            let mount = &container.volume_mounts.as_ref().unwrap()[0];
            assert_eq!(mount.mount_path, TOKEN_MOUNT_PATH);
            assert_eq!(mount.read_only, Some(true));
            assert_eq!(mount.name, format!("kube-api-access-{suffix}"));
        }
    }

    /// Mirrors `TestFetchesUncachedServiceAccount`/`TestDeniesInvalidServiceAccount`,
    /// `TestAutomountsAPIToken`/`TestDoNotAddToken` style cases.
    #[test]
    fn admit_table() {
        let no_automount = Object::ServiceAccount(Account {
            automount_service_account_token: Some(false),
            ..match service_account("dev", "quiet") {
                Object::ServiceAccount(a) => a,
                _ => unreachable!(),
            }
        });
        let cluster = StaticCluster::new(vec![service_account("dev", "default"), no_automount]);
        let cases = [
            (
                json!({"serviceAccountName": "builder"}),
                Err(
                    r#"pods "nginx" is forbidden: error looking up service account dev/builder: serviceaccount "builder" not found"#,
                ),
            ),
            (
                json!({"automountServiceAccountToken": false}),
                Ok(Some("set serviceAccountName to \"default\"")),
            ),
            (json!({"serviceAccountName": "quiet"}), Ok(None)),
            (
                json!({"serviceAccountName": "quiet", "automountServiceAccountToken": true}),
                Ok(Some("added volume kube-api-access-")),
            ),
        ];
        for (extra, want) in cases {
            let req = request(Operation::Create, "Pod", Some("dev"), "nginx", &cluster);
            let mut object = nginx(&extra);
            let verdict = ServiceAccount.admit(&req, &mut object, &mut Rng::new(1));
            match (want, verdict) {
                (Err(message), Verdict::Deny(status)) => {
                    assert_eq!(status.code, Some(403));
                    assert_eq!(status.message.as_deref(), Some(message));
                }
                (Ok(None), Verdict::Allow) => {}
                (Ok(Some(prefix)), Verdict::Mutate(detail)) => {
                    assert!(detail.starts_with(prefix), "{detail}");
                }
                (want, got) => panic!("{extra}: want {want:?}, got {got:?}"),
            }
        }
    }

    /// Mirrors `TestRejectsMirrorPodWithServiceAccount` and `TestDeniesInvalidServiceAccount`
    /// (validation of a Pod whose account is missing).
    #[test]
    fn validate_table() {
        let cluster = StaticCluster::new(vec![service_account("dev", "default")]);
        let req = request(Operation::Create, "Pod", Some("dev"), "nginx", &cluster);
        let mirror = pod(json!({
            "metadata": {"name": "nginx", "annotations": {"kubernetes.io/config.mirror": "x"}},
            "spec": {"serviceAccountName": "default", "containers": []}
        }));
        let Verdict::Deny(status) =
            ServiceAccount.validate(&req, &mirror, &mut SideEffects::default())
        else {
            panic!("mirror pods may not name accounts")
        };
        assert_eq!(
            status.message.as_deref(),
            Some(r#"pods "nginx" is forbidden: a mirror pod may not reference service accounts"#)
        );
        let unnamed = nginx(&json!({}));
        let Verdict::Deny(status) =
            ServiceAccount.validate(&req, &unnamed, &mut SideEffects::default())
        else {
            panic!("pods need an account")
        };
        assert_eq!(
            status.message.as_deref(),
            Some(r#"pods "nginx" is forbidden: no service account specified for pod dev/nginx"#)
        );
        let named = nginx(&json!({"serviceAccountName": "default"}));
        assert_eq!(
            ServiceAccount.validate(&req, &named, &mut SideEffects::default()),
            Verdict::Allow
        );
    }

    /// Mirrors `TestIgnoresNonPodResource` / `TestIgnoresNonCreate`.
    #[test]
    fn handles_pods_only() {
        assert!(ServiceAccount.handles(Operation::Create, kind_of("Pod"), None));
        assert!(!ServiceAccount.handles(Operation::Create, kind_of("Pod"), Some("binding")));
        assert!(!ServiceAccount.handles(Operation::Create, kind_of("Service"), None));
        assert!(!ServiceAccount.handles(Operation::Delete, kind_of("Pod"), None));
    }
}
