//! Stages that repeat, kept once. Every request the API server handles
//! leaves a record per admission plugin, and most of those read the same
//! from one request to the next (`NamespaceLifecycle allow`), as do its
//! authentication, authorization and validation stages for the same client
//! and kind: a Deployment of 10,000 replicas on 1,000 nodes makes about
//! 480,000 such stages, of which about 11,000 are distinct (one per Pod, the
//! `ServiceAccount` plugin naming its token volume; one per node, its kubelet's
//! user authenticated; and two dozen more). The trace holds each distinct one
//! once, behind the `Arc` of [`Record::Stage`], and the copies are pointers.
//!
//! Sharing changes nothing a reader sees: a shared stage is equal, field for
//! field, to the one it stands for. The table is only looked up, never
//! walked, so it hashes with foldhash's fixed-seed hasher instead of `std`'s
//! `SipHash` (which took a sixtieth of a large run's instructions hashing
//! stages): nothing depends on its order.

use std::collections::HashSet;
use std::sync::Arc;

use foldhash::fast::FixedState;

use crate::trace::{Record, Stage};

/// At most this many distinct stages are kept to share; past it the table
/// starts afresh (a stage whose detail names an object is seldom seen twice,
/// and must not make the table grow with the run).
const CAPACITY: usize = 4096;

/// The distinct stages seen lately, each shared by every record of it
/// (looked up by content: `Arc<Stage>` borrows as the `Stage` it holds).
#[derive(Debug, Clone, Default)]
pub struct SharedStages {
    known: HashSet<Arc<Stage>, FixedState>,
    /// Sharing nothing: each stage its own record.
    off: bool,
}

impl SharedStages {
    /// A table that shares stages, or (`share` false) one that shares
    /// nothing, for records dropped as soon as they are written.
    pub fn sharing(share: bool) -> SharedStages {
        SharedStages {
            off: !share,
            ..SharedStages::default()
        }
    }

    /// The record of `stage`: the one already kept when an equal stage was
    /// seen lately, else a new one (kept, when it has no extras: its Pod,
    /// node or key make a stage with extras one of a kind).
    pub fn record(&mut self, stage: Stage) -> Record {
        if stage.has_extra() || self.off {
            return Record::from(stage);
        }
        if let Some(known) = self.known.get(&stage) {
            return Record::Stage(Arc::clone(known));
        }
        if self.known.len() >= CAPACITY {
            self.known.clear();
        }
        let stage = Arc::new(stage);
        self.known.insert(Arc::clone(&stage));
        Record::Stage(stage)
    }

    /// How many distinct stages are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.known.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Actor, Outcome, StageName};

    fn shared(record: &Record) -> &Arc<Stage> {
        match record {
            Record::Stage(stage) => stage,
            other => panic!("not a stage: {other:?}"),
        }
    }

    #[test]
    fn equal_stages_share_one_and_others_do_not() {
        let mut stages = SharedStages::default();
        let allow = || {
            Stage::new(Actor::ApiServer, StageName::Admission, Outcome::Allow, "")
                .plugin("NamespaceLifecycle")
        };
        let first = stages.record(allow());
        let again = stages.record(allow());
        assert!(Arc::ptr_eq(shared(&first), shared(&again)));
        let other = stages.record(allow().plugin("PodSecurity"));
        assert!(!Arc::ptr_eq(shared(&first), shared(&other)));
        assert_eq!(**shared(&first), allow(), "a shared stage reads as its own");
        assert_eq!(stages.len(), 2);
    }

    #[test]
    fn a_stage_with_extras_is_never_kept() {
        let mut stages = SharedStages::default();
        let bound =
            || Stage::new(Actor::Scheduler, StageName::Bind, Outcome::Ok, "").pod("default/web-1");
        let first = stages.record(bound());
        let again = stages.record(bound());
        assert!(!Arc::ptr_eq(shared(&first), shared(&again)));
        assert_eq!(stages.len(), 0);
        assert_eq!(shared(&first), shared(&again));
    }

    #[test]
    fn the_table_starts_afresh_when_full() {
        let mut stages = SharedStages::default();
        for n in 0..=CAPACITY {
            stages.record(Stage::new(
                Actor::ApiServer,
                StageName::Validation,
                Outcome::Allow,
                n.to_string(),
            ));
        }
        assert_eq!(stages.len(), 1, "cleared at {CAPACITY}, then the last kept");
    }
}
