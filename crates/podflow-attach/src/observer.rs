//! The observation, sans IO: what the watchers delivered ([`Input`]) in,
//! podflow's trace records out. Each change is a `watch` record with the
//! fields it touched, after a `message` from its writer when the
//! `managedFields` tell who it was; each Event occurrence an `event` record
//! after a `message` from its reporter; notices are `log` records of
//! `podflow-attach`; [`Observer::final_record`] the objects last seen.
//!
//! Memory: one version of each object is kept, never its history: whole
//! (typed, without its managed fields) up to [`FULL_OBJECTS`] objects, and
//! past that as its summary (each top-level field's hash, its
//! resourceVersion and managers), enough to tell what a change touched.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;
use podflow_engine::store::{Store, key_for};
use podflow_engine::trace::{Actor, EventObject, EventRecord, Record, TraceRecord, WatchRecord};
use podflow_model::Object;
use serde_json::Value;

use crate::actor;
use crate::fields::{self, Summary};
use crate::managers::{self, Stamp};
use crate::watched::Watched;

/// How many objects are kept whole (for the `final` record and the objects
/// pane); past it, new objects are kept as summaries.
pub const FULL_OBJECTS: usize = 10_000;
/// How many Events' occurrence counts are remembered, to tell a repeat from
/// a new occurrence; the oldest are forgotten past it.
pub const EVENTS_REMEMBERED: usize = 10_000;

/// The name `podflow attach` watches as.
pub const WATCHER: &str = "podflow-attach";

/// What a watcher delivered (kube-runtime's `watcher::Event`s, as JSON).
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A list starts (`Event::Init`): the first, or a relist.
    ListStart(Watched),
    /// An object of the list (`Event::InitApply`).
    Listed(Watched, Value),
    /// The list is complete (`Event::InitDone`).
    ListDone(Watched),
    /// An object added or modified (`Event::Apply`).
    Applied(Watched, Value),
    /// An object deleted (`Event::Delete`).
    Deleted(Watched, Value),
    /// Something to tell the user (a scope narrowed, a watch failed).
    Notice(String),
}

/// What is kept of one object.
#[derive(Debug, Clone)]
struct Kept {
    watched: Watched,
    namespace: Option<String>,
    name: String,
    resource_version: String,
    stamps: Vec<Stamp>,
    summary: Summary,
    /// The object whole, while under [`FULL_OBJECTS`].
    object: Option<Arc<Object>>,
}

/// The observation so far.
#[derive(Debug)]
pub struct Observer {
    seq: u64,
    /// By etcd key, so the `final` record lists them in etcd's order.
    objects: BTreeMap<String, Kept>,
    whole: usize,
    /// The keys seen by a list in progress, per resource.
    listing: HashMap<Watched, BTreeSet<String>>,
    /// How many lists each resource has had.
    lists: HashMap<Watched, u32>,
    /// Each Event's occurrences told, by uid, oldest first to forget.
    events: HashMap<String, i64>,
    event_order: VecDeque<String>,
    full_cap: usize,
    /// The objects kept whole as a store, for the TUI's panes (a clone is
    /// cheap: its maps are persistent).
    store: Store,
}

impl Default for Observer {
    fn default() -> Observer {
        Observer::new()
    }
}

impl Observer {
    /// An empty observation.
    pub fn new() -> Observer {
        Observer::with_cap(FULL_OBJECTS)
    }

    /// One that keeps at most `full_cap` objects whole.
    pub fn with_cap(full_cap: usize) -> Observer {
        Observer {
            seq: 0,
            objects: BTreeMap::new(),
            whole: 0,
            listing: HashMap::new(),
            lists: HashMap::new(),
            events: HashMap::new(),
            event_order: VecDeque::new(),
            full_cap,
            store: Store::default(),
        }
    }

    /// How many objects are kept, and how many of them whole.
    pub fn census(&self) -> (usize, usize) {
        (self.objects.len(), self.whole)
    }

    /// The objects kept whole, in etcd key order.
    pub fn objects(&self) -> impl Iterator<Item = (&str, &Arc<Object>)> {
        self.objects
            .iter()
            .filter_map(|(key, kept)| Some((key.as_str(), kept.object.as_ref()?)))
    }

    /// The objects kept whole, as a store at their own resourceVersions.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The records `input`, arriving at `t_ms`, makes.
    pub fn observe(&mut self, t_ms: u64, input: Input) -> Vec<TraceRecord> {
        let bodies = match input {
            Input::ListStart(watched) => {
                self.listing.insert(watched, BTreeSet::new());
                *self.lists.entry(watched).or_default() += 1;
                Vec::new()
            }
            Input::Listed(watched, object) => {
                let bodies = self.applied(watched, &object);
                if let Some((key, _, _)) = identity(watched, &object)
                    && let Some(seen) = self.listing.get_mut(&watched)
                {
                    seen.insert(key);
                }
                bodies
            }
            Input::ListDone(watched) => self.list_done(watched),
            Input::Applied(watched, object) => self.applied(watched, &object),
            Input::Deleted(watched, object) => self.deleted(watched, &object),
            Input::Notice(line) => vec![notice(line)],
        };
        bodies
            .into_iter()
            .map(|body| self.stamp(t_ms, body))
            .collect()
    }

    fn stamp(&mut self, t_ms: u64, body: Record) -> TraceRecord {
        let seq = self.seq;
        self.seq += 1;
        TraceRecord { seq, t_ms, body }
    }

    /// The last record: the objects kept whole, and a notice first when
    /// some were kept only as summaries.
    pub fn final_records(&mut self, t_ms: u64) -> Vec<TraceRecord> {
        let mut out = Vec::new();
        let summarised = self.objects.len() - self.whole;
        if summarised > 0 {
            let line = format!(
                "{summarised} objects past the first {} are kept as summaries and left out of the final record",
                self.full_cap
            );
            out.push(self.stamp(t_ms, notice(line)));
        }
        let objects = self
            .objects
            .values()
            .filter_map(|kept| kept.object.clone())
            .collect();
        out.push(self.stamp(t_ms, Record::Final { objects }));
        out
    }

    fn applied(&mut self, watched: Watched, object: &Value) -> Vec<Record> {
        if watched == Watched::Events {
            return self.event(object);
        }
        let Some((key, namespace, name)) = identity(watched, object) else {
            return Vec::new();
        };
        let resource_version = text(object, &["metadata", "resourceVersion"]).to_owned();
        let entries: Vec<ManagedFieldsEntry> = object
            .pointer("/metadata/managedFields")
            .cloned()
            .and_then(|m| serde_json::from_value(m).ok())
            .unwrap_or_default();
        let stamps = Stamp::of(&entries);
        let summary = fields::summary(object);
        let old = self.objects.get(&key);
        if old.is_some_and(|o| o.resource_version == resource_version) {
            return Vec::new();
        }
        let event_type = if old.is_some() { "MODIFIED" } else { "ADDED" };
        let touched = old
            .map(|o| fields::touched(&o.summary, &summary))
            .unwrap_or_default();
        let mut bodies = Vec::new();
        if let Some(stamp) = managers::writer(old.map(|o| o.stamps.as_slice()), &stamps) {
            let node = match watched {
                Watched::Nodes => Some(name.as_str()),
                _ => object.pointer("/spec/nodeName").and_then(Value::as_str),
            };
            let path = match &namespace {
                Some(ns) => format!("{}/{ns}/{name}", watched.resource()),
                None => format!("{}/{name}", watched.resource()),
            };
            let sub = if stamp.subresource.is_empty() {
                String::new()
            } else {
                format!("/{}", stamp.subresource)
            };
            bodies.push(Record::message(
                actor::of_manager(&stamp.manager, node),
                Actor::ApiServer,
                format!("{} {path}{sub}", stamp.operation),
            ));
        }
        bodies.push(watch(
            watched,
            event_type,
            namespace.as_ref(),
            &name,
            &resource_version,
            touched,
        ));
        let was_whole = old.is_some_and(|o| o.object.is_some());
        let object = if was_whole || self.whole < self.full_cap {
            typed(watched, object)
        } else {
            None
        };
        match &object {
            Some(object) => self.store.put_observed(&key, Arc::clone(object)),
            None => self.store.remove_observed(&key),
        }
        match (was_whole, object.is_some()) {
            (false, true) => self.whole += 1,
            (true, false) => self.whole -= 1,
            _ => {}
        }
        self.objects.insert(
            key,
            Kept {
                watched,
                namespace,
                name,
                resource_version,
                stamps,
                summary,
                object,
            },
        );
        bodies
    }

    fn deleted(&mut self, watched: Watched, object: &Value) -> Vec<Record> {
        let Some((key, namespace, name)) = identity(watched, object) else {
            return Vec::new();
        };
        if watched == Watched::Events {
            return Vec::new();
        }
        if let Some(kept) = self.objects.remove(&key)
            && kept.object.is_some()
        {
            self.whole -= 1;
        }
        self.store.remove_observed(&key);
        let rv = text(object, &["metadata", "resourceVersion"]);
        vec![watch(
            watched,
            "DELETED",
            namespace.as_ref(),
            &name,
            rv,
            Vec::new(),
        )]
    }

    /// A list is complete: what it did not see was deleted while the watch
    /// was down; a relist says so.
    fn list_done(&mut self, watched: Watched) -> Vec<Record> {
        let Some(seen) = self.listing.remove(&watched) else {
            return Vec::new();
        };
        if watched == Watched::Events {
            return Vec::new();
        }
        let gone: Vec<String> = self
            .objects
            .iter()
            .filter(|(key, kept)| kept.watched == watched && !seen.contains(*key))
            .map(|(key, _)| key.clone())
            .collect();
        let mut bodies = Vec::new();
        for key in &gone {
            self.store.remove_observed(key);
            if let Some(kept) = self.objects.remove(key) {
                if kept.object.is_some() {
                    self.whole -= 1;
                }
                bodies.push(watch(
                    watched,
                    "DELETED",
                    kept.namespace.as_ref(),
                    &kept.name,
                    &kept.resource_version,
                    Vec::new(),
                ));
            }
        }
        if self.lists.get(&watched).copied().unwrap_or(0) > 1 {
            bodies.push(notice(format!(
                "{} relisted: {} objects, {} deleted while the watch was away",
                watched.resource(),
                seen.len(),
                gone.len()
            )));
        }
        bodies
    }

    /// An `events.k8s.io/v1` Event: one `event` record per occurrence not
    /// told yet, after its reporter's `message`.
    fn event(&mut self, object: &Value) -> Vec<Record> {
        let uid = text(object, &["metadata", "uid"]).to_owned();
        // `events.k8s.io/v1` fields first, then their `core/v1` names.
        let count = object
            .pointer("/series/count")
            .or_else(|| object.get("deprecatedCount"))
            .or_else(|| object.get("count"))
            .and_then(Value::as_i64)
            .unwrap_or(1);
        let told = self.events.get(&uid).copied();
        if told.is_some_and(|t| t >= count) {
            return Vec::new();
        }
        if told.is_none() {
            self.event_order.push_back(uid.clone());
            if self.event_order.len() > EVENTS_REMEMBERED
                && let Some(oldest) = self.event_order.pop_front()
            {
                self.events.remove(&oldest);
            }
        }
        self.events.insert(uid, count);
        let first = |paths: &[&[&str]]| {
            paths
                .iter()
                .map(|path| text(object, path))
                .find(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let source = first(&[
            &["reportingController"],
            &["reportingComponent"],
            &["deprecatedSource", "component"],
            &["source", "component"],
        ])
        .unwrap_or_default();
        let instance = first(&[
            &["reportingInstance"],
            &["deprecatedSource", "host"],
            &["source", "host"],
        ]);
        let regarding = |field: &str| first(&[&["regarding", field], &["involvedObject", field]]);
        let record = EventRecord {
            event_type: text(object, &["type"]).to_owned(),
            reason: text(object, &["reason"]).to_owned(),
            message: first(&[&["note"], &["message"]]).unwrap_or_default(),
            object: EventObject {
                kind: regarding("kind").unwrap_or_default(),
                namespace: regarding("namespace"),
                name: regarding("name").unwrap_or_default(),
                field_path: regarding("fieldPath"),
            },
            source: source.clone(),
        };
        let from = actor::of_reporter(&source, instance.as_deref());
        let label = format!(
            "{} event {} {}/{}",
            if told.is_some() { "update" } else { "create" },
            record.reason,
            record.object.kind.to_ascii_lowercase(),
            record.object.name
        );
        vec![
            Record::message(from, Actor::ApiServer, label),
            Record::Event(Box::new(record)),
        ]
    }
}

/// A notice from `podflow-attach`, as a `log` record.
fn notice(line: String) -> Record {
    Record::Log {
        component: Actor::Client(Arc::from(WATCHER)),
        node: None,
        line,
    }
}

fn watch(
    watched: Watched,
    event_type: &str,
    namespace: Option<&String>,
    name: &str,
    resource_version: &str,
    fields: Vec<String>,
) -> Record {
    Record::Watch(Box::new(WatchRecord {
        watcher: Actor::Client(Arc::from(WATCHER)),
        event_type: event_type.to_owned(),
        resource: watched.resource().to_owned(),
        namespace: namespace.cloned(),
        name: name.to_owned(),
        resource_version: resource_version.to_owned(),
        fields,
    }))
}

/// The string at `path`, or "".
fn text<'a>(object: &'a Value, path: &[&str]) -> &'a str {
    path.iter()
        .try_fold(object, |v, key| v.get(key))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The object's etcd key, namespace and name.
fn identity(watched: Watched, object: &Value) -> Option<(String, Option<String>, String)> {
    let name = text(object, &["metadata", "name"]);
    if name.is_empty() {
        return None;
    }
    let namespace = Some(text(object, &["metadata", "namespace"]))
        .filter(|ns| watched.namespaced() && !ns.is_empty())
        .map(str::to_owned);
    let key = if watched == Watched::Events {
        format!(
            "/registry/events/{}/{name}",
            namespace.as_deref().unwrap_or_default()
        )
    } else {
        key_for(watched.kind(), namespace.as_deref(), name)
    };
    Some((key, namespace, name.to_owned()))
}

/// The typed object, without its managed fields (as `kubectl get -o yaml`
/// shows it); `None` if it does not read as its kind.
fn typed(watched: Watched, object: &Value) -> Option<Arc<Object>> {
    let mut object = object.clone();
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
    Object::from_json(watched.kind(), object).ok().map(Arc::new)
}
