//! The scheduler's cache (`pkg/scheduler/backend/cache/cache.go`): one
//! [`NodeInfo`] per node, kept up to date pod by pod as watch events arrive
//! and as pods are assumed onto a node while their binding is in flight, so a
//! scheduling cycle never has to count every pod of the cluster again.
//!
//! Terminal pods (`Succeeded`, `Failed`) hold no resources and leave the cache,
//! as upstream's cache drops them. Upstream keeps the pods of a deleted node
//! until they are deleted too; here they leave with the node.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use foldhash::fast::FixedState;
use k8s_openapi::api::core::v1::{Node, Pod};

use super::framework::NodeInfo;
use super::snapshot::{NodeLists, Snapshot};
use podflow_model::Shared;
use podflow_model::object::pod_key;

/// Every node's [`NodeInfo`], in node-name order, and where each pod counts.
#[derive(Debug, Clone, Default)]
pub struct Cache {
    /// Found by name with a binary search: no index to rebuild as nodes come
    /// and go.
    infos: Vec<NodeInfo>,
    /// The lists a cycle's snapshot carries, kept up to date as nodes and
    /// pods change (`updateNodeInfoSnapshotList` and the image states,
    /// `pkg/scheduler/backend/cache/cache.go`).
    lists: NodeLists,
    /// Pod key (`NS/NAME`) → the node it counts on, bound or assumed:
    /// hashed (with a fixed seed; it is never walked), so a Pod's event
    /// finds its entry by one key read, where a sorted map of 150,000 keys
    /// compares a dozen names long out of the caches.
    placed: HashMap<String, String, FixedState>,
    /// Pods counted on a node that does not exist (yet): by node name.
    orphans: BTreeMap<String, Vec<(String, Shared<Pod>)>>,
}

/// Whether a pod has finished and no longer holds its node's resources.
fn is_terminal(pod: &Pod) -> bool {
    matches!(
        pod.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Succeeded" | "Failed")
    )
}

impl Cache {
    /// Every node, in name order.
    pub fn infos(&self) -> &[NodeInfo] {
        &self.infos
    }

    /// Every node with the lists kept beside them, for one cycle's plugins.
    pub fn snapshot(&self) -> Snapshot<'_> {
        Snapshot::kept(&self.infos, &self.lists)
    }

    /// Where the node `name` is in `infos`.
    fn position(&self, name: &str) -> Option<usize> {
        self.infos
            .binary_search_by(|info| info.name().cmp(name))
            .ok()
    }

    /// The node a pod counts on, if any.
    pub fn node_of(&self, key: &str) -> Option<&str> {
        self.placed.get(key).map(String::as_str)
    }

    /// The node named `name`, as last seen.
    pub fn node(&self, name: &str) -> Option<&Node> {
        self.position(name).map(|at| &*self.infos[at].node)
    }

    /// How many nodes there are.
    pub fn node_count(&self) -> usize {
        self.infos.len()
    }

    /// A node was added or changed (`AddNode`/`UpdateNode`).
    pub fn set_node(&mut self, node: Arc<Node>) {
        let name = node.metadata.name.clone().unwrap_or_default();
        if let Some(at) = self.position(&name) {
            self.lists.remove_images(&self.infos[at]);
            self.infos[at].set_node(node);
            self.lists.add_images(&self.infos[at]);
            return;
        }
        let mut info = NodeInfo::new(node, Vec::new());
        for (_, pod) in self.orphans.remove(&name).into_iter().flatten() {
            info.add_pod(pod);
        }
        let at = self.infos.partition_point(|i| i.name() < name.as_str());
        self.lists.node_inserted(at);
        self.lists.node_changed(at, &info);
        self.lists.add_images(&info);
        self.infos.insert(at, info);
    }

    /// A node was deleted (`RemoveNode`): its pods leave with it.
    pub fn remove_node(&mut self, name: &str) {
        let Some(at) = self.position(name) else {
            return;
        };
        let info = self.infos.remove(at);
        self.lists.node_removed(at);
        self.lists.remove_images(&info);
        for pod in &info.pods {
            self.placed.remove(&pod_key(pod));
        }
    }

    /// Counts `pod` on `node` (a bound pod's update, or an assumed pod), or
    /// stops counting it when `node` is `None` or the pod has finished.
    pub fn set_pod(&mut self, key: &str, pod: Shared<Pod>, node: Option<&str>) {
        let node = node.filter(|_| !is_terminal(&pod));
        if let Some(node) = node
            && self.placed.get(key).is_some_and(|at| at == node)
            && let Some(at) = self.position(node)
        {
            self.infos[at].update_pod(key, pod);
            self.lists.node_changed(at, &self.infos[at]);
            return;
        }
        self.remove_pod(key);
        let Some(node) = node else {
            return;
        };
        self.placed.insert(key.to_owned(), node.to_owned());
        match self.position(node) {
            Some(at) => {
                self.infos[at].add_pod(pod);
                self.lists.node_changed(at, &self.infos[at]);
            }
            None => self
                .orphans
                .entry(node.to_owned())
                .or_default()
                .push((key.to_owned(), pod)),
        }
    }

    /// Stops counting the pod `key` anywhere (`RemovePod`, `ForgetPod`).
    pub fn remove_pod(&mut self, key: &str) {
        let Some(node) = self.placed.remove(key) else {
            return;
        };
        match self.position(&node) {
            Some(at) => {
                self.infos[at].remove_pod(key);
                self.lists.node_changed(at, &self.infos[at]);
            }
            None => {
                if let Some(list) = self.orphans.get_mut(&node) {
                    list.retain(|(k, _)| k != key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::resources::Resources;
    use crate::scheduler::snapshot::NodeLists;
    use serde_json::json;

    fn node(name: &str) -> Arc<Node> {
        Arc::new(
            serde_json::from_value(json!({
                "metadata": {"name": name},
                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}
            }))
            .unwrap(),
        )
    }

    fn pod(name: &str, cpu: &str, phase: &str) -> Shared<Pod> {
        Shared::from(
            serde_json::from_value::<Pod>(json!({
                "metadata": {"name": name, "namespace": "default"},
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
                "status": {"phase": phase}
            }))
            .unwrap(),
        )
    }

    #[test]
    fn pods_count_where_they_are_placed_and_leave_cleanly() {
        let mut cache = Cache::default();
        cache.set_node(node("node-2"));
        cache.set_node(node("node-1"));
        let names: Vec<&str> = cache.infos().iter().map(NodeInfo::name).collect();
        assert_eq!(names, ["node-1", "node-2"]);

        cache.set_pod("default/a", pod("a", "500m", "Pending"), Some("node-1"));
        cache.set_pod("default/b", pod("b", "250m", "Running"), Some("node-1"));
        assert_eq!(cache.infos()[0].requested.milli_cpu, 750);
        assert_eq!(cache.infos()[0].requested.pods, 2);

        // Moving (an assumed pod bound elsewhere) and finishing both release the node.
        cache.set_pod("default/a", pod("a", "500m", "Pending"), Some("node-2"));
        assert_eq!(cache.infos()[0].requested.milli_cpu, 250);
        assert_eq!(cache.infos()[1].requested.milli_cpu, 500);
        cache.set_pod("default/b", pod("b", "250m", "Succeeded"), Some("node-1"));
        assert_eq!(cache.infos()[0].requested, Resources::default());
        assert_eq!(cache.node_of("default/b"), None);

        cache.remove_pod("default/a");
        assert!(cache.infos().iter().all(|i| i.pods.is_empty()));
    }

    /// Counts kept pod by pod (as the kubelet keeps its admission counts)
    /// count as a recount does, whatever the order; a count that differs
    /// in a pod, a request or the node does not.
    #[test]
    fn counts_kept_pod_by_pod_count_as_a_recount() {
        use crate::scheduler::framework::Counted;
        let here = node("node-1");
        let (a, b) = (pod("a", "500m", "Running"), pod("b", "250m", "Running"));
        let mut kept = NodeInfo::new(Arc::clone(&here), []);
        kept.add_counted(b.clone(), Counted::of(&b));
        kept.add_counted(a.clone(), Counted::of(&a));
        let resized = pod("a", "2", "Running");
        kept.update_pod("default/a", resized.clone());
        let recount = |pods: Vec<Shared<Pod>>| NodeInfo::new(Arc::clone(&here), pods);
        assert!(kept.counts_as(&recount(vec![resized.clone(), b.clone()])));
        assert!(!kept.counts_as(&recount(vec![resized.clone()])));
        assert!(!kept.counts_as(&recount(vec![a, b.clone()])));
        assert!(!kept.counts_as(&NodeInfo::new(node("node-1"), [resized, b])));
    }

    #[test]
    fn an_updated_pod_moves_last_and_counts_what_it_now_asks_for() {
        let mut cache = Cache::default();
        cache.set_node(node("node-1"));
        cache.set_pod("default/a", pod("a", "500m", "Pending"), Some("node-1"));
        cache.set_pod("default/b", pod("b", "250m", "Pending"), Some("node-1"));
        // A status update: same requests, and `a` goes after `b` (RemovePod, AddPod).
        cache.set_pod("default/a", pod("a", "500m", "Running"), Some("node-1"));
        let info = &cache.infos()[0];
        let order: Vec<_> = info.pods.iter().map(|p| pod_key(p)).collect();
        assert_eq!(order, ["default/b", "default/a"]);
        assert_eq!((info.requested.milli_cpu, info.requested.pods), (750, 2));
        // An in-place resize: the new request is what counts.
        cache.set_pod("default/a", pod("a", "2", "Running"), Some("node-1"));
        let info = &cache.infos()[0];
        assert_eq!((info.requested.milli_cpu, info.requested.pods), (2250, 2));
        assert_eq!(info.non_zero_requested.milli_cpu, 2250);
        cache.remove_pod("default/a");
        cache.remove_pod("default/b");
        assert_eq!(cache.infos()[0].requested, Resources::default());
        assert_eq!(cache.infos()[0].non_zero_requested, Resources::default());
    }

    #[test]
    fn a_pod_seen_before_its_node_counts_once_the_node_arrives() {
        let mut cache = Cache::default();
        cache.set_pod("default/a", pod("a", "1", "Running"), Some("node-9"));
        cache.set_node(node("node-9"));
        assert_eq!(cache.infos()[0].requested.milli_cpu, 1000);
        cache.remove_node("node-9");
        assert_eq!(cache.node_of("default/a"), None);
    }

    /// A node holding `images` (each image one name).
    fn node_with_images(name: &str, images: &[&str]) -> Arc<Node> {
        let images: Vec<_> = images
            .iter()
            .map(|i| json!({"names": [i], "sizeBytes": 100}))
            .collect();
        Arc::new(
            serde_json::from_value(json!({
                "metadata": {"name": name},
                "status": {"allocatable": {"cpu": "4", "pods": "110"}, "images": images}
            }))
            .unwrap(),
        )
    }

    /// A pod with preferred affinity (`affinity`), required anti-affinity
    /// (`anti`), both or neither.
    fn affine_pod(name: &str, affinity: bool, anti: bool) -> Shared<Pod> {
        let term = json!({"labelSelector": {"matchLabels": {"app": "a"}},
                          "topologyKey": "kubernetes.io/hostname"});
        let mut spec = json!({"containers": [{"name": "c"}], "affinity": {}});
        if affinity {
            spec["affinity"]["podAffinity"] = json!({
                "preferredDuringSchedulingIgnoredDuringExecution":
                    [{"weight": 1, "podAffinityTerm": term.clone()}]});
        }
        if anti {
            spec["affinity"]["podAntiAffinity"] =
                json!({"requiredDuringSchedulingIgnoredDuringExecution": [term]});
        }
        Shared::from(
            serde_json::from_value::<Pod>(json!({
                "metadata": {"name": name, "namespace": "default"},
                "spec": spec, "status": {"phase": "Running"}
            }))
            .unwrap(),
        )
    }

    /// The lists the cache keeps as nodes and pods change (the snapshot's
    /// affinity lists and image counts) are those worked out from scratch
    /// (`NodeLists::of`, upstream's `NewSnapshot`) after every change.
    #[test]
    fn the_kept_lists_agree_with_lists_worked_out_afresh() {
        type Step = Box<dyn Fn(&mut Cache)>;
        let steps: Vec<(&str, Step)> = vec![
            (
                "node-b",
                Box::new(|c| c.set_node(node_with_images("node-b", &["nginx:1.27"]))),
            ),
            (
                "node-d",
                Box::new(|c| c.set_node(node_with_images("node-d", &["nginx:1.27", "redis:7"]))),
            ),
            (
                "anti on d",
                Box::new(|c| c.set_pod("default/x", affine_pod("x", false, true), Some("node-d"))),
            ),
            (
                "affinity on b",
                Box::new(|c| c.set_pod("default/y", affine_pod("y", true, false), Some("node-b"))),
            ),
            (
                "node-a before both",
                Box::new(|c| c.set_node(node_with_images("node-a", &["redis:7"]))),
            ),
            (
                "node-c between",
                Box::new(|c| c.set_node(node_with_images("node-c", &[]))),
            ),
            (
                "plain pod on c",
                Box::new(|c| c.set_pod("default/z", affine_pod("z", false, false), Some("node-c"))),
            ),
            (
                "both on a",
                Box::new(|c| c.set_pod("default/w", affine_pod("w", true, true), Some("node-a"))),
            ),
            (
                "x updated in place",
                Box::new(|c| c.set_pod("default/x", affine_pod("x", true, true), Some("node-d"))),
            ),
            (
                "y moves to c",
                Box::new(|c| c.set_pod("default/y", affine_pod("y", true, false), Some("node-c"))),
            ),
            (
                "orphan on e",
                Box::new(|c| c.set_pod("default/v", affine_pod("v", false, true), Some("node-e"))),
            ),
            (
                "node-e arrives",
                Box::new(|c| c.set_node(node_with_images("node-e", &["nginx:1.27"]))),
            ),
            (
                "b pulls redis",
                Box::new(|c| c.set_node(node_with_images("node-b", &["nginx:1.27", "redis:7"]))),
            ),
            ("node-b leaves", Box::new(|c| c.remove_node("node-b"))),
            ("w finishes", Box::new(|c| c.remove_pod("default/w"))),
            ("node-a leaves", Box::new(|c| c.remove_node("node-a"))),
            (
                "d forgets its images",
                Box::new(|c| c.set_node(node_with_images("node-d", &[]))),
            ),
            ("x leaves", Box::new(|c| c.remove_pod("default/x"))),
        ];
        let mut cache = Cache::default();
        for (name, step) in steps {
            step(&mut cache);
            assert_eq!(cache.lists, NodeLists::of(cache.infos()), "after {name}");
        }
        let snapshot = cache.snapshot();
        let names = |nodes: Vec<&NodeInfo>| {
            nodes
                .iter()
                .map(|i| i.name().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(snapshot.have_pods_with_affinity().collect()),
            ["node-c", "node-e"]
        );
        assert_eq!(
            names(snapshot.have_pods_with_required_anti_affinity().collect()),
            ["node-e"]
        );
        assert_eq!(snapshot.nodes_with_image("nginx:1.27"), 1);
        assert_eq!(snapshot.nodes_with_image("redis:7"), 0);
    }
}
