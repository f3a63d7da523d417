//! The scheduling table: for the latest scheduling cycle of a Pod, every
//! node's filter verdicts, its scores per plugin and weight, and the total,
//! as `pkg/scheduler/schedule_one.go` computes them (`findNodesThatFitPod`,
//! `prioritizeNodes`, `selectHost`).

use podflow_engine::trace::StageName;
use podflow_engine::trace::{Actor, Outcome};
use podflow_engine::trace::{Record, Stage, TraceRecord};

/// How far back the pane looks for a scheduling cycle.
pub const LOOK_BACK: usize = 10_000;

/// One Filter plugin's verdict on one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterVerdict {
    pub plugin: String,
    pub passed: bool,
    /// The plugin's reason when it failed: `node(s) had untolerated taint(s)`.
    pub reason: String,
}

/// One Score plugin's normalised score on one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreCell {
    pub plugin: String,
    pub score: i64,
    pub weight: i64,
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
}

fn scheduler_stage(record: &TraceRecord) -> Option<&Stage> {
    match &record.body {
        Record::Stage(s) if s.component == Actor::Scheduler => Some(s),
        _ => None,
    }
}

/// The cycle that `records`' last scheduler stage belongs to, looking back at
/// most [`LOOK_BACK`] records.
pub fn latest(records: &[TraceRecord]) -> Option<Cycle> {
    let floor = records.len().saturating_sub(LOOK_BACK);
    let anchor = (floor..records.len())
        .rev()
        .find(|&i| scheduler_stage(&records[i]).is_some_and(|s| s.extra().pod.is_some()))?;
    let pod = scheduler_stage(&records[anchor])?.extra().pod.clone()?;
    // A cycle's records are contiguous and in phase order (filter,
    // postfilter or score, select, reserve, bind): going back, a later phase means an earlier cycle.
    let mut start = anchor;
    while start > 0 {
        let (Some(before), Some(this)) = (
            scheduler_stage(&records[start - 1]),
            scheduler_stage(&records[start]),
        ) else {
            break;
        };
        if before.extra().pod.as_deref() != Some(pod.as_str()) || phase(before) > phase(this) {
            break;
        }
        start -= 1;
    }
    Some(collect(&pod, &records[start..=anchor]))
}

/// The place of a stage in a cycle.
fn phase(s: &Stage) -> u8 {
    match s.stage {
        StageName::PreFilter | StageName::Filter => 0,
        // PostFilter (preemption) runs when no node passed the filters.
        StageName::PostFilter => 1,
        StageName::Score => 2,
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
                row(&mut cycle, s).filters.push(FilterVerdict {
                    plugin,
                    passed,
                    reason,
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
                });
                r.total = Some(r.total.unwrap_or_default() + score * weight);
            }
            StageName::Select => {
                cycle.unschedulable = s.outcome == Outcome::Unschedulable;
                cycle.verdict = Some(s.detail.to_string());
                cycle.chosen.clone_from(&s.extra().node);
            }
            StageName::Bind if cycle.chosen.is_none() => cycle.chosen.clone_from(&s.extra().node),
            StageName::Queue => cycle.queue = Some(s.detail.to_string()),
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
