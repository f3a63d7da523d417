//! The scheduling table: for the latest scheduling cycle of a Pod, every
//! node's filter verdicts, its scores per plugin and weight, and the total,
//! as `pkg/scheduler/schedule_one.go` computes them (`findNodesThatFitPod`,
//! `prioritizeNodes`, `selectHost`).

use podflow_engine::trace::StageName;
use podflow_engine::trace::{Actor, Detail, NodesToScore, Outcome, ResourcePart, Shortfall};
use podflow_engine::trace::{Record, Stage, TraceRecord};

/// How far back the pane looks for a scheduling cycle.
pub const LOOK_BACK: usize = 10_000;

/// Requests and events between two stages of one cycle stepped over, at most.
const MAX_SKIPPED: usize = 64;

/// One Filter plugin's verdict on one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterVerdict {
    pub plugin: String,
    pub passed: bool,
    /// The plugin's reason when it failed: `node(s) had untolerated taint(s)`.
    pub reason: String,
    /// `NodeResourcesFit`'s numbers for each resource the node lacks.
    pub shortfalls: Vec<Shortfall>,
}

/// One Score plugin's normalised score on one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreCell {
    pub plugin: String,
    pub score: i64,
    pub weight: i64,
    /// `NodeResourcesFit`'s and `NodeResourcesBalancedAllocation`'s figures
    /// per resource (empty for the other plugins).
    pub resources: Vec<ResourcePart>,
}

/// A `PreFilter` or `PreScore` plugin that answered Skip this cycle, so its
/// Filter or Score did not run (`SkipFilterPlugins`, `SkipScorePlugins` in
/// `pkg/scheduler/framework/runtime/framework.go`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedPlugin {
    /// `PreFilter` or `PreScore`.
    pub at: &'static str,
    pub plugin: String,
    pub reason: String,
}

/// One node of the cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRow {
    pub node: String,
    pub filters: Vec<FilterVerdict>,
    pub scores: Vec<ScoreCell>,
    /// Σ score × weight, when the node was scored.
    pub total: Option<i64>,
    pub chosen: bool,
}

impl NodeRow {
    /// The filter that ruled the node out, if one did.
    pub fn failed(&self) -> Option<&FilterVerdict> {
        self.filters.iter().find(|f| !f.passed)
    }
}

/// The latest scheduling cycle of one Pod, as far as the current step has seen it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// `NS/NAME`.
    pub pod: String,
    pub rows: Vec<NodeRow>,
    /// The Filter plugins, in the order they ran.
    pub filter_plugins: Vec<String>,
    /// The Score plugins with their weights, in the order they ran.
    pub score_plugins: Vec<(String, i64)>,
    pub chosen: Option<String>,
    /// The select stage's words: the totals, or (unschedulable) the
    /// `FailedScheduling` message.
    pub verdict: Option<String>,
    pub unschedulable: bool,
    /// Where the pod waits in the scheduling queue after this cycle, as the
    /// scheduler's latest `queue` record says (backoffQ until …, unschedulable …).
    pub queue: Option<String>,
    /// What `PostFilter` (`DefaultPreemption`) did when no node fit.
    pub preemption: Option<Preemption>,
    /// The plugins that skipped, in the order they answered.
    pub skipped: Vec<SkippedPlugin>,
    /// The Filter phase stopped at `percentageOfNodesToScore`'s count.
    pub nodes_to_score: Option<NodesToScore>,
}

/// `DefaultPreemption`'s outcome (`pkg/scheduler/framework/plugins/defaultpreemption`):
/// a node nominated with the Pods evicted to make room, or why preemption
/// could not help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preemption {
    Nominated { node: String, victims: Vec<String> },
    NotHelpful(String),
}

/// The `FailedScheduling` message's parts (`FitError.Error()` in
/// `pkg/scheduler/framework/types.go`): `0/N nodes are available: ` and
/// each reason with how many nodes gave it.
pub fn breakdown(message: &str) -> Option<(usize, Vec<(usize, String)>)> {
    let rest = message.strip_prefix("0/")?;
    let (total, rest) = rest.split_once(" nodes are available: ")?;
    let total = total.parse().ok()?;
    let reasons = rest.split_once(". ").map_or(rest, |(r, _)| r);
    let reasons = reasons.strip_suffix('.').unwrap_or(reasons);
    let parts = reasons
        .split(", ")
        .filter_map(|part| {
            let (n, reason) = part.split_once(' ')?;
            Some((n.parse().ok()?, reason.to_owned()))
        })
        .collect();
    Some((total, parts))
}

fn scheduler_stage(record: &TraceRecord) -> Option<&Stage> {
    match &record.body {
        Record::Stage(s) if s.component == Actor::Scheduler => Some(s),
        _ => None,
    }
}

/// The index of `records`' last scheduler stage about a Pod, looking back at
/// most [`LOOK_BACK`] records.
pub fn anchor(records: &[TraceRecord]) -> Option<usize> {
    let floor = records.len().saturating_sub(LOOK_BACK);
    (floor..records.len())
        .rev()
        .find(|&i| scheduler_stage(&records[i]).is_some_and(|s| s.extra().pod.is_some()))
}

/// The cycle that `records`' last scheduler stage belongs to, looking back at
/// most [`LOOK_BACK`] records.
pub fn latest(records: &[TraceRecord]) -> Option<Cycle> {
    let anchor = anchor(records)?;
    let pod = scheduler_stage(&records[anchor])?.extra().pod.clone()?;
    // A cycle's records are contiguous and in phase order (filter,
    // postfilter or score, select, reserve, bind): going back, a later phase means an earlier cycle.
    // Preemption's requests and events (the victims' eviction) come between
    // PostFilter and the select stage: a few are stepped over.
    let mut start = anchor;
    let mut cursor = start;
    let mut skipped = 0;
    while cursor > 0 {
        let this = scheduler_stage(&records[start]);
        let Some(before) = scheduler_stage(&records[cursor - 1]) else {
            if skipped < MAX_SKIPPED
                && matches!(
                    records[cursor - 1].body,
                    Record::Message { .. } | Record::Event(_) | Record::Response { .. }
                )
            {
                skipped += 1;
                cursor -= 1;
                continue;
            }
            break;
        };
        if before.extra().pod.as_deref() != Some(pod.as_str())
            || this.is_some_and(|this| phase(before) > phase(this))
        {
            break;
        }
        cursor -= 1;
        start = cursor;
    }
    Some(collect(&pod, &records[start..=anchor]))
}

/// The place of a stage in a cycle.
fn phase(s: &Stage) -> u8 {
    match s.stage {
        StageName::PreFilter | StageName::Filter => 0,
        // PostFilter (preemption) runs when no node passed the filters.
        StageName::PostFilter => 1,
        StageName::PreScore | StageName::Score => 2,
        StageName::Select => 3,
        StageName::Reserve | StageName::Permit | StageName::PreBind => 4,
        _ => 5,
    }
}

fn collect(pod: &str, records: &[TraceRecord]) -> Cycle {
    let mut cycle = Cycle {
        pod: pod.to_owned(),
        rows: Vec::new(),
        filter_plugins: Vec::new(),
        score_plugins: Vec::new(),
        chosen: None,
        verdict: None,
        unschedulable: false,
        queue: None,
        preemption: None,
        skipped: Vec::new(),
        nodes_to_score: None,
    };
    for s in records.iter().filter_map(scheduler_stage) {
        let plugin = s.plugin.as_deref().unwrap_or_default().to_owned();
        match s.stage {
            StageName::Filter => {
                if !cycle.filter_plugins.contains(&plugin) {
                    cycle.filter_plugins.push(plugin.clone());
                }
                let passed = s.outcome == Outcome::Pass;
                let reason = if passed {
                    String::new()
                } else {
                    s.extra()
                        .reason
                        .clone()
                        .unwrap_or_else(|| s.detail.to_string())
                };
                let shortfalls = match &s.detail {
                    Detail::Fit(fit) => fit.shortfalls.clone(),
                    _ => Vec::new(),
                };
                row(&mut cycle, s).filters.push(FilterVerdict {
                    plugin,
                    passed,
                    reason,
                    shortfalls,
                });
            }
            StageName::Score => {
                let weight = s.extra().weight.unwrap_or(1);
                if !cycle.score_plugins.iter().any(|(p, _)| *p == plugin) {
                    cycle.score_plugins.push((plugin.clone(), weight));
                }
                let score = s.extra().score.unwrap_or_default();
                let r = row(&mut cycle, s);
                r.scores.push(ScoreCell {
                    plugin,
                    score,
                    weight,
                    resources: s.extra().resources.clone().unwrap_or_default(),
                });
                r.total = Some(r.total.unwrap_or_default() + score * weight);
            }
            StageName::Select => {
                cycle.unschedulable = s.outcome == Outcome::Unschedulable;
                cycle.verdict = Some(s.detail.to_string());
                cycle.chosen.clone_from(&s.extra().node);
                cycle.nodes_to_score = s.extra().nodes_to_score;
            }
            StageName::Bind if cycle.chosen.is_none() => cycle.chosen.clone_from(&s.extra().node),
            StageName::Queue => cycle.queue = Some(s.detail.to_string()),
            StageName::PostFilter => cycle.preemption = Some(preemption(s)),
            StageName::PreFilter | StageName::PreScore if s.outcome == Outcome::Skip => {
                cycle.skipped.push(SkippedPlugin {
                    at: if s.stage == StageName::PreFilter {
                        "PreFilter"
                    } else {
                        "PreScore"
                    },
                    plugin,
                    reason: s
                        .extra()
                        .reason
                        .clone()
                        .unwrap_or_else(|| s.detail.to_string()),
                });
            }
            _ => {}
        }
    }
    if let Some(chosen) = &cycle.chosen {
        for r in &mut cycle.rows {
            r.chosen = r.node == *chosen;
        }
        rank(&mut cycle.rows);
    }
    cycle
}

/// The `PostFilter` stage's outcome: `… nominated to node-2: preempting default/batch-3`.
fn preemption(s: &Stage) -> Preemption {
    let detail = s.detail.to_string();
    match (s.outcome, s.extra().node.as_deref()) {
        (Outcome::Nominated, Some(node)) => Preemption::Nominated {
            node: node.to_owned(),
            victims: detail
                .split_once(": preempting ")
                .map(|(_, v)| v.split(", ").map(str::to_owned).collect())
                .unwrap_or_default(),
        },
        _ => Preemption::NotHelpful(detail),
    }
}

/// Once a node is chosen, the rows as the outcome ranks them: the chosen
/// node first (so the answer to "why this node?" is the first row however
/// short the pane), the other nodes that passed every filter by total,
/// highest first, then those a filter ruled out, each group in the order the
/// scheduler went through them.
fn rank(rows: &mut [NodeRow]) {
    rows.sort_by_key(|r| (!r.chosen, r.failed().is_some(), std::cmp::Reverse(r.total)));
}

/// Other nodes that fit with the chosen node's total: `selectHost` picked
/// among them at random.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tie<'a> {
    pub chosen: &'a str,
    pub total: i64,
    /// The others, in table order (at least one).
    pub others: Vec<&'a str>,
}

impl Cycle {
    /// The tie the chosen node won, if it won one.
    pub fn tie(&self) -> Option<Tie<'_>> {
        let chosen = self.rows.iter().find(|r| r.chosen)?;
        let total = chosen.total?;
        let others: Vec<&str> = self
            .rows
            .iter()
            .filter(|r| !r.chosen && r.failed().is_none() && r.total == Some(total))
            .map(|r| r.node.as_str())
            .collect();
        (!others.is_empty()).then_some(Tie {
            chosen: &chosen.node,
            total,
            others,
        })
    }
}

fn row<'c>(cycle: &'c mut Cycle, s: &Stage) -> &'c mut NodeRow {
    let node = s.extra().node.clone().unwrap_or_default();
    let at = if let Some(i) = cycle.rows.iter().position(|r| r.node == node) {
        i
    } else {
        cycle.rows.push(NodeRow {
            node,
            filters: Vec::new(),
            scores: Vec::new(),
            total: None,
            chosen: false,
        });
        cycle.rows.len() - 1
    };
    &mut cycle.rows[at]
}

/// A plugin's short name for the table's header: its capitals (`NodeResourcesFit` → `NRF`).
pub fn short(plugin: &str) -> String {
    let caps: String = plugin.chars().filter(char::is_ascii_uppercase).collect();
    if caps.is_empty() {
        plugin.chars().take(4).collect()
    } else {
        caps
    }
}
