//! The scheduling framework's vocabulary (`pkg/scheduler/framework/interface.go`):
//! plugin Status codes, the Filter and Score extension points, and the
//! per-node view plugins read (`NodeInfo`).

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Node, Pod};

use super::resources::Resources;

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
    pub pods: Vec<Arc<Pod>>,
    /// Sum of the pods' requests.
    pub requested: Resources,
    /// Sum of the pods' requests with upstream's non-zero defaults for scoring.
    pub non_zero_requested: Resources,
    /// The node's allocatable resources.
    pub allocatable: Resources,
}

impl NodeInfo {
    /// The node's name.
    pub fn name(&self) -> &str {
        self.node.metadata.name.as_deref().unwrap_or_default()
    }
}

/// A Filter plugin: may this pod run on this node?
pub trait FilterPlugin {
    /// The plugin's name as upstream spells it.
    fn name(&self) -> &'static str;
    /// The verdict for `pod` on `node`.
    fn filter(&self, pod: &Pod, node: &NodeInfo) -> Status;
}

/// A Score plugin: how good is this node for this pod?
pub trait ScorePlugin {
    /// The plugin's name as upstream spells it.
    fn name(&self) -> &'static str;
    /// The raw score of `node` for `pod`.
    fn score(&self, pod: &Pod, node: &NodeInfo) -> i64;
    /// Turns raw scores into 0..=100 (`ScoreExtensions.NormalizeScore`); by
    /// default the raw scores are already in range.
    fn normalize(&self, _scores: &mut BTreeMap<String, i64>) {}
}

/// The highest score a node can get from one plugin (`framework.MaxNodeScore`).
pub const MAX_NODE_SCORE: i64 = 100;

/// `DefaultNormalizeScore` (`pkg/scheduler/framework/plugins/helper/normalize_score.go`):
/// scales scores to 0..=100 by the highest, reversed when `reverse`.
pub fn default_normalize(scores: &mut BTreeMap<String, i64>, reverse: bool) {
    let max = scores.values().copied().max().unwrap_or(0);
    if max == 0 {
        if reverse {
            for score in scores.values_mut() {
                *score = MAX_NODE_SCORE;
            }
        }
        return;
    }
    for score in scores.values_mut() {
        let scaled = MAX_NODE_SCORE * *score / max;
        *score = if reverse {
            MAX_NODE_SCORE - scaled
        } else {
            scaled
        };
    }
}
