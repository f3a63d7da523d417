//! Cascading deletion through finalizers: `kubectl delete --cascade=foreground`
//! deletes the Pods, then the `ReplicaSet`, then the Deployment; `--cascade=orphan`
//! leaves the `ReplicaSet` and its Pods, the owner reference gone; a finalizer a
//! user set keeps an object, deletionTimestamp set, until a patch removes it
//! (`staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go`,
//! `pkg/controller/garbagecollector/garbagecollector.go`; the e2e cases of
//! `test/e2e/apimachinery/garbage_collector.go`, "should delete RS created by
//! deployment when not orphaning" and "should orphan RS created by deployment
//! when deleteOptions.PropagationPolicy is Orphan").

use crate::common::{apply, kubectl_output, of_kind, run};
use podflow_engine::trace::{Actor, Outcome, StageName};
use podflow_engine::trace::{Record, TraceRecord};

/// The etcd keys deleted, in order.
fn deleted_keys(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Stage(s) if s.component == Actor::Etcd && s.outcome == Outcome::Delete => {
                s.extra().key.clone()
            }
            _ => None,
        })
        .collect()
}

#[test]
fn foreground_deletes_pods_then_the_replica_set_then_the_deployment() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait idle",
            "delete deployment web --cascade=foreground",
            "wait idle",
        ],
        |_| {},
    );
    let deleted = deleted_keys(&records);
    let kinds: Vec<&str> = deleted
        .iter()
        .map(|k| k.split('/').nth(2).unwrap_or_default())
        .collect();
    assert_eq!(
        kinds,
        ["pods", "pods", "pods", "replicasets", "deployments"],
        "{deleted:?}"
    );
    assert!(
        kubectl_output(&records)
            .iter()
            .any(|l| l == "deployment.apps \"web\" deleted from default namespace")
    );
    for kind in ["Deployment", "ReplicaSet", "Pod"] {
        assert!(of_kind(&records, kind).is_empty(), "{kind} left");
    }
    // The Deployment waited with the foregroundDeletion finalizer.
    let marked = records.iter().any(|r| match &r.body {
        Record::Stage(s)
            if s.stage == StageName::Persist
                && s.extra().key.as_deref() == Some("/registry/deployments/default/web") =>
        {
            s.extra().object.as_ref().is_some_and(|o| {
                o["metadata"]["finalizers"] == serde_json::json!(["foregroundDeletion"])
                    && o["metadata"]["deletionTimestamp"].is_string()
                    && o["metadata"]["deletionGracePeriodSeconds"] == 0
            })
        }
        _ => false,
    });
    assert!(marked, "the Deployment was marked for foreground deletion");
}

#[test]
fn orphan_leaves_the_replica_set_and_pods_without_the_owner() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait idle",
            "delete deployment web --cascade=orphan",
            "wait idle",
        ],
        |_| {},
    );
    assert!(of_kind(&records, "Deployment").is_empty());
    let sets = of_kind(&records, "ReplicaSet");
    assert_eq!(sets.len(), 1);
    assert!(
        sets[0]["metadata"]["ownerReferences"].is_null()
            || sets[0]["metadata"]["ownerReferences"] == serde_json::json!([]),
        "{}",
        sets[0]["metadata"]
    );
    let pods = of_kind(&records, "Pod");
    assert_eq!(pods.len(), 3, "the Pods stay");
    for pod in &pods {
        // Only the Deployment's direct dependents are orphaned: the Pods keep their ReplicaSet.
        assert_eq!(pod["metadata"]["ownerReferences"][0]["kind"], "ReplicaSet");
        assert!(pod["metadata"]["deletionTimestamp"].is_null());
    }
    assert_eq!(
        deleted_keys(&records),
        ["/registry/deployments/default/web"]
    );
}

#[test]
fn a_user_finalizer_keeps_the_object_until_a_patch_removes_it() {
    let kept = run(
        None,
        &[
            &apply("kept-configmap.yaml"),
            "delete configmap kept",
            "wait idle",
        ],
        |_| {},
    );
    let cm = of_kind(&kept, "ConfigMap")
        .into_iter()
        .find(|o| o["metadata"]["name"] == "kept")
        .expect("still stored");
    assert!(cm["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(cm["metadata"]["deletionGracePeriodSeconds"], 0);
    assert_eq!(
        cm["metadata"]["finalizers"],
        serde_json::json!(["example.com/keep"])
    );

    let released = run(
        None,
        &[
            &apply("kept-configmap.yaml"),
            "delete configmap kept",
            &apply("kept-configmap-released.yaml"),
            "wait idle",
        ],
        |_| {},
    );
    assert!(
        !of_kind(&released, "ConfigMap")
            .iter()
            .any(|o| o["metadata"]["name"] == "kept")
    );
    assert_eq!(
        deleted_keys(&released),
        ["/registry/configmaps/default/kept"],
        "the patch that emptied the finalizers deleted it"
    );
}

/// Two `ReplicaSets` that own each other (`blockOwnerDeletion` both ways),
/// one deleted in the foreground: the collector makes the dependent's
/// references non-blocking to break the cycle ("to prevent potential cycle",
/// `attemptToDeleteItem`), the freed owner loses its finalizer
/// (`addUnblockedOwnersToDeleteQueue`), and both are gone.
#[test]
fn an_owner_cycle_deleted_in_the_foreground_ends_with_both_gone() {
    // The fixture's UIDs are those the default seed gives the two.
    let records = run(
        None,
        &[
            &apply("owner-cycle.yaml"),
            "delete rs a --cascade=foreground",
        ],
        |_| {},
    );
    assert!(of_kind(&records, "ReplicaSet").is_empty());
    let deleted = deleted_keys(&records);
    assert!(
        deleted.contains(&"/registry/replicasets/default/a".to_owned()),
        "{deleted:?}"
    );
    assert!(
        deleted.contains(&"/registry/replicasets/default/b".to_owned()),
        "{deleted:?}"
    );
    let unblocked = records.iter().any(
        |r| matches!(&r.body, Record::Stage(s) if s.stage == StageName::Sync && s.outcome == Outcome::Unblock),
    );
    assert!(unblocked, "the cycle is broken by an unblocking patch");
}
