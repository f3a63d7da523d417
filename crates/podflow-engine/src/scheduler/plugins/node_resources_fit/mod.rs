//! `NodeResourcesFit` (`pkg/scheduler/framework/plugins/noderesources/fit.go`):
//! a node fits when its allocatable resources cover what its pods already
//! request plus this pod's requests, extended resources included; nodes are
//! scored by the configured strategy (`least_allocated.go`, `most_allocated.go`,
//! `requested_to_capacity_ratio.go`, over `resource_allocation.go`'s per-resource
//! requested/allocatable pairs). Args and their validation follow
//! `pkg/scheduler/apis/config/types_pluginargs.go` and
//! `validation/validation_pluginargs.go` (`ValidateNodeResourcesFitArgs`).

pub mod resolved;

use std::sync::LazyLock;

use k8s_openapi::api::core::v1::Pod;

use self::resolved::{Kind, Scoring, Strategy, scale_shape, score_all, with_pairs};
use crate::scheduler::config::{aggregate, child};
use crate::scheduler::framework::{
    Code, CycleFilter, CycleState, FilterPlugin, MAX_NODE_SCORE, NodeFilter, NodeInfo, NodeScore,
    PerNode, ScorePlugin, Snapshot, Status,
};
use crate::scheduler::resources::{Resources, is_extended_resource_name, pod_requests};
use crate::trace::{FitDetail, Shortfall};

/// The plugin's name.
pub const NAME: &str = "NodeResourcesFit";
const PRE_FILTER_KEY: &str = "PreFilterNodeResourcesFit";
const PRE_SCORE_KEY: &str = "PreScoreNodeResourcesFit";

/// The highest score a shape point may give (`config.MaxCustomPriorityScore`).
pub const MAX_CUSTOM_PRIORITY_SCORE: i64 = 10;
/// `maxUtilization` of `requested_to_capacity_ratio.go`.
const MAX_UTILIZATION: i64 = 100;

/// One resource and its weight (`config.ResourceSpec`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceSpec {
    pub name: String,
    pub weight: i64,
}

impl ResourceSpec {
    /// A resource with its weight.
    pub fn new(name: &str, weight: i64) -> ResourceSpec {
        ResourceSpec {
            name: name.to_owned(),
            weight,
        }
    }
}

/// cpu and memory, weight 1 each (`defaultResourceSpec` of `v1/defaults.go`).
pub fn default_resources() -> Vec<ResourceSpec> {
    vec![ResourceSpec::new("cpu", 1), ResourceSpec::new("memory", 1)]
}

/// A point of the `RequestedToCapacityRatio` shape (`config.UtilizationShapePoint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapePoint {
    pub utilization: i64,
    pub score: i64,
}

/// How nodes are scored (`config.ScoringStrategy`). `kind` is kept as written
/// so an unsupported type can be reported as kube-scheduler reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoringStrategy {
    /// `LeastAllocated`, `MostAllocated` or `RequestedToCapacityRatio`.
    pub kind: String,
    pub resources: Vec<ResourceSpec>,
    /// `requestedToCapacityRatio.shape`; `None` when the param is absent.
    pub shape: Option<Vec<ShapePoint>>,
}

/// `NodeResourcesFitArgs`, defaulted as `SetDefaults_NodeResourcesFitArgs` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FitArgs {
    pub ignored_resources: Vec<String>,
    pub ignored_resource_groups: Vec<String>,
    pub scoring_strategy: ScoringStrategy,
}

impl Default for FitArgs {
    fn default() -> FitArgs {
        FitArgs {
            ignored_resources: Vec::new(),
            ignored_resource_groups: Vec::new(),
            scoring_strategy: ScoringStrategy {
                kind: "LeastAllocated".to_owned(),
                resources: default_resources(),
                shape: None,
            },
        }
    }
}

const STRATEGIES: [&str; 3] = [
    "LeastAllocated",
    "MostAllocated",
    "RequestedToCapacityRatio",
];

/// `validateFunctionShape`: the shape's errors under `path`.
fn validate_shape(shape: &[ShapePoint], path: &str, errs: &mut Vec<String>) {
    if shape.is_empty() {
        errs.push(format!(
            "{path}: Required value: at least one point must be specified"
        ));
        return;
    }
    if let Some(i) = (1..shape.len()).find(|&i| shape[i - 1].utilization >= shape[i].utilization) {
        errs.push(format!(
            "{path}[{i}].utilization: Invalid value: {}: values must be sorted in increasing order",
            shape[i].utilization
        ));
    }
    for (i, point) in shape.iter().enumerate() {
        if !(0..=MAX_UTILIZATION).contains(&point.utilization) {
            errs.push(format!(
                "{path}[{i}].utilization: Invalid value: {}: not in valid range [0, {MAX_UTILIZATION}]",
                point.utilization
            ));
        }
        if !(0..=MAX_CUSTOM_PRIORITY_SCORE).contains(&point.score) {
            errs.push(format!(
                "{path}[{i}].score: Invalid value: {}: not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]",
                point.score
            ));
        }
    }
}

impl FitArgs {
    /// `ValidateNodeResourcesFitArgs(nil, args)`: the aggregated error, if any.
    pub fn validate(&self) -> Result<(), String> {
        let mut errs = Vec::new();
        for (i, group) in self.ignored_resource_groups.iter().enumerate() {
            if group.contains('/') {
                errs.push(format!(
                    "ignoredResourceGroups[{i}]: Invalid value: {group:?}: resource group name can't contain '/'"
                ));
            }
        }
        let strategy = &self.scoring_strategy;
        if !STRATEGIES.contains(&strategy.kind.as_str()) {
            let supported: Vec<String> = STRATEGIES.iter().map(|s| format!("{s:?}")).collect();
            errs.push(format!(
                "scoringStrategy.type: Unsupported value: {:?}: supported values: {}",
                strategy.kind,
                supported.join(", ")
            ));
        }
        for (i, r) in strategy.resources.iter().enumerate() {
            if r.weight <= 0 || r.weight > 100 {
                errs.push(format!(
                    "scoringStrategy.resources[{i}].weight: Invalid value: {}: resource weight of {} not in valid range (0, 100]",
                    r.weight, r.name
                ));
            }
        }
        let ratio = "scoringStrategy.requestedToCapacityRatio";
        match (&strategy.shape, strategy.kind == "RequestedToCapacityRatio") {
            (None, true) => errs.push(format!(
                "{ratio}: Required value: must be specified when type is RequestedToCapacityRatio"
            )),
            (Some(shape), true) => validate_shape(shape, &child(ratio, "shape"), &mut errs),
            (Some(_), false) => errs.push(format!(
                "{ratio}: Forbidden: must be nil when type is not RequestedToCapacityRatio"
            )),
            (None, false) => {}
        }
        aggregate(&errs).map_or(Ok(()), Err)
    }
}

/// The plugin with the default args, for the fixed plugin lists.
pub static DEFAULT: LazyLock<NodeResourcesFit> = LazyLock::new(NodeResourcesFit::default);

/// The plugin, with its args (and what scoring needs of them, resolved once).
#[derive(Debug, Clone)]
pub struct NodeResourcesFit {
    pub args: FitArgs,
    scoring: Scoring,
}

impl Default for NodeResourcesFit {
    fn default() -> NodeResourcesFit {
        NodeResourcesFit::new(FitArgs::default())
    }
}

impl NodeResourcesFit {
    /// The plugin configured with `args` (validated by the caller); the
    /// scoring strategy and its resources are resolved here, as upstream's
    /// `NewFit` picks its scorer once (`noderesources/fit.go`).
    pub fn new(args: FitArgs) -> NodeResourcesFit {
        let strategy = &args.scoring_strategy;
        let kind = Strategy::of(&strategy.kind);
        let scaled_shape = match kind {
            Strategy::RequestedToCapacityRatio => {
                scale_shape(strategy.shape.as_deref().unwrap_or_default())
            }
            _ => Vec::new(),
        };
        let scoring = Scoring {
            strategy: kind,
            kinds: Kind::all(&strategy.resources),
            scaled_shape,
        };
        NodeResourcesFit { args, scoring }
    }
}

/// A resource the node lacks (`InsufficientResource`), with the numbers
/// that decided: the pod's request, what the node's pods already request and
/// the node's allocatable (cpu in millicores, memory and storage in bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insufficient {
    pub reason: String,
    /// The pod asks for more than the node has at all: preemption cannot help.
    pub unresolvable: bool,
    pub resource: String,
    pub requested: i64,
    pub used: i64,
    pub allocatable: i64,
}

fn short(resource: &str, requested: i64, used: i64, capacity: i64) -> Option<Insufficient> {
    (requested > 0 && requested > capacity - used).then(|| Insufficient {
        reason: format!("Insufficient {resource}"),
        unresolvable: requested > capacity,
        resource: resource.to_owned(),
        requested,
        used,
        allocatable: capacity,
    })
}

/// `fitsRequest`: what `node` lacks for a pod requesting `want`, in upstream's
/// order (pods, cpu, memory, ephemeral-storage, then scalar resources, sorted
/// by name where upstream walks a map).
pub fn fits_request(want: &Resources, node: &NodeInfo, args: &FitArgs) -> Vec<Insufficient> {
    let have = &node.allocatable;
    let used = &node.requested;
    let mut out = Vec::new();
    if used.pods + 1 > have.pods {
        out.push(Insufficient {
            reason: "Too many pods".to_owned(),
            unresolvable: false,
            resource: "pods".to_owned(),
            requested: 1,
            used: used.pods,
            allocatable: have.pods,
        });
    }
    if want.requests_nothing() {
        return out;
    }
    out.extend(short("cpu", want.milli_cpu, used.milli_cpu, have.milli_cpu));
    out.extend(short("memory", want.memory, used.memory, have.memory));
    out.extend(short(
        "ephemeral-storage",
        want.ephemeral_storage,
        used.ephemeral_storage,
        have.ephemeral_storage,
    ));
    for (name, &quantity) in &want.scalar {
        if quantity == 0 {
            continue;
        }
        if is_extended_resource_name(name) {
            let group = name.split('/').next().unwrap_or_default();
            if args.ignored_resources.iter().any(|r| r == name)
                || args.ignored_resource_groups.iter().any(|g| g == group)
            {
                continue;
            }
        }
        let capacity = have.scalar.get(name).copied().unwrap_or(0);
        let in_use = used.scalar.get(name).copied().unwrap_or(0);
        if quantity > capacity - in_use {
            out.push(Insufficient {
                reason: format!("Insufficient {name}"),
                unresolvable: quantity > capacity,
                resource: name.clone(),
                requested: quantity,
                used: in_use,
                allocatable: capacity,
            });
        }
    }
    out
}

/// Whether `node` has room for `want` on every count [`fits_request`] checks
/// (pods, cpu, memory, ephemeral storage; a pod asking for scalar resources
/// takes the long way), decided without building its list: the common verdict
/// of a cycle, a node with room, in a few comparisons.
fn fits_plainly(want: &Resources, node: &NodeInfo) -> bool {
    let (have, used) = (&node.allocatable, &node.requested);
    // `short`'s test, negated: nothing asked, or no more than what is left.
    let room = |asked: i64, used: i64, have: i64| asked <= 0 || asked <= have - used;
    used.pods < have.pods
        && want.scalar.is_empty()
        && room(want.milli_cpu, used.milli_cpu, have.milli_cpu)
        && room(want.memory, used.memory, have.memory)
        && room(
            want.ephemeral_storage,
            used.ephemeral_storage,
            have.ephemeral_storage,
        )
}

/// The trace's detail of a failed fit: the filter's `reasons`, each lacking
/// resource among them with its numbers.
pub fn fit_detail(pod: &Pod, node: &NodeInfo, reasons: &[String]) -> FitDetail {
    let shortfalls = fits_request(&pod_requests(pod, false), node, &FitArgs::default())
        .into_iter()
        .filter(|i| reasons.contains(&i.reason))
        .map(|i| Shortfall {
            resource: i.resource,
            requested: i.requested,
            used: i.used,
            allocatable: i.allocatable,
        })
        .collect();
    FitDetail {
        reasons: reasons.to_vec(),
        shortfalls,
    }
}

/// The reasons a node does not fit the pod, with the default args.
pub fn insufficient(pod: &Pod, node: &NodeInfo) -> Vec<String> {
    fits_request(&pod_requests(pod, false), node, &FitArgs::default())
        .into_iter()
        .map(|i| i.reason)
        .collect()
}

impl FilterPlugin for NodeResourcesFit {
    fn name(&self) -> &'static str {
        NAME
    }

    fn pre_filter(&self, pod: &Pod, _nodes: &Snapshot<'_>, state: &mut CycleState) -> Status {
        state.write(PRE_FILTER_KEY, pod_requests(pod, false));
        Status::success()
    }

    fn filter(&self, state: &CycleState, pod: &Pod, node: &NodeInfo) -> Status {
        let computed;
        let want = if let Some(want) = state.read::<Resources>(PRE_FILTER_KEY) {
            want
        } else {
            computed = pod_requests(pod, false);
            &computed
        };
        self.verdict(want, node)
    }

    /// The pod's requests read from the cycle state once, not per node; a
    /// node with room passes in a few comparisons.
    fn cycle_filter<'a>(&'a self, state: &'a CycleState, pod: &'a Pod) -> NodeFilter<'a> {
        match state.read::<Resources>(PRE_FILTER_KEY) {
            Some(want) => Box::new(Fitting { plugin: self, want }),
            None => Box::new(PerNode {
                plugin: self,
                state,
                pod,
            }),
        }
    }
}

/// The Filter for one pod: its requests, as `PreFilter` stored them.
struct Fitting<'a> {
    plugin: &'a NodeResourcesFit,
    want: &'a Resources,
}

impl CycleFilter for Fitting<'_> {
    fn verdict(&self, node: &NodeInfo) -> Status {
        self.plugin.verdict(self.want, node)
    }

    #[inline]
    fn passes(&self, node: &NodeInfo) -> bool {
        fits_plainly(self.want, node) || self.lacks_nothing(node)
    }
}

impl Fitting<'_> {
    /// Whether [`fits_request`] finds nothing lacking: the long way, for a
    /// node [`fits_plainly`] did not settle (kept out of line so the common
    /// check stays small).
    #[cold]
    #[inline(never)]
    fn lacks_nothing(&self, node: &NodeInfo) -> bool {
        fits_request(self.want, node, &self.plugin.args).is_empty()
    }
}

impl NodeResourcesFit {
    /// Filter's verdict on `node` for a pod requesting `want`.
    fn verdict(&self, want: &Resources, node: &NodeInfo) -> Status {
        if fits_plainly(want, node) {
            return Status::success();
        }
        let lacking = fits_request(want, node, &self.args);
        if lacking.is_empty() {
            return Status::success();
        }
        let code = if lacking.iter().any(|i| i.unresolvable) {
            Code::UnschedulableAndUnresolvable
        } else {
            Code::Unschedulable
        };
        Status {
            code,
            reasons: lacking.into_iter().map(|i| i.reason).collect(),
        }
    }
}

/// The pod's request of each resource, in order (`calculatePodResourceRequestList`).
pub fn pod_request_list(pod: &Pod, resources: &[ResourceSpec], use_requested: bool) -> Vec<i64> {
    let requests = pod_requests(pod, !use_requested);
    resources
        .iter()
        .map(|r| match r.name.as_str() {
            "pods" => 0,
            name => requests.get(name),
        })
        .collect()
}

/// `a * b / c` without overflow, truncated toward zero as Go's integer division.
fn mul_div(a: i64, b: i64, c: i64) -> i64 {
    // In 64 bits when the product fits (the same quotient, far cheaper).
    if let Some(q) = a.checked_mul(b).and_then(|p| p.checked_div(c)) {
        return q;
    }
    let q = i128::from(a) * i128::from(b) / i128::from(c);
    i64::try_from(q).unwrap_or(if q < 0 { i64::MIN } else { i64::MAX })
}

/// `leastRequestedScore`: the share left free, 0..=100.
pub fn least_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    mul_div(capacity - requested, MAX_NODE_SCORE, capacity)
}

/// `mostRequestedScore`: the share in use, 0..=100 (over-requests count as full).
pub fn most_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 {
        return 0;
    }
    mul_div(requested.min(capacity), MAX_NODE_SCORE, capacity)
}

/// Weighted integer mean of `score` over the resources the node has
/// (`leastResourceScorer` / `mostResourceScorer`).
fn weighted(
    resources: &[ResourceSpec],
    requested: &[i64],
    allocatable: &[i64],
    score: fn(i64, i64) -> i64,
) -> i64 {
    let (mut total, mut weights) = (0i64, 0i64);
    for (i, r) in resources.iter().enumerate() {
        if allocatable[i] == 0 {
            continue;
        }
        total += score(requested[i], allocatable[i]) * r.weight;
        weights += r.weight;
    }
    if weights == 0 { 0 } else { total / weights }
}

/// `helper.BuildBrokenLinearFunction`: the shape's piecewise-linear value at
/// `p`, integer arithmetic, flat before the first point and after the last.
pub fn broken_linear(shape: &[ShapePoint], p: i64) -> i64 {
    for (i, point) in shape.iter().enumerate() {
        if p <= point.utilization {
            if i == 0 {
                return point.score;
            }
            let prev = shape[i - 1];
            return prev.score
                + mul_div(
                    point.score - prev.score,
                    p - prev.utilization,
                    point.utilization - prev.utilization,
                );
        }
    }
    shape.last().map_or(0, |p| p.score)
}

/// `requestedToCapacityRatioScorer`: the shape scaled to 0..=100, each
/// resource scored at its utilization, then the weighted mean (rounded) of
/// the resources scoring above zero.
pub fn requested_to_capacity_ratio(
    resources: &[ResourceSpec],
    shape: &[ShapePoint],
    requested: &[i64],
    allocatable: &[i64],
) -> i64 {
    ratio_of_scaled(resources, &scale_shape(shape), requested, allocatable)
}

/// One resource's score under `RequestedToCapacityRatio`: the scaled shape
/// at its utilization (full, or over capacity: the shape at 100).
fn ratio_resource_score(scaled: &[ShapePoint], req: i64, cap: i64) -> i64 {
    if cap == 0 || req > cap {
        return broken_linear(scaled, MAX_UTILIZATION);
    }
    let utilization = if req <= 0 {
        0
    } else {
        mul_div(req, MAX_UTILIZATION, cap)
    };
    broken_linear(scaled, utilization)
}

/// [`requested_to_capacity_ratio`] with the shape already scaled to 0..=100.
fn ratio_of_scaled(
    resources: &[ResourceSpec],
    scaled: &[ShapePoint],
    requested: &[i64],
    allocatable: &[i64],
) -> i64 {
    let resource_score = |req: i64, cap: i64| ratio_resource_score(scaled, req, cap);
    let (mut total, mut weights) = (0i64, 0i64);
    for (i, r) in resources.iter().enumerate() {
        if allocatable[i] == 0 {
            continue;
        }
        let score = resource_score(requested[i], allocatable[i]);
        if score > 0 {
            total += score * r.weight;
            weights += r.weight;
        }
    }
    if weights == 0 {
        return 0;
    }
    // math.Round(float64(nodeScore) / float64(weightSum)), half away from zero.
    (2 * total + weights) / (2 * weights)
}

impl NodeResourcesFit {
    /// The score from requested/allocatable pairs, by the configured strategy.
    pub fn score_of(&self, requested: &[i64], allocatable: &[i64]) -> i64 {
        let resources = &self.args.scoring_strategy.resources;
        match self.scoring.strategy {
            Strategy::MostAllocated => {
                weighted(resources, requested, allocatable, most_requested_score)
            }
            Strategy::RequestedToCapacityRatio => ratio_of_scaled(
                resources,
                &self.scoring.scaled_shape,
                requested,
                allocatable,
            ),
            Strategy::LeastAllocated => {
                weighted(resources, requested, allocatable, least_requested_score)
            }
        }
    }

    /// One resource's score by the configured strategy (before the weighted mean).
    fn resource_score(&self, requested: i64, allocatable: i64) -> i64 {
        match self.scoring.strategy {
            Strategy::MostAllocated => most_requested_score(requested, allocatable),
            Strategy::RequestedToCapacityRatio => {
                ratio_resource_score(&self.scoring.scaled_shape, requested, allocatable)
            }
            Strategy::LeastAllocated => least_requested_score(requested, allocatable),
        }
    }

    /// The strategy's score of `node` for a pod requesting `wants` (one
    /// amount per configured resource), with the non-zero request defaults.
    fn score_node(&self, wants: &[i64], node: &NodeInfo) -> i64 {
        with_pairs(
            node,
            &self.scoring.kinds,
            wants,
            false,
            |requested, allocatable| self.score_of(requested, allocatable),
        )
    }

    /// What `PreScore` stored (or the pod's requests, computed again without it).
    fn with_wants<R>(&self, state: &CycleState, pod: &Pod, f: impl FnOnce(&[i64]) -> R) -> R {
        match state.read::<Vec<i64>>(PRE_SCORE_KEY) {
            Some(wants) => f(wants),
            None => f(&pod_request_list(
                pod,
                &self.args.scoring_strategy.resources,
                false,
            )),
        }
    }
}

impl ScorePlugin for NodeResourcesFit {
    fn name(&self) -> &'static str {
        NAME
    }

    fn pre_score(
        &self,
        pod: &Pod,
        _feasible: &[&NodeInfo],
        _all: &Snapshot<'_>,
        state: &mut CycleState,
    ) -> Status {
        let resources = &self.args.scoring_strategy.resources;
        state.write(PRE_SCORE_KEY, pod_request_list(pod, resources, false));
        Status::success()
    }

    /// The strategy's score, with the non-zero request defaults for cpu and memory.
    fn score(&self, state: &CycleState, pod: &Pod, node: &NodeInfo) -> i64 {
        self.with_wants(state, pod, |wants| self.score_node(wants, node))
    }

    /// Each configured resource the node has: requested with the pod, of
    /// allocatable, its score and weight (the score is their weighted mean).
    fn resource_parts(
        &self,
        state: &CycleState,
        pod: &Pod,
        node: &NodeInfo,
    ) -> Option<Vec<crate::trace::ResourcePart>> {
        let resources = &self.args.scoring_strategy.resources;
        self.with_wants(state, pod, |wants| {
            with_pairs(
                node,
                &self.scoring.kinds,
                wants,
                false,
                |requested, allocatable| {
                    Some(
                        resources
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| allocatable[*i] != 0)
                            .map(|(i, r)| crate::trace::ResourcePart {
                                resource: r.name.clone(),
                                requested: requested[i],
                                allocatable: allocatable[i],
                                score: Some(self.resource_score(requested[i], allocatable[i])),
                                weight: r.weight,
                            })
                            .collect(),
                    )
                },
            )
        })
    }

    /// Every node scored with one read of the cycle state.
    fn score_nodes<'a>(
        &self,
        state: &CycleState,
        pod: &Pod,
        nodes: &[&'a NodeInfo],
        out: &mut Vec<NodeScore<'a>>,
    ) {
        self.with_wants(state, pod, |wants| {
            let kinds = &self.scoring.kinds;
            score_all(nodes, kinds, wants, false, |r, a| self.score_of(r, a), out);
        });
    }
}

#[cfg(test)]
#[allow(
    clippy::type_complexity,
    clippy::too_many_lines,
    clippy::similar_names,
    clippy::needless_pass_by_value
)]
pub(crate) mod tests;
