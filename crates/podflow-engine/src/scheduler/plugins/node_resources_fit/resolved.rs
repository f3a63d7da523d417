//! A scoring configuration resolved once, when the plugin is built: the
//! strategy as an enum and each resource as the field of `framework.Resource`
//! it reads, so that scoring a node compares no strings. Upstream does the same
//! in `NewFit` (`pkg/scheduler/framework/plugins/noderesources/fit.go`, the
//! scorer picked once from `scoringStrategyTypeMap`) and reads
//! `framework.Resource`'s `MilliCPU`/`Memory`/`EphemeralStorage` fields by
//! resource (`resource_allocation.go`, `calculateResourceAllocatableRequest`).

use super::{ResourceSpec, ShapePoint};
use crate::scheduler::framework::{MAX_NODE_SCORE, NodeInfo, NodeScore};
use crate::scheduler::resources::is_scalar_resource_name;

/// Which field of the node's counts a resource name reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Cpu,
    Memory,
    EphemeralStorage,
    /// Any other name, looked up among the scalar resources; `scalar` is
    /// whether it is a scalar resource name (left out when the pod asks for none).
    Other {
        name: String,
        scalar: bool,
    },
}

impl Kind {
    /// The kind of the resource `name`.
    pub fn of(name: &str) -> Kind {
        match name {
            "cpu" => Kind::Cpu,
            "memory" => Kind::Memory,
            "ephemeral-storage" => Kind::EphemeralStorage,
            other => Kind::Other {
                name: other.to_owned(),
                scalar: is_scalar_resource_name(other),
            },
        }
    }

    /// The kinds of `resources`, in order.
    pub fn all(resources: &[ResourceSpec]) -> Vec<Kind> {
        resources.iter().map(|r| Kind::of(&r.name)).collect()
    }

    /// `calculateResourceAllocatableRequest`: the node's allocatable amount of
    /// this resource and what would be requested with `pod_request` added;
    /// cpu and memory count the non-zero defaults unless `use_requested`.
    pub fn allocatable_request(
        &self,
        node: &NodeInfo,
        pod_request: i64,
        use_requested: bool,
    ) -> (i64, i64) {
        let requested = if use_requested {
            &node.requested
        } else {
            &node.non_zero_requested
        };
        match self {
            Kind::Cpu => (
                node.allocatable.milli_cpu,
                requested.milli_cpu + pod_request,
            ),
            Kind::Memory => (node.allocatable.memory, requested.memory + pod_request),
            Kind::EphemeralStorage => (
                node.allocatable.ephemeral_storage,
                node.requested.ephemeral_storage + pod_request,
            ),
            Kind::Other { scalar: true, .. } if pod_request == 0 => (0, 0),
            Kind::Other { name, .. } => match node.allocatable.scalar.get(name) {
                Some(&alloc) => (
                    alloc,
                    node.requested.scalar.get(name).copied().unwrap_or(0) + pod_request,
                ),
                None => (0, 0),
            },
        }
    }
}

/// Requested and allocatable of each of `kinds` into `out`, each as long as
/// `kinds` and zeroed; resources the node lacks stay at 0
/// (`resourceAllocationScorer.score`).
fn fill_pairs(
    node: &NodeInfo,
    kinds: &[Kind],
    pod_requests: &[i64],
    use_requested: bool,
    out: (&mut [i64], &mut [i64]),
) {
    let (requested, allocatable) = out;
    for (i, kind) in kinds.iter().enumerate() {
        let want = pod_requests.get(i).copied().unwrap_or(0);
        let (alloc, req) = kind.allocatable_request(node, want, use_requested);
        if alloc != 0 {
            allocatable[i] = alloc;
            requested[i] = req;
        }
    }
}

/// How many resources a score's pairs are kept on the stack for (every
/// profile podflow knows scores two: cpu and memory).
const INLINE_RESOURCES: usize = 8;

/// `f` of [`fill_pairs`]'s pairs, kept on the stack for up to
/// [`INLINE_RESOURCES`] resources so that scoring a node allocates nothing.
pub fn with_pairs<R>(
    node: &NodeInfo,
    kinds: &[Kind],
    pod_requests: &[i64],
    use_requested: bool,
    f: impl FnOnce(&[i64], &[i64]) -> R,
) -> R {
    let n = kinds.len();
    if n > INLINE_RESOURCES {
        let (mut requested, mut allocatable) = (vec![0; n], vec![0; n]);
        fill_pairs(
            node,
            kinds,
            pod_requests,
            use_requested,
            (&mut requested, &mut allocatable),
        );
        return f(&requested, &allocatable);
    }
    let (mut requested, mut allocatable) = ([0; INLINE_RESOURCES], [0; INLINE_RESOURCES]);
    fill_pairs(
        node,
        kinds,
        pod_requests,
        use_requested,
        (&mut requested[..n], &mut allocatable[..n]),
    );
    f(&requested[..n], &allocatable[..n])
}

/// How many resources [`score_all`] remembers node shapes for.
const MEMO_RESOURCES: usize = 4;
/// How many node shapes [`score_all`] remembers.
const MEMO_SHAPES: usize = 8;

/// `score` of each of `nodes` from its requested/allocatable pairs, appended
/// to `out` in order. The score is a function of the pairs alone, so nodes
/// of the same shape (a node pool's identical machines holding as many
/// pods) are scored once: the last few shapes are remembered.
pub fn score_all<'a>(
    nodes: &[&'a NodeInfo],
    kinds: &[Kind],
    pod_requests: &[i64],
    use_requested: bool,
    score: impl Fn(&[i64], &[i64]) -> i64,
    out: &mut Vec<NodeScore<'a>>,
) {
    let n = kinds.len();
    if n > MEMO_RESOURCES {
        out.extend(nodes.iter().map(|info| NodeScore {
            name: info.name(),
            score: with_pairs(info, kinds, pod_requests, use_requested, &score),
        }));
        return;
    }
    out.reserve(nodes.len());
    if matches!(kinds, [Kind::Cpu, Kind::Memory]) {
        score_cpu_memory(nodes, pod_requests, use_requested, score, out);
        return;
    }
    let mut memo = [([0; 2 * MEMO_RESOURCES], 0); MEMO_SHAPES];
    // Neighbouring nodes are mostly of one shape: the last match is tried first.
    let (mut remembered, mut oldest, mut last) = (0, 0, 0);
    for info in nodes {
        let mut pairs = [0; 2 * MEMO_RESOURCES];
        let (requested, allocatable) = pairs.split_at_mut(MEMO_RESOURCES);
        fill_pairs(
            info,
            kinds,
            pod_requests,
            use_requested,
            (&mut requested[..n], &mut allocatable[..n]),
        );
        let known = if remembered > 0 && same_shape(&memo[last].0, &pairs) {
            Some(last)
        } else {
            (0..remembered).find(|&at| same_shape(&memo[at].0, &pairs))
        };
        let value = if let Some(at) = known {
            last = at;
            memo[at].1
        } else {
            let value = score(&pairs[..n], &pairs[MEMO_RESOURCES..MEMO_RESOURCES + n]);
            memo[oldest] = (pairs, value);
            last = oldest;
            oldest = (oldest + 1) % MEMO_SHAPES;
            remembered = (remembered + 1).min(MEMO_SHAPES);
            value
        };
        out.push(NodeScore {
            name: info.name(),
            score: value,
        });
    }
}

/// [`score_all`] for the default resources, cpu then memory (every profile
/// podflow knows): each node's shape is its four numbers (requested cpu and
/// memory with the pod's added, then allocatable), read straight from its
/// counts where [`fill_pairs`] matches each kind; a resource the node lacks
/// counts 0 as there. The last few shapes are remembered as in [`score_all`].
fn score_cpu_memory<'a>(
    nodes: &[&'a NodeInfo],
    pod_requests: &[i64],
    use_requested: bool,
    score: impl Fn(&[i64], &[i64]) -> i64,
    out: &mut Vec<NodeScore<'a>>,
) {
    let want = |i: usize| pod_requests.get(i).copied().unwrap_or(0);
    let (cpu, memory) = (want(0), want(1));
    let mut memo = [([0; 4], 0); MEMO_SHAPES];
    let (mut remembered, mut oldest, mut last) = (0, 0, 0);
    for info in nodes {
        let requested = if use_requested {
            &info.requested
        } else {
            &info.non_zero_requested
        };
        let have = &info.allocatable;
        let shape = [
            if have.milli_cpu == 0 {
                0
            } else {
                requested.milli_cpu + cpu
            },
            if have.memory == 0 {
                0
            } else {
                requested.memory + memory
            },
            have.milli_cpu,
            have.memory,
        ];
        let same = |known: &[i64; 4]| known.iter().zip(&shape).all(|(x, y)| x == y);
        let known = if remembered > 0 && same(&memo[last].0) {
            Some(last)
        } else {
            (0..remembered).find(|&at| same(&memo[at].0))
        };
        let value = if let Some(at) = known {
            last = at;
            memo[at].1
        } else {
            let value = score(&shape[..2], &shape[2..]);
            memo[oldest] = (shape, value);
            last = oldest;
            oldest = (oldest + 1) % MEMO_SHAPES;
            remembered = (remembered + 1).min(MEMO_SHAPES);
            value
        };
        out.push(NodeScore {
            name: info.name(),
            score: value,
        });
    }
}

/// Whether two remembered shapes are equal, lane by lane: inlined, where
/// `==` on the arrays calls `memcmp` (this runs for every node of every cycle).
fn same_shape(a: &[i64; 2 * MEMO_RESOURCES], b: &[i64; 2 * MEMO_RESOURCES]) -> bool {
    a.iter().zip(b).all(|(x, y)| x == y)
}

/// The configured scoring strategy (`config.ScoringStrategyType`); an
/// unknown type scores as `LeastAllocated` (validation refuses it earlier).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    LeastAllocated,
    MostAllocated,
    RequestedToCapacityRatio,
}

impl Strategy {
    /// The strategy named `kind`.
    pub fn of(kind: &str) -> Strategy {
        match kind {
            "MostAllocated" => Strategy::MostAllocated,
            "RequestedToCapacityRatio" => Strategy::RequestedToCapacityRatio,
            _ => Strategy::LeastAllocated,
        }
    }
}

/// What scoring needs of `FitArgs`, resolved once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scoring {
    pub strategy: Strategy,
    pub kinds: Vec<Kind>,
    /// The shape scaled to 0..=100 (`requestedToCapacityRatioScorer`'s
    /// `resourceScoringFunctionShape`); empty unless the strategy uses it.
    pub scaled_shape: Vec<ShapePoint>,
}

/// The shape's scores scaled from 0..=10 to 0..=100.
pub fn scale_shape(shape: &[ShapePoint]) -> Vec<ShapePoint> {
    shape
        .iter()
        .map(|p| ShapePoint {
            utilization: p.utilization,
            score: p.score * (MAX_NODE_SCORE / super::MAX_CUSTOM_PRIORITY_SCORE),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::{node_info, pod};
    use super::*;

    #[test]
    fn scoring_all_nodes_remembers_shapes_without_changing_scores() {
        // More shapes than are remembered, repeated, so entries are replaced.
        let used = |m: usize| pod(&[json!({"cpu": format!("{m}00m"), "memory": "1Gi"})]);
        let infos: Vec<NodeInfo> = (0..30)
            .map(|i| {
                let pods: Vec<_> = (0..i % 11).map(used).collect();
                node_info(json!({"cpu": "8", "memory": "32Gi", "pods": "110"}), &pods)
            })
            .collect();
        let nodes: Vec<&NodeInfo> = infos.iter().collect();
        let kinds = Kind::all(&super::super::default_resources());
        let score = |r: &[i64], a: &[i64]| r[0] * 7 + r[1] / 3 + a[0] - a[1];
        for use_requested in [false, true] {
            let mut out = Vec::new();
            score_all(
                &nodes,
                &kinds,
                &[100, 1 << 20],
                use_requested,
                score,
                &mut out,
            );
            let expected: Vec<i64> = nodes
                .iter()
                .map(|n| with_pairs(n, &kinds, &[100, 1 << 20], use_requested, score))
                .collect();
            let got: Vec<i64> = out.iter().map(|s| s.score).collect();
            assert_eq!(got, expected);
        }
    }
}
