//! `NodeResourcesFit` (`pkg/scheduler/framework/plugins/noderesources/fit.go`):
//! a node fits when its allocatable resources cover what its pods already
//! request plus this pod's requests, extended resources included; nodes are
//! scored by the configured strategy (`least_allocated.go`, `most_allocated.go`,
//! `requested_to_capacity_ratio.go`, over `resource_allocation.go`'s per-resource
//! requested/allocatable pairs). Args and their validation follow
//! `pkg/scheduler/apis/config/types_pluginargs.go` and
//! `validation/validation_pluginargs.go` (`ValidateNodeResourcesFitArgs`).

use std::sync::LazyLock;

use k8s_openapi::api::core::v1::Pod;

use crate::engine::scheduler::config::{aggregate, child};
use crate::engine::scheduler::framework::{
    Code, CycleState, FilterPlugin, MAX_NODE_SCORE, NodeInfo, ScorePlugin, Status,
};
use crate::engine::scheduler::resources::{
    Resources, is_extended_resource_name, is_scalar_resource_name, pod_requests,
};

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

/// The plugin, with its args.
#[derive(Debug, Clone, Default)]
pub struct NodeResourcesFit {
    pub args: FitArgs,
}

impl NodeResourcesFit {
    /// The plugin configured with `args` (validated by the caller).
    pub fn new(args: FitArgs) -> NodeResourcesFit {
        NodeResourcesFit { args }
    }
}

/// A resource the node lacks (`InsufficientResource`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insufficient {
    pub reason: String,
    /// The pod asks for more than the node has at all: preemption cannot help.
    pub unresolvable: bool,
}

fn short(reason: &str, requested: i64, used: i64, capacity: i64) -> Option<Insufficient> {
    (requested > 0 && requested > capacity - used).then(|| Insufficient {
        reason: reason.to_owned(),
        unresolvable: requested > capacity,
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
        });
    }
    if want.requests_nothing() {
        return out;
    }
    out.extend(short(
        "Insufficient cpu",
        want.milli_cpu,
        used.milli_cpu,
        have.milli_cpu,
    ));
    out.extend(short(
        "Insufficient memory",
        want.memory,
        used.memory,
        have.memory,
    ));
    out.extend(short(
        "Insufficient ephemeral-storage",
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
            });
        }
    }
    out
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

    fn pre_filter(&self, pod: &Pod, _nodes: &[NodeInfo], state: &mut CycleState) -> Status {
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

/// `calculateResourceAllocatableRequest`: the node's allocatable amount of
/// `resource` and what would be requested with the pod's `pod_request` added.
/// cpu and memory count the non-zero defaults unless `use_requested`; a scalar
/// resource the pod does not request is left out (`(0, 0)`).
pub fn allocatable_request(
    node: &NodeInfo,
    resource: &str,
    pod_request: i64,
    use_requested: bool,
) -> (i64, i64) {
    let requested = if use_requested {
        &node.requested
    } else {
        &node.non_zero_requested
    };
    if pod_request == 0 && is_scalar_resource_name(resource) {
        return (0, 0);
    }
    match resource {
        "cpu" => (
            node.allocatable.milli_cpu,
            requested.milli_cpu + pod_request,
        ),
        "memory" => (node.allocatable.memory, requested.memory + pod_request),
        "ephemeral-storage" => (
            node.allocatable.ephemeral_storage,
            node.requested.ephemeral_storage + pod_request,
        ),
        other => match node.allocatable.scalar.get(other) {
            Some(&alloc) => (
                alloc,
                node.requested.scalar.get(other).copied().unwrap_or(0) + pod_request,
            ),
            None => (0, 0),
        },
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

/// Requested and allocatable per resource, with resources the node lacks left at 0
/// (`resourceAllocationScorer.score`).
pub fn requested_allocatable(
    node: &NodeInfo,
    resources: &[ResourceSpec],
    pod_requests: &[i64],
    use_requested: bool,
) -> (Vec<i64>, Vec<i64>) {
    let mut requested = vec![0; resources.len()];
    let mut allocatable = vec![0; resources.len()];
    for (i, r) in resources.iter().enumerate() {
        let want = pod_requests.get(i).copied().unwrap_or(0);
        let (alloc, req) = allocatable_request(node, &r.name, want, use_requested);
        if alloc != 0 {
            allocatable[i] = alloc;
            requested[i] = req;
        }
    }
    (requested, allocatable)
}

/// `a * b / c` without overflow, truncated toward zero as Go's integer division.
fn mul_div(a: i64, b: i64, c: i64) -> i64 {
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
    let scaled: Vec<ShapePoint> = shape
        .iter()
        .map(|p| ShapePoint {
            utilization: p.utilization,
            score: p.score * (MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE),
        })
        .collect();
    let resource_score = |req: i64, cap: i64| {
        if cap == 0 || req > cap {
            return broken_linear(&scaled, MAX_UTILIZATION);
        }
        let utilization = if req <= 0 {
            0
        } else {
            mul_div(req, MAX_UTILIZATION, cap)
        };
        broken_linear(&scaled, utilization)
    };
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
        let strategy = &self.args.scoring_strategy;
        match strategy.kind.as_str() {
            "MostAllocated" => weighted(
                &strategy.resources,
                requested,
                allocatable,
                most_requested_score,
            ),
            "RequestedToCapacityRatio" => requested_to_capacity_ratio(
                &strategy.resources,
                strategy.shape.as_deref().unwrap_or_default(),
                requested,
                allocatable,
            ),
            _ => weighted(
                &strategy.resources,
                requested,
                allocatable,
                least_requested_score,
            ),
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
        _all: &[NodeInfo],
        state: &mut CycleState,
    ) -> Status {
        let resources = &self.args.scoring_strategy.resources;
        state.write(PRE_SCORE_KEY, pod_request_list(pod, resources, false));
        Status::success()
    }

    /// The strategy's score, with the non-zero request defaults for cpu and memory.
    fn score(&self, state: &CycleState, pod: &Pod, node: &NodeInfo) -> i64 {
        let resources = &self.args.scoring_strategy.resources;
        let computed;
        let wants = if let Some(w) = state.read::<Vec<i64>>(PRE_SCORE_KEY) {
            w
        } else {
            computed = pod_request_list(pod, resources, false);
            &computed
        };
        let (requested, allocatable) = requested_allocatable(node, resources, wants, false);
        self.score_of(&requested, &allocatable)
    }
}

#[cfg(test)]
#[allow(
    clippy::type_complexity,
    clippy::too_many_lines,
    clippy::similar_names,
    clippy::needless_pass_by_value
)]
pub(crate) mod tests {
    use std::sync::Arc;

    use k8s_openapi::api::core::v1::Node;
    use serde_json::json;

    use super::*;
    use crate::engine::scheduler::resources::allocatable;

    /// A node with `alloc` (`cpu` in cores as upstream's tests write it) and pods.
    pub(crate) fn node_info(alloc: serde_json::Value, pods: &[Pod]) -> NodeInfo {
        let node: Node = serde_json::from_value(
            json!({"metadata": {"name": "n"}, "status": {"allocatable": alloc}}),
        )
        .unwrap();
        let mut requested = Resources::default();
        let mut non_zero = Resources::default();
        for p in pods {
            requested.add(&pod_requests(p, false));
            non_zero.add(&pod_requests(p, true));
        }
        NodeInfo {
            allocatable: allocatable(&node),
            node: Arc::new(node),
            pods: pods.iter().cloned().map(Arc::new).collect(),
            requested,
            non_zero_requested: non_zero,
        }
    }

    /// A pod whose containers request `requests` each (upstream's `st.MakePod().Req(..)`).
    pub(crate) fn pod(requests: &[serde_json::Value]) -> Pod {
        let containers: Vec<_> = requests
            .iter()
            .enumerate()
            .map(|(i, r)| json!({"name": format!("c{i}"), "resources": {"requests": r}}))
            .collect();
        serde_json::from_value(
            json!({"metadata": {"name": "p"}, "spec": {"containers": containers}}),
        )
        .unwrap()
    }

    fn filter(args: &FitArgs, want: &Pod, node: &NodeInfo) -> Status {
        let plugin = NodeResourcesFit::new(args.clone());
        let mut state = CycleState::default();
        plugin.pre_filter(want, std::slice::from_ref(node), &mut state);
        plugin.filter(&state, want, node)
    }

    #[test]
    fn enough_requests() {
        // fit_test.go, TestEnoughRequests (representative rows): node allocatable
        // cpu 10, memory 20, pods 32, example.com/aaa 5, kubernetes.io/something 5.
        let alloc = json!({"cpu": "10m", "memory": "20", "pods": "32",
            "example.com/aaa": "5", "kubernetes.io/something": "5", "hugepages-2Mi": "5"});
        let used = |cpu: &str, mem: &str| pod(&[json!({"cpu": cpu, "memory": mem})]);
        let cases: Vec<(&str, Pod, Vec<Pod>, FitArgs, Code, Vec<&str>)> = vec![
            (
                "no resources requested always fits",
                pod(&[]),
                vec![used("10m", "20")],
                FitArgs::default(),
                Code::Success,
                vec![],
            ),
            (
                "too many resources fails",
                pod(&[json!({"cpu": "1m", "memory": "1"})]),
                vec![used("10m", "20")],
                FitArgs::default(),
                Code::Unschedulable,
                vec!["Insufficient cpu", "Insufficient memory"],
            ),
            (
                "equal edge case",
                pod(&[json!({"cpu": "5m", "memory": "4"})]),
                vec![used("5m", "16")],
                FitArgs::default(),
                Code::Success,
                vec![],
            ),
            (
                "extended resource capacity enforced",
                pod(&[json!({"example.com/aaa": "10"})]),
                vec![used("0", "0")],
                FitArgs::default(),
                Code::UnschedulableAndUnresolvable,
                vec!["Insufficient example.com/aaa"],
            ),
            (
                "extended resource allocatable enforced",
                pod(&[json!({"example.com/aaa": "1"})]),
                vec![pod(&[json!({"example.com/aaa": "5"})])],
                FitArgs::default(),
                Code::Unschedulable,
                vec!["Insufficient example.com/aaa"],
            ),
            (
                "extended resource allocatable enforced for unknown resource",
                pod(&[json!({"example.com/bbb": "1"})]),
                vec![used("0", "0")],
                FitArgs::default(),
                Code::UnschedulableAndUnresolvable,
                vec!["Insufficient example.com/bbb"],
            ),
            (
                "kubernetes.io resource capacity enforced",
                pod(&[json!({"kubernetes.io/something": "10"})]),
                vec![used("0", "0")],
                FitArgs::default(),
                Code::UnschedulableAndUnresolvable,
                vec!["Insufficient kubernetes.io/something"],
            ),
            (
                "hugepages resource allocatable enforced",
                pod(&[json!({"hugepages-2Mi": "6"})]),
                vec![used("0", "0")],
                FitArgs::default(),
                Code::UnschedulableAndUnresolvable,
                vec!["Insufficient hugepages-2Mi"],
            ),
            (
                "skip checking ignored extended resource",
                pod(&[json!({"example.com/bbb": "1"})]),
                vec![used("0", "0")],
                FitArgs {
                    ignored_resources: vec!["example.com/bbb".into()],
                    ..FitArgs::default()
                },
                Code::Success,
                vec![],
            ),
            (
                "skip checking ignored extended resource via resource groups",
                pod(&[json!({"example.com/bbb": "1"})]),
                vec![used("0", "0")],
                FitArgs {
                    ignored_resource_groups: vec!["example.com".into()],
                    ..FitArgs::default()
                },
                Code::Success,
                vec![],
            ),
            (
                "skip checking ignored resource groups only for extended resources",
                pod(&[json!({"kubernetes.io/something": "10"})]),
                vec![used("0", "0")],
                FitArgs {
                    ignored_resource_groups: vec!["kubernetes.io".into()],
                    ..FitArgs::default()
                },
                Code::UnschedulableAndUnresolvable,
                vec!["Insufficient kubernetes.io/something"],
            ),
            (
                "cpu larger than the node is unresolvable",
                pod(&[json!({"cpu": "11m"})]),
                vec![],
                FitArgs::default(),
                Code::UnschedulableAndUnresolvable,
                vec!["Insufficient cpu"],
            ),
        ];
        for (name, want, existing, args, code, reasons) in cases {
            let node = node_info(alloc.clone(), &existing);
            let status = filter(&args, &want, &node);
            assert_eq!(status.code, code, "{name}");
            assert_eq!(status.reasons, reasons, "{name}");
        }
    }

    #[test]
    fn too_many_pods() {
        // fit_test.go, TestNotEnoughRequests-style row: pods 1 with one already there.
        let node = node_info(
            json!({"cpu": "10m", "memory": "20", "pods": "1"}),
            &[pod(&[])],
        );
        let status = filter(&FitArgs::default(), &pod(&[]), &node);
        assert_eq!(status.reasons, ["Too many pods"]);
        assert_eq!(status.code, Code::Unschedulable);
    }

    fn score(args: FitArgs, want: &Pod, node: &NodeInfo) -> i64 {
        let plugin = NodeResourcesFit::new(args);
        let mut state = CycleState::default();
        plugin.pre_score(want, &[node], std::slice::from_ref(node), &mut state);
        plugin.score(&state, want, node)
    }

    fn strategy(kind: &str, resources: Vec<ResourceSpec>, shape: Option<&[(i64, i64)]>) -> FitArgs {
        FitArgs {
            scoring_strategy: ScoringStrategy {
                kind: kind.into(),
                resources,
                shape: shape.map(|s| {
                    s.iter()
                        .map(|&(utilization, score)| ShapePoint { utilization, score })
                        .collect()
                }),
            },
            ..FitArgs::default()
        }
    }

    /// Upstream's scoring tables give cpu in whole cores ("4000"); the ratios are the same.
    fn cap(cpu: &str, memory: &str) -> serde_json::Value {
        json!({"cpu": cpu, "memory": memory, "pods": "110"})
    }

    #[test]
    fn least_allocated_scoring_strategy() {
        let none = pod(&[]);
        let cpu_only = pod(&[json!({"cpu": "3000", "memory": "0"})]);
        // least_allocated_test.go, TestLeastAllocatedScoringStrategy.
        let two = pod(&[
            json!({"cpu": "1000", "memory": "2000"}),
            json!({"cpu": "2000", "memory": "3000"}),
        ]);
        let existing = |cpu: &str, mem: &str| pod(&[json!({"cpu": cpu, "memory": mem})]);
        let weighted = vec![ResourceSpec::new("memory", 2), ResourceSpec::new("cpu", 1)];
        let cases: Vec<(
            &str,
            &Pod,
            serde_json::Value,
            Vec<Pod>,
            Vec<ResourceSpec>,
            i64,
        )> = vec![
            (
                "nothing scheduled, nothing requested",
                &none,
                cap("4000", "10000"),
                vec![],
                default_resources(),
                100,
            ),
            (
                "differently sized nodes: node1",
                &two,
                cap("4000", "10000"),
                vec![],
                default_resources(),
                37,
            ),
            (
                "differently sized nodes: node2",
                &two,
                cap("6000", "10000"),
                vec![],
                default_resources(),
                50,
            ),
            (
                "pods scheduled with resources: node1",
                &none,
                cap("10000", "20000"),
                vec![existing("3000", "0"), existing("3000", "0")],
                default_resources(),
                70,
            ),
            (
                "pods scheduled with resources: node2",
                &none,
                cap("10000", "20000"),
                vec![existing("3000", "0"), existing("3000", "5000")],
                default_resources(),
                57,
            ),
            (
                "resources requested, pods scheduled: node2",
                &two,
                cap("10000", "50000"),
                vec![existing("3000", "5000")],
                default_resources(),
                60,
            ),
            (
                "requested resources exceed node capacity",
                &cpu_only,
                cap("4000", "10000"),
                vec![existing("3000", "5000")],
                default_resources(),
                25,
            ),
            (
                "different weight on cpu and memory",
                &two,
                cap("4000", "10000"),
                vec![],
                weighted,
                41,
            ),
        ];
        for (name, want, alloc, existing, resources, expected) in cases {
            let node = node_info(alloc, &existing);
            assert_eq!(
                score(strategy("LeastAllocated", resources, None), want, &node),
                expected,
                "{name}"
            );
        }
    }

    #[test]
    fn least_allocated_honors_extended_resources_only_when_requested() {
        // least_allocated_test.go: "bypass extended resource if the pod does not
        // request" (50) and "honor extended resource if the pod requests" (60).
        let resources = vec![
            ResourceSpec::new("cpu", 1),
            ResourceSpec::new("memory", 1),
            ResourceSpec::new("extended.resource.dra.io/something", 1),
        ];
        let two = pod(&[
            json!({"cpu": "1000", "memory": "2000"}),
            json!({"cpu": "2000", "memory": "3000"}),
        ]);
        let node = node_info(
            json!({"cpu": "6000", "memory": "10000", "pods": "110", "extended.resource.dra.io/something": "10"}),
            &[],
        );
        assert_eq!(
            score(
                strategy("LeastAllocated", resources.clone(), None),
                &two,
                &node
            ),
            50
        );
        let with_ext = pod(&[
            json!({"cpu": "1000", "memory": "2000", "extended.resource.dra.io/something": "2"}),
            json!({"cpu": "2000", "memory": "3000"}),
        ]);
        assert_eq!(
            score(
                strategy("LeastAllocated", resources, None),
                &with_ext,
                &node
            ),
            60
        );
    }

    #[test]
    fn most_allocated_scoring_strategy() {
        let none = pod(&[]);
        let big = pod(&[
            json!({"cpu": "2000", "memory": "4000"}),
            json!({"cpu": "3000", "memory": "5000"}),
        ]);
        // most_allocated_test.go, TestMostAllocatedScoringStrategy.
        let two = pod(&[
            json!({"cpu": "1000", "memory": "2000"}),
            json!({"cpu": "2000", "memory": "3000"}),
        ]);
        let existing = |cpu: &str, mem: &str| pod(&[json!({"cpu": cpu, "memory": mem})]);
        let cases: Vec<(
            &str,
            &Pod,
            serde_json::Value,
            Vec<Pod>,
            Vec<ResourceSpec>,
            i64,
        )> = vec![
            // Non-zero defaults only: 100m of 4000 cores and 200Mi of 10000 bytes → (0 + 100) / 2.
            (
                "nothing scheduled, nothing requested",
                &none,
                cap("4000", "10000"),
                vec![],
                default_resources(),
                0,
            ),
            (
                "differently sized nodes: node1",
                &two,
                cap("4000", "10000"),
                vec![],
                default_resources(),
                62,
            ),
            (
                "differently sized nodes: node2",
                &two,
                cap("6000", "10000"),
                vec![],
                default_resources(),
                50,
            ),
            (
                "pods scheduled with resources: node1",
                &none,
                cap("10000", "20000"),
                vec![existing("3000", "0"), existing("3000", "0")],
                default_resources(),
                30,
            ),
            (
                "pods scheduled with resources: node2",
                &none,
                cap("10000", "20000"),
                vec![existing("3000", "0"), existing("3000", "5000")],
                default_resources(),
                42,
            ),
            (
                "resources requested, pods scheduled: node1",
                &two,
                cap("10000", "20000"),
                vec![existing("3000", "0")],
                default_resources(),
                42,
            ),
            (
                "resources requested with more than the node",
                &big,
                cap("4000", "10000"),
                vec![],
                default_resources(),
                95,
            ),
            (
                "different weight on cpu and memory",
                &two,
                cap("4000", "10000"),
                vec![],
                vec![ResourceSpec::new("memory", 2), ResourceSpec::new("cpu", 1)],
                58,
            ),
        ];
        for (name, want, alloc, existing, resources, expected) in cases {
            let node = node_info(alloc, &existing);
            assert_eq!(
                score(strategy("MostAllocated", resources, None), want, &node),
                expected,
                "{name}"
            );
        }
    }

    #[test]
    fn requested_to_capacity_ratio_scoring_strategy() {
        let none = pod(&[]);
        // requested_to_capacity_ratio_test.go, TestRequestedToCapacityRatioScoringStrategy,
        // shape {0, 10}, {100, 0}.
        let shape: &[(i64, i64)] = &[(0, 10), (100, 0)];
        let two = pod(&[
            json!({"cpu": "1000", "memory": "2000"}),
            json!({"cpu": "2000", "memory": "3000"}),
        ]);
        let existing =
            |cpu: &str, mem: &str, n: usize| vec![pod(&[json!({"cpu": cpu, "memory": mem})]); n];
        let cases: Vec<(&str, &Pod, serde_json::Value, Vec<Pod>, i64)> = vec![
            (
                "nothing scheduled, nothing requested",
                &none,
                cap("4000", "10000"),
                existing("0", "0", 2),
                100,
            ),
            (
                "differently sized nodes: node1",
                &two,
                cap("4000", "10000"),
                vec![],
                38,
            ),
            (
                "differently sized nodes: node2",
                &two,
                cap("6000", "10000"),
                vec![],
                50,
            ),
            (
                "pods scheduled with resources: node1",
                &none,
                cap("4000", "10000"),
                existing("3000", "5000", 1),
                38,
            ),
            (
                "pods scheduled with resources: node2",
                &none,
                cap("6000", "10000"),
                existing("3000", "5000", 1),
                50,
            ),
        ];
        for (name, want, alloc, existing, expected) in cases {
            let node = node_info(alloc, &existing);
            let args = strategy("RequestedToCapacityRatio", default_resources(), Some(shape));
            assert_eq!(score(args, want, &node), expected, "{name}");
        }
    }

    #[test]
    fn resource_bin_packing_single_extended() {
        // requested_to_capacity_ratio_test.go, TestResourceBinPackingSingleExtended:
        // intel.com/foo weight 1, shape {0, 0}, {100, 1}.
        let args = || {
            strategy(
                "RequestedToCapacityRatio",
                vec![ResourceSpec::new("intel.com/foo", 1)],
                Some(&[(0, 0), (100, 1)]),
            )
        };
        let node = |foo: &str, pods: &[Pod]| {
            node_info(
                json!({"cpu": "4", "memory": "10000Mi", "pods": "110", "intel.com/foo": foo}),
                pods,
            )
        };
        let two = pod(&[json!({"intel.com/foo": "2"})]);
        let four = pod(&[json!({"intel.com/foo": "4"})]);
        assert_eq!(score(args(), &pod(&[]), &node("8", &[])), 0);
        assert_eq!(score(args(), &two, &node("8", &[])), 2);
        assert_eq!(score(args(), &two, &node("4", &[])), 5);
        assert_eq!(
            score(args(), &two, &node("4", std::slice::from_ref(&two))),
            10
        );
        assert_eq!(score(args(), &four, &node("8", &[])), 5);
    }

    #[test]
    fn broken_linear_function() {
        // requested_to_capacity_ratio_test.go, TestBrokenLinearFunction.
        let shape = |points: &[(i64, i64)]| -> Vec<ShapePoint> {
            points
                .iter()
                .map(|&(utilization, score)| ShapePoint { utilization, score })
                .collect()
        };
        let cases: [(Vec<ShapePoint>, &[(i64, i64)]); 2] = [
            (
                shape(&[(10, 1), (90, 9)]),
                &[
                    (-10, 1),
                    (0, 1),
                    (9, 1),
                    (10, 1),
                    (15, 1),
                    (19, 1),
                    (20, 2),
                    (89, 8),
                    (90, 9),
                    (99, 9),
                    (100, 9),
                    (110, 9),
                ],
            ),
            (
                shape(&[(0, 2), (40, 10), (100, 0)]),
                &[
                    (-10, 2),
                    (0, 2),
                    (20, 6),
                    (30, 8),
                    (40, 10),
                    (70, 5),
                    (100, 0),
                    (110, 0),
                ],
            ),
        ];
        for (points, assertions) in cases {
            for &(p, expected) in assertions {
                assert_eq!(broken_linear(&points, p), expected, "{points:?} at {p}");
            }
        }
    }

    #[test]
    fn args_validation() {
        // validation_pluginargs_test.go, TestValidateFitArgs (messages as field.Error prints them).
        let mut bad_weight = FitArgs::default();
        bad_weight.scoring_strategy.resources = vec![
            ResourceSpec::new("memory", 1),
            ResourceSpec::new("cpu", 101),
        ];
        let mut zero = FitArgs::default();
        zero.scoring_strategy.resources =
            vec![ResourceSpec::new("memory", -1), ResourceSpec::new("cpu", 0)];
        let cases: Vec<(FitArgs, &str)> = vec![
            (
                bad_weight,
                "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]",
            ),
            (
                zero,
                "[scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in valid range (0, 100], \
                    scoringStrategy.resources[1].weight: Invalid value: 0: resource weight of cpu not in valid range (0, 100]]",
            ),
            (
                strategy("Invalid", default_resources(), None),
                "scoringStrategy.type: Unsupported value: \"Invalid\": supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"",
            ),
            (
                strategy("RequestedToCapacityRatio", default_resources(), None),
                "scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio",
            ),
            (
                strategy("LeastAllocated", default_resources(), Some(&[(0, 1)])),
                "scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio",
            ),
            (
                strategy("RequestedToCapacityRatio", default_resources(), Some(&[])),
                "scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified",
            ),
            (
                strategy(
                    "RequestedToCapacityRatio",
                    default_resources(),
                    Some(&[(10, 1), (5, 11)]),
                ),
                "[scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 5: values must be sorted in increasing order, \
                 scoringStrategy.requestedToCapacityRatio.shape[1].score: Invalid value: 11: not in valid range [0, 10]]",
            ),
            (
                FitArgs {
                    ignored_resource_groups: vec!["example.com/aaa".into()],
                    ..FitArgs::default()
                },
                "ignoredResourceGroups[0]: Invalid value: \"example.com/aaa\": resource group name can't contain '/'",
            ),
        ];
        for (args, message) in cases {
            assert_eq!(
                args.validate(),
                Err(message
                    .replace("                    ", "")
                    .replace("                 ", ""))
            );
        }
        assert_eq!(FitArgs::default().validate(), Ok(()));
    }
}
