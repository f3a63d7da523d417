//! What plugins read of the whole cluster in `PreFilter` and `PreScore`
//! (upstream's `SharedLister` over the cache's `Snapshot`,
//! `pkg/scheduler/backend/cache/snapshot.go`): every node, and the lists the
//! cache keeps beside them so that a cycle need not walk every node to find
//! the few that matter: the nodes holding pods with affinity terms
//! (`havePodsWithAffinityNodeInfoList`), those holding pods with required
//! anti-affinity (`havePodsWithRequiredAntiAffinityNodeInfoList`), and how
//! many nodes hold each image (`createImageExistenceMap`, whose counts
//! upstream keeps in each node's `ImageStateSummary.NumNodes`).

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::framework::NodeInfo;

/// The lists kept beside the nodes, by index into them (in node order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeLists {
    /// Nodes with a pod that has pod affinity or anti-affinity terms.
    with_affinity: Vec<usize>,
    /// Nodes with a pod that has required pod anti-affinity terms.
    with_required_anti_affinity: Vec<usize>,
    /// Image name → how many nodes list it (`imageExistenceMap`, counted).
    nodes_with_image: BTreeMap<String, usize>,
}

/// Puts `at` in the sorted `list` or takes it out, as `member` says.
fn keep(list: &mut Vec<usize>, at: usize, member: bool) {
    match (list.binary_search(&at), member) {
        (Ok(i), false) => {
            list.remove(i);
        }
        (Err(i), true) => list.insert(i, at),
        _ => {}
    }
}

impl NodeLists {
    /// The lists of `infos`, worked out from scratch (upstream's
    /// `NewSnapshot`; the cache keeps them up to date instead, and a test
    /// checks both agree).
    pub fn of(infos: &[NodeInfo]) -> NodeLists {
        let mut lists = NodeLists::default();
        for (at, info) in infos.iter().enumerate() {
            lists.node_changed(at, info);
            lists.add_images(info);
        }
        lists
    }

    /// The node at `at` gained or lost pods: its place in the pod lists follows.
    pub fn node_changed(&mut self, at: usize, info: &NodeInfo) {
        keep(&mut self.with_affinity, at, info.pods_with_affinity > 0);
        keep(
            &mut self.with_required_anti_affinity,
            at,
            info.pods_with_required_anti_affinity > 0,
        );
    }

    /// A node was inserted at `at`: the nodes from there on move up one
    /// (the new node's own place follows with [`NodeLists::node_changed`]).
    pub fn node_inserted(&mut self, at: usize) {
        for list in [
            &mut self.with_affinity,
            &mut self.with_required_anti_affinity,
        ] {
            for i in list.iter_mut().filter(|i| **i >= at) {
                *i += 1;
            }
        }
    }

    /// The node at `at` was removed: it leaves the lists and the nodes after
    /// it move down one (its images are taken away with [`NodeLists::remove_images`]).
    pub fn node_removed(&mut self, at: usize) {
        for list in [
            &mut self.with_affinity,
            &mut self.with_required_anti_affinity,
        ] {
            list.retain(|&i| i != at);
            for i in list.iter_mut().filter(|i| **i > at) {
                *i -= 1;
            }
        }
    }

    /// Counts the images of `info` (`addNodeImageStates`).
    pub fn add_images(&mut self, info: &NodeInfo) {
        for name in info.image_sizes.keys() {
            match self.nodes_with_image.get_mut(name) {
                Some(count) => *count += 1,
                None => {
                    self.nodes_with_image.insert(name.clone(), 1);
                }
            }
        }
    }

    /// Stops counting the images of `info` (`removeNodeImageStates`).
    pub fn remove_images(&mut self, info: &NodeInfo) {
        for name in info.image_sizes.keys() {
            if let Some(count) = self.nodes_with_image.get_mut(name) {
                *count -= 1;
                if *count == 0 {
                    self.nodes_with_image.remove(name);
                }
            }
        }
    }
}

/// Every node and the lists kept beside them, as a cycle's plugins see them.
#[derive(Debug, Clone)]
pub struct Snapshot<'a> {
    infos: &'a [NodeInfo],
    lists: Cow<'a, NodeLists>,
}

impl<'a> Snapshot<'a> {
    /// A snapshot of `infos` with its lists worked out here (tests, and
    /// preemption's what-if nodes).
    pub fn new(infos: &'a [NodeInfo]) -> Snapshot<'a> {
        Snapshot {
            infos,
            lists: Cow::Owned(NodeLists::of(infos)),
        }
    }

    /// The cache's nodes with the lists it keeps for them.
    pub fn kept(infos: &'a [NodeInfo], lists: &'a NodeLists) -> Snapshot<'a> {
        Snapshot {
            infos,
            lists: Cow::Borrowed(lists),
        }
    }

    /// Every node, in name order (`NodeInfos().List()`).
    pub fn infos(&self) -> &'a [NodeInfo] {
        self.infos
    }

    /// How many nodes there are.
    pub fn len(&self) -> usize {
        self.infos.len()
    }

    /// Whether there is no node.
    pub fn is_empty(&self) -> bool {
        self.infos.is_empty()
    }

    /// The nodes holding pods with affinity terms (`HavePodsWithAffinityList`).
    pub fn have_pods_with_affinity(&self) -> impl Iterator<Item = &NodeInfo> {
        self.lists.with_affinity.iter().map(|&at| &self.infos[at])
    }

    /// The nodes holding pods with required anti-affinity terms
    /// (`HavePodsWithRequiredAntiAffinityList`).
    pub fn have_pods_with_required_anti_affinity(&self) -> impl Iterator<Item = &NodeInfo> {
        self.lists
            .with_required_anti_affinity
            .iter()
            .map(|&at| &self.infos[at])
    }

    /// How many nodes list the image `name` (`ImageStateSummary.NumNodes`).
    pub fn nodes_with_image(&self, name: &str) -> usize {
        self.lists.nodes_with_image.get(name).copied().unwrap_or(0)
    }
}
