//! `kubectl describe deployment` (`describeDeployment` and
//! `printReplicaSetsByLabels` of `pkg/describe/describe.go`; the old and new
//! `ReplicaSets` as `pkg/util/deployment`'s `GetAllReplicaSetsInChunks` picks them).

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};

use super::Related;
use super::containers::{describe_pod_template, int_or_string};
use super::sections::{
    LEVEL_0, Writer, annotations, conditions_with_reason, events, is_controlled_by, labels,
    rfc1123z, selector_string,
};
use crate::clock::SimTime;
use crate::controllers::deployment_util::equal_ignore_hash;

/// The lines of `kubectl describe deployment`. Of `related.replica_sets`,
/// those the Deployment controls count: the oldest whose template is the
/// Deployment's (but for the hash label) is the new one, the rest are old.
pub fn describe(deployment: &Deployment, related: &Related, now: SimTime) -> Vec<String> {
    let mut w = Writer::new();
    let meta = &deployment.metadata;
    let spec = &deployment.spec;
    let status = deployment.status.clone().unwrap_or_default();
    w.field(LEVEL_0, "Name", meta.name.as_deref().unwrap_or_default());
    w.field(
        LEVEL_0,
        "Namespace",
        meta.namespace.as_deref().unwrap_or_default(),
    );
    w.field(
        LEVEL_0,
        "CreationTimestamp",
        rfc1123z(meta.creation_timestamp.as_ref()),
    );
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    w.field(LEVEL_0, "Selector", selector_string(Some(&spec.selector)));
    w.field(
        LEVEL_0,
        "Replicas",
        format!(
            "{} desired | {} updated | {} total | {} available | {} unavailable",
            spec.replicas.unwrap_or(1),
            status.updated_replicas.unwrap_or(0),
            status.replicas.unwrap_or(0),
            status.available_replicas.unwrap_or(0),
            status.unavailable_replicas.unwrap_or(0),
        ),
    );
    let strategy = spec.strategy.clone().unwrap_or_default();
    w.field(
        LEVEL_0,
        "StrategyType",
        strategy.type_.as_deref().unwrap_or_default(),
    );
    w.field(
        LEVEL_0,
        "MinReadySeconds",
        spec.min_ready_seconds.unwrap_or(0),
    );
    if let Some(rolling) = &strategy.rolling_update {
        let text = |v: Option<&_>| v.map_or_else(|| "<nil>".to_owned(), int_or_string);
        w.field(
            LEVEL_0,
            "RollingUpdateStrategy",
            format!(
                "{} max unavailable, {} max surge",
                text(rolling.max_unavailable.as_ref()),
                text(rolling.max_surge.as_ref())
            ),
        );
    }
    describe_pod_template(&mut w, Some(&spec.template));
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
    let (old, new) = replica_sets(deployment, related);
    if !old.is_empty() || new.is_some() {
        w.field(LEVEL_0, "OldReplicaSets", created(&old));
        w.field(
            LEVEL_0,
            "NewReplicaSet",
            created(&new.into_iter().collect::<Vec<_>>()),
        );
    }
    events(&mut w, &related.events, now);
    w.finish()
}

/// `listReplicaSets`, `findNewReplicaSet` and `findOldReplicaSets`: the
/// controlled `ReplicaSets` by creation time then name; the first with the
/// Deployment's template is new, every other (even scaled to zero) old.
fn replica_sets<'a>(
    deployment: &Deployment,
    related: &'a Related,
) -> (Vec<&'a ReplicaSet>, Option<&'a ReplicaSet>) {
    let mut owned: Vec<&ReplicaSet> = related
        .replica_sets
        .iter()
        .filter_map(|o| o.get::<ReplicaSet>())
        .filter(|rs| is_controlled_by(&rs.metadata, &deployment.metadata))
        .collect();
    owned.sort_by(|a, b| {
        let created = |rs: &ReplicaSet| rs.metadata.creation_timestamp.as_ref().map(|t| t.0);
        created(a)
            .cmp(&created(b))
            .then_with(|| a.metadata.name.cmp(&b.metadata.name))
    });
    let template = &deployment.spec.template;
    let new = owned.iter().copied().find(|rs| {
        rs.spec
            .template
            .as_ref()
            .is_some_and(|own| equal_ignore_hash(own, template))
    });
    let old = owned
        .into_iter()
        .filter(|rs| new.is_none_or(|n| n.metadata.uid != rs.metadata.uid))
        .collect();
    (old, new)
}

/// `printReplicaSetsByLabels`: `web-69c6f74b8b (3/3 replicas created)`, `<none>` for none.
fn created(replica_sets: &[&ReplicaSet]) -> String {
    if replica_sets.is_empty() {
        return "<none>".into();
    }
    replica_sets
        .iter()
        .map(|rs| {
            format!(
                "{} ({}/{} replicas created)",
                rs.metadata.name.as_deref().unwrap_or_default(),
                rs.status.as_ref().map_or(0, |s| s.replicas),
                rs.spec.replicas.unwrap_or(1)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{Value, json};

    use super::super::testing::{at, event, object};
    use super::super::{Related, describe as describe_object};
    use super::*;
    use podflow_model::Object;

    fn template(hash: Option<&str>) -> Value {
        let mut labels = json!({"app": "web"});
        if let Some(hash) = hash {
            labels["pod-template-hash"] = json!(hash);
        }
        json!({"metadata": {"labels": labels},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
                "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}})
    }

    fn replica_set(
        name: &str,
        owner: &str,
        created: i64,
        replicas: i32,
        image: &str,
    ) -> Arc<Object> {
        let mut template = template(Some(name.trim_start_matches("web-")));
        template["spec"]["containers"][0]["image"] = json!(image);
        object(
            "ReplicaSet",
            json!({"metadata": {"name": name, "namespace": "default", "uid": name,
                    "creationTimestamp": at(created),
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                        "uid": owner, "controller": true}]},
                "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": template},
                "status": {"replicas": replicas}}),
        )
    }

    #[test]
    fn describe_deployment_after_a_rollout() {
        // describeDeployment: the Conditions table runs on into the
        // OldReplicaSets/NewReplicaSet lines, as kubectl aligns them.
        let deployment = object(
            "Deployment",
            json!({"metadata": {"name": "web", "namespace": "default", "uid": "deploy-1",
                    "creationTimestamp": at(0), "labels": {"app": "web"},
                    "annotations": {"deployment.kubernetes.io/revision": "2"}},
                "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                    "strategy": {"type": "RollingUpdate",
                        "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
                    "template": template(None)},
                "status": {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 3, "availableReplicas": 3,
                    "conditions": [
                        {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
                        {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}]}}),
        );
        let related = Related {
            replica_sets: vec![
                replica_set("web-69c6f74b8b", "deploy-1", 60, 3, "nginx:1.27"),
                replica_set("web-5d8f9c7b6c", "deploy-1", 0, 0, "nginx:1.26"),
                replica_set("web-7f7f7f7f7f", "another-deployment", 0, 1, "nginx:1.27"),
            ],
            events: vec![event(
                "web",
                "ScalingReplicaSet",
                "deployment-controller",
                60,
                "Scaled up replica set web-69c6f74b8b from 0 to 3",
            )],
            ..Related::default()
        };
        assert_eq!(
            describe_object(&deployment, &related, SimTime(300_000)),
            [
                "Name:                   web",
                "Namespace:              default",
                "CreationTimestamp:      Mon, 30 Nov 2026 02:20:30 +0000",
                "Labels:                 app=web",
                "Annotations:            deployment.kubernetes.io/revision: 2",
                "Selector:               app=web",
                "Replicas:               3 desired | 3 updated | 3 total | 3 available | 0 unavailable",
                "StrategyType:           RollingUpdate",
                "MinReadySeconds:        0",
                "RollingUpdateStrategy:  25% max unavailable, 25% max surge",
                "Pod Template:",
                "  Labels:  app=web",
                "  Containers:",
                "   nginx:",
                "    Image:         nginx:1.27",
                "    Port:          80/TCP",
                "    Host Port:     0/TCP",
                "    Environment:   <none>",
                "    Mounts:        <none>",
                "  Volumes:         <none>",
                "  Node-Selectors:  <none>",
                "  Tolerations:     <none>",
                "Conditions:",
                "  Type           Status  Reason",
                "  ----           ------  ------",
                "  Available      True    MinimumReplicasAvailable",
                "  Progressing    True    NewReplicaSetAvailable",
                "OldReplicaSets:  web-5d8f9c7b6c (0/0 replicas created)",
                "NewReplicaSet:   web-69c6f74b8b (3/3 replicas created)",
                "Events:",
                "  Type    Reason             Age   From                   Message",
                "  ----    ------             ----  ----                   -------",
                "  Normal  ScalingReplicaSet  4m    deployment-controller  Scaled up replica set web-69c6f74b8b from 0 to 3",
            ]
        );
    }

    #[test]
    fn no_replica_sets_yet_leaves_the_lines_out() {
        // describeDeployment prints Old/NewReplicaSet only when it found some.
        let deployment = object(
            "Deployment",
            json!({"metadata": {"name": "web", "namespace": "default", "uid": "deploy-1"},
                "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": template(None),
                    "strategy": {"type": "Recreate"}}}),
        );
        let lines = describe_object(&deployment, &Related::default(), SimTime(0));
        assert_eq!(
            lines[2],
            "CreationTimestamp:  Mon, 01 Jan 0001 00:00:00 +0000"
        );
        assert_eq!(
            lines[6],
            "Replicas:           1 desired | 0 updated | 0 total | 0 available | 0 unavailable"
        );
        assert_eq!(lines[7], "StrategyType:       Recreate");
        assert_eq!(
            lines.last().map(String::as_str),
            Some("Events:            <none>")
        );
        assert!(!lines.iter().any(|l| l.starts_with("NewReplicaSet")));
    }
}
