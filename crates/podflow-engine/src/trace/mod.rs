//! `TraceRecord`: the one vocabulary every view reads (docs/trace-format.md):
//! who ([`Actor`]), what stage ([`StageName`]) and how it ended ([`Outcome`])
//! are typed values; the JSON they make is the documented format.

mod actor;
mod detail;
pub mod heartbeat;
mod names;

pub use actor::{Actor, NodeName};
pub use detail::{
    AuthenticationDetail, CrashBackoffDetail, Detail, ExitDetail, FitDetail, NetworkDetail,
    ProbeDetail, SandboxDetail, Shortfall, VolumeDetail,
};
pub use names::{Outcome, StageName};

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::component::RequestId;
use podflow_model::Object;

/// One record of the trace: a sequence number, a simulated time and what happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceRecord {
    /// 0, 1, 2, ... in order.
    pub seq: u64,
    /// Simulated milliseconds since the start; never decreasing.
    pub t_ms: u64,
    /// What happened.
    #[serde(flatten)]
    pub body: Record,
}

/// What one record says, tagged by `kind` in JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    /// One arrow of the sequence diagram.
    Message {
        from: Actor,
        to: Actor,
        label: String,
        /// For a request to the API server, its number: the `response` that
        /// answers it has the same (other arrows have none).
        #[serde(skip_serializing_if = "Option::is_none")]
        request: Option<RequestId>,
    },
    /// One step inside a component, shared: the API server's stages repeat
    /// from one request to the next and are kept once
    /// ([`SharedStages`](crate::shared_stages::SharedStages)).
    Stage(Arc<Stage>),
    /// The API server's answer to a client.
    Response {
        to: Actor,
        code: u16,
        message: String,
        /// The number of the request it answers (its `message` has the same).
        request: RequestId,
    },
    /// A watch event delivered to one watcher (boxed, as the stage is held
    /// out of line: the most common records, messages, stay a third of this
    /// size).
    Watch(Box<WatchRecord>),
    /// A `core/v1` Event (boxed, as the watch event is).
    Event(Box<EventRecord>),
    /// A log line in the component's own format.
    Log {
        component: Actor,
        #[serde(skip_serializing_if = "Option::is_none")]
        node: Option<String>,
        line: String,
    },
    /// The last record: every object in the store, shared with it (written
    /// as each typed object serializes, one at a time).
    Final { objects: Vec<Arc<Object>> },
}

impl Record {
    /// An arrow that is not a request to the API server (the API server's
    /// calls to etcd, the kubelet's to containerd, ...).
    pub fn message(from: Actor, to: Actor, label: impl Into<String>) -> Record {
        Record::Message {
            from,
            to,
            label: label.into(),
            request: None,
        }
    }
}

impl From<Stage> for Record {
    fn from(stage: Stage) -> Record {
        Record::Stage(Arc::new(stage))
    }
}

/// The `message` record of the request that the `response` at `index`
/// answers, looking back at most `look_back` records; `None` for another
/// kind of record or a request further back.
pub fn request_answered(
    records: &[TraceRecord],
    index: usize,
    look_back: usize,
) -> Option<&TraceRecord> {
    let Record::Response { request, .. } = &records.get(index)?.body else {
        return None;
    };
    records[index.saturating_sub(look_back)..index]
        .iter()
        .rev()
        .find(|r| matches!(&r.body, Record::Message { request: Some(id), .. } if id == request))
}

/// A name from a fixed vocabulary (`kube-apiserver`, `admission`, `allow`),
/// held without a copy; one made at run time (`kubelet/node-1`) is owned.
pub type Name = Cow<'static, str>;

/// One step inside a component (`authentication`, `filter`, `sandbox`, ...).
///
/// A large run keeps hundreds of thousands: the fields every stage has (and
/// the phase and plugin most have) are inline, the rest in a box that most
/// stages go without ([`StageExtra`]).
#[derive(Debug, Clone, Serialize)]
pub struct Stage {
    pub component: Actor,
    pub stage: StageName,
    pub outcome: Outcome,
    pub detail: Detail,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<Name>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<Name>,
    /// Written after `plugin`, in [`StageExtra`]'s field order.
    #[serde(flatten)]
    extra: Option<Box<StageExtra>>,
}

/// What some stages add: the Pod, node, etcd key, status, score or work-queue
/// item they concern.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StageExtra {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<Name>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
    /// A controller's work-queue key (`NAMESPACE/NAME`) the stage is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// How many items an informer's cache or a work queue holds after the stage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// kube-proxy's rules after a sync, as `iptables-restore` input lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<String>>,
    /// A `score` of `NodeResourcesFit` or `NodeResourcesBalancedAllocation`:
    /// each resource's figures behind it (`--detail full`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<ResourcePart>>,
    /// A `select` after the Filter phase stopped early: how many feasible
    /// nodes `percentageOfNodesToScore` asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes_to_score: Option<NodesToScore>,
}

/// One resource's part of a node's score: what the node would have
/// requested with the Pod, of what it can allocate (millicores for `cpu`,
/// bytes for `memory`, units for the rest), the resource's score where the
/// strategy scores resources one by one (`NodeResourcesFit`), and its weight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourcePart {
    pub resource: String,
    pub requested: i64,
    pub allocatable: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<i64>,
    pub weight: i64,
}

/// Why a cycle's Filter phase stopped before every node
/// (`numFeasibleNodesToFind` in `pkg/scheduler/schedule_one.go`): it found
/// `feasible` nodes, the `percentage` of the cluster's `nodes` asked for
/// (`adaptive`: `percentageOfNodesToScore` unset, `50 - nodes/125`, at least 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NodesToScore {
    pub feasible: usize,
    pub nodes: usize,
    pub percentage: i64,
    pub adaptive: bool,
}

/// What a stage without extras reads.
static NO_EXTRA: StageExtra = StageExtra {
    pod: None,
    node: None,
    code: None,
    reason: None,
    raw: None,
    score: None,
    weight: None,
    key: None,
    revision: None,
    object: None,
    item: None,
    size: None,
    rules: None,
    resources: None,
    nodes_to_score: None,
};

/// Equal when every field reads the same (an empty box is no box).
impl PartialEq for Stage {
    fn eq(&self, other: &Stage) -> bool {
        self.component == other.component
            && self.stage == other.stage
            && self.outcome == other.outcome
            && self.detail == other.detail
            && self.phase == other.phase
            && self.plugin == other.plugin
            && self.extra() == other.extra()
    }
}

impl Eq for Stage {}

/// By the fields every stage has (equal stages have equal ones; the extras,
/// which hold a JSON value, are left to `eq`): what lets
/// [`SharedStages`](crate::shared_stages::SharedStages) look a stage up.
impl std::hash::Hash for Stage {
    fn hash<H: std::hash::Hasher>(&self, hasher: &mut H) {
        (
            &self.component,
            &self.stage,
            &self.outcome,
            &self.detail,
            &self.phase,
            &self.plugin,
        )
            .hash(hasher);
    }
}

impl Stage {
    /// A stage of `component` named `stage` with this outcome and detail.
    pub fn new(
        component: Actor,
        stage: StageName,
        outcome: Outcome,
        detail: impl Into<Detail>,
    ) -> Stage {
        Stage {
            component,
            stage,
            outcome,
            detail: detail.into(),
            phase: None,
            plugin: None,
            extra: None,
        }
    }

    /// The Pod, node, key, ... the stage concerns (all `None` for most).
    pub fn extra(&self) -> &StageExtra {
        self.extra.as_deref().unwrap_or(&NO_EXTRA)
    }

    /// Whether it has any extra set.
    pub fn has_extra(&self) -> bool {
        self.extra
            .as_deref()
            .is_some_and(|extra| *extra != NO_EXTRA)
    }

    /// The extras to set.
    pub fn extra_mut(&mut self) -> &mut StageExtra {
        self.extra.get_or_insert_with(Box::default)
    }

    /// With the Pod it concerns (`NS/NAME`).
    #[must_use]
    pub fn pod(mut self, pod: impl Into<String>) -> Stage {
        self.extra_mut().pod = Some(pod.into());
        self
    }

    /// With the node it concerns.
    #[must_use]
    pub fn node(mut self, node: impl Into<String>) -> Stage {
        self.extra_mut().node = Some(node.into());
        self
    }

    /// With the plugin that decided.
    #[must_use]
    pub fn plugin(mut self, plugin: impl Into<Name>) -> Stage {
        self.plugin = Some(plugin.into());
        self
    }

    /// With the etcd key and revision it concerns.
    #[must_use]
    pub fn at_key(mut self, key: impl Into<String>, revision: u64) -> Stage {
        let extra = self.extra_mut();
        extra.key = Some(key.into());
        extra.revision = Some(revision);
        self
    }

    /// With the work-queue key it concerns and the queue's (or cache's) size.
    #[must_use]
    pub fn queued(mut self, item: Option<&str>, size: usize) -> Stage {
        let extra = self.extra_mut();
        extra.item = item.map(str::to_owned);
        extra.size = u64::try_from(size).ok();
        self
    }
}

/// A watch event as one watcher received it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WatchRecord {
    pub watcher: Actor,
    #[serde(rename = "type")]
    pub event_type: String,
    pub resource: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(rename = "resourceVersion")]
    pub resource_version: String,
    /// The fields the change touched (`spec.nodeName`, `status.phase`), when
    /// the watcher tells them: `podflow attach` does; the simulation's
    /// watchers leave it empty and it is not written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<String>,
}

impl WatchRecord {
    /// `TYPE resource/NS/NAME` (`NAME` alone for a cluster-scoped object),
    /// as the text trace, the pipeline and the sequence diagram label it.
    pub fn summary(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {}/{ns}/{}", self.event_type, self.resource, self.name),
            None => format!("{} {}/{}", self.event_type, self.resource, self.name),
        }
    }
}

/// A `core/v1` Event, one record per occurrence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventRecord {
    #[serde(rename = "type")]
    pub event_type: String,
    pub reason: String,
    pub message: String,
    pub object: EventObject,
    pub source: String,
}

/// The object an Event is about.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventObject {
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(rename = "fieldPath", skip_serializing_if = "Option::is_none")]
    pub field_path: Option<String>,
}

impl TraceRecord {
    /// The record as one line of JSON.
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).expect("trace records always serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_puts_seq_time_and_kind_first() {
        let record = TraceRecord {
            seq: 3,
            t_ms: 12,
            body: Record::message(
                Actor::Kubectl,
                Actor::ApiServer,
                "POST /api/v1/namespaces/default/pods",
            ),
        };
        assert_eq!(
            record.to_json_line(),
            r#"{"seq":3,"t_ms":12,"kind":"message","from":"kubectl","to":"kube-apiserver","label":"POST /api/v1/namespaces/default/pods"}"#
        );
        let stage = TraceRecord {
            seq: 4,
            t_ms: 12,
            body: Record::from(Stage::new(
                Actor::ApiServer,
                StageName::Authentication,
                Outcome::Allow,
                "x",
            )),
        };
        assert!(
            stage
                .to_json_line()
                .starts_with(r#"{"seq":4,"t_ms":12,"kind":"stage","component":"kube-apiserver""#)
        );
    }

    #[test]
    fn every_kind_of_line_puts_seq_time_and_kind_first() {
        use crate::engine::Until;
        let mut engine = crate::testing::nginx_engine();
        let mut records = engine.run_until(Until::Idle);
        records.push(engine.final_record());
        let mut kinds = std::collections::BTreeSet::new();
        for record in &records {
            let line = record.to_json_line();
            let value: Value = serde_json::from_str(&line).unwrap();
            let kind = value["kind"].as_str().unwrap().to_owned();
            let head = format!(
                r#"{{"seq":{},"t_ms":{},"kind":"{kind}""#,
                record.seq, record.t_ms
            );
            assert!(line.starts_with(&head), "{line}");
            kinds.insert(kind);
        }
        assert!(
            kinds.len() >= 6,
            "the run has most kinds of record: {kinds:?}"
        );
    }

    #[test]
    fn a_request_and_its_answer_carry_one_number() {
        let run = crate::testing::nginx_timeline();
        let records = run.records();
        let answers: Vec<usize> = (0..records.len())
            .filter(|&i| matches!(records[i].body, Record::Response { .. }))
            .collect();
        assert!(answers.len() >= 5, "{} answers", answers.len());
        for i in answers {
            let request = request_answered(records, i, usize::MAX).expect("its request");
            let (Record::Message { from, to, .. }, Record::Response { to: client, .. }) =
                (&request.body, &records[i].body)
            else {
                unreachable!("request_answered finds a message")
            };
            assert_eq!((from, to), (client, &Actor::ApiServer));
        }
        let line = records
            .iter()
            .find(|r| matches!(r.body, Record::Response { .. }))
            .map(TraceRecord::to_json_line)
            .expect("an answer");
        assert!(line.ends_with(r#","request":1}"#), "{line}");
        assert!(request_answered(records, 0, 10).is_none(), "not an answer");
    }

    /// A 10,000-replica run keeps 1.17 million records: the large, rarer
    /// bodies (stages, watch events, Events) are boxed so that each record
    /// costs what a message costs.
    #[test]
    fn a_record_is_no_larger_than_a_message() {
        let record = std::mem::size_of::<TraceRecord>();
        assert!(record <= 96, "a TraceRecord takes {record} bytes");
    }

    /// Most of the 700,000 stages of that run have no extras: they cost
    /// their names and detail, not a dozen empty options.
    #[test]
    fn a_stage_keeps_its_rare_fields_boxed() {
        let stage = std::mem::size_of::<Stage>();
        assert!(stage <= 160, "a Stage takes {stage} bytes");
        let plain = Stage::new(Actor::ApiServer, StageName::Admission, Outcome::Allow, "");
        assert!(plain.extra.is_none());
        let mut boxed = plain.clone();
        boxed.extra_mut();
        assert_eq!(plain, boxed, "an empty box reads as no box");
        assert_eq!(plain.to_json_line_for_test(), boxed.to_json_line_for_test());
    }

    /// The extras are written where they were before they were boxed:
    /// after `plugin`, in their own order (docs/trace-format.md's stage fields).
    #[test]
    fn a_stage_writes_its_fields_in_the_contract_order() {
        let mut stage = Stage::new(Actor::Scheduler, StageName::Score, Outcome::Ok, "d")
            .plugin("NodeResourcesFit")
            .node("node-1")
            .pod("default/web");
        stage.phase = Some("score".into());
        stage.extra_mut().score = Some(7);
        stage.extra_mut().size = Some(1);
        assert_eq!(
            stage.to_json_line_for_test(),
            r#"{"component":"kube-scheduler","stage":"score","outcome":"ok","detail":"d","phase":"score","plugin":"NodeResourcesFit","pod":"default/web","node":"node-1","score":7,"size":1}"#
        );
    }

    impl Stage {
        fn to_json_line_for_test(&self) -> String {
            serde_json::to_string(self).unwrap()
        }
    }
}
