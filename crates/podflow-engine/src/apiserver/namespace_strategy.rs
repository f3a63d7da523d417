//! The namespace registry (`pkg/registry/core/namespace/strategy.go` and
//! `storage/storage.go`): a new namespace is `Active` with the `kubernetes`
//! finalizer in `spec.finalizers`; the main resource, `status` and `finalize`
//! each change only their part; the first `DELETE` only marks the namespace
//! `Terminating` (the namespace controller empties it, then removes the
//! finalizer through `namespaces/finalize`, and that update deletes it).

use k8s_openapi::api::core::v1::{Namespace, NamespaceStatus};

use crate::clock::SimTime;

/// `api.FinalizerKubernetes`: the namespace controller's finalizer.
pub const FINALIZER_KUBERNETES: &str = "kubernetes";

/// `PrepareForCreate`: the phase is `Active`, and `kubernetes` is among the finalizers.
pub fn prepare_for_create(ns: &mut Namespace) {
    ns.status = Some(NamespaceStatus {
        phase: Some("Active".into()),
        ..NamespaceStatus::default()
    });
    let finalizers = ns
        .spec
        .get_or_insert_with(Default::default)
        .finalizers
        .get_or_insert_with(Vec::new);
    if !finalizers.iter().any(|f| f == FINALIZER_KUBERNETES) {
        finalizers.push(FINALIZER_KUBERNETES.into());
    }
}

/// `PrepareForUpdate` of the main resource (keeps `spec.finalizers` and the
/// status), of `status` (keeps the spec) and of `finalize` (keeps the status).
pub fn prepare_for_update(new: &mut Namespace, old: &Namespace, subresource: Option<&str>) {
    match subresource {
        Some("status") => new.spec.clone_from(&old.spec),
        Some("finalize") => new.status.clone_from(&old.status),
        _ => {
            let finalizers = old.spec.as_ref().and_then(|s| s.finalizers.clone());
            new.spec.get_or_insert_with(Default::default).finalizers = finalizers;
            new.status.clone_from(&old.status);
        }
    }
}

/// Whether `spec.finalizers` still holds something.
pub fn finalizers_remain(ns: &Namespace) -> bool {
    ns.spec
        .as_ref()
        .and_then(|s| s.finalizers.as_ref())
        .is_some_and(|f| !f.is_empty())
}

/// What the first `DELETE` does (`REST.Delete`'s update): the deletion
/// timestamp is set and the phase becomes `Terminating`.
pub fn terminate(ns: &mut Namespace, now: SimTime) {
    ns.metadata
        .deletion_timestamp
        .get_or_insert_with(|| now.to_time());
    ns.status.get_or_insert_with(Default::default).phase = Some("Terminating".into());
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::NamespaceSpec;

    /// Mirrors `strategy_test.go` `TestNamespaceStrategy`,
    /// `TestNamespaceStatusStrategy` and `TestNamespaceFinalizeStrategy`.
    #[test]
    fn namespace_strategies() {
        let mut ns = Namespace {
            status: Some(NamespaceStatus {
                phase: Some("Terminating".into()),
                ..NamespaceStatus::default()
            }),
            ..Namespace::default()
        };
        prepare_for_create(&mut ns);
        let phase = |ns: &Namespace| ns.status.as_ref().and_then(|s| s.phase.clone());
        assert_eq!(phase(&ns).as_deref(), Some("Active"));
        assert_eq!(
            ns.spec.as_ref().unwrap().finalizers,
            Some(vec!["kubernetes".to_owned()])
        );
        // The main resource keeps finalizers and status.
        let mut update = Namespace {
            spec: Some(NamespaceSpec { finalizers: None }),
            ..Namespace::default()
        };
        prepare_for_update(&mut update, &ns, None);
        assert_eq!(update.spec, ns.spec);
        assert_eq!(phase(&update).as_deref(), Some("Active"));
        // status keeps the spec; finalize keeps the status.
        let mut status = Namespace::default();
        prepare_for_update(&mut status, &ns, Some("status"));
        assert_eq!(status.spec, ns.spec);
        let mut finalize = Namespace {
            spec: Some(NamespaceSpec {
                finalizers: Some(vec![]),
            }),
            ..Namespace::default()
        };
        prepare_for_update(&mut finalize, &ns, Some("finalize"));
        assert!(!finalizers_remain(&finalize));
        assert_eq!(phase(&finalize).as_deref(), Some("Active"));
        terminate(&mut ns, SimTime::ZERO);
        assert_eq!(phase(&ns).as_deref(), Some("Terminating"));
        assert!(ns.metadata.deletion_timestamp.is_some());
    }
}
