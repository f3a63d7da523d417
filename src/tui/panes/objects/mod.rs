//! The objects pane: etcd as the API server left it at the current step —
//! every key with its mod revision, the keys the step wrote marked `*`, the
//! objects grouped by `ownerReferences` (a Deployment ▸ its `ReplicaSet` ▸
//! its Pods) with a short status each — and the selected object as YAML, the
//! fields the step's write changed lit.
//!
//! ```text
//! ┌ Objects (etcd) ───────────────────────────────────────────────────────┐
//! │  /registry/deployments/default/web 3/3 │/registry/pods/default/nginx rev 60│
//! │  └ ReplicaSet web-7c5ddbdf54     3/3 │ changed: metadata.resourceVersion │
//! │    ├ Pod web-7c5ddbdf54-x2k9p Running│apiVersion: v1                     │
//! │*   └ Pod web-7c5ddbdf54-qb8s2 Pending│kind: Pod                          │
//! │  +46 rbac objects                    │spec:                              │
//! │                                 │spec:                                  │
//! │                                 │  nodeName: node-3        ← lit        │
//! └───────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! A step's writes are the `etcd` `persist` stages of the request being
//! handled (or, at a watch record, the write the event delivers). What a write
//! changed is the difference between the object it wrote and the one before,
//! as etcd's own history keeps them (`Change::prev`), or, when that history is
//! compacted, as the trace's earlier `persist` stage of the same key wrote it.
//! When narrow, the object goes below the keys instead of beside them.

mod render;
mod tree;
use podflow_engine::kubectl_printers::yaml;

pub use render::render;
pub use yaml::YamlLine;

use podflow_engine::trace::{Actor, Outcome, StageName};
use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use super::PaneCx;
use super::store_index::{Summaries, listed, with_summaries};
use super::watch::{MAX_ROWS, filter_matches};
use podflow_engine::store::{Archived, Entry, Snapshot};
use podflow_engine::trace::{Record, TraceRecord, WatchRecord};
use podflow_model::Object;

/// How far back from the current record the step's writes are looked for.
const STEP_LOOKBACK: usize = 512;

/// Key prefixes hidden behind one summary row unless the filter asks for them.
const RBAC_PREFIXES: [&str; 2] = ["/registry/clusterroles/", "/registry/clusterrolebindings/"];

/// One key of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRow {
    pub key: String,
    /// The revision that last wrote the key.
    pub mod_revision: u64,
    /// Whether the current step wrote it.
    pub changed: bool,
    /// The owner tree's guide (`├ `, `│ └ `; empty for a root).
    pub guide: String,
    /// What the row names: the key for a root, `ReplicaSet web-7c5ddbdf54`
    /// for a dependent.
    pub label: String,
    /// The short status (`3/3`, `Running`, `Terminating`).
    pub status: Option<String>,
}

/// The selected object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shown {
    pub key: String,
    /// Its mod revision (for a key deleted at this step: the delete's revision).
    pub revision: u64,
    /// The fields the step's write changed (`spec.nodeName`, `status.phase`).
    pub changed_paths: Vec<String>,
    /// The step created the key.
    pub created: bool,
    /// The step deleted the key (the YAML is its last state).
    pub deleted: bool,
    /// The object as YAML.
    pub lines: Vec<YamlLine>,
    /// The line to bring into view: the first changed one that is not
    /// `metadata.resourceVersion` (which every write changes).
    pub focus: Option<usize>,
}

/// The object the story is about while etcd does not hold it: a create still
/// on its way through the API server's chain (or refused by it), or an object
/// already deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Absent {
    pub key: String,
    /// A recent write deleted it (else it has not been written yet).
    pub deleted: bool,
}

/// What the pane shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// A window of the listed keys, in key order.
    pub keys: Vec<KeyRow>,
    /// Index in the whole list of `keys[0]`.
    pub first: usize,
    /// How many keys the whole list has.
    pub total: usize,
    /// Index in the whole list of the selected key (the app's next
    /// `PaneState::selected` for "down" is this + 2: `selected` is 1-based,
    /// 0 following the step).
    pub selected: Option<usize>,
    /// Keys hidden behind the "+N rbac objects" row.
    pub hidden_rbac: usize,
    /// The selected object, if any.
    pub shown: Option<Shown>,
    /// Following the step onto a key etcd does not hold: no row is selected
    /// and the pane says so, rather than showing an unrelated object.
    pub absent: Option<Absent>,
    /// Lines the object is scrolled down from its natural position.
    pub scroll: usize,
    /// The filter in force (empty: none).
    pub filter: String,
}

/// One write of the current step.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Write {
    key: String,
    revision: u64,
    deleted: bool,
}

impl Model {
    /// Builds the model from the current step.
    ///
    /// `state.selected` is 1-based: 0 selects the key the current record
    /// touched (its write, its watch event's object, its Pod); when etcd does
    /// not hold that key, nothing ([`Model::absent`]); when no record names
    /// one, the first key.
    pub fn build(cx: &PaneCx<'_>) -> Model {
        with_summaries(&cx.view.store, |summaries| Model::build_from(cx, summaries))
    }

    /// [`Model::build`] with the store's summaries at hand.
    fn build_from(cx: &PaneCx<'_>, summaries: &Summaries) -> Model {
        let records = cx.view.records;
        let store = &cx.view.store;
        let filter = cx.state.filter.trim().to_owned();
        let writes = step_writes(records);
        let written: HashSet<&str> = writes.iter().map(|w| w.key.as_str()).collect();

        let mut hidden_rbac = 0;
        let forest = if filter.is_empty() {
            tree::forest(summaries, |key| {
                let hide = is_rbac(key) && !written.contains(key);
                hidden_rbac += usize::from(hide);
                !hide
            })
        } else {
            tree::Forest::flat(
                store
                    .iter()
                    .map(|(key, _)| key)
                    .filter(|key| filter_matches(&filter, &[key])),
            )
        };

        let touched = writes
            .first()
            .map(|w| w.key.clone())
            .or_else(|| heading_to(cx.view.later_in_event))
            .or_else(|| pod_key(records));
        // Following the step onto a key etcd does not hold: one it deleted
        // shows its last state; else the pane says where the key is.
        let follows = cx.state.selected == 0;
        let deleted = follows
            .then(|| writes.first().filter(|w| w.deleted))
            .flatten()
            .and_then(|w| deleted_shown(store, records, w));
        let absent = (follows && deleted.is_none())
            .then_some(touched.as_deref())
            .flatten()
            .filter(|key| store.get(key).is_none())
            .map(|key| Absent {
                key: key.to_owned(),
                deleted: deleted_lately(records, key),
            });
        let selected = if forest.is_empty() || deleted.is_some() || absent.is_some() {
            None
        } else if !follows {
            Some((cx.state.selected - 1).min(forest.len() - 1))
        } else {
            Some(
                touched
                    .as_deref()
                    .and_then(|t| forest.position(t))
                    .unwrap_or(0),
            )
        };

        let at = selected.unwrap_or(0);
        let first = at.saturating_sub(MAX_ROWS);
        let end = forest.len().min(at.saturating_add(MAX_ROWS));
        let keys = (first..end)
            .map(|i| {
                let key = forest.key(i);
                let entry = store.get(key);
                // A row decodes no replaced version (`listed`); an object's
                // key ends with its name (`key_for`).
                let (kind, status) = entry.map(listed).unzip();
                let name = key.rsplit('/').next().unwrap_or(key);
                KeyRow {
                    key: key.to_owned(),
                    mod_revision: entry.map_or(0, |e| e.mod_revision),
                    changed: written.contains(key),
                    guide: forest.guide(i),
                    label: match kind {
                        Some(kind) if forest.depth(i) > 0 => format!("{kind} {name}"),
                        _ => key.to_owned(),
                    },
                    status: status.flatten(),
                }
            })
            .collect();

        let shown = deleted
            .or_else(|| selected.and_then(|i| shown(store, records, &writes, forest.key(i))));

        Model {
            keys,
            first,
            total: forest.len(),
            selected,
            hidden_rbac,
            shown,
            absent,
            scroll: cx.state.scroll,
            filter,
        }
    }
}

fn is_rbac(key: &str) -> bool {
    RBAC_PREFIXES.iter().any(|p| key.starts_with(p))
}

/// The writes of the current step, newest first: at a watch record, the write
/// it delivers; else the `persist` stages walking back to the request that
/// the API server is handling.
fn step_writes(records: &[TraceRecord]) -> Vec<Write> {
    let mut writes = Vec::new();
    if let Some(TraceRecord {
        body: Record::Watch(w),
        ..
    }) = records.last()
    {
        let key = watch_key(w);
        if let Ok(revision) = w.resource_version.parse() {
            writes.push(Write {
                key,
                revision,
                deleted: w.event_type == "DELETED",
            });
        }
        return writes;
    }
    for record in records.iter().rev().take(STEP_LOOKBACK) {
        match &record.body {
            Record::Stage(s) if s.component == Actor::Etcd && s.stage == StageName::Persist => {
                if let (Some(key), Some(revision)) = (&s.extra().key, s.extra().revision)
                    && matches!(s.outcome, Outcome::Ok | Outcome::Delete)
                {
                    writes.push(Write {
                        key: key.clone(),
                        revision,
                        deleted: s.outcome == Outcome::Delete,
                    });
                }
            }
            Record::Watch(_) => break,
            Record::Message { to, .. } if *to == Actor::ApiServer => break,
            _ => {}
        }
    }
    writes
}

/// The key the request being handled will write, when the API server is
/// still on its way there (authenticating, admitting, validating): its
/// `persist` stage later in the same event, before the response (none for
/// a request that parks in admission: it writes later, if at all).
fn heading_to(later: &[TraceRecord]) -> Option<String> {
    later
        .iter()
        .take_while(|r| match &r.body {
            Record::Response { .. } => false,
            Record::Stage(s) => !(s.component == Actor::ApiServer && s.outcome == Outcome::Waiting),
            _ => true,
        })
        .find_map(|r| match &r.body {
            Record::Stage(s) if s.component == Actor::Etcd && s.stage == StageName::Persist => {
                s.extra().key.clone()
            }
            _ => None,
        })
}

/// How far back the pane looks for the object the story is about.
const STORY_LOOKBACK: usize = 512;

/// The key of the object the story is about at the current record: the
/// nearest record, walking back, that names one (a stage about a Pod, an etcd
/// write, a watch event, an Event about a Pod).
fn pod_key(records: &[TraceRecord]) -> Option<String> {
    records
        .iter()
        .rev()
        .take(STORY_LOOKBACK)
        .find_map(|r| match &r.body {
            Record::Stage(s) if s.extra().key.is_some() => s.extra().key.clone(),
            Record::Stage(s) => s
                .extra()
                .pod
                .as_ref()
                .map(|p| format!("/registry/pods/{p}")),
            Record::Watch(w) => Some(watch_key(w)),
            Record::Event(e) if e.object.kind == "Pod" => e
                .object
                .namespace
                .as_ref()
                .map(|ns| format!("/registry/pods/{ns}/{}", e.object.name)),
            _ => None,
        })
}

/// The etcd key of the object a watch event delivers.
fn watch_key(w: &WatchRecord) -> String {
    match w.namespace.as_deref() {
        Some(ns) => format!("/registry/{}/{ns}/{}", w.resource, w.name),
        None => format!("/registry/{}/{}", w.resource, w.name),
    }
}

/// Whether a write within the story's lookback deleted `key` (its `persist`
/// stage, or under `--detail summary` its `DELETED` watch event).
fn deleted_lately(records: &[TraceRecord], key: &str) -> bool {
    records
        .iter()
        .rev()
        .take(STORY_LOOKBACK)
        .any(|r| match &r.body {
            Record::Stage(s) => {
                s.stage == StageName::Persist
                    && s.outcome == Outcome::Delete
                    && s.extra().key.as_deref() == Some(key)
            }
            Record::Watch(w) => w.event_type == "DELETED" && watch_key(w) == key,
            _ => false,
        })
}

/// How many shown objects are remembered: playing draws each step a few
/// times, and stepping back and forth comes back to the same objects.
const SHOWN_MEMO: usize = 8;

/// What a [`Shown`] is made from: the stored object (by pointer, and kept
/// alive here so that the pointer is not reused), its revisions, and the
/// step's write of it.
struct ShownFrom {
    object: Arc<Object>,
    revisions: (u64, u64),
    write: Option<Write>,
}

thread_local! {
    /// The latest objects shown (a memo: the YAML of a Pod is the bulk of a frame).
    static SHOWN: RefCell<VecDeque<(ShownFrom, Shown)>> = const { RefCell::new(VecDeque::new()) };
}

/// The object at `key` as the pane shows it, remembered.
fn shown(store: &Snapshot, records: &[TraceRecord], writes: &[Write], key: &str) -> Option<Shown> {
    let entry = store.get(key)?;
    let write = writes.iter().find(|w| w.key == key);
    let from = ShownFrom {
        object: entry.object.load(),
        revisions: (entry.create_revision, entry.mod_revision),
        write: write.cloned(),
    };
    let same = |(f, shown): &(ShownFrom, Shown)| {
        Arc::ptr_eq(&f.object, &from.object)
            && f.revisions == from.revisions
            && f.write == from.write
            && shown.key == key
    };
    if let Some(hit) =
        SHOWN.with(|memo| memo.borrow().iter().find(|e| same(e)).map(|e| e.1.clone()))
    {
        return Some(hit);
    }
    let shown = shown_afresh(store, records, write, key, entry);
    SHOWN.with(|memo| {
        let mut memo = memo.borrow_mut();
        if memo.len() == SHOWN_MEMO {
            memo.pop_front();
        }
        memo.push_back((from, shown.clone()));
    });
    Some(shown)
}

/// [`shown`], made: `entry` is `store`'s at `key`.
fn shown_afresh(
    store: &Snapshot,
    records: &[TraceRecord],
    write: Option<&Write>,
    key: &str,
    entry: &Entry<Archived>,
) -> Shown {
    let after = entry.object.load().to_json();
    let mut shown = Shown {
        key: key.to_owned(),
        revision: entry.mod_revision,
        ..Shown::default()
    };
    if let Some(write) = write
        && let Some((before, written)) = change_at(store, records, write)
    {
        match before {
            Some(before) => {
                let written = written.as_ref().unwrap_or(&after);
                shown.changed_paths = yaml::changed_paths(&before, written);
            }
            None => shown.created = entry.create_revision == write.revision,
        }
    }
    shown.lines = yaml::lines(&after, &shown.changed_paths);
    shown.focus = focus_line(&shown.lines, &shown.changed_paths);
    shown
}

/// A key deleted at this step, shown in its last state.
fn deleted_shown(store: &Snapshot, records: &[TraceRecord], write: &Write) -> Option<Shown> {
    let (before, after) = change_at(store, records, write)?;
    let last = after.or(before)?;
    Some(Shown {
        key: write.key.clone(),
        revision: write.revision,
        deleted: true,
        lines: yaml::lines(&last, &[]),
        ..Shown::default()
    })
}

/// The first changed line worth looking at.
fn focus_line(lines: &[YamlLine], changed: &[String]) -> Option<usize> {
    let only_rv = changed.iter().all(|p| p == "metadata.resourceVersion");
    lines.iter().position(|l| {
        l.changed && (only_rv || !l.text.trim_start().starts_with("resourceVersion:"))
    })
}

/// The object before and after `write`: from etcd's history, else from the
/// trace's `persist` stages (present under `--detail full`).
fn change_at(
    store: &Snapshot,
    records: &[TraceRecord],
    write: &Write,
) -> Option<(Option<Value>, Option<Value>)> {
    if let Ok(mut changes) = store.changes_since(write.revision.saturating_sub(1))
        && let Some(change) = changes
            .by_ref()
            .take_while(|c| c.revision <= write.revision)
            .find(|c| c.revision == write.revision && c.key == write.key)
    {
        return Some((
            change.prev.as_ref().map(|p| p.load().to_json()),
            Some(change.object.load().to_json()),
        ));
    }
    let mut persists = records.iter().rev().filter_map(|r| match &r.body {
        Record::Stage(s)
            if s.stage == StageName::Persist && s.extra().key.as_deref() == Some(&write.key) =>
        {
            Some(s)
        }
        _ => None,
    });
    let this = persists.find(|s| s.extra().revision == Some(write.revision))?;
    let before = persists
        .find(|s| matches!(s.outcome, Outcome::Ok | Outcome::Delete))
        .filter(|s| s.outcome == Outcome::Ok)
        .and_then(|s| s.extra().object.clone());
    Some((before, this.extra().object.clone()))
}

#[cfg(test)]
mod tests;
