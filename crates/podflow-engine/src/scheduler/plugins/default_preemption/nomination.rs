//! After choosing a node: the lower-priority pods nominated to it lose their
//! nomination (`preemption/executor.go`, `getLowerPriorityNominatedPods`,
//! `clearNominatedNodeName`).

use k8s_openapi::api::core::v1::Pod;
use serde_json::{Value, json};

use super::victims::pod_priority;
use podflow_model::Shared;

/// The pods nominated to `node` (`status.nominatedNodeName`) with a lower
/// priority than `preemptor`, in the order given.
pub fn lower_priority_nominated_pods<'a>(
    preemptor: &Pod,
    pods: impl IntoIterator<Item = &'a Shared<Pod>>,
    node: &str,
) -> Vec<&'a Shared<Pod>> {
    let priority = pod_priority(preemptor);
    pods.into_iter()
        .filter(|p| {
            p.status
                .as_ref()
                .and_then(|s| s.nominated_node_name.as_deref())
                == Some(node)
                && pod_priority(p) < priority
        })
        .collect()
}

/// The status patch that clears a pod's `nominatedNodeName`.
pub fn clear_nominated_node_patch() -> Value {
    json!({"status": {"nominatedNodeName": null}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, priority: i32, nominated: Option<&str>) -> Shared<Pod> {
        Shared::from(
            serde_json::from_value::<Pod>(json!({"metadata": {"name": name},
                "spec": {"priority": priority, "containers": []},
                "status": {"nominatedNodeName": nominated}}))
            .unwrap(),
        )
    }

    #[test]
    fn only_lower_priority_pods_nominated_to_the_node() {
        let preemptor = pod("p", 100, None);
        let pods = [
            pod("a", 10, Some("node-1")),
            pod("b", 100, Some("node-1")),
            pod("c", 10, Some("node-2")),
            pod("d", 10, None),
        ];
        let got: Vec<_> = lower_priority_nominated_pods(&preemptor, &pods, "node-1")
            .into_iter()
            .map(|p| p.metadata.name.clone().unwrap())
            .collect();
        assert_eq!(got, ["a"]);
    }
}
