//! Which of a node's Pods `kubectl drain` evicts, as a pure plan
//! (`pkg/drain/filters.go`: `makeFilters`, `daemonSetFilter`,
//! `mirrorPodFilter`, `localStorageFilter`, `unreplicatedFilter`,
//! `PodDeleteList.Warnings` and `errors`): the Pods to evict, the warning
//! printed, and the refusals that stop the drain.

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

const DAEMON_SET_FATAL: &str = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)";
const DAEMON_SET_WARNING: &str = "ignoring DaemonSet-managed Pods";
const LOCAL_STORAGE_FATAL: &str =
    "Pods with local storage (use --delete-emptydir-data to override)";
const LOCAL_STORAGE_WARNING: &str = "deleting Pods with local storage";
const UNMANAGED_FATAL: &str = "Pods that declare no controller (use --force to override)";
const UNMANAGED_WARNING: &str = "deleting Pods that declare no controller";
/// `corev1.MirrorPodAnnotationKey`.
const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// `drain`'s flags that decide what it may evict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[allow(clippy::struct_excessive_bools)]
pub struct DrainFlags {
    pub force: bool,
    pub ignore_daemonsets: bool,
    pub delete_emptydir_data: bool,
}

/// What the GET of a Pod's `DaemonSet` answered (`daemonSetFilter` looks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DaemonSetAnswer {
    Found,
    /// 404, with the error's text.
    NotFound(String),
    /// Any other failure, with the error's text.
    Failed(String),
}

/// `PodDeleteStatus`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Status {
    Okay,
    Skip,
    Warning { delete: bool, message: String },
    Error(String),
}

impl Status {
    fn deletes(&self) -> bool {
        matches!(self, Status::Okay | Status::Warning { delete: true, .. })
    }
}

/// The outcome of the filters for a node's Pods.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filtered {
    /// The indices of the Pods to evict, in list order.
    pub evict: Vec<usize>,
    /// `ignoring DaemonSet-managed Pods: kube-system/x; …` (empty: none).
    pub warnings: String,
    /// `cannot delete Pods that declare no controller (…): default/x`, each.
    pub errors: Vec<String>,
}

/// The controller owner reference of `pod`, as `metav1.GetControllerOf` finds it.
pub fn controller_of(pod: &Pod) -> Option<&OwnerReference> {
    pod.metadata
        .owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
}

/// Whether `daemonSetFilter` asks the API server about this Pod's
/// controller: a `DaemonSet` (`apps/v1`) controls it and it has not ended.
pub fn daemon_set_of(pod: &Pod) -> Option<&str> {
    let owner = controller_of(pod)?;
    (owner.kind == "DaemonSet" && owner.api_version == "apps/v1" && !ended(pod))
        .then_some(owner.name.as_str())
}

fn ended(pod: &Pod) -> bool {
    matches!(
        pod.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Succeeded" | "Failed")
    )
}

fn daemon_set_filter(pod: &Pod, flags: DrainFlags, answer: Option<&DaemonSetAnswer>) -> Status {
    let (Some(_), Some(answer)) = (daemon_set_of(pod), answer) else {
        return Status::Okay;
    };
    match answer {
        DaemonSetAnswer::NotFound(message) if flags.force => Status::Warning {
            delete: true,
            message: message.clone(),
        },
        DaemonSetAnswer::NotFound(message) | DaemonSetAnswer::Failed(message) => {
            Status::Error(message.clone())
        }
        DaemonSetAnswer::Found if !flags.ignore_daemonsets => {
            Status::Error(DAEMON_SET_FATAL.into())
        }
        DaemonSetAnswer::Found => Status::Warning {
            delete: false,
            message: DAEMON_SET_WARNING.into(),
        },
    }
}

fn mirror_pod_filter(pod: &Pod) -> Status {
    let mirror = pod
        .metadata
        .annotations
        .as_ref()
        .is_some_and(|a| a.contains_key(MIRROR_ANNOTATION));
    if mirror { Status::Skip } else { Status::Okay }
}

fn local_storage_filter(pod: &Pod, flags: DrainFlags) -> Status {
    let empty_dir = pod
        .spec
        .as_ref()
        .and_then(|s| s.volumes.as_ref())
        .is_some_and(|v| v.iter().any(|v| v.empty_dir.is_some()));
    if !empty_dir || ended(pod) {
        Status::Okay
    } else if !flags.delete_emptydir_data {
        Status::Error(LOCAL_STORAGE_FATAL.into())
    } else {
        Status::Warning {
            delete: true,
            message: LOCAL_STORAGE_WARNING.into(),
        }
    }
}

fn unreplicated_filter(pod: &Pod, flags: DrainFlags) -> Status {
    if ended(pod) || controller_of(pod).is_some() {
        Status::Okay
    } else if flags.force {
        Status::Warning {
            delete: true,
            message: UNMANAGED_WARNING.into(),
        }
    } else {
        Status::Error(UNMANAGED_FATAL.into())
    }
}

/// `filterPods` with `makeFilters`' filters, in their order: each Pod's
/// status is the first filter's that does not delete it (or the last's).
/// `daemon_sets[i]` is what the GET of Pod `i`'s `DaemonSet` answered.
pub fn filter(
    pods: &[Pod],
    daemon_sets: &[Option<DaemonSetAnswer>],
    flags: DrainFlags,
) -> Filtered {
    let mut out = Filtered::default();
    let mut warnings: Vec<(String, Vec<String>)> = Vec::new();
    let mut errors: Vec<(String, Vec<String>)> = Vec::new();
    let group = |groups: &mut Vec<(String, Vec<String>)>, message: &str, pod: String| match groups
        .iter_mut()
        .find(|(m, _)| m == message)
    {
        Some((_, pods)) => pods.push(pod),
        None => groups.push((message.to_owned(), vec![pod])),
    };
    for (i, pod) in pods.iter().enumerate() {
        let answer = daemon_sets.get(i).and_then(Option::as_ref);
        let filters: [&dyn Fn() -> Status; 4] = [
            &|| daemon_set_filter(pod, flags, answer),
            &|| mirror_pod_filter(pod),
            &|| local_storage_filter(pod, flags),
            &|| unreplicated_filter(pod, flags),
        ];
        let mut status = Status::Okay;
        for f in filters {
            status = f();
            if !status.deletes() {
                break;
            }
        }
        let name = format!(
            "{}/{}",
            pod.metadata.namespace.as_deref().unwrap_or_default(),
            pod.metadata.name.as_deref().unwrap_or_default()
        );
        if status.deletes() {
            out.evict.push(i);
        }
        match status {
            Status::Warning { message, .. } => group(&mut warnings, &message, name),
            Status::Error(message) => {
                let message = if message.is_empty() {
                    "unexpected error".to_owned()
                } else {
                    message
                };
                group(&mut errors, &message, name);
            }
            Status::Okay | Status::Skip => {}
        }
    }
    out.warnings = warnings
        .iter()
        .map(|(m, pods)| format!("{m}: {}", pods.join(", ")))
        .collect::<Vec<_>>()
        .join("; ");
    out.errors = errors
        .iter()
        .map(|(m, pods)| format!("cannot delete {m}: {}", pods.join(", ")))
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(name: &str, extra: &serde_json::Value) -> Pod {
        let mut value =
            json!({"metadata": {"name": name, "namespace": "default"}, "spec": {"containers": []}});
        if let (Some(base), Some(more)) = (value.as_object_mut(), extra.as_object()) {
            for (k, v) in more {
                if k == "metadata" {
                    for (mk, mv) in v.as_object().into_iter().flatten() {
                        base["metadata"][mk] = mv.clone();
                    }
                } else {
                    base.insert(k.clone(), v.clone());
                }
            }
        }
        serde_json::from_value(value).unwrap()
    }

    fn owned_by(kind: &str, api_version: &str) -> serde_json::Value {
        json!({"metadata": {"ownerReferences": [{"apiVersion": api_version, "kind": kind, "name": "owner", "uid": "u", "controller": true}]}})
    }

    /// After `pkg/drain/drain_test.go`, `TestDeletePods`/`TestFilterPods`
    /// cases, and `filter_test.go`: each filter's refusal, warning or skip.
    #[test]
    fn pods_are_filtered_as_drain_filters_them() {
        let managed = pod("web", &owned_by("ReplicaSet", "apps/v1"));
        let bare = pod("bare", &json!({}));
        let ds = pod("proxy", &owned_by("DaemonSet", "apps/v1"));
        let mirror = pod(
            "etcd",
            &json!({"metadata": {"annotations": {"kubernetes.io/config.mirror": "x"}}}),
        );
        let scratch = pod(
            "scratch",
            &json!({"metadata": owned_by("ReplicaSet", "apps/v1")["metadata"], "spec": {"containers": [], "volumes": [{"name": "tmp", "emptyDir": {}}]}}),
        );
        let done = pod("done", &json!({"status": {"phase": "Succeeded"}}));
        let pods = [managed, bare, ds, mirror, scratch, done];
        let answers = [None, None, Some(DaemonSetAnswer::Found), None, None, None];

        let strict = filter(&pods, &answers, DrainFlags::default());
        assert_eq!(
            strict.errors,
            [
                "cannot delete Pods that declare no controller (use --force to override): default/bare",
                "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): default/proxy",
                "cannot delete Pods with local storage (use --delete-emptydir-data to override): default/scratch",
            ],
            "the mirror Pod is skipped before unreplicatedFilter sees it"
        );

        let all = DrainFlags {
            force: true,
            ignore_daemonsets: true,
            delete_emptydir_data: true,
        };
        let lenient = filter(&pods, &answers, all);
        assert!(lenient.errors.is_empty());
        assert_eq!(
            lenient.evict,
            [0, 1, 4, 5],
            "the DaemonSet and mirror Pods stay"
        );
        assert_eq!(
            lenient.warnings,
            "deleting Pods that declare no controller: default/bare; ignoring DaemonSet-managed Pods: default/proxy",
            "a later filter's Okay replaces the local-storage warning, as upstream's loop does"
        );

        let gone = filter(
            &pods[2..3],
            &[Some(DaemonSetAnswer::NotFound(
                "daemonsets.apps \"owner\" not found".into(),
            ))],
            all,
        );
        assert_eq!(gone.evict, [0]);
        // The later filters' Okay replaces the warning here too.
        assert_eq!(gone.warnings, "");
    }
}
