//! `NodeResourcesBalancedAllocation` (`pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go`):
//! prefers nodes whose configured resources (cpu and memory by default) would
//! be used in equal shares: `(1 - std) * 100` of the requested fractions.
//! A pod requesting none of them is not scored (`PreScore` answers Skip).

use std::sync::LazyLock;

use k8s_openapi::api::core::v1::Pod;

use super::node_resources_fit::resolved::{Kind, score_all, with_pairs};
use super::node_resources_fit::{ResourceSpec, default_resources, pod_request_list};
use crate::scheduler::config::{aggregate, child};
use crate::scheduler::framework::{
    CycleState, MAX_NODE_SCORE, NodeInfo, NodeScore, ScorePlugin, Snapshot, Status, score_each,
};

/// The plugin's name.
pub const NAME: &str = "NodeResourcesBalancedAllocation";
const PRE_SCORE_KEY: &str = "PreScoreNodeResourcesBalancedAllocation";

/// `NodeResourcesBalancedAllocationArgs`, defaulted (cpu and memory, weight 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalancedArgs {
    pub resources: Vec<ResourceSpec>,
}

impl Default for BalancedArgs {
    fn default() -> BalancedArgs {
        BalancedArgs {
            resources: default_resources(),
        }
    }
}

impl BalancedArgs {
    /// `ValidateNodeResourcesBalancedAllocationArgs` under `path` (empty for
    /// none): each error as `field.Error` prints it.
    pub fn errors(&self, path: &str) -> Vec<String> {
        let mut errs = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for (i, r) in self.resources.iter().enumerate() {
            let at = child(path, &format!("resources[{i}]"));
            if seen.contains(&r.name.as_str()) {
                errs.push(format!("{at}.name: Duplicate value: {:?}", r.name));
            } else {
                seen.push(&r.name);
            }
            if r.weight != 1 {
                errs.push(format!(
                    "{at}.weight: Invalid value: {}: must be 1",
                    r.weight
                ));
            }
        }
        errs
    }

    /// The aggregated validation error, if any (as the plugin's constructor reports it).
    pub fn validate(&self) -> Result<(), String> {
        aggregate(&self.errors("")).map_or(Ok(()), Err)
    }
}

/// The plugin with the default args, for the fixed plugin lists.
pub static DEFAULT: LazyLock<BalancedAllocation> = LazyLock::new(BalancedAllocation::default);

/// The plugin, with its args (and their resources resolved once).
#[derive(Debug, Clone)]
pub struct BalancedAllocation {
    pub args: BalancedArgs,
    kinds: Vec<Kind>,
}

impl Default for BalancedAllocation {
    fn default() -> BalancedAllocation {
        BalancedAllocation::new(BalancedArgs::default())
    }
}

impl BalancedAllocation {
    /// The plugin configured with `args` (validated by the caller); each
    /// resource's field is resolved here, as upstream's `NewBalancedAllocation`
    /// builds its scorer once (`noderesources/balanced_allocation.go`).
    pub fn new(args: BalancedArgs) -> BalancedAllocation {
        let kinds = Kind::all(&args.resources);
        BalancedAllocation { args, kinds }
    }

    /// The score of `node` for a pod requesting `wants`.
    fn score_node(&self, wants: &[i64], node: &NodeInfo) -> i64 {
        with_pairs(node, &self.kinds, wants, true, balanced_resource_score)
    }
}

/// `balancedResourceScorer`: the fractions requested/allocatable (capped at 1,
/// resources the node lacks left out); for two, std is half their difference,
/// for more the population standard deviation; then `(1 - std) * 100`, truncated.
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
pub fn balanced_resource_score(requested: &[i64], allocatable: &[i64]) -> i64 {
    // The fractions are walked again rather than collected: no allocation per node.
    let fractions = || {
        requested
            .iter()
            .zip(allocatable)
            .filter(|&(_, &alloc)| alloc != 0)
            .map(|(&req, &alloc)| (req as f64 / alloc as f64).min(1.0))
    };
    // Two resources the node has (cpu and memory, the default): no second walk.
    if let ([req_a, req_b], [alloc_a, alloc_b]) = (requested, allocatable)
        && *alloc_a != 0
        && *alloc_b != 0
    {
        let a = (*req_a as f64 / *alloc_a as f64).min(1.0);
        let b = (*req_b as f64 / *alloc_b as f64).min(1.0);
        return ((1.0 - ((a - b) / 2.0).abs()) * MAX_NODE_SCORE as f64) as i64;
    }
    let std = match fractions().count() {
        2 => {
            let mut two = fractions();
            let (a, b) = (two.next().unwrap_or(0.0), two.next().unwrap_or(0.0));
            ((a - b) / 2.0).abs()
        }
        n if n > 2 => {
            let mean = fractions().sum::<f64>() / n as f64;
            let sum: f64 = fractions().map(|f| (f - mean) * (f - mean)).sum();
            (sum / n as f64).sqrt()
        }
        _ => 0.0,
    };
    // Upstream truncates: `int64((1 - std) * float64(MaxNodeScore))`.
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// The two-resource case from fractions (kept for callers that have them).
pub fn balanced_score(cpu_fraction: f64, memory_fraction: f64) -> i64 {
    const SCALE: f64 = 1e9;
    #[allow(clippy::cast_possible_truncation)]
    let as_units = |f: f64| (f * SCALE) as i64;
    #[allow(clippy::cast_possible_truncation)]
    let whole = SCALE as i64;
    balanced_resource_score(
        &[as_units(cpu_fraction), as_units(memory_fraction)],
        &[whole, whole],
    )
}

impl ScorePlugin for BalancedAllocation {
    fn name(&self) -> &'static str {
        NAME
    }

    /// The pod's requests (without the non-zero defaults); Skip for a pod
    /// requesting none of the resources (kubernetes/kubernetes#129138).
    fn pre_score(
        &self,
        pod: &Pod,
        _feasible: &[&NodeInfo],
        _all: &Snapshot<'_>,
        state: &mut CycleState,
    ) -> Status {
        let requests = pod_request_list(pod, &self.args.resources, true);
        if requests.iter().all(|&r| r == 0) {
            return Status::skip("the pod requests none of the balanced resources");
        }
        state.write(PRE_SCORE_KEY, requests);
        Status::success()
    }

    fn score(&self, state: &CycleState, pod: &Pod, node: &NodeInfo) -> i64 {
        let computed;
        let wants = if let Some(w) = state.read::<Vec<i64>>(PRE_SCORE_KEY) {
            w
        } else {
            computed = pod_request_list(pod, &self.args.resources, true);
            if computed.iter().all(|&r| r == 0) {
                return 0;
            }
            &computed
        };
        self.score_node(wants, node)
    }

    /// Every node scored with one read of the cycle state.
    fn score_nodes<'a>(
        &self,
        state: &CycleState,
        pod: &Pod,
        nodes: &[&'a NodeInfo],
        out: &mut Vec<NodeScore<'a>>,
    ) {
        let Some(wants) = state.read::<Vec<i64>>(PRE_SCORE_KEY) else {
            score_each(nodes.iter().copied(), out, |info| {
                self.score(state, pod, info)
            });
            return;
        };
        score_all(
            nodes,
            &self.kinds,
            wants,
            true,
            balanced_resource_score,
            out,
        );
    }

    /// Each balanced resource the node has: requested with the pod, of
    /// allocatable (their fractions' spread is the score); no score of its own.
    fn resource_parts(
        &self,
        state: &CycleState,
        _pod: &Pod,
        node: &NodeInfo,
    ) -> Option<Vec<crate::trace::ResourcePart>> {
        let wants = state.read::<Vec<i64>>(PRE_SCORE_KEY)?;
        with_pairs(node, &self.kinds, wants, true, |requested, allocatable| {
            Some(
                self.args
                    .resources
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| allocatable[*i] != 0)
                    .map(|(i, r)| crate::trace::ResourcePart {
                        resource: r.name.clone(),
                        requested: requested[i],
                        allocatable: allocatable[i],
                        score: None,
                        weight: r.weight,
                    })
                    .collect(),
            )
        })
    }
}

#[cfg(test)]
#[allow(
    clippy::type_complexity,
    clippy::too_many_lines,
    clippy::similar_names,
    clippy::needless_pass_by_value
)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::scheduler::framework::Code;
    use crate::scheduler::plugins::node_resources_fit::tests::{node_info, pod};

    fn run(args: &BalancedArgs, want: &Pod, node: &NodeInfo) -> Option<i64> {
        let plugin = BalancedAllocation::new(args.clone());
        let mut state = CycleState::default();
        let status = plugin.pre_score(
            want,
            &[node],
            &Snapshot::new(std::slice::from_ref(node)),
            &mut state,
        );
        (status.code != Code::Skip).then(|| plugin.score(&state, want, node))
    }

    #[test]
    fn node_resources_balanced_allocation() {
        // balanced_allocation_test.go, TestNodeResourcesBalancedAllocation
        // (cpu written in whole cores as upstream's tables do; the fractions are the same).
        let cap = |cpu: &str, mem: &str| json!({"cpu": cpu, "memory": mem, "pods": "110"});
        let requested = pod(&[
            json!({"cpu": "1000", "memory": "2000"}),
            json!({"cpu": "2000", "memory": "3000"}),
        ]);
        let cpu_only = pod(&[json!({"cpu": "1000"}), json!({"cpu": "2000"})]);
        let cpu_and_memory = pod(&[
            json!({"cpu": "1000", "memory": "2000"}),
            json!({"cpu": "2000", "memory": "3000"}),
        ]);
        let cases: Vec<(&str, Pod, serde_json::Value, Vec<Pod>, Option<i64>)> = vec![
            // A best-effort pod: PreScore answers Skip.
            (
                "nothing scheduled, nothing requested",
                pod(&[]),
                cap("4000", "10000"),
                vec![],
                None,
            ),
            // cpu 3000/4000 = 0.75, memory 5000/10000 = 0.5: std 0.125, score 87.
            (
                "differently sized nodes: node1",
                requested.clone(),
                cap("4000", "10000"),
                vec![],
                Some(87),
            ),
            (
                "differently sized nodes: node2",
                requested.clone(),
                cap("6000", "10000"),
                vec![],
                Some(100),
            ),
            // cpu 6000/10000 = 0.6, memory 5000/20000 = 0.25: std 0.175, score 82.
            (
                "pods scheduled with resources: node1",
                requested.clone(),
                cap("10000", "20000"),
                vec![cpu_only.clone()],
                Some(82),
            ),
            // cpu 6000/10000 = 0.6, memory 10000/20000 = 0.5: std 0.05, score 95.
            (
                "pods scheduled with resources: node2",
                requested.clone(),
                cap("10000", "20000"),
                vec![cpu_and_memory.clone()],
                Some(95),
            ),
            // Requested above capacity counts as a fraction of 1: cpu 1, memory 0.5 → 75.
            (
                "requested resources exceed node capacity",
                requested.clone(),
                cap("4000", "10000"),
                vec![cpu_only],
                Some(75),
            ),
        ];
        for (name, want, alloc, existing, expected) in cases {
            let node = node_info(alloc, &existing);
            assert_eq!(
                run(&BalancedArgs::default(), &want, &node),
                expected,
                "{name}"
            );
        }
    }

    #[test]
    fn three_resources_use_the_standard_deviation() {
        // balanced_allocation_test.go, "include scalar resource on a node for
        // balanced resource allocation": fractions 0.5, 0.25, 0.125 give
        // std ≈ 0.1559, score 84.
        let args = BalancedArgs {
            resources: vec![
                ResourceSpec::new("cpu", 1),
                ResourceSpec::new("memory", 1),
                ResourceSpec::new("nvidia.com/gpu", 1),
            ],
        };
        let want = pod(&[json!({"cpu": "2000", "memory": "2000", "nvidia.com/gpu": "1"})]);
        let node = node_info(
            json!({"cpu": "4000", "memory": "8000", "nvidia.com/gpu": "8", "pods": "110"}),
            &[],
        );
        assert_eq!(run(&args, &want, &node), Some(84));
        // A node without the GPU scores on cpu and memory only: 0.5, 0.25 → 87.
        let plain = node_info(json!({"cpu": "4000", "memory": "8000", "pods": "110"}), &[]);
        assert_eq!(run(&args, &want, &plain), Some(87));
    }

    #[test]
    fn equal_shares_score_highest() {
        assert_eq!(balanced_score(0.75, 0.5), 87);
        assert_eq!(balanced_score(0.5, 0.5), 100);
        assert_eq!(balanced_score(0.0, 0.0), 100);
    }

    #[test]
    fn args_validation() {
        // validation_pluginargs_test.go, TestValidateNodeResourcesBalancedAllocationArgs.
        let args = BalancedArgs {
            resources: vec![
                ResourceSpec::new("cpu", 1),
                ResourceSpec::new("cpu", 1),
                ResourceSpec::new("memory", 2),
            ],
        };
        assert_eq!(
            args.validate(),
            Err("[resources[1].name: Duplicate value: \"cpu\", resources[2].weight: Invalid value: 2: must be 1]".to_owned())
        );
        assert_eq!(
            args.errors("profiles[0].pluginConfig[0].args")[1],
            "profiles[0].pluginConfig[0].args.resources[2].weight: Invalid value: 2: must be 1"
        );
        assert_eq!(BalancedArgs::default().validate(), Ok(()));
    }
}
