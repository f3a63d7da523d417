//! `kubectl describe replicaset` (`describeReplicaSet` and
//! `getPodStatusForController` of `pkg/describe/describe.go`).

use k8s_openapi::api::apps::v1::ReplicaSet;

use super::Related;
use super::containers::describe_pod_template;
use super::sections::{
    LEVEL_0, Writer, annotations, conditions_with_reason, controlled_by, controller_ref, events,
    format_label_selector, labels,
};
use crate::clock::SimTime;

/// The lines of `kubectl describe replicaset`. Of `related.pods`, those the
/// `ReplicaSet` controls are counted by phase for `Pods Status`.
pub fn describe(rs: &ReplicaSet, related: &Related, now: SimTime) -> Vec<String> {
    let mut w = Writer::new();
    let meta = &rs.metadata;
    let spec = &rs.spec;
    let status = rs.status.clone().unwrap_or_default();
    w.field(LEVEL_0, "Name", meta.name.as_deref().unwrap_or_default());
    w.field(
        LEVEL_0,
        "Namespace",
        meta.namespace.as_deref().unwrap_or_default(),
    );
    w.field(
        LEVEL_0,
        "Selector",
        format_label_selector(Some(&spec.selector)),
    );
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    if let Some(controller) = controlled_by(meta) {
        w.field(LEVEL_0, "Controlled By", controller);
    }
    w.field(
        LEVEL_0,
        "Replicas",
        format!(
            "{} current / {} desired",
            status.replicas,
            spec.replicas.unwrap_or(1)
        ),
    );
    let [running, waiting, succeeded, failed] = pod_phases(rs, related);
    w.field(
        LEVEL_0,
        "Pods Status",
        format!("{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed"),
    );
    describe_pod_template(&mut w, spec.template.as_ref());
    conditions_with_reason(
        &mut w,
        status.conditions.iter().flatten().map(|c| {
            (
                c.type_.as_deref().unwrap_or_default(),
                c.status.as_deref().unwrap_or_default(),
                c.reason.as_deref().unwrap_or_default(),
            )
        }),
    );
    events(&mut w, &related.events, now);
    w.finish()
}

/// `getPodStatusForController`: the controlled Pods that are Running,
/// Pending, Succeeded and Failed.
fn pod_phases(rs: &ReplicaSet, related: &Related) -> [usize; 4] {
    let uid = rs.metadata.uid.clone().unwrap_or_default();
    let mut counts = [0; 4];
    for pod in related.pods.iter().filter_map(|o| o.as_pod()) {
        if controller_ref(&pod.metadata).is_none_or(|r| r.uid != uid) {
            continue;
        }
        let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
        let slot = match phase {
            Some("Running") => 0,
            Some("Pending") => 1,
            Some("Succeeded") => 2,
            Some("Failed") => 3,
            _ => continue,
        };
        counts[slot] += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::super::testing::{at, object};
    use super::super::{Related, describe as describe_object};
    use super::*;
    use podflow_model::Object;

    fn pod(name: &str, owner: &str, phase: &str) -> Arc<Object> {
        object(
            "Pod",
            json!({"metadata": {"name": name, "namespace": "default",
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-69c6f74b8b",
                        "uid": owner, "controller": true}]},
                "spec": {"containers": [{"name": "nginx"}]}, "status": {"phase": phase}}),
        )
    }

    #[test]
    fn describe_replica_set_counts_its_pods() {
        // describeReplicaSet with getPodStatusForController's counts; a
        // repeated Event reads `(x3 over 4m)`.
        let labels = json!({"app": "web", "pod-template-hash": "69c6f74b8b"});
        let rs = object(
            "ReplicaSet",
            json!({"metadata": {"name": "web-69c6f74b8b", "namespace": "default", "uid": "rs-1",
                    "labels": labels,
                    "annotations": {"deployment.kubernetes.io/desired-replicas": "3",
                        "deployment.kubernetes.io/revision": "1"},
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                        "uid": "deploy-1", "controller": true}]},
                "spec": {"replicas": 3, "selector": {"matchLabels": labels},
                    "template": {"metadata": {"labels": labels},
                        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}},
                "status": {"replicas": 3}}),
        );
        let created = object(
            "Event",
            json!({"metadata": {"name": "web-69c6f74b8b.1", "namespace": "default"},
                "involvedObject": {"name": "web-69c6f74b8b"}, "type": "Normal",
                "reason": "SuccessfulCreate", "message": "Created pod: web-69c6f74b8b-x7k2p",
                "source": {"component": "replicaset-controller"}, "count": 3,
                "firstTimestamp": at(60), "lastTimestamp": at(62)}),
        );
        let related = Related {
            pods: vec![
                pod("web-69c6f74b8b-a", "rs-1", "Running"),
                pod("web-69c6f74b8b-b", "rs-1", "Running"),
                pod("web-69c6f74b8b-c", "rs-1", "Pending"),
                pod("stranger", "rs-2", "Running"),
            ],
            events: vec![created],
            ..Related::default()
        };
        assert_eq!(
            describe_object(&rs, &related, SimTime(300_000)),
            [
                "Name:           web-69c6f74b8b",
                "Namespace:      default",
                "Selector:       app=web,pod-template-hash=69c6f74b8b",
                "Labels:         app=web",
                "                pod-template-hash=69c6f74b8b",
                "Annotations:    deployment.kubernetes.io/desired-replicas: 3",
                "                deployment.kubernetes.io/revision: 1",
                "Controlled By:  Deployment/web",
                "Replicas:       3 current / 3 desired",
                "Pods Status:    2 Running / 1 Waiting / 0 Succeeded / 0 Failed",
                "Pod Template:",
                "  Labels:  app=web",
                "           pod-template-hash=69c6f74b8b",
                "  Containers:",
                "   nginx:",
                "    Image:         nginx:1.27",
                "    Port:          <none>",
                "    Host Port:     <none>",
                "    Environment:   <none>",
                "    Mounts:        <none>",
                "  Volumes:         <none>",
                "  Node-Selectors:  <none>",
                "  Tolerations:     <none>",
                "Events:",
                "  Type    Reason            Age                 From                   Message",
                "  ----    ------            ----                ----                   -------",
                "  Normal  SuccessfulCreate  3m58s (x3 over 4m)  replicaset-controller  Created pod: web-69c6f74b8b-x7k2p",
            ]
        );
    }
}
