//! One scheduling cycle's Filter of one plugin: its verdict on each node,
//! with what its `PreFilter` stored read once per cycle rather than per node,
//! and the same verdicts over a batch of nodes.
//!
//! Upstream's `findNodesThatPassFilters` (`pkg/scheduler/schedule_one.go`)
//! runs every Filter on a node (`RunFilterPlugins`, stopping at the first
//! failure) before the next node. When no per-node record is kept (summary
//! detail), the cycle runs one plugin over a batch of nodes before the next
//! plugin over the survivors ([`CycleFilter::retain`]): every node meets the
//! plugins in the same order and fails at the same first plugin, with the same
//! status, so the feasible nodes and the failures are the same.

use k8s_openapi::api::core::v1::Pod;

use super::framework::{Code, CycleState, FilterPlugin, NodeInfo, Status};

/// One plugin's Filter for one cycle.
///
/// Every implementation keeps `passes(node) == verdict(node).is_success()`
/// and `retain` keeping exactly the nodes that pass (tables check each plugin
/// that implements its own with [`tests::assert_agrees`]).
pub trait CycleFilter {
    /// The plugin's Filter verdict on `node`.
    fn verdict(&self, node: &NodeInfo) -> Status;

    /// Whether `node` passes: [`CycleFilter::verdict`]'s success, which a
    /// plugin may decide without building a `Status`.
    fn passes(&self, node: &NodeInfo) -> bool {
        self.verdict(node).is_success()
    }

    /// Keeps the nodes of `nodes` that pass, in order, and hands each that
    /// fails to `failed` with its verdict. Compiled for each plugin, so the
    /// per-node check is a direct call: one dynamic call per batch.
    fn retain<'n>(
        &self,
        nodes: &mut Vec<&'n NodeInfo>,
        failed: &mut dyn FnMut(&'n NodeInfo, Status),
    ) {
        retain_passing(self, nodes, failed);
    }
}

/// [`CycleFilter::retain`] by [`CycleFilter::passes`] per node, the verdict
/// built only for a node that fails.
pub fn retain_passing<'n, F: CycleFilter + ?Sized>(
    filter: &F,
    nodes: &mut Vec<&'n NodeInfo>,
    failed: &mut dyn FnMut(&'n NodeInfo, Status),
) {
    // Most batches lose no node: nothing moves until the first that fails.
    let Some(first_failing) = nodes.iter().position(|node| !filter.passes(node)) else {
        return;
    };
    let mut kept = first_failing;
    for at in first_failing..nodes.len() {
        let node = nodes[at];
        if at == first_failing || !filter.passes(node) {
            failed(node, filter.verdict(node));
        } else {
            nodes[kept] = node;
            kept += 1;
        }
    }
    nodes.truncate(kept);
}

/// The verdict of a Filter with one reason: success where the node passes,
/// else `UnschedulableAndUnresolvable` with `reason` (`NodeName`,
/// `NodeUnschedulable`, `TaintToleration`).
pub fn unresolvable_unless(passes: bool, reason: &str) -> Status {
    if passes {
        Status::success()
    } else {
        Status::new(Code::UnschedulableAndUnresolvable, reason)
    }
}

/// A plugin's cycle Filter: its `filter` per node (the default, for plugins
/// that read nothing once per cycle).
pub struct PerNode<'a, P: ?Sized> {
    pub plugin: &'a P,
    pub state: &'a CycleState,
    pub pod: &'a Pod,
}

impl<P: FilterPlugin + ?Sized> CycleFilter for PerNode<'_, P> {
    fn verdict(&self, node: &NodeInfo) -> Status {
        self.plugin.filter(self.state, self.pod, node)
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// `filter` agrees with `expected` (the plugin's `filter`) on every one
    /// of `nodes`: the same verdict, `passes` its success, and `retain`
    /// (over all of them, then over every other one) keeping those that pass
    /// and handing on the others with their verdicts, in order.
    pub fn assert_agrees(
        filter: &dyn CycleFilter,
        expected: impl Fn(&NodeInfo) -> Status,
        nodes: &[NodeInfo],
        case: &str,
    ) {
        for (at, node) in nodes.iter().enumerate() {
            let want = expected(node);
            assert_eq!(filter.verdict(node), want, "{case}: verdict on node {at}");
            assert_eq!(
                filter.passes(node),
                want.is_success(),
                "{case}: passes on node {at}"
            );
        }
        // Nodes by their place in `nodes` (names may repeat in a table).
        let at = |node: &NodeInfo| nodes.iter().position(|n| std::ptr::eq(n, node));
        let all: Vec<&NodeInfo> = nodes.iter().collect();
        let every_other: Vec<&NodeInfo> = nodes.iter().step_by(2).collect();
        for batch in [all, every_other] {
            let mut kept = batch.clone();
            let mut failed = Vec::new();
            filter.retain(&mut kept, &mut |node, status| {
                failed.push((at(node), status));
            });
            let want_kept: Vec<_> = batch
                .iter()
                .filter(|node| expected(node).is_success())
                .map(|node| at(node))
                .collect();
            let want_failed: Vec<_> = batch
                .iter()
                .map(|node| (at(node), expected(node)))
                .filter(|(_, status)| !status.is_success())
                .collect();
            let kept: Vec<_> = kept.iter().map(|node| at(node)).collect();
            assert_eq!(kept, want_kept, "{case}: kept");
            assert_eq!(failed, want_failed, "{case}: failed");
        }
    }
}
