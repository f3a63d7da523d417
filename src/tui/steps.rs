//! Steps as the keys and the play timer move through them: one record
//! each, except that a run of heartbeats (engine events that only renew
//! node Leases, `trace::heartbeat`) is one step, shown at its last record.
//! A quiet half hour is then a step, not 11,000 (`H` shows every record).

use std::ops::Range;

use podflow_engine::timeline::Timeline;
use podflow_engine::trace::heartbeat::{is_heartbeat, is_lease_renewal, is_node_status_report};
use podflow_engine::trace::{Actor, Record};

use super::phases;

/// Whether a run of heartbeats is one step or each renewal is (`H`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heartbeats {
    /// A run of Lease renewals is one step (the default).
    Folded,
    /// Every renewal is a step of its own.
    Each,
}

impl Heartbeats {
    /// Whether runs of heartbeats are folded into one step.
    pub fn folded(self) -> bool {
        self == Heartbeats::Folded
    }

    /// The other choice.
    #[must_use]
    pub fn toggle(self) -> Heartbeats {
        match self {
            Heartbeats::Folded => Heartbeats::Each,
            Heartbeats::Each => Heartbeats::Folded,
        }
    }
}

/// A run of heartbeat events folded into one step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    /// Its records.
    pub range: Range<usize>,
    /// The Lease renewals in it (the kubelets' PUTs).
    pub renewals: usize,
    /// The kubelets' reports of their Node's status in it.
    pub status_reports: usize,
    /// Simulated milliseconds of its first and last record.
    pub from_ms: u64,
    pub to_ms: u64,
}

impl Fold {
    /// The record the fold shows: its last, with every renewal done.
    pub fn shown(&self) -> usize {
        self.range.end - 1
    }
}

/// Whether the engine event holding record `index` is a heartbeat.
fn heartbeat_event(timeline: &Timeline, index: usize) -> Option<Range<usize>> {
    let event = timeline.event_range(index);
    (!event.is_empty() && is_heartbeat(&timeline.records()[event.clone()])).then_some(event)
}

/// The fold holding record `index`, when it is part of a heartbeat.
pub fn fold_at(timeline: &Timeline, index: usize) -> Option<Fold> {
    if index >= timeline.len() {
        return None;
    }
    let event = heartbeat_event(timeline, index)?;
    let mut range = event.clone();
    while range.start > 0 {
        match heartbeat_event(timeline, range.start - 1) {
            Some(before) => range.start = before.start,
            None => break,
        }
    }
    while range.end < timeline.len() {
        match heartbeat_event(timeline, range.end) {
            Some(after) => range.end = after.end,
            None => break,
        }
    }
    let records = &timeline.records()[range.clone()];
    let requests = || {
        records.iter().filter_map(|r| match &r.body {
            Record::Message {
                from,
                to: Actor::ApiServer,
                label,
                request: Some(_),
            } => Some((from, label)),
            _ => None,
        })
    };
    let renewals = requests()
        .filter(|(_, label)| is_lease_renewal(label))
        .count();
    let status_reports = requests()
        .filter(|(from, label)| is_node_status_report(from, label))
        .count();
    Some(Fold {
        from_ms: records[0].t_ms,
        to_ms: records[records.len() - 1].t_ms,
        range,
        renewals,
        status_reports,
    })
}

/// The step after `cursor` (the run's last record at most): the next
/// record, or, where heartbeats are folded, past the fold `cursor` is in
/// and onto the shown record of a fold that follows.
pub fn next(timeline: &Timeline, cursor: usize, fold: bool) -> usize {
    let last = timeline.len().saturating_sub(1);
    let step = (cursor + 1).min(last);
    if !fold {
        return step;
    }
    match fold_at(timeline, step) {
        Some(f) if f.range.contains(&cursor) => f.range.end.min(last),
        Some(f) => f.shown(),
        None => step,
    }
}

/// The step before `cursor`: the record before, or before the fold
/// `cursor` is in (a fold just before shows its last record).
pub fn previous(timeline: &Timeline, cursor: usize, fold: bool) -> usize {
    if fold && let Some(f) = fold_at(timeline, cursor) {
        return f.range.start.saturating_sub(1);
    }
    cursor.saturating_sub(1)
}

/// The next phase's start after `cursor`, a fold being one phase (its
/// shown record).
pub fn next_phase(timeline: &Timeline, cursor: usize, fold: bool) -> Option<usize> {
    let records = timeline.records();
    if !fold {
        return phases::next(records, cursor);
    }
    let from = fold_at(timeline, cursor).map_or(cursor, |f| f.shown());
    let start = phases::next(records, from)?;
    Some(fold_at(timeline, start).map_or(start, |f| f.shown()))
}

/// The current phase's start, or the one before's when at a start; a fold
/// is one phase.
pub fn previous_phase(timeline: &Timeline, cursor: usize, fold: bool) -> usize {
    let records = timeline.records();
    if !fold {
        return phases::previous(records, cursor);
    }
    let from = fold_at(timeline, cursor).map_or(cursor, |f| f.range.start);
    let start = phases::previous(records, from);
    fold_at(timeline, start).map_or(start, |f| f.shown())
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_engine::testing::timeline;

    /// A Pod whose image does not exist: it backs off for minutes, and the
    /// nodes renew their Leases all the while.
    fn quiet_run() -> Timeline {
        let mut t = timeline(&["apply -f tests/fixtures/missing-image-pod.yaml"], None);
        t.finish();
        t
    }

    #[test]
    fn a_run_of_renewals_is_one_step_shown_at_its_end() {
        let t = quiet_run();
        let first = (0..t.len())
            .find(|&i| fold_at(&t, i).is_some())
            .expect("the nodes renew their Leases");
        let fold = fold_at(&t, first).unwrap();
        assert_eq!(fold.range.start, first);
        assert!(fold.renewals >= 3, "{fold:?}");
        assert_eq!(fold_at(&t, fold.shown()), Some(fold.clone()));
        assert!(fold_at(&t, fold.range.end).is_none(), "a fold is maximal");
        assert!(fold_at(&t, first - 1).is_none());

        // → lands on the fold's last record, then leaves it; ← comes back.
        assert_eq!(next(&t, first - 1, true), fold.shown());
        assert_eq!(next(&t, fold.shown(), true), fold.range.end);
        assert_eq!(next(&t, first, true), fold.range.end, "from inside too");
        assert_eq!(previous(&t, fold.range.end, true), fold.shown());
        assert_eq!(previous(&t, fold.shown(), true), first - 1);
        // Unfolded, every record is a step.
        assert_eq!(next(&t, first - 1, false), first);
        assert_eq!(previous(&t, fold.shown(), false), fold.shown() - 1);
    }

    #[test]
    fn folding_makes_a_quiet_half_hour_short() {
        let t = quiet_run();
        let mut steps = 0;
        let mut cursor = 0;
        while cursor + 1 < t.len() {
            cursor = next(&t, cursor, true);
            steps += 1;
        }
        assert!(t.len() > 10_000, "{}", t.len());
        assert!(steps * 10 < t.len(), "{steps} steps of {} records", t.len());
    }

    #[test]
    fn a_fold_is_one_phase() {
        let t = quiet_run();
        let first = (0..t.len()).find(|&i| fold_at(&t, i).is_some()).unwrap();
        let fold = fold_at(&t, first).unwrap();
        assert_eq!(next_phase(&t, first - 1, true), Some(fold.shown()));
        let after = next_phase(&t, fold.shown(), true).expect("the run goes on");
        assert!(after >= fold.range.end);
        assert_eq!(previous_phase(&t, after, true), fold.shown());
    }
}
