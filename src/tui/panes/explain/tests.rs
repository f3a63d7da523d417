//! Model and widget tests of the explain pane.

use super::*;
use crate::tui::panes::PaneState;
use crate::tui::testing::{find, nginx_timeline, render_pane, render_pane_with, timeline};
use crate::tui::theme::{Theme, ThemeName};
use podflow_engine::engine::Engine;
use podflow_engine::setup::{SetupArgs, build_setup};
use podflow_engine::timeline::Timeline;
use podflow_engine::trace::{Actor, StageName};

fn model(t: &Timeline, index: usize, lang: Lang) -> Model {
    let theme = Theme::new(ThemeName::Dark, false);
    let state = PaneState::default();
    let cx = PaneCx {
        view: &t.view(index),
        lang,
        theme: &theme,
        focused: false,
        state: &state,
    };
    Model::build(&cx)
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// jane (token `jane-token`) may only read pods in `dev`, and creates one.
fn jane_creates_a_pod() -> Timeline {
    let args = SetupArgs {
        token: Some("jane-token".into()),
        cluster: Some(fixture("rbac-cluster.yaml")),
        steps: vec![format!("create -f {}", fixture("dev-pod.yaml"))],
        embedded: vec![],
        seed: 1,
        ..Default::default()
    };
    Timeline::new(Engine::new(build_setup(&args).expect("setup builds")))
}

const HUGE_POD: &str = "apiVersion: v1
kind: Pod
metadata: {name: huge}
spec:
  containers:
  - name: c
    image: nginx:1.27
    resources: {requests: {cpu: \"64\"}}
";

fn unschedulable() -> Timeline {
    let args = SetupArgs {
        embedded: vec![("huge-pod.yaml", HUGE_POD)],
        seed: 1,
        ..Default::default()
    };
    Timeline::new(Engine::new(build_setup(&args).expect("setup builds")))
}

fn cycle(m: Model) -> Cycle {
    match m {
        Model::Scheduling(c) => c,
        other => panic!("expected a scheduling cycle, got {other:?}"),
    }
}

#[test]
fn at_nginx_select_three_workers_are_scored_and_the_control_plane_fails() {
    let t = nginx_timeline();
    let c = cycle(model(&t, find(&t, "select node-3"), Lang::En));
    assert_eq!(c.pod, "default/nginx");
    assert_eq!(c.chosen.as_deref(), Some("node-3"));
    assert!(!c.unschedulable);
    // Ranked once chosen: the chosen node, the others that fit by total (a
    // tie keeps the scheduler's order), then the one a filter ruled out.
    let nodes: Vec<&str> = c.rows.iter().map(|r| r.node.as_str()).collect();
    assert_eq!(nodes, ["node-3", "node-1", "node-2", "control-plane"]);
    let tie = c.tie().expect("three nodes total 397");
    assert_eq!((tie.chosen, tie.total), ("node-3", 397));
    assert_eq!(tie.others, ["node-1", "node-2"]);
    let cp = &c.rows[3];
    let failed = cp.failed().expect("the control plane fails a filter");
    assert_eq!(failed.plugin, "TaintToleration");
    assert_eq!(failed.reason, "node(s) had untolerated taint(s)");
    assert_eq!(cp.total, None);
    for row in &c.rows[..3] {
        assert!(row.failed().is_none());
        assert_eq!(row.filters.len(), 4);
        // 300 (TaintToleration) + 97 (NodeResourcesFit) + 0 (ImageLocality); BalancedAllocation
        // skips a Pod that requests nothing (kubernetes/kubernetes#129138).
        assert_eq!(row.total, Some(397), "{row:?}");
        assert_eq!(row.chosen, row.node == "node-3");
    }
    assert_eq!(
        c.score_plugins,
        [
            ("TaintToleration".to_owned(), 3),
            ("NodeResourcesFit".to_owned(), 1),
            ("ImageLocality".to_owned(), 1)
        ]
    );
    assert_eq!(
        c.filter_plugins,
        [
            "NodeUnschedulable",
            "NodeName",
            "TaintToleration",
            "NodeResourcesFit"
        ]
    );
}

#[test]
fn the_cycle_grows_during_filtering_and_stays_after_it() {
    let t = nginx_timeline();
    let partial = cycle(model(&t, find(&t, "filter NodeName node-1"), Lang::En));
    assert_eq!(partial.rows.len(), 2);
    assert_eq!(partial.chosen, None);
    assert_eq!(partial.rows[1].filters.len(), 2);
    let later = cycle(model(&t, find(&t, "RunPodSandbox"), Lang::En));
    assert_eq!(later.chosen.as_deref(), Some("node-3"));
    assert_eq!(later.rows.len(), 4);
}

#[test]
fn nothing_to_explain_before_any_cycle_or_refusal() {
    let t = nginx_timeline();
    assert_eq!(model(&t, 0, Lang::En), Model::Nothing);
    assert_eq!(
        model(&t, find(&t, "pod/nginx created"), Lang::En),
        Model::Nothing
    );
}

#[test]
fn a_404_names_the_handler_and_the_message() {
    let t = nginx_timeline();
    let Model::Refused(r) = model(&t, find(&t, "404 pods"), Lang::En) else {
        panic!("a 404 is a refusal");
    };
    assert_eq!(r.code, Some(404));
    assert_eq!(r.message, r#"pods "nginx" not found"#);
    assert_eq!(r.rbac, None);
}

#[test]
fn at_a_403_the_missing_permission_and_a_rule() {
    let t = jane_creates_a_pod();
    for needle in [
        "authorization RBAC → deny",
        "403 pods is forbidden",
        "Error from server (Forbidden)",
    ] {
        let Model::Refused(r) = model(&t, find(&t, needle), Lang::En) else {
            panic!("{needle}: expected a refusal");
        };
        assert_eq!(r.component, Actor::ApiServer);
        assert_eq!(r.stage, Some(StageName::Authorization));
        assert_eq!(r.plugin.as_deref(), Some("RBAC"));
        assert_eq!(r.code, Some(403));
        let hint = r.rbac.expect("an RBAC hint");
        assert_eq!(
            hint.can_i,
            "kubectl auth can-i create pods --namespace dev --as jane"
        );
        assert_eq!(hint.role_kind, "Role");
        assert_eq!(
            hint.rule,
            r#"apiGroups: [""], resources: ["pods"], verbs: ["create"]"#
        );
    }
    let Model::Refused(r) = model(&t, find(&t, "403 pods is forbidden"), Lang::En) else {
        panic!()
    };
    assert_eq!(
        r.message,
        r#"pods is forbidden: User "jane" cannot create resource "pods" in API group "" in the namespace "dev""#
    );
    let text = render_pane(&t, find(&t, "403 pods"), PaneId::Explain, 100, 20);
    assert!(text.contains("Refused: 403 Forbidden"), "{text}");
    assert!(
        text.contains("kube-apiserver · authorization · RBAC"),
        "{text}"
    );
    assert!(
        text.contains("kubectl auth can-i create pods --namespace dev --as jane"),
        "{text}"
    );
    assert!(text.contains("A Role rule that would allow it"), "{text}");
}

#[test]
fn a_decode_refusal_is_400_with_the_strict_decoding_message() {
    let t = timeline(&["create -f tests/fixtures/typo-pod.yaml"], None);
    let Model::Refused(r) = model(&t, find(&t, "400 Pod in version"), Lang::En) else {
        panic!()
    };
    assert_eq!((r.stage, r.code), (Some(StageName::Decode), Some(400)));
    assert!(
        r.message
            .contains(r#"unknown field "spec.containers[0].imagePullPolicyy""#)
    );
}

#[test]
fn an_unschedulable_pod_shows_every_failure_and_the_failed_scheduling_message() {
    let t = unschedulable();
    let c = cycle(model(
        &t,
        find(&t, "event Warning FailedScheduling"),
        Lang::En,
    ));
    assert!(c.unschedulable);
    assert_eq!(c.chosen, None);
    let reasons: Vec<String> = c
        .rows
        .iter()
        .map(|r| r.failed().map(|f| f.reason.clone()).unwrap_or_default())
        .collect();
    assert_eq!(
        reasons,
        [
            "node(s) had untolerated taint(s)",
            "Insufficient cpu",
            "Insufficient cpu",
            "Insufficient cpu"
        ]
    );
    assert!(c.verdict.as_deref().unwrap_or_default().starts_with(
        "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu."
    ));
    let text = render_pane(&t, find(&t, "FailedScheduling"), PaneId::Explain, 120, 20);
    assert!(text.contains("Why is default/huge Pending?"), "{text}");
    assert!(
        text.contains("FailedScheduling: 0/4 nodes are available"),
        "{text}"
    );
    assert!(
        text.contains("NodeResourcesFit: Insufficient cpu"),
        "{text}"
    );
}

#[test]
fn renders_the_table() {
    let t = nginx_timeline();
    let i = find(&t, "select node-3");
    let text = render_pane(&t, i, PaneId::Explain, 90, 20);
    assert!(
        text.contains("Why node-3? Scheduling cycle of default/nginx"),
        "{text}"
    );
    assert!(text.contains("TT×3"), "{text}");
    assert!(text.contains("IL×1"), "{text}");
    assert!(
        text.contains("TaintToleration: node(s) had untolerated taint(s)"),
        "{text}"
    );
    let chosen = text.lines().find(|l| l.contains("▶ node-3")).expect(&text);
    assert!(
        chosen.contains("397") && chosen.contains("chosen"),
        "{chosen}"
    );
    let node1 = text.lines().find(|l| l.contains("node-1 ")).expect(&text);
    assert!(
        node1.contains("✓✓✓✓") && node1.contains("100") && node1.contains("97"),
        "{node1}"
    );

    let medium = render_pane(&t, i, PaneId::Explain, 60, 20);
    assert!(medium.contains("control-plane"), "{medium}");
    let small = render_pane(&t, i, PaneId::Explain, 20, 5);
    assert!(small.contains("Why node-3?"), "{small}");

    let zh = render_pane_with(
        &t,
        i,
        PaneId::Explain,
        90,
        20,
        Lang::Zh,
        &PaneState::default(),
    );
    assert!(zh.replace(' ', "").contains("为什么是node-3？"), "{zh}");
    let nothing = render_pane(&t, 0, PaneId::Explain, 60, 20);
    assert!(
        nothing.contains("Nothing to explain at this step"),
        "{nothing}"
    );
}

#[test]
fn never_panics_at_any_size() {
    let runs = [nginx_timeline(), jane_creates_a_pod(), unschedulable()];
    for t in &runs {
        let picks = [0, t.len() / 3, t.len() / 2, t.len().saturating_sub(2)];
        for index in picks {
            for w in (0..=120).step_by(9) {
                for h in (0..=40).step_by(4) {
                    for lang in [Lang::En, Lang::Zh] {
                        render_pane_with(
                            t,
                            index,
                            PaneId::Explain,
                            w,
                            h,
                            lang,
                            &PaneState::default(),
                        );
                    }
                }
            }
        }
    }
    let scrolled = PaneState {
        scroll: 1000,
        ..PaneState::default()
    };
    let t = nginx_timeline();
    render_pane_with(
        &t,
        find(&t, "select node-3"),
        PaneId::Explain,
        30,
        8,
        Lang::Zh,
        &scrolled,
    );
}

#[test]
fn an_unschedulable_pod_shows_where_it_waits_in_the_queue() {
    let manifest = format!(
        "apply -f {}/assets/manifests/nginx-pod.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let args = podflow_engine::setup::SetupArgs {
        steps: vec![
            "cordon node-1".into(),
            "cordon node-2".into(),
            "cordon node-3".into(),
            manifest,
        ],
        seed: 1,
        ..podflow_engine::setup::SetupArgs::default()
    };
    let engine = podflow_engine::engine::Engine::new(
        podflow_engine::setup::build_setup(&args).expect("setup"),
    );
    let t = podflow_engine::timeline::Timeline::new(engine);
    let at = find(&t, "waits among unschedulable pods");
    let text = render_pane(&t, at, PaneId::Explain, 100, 20);
    assert!(
        text.contains(
            "Queue: default/nginx waits among unschedulable pods for a cluster event (attempt 1)"
        ),
        "{text}"
    );
}

#[test]
fn the_table_fits_the_default_layouts_pane_and_the_reasons_wrap_under_it() {
    // The Explain pane of the 120×40 layout is 48 columns wide.
    let t = nginx_timeline();
    let text = render_pane(&t, find(&t, "select node-3"), PaneId::Explain, 48, 20);
    let line = |needle: &str| text.lines().find(|l| l.contains(needle)).expect(&text);
    assert!(line("filters").contains("total"), "{text}");
    for node in ["node-1", "node-2", "▶ node-3"] {
        assert!(line(&format!("{node} ")).contains("397"), "{text}");
    }
    assert!(
        line("control-plane ")
            .trim_end_matches(['│', ' '])
            .ends_with("TaintToleration")
    );
    // The ruled-out node's reason, whole, in the wrapped notes.
    let notes: String = text
        .lines()
        .skip_while(|l| !l.contains("✗ control-plane:"))
        .map(|l| l.trim_matches(['│', ' ']))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        notes.starts_with("✗ control-plane: TaintToleration: node(s) had untolerated taint(s)"),
        "{text}"
    );
}

#[test]
fn the_chosen_row_is_in_sight_in_the_default_layouts_short_pane_and_a_tie_is_named() {
    // At 120×40 the Explain pane shows 6 rows: the title, the header and four
    // nodes. The chosen one is the first of them, whatever its name.
    let t = nginx_timeline();
    let at = find(&t, "select node-3");
    let text = render_pane(&t, at, PaneId::Explain, 48, 8);
    let rows: Vec<&str> = text.lines().skip(3).take(2).collect();
    assert!(
        rows[0].contains("▶ node-3") && rows[0].contains("397"),
        "{text}"
    );
    assert!(
        rows[1].contains("node-1 ") && rows[1].contains("397"),
        "{text}"
    );
    // Three nodes scored 397: the notes say the pick among them was random.
    let tall = render_pane(&t, at, PaneId::Explain, 120, 20);
    assert!(
        tall.contains(
            "node-3, node-1 and node-2 tie at 397: the scheduler picked node-3 among them at random"
        ),
        "{tall}"
    );
    let zh = render_pane_with(
        &t,
        at,
        PaneId::Explain,
        120,
        20,
        Lang::Zh,
        &PaneState::default(),
    );
    assert!(zh.contains("总分并列 397"), "{zh}");
    // While the filters run, the rows keep the order the scheduler goes through the nodes.
    let partial = cycle(model(&t, find(&t, "filter NodeName node-1"), Lang::En));
    let nodes: Vec<&str> = partial.rows.iter().map(|r| r.node.as_str()).collect();
    assert_eq!(nodes, ["control-plane", "node-1"]);
}

const TYPO_POD: &str = "apiVersion: v1
kind: Pod
metadata: {name: typo}
spec:
  containers:
  - name: web
    image: ngnix:1.27
";

/// At the failed pull, and at the back-off after it, Explain says what the
/// registry answered and what it means, with the back-off.
#[test]
fn a_failed_pull_is_explained_with_the_registrys_answer() {
    let args = SetupArgs {
        embedded: vec![("typo-pod.yaml", TYPO_POD)],
        steps: vec!["wait 15s".into()],
        seed: 1,
        ..Default::default()
    };
    let mut t = Timeline::new(Engine::new(build_setup(&args).expect("setup builds")));
    t.finish();
    let stage_at = |outcome: podflow_engine::trace::Outcome| {
        (0..t.len())
            .find(|i| {
                matches!(&t.records()[*i].body,
                    podflow_engine::trace::Record::Stage(s) if s.stage == StageName::Pull && s.outcome == outcome)
            })
            .expect("the pull stage")
    };
    let failed = stage_at(podflow_engine::trace::Outcome::Failed);
    let Model::Pull(pull) = model(&t, failed, Lang::En) else {
        panic!("no pull failure explained");
    };
    assert_eq!(pull.image, "ngnix:1.27");
    assert_eq!(pull.cause, Cause::NoRepository);
    assert!(pull.backoff.is_none());
    let text = render_pane(&t, failed, PaneId::Explain, 100, 14);
    assert!(
        text.contains("Why is default/typo's image not pulled?"),
        "{text}"
    );
    assert!(text.contains("check the name for a typo"), "{text}");
    let backoff = stage_at(podflow_engine::trace::Outcome::Backoff);
    let Model::Pull(pull) = model(&t, backoff, Lang::Zh) else {
        panic!("no back-off explained");
    };
    // The 10 s back-off, seen by the pod worker's resync a second later.
    assert_eq!(pull.backoff.as_deref(), Some("next pull in 9s"));
}
