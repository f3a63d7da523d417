//! The pipeline pane: the cluster's components as a diagram, the current
//! record's request drawn as a token (`●`) on the arrow it travels, and the
//! component (and stage) it is about lit.
//!
//! ```text
//! ┌ Pipeline ──────────────────────────────────────────────────────────┐
//! │kubectl ─▶ kube-apiserver [authn│authz│admission│valid] ─▶ etcd 60  │
//! │            ▲ watch          ▲ watch                        registry│
//! │ kube-controller-manager   kube-scheduler [filter│score│select│bind]│
//! │  ▲ watch                ▲ watch                ▲● PATCH /ap +1 more│
//! │┌ control-plane ─────┐ ┌ node-1 cordoned ───┐ ┌ node-3 ────────────┐│
//! ││kubelet──▶containerd│ │kubelet──▶containerd│ │kubelet──▶containerd││
//! ││ cni  csi  proxy    │ │ cni  csi  proxy    │ │ cni  csi  proxy    ││
//! ││·                   │ │·                   │ │▸ status PATCH      ││
//! │└────────────────────┘ └────────────────────┘ └────────────────────┘│
//! │● kubelet/node-3 → kube-apiserver: PATCH                            │
//! │/api/v1/namespaces/default/pods/nginx/status                        │
//! └────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! Under the nodes, once a controller has queued a key and there is room,
//! two lines show the controller manager's informer caches and work queues
//! (`controllers.rs`).
//!
//! Narrower areas give fewer boxes (the busy nodes first, `+N more`) and drop
//! the stage brackets (the lit stage then follows the name:
//! `kube-apiserver:authn`); lower ones draw one line per node (`node-3 ▸ pull
//! nginx:1.27`), two rows only the top row and the current record, one row
//! the current record.
//!
//! The model reads the current record (what is lit, which arrow carries the
//! token), the store (etcd's revision, the Nodes and whether they are
//! cordoned or `NotReady`) and, walking back from the current record at most
//! [`LOOKBACK`] records, the latest step on each node and the scheduler's
//! latest stage. Component names are the trace's (docs/trace-format.md): `kubectl`,
//! `kube-apiserver`, `etcd`, `kube-controller-manager`, `kube-scheduler`,
//! `registry`, `kubelet/NODE`, `containerd/NODE`, `cni/NODE`, `csi/NODE`.
//! The stages are the contract's: the API server's `authentication`,
//! `authorization`, `admission`, `validation` (upstream's handler chain,
//! `staging/src/k8s.io/apiserver/pkg/server/config.go`
//! `DefaultBuildHandlerChain`, then admission and validation in
//! `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go`), the
//! scheduler's `filter`, `score`, `select`, `bind` (`pkg/scheduler/schedule_one.go`).

mod controllers;
mod draw;
mod queue;

pub use controllers::{Controllers, InformerState, QueueState};
pub use queue::QueueCounts;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::PaneCx;
use std::ops::Bound;

use super::store_index::with_summaries;
use podflow_engine::store::{Snapshot, key_for, prefix_for};
use podflow_engine::trace::{Actor, Outcome, Record, StageName, TraceRecord};
use podflow_model::kinds::Kind;

/// How many records the model walks back, at most, to find each node's latest
/// step and the scheduler's latest stage.
pub const LOOKBACK: usize = 2000;

/// The token's default place along its arrow: the middle.
pub const DEFAULT_PROGRESS: u8 = 50;

/// What the pane shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// The component the current record is about, as the trace names it
    /// (the receiver of a message, response or watch event; the component of a
    /// stage or log line; the reporter of an event). Drawn in `theme.active`.
    pub active: Option<String>,
    /// The stage of `active` when the record is a stage (`authentication`,
    /// `filter`, `pull`, ...).
    pub stage: Option<StageName>,
    /// The arrow the current record travels on (message, response, watch).
    pub arrow: Option<Arrow>,
    /// Where the token is along `arrow`, 0 (at `from`) ..= 100 (at `to`).
    /// [`Model::build`] sets [`DEFAULT_PROGRESS`] (the middle); nothing
    /// animates it inside the pane. The app may later set it from a phase of
    /// its own before calling [`render`].
    pub progress: u8,
    /// etcd's revision at the current record.
    pub revision: u64,
    /// Every Node in the store, in key order.
    pub nodes: Vec<NodeBox>,
    /// The scheduler's latest stage (`filter`, `score`, `select`, `bind`).
    pub scheduler: Option<StageName>,
    /// How many pods wait in the scheduling queue, and where.
    pub queue: QueueCounts,
    /// The controller manager's informer caches and work queues.
    pub controllers: Controllers,
    /// The current record in words (the trace's text line, without its time).
    pub caption: String,
}

/// An arrow between two components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrow {
    pub from: String,
    pub to: String,
    /// What travels: `POST /api/v1/...`, `201 Created`, `ADDED pods/default/nginx`.
    pub label: String,
}

/// One node's box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeBox {
    pub name: String,
    /// `spec.unschedulable` (`kubectl cordon`).
    pub cordoned: bool,
    /// The `Ready` condition is `True`, or absent (docs/cluster-files.md: a Node is
    /// Ready unless its conditions say otherwise).
    pub ready: bool,
    /// The latest step on the node, if one is within [`LOOKBACK`].
    pub step: Option<NodeStep>,
}

/// The latest thing a node's kubelet, containerd, CNI or CSI did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeStep {
    /// `kubelet/node-1`, `containerd/node-1`, ...
    pub component: String,
    /// The kubelet stage it belongs to: `sandbox`, `network`, `volume`,
    /// `pull`, `container`, `probe`, `status` (or another stage's name;
    /// `None` when a message matches none).
    pub stage: Option<StageName>,
    /// `nginx:1.27`, `eth0 10.244.3.2 from 10.244.3.0/24`, ...
    pub detail: String,
    /// The stage record's outcome (`pulled`, `started`, ...); `None` while
    /// the step is under way (a message).
    pub outcome: Option<Outcome>,
    /// Whether it is the current record.
    pub current: bool,
}

impl Model {
    /// Builds the model from the current step.
    pub fn build(cx: &PaneCx<'_>) -> Model {
        let view = cx.view;
        let mut model = Model {
            progress: cx.state.progress.unwrap_or(DEFAULT_PROGRESS),
            revision: view.store.revision(),
            nodes: nodes(&view.store),
            ..Model::default()
        };
        if let Some(current) = view.current() {
            model.caption = caption(current);
            let (active, stage, arrow) = focus(&current.body, &view.store);
            model.active = active;
            model.stage = stage;
            model.arrow = arrow;
        }
        model.recent(view.records);
        model.queue = queue::counts(&view.store, view.records);
        model.controllers = Controllers::build(view.records);
        model
    }

    /// Walks back from the current record (at most [`LOOKBACK`]) for each
    /// node's latest step and the scheduler's latest stage.
    fn recent(&mut self, records: &[TraceRecord]) {
        let last = records.len().saturating_sub(1);
        let mut unknown = self.nodes.len();
        for (index, record) in records.iter().enumerate().rev().take(LOOKBACK) {
            if unknown == 0 && self.scheduler.is_some() {
                break;
            }
            if self.scheduler.is_none()
                && let Record::Stage(s) = &record.body
                && s.component == Actor::Scheduler
            {
                self.scheduler = Some(s.stage);
            }
            let Some((node, mut step)) = node_step(&record.body) else {
                continue;
            };
            step.current = index == last;
            // The Nodes are listed in key order, which is name order.
            let at = self
                .nodes
                .binary_search_by(|b| b.name.as_str().cmp(node.as_str()))
                .ok()
                .filter(|i| self.nodes[*i].step.is_none());
            if let Some(i) = at {
                self.nodes[i].step = Some(step);
                unknown -= 1;
            }
        }
    }

    /// Whether `component` is lit.
    fn is_active(&self, component: &str) -> bool {
        self.active.as_deref() == Some(component)
    }

    /// Whether a component on node `node` is lit.
    fn node_active(&self, node: &str) -> bool {
        self.active
            .as_deref()
            .and_then(on_node)
            .is_some_and(|(_, n)| n == node)
    }
}

/// Draws the pane.
pub fn render(model: &Model, cx: &PaneCx<'_>, area: Rect, buf: &mut Buffer) {
    draw::draw(model, cx, area, buf);
}

/// The Nodes of the store, in key order, from the summaries the objects
/// pane shares (a frame of a 1,000-node run reads no Node).
fn nodes(store: &Snapshot) -> Vec<NodeBox> {
    let Some(kind) = Kind::lookup("nodes") else {
        return Vec::new();
    };
    let prefix = prefix_for(kind, None);
    with_summaries(store, |summaries| {
        summaries
            .range::<_, str>((Bound::Included(prefix.as_str()), Bound::Unbounded))
            .take_while(|(key, _)| key.starts_with(&prefix))
            .filter_map(|(key, summary)| {
                let node = summary.node?;
                Some(NodeBox {
                    name: key[prefix.len()..].to_owned(),
                    cordoned: node.cordoned,
                    ready: node.ready,
                    step: None,
                })
            })
            .collect()
    })
}

/// `(role, node)` of a per-node component's trace name: `kubelet/node-1` →
/// `("kubelet", "node-1")`.
fn on_node(component: &str) -> Option<(&str, &str)> {
    let (role, node) = component.split_once('/')?;
    matches!(
        role,
        "kubelet" | "containerd" | "cni" | "csi" | "kube-proxy"
    )
    .then_some((role, node))
}

/// What the current record lights: the component, its stage and the arrow.
fn focus(body: &Record, store: &Snapshot) -> (Option<String>, Option<StageName>, Option<Arrow>) {
    match body {
        Record::Message {
            from, to, label, ..
        } => (
            Some(to.to_string()),
            None,
            Some(Arrow {
                from: from.to_string(),
                to: to.to_string(),
                label: label.clone(),
            }),
        ),
        Record::Stage(s) => (Some(s.component.to_string()), Some(s.stage), None),
        Record::Response {
            to, code, message, ..
        } => (
            Some(to.to_string()),
            None,
            Some(Arrow {
                from: Actor::ApiServer.to_string(),
                to: to.to_string(),
                label: format!("{code} {message}"),
            }),
        ),
        Record::Watch(w) => (
            Some(w.watcher.to_string()),
            None,
            Some(Arrow {
                from: Actor::ApiServer.to_string(),
                to: w.watcher.to_string(),
                label: w.summary(),
            }),
        ),
        Record::Event(e) => (Some(event_component(e, store)), None, None),
        Record::Log { component, .. } => (Some(component.to_string()), None, None),
        Record::Final { .. } => (None, None, None),
    }
}

/// The component that reported an Event: `default-scheduler` is
/// `kube-scheduler`, a `*-controller` is `kube-controller-manager`, and
/// `kubelet` is the kubelet of the node the Pod is bound to.
fn event_component(e: &podflow_engine::trace::EventRecord, store: &Snapshot) -> String {
    match e.source.as_str() {
        "default-scheduler" => "kube-scheduler".to_owned(),
        "kubelet" => {
            let node = (e.object.kind == "Pod")
                .then(|| Kind::lookup("pods"))
                .flatten()
                .and_then(|k| store.get(&key_for(k, e.object.namespace.as_deref(), &e.object.name)))
                .and_then(|entry| {
                    let pod = entry.object.load();
                    pod.as_pod()?.spec.as_ref()?.node_name.clone()
                });
            node.map_or_else(|| "kubelet".to_owned(), |n| format!("kubelet/{n}"))
        }
        s if s.ends_with("-controller") => "kube-controller-manager".to_owned(),
        s => s.to_owned(),
    }
}

/// The record's text line without its `[mm:ss.mmm] ` time.
fn caption(record: &TraceRecord) -> String {
    let line = podflow_engine::export::text::line(record);
    match line.split_once("] ") {
        Some((time, rest)) if time.starts_with('[') => rest.to_owned(),
        _ => line,
    }
}

/// The step a record shows on a node, if it is about one: a stage of a
/// node's component, or a message to or from one (a CRI or CNI call, a pull
/// from the registry, the kubelet's status PATCH). The kubelet's Lease
/// renewals are routine and leave the node's last real step in view.
fn node_step(body: &Record) -> Option<(String, NodeStep)> {
    match body {
        Record::Stage(s) => {
            let node = s.component.node()?;
            Some((
                node.to_owned(),
                NodeStep {
                    component: s.component.to_string(),
                    stage: Some(s.stage),
                    detail: short_detail(&s.detail.text()),
                    outcome: Some(s.outcome),
                    current: false,
                },
            ))
        }
        Record::Message { label, .. } if label.contains("/kube-node-lease/leases/") => None,
        Record::Message {
            from, to, label, ..
        } => {
            let (component, node) = from
                .node()
                .map(|n| (from, n))
                .or_else(|| to.node().map(|n| (to, n)))?;
            let (stage, detail) = message_step(from, to, label);
            Some((
                node.to_owned(),
                NodeStep {
                    component: component.to_string(),
                    stage,
                    detail,
                    outcome: None,
                    current: false,
                },
            ))
        }
        _ => None,
    }
}

/// The kubelet stage a node's message belongs to, and what to show of it.
fn message_step(from: &Actor, to: &Actor, label: &str) -> (Option<StageName>, String) {
    let verb = label.split_whitespace().next().unwrap_or_default();
    let rest = label
        .get(verb.len()..)
        .unwrap_or_default()
        .trim()
        .to_owned();
    match verb {
        "RunPodSandbox" | "StopPodSandbox" | "RemovePodSandbox" => {
            (Some(StageName::Sandbox), label.to_owned())
        }
        "CreateContainer" | "StartContainer" | "StopContainer" | "RemoveContainer" => {
            (Some(StageName::Container), label.to_owned())
        }
        "pull" => (Some(StageName::Pull), rest),
        _ if *from == Actor::Registry => (Some(StageName::Pull), short_detail(label)),
        _ if matches!(to, Actor::Cni(_)) || matches!(from, Actor::Cni(_)) => {
            (Some(StageName::Network), label.to_owned())
        }
        _ if matches!(to, Actor::Csi(_)) || matches!(from, Actor::Csi(_)) => {
            (Some(StageName::Volume), label.to_owned())
        }
        "PATCH" if label.ends_with("/status") => (Some(StageName::Status), verb.to_owned()),
        _ if matches!(from, Actor::Containerd(_)) => {
            if label.starts_with("sandbox") {
                (Some(StageName::Sandbox), label.to_owned())
            } else {
                (Some(StageName::Container), label.to_owned())
            }
        }
        _ => (None, label.to_owned()),
    }
}

/// A stage's detail up to its parenthesis: `nginx:1.27 (72044385 bytes) in
/// 2.101s` → `nginx:1.27`.
fn short_detail(detail: &str) -> String {
    detail
        .split_once(" (")
        .map_or(detail, |(head, _)| head)
        .to_owned()
}

/// A stage's name as the diagram labels it.
fn stage_label(stage: StageName, lang: crate::tui::lang::Lang) -> &'static str {
    match stage {
        StageName::Authentication => lang.pick("authn", "认证"),
        StageName::Authorization => lang.pick("authz", "鉴权"),
        StageName::Admission => lang.pick("admission", "准入"),
        StageName::Validation => lang.pick("valid", "校验"),
        StageName::Filter => lang.pick("filter", "过滤"),
        StageName::Score => lang.pick("score", "打分"),
        StageName::Select => lang.pick("select", "选定"),
        StageName::Bind => lang.pick("bind", "绑定"),
        StageName::Sandbox => lang.pick("sandbox", "沙箱"),
        StageName::Network => lang.pick("network", "网络"),
        StageName::Volume => lang.pick("volume", "卷"),
        StageName::Pull => lang.pick("pull", "拉取"),
        StageName::Container => lang.pick("container", "容器"),
        StageName::Probe => lang.pick("probe", "探针"),
        StageName::Status => lang.pick("status", "状态"),
        other => other.as_str(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::lang::Lang;
    use crate::tui::panes::PaneState;
    use crate::tui::testing::{find, nginx_timeline, timeline, write_revisions};
    use crate::tui::theme::{Theme, ThemeName};

    fn model_at(t: &podflow_engine::timeline::Timeline, index: usize) -> Model {
        let theme = Theme::new(ThemeName::Dark, false);
        let state = PaneState::default();
        let cx = PaneCx {
            view: &t.view(index),
            lang: Lang::En,
            theme: &theme,
            focused: false,
            state: &state,
        };
        Model::build(&cx)
    }

    fn node<'a>(m: &'a Model, name: &str) -> &'a NodeBox {
        m.nodes.iter().find(|n| n.name == name).expect("node shown")
    }

    #[test]
    fn the_posts_authentication_lights_the_apiserver_stage() {
        let t = nginx_timeline();
        let post = find(&t, "kubectl → kube-apiserver: POST");
        let authn = post + 1;
        let m = model_at(&t, authn);
        assert_eq!(m.active.as_deref(), Some("kube-apiserver"));
        assert_eq!(m.stage, Some(StageName::Authentication));
        assert_eq!(m.arrow, None);
        let m = model_at(&t, post);
        assert_eq!(
            m.arrow,
            Some(Arrow {
                from: "kubectl".into(),
                to: "kube-apiserver".into(),
                label: "POST /api/v1/namespaces/default/pods".into(),
            })
        );
        assert_eq!(m.progress, DEFAULT_PROGRESS);
    }

    #[test]
    fn the_current_record_decides_what_is_lit() {
        // (needle, active, stage, arrow from → to)
        type Row<'a> = (
            &'a str,
            &'a str,
            Option<&'a str>,
            Option<(&'a str, &'a str)>,
        );
        let t = nginx_timeline();
        let table: [Row<'_>; 8] = [
            (
                "kube-scheduler filter NodeUnschedulable control-plane",
                "kube-scheduler",
                Some("filter"),
                None,
            ),
            (
                "etcd persist → ok: wrote /registry/pods/default/nginx at revision",
                "etcd",
                Some("persist"),
                None,
            ),
            (
                "kube-apiserver → kubectl: 201 Created",
                "kubectl",
                None,
                Some(("kube-apiserver", "kubectl")),
            ),
            (
                "kube-scheduler ← ADDED pods/default/nginx",
                "kube-scheduler",
                None,
                Some(("kube-apiserver", "kube-scheduler")),
            ),
            ("event Normal Scheduled", "kube-scheduler", None, None),
            ("event Normal Pulling", "kubelet/node-3", None, None),
            (
                "containerd/node-3 → registry: pull",
                "registry",
                None,
                Some(("containerd/node-3", "registry")),
            ),
            ("kubectl | pod/nginx created", "kubectl", None, None),
        ];
        for (needle, active, stage, arrow) in table {
            let m = model_at(&t, find(&t, needle));
            assert_eq!(m.active.as_deref(), Some(active), "{needle}");
            assert_eq!(m.stage.map(StageName::as_str), stage, "{needle}");
            assert_eq!(
                m.arrow.as_ref().map(|a| (a.from.as_str(), a.to.as_str())),
                arrow,
                "{needle}"
            );
        }
    }

    #[test]
    fn revision_and_nodes_come_from_the_store() {
        let t = nginx_timeline();
        let m = model_at(
            &t,
            find(&t, "etcd persist → ok: wrote /registry/pods/default/nginx"),
        );
        let created = write_revisions(&t, "/registry/pods/default/nginx")[0];
        assert_eq!(m.revision, created);
        let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["control-plane", "node-1", "node-2", "node-3"]);
        assert!(m.nodes.iter().all(|n| n.ready && !n.cordoned));
        assert_eq!(
            m.caption,
            format!("etcd persist → ok: wrote /registry/pods/default/nginx at revision {created}")
        );
    }

    #[test]
    fn a_lease_renewal_is_not_a_nodes_step() {
        let renewal = Record::message(
            Actor::Kubelet("node-1".into()),
            Actor::ApiServer,
            "PUT /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1",
        );
        assert!(node_step(&renewal).is_none());
        let status = Record::message(
            Actor::Kubelet("node-1".into()),
            Actor::ApiServer,
            "PATCH /api/v1/namespaces/default/pods/nginx/status",
        );
        assert_eq!(
            node_step(&status).map(|(n, _)| n).as_deref(),
            Some("node-1")
        );
    }

    #[test]
    fn each_node_shows_its_latest_step() {
        let t = nginx_timeline();
        // (needle of the current record, node-3's stage, detail, outcome, current)
        let table = [
            (
                "cni/node-3 network",
                "network",
                "eth0 10.244.3.2 from 10.244.3.0/24",
                "ok",
                true,
            ),
            (
                "containerd/node-3 → registry: pull",
                "pull",
                "docker.io/library/nginx:1.27",
                "",
                true,
            ),
            (
                "event Normal Pulled",
                "pull",
                "docker.io/library/nginx:1.27",
                "",
                false,
            ),
            (
                "kubelet/node-3 pull node-3",
                "pull",
                "nginx:1.27",
                "pulled",
                true,
            ),
            (
                "kubelet/node-3 container node-3",
                "container",
                "nginx",
                "started",
                true,
            ),
            (
                "kubelet/node-3 status node-3",
                "status",
                "every container created, 1 of 1 running",
                "running",
                true,
            ),
        ];
        for (needle, stage, detail, outcome, current) in table {
            let m = model_at(&t, find(&t, needle));
            let step = node(&m, "node-3").step.clone().expect(needle);
            assert_eq!(
                (
                    step.stage.map_or("", StageName::as_str),
                    step.detail.as_str(),
                    step.outcome.map_or("", Outcome::as_str),
                    step.current
                ),
                (stage, detail, outcome, current),
                "{needle}"
            );
            assert_eq!(node(&m, "node-1").step, None, "{needle}");
        }
    }

    #[test]
    fn the_scheduler_keeps_its_latest_stage() {
        let t = nginx_timeline();
        let m = model_at(&t, find(&t, "kube-scheduler → kube-apiserver: POST"));
        assert_eq!(m.scheduler, Some(StageName::Bind));
        let m = model_at(&t, find(&t, "kube-scheduler score TaintToleration node-1"));
        assert_eq!(m.scheduler, Some(StageName::Score));
        let m = model_at(&t, find(&t, "kubectl → kube-apiserver: POST"));
        assert_eq!(m.scheduler, None);
    }

    #[test]
    fn a_cordoned_node_is_marked() {
        let t = timeline(&["cordon node-2"], None);
        let m = model_at(&t, t.len() - 1);
        assert!(node(&m, "node-2").cordoned);
        assert!(!node(&m, "node-1").cordoned);
        let before = model_at(
            &t,
            find(&t, "kubectl → kube-apiserver: PATCH /api/v1/nodes/node-2"),
        );
        assert!(!node(&before, "node-2").cordoned);
    }

    #[test]
    fn message_steps_table() {
        // (from, to, label, stage, detail): CRI calls as kubelet's
        // kuberuntime makes them (pkg/kubelet/kuberuntime/kuberuntime_manager.go).
        let table = [
            (
                "kubelet/n",
                "containerd/n",
                "RunPodSandbox",
                "sandbox",
                "RunPodSandbox",
            ),
            ("containerd/n", "cni/n", "ADD eth0", "network", "ADD eth0"),
            (
                "cni/n",
                "containerd/n",
                "10.244.3.2",
                "network",
                "10.244.3.2",
            ),
            (
                "containerd/n",
                "kubelet/n",
                "sandbox 12f8",
                "sandbox",
                "sandbox 12f8",
            ),
            ("containerd/n", "registry", "pull a:1", "pull", "a:1"),
            ("registry", "containerd/n", "a:1 (5 bytes)", "pull", "a:1"),
            (
                "kubelet/n",
                "containerd/n",
                "StartContainer 68e7",
                "container",
                "StartContainer 68e7",
            ),
            (
                "kubelet/n",
                "kube-apiserver",
                "PATCH /api/v1/namespaces/default/pods/p/status",
                "status",
                "PATCH",
            ),
        ];
        for (from, to, label, stage, detail) in table {
            let (step, shown) = message_step(
                &Actor::parse(from).expect("an actor"),
                &Actor::parse(to).expect("an actor"),
                label,
            );
            assert_eq!(
                (step.map_or("", StageName::as_str), shown),
                (stage, detail.to_owned()),
                "{label}"
            );
        }
    }

    #[test]
    fn the_empty_run_has_no_focus() {
        let m = Model {
            progress: DEFAULT_PROGRESS,
            ..Model::default()
        };
        assert!(!m.is_active("kubectl"));
        assert!(!m.node_active("node-1"));
    }
}
