//! The scheduling framework's vocabulary (`pkg/scheduler/framework/interface.go`):
//! plugin Status codes, the Filter and Score extension points, and the
//! per-node view plugins read (`NodeInfo`).

use std::any::Any;
use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::sync::Arc;

use foldhash::fast::FixedState;

use k8s_openapi::api::core::v1::{Node, Pod, Taint};

pub use super::cycle_filter::{CycleFilter, PerNode};
use super::plugins::inter_pod_affinity::terms::{has_pod_affinity, has_required_anti_affinity};
use super::resources::{Resources, allocatable, pod_requests};
pub use super::snapshot::Snapshot;
use crate::apiserver::strategy::same_pod_spec;
use podflow_model::Shared;

/// A plugin's verdict code, as upstream's `framework.Code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Code {
    Success,
    Error,
    Unschedulable,
    UnschedulableAndUnresolvable,
    Wait,
    Skip,
}

impl Code {
    /// As upstream prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Success => "Success",
            Code::Error => "Error",
            Code::Unschedulable => "Unschedulable",
            Code::UnschedulableAndUnresolvable => "UnschedulableAndUnresolvable",
            Code::Wait => "Wait",
            Code::Skip => "Skip",
        }
    }
}

/// A plugin's Status: a code and its reasons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub code: Code,
    pub reasons: Vec<String>,
}

impl Status {
    /// Success.
    pub fn success() -> Status {
        Status {
            code: Code::Success,
            reasons: Vec::new(),
        }
    }

    /// A failure with one reason.
    pub fn new(code: Code, reason: impl Into<String>) -> Status {
        Status {
            code,
            reasons: vec![reason.into()],
        }
    }

    /// `Skip`: the plugin has nothing to do for this pod. Upstream's Skip
    /// status carries no message (`framework.NewStatus(framework.Skip)`); the
    /// reason here is podflow's words for the condition that made the plugin
    /// skip, for the trace's `skip` stage and the Explain pane.
    pub fn skip(reason: impl Into<String>) -> Status {
        Status::new(Code::Skip, reason)
    }

    /// Whether the code is `Success`.
    pub fn is_success(&self) -> bool {
        self.code == Code::Success
    }
}

/// What the scheduler knows of one node: the node and the pods on it
/// (`pkg/scheduler/framework/types.go`, `NodeInfo`).
#[derive(Debug, Clone)]
pub struct NodeInfo {
    pub node: Arc<Node>,
    pub pods: Vec<Shared<Pod>>,
    /// What each pod (at the same index) adds to the sums below, worked out
    /// once per pod as upstream's `PodInfo` caches it (`calculateResource`).
    counted: Vec<Counted>,
    /// Sum of the pods' requests.
    pub requested: Resources,
    /// Sum of the pods' requests with upstream's non-zero defaults for scoring.
    pub non_zero_requested: Resources,
    /// The node's allocatable resources.
    pub allocatable: Resources,
    /// How many of its pods have pod affinity or anti-affinity terms
    /// (upstream's `PodsWithAffinity`, so `InterPodAffinity` can skip the rest).
    pub pods_with_affinity: usize,
    /// How many of its pods have required pod anti-affinity terms
    /// (upstream's `PodsWithRequiredAntiAffinity`).
    pub pods_with_required_anti_affinity: usize,
    /// Every name of every image the node holds, with the image's size in
    /// bytes, the later image winning (upstream's `NodeInfo.ImageStates`,
    /// kept from `SetNode` so `ImageLocality` does not walk `status.images`
    /// per cycle).
    pub image_sizes: BTreeMap<String, i64>,
    /// What the per-node filters read of the node, kept beside the counts so
    /// a cycle does not chase every node's object: its name,
    /// `spec.unschedulable` and `spec.taints` (kept by [`NodeInfo::set_node`]).
    name: String,
    unschedulable: bool,
    taints: Vec<Taint>,
}

/// One pod's share of a node's sums: what it asks for, computed once for
/// each version that changes it (a holder of many pods, as the kubelet is,
/// keeps it beside the pod rather than count every pod again).
#[derive(Debug, Clone)]
pub struct Counted {
    /// The pod's `NS/NAME`, hashed: a pod's new version finds its old one
    /// among the counts, and a node's pods are counted, without reading
    /// the name of each pod on the node (long out of the caches).
    key: u64,
    requests: Resources,
    non_zero: Resources,
    /// Whether the pod has pod affinity or anti-affinity terms.
    affinity: bool,
    /// Whether it has required pod anti-affinity terms.
    required_anti_affinity: bool,
}

impl Counted {
    /// `pod`'s requests, as they are and with the scoring defaults.
    pub fn of(pod: &Pod) -> Counted {
        let meta = &pod.metadata;
        Counted {
            key: key_hash(
                meta.namespace.as_deref().unwrap_or_default(),
                meta.name.as_deref().unwrap_or_default(),
            ),
            requests: pod_requests(pod, false),
            non_zero: pod_requests(pod, true),
            affinity: has_pod_affinity(pod),
            required_anti_affinity: has_required_anti_affinity(pod),
        }
    }

    /// `pod` with its counts, as [`NodeInfo::with_counted`] takes it.
    pub fn beside(pod: Shared<Pod>) -> (Shared<Pod>, Counted) {
        let counted = Counted::of(&pod);
        (pod, counted)
    }

    /// Follows the pod from version `old`, counted as `self`, to `new`:
    /// counted again only when its spec changed (what is counted is read
    /// from the spec alone).
    pub fn follow(&mut self, old: &Pod, new: &Pod) {
        if !same_pod_spec(old, new) {
            *self = Counted::of(new);
        }
    }
}

/// The node's images by name (`status.images`), each name with its image's size.
fn image_sizes(node: &Node) -> BTreeMap<String, i64> {
    let images = node.status.as_ref().and_then(|s| s.images.as_deref());
    let mut sizes = BTreeMap::new();
    for image in images.unwrap_or_default() {
        for name in image.names.as_deref().unwrap_or_default() {
            sizes.insert(name.clone(), image.size_bytes.unwrap_or_default());
        }
    }
    sizes
}

/// A pod's `NS/NAME` hashed, as [`Counted`] keeps it.
fn key_hash(namespace: &str, name: &str) -> u64 {
    FixedState::with_seed(0).hash_one((namespace, name))
}

impl NodeInfo {
    /// `node` with `pods` counted on it (`NewNodeInfo` + `SetNode`).
    pub fn new(node: Arc<Node>, pods: impl IntoIterator<Item = Shared<Pod>>) -> NodeInfo {
        NodeInfo::with_counted(node, pods.into_iter().map(Counted::beside))
    }

    /// `node` with `pods` on it, each with its counts already made.
    pub fn with_counted(
        node: Arc<Node>,
        pods: impl IntoIterator<Item = (Shared<Pod>, Counted)>,
    ) -> NodeInfo {
        let mut info = NodeInfo {
            allocatable: Resources::default(),
            image_sizes: BTreeMap::new(),
            name: String::new(),
            unschedulable: false,
            taints: Vec::new(),
            node: Arc::clone(&node),
            pods: Vec::new(),
            counted: Vec::new(),
            requested: Resources::default(),
            non_zero_requested: Resources::default(),
            pods_with_affinity: 0,
            pods_with_required_anti_affinity: 0,
        };
        info.set_node(node);
        for (pod, counted) in pods {
            info.add_counted(pod, counted);
        }
        info
    }

    /// The node changed (`NodeInfo.SetNode`): what is kept of it follows.
    pub fn set_node(&mut self, node: Arc<Node>) {
        self.allocatable = allocatable(&node);
        self.image_sizes = image_sizes(&node);
        self.name = node.metadata.name.clone().unwrap_or_default();
        let spec = node.spec.as_ref();
        self.unschedulable = spec.and_then(|s| s.unschedulable).unwrap_or(false);
        self.taints = spec.and_then(|s| s.taints.clone()).unwrap_or_default();
        self.node = node;
    }

    /// Counts `pod` on this node (`NodeInfo.AddPod`).
    pub fn add_pod(&mut self, pod: Shared<Pod>) {
        let counted = Counted::of(&pod);
        self.add_counted(pod, counted);
    }

    /// Whether this counts what `other` counts: the same node, sums and
    /// pods, in any order (a check of counts kept against a recount).
    pub fn counts_as(&self, other: &NodeInfo) -> bool {
        let keys = |info: &NodeInfo| {
            let mut keys: Vec<u64> = info.counted.iter().map(|c| c.key).collect();
            keys.sort_unstable();
            keys
        };
        Arc::ptr_eq(&self.node, &other.node)
            && self.requested == other.requested
            && self.non_zero_requested == other.non_zero_requested
            && self.pods_with_affinity == other.pods_with_affinity
            && self.pods_with_required_anti_affinity == other.pods_with_required_anti_affinity
            && keys(self) == keys(other)
    }

    /// Stops counting the pod `NS/NAME` on this node (`NodeInfo.RemovePod`).
    pub fn remove_pod(&mut self, key: &str) -> Option<Shared<Pod>> {
        self.take(key).map(|(pod, _)| pod)
    }

    /// A new version of the pod `NS/NAME` (`NodeInfo.RemovePod` then
    /// `AddPod`, so it moves to the end): its counts are kept when it asks
    /// for the same resources, as an unchanged pod does.
    pub fn update_pod(&mut self, key: &str, pod: Shared<Pod>) {
        let counted = match self.take(key) {
            Some((old, mut counted)) => {
                counted.follow(&old, &pod);
                counted
            }
            None => Counted::of(&pod),
        };
        self.add_counted(pod, counted);
    }

    /// A new version of the pod `NS/NAME` that its holder has counted
    /// already (as [`NodeInfo::update_pod`], without reading the old one).
    pub fn update_counted(&mut self, key: &str, pod: Shared<Pod>, counted: Counted) {
        self.take(key);
        self.add_counted(pod, counted);
    }

    /// Counts `pod` on this node with counts already made (`NodeInfo.AddPod`).
    pub fn add_counted(&mut self, pod: Shared<Pod>, counted: Counted) {
        self.requested.add(&counted.requests);
        self.non_zero_requested.add(&counted.non_zero);
        self.pods_with_affinity += usize::from(counted.affinity);
        self.pods_with_required_anti_affinity += usize::from(counted.required_anti_affinity);
        self.pods.push(pod);
        self.counted.push(counted);
    }

    fn take(&mut self, key: &str) -> Option<(Shared<Pod>, Counted)> {
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        let hash = key_hash(ns, name);
        let at = self
            .counted
            .iter()
            .zip(&self.pods)
            .position(|(counted, pod)| {
                counted.key == hash
                    && pod.metadata.namespace.as_deref().unwrap_or_default() == ns
                    && pod.metadata.name.as_deref().unwrap_or_default() == name
            })?;
        let pod = self.pods.remove(at);
        let counted = self.counted.remove(at);
        self.requested.sub(&counted.requests);
        self.non_zero_requested.sub(&counted.non_zero);
        self.pods_with_affinity -= usize::from(counted.affinity);
        self.pods_with_required_anti_affinity -= usize::from(counted.required_anti_affinity);
        Some((pod, counted))
    }

    /// The node's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the node is cordoned (`spec.unschedulable`).
    pub fn unschedulable(&self) -> bool {
        self.unschedulable
    }

    /// The node's taints (`spec.taints`).
    pub fn taints(&self) -> &[Taint] {
        &self.taints
    }
}

/// Data plugins compute once per scheduling cycle (in `PreFilter` or `PreScore`)
/// and read per node (`framework.CycleState`), keyed by plugin name.
///
/// A handful of entries, read once per plugin and node: a short list whose
/// keys (string constants) are compared by address before by content.
#[derive(Default)]
pub struct CycleState {
    data: Vec<(&'static str, Box<dyn Any + Send + Sync>)>,
}

/// Whether two keys are the same: the same constant, or equal text.
fn same_key(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b) || a == b
}

impl CycleState {
    /// Stores `value` under `key` (the plugin's name).
    pub fn write<T: Any + Send + Sync>(&mut self, key: &'static str, value: T) {
        let value: Box<dyn Any + Send + Sync> = Box::new(value);
        match self.data.iter_mut().find(|(k, _)| same_key(k, key)) {
            Some(entry) => entry.1 = value,
            None => self.data.push((key, value)),
        }
    }

    /// What was stored under `key`, if it has type `T`.
    ///
    /// Plugins read per node (Filter, Score): the key, a constant, is found
    /// by address first, which settles each entry in one comparison; its
    /// text is compared only when no address matches. A key is stored once
    /// ([`CycleState::write`] replaces), so both find the same entry.
    pub fn read<T: Any + Send + Sync>(&self, key: &'static str) -> Option<&T> {
        // Newest first: Score reads what `PreScore` wrote last.
        let mut newest_first = self.data.iter().rev();
        newest_first
            .clone()
            .find(|(k, _)| std::ptr::eq(*k, key))
            .or_else(|| newest_first.find(|(k, _)| *k == key))
            .and_then(|(_, v)| v.downcast_ref())
    }
}

/// A Filter plugin (with its PreFilter): may this pod run on this node?
pub trait FilterPlugin {
    /// The plugin's name as upstream spells it.
    fn name(&self) -> &'static str;
    /// `PreFilter`: runs once per cycle before any Filter, with every node;
    /// may store data in `state`, refuse the pod outright, or answer `Skip`
    /// (then Filter is not called for this pod).
    fn pre_filter(&self, _pod: &Pod, _nodes: &Snapshot<'_>, _state: &mut CycleState) -> Status {
        Status::success()
    }
    /// The verdict for `pod` on `node`.
    fn filter(&self, state: &CycleState, pod: &Pod, node: &NodeInfo) -> Status;
    /// [`FilterPlugin::filter`] for every node of one cycle: a plugin may
    /// read what its `PreFilter` stored once here rather than per node, and
    /// decide a node that passes without building a `Status`. The verdicts
    /// must be `filter`'s (tables check it where a plugin does so); by
    /// default it is `filter` itself.
    fn cycle_filter<'a>(&'a self, state: &'a CycleState, pod: &'a Pod) -> NodeFilter<'a> {
        Box::new(PerNode {
            plugin: self,
            state,
            pod,
        })
    }
}

/// One cycle's Filter of one plugin: the verdict per node, or over a batch.
pub type NodeFilter<'a> = Box<dyn CycleFilter + 'a>;

/// A Score plugin (with its PreScore): how good is this node for this pod?
pub trait ScorePlugin {
    /// The plugin's name as upstream spells it.
    fn name(&self) -> &'static str;
    /// `PreScore`: runs once per cycle with the feasible nodes (and all nodes,
    /// for plugins that count pods cluster-wide); `Skip` leaves Score out.
    fn pre_score(
        &self,
        _pod: &Pod,
        _feasible: &[&NodeInfo],
        _all: &Snapshot<'_>,
        _state: &mut CycleState,
    ) -> Status {
        Status::success()
    }
    /// The raw score of `node` for `pod`.
    fn score(&self, state: &CycleState, pod: &Pod, node: &NodeInfo) -> i64;
    /// The raw score of each of `nodes`, in order, appended to `out` (what
    /// the framework's `RunScorePlugins` collects per plugin). By default
    /// [`ScorePlugin::score`] per node; a plugin may read its cycle state
    /// once for all of them.
    fn score_nodes<'a>(
        &self,
        state: &CycleState,
        pod: &Pod,
        nodes: &[&'a NodeInfo],
        out: &mut Vec<NodeScore<'a>>,
    ) {
        score_each(nodes.iter().copied(), out, |info| {
            self.score(state, pod, info)
        });
    }
    /// The normalised score every one of `nodes` gets, when it is the same
    /// for all of them and known without scoring each (no node holds any of
    /// the pod's images; no node has a taint to count): the cycle then adds
    /// it to every total at once. `nodes` are among those `PreScore` saw.
    /// `Some(s)` must mean that [`ScorePlugin::score_nodes`] then
    /// [`ScorePlugin::normalize`] give every node `s` (tables check it where
    /// a plugin answers); by default `None`, every node scored.
    fn uniform_score(&self, _state: &CycleState, _pod: &Pod, _nodes: &[&NodeInfo]) -> Option<i64> {
        None
    }
    /// Turns raw scores into 0..=100 (`ScoreExtensions.NormalizeScore`); by
    /// default the raw scores are already in range.
    fn normalize(&self, _state: &CycleState, _scores: &mut [NodeScore<'_>]) {}
    /// The per-resource figures behind `node`'s score, for the trace
    /// (`NodeResourcesFit`, `NodeResourcesBalancedAllocation`); `None` for
    /// plugins that do not score resources.
    fn resource_parts(
        &self,
        _state: &CycleState,
        _pod: &Pod,
        _node: &NodeInfo,
    ) -> Option<Vec<crate::trace::ResourcePart>> {
        None
    }
}

/// One feasible node's score for one plugin (`framework.NodeScore`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeScore<'a> {
    pub name: &'a str,
    pub score: i64,
}

/// Every node's score from `score`, in `infos` order: the list `NormalizeScore` gets.
pub fn node_scores<'a>(
    infos: impl IntoIterator<Item = &'a NodeInfo>,
    score: impl FnMut(&NodeInfo) -> i64,
) -> Vec<NodeScore<'a>> {
    let mut scores = Vec::new();
    score_each(infos, &mut scores, score);
    scores
}

/// `score` of each of `infos`, appended to `out` in order.
pub fn score_each<'a>(
    infos: impl IntoIterator<Item = &'a NodeInfo>,
    out: &mut Vec<NodeScore<'a>>,
    mut score: impl FnMut(&NodeInfo) -> i64,
) {
    out.extend(infos.into_iter().map(|info| NodeScore {
        name: info.name(),
        score: score(info),
    }));
}

/// A `PostFilter` plugin: runs when no node passed the filters, to make one
/// pass later (`DefaultPreemption` nominates a node and evicts lower-priority
/// pods there). Plugins run in order until one nominates a node.
pub trait PostFilterPlugin {
    /// The plugin's name as upstream spells it.
    fn name(&self) -> &'static str;
    /// `PostFilter`, given the pod, every node and each node's Filter status.
    fn post_filter(&self, input: &PostFilterInput<'_>, rng: &mut Rng) -> PostFilterResult;
}

pub use super::plugins::default_preemption::{
    Outcome as PostFilterResult, PreemptInput as PostFilterInput,
};
use crate::rng::Rng;

/// A Reserve plugin: claims what the pod will use on its chosen node before
/// binding; `unreserve` gives it back when a later step fails.
pub trait ReservePlugin {
    /// The plugin's name as upstream spells it.
    fn name(&self) -> &'static str;
    /// `Reserve`: anything but success ends the cycle (and unreserves).
    /// `Skip` says there was nothing to reserve for this pod (where upstream's
    /// plugin returns success without doing anything): no stage is recorded.
    fn reserve(&self, state: &mut CycleState, pod: &Pod, node: &str) -> Status;
    /// `Unreserve`: undo `reserve`, in reverse order of the plugins.
    fn unreserve(&self, state: &mut CycleState, pod: &Pod, node: &str);
}

/// A Permit plugin: approves, denies or delays the binding of a reserved pod.
pub trait PermitPlugin {
    /// The plugin's name as upstream spells it.
    fn name(&self) -> &'static str;
    /// `Permit`: `Success`, a refusal, or `Wait` (not simulated: podflow
    /// treats waiting as a refusal, since no plugin it ships waits).
    fn permit(&self, state: &CycleState, pod: &Pod, node: &str) -> Status;
}

/// A `PreBind` plugin: work that must be done before the binding (upstream's
/// `VolumeBinding` binds the pod's claims here).
pub trait PreBindPlugin {
    /// The plugin's name as upstream spells it.
    fn name(&self) -> &'static str;
    /// `PreBindPreFlight`: `Skip` leaves this plugin's `PreBind` out of the
    /// binding cycle (`SkipPreBindPlugins`); anything else but success fails it.
    fn pre_bind_pre_flight(&self, _state: &CycleState, _pod: &Pod, _node: &str) -> Status {
        Status::success()
    }
    /// `PreBind`: anything but success fails the binding cycle.
    fn pre_bind(&self, state: &CycleState, pod: &Pod, node: &str) -> Status;
}

/// What a Bind plugin asks for: the API request that binds the pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindAction {
    /// POST this pod's `binding` subresource naming the node.
    Binding { node: String },
    /// Not this plugin's pod: ask the next one (`Skip`).
    Skip,
}

/// A Bind plugin: binds the pod to its node. The first that does not skip wins.
pub trait BindPlugin {
    /// The plugin's name as upstream spells it.
    fn name(&self) -> &'static str;
    /// `Bind`.
    fn bind(&self, pod: &Pod, node: &str) -> BindAction;
}

/// The highest score a node can get from one plugin (`framework.MaxNodeScore`).
pub const MAX_NODE_SCORE: i64 = 100;

/// `DefaultNormalizeScore` (`pkg/scheduler/framework/plugins/helper/normalize_score.go`):
/// scales scores to 0..=100 by the highest, reversed when `reverse`.
pub fn default_normalize(scores: &mut [NodeScore<'_>], reverse: bool) {
    let max = scores.iter().map(|s| s.score).max().unwrap_or(0);
    if max == 0 {
        if reverse {
            for s in scores.iter_mut() {
                s.score = MAX_NODE_SCORE;
            }
        }
        return;
    }
    for NodeScore { score, .. } in scores.iter_mut() {
        let scaled = MAX_NODE_SCORE * *score / max;
        *score = if reverse {
            MAX_NODE_SCORE - scaled
        } else {
            scaled
        };
    }
}
