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
//! field, to the one it stands for.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::engine::trace::{Record, Stage};

/// At most this many distinct stages are kept to share; past it the table
/// starts afresh (a stage whose detail names an object is seldom seen twice,
/// and must not make the table grow with the run).
const CAPACITY: usize = 4096;

/// The distinct stages seen lately, each shared by every record of it.
#[derive(Debug, Clone, Default)]
pub struct SharedStages {
    known: HashSet<Shared>,
}

/// A kept stage, hashed and compared by its content.
#[derive(Debug, Clone)]
struct Shared(Arc<Stage>);

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        *self.0 == *other.0
    }
}

impl Eq for Shared {}

/// By the fields a stage without extras is told apart by (a stage with
/// extras is never kept: its Pod, node or key make it one of a kind).
impl Hash for Shared {
    fn hash<H: Hasher>(&self, hasher: &mut H) {
        let stage = &*self.0;
        (
            &stage.component,
            &stage.stage,
            &stage.outcome,
            &stage.detail,
            &stage.phase,
            &stage.plugin,
        )
            .hash(hasher);
    }
}

impl SharedStages {
    /// The record of `stage`: the one already kept when an equal stage was
    /// seen lately, else a new one (kept, when it has no extras).
    pub fn record(&mut self, stage: Stage) -> Record {
        if stage.has_extra() {
            return Record::from(stage);
        }
        let shared = Shared(Arc::new(stage));
        if let Some(known) = self.known.get(&shared) {
            return Record::Stage(Arc::clone(&known.0));
        }
        if self.known.len() >= CAPACITY {
            self.known.clear();
        }
        let record = Record::Stage(Arc::clone(&shared.0));
        self.known.insert(shared);
        record
    }

    /// How many distinct stages are kept.
    pub fn len(&self) -> usize {
        self.known.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(record: &Record) -> &Arc<Stage> {
        match record {
            Record::Stage(stage) => stage,
            other => panic!("not a stage: {other:?}"),
        }
    }

    #[test]
    fn equal_stages_share_one_and_others_do_not() {
        let mut stages = SharedStages::default();
        let allow =
            || Stage::new("kube-apiserver", "admission", "allow", "").plugin("NamespaceLifecycle");
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
        let bound = || Stage::new("kube-scheduler", "bind", "ok", "").pod("default/web-1");
        let first = stages.record(bound());
        let again = stages.record(bound());
        assert!(!Arc::ptr_eq(shared(&first), shared(&again)));
        assert!(stages.is_empty());
        assert_eq!(shared(&first), shared(&again));
    }

    #[test]
    fn the_table_starts_afresh_when_full() {
        let mut stages = SharedStages::default();
        for n in 0..=CAPACITY {
            stages.record(Stage::new(
                "kube-apiserver",
                "validation",
                "allow",
                n.to_string(),
            ));
        }
        assert_eq!(stages.len(), 1, "cleared at {CAPACITY}, then the last kept");
    }
}
