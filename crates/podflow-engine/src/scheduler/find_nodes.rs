//! A cycle's `PreFilter` and Filter phases (`findNodesThatFitPod` and
//! `findNodesThatPassFilters`, `pkg/scheduler/schedule_one.go`): the nodes
//! that fit the pod, looked for from where the last cycle stopped until
//! `percentageOfNodesToScore` of them are found, and why each other node
//! visited does not fit.
//!
//! With every verdict recorded (`--detail full`) the nodes are visited one at
//! a time, every plugin on a node before the next node, as upstream does.
//! Otherwise they are taken in batches of as many as are still wanted, each
//! plugin over the batch before the next plugin over the nodes that passed
//! (`CycleFilter::retain`): the same nodes are visited, each fails at the
//! same first plugin with the same status, and the same nodes are feasible
//! (a table checks both ways agree, `batches_find_what_node_by_node_finds`).

use std::collections::{BTreeMap, BTreeSet};

use super::framework::{Code, CycleState, NodeFilter, NodeInfo, Snapshot, Status};
use super::schedule_one::{PRE_FILTER_MSG, This, record_skip};
use super::{config, plugins};
use crate::component::Cx;
use crate::trace::{Actor, Detail, FitDetail, Outcome, Stage, StageName};

/// Nodes that failed, with the failing plugin's code and reasons.
pub(super) type Failures = BTreeMap<String, (Code, Vec<String>)>;

/// `PreFilter`, then every Filter on every node visited (stopping at a node's
/// first failure, as upstream does); with `--detail full`, one record per
/// verdict. The feasible nodes come back in node-name order.
pub(super) fn run_filters<'a>(
    this: &This<'_>,
    start: &mut usize,
    snapshot: &Snapshot<'a>,
    cycle: &mut CycleState,
    rejected_by: &mut BTreeSet<&'static str>,
    cx: &mut Cx<'_>,
) -> (Vec<&'a NodeInfo>, Failures) {
    rejected_by.clear();
    let infos = snapshot.infos();
    let This {
        profile,
        key,
        pod,
        verbose,
    } = *this;
    let mut failures = Failures::new();
    let mut active = Vec::with_capacity(profile.filters.len());
    for plugin in &profile.filters {
        let status = plugin.pre_filter(pod, snapshot, cycle);
        match status.code {
            Code::Success => active.push(&**plugin),
            // `RunPreFilterPlugins` leaves a skipping plugin's Filter out (`SkipFilterPlugins`).
            Code::Skip => record_skip(cx, StageName::PreFilter, plugin.name(), key, &status),
            code => {
                let mut stage = Stage::new(
                    Actor::Scheduler,
                    StageName::PreFilter,
                    Outcome::Fail,
                    status.reasons.join(", "),
                )
                .plugin(plugin.name())
                .pod(key);
                stage.extra_mut().code = Some(code.as_str().into());
                cx.stage(stage);
                for info in infos {
                    failures.insert(info.name().to_owned(), (code, status.reasons.clone()));
                }
                // `Diagnosis.PreFilterMsg`: the FitError quotes it instead of a per-node count.
                cycle.write(PRE_FILTER_MSG, status.reasons.join(", "));
                rejected_by.insert(plugin.name());
                return (Vec::new(), failures);
            }
        }
    }
    let cycle: &CycleState = cycle;
    // Each plugin's Filter for this cycle, what its `PreFilter` stored read once.
    let filters: Vec<(&'static str, NodeFilter<'_>)> = active
        .iter()
        .map(|plugin| (plugin.name(), plugin.cycle_filter(cycle, pod)))
        .collect();
    let visit = Visit {
        infos,
        first: if infos.is_empty() {
            0
        } else {
            *start % infos.len()
        },
        // Only as many feasible nodes as `percentageOfNodesToScore` asks for are looked for.
        wanted: config::num_feasible_nodes_to_find(
            profile.percentage_of_nodes_to_score,
            infos.len(),
        ),
        // PreFilter may narrow the nodes worth filtering (NodeAffinity's `metadata.name` terms).
        narrowed: plugins::node_affinity::pre_filter_result(cycle),
        filters: &filters,
    };
    let mut found = Found {
        feasible: Vec::with_capacity(visit.wanted.min(infos.len())),
        failures,
        rejected_by,
        processed: 0,
        before_wrap: 0,
    };
    if verbose {
        visit.node_by_node(&mut found, &mut |plugin, node, status| {
            // A failed fit carries its numbers, for the views.
            let fit = (!status.is_success() && plugin == plugins::node_resources_fit::NAME)
                .then(|| plugins::node_resources_fit::fit_detail(pod, node, &status.reasons));
            record_filter(cx, plugin, node.name(), key, status, fit);
        });
    } else {
        visit.in_batches(&mut found);
    }
    *start = (visit.first + found.processed) % infos.len().max(1);
    // Scored and selected in node-name order, whatever the visiting order:
    // the nodes found after wrapping around come first (both runs are in order).
    let Found {
        mut feasible,
        failures,
        before_wrap,
        ..
    } = found;
    feasible.rotate_left(before_wrap);
    (feasible, failures)
}

/// What one cycle's Filter phase visits: every node, from `first` round to
/// the node before it, until `wanted` feasible nodes are found.
struct Visit<'a, 'f> {
    infos: &'a [NodeInfo],
    first: usize,
    wanted: usize,
    /// The only nodes worth filtering, when `PreFilter` narrowed them.
    narrowed: Option<&'f BTreeSet<String>>,
    filters: &'f [(&'static str, NodeFilter<'f>)],
}

/// What the Filter phase found so far.
struct Found<'a, 'r> {
    /// In visiting order.
    feasible: Vec<&'a NodeInfo>,
    failures: Failures,
    /// The plugins that rejected some node.
    rejected_by: &'r mut BTreeSet<&'static str>,
    /// How many nodes were visited.
    processed: usize,
    /// How many feasible nodes were found at or after `first` (before wrapping).
    before_wrap: usize,
}

impl Found<'_, '_> {
    /// `node` failed at `plugin` with `status`.
    fn failed(&mut self, plugin: &'static str, node: &NodeInfo, status: Status) {
        self.rejected_by.insert(plugin);
        self.failures
            .insert(node.name().to_owned(), (status.code, status.reasons));
    }

    /// A node `PreFilter` left out (`SetAbsentNodesStatus`).
    fn absent(&mut self, node: &NodeInfo) {
        let reason = plugins::node_affinity::ABSENT_REASON.to_owned();
        let status = Status::new(Code::UnschedulableAndUnresolvable, reason);
        self.failed("NodeAffinity", node, status);
    }
}

impl<'a> Visit<'a, '_> {
    /// The nodes from `first` on, then those before it, each half with
    /// whether it comes before the wrap.
    fn halves(&self) -> [(&'a [NodeInfo], bool); 2] {
        let (wrapped, from_first) = self.infos.split_at(self.first);
        [(from_first, true), (wrapped, false)]
    }

    /// Whether `PreFilter` left `node` out.
    fn left_out(&self, node: &NodeInfo) -> bool {
        self.narrowed
            .is_some_and(|names| !names.contains(node.name()))
    }

    /// One node at a time, every plugin's verdict on it handed to `record`
    /// until the first failure.
    fn node_by_node(
        &self,
        found: &mut Found<'a, '_>,
        record: &mut dyn FnMut(&'static str, &NodeInfo, &Status),
    ) {
        for (half, before_wrap) in self.halves() {
            for info in half {
                if found.feasible.len() >= self.wanted {
                    return;
                }
                found.processed += 1;
                if self.left_out(info) {
                    found.absent(info);
                    continue;
                }
                let failed = self.filters.iter().find_map(|(plugin, filter)| {
                    let status = filter.verdict(info);
                    record(plugin, info, &status);
                    (!status.is_success()).then_some((*plugin, status))
                });
                if let Some((plugin, status)) = failed {
                    found.failed(plugin, info, status);
                } else {
                    found.feasible.push(info);
                    found.before_wrap += usize::from(before_wrap);
                }
            }
        }
    }

    /// As many nodes at a time as are still wanted, one plugin at a time.
    fn in_batches(&self, found: &mut Found<'a, '_>) {
        let mut batch: Vec<&'a NodeInfo> = Vec::with_capacity(self.wanted.min(self.infos.len()));
        for (half, before_wrap) in self.halves() {
            let mut rest = half;
            while !rest.is_empty() && found.feasible.len() < self.wanted {
                let (now, later) =
                    rest.split_at((self.wanted - found.feasible.len()).min(rest.len()));
                rest = later;
                found.processed += now.len();
                batch.clear();
                batch.extend(now);
                if self.narrowed.is_some() {
                    batch.retain(|info| {
                        let left_out = self.left_out(info);
                        if left_out {
                            found.absent(info);
                        }
                        !left_out
                    });
                }
                for (plugin, filter) in self.filters {
                    if batch.is_empty() {
                        break;
                    }
                    filter.retain(&mut batch, &mut |node, status| {
                        found.failed(plugin, node, status);
                    });
                }
                if before_wrap {
                    found.before_wrap += batch.len();
                }
                found.feasible.extend_from_slice(&batch);
            }
        }
    }
}

/// One `filter` record: a plugin's verdict on a node.
fn record_filter(
    cx: &mut Cx<'_>,
    plugin: &'static str,
    node: &str,
    pod: &str,
    status: &Status,
    fit: Option<FitDetail>,
) {
    let passed = status.is_success();
    let reasons = status.reasons.join(", ");
    let detail: Detail = fit.map_or_else(|| Detail::from(&*reasons), Detail::from);
    let mut stage = Stage::new(
        Actor::Scheduler,
        StageName::Filter,
        if passed { Outcome::Pass } else { Outcome::Fail },
        detail,
    )
    .plugin(plugin)
    .node(node)
    .pod(pod);
    stage.extra_mut().code = Some(status.code.as_str().into());
    if !passed {
        stage.extra_mut().reason = Some(reasons);
    }
    cx.stage(stage);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use k8s_openapi::api::core::v1::{Node, Pod};
    use serde_json::{Value, json};

    use super::*;
    use crate::scheduler::cycle_filter::tests::assert_agrees;
    use crate::scheduler::profile::ProfilePlugins;
    use podflow_model::Shared;

    /// Node `at` of a varied cluster: some cordoned, tainted, small, or
    /// holding few pods; every third with two `app=web` pods on it.
    fn node(at: usize) -> NodeInfo {
        let name = format!("node-{at:02}");
        let taints = if at % 5 == 1 {
            json!([{"key": "dedicated", "value": "db", "effect": "NoSchedule"}])
        } else {
            json!([])
        };
        let node: Node = serde_json::from_value(json!({
            "metadata": {"name": name, "labels": {
                "kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": format!("zone-{}", at % 3),
            }},
            "spec": {"unschedulable": at % 7 == 3, "taints": taints},
            "status": {"allocatable": {
                "cpu": if at % 4 == 2 { "1" } else { "8" },
                "memory": "16Gi",
                "pods": if at.is_multiple_of(6) { "2" } else { "110" },
            }},
        }))
        .unwrap();
        let pods = (0..if at.is_multiple_of(3) { 2 } else { 0 }).map(|i| {
            Shared::from(pod(
                &format!("web-{at}-{i}"),
                json!({"containers": [{"name": "c",
                    "resources": {"requests": {"cpu": "500m"}}}]}),
            ))
        });
        NodeInfo::new(Arc::new(node), pods)
    }

    /// A pod labelled `app=web` with `spec`.
    #[allow(clippy::needless_pass_by_value)]
    fn pod(name: &str, spec: Value) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
            "spec": spec,
        }))
        .unwrap()
    }

    /// Pods that pass and fail each default filter somewhere.
    fn pods() -> Vec<Pod> {
        let asking = |cpu: &str| json!([{"name": "c", "resources": {"requests": {"cpu": cpu}}}]);
        let web = json!({"matchLabels": {"app": "web"}});
        vec![
            pod("plain", json!({"containers": asking("700m")})),
            pod(
                "big-tolerating",
                json!({"containers": asking("2"), "tolerations": [
                    {"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"}]}),
            ),
            pod(
                "named",
                json!({"containers": asking("100m"), "nodeName": "node-08"}),
            ),
            pod(
                "narrowed",
                json!({"containers": asking("100m"), "affinity": {"nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In",
                            "values": ["node-02", "node-05", "node-09", "node-13", "node-20"]}]}]}}}}),
            ),
            pod(
                "spread",
                json!({"containers": asking("100m"), "topologySpreadConstraints": [
                    {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                     "whenUnsatisfiable": "DoNotSchedule", "labelSelector": web}]}),
            ),
            pod(
                "anti",
                json!({"containers": asking("100m"), "affinity": {"podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": web, "topologyKey": "kubernetes.io/hostname"}]}}}),
            ),
            pod(
                "tolerating-all",
                json!({"containers": asking("100m"), "tolerations": [{"operator": "Exists"}]}),
            ),
        ]
    }

    /// What a Filter phase found: the feasible nodes' names in visiting
    /// order, the failures, the rejecting plugins, how many nodes were
    /// visited and how many feasible ones came before the wrap.
    type Outcome = (Vec<String>, Failures, BTreeSet<&'static str>, usize, usize);

    fn run(visit: &Visit<'_, '_>, batches: bool) -> Outcome {
        let mut rejected_by = BTreeSet::new();
        let mut found = Found {
            feasible: Vec::new(),
            failures: Failures::new(),
            rejected_by: &mut rejected_by,
            processed: 0,
            before_wrap: 0,
        };
        if batches {
            visit.in_batches(&mut found);
        } else {
            visit.node_by_node(&mut found, &mut |_, _, _| {});
        }
        let names = found.feasible.iter().map(|n| n.name().to_owned()).collect();
        let (failures, processed, before_wrap) =
            (found.failures, found.processed, found.before_wrap);
        (names, failures, rejected_by, processed, before_wrap)
    }

    /// Visiting in batches finds what visiting node by node finds, for every
    /// pod, start and number of nodes wanted; and each plugin's cycle Filter
    /// agrees with its Filter on every node.
    #[test]
    fn batches_find_what_node_by_node_finds() {
        let infos: Vec<NodeInfo> = (0..23).map(node).collect();
        let profile = ProfilePlugins::default();
        let snapshot = Snapshot::new(&infos);
        for pod in pods() {
            let name = pod.metadata.name.clone().unwrap_or_default();
            let mut cycle = CycleState::default();
            let active: Vec<_> = profile
                .filters
                .iter()
                .filter(|p| p.pre_filter(&pod, &snapshot, &mut cycle).code == Code::Success)
                .collect();
            let filters: Vec<(&'static str, NodeFilter<'_>)> = active
                .iter()
                .map(|plugin| (plugin.name(), plugin.cycle_filter(&cycle, &pod)))
                .collect();
            for (plugin, (_, filter)) in active.iter().zip(&filters) {
                let case = format!("{name}, {}", plugin.name());
                assert_agrees(&**filter, |n| plugin.filter(&cycle, &pod, n), &infos, &case);
            }
            let mut rejections = 0;
            for first in [0, 5, 22] {
                for wanted in [1, 4, 10, 23, 30] {
                    let visit = Visit {
                        infos: &infos,
                        first,
                        wanted,
                        narrowed: plugins::node_affinity::pre_filter_result(&cycle),
                        filters: &filters,
                    };
                    let node_by_node = run(&visit, false);
                    assert_eq!(
                        run(&visit, true),
                        node_by_node,
                        "{name}, from {first}, {wanted} wanted"
                    );
                    rejections += node_by_node.1.len();
                }
            }
            assert!(rejections > 0, "{name} fails somewhere");
        }
    }
}
