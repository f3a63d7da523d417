//! The fault kinds a drill breaks a cluster with, each as a real cluster
//! shows it, and how a drill picks them from its seed. A [`Fault`] carries
//! everything its goal needs: the objects, the commands that apply them, the
//! symptom, hints, the cause, the fix (cluster-language commands) and the
//! goal check that holds only once it is fixed.

// Every builder takes its app by value (some change it before use).
#![allow(clippy::needless_pass_by_value)]

mod network;
mod pods;
mod policy;
mod probes;
mod scheduling;
mod storage;

use podflow_engine::rng::Rng;

use crate::app::{self, App};
use crate::nodes::Nodes;
use crate::{Level, Say};

/// A kind of fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    ImageTypo,
    MissingConfigMapKey,
    MissingSecret,
    WrongServiceSelector,
    WrongTargetPort,
    FailingReadinessProbe,
    FailingLivenessProbe,
    CrashMissingEnv,
    WrongCommand,
    StuckInitContainer,
    RequestsTooLarge,
    UntoleratedTaint,
    UnmatchedNodeSelector,
    CordonedNode,
    FailedNode,
    QuotaExceeded,
    LimitRangeViolated,
    MissingRbac,
    UnboundPvc,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 19] = [
        Kind::ImageTypo,
        Kind::MissingConfigMapKey,
        Kind::MissingSecret,
        Kind::WrongServiceSelector,
        Kind::WrongTargetPort,
        Kind::FailingReadinessProbe,
        Kind::FailingLivenessProbe,
        Kind::CrashMissingEnv,
        Kind::WrongCommand,
        Kind::StuckInitContainer,
        Kind::RequestsTooLarge,
        Kind::UntoleratedTaint,
        Kind::UnmatchedNodeSelector,
        Kind::CordonedNode,
        Kind::FailedNode,
        Kind::QuotaExceeded,
        Kind::LimitRangeViolated,
        Kind::MissingRbac,
        Kind::UnboundPvc,
    ];

    /// The kinds a drill at `level` may draw.
    pub fn at(level: Level) -> Vec<Kind> {
        Kind::ALL
            .iter()
            .copied()
            .filter(|k| level != Level::Three || k.hides_behind_frontend())
            .filter(|k| level != Level::Two || *k != Kind::FailedNode)
            .collect()
    }

    /// The kind's name, as `drill check` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::ImageTypo => "image-typo",
            Kind::MissingConfigMapKey => "missing-configmap-key",
            Kind::MissingSecret => "missing-secret",
            Kind::WrongServiceSelector => "wrong-service-selector",
            Kind::WrongTargetPort => "wrong-target-port",
            Kind::FailingReadinessProbe => "failing-readiness-probe",
            Kind::FailingLivenessProbe => "failing-liveness-probe",
            Kind::CrashMissingEnv => "crash-missing-env",
            Kind::WrongCommand => "wrong-command",
            Kind::StuckInitContainer => "stuck-init-container",
            Kind::RequestsTooLarge => "requests-too-large",
            Kind::UntoleratedTaint => "untolerated-taint",
            Kind::UnmatchedNodeSelector => "unmatched-node-selector",
            Kind::CordonedNode => "cordoned-node",
            Kind::FailedNode => "failed-node",
            Kind::QuotaExceeded => "quota-exceeded",
            Kind::LimitRangeViolated => "limitrange-violated",
            Kind::MissingRbac => "missing-rbac",
            Kind::UnboundPvc => "unbound-pvc",
        }
    }

    /// Whether the fault changes nodes (a drill has at most one such).
    fn touches_nodes(self) -> bool {
        matches!(
            self,
            Kind::UntoleratedTaint
                | Kind::UnmatchedNodeSelector
                | Kind::CordonedNode
                | Kind::FailedNode
        )
    }

    /// Whether a level-3 drill may hide it behind a frontend: the fault
    /// leaves no Pod of a web server Ready, so the frontend's probe fails.
    fn hides_behind_frontend(self) -> bool {
        !matches!(
            self,
            Kind::MissingRbac | Kind::CrashMissingEnv | Kind::WrongCommand | Kind::QuotaExceeded
        )
    }
}

/// A command the drill runs for the student before the symptom shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    pub run: String,
    pub text: Say,
}

/// One fault of a drill, with all its goal needs.
#[derive(Debug, Clone)]
pub struct Fault {
    pub kind: Kind,
    /// The broken workload, when the fault has one.
    pub app: Option<App>,
    /// Objects the cluster starts with (YAML documents).
    pub cluster: Vec<String>,
    /// The team's manifests, by file name.
    pub files: Vec<(String, String)>,
    /// Commands run before the symptom (applying the files).
    pub setup: Vec<Setup>,
    /// What is seen: "the shop's Pods are not Ready".
    pub symptom: Say,
    /// The goal's task.
    pub task: Say,
    /// The goal check (crates/podflow-lesson/src/goal.rs).
    pub check: String,
    pub hints: Vec<Say>,
    /// What is wrong, shown with the fix.
    pub cause: Say,
    /// Cluster-language commands that fix it.
    pub fix: Vec<String>,
    /// The fault's app already has a Service on port 80 (a frontend may probe it).
    pub serves: bool,
}

/// What a fault's builder draws from.
pub struct Cx<'a> {
    pub rng: &'a mut Rng,
    pub nodes: &'a mut Nodes,
}

impl Cx<'_> {
    /// One of `items`.
    pub fn choose<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        let i = usize::try_from(self.rng.below(items.len() as u64)).unwrap_or(0);
        &items[i]
    }

    /// A worker's name.
    pub fn worker(&mut self) -> String {
        (*self.choose(&crate::nodes::WORKERS)).to_owned()
    }
}

/// The usual first step: the team applies its manifest.
pub fn apply_step(app: &App, file: &str) -> Setup {
    Setup {
        run: format!("apply -f {file}"),
        text: crate::say(
            format!("The {} team deploys its service.", app.name),
            format!("{} 团队部署了它的服务。", app.name),
        ),
    }
}

/// Builds a fault of `kind` on `app`.
fn build(kind: Kind, app: App, cx: &mut Cx<'_>) -> Fault {
    match kind {
        Kind::ImageTypo => pods::image_typo(app, cx),
        Kind::MissingConfigMapKey => pods::missing_configmap_key(app, cx),
        Kind::MissingSecret => pods::missing_secret(app, cx),
        Kind::CrashMissingEnv => pods::crash_missing_env(app, cx),
        Kind::WrongCommand => pods::wrong_command(app, cx),
        Kind::StuckInitContainer => pods::stuck_init_container(app, cx),
        Kind::WrongServiceSelector => network::wrong_service_selector(app, cx),
        Kind::WrongTargetPort => network::wrong_target_port(app, cx),
        Kind::FailingReadinessProbe => probes::failing_readiness(app, cx),
        Kind::FailingLivenessProbe => probes::failing_liveness(app, cx),
        Kind::RequestsTooLarge => scheduling::requests_too_large(app, cx),
        Kind::UntoleratedTaint => scheduling::untolerated_taint(app, cx),
        Kind::UnmatchedNodeSelector => scheduling::unmatched_node_selector(app, cx),
        Kind::CordonedNode => scheduling::cordoned_node(app, cx),
        Kind::FailedNode => scheduling::failed_node(app, cx),
        Kind::QuotaExceeded => policy::quota_exceeded(app, cx),
        Kind::LimitRangeViolated => policy::limitrange_violated(app, cx),
        Kind::MissingRbac => policy::missing_rbac(app, cx),
        Kind::UnboundPvc => storage::unbound_pvc(app, cx),
    }
}

/// The first fault's kind of drill `seed`: the level's kinds in a fixed
/// shuffled order, so any run of as many seeds as there are kinds meets
/// every kind once.
fn first_kind(seed: u64, level: Level) -> Kind {
    let mut kinds = Kind::at(level);
    let mut shuffle = Rng::new(0x0D21_11ED);
    for i in (1..kinds.len()).rev() {
        let j = usize::try_from(shuffle.below(i as u64 + 1)).unwrap_or(0);
        kinds.swap(i, j);
    }
    let at = usize::try_from(seed % kinds.len() as u64).unwrap_or(0);
    kinds[at]
}

/// The faults of drill `seed` at `level` (the first by [`first_kind`], any
/// other drawn from `rng`), and the nodes they changed.
pub fn pick(seed: u64, rng: &mut Rng, level: Level) -> (Vec<Fault>, Nodes) {
    let mut nodes = Nodes::default();
    let count = if level == Level::Two { 2 } else { 1 };
    let mut kinds: Vec<Kind> = vec![first_kind(seed, level)];
    while kinds.len() < count {
        let kind = Kind::ALL[usize::try_from(rng.below(Kind::ALL.len() as u64)).unwrap_or(0)];
        let clash = kind.touches_nodes() && kinds.iter().any(|k| k.touches_nodes());
        let fits = !kinds.contains(&kind) && !clash && Kind::at(level).contains(&kind);
        if fits {
            kinds.push(kind);
        }
    }
    let mut faults = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for kind in kinds {
        let app = app::pick(rng, &taken);
        taken.push(app.name.clone());
        let mut cx = Cx {
            rng,
            nodes: &mut nodes,
        };
        let mut fault = build(kind, app, &mut cx);
        if level == Level::Three {
            network::behind_frontend(&mut fault);
        }
        faults.push(fault);
    }
    (faults, nodes)
}
