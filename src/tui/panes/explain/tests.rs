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
    let runs = vec![nginx_timeline(), jane_creates_a_pod(), unschedulable()];
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

/// A plugin whose `PreFilter` or `PreScore` answered Skip is listed as skipped,
/// with why, rather than left out (`RunPreFilterPlugins` /
/// `RunPreScorePlugins` in `pkg/scheduler/framework/runtime/framework.go`
/// leave its Filter or Score out of the cycle).
#[test]
fn skipped_plugins_are_listed_with_their_reason() {
    let t = nginx_timeline();
    let i = find(&t, "select node-3");
    let c = cycle(model(&t, i, Lang::En));
    let skipped: Vec<(&str, &str)> = c
        .skipped
        .iter()
        .map(|s| (s.at, s.plugin.as_str()))
        .collect();
    assert!(
        skipped.contains(&("PreFilter", "NodeAffinity")),
        "{skipped:?}"
    );
    assert!(
        skipped.contains(&("PreScore", "NodeAffinity")),
        "{skipped:?}"
    );
    let text = render_pane(&t, i, PaneId::Explain, 160, 60);
    assert!(
        text.contains(
            "skipped: PreFilter NodeAffinity — the pod has no nodeSelector and no required node affinity"
        ),
        "{text}"
    );
    let zh = text_at(&t, i, 160, 60, Lang::Zh);
    assert!(zh.contains("已跳过：PreScore NodeAffinity"), "{zh}");
}

fn fixture_run(steps: &[&str]) -> Timeline {
    timeline(steps, None)
}

/// The pane at the sizes of a whole screen: what `z` shows at 120×40 and 80×24.
fn snapshots(t: &Timeline, at: usize, name: &str) {
    for (w, h) in [(120, 40), (80, 24)] {
        let text = render_pane(t, at, PaneId::Explain, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), text);
    }
}

fn text_at(t: &Timeline, at: usize, w: u16, h: u16, lang: Lang) -> String {
    render_pane_with(t, at, PaneId::Explain, w, h, lang, &PaneState::default())
}

#[test]
fn a_crash_loop_names_the_exit_the_restarts_and_the_back_off() {
    let t = fixture_run(&["apply -f tests/fixtures/crasher-pod.yaml"]);
    let at = find(&t, "backoff: app CrashLoopBackOff: restart in 20s");
    let Model::Crash(c) = model(&t, at, Lang::En) else {
        panic!("expected a crash loop");
    };
    assert_eq!(
        (c.pod.as_str(), c.container.as_str()),
        ("default/crasher", "app")
    );
    assert_eq!((c.exit.code, c.exit.reason.as_str()), (1, "Error"));
    assert!(c.exit.tail.is_empty(), "`exit 1` writes nothing");
    let backoff = c.backoff.clone().expect("in back-off");
    assert_eq!((backoff.delay.as_str(), backoff.delay_ms), ("20s", 20_000));
    // The third exit, at 00:11.000, holds the restart until 00:31.000; the
    // sync that the back-off refuses comes with the PLEG's relist, a second
    // later (doBackOff).
    assert_eq!(backoff.restart_at_ms, 31_000);
    assert_eq!(t.records()[at].t_ms, 12_000);
    // The stored restartCount lags the trace by the status write to come.
    assert_eq!(c.restarts, Some(1));
    let text = text_at(&t, at, 120, 40, Lang::En);
    for needle in [
        "Why is default/crasher restarting? app exits with code 1 (Error)",
        "1 (Error): the program itself exited with an error",
        "20s (CrashLoopBackOff): restart at 00:31.000, in 19s",
        "(none: it wrote nothing)",
        "kubectl logs crasher -c app --previous",
    ] {
        assert!(text.contains(needle), "{needle}\n{text}");
    }
    snapshots(&t, at, "crash_loop");
    // A step later (the status write), the pane still explains the crash,
    // and the stored status now says how long the back-off is.
    let waiting = (at..t.len().min(at + 400)).find_map(|i| match model(&t, i, Lang::En) {
        Model::Crash(c) => c.waiting,
        _ => None,
    });
    assert!(
        waiting
            .as_deref()
            .is_some_and(|m| m
                .starts_with("back-off 20s restarting failed container=app pod=crasher_default(")),
        "{waiting:?}"
    );
    let zh = text_at(&t, at, 120, 40, Lang::Zh);
    assert!(zh.contains("为什么 default/crasher 不断重启？"), "{zh}");
}

/// The kubelet decides the back-off, then tells it in its `BackOff` Event:
/// at the Event's step the pane already says how long it is.
#[test]
fn at_the_backoff_event_the_back_off_is_known() {
    let t = fixture_run(&["apply -f tests/fixtures/crasher-pod.yaml"]);
    let event = t
        .records()
        .iter()
        .position(
            |r| matches!(&r.body, podflow_engine::trace::Record::Event(e) if e.reason == "BackOff"),
        )
        .expect("a BackOff Event");
    let Model::Crash(c) = model(&t, event, Lang::En) else {
        panic!("expected a crash loop");
    };
    assert_eq!(c.backoff.map(|b| b.delay), Some("10s".to_owned()));
}

const TALKER: &str = "apiVersion: v1
kind: Pod
metadata: {name: talker}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'echo loading config; echo config.yaml not found; exit 3']
";

#[test]
fn a_crash_shows_the_last_lines_the_container_wrote() {
    let args = SetupArgs {
        embedded: vec![("talker.yaml", TALKER)],
        seed: 1,
        ..Default::default()
    };
    let t = Timeline::new(Engine::new(build_setup(&args).expect("setup builds")));
    let at = find(&t, "app exited with code 3 (Error)");
    let Model::Crash(c) = model(&t, at, Lang::En) else {
        panic!("expected a crash");
    };
    assert_eq!(c.exit.tail, ["loading config", "config.yaml not found"]);
    assert!(c.backoff.is_none(), "the first exit restarts at once");
    let text = text_at(&t, at, 120, 40, Lang::En);
    assert!(text.contains("│ config.yaml not found"), "{text}");
    assert!(
        text.contains("none yet: the first exit is restarted at once"),
        "{text}"
    );
}

#[test]
fn an_oom_kill_compares_the_memory_with_the_limit() {
    let t = fixture_run(&["apply -f tests/fixtures/memory-demo-2.yaml"]);
    let at = find(&t, "memory-demo-2-ctr exited with code 137 (OOMKilled)");
    let Model::Oom(o) = model(&t, at, Lang::En) else {
        panic!("expected an OOM kill");
    };
    assert_eq!(o.limit.as_deref(), Some("100Mi"));
    assert_eq!(o.request.as_deref(), Some("50Mi"));
    assert_eq!(o.exit.limit_bytes, Some(100 * 1024 * 1024));
    // stress --vm-bytes 250M on top of its own 1Mi: over the 100Mi limit.
    let used = o
        .exit
        .memory_bytes
        .expect("the memory that crossed the limit");
    assert!(used > 100 * 1024 * 1024, "{used}");
    let text = text_at(&t, at, 120, 40, Lang::En);
    for needle in [
        "Why was default/memory-demo-2's memory-demo-2-ctr killed? OOMKilled",
        "it reached 251Mi, over its limit of 100Mi",
        "137 (OOMKilled): 128 + 9: SIGKILL from the kernel",
        "requests.memory: 50Mi · limits.memory: 100Mi",
        "limits.memory above 251Mi",
    ] {
        assert!(text.contains(needle), "{needle}\n{text}");
    }
    snapshots(&t, at, "oom_kill");
    // At its back-off too: the OOM kill stays the explanation.
    let backoff = find(&t, "memory-demo-2-ctr CrashLoopBackOff: restart in 10s");
    assert!(matches!(model(&t, backoff, Lang::Zh), Model::Oom(_)));
    let zh = text_at(&t, backoff, 120, 40, Lang::Zh);
    assert!(zh.contains("超过了上限 100Mi"), "{zh}");
}

#[test]
fn a_failing_liveness_probe_counts_to_the_threshold_and_the_restart() {
    let t = fixture_run(&["apply -f tests/fixtures/exec-liveness.yaml"]);
    let first = find(&t, "liveness: Liveness probe failed");
    let Model::Probe(p) = model(&t, first, Lang::En) else {
        panic!("expected a probe failure");
    };
    assert_eq!(p.kind, ProbeKind::Liveness);
    assert_eq!((p.detail.failures, p.detail.failure_threshold), (1, 3));
    assert_eq!(p.period_seconds, Some(5));
    assert_eq!(
        p.handler.as_deref(),
        Some(
            "exec [cat /tmp/healthy] delay=5s timeout=1s period=5s successThreshold=1 failureThreshold=3"
        )
    );
    assert_eq!(p.killing, None);
    let killed = find(&t, "failed liveness probe, will be restarted");
    let Model::Probe(p) = model(&t, killed, Lang::En) else {
        panic!("expected the probe at the kill");
    };
    assert_eq!(p.detail.failures, 3);
    assert_eq!(
        p.killing.as_deref(),
        Some("Container liveness failed liveness probe, will be restarted")
    );
    let text = text_at(&t, killed, 120, 40, Lang::En);
    for needle in [
        "Why is default/liveness-exec's liveness probe failing? 3 of 3 failures",
        "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory",
        "3 failures in a row of failureThreshold 3, one every 5s (periodSeconds)",
        "Container liveness failed liveness probe, will be restarted",
    ] {
        assert!(text.contains(needle), "{needle}\n{text}");
    }
    snapshots(&t, killed, "liveness_probe");
    // The exit that kill makes (137 after the grace period) is explained by the probe.
    let exit = find(&t, "liveness exited with code 137 (Error)");
    assert!(matches!(model(&t, exit, Lang::En), Model::Probe(_)));
}

#[test]
fn a_failing_readiness_probe_keeps_the_pod_out_of_the_endpoints() {
    let t = fixture_run(&["apply -f tests/fixtures/readiness-refused-pod.yaml"]);
    let at = find(&t, "web: Readiness probe failed");
    let Model::Probe(p) = model(&t, at, Lang::En) else {
        panic!("expected a probe failure");
    };
    assert_eq!(p.kind, ProbeKind::Readiness);
    assert_eq!(p.detail.failures, 1);
    let text = text_at(&t, at, 120, 40, Lang::En);
    assert!(text.contains("http-get http://:8080/ delay=0s"), "{text}");
    assert!(text.contains("connect: connection refused"), "{text}");
    assert!(
        text.contains("taken out of its Services' endpoints"),
        "{text}"
    );
    let zh = text_at(&t, at, 120, 40, Lang::Zh);
    assert!(zh.contains("从其 Service 的端点中移除"), "{zh}");
}

#[test]
fn a_pending_pod_counts_the_reasons_and_shows_what_each_node_lacks() {
    let t = unschedulable();
    let at = find(&t, "event Warning FailedScheduling");
    let c = cycle(model(&t, at, Lang::En));
    let fit = c
        .rows
        .iter()
        .find(|r| r.node == "node-1")
        .and_then(NodeRow::failed)
        .expect("node-1 fails NodeResourcesFit");
    let s = &fit.shortfalls[0];
    assert_eq!(
        (s.resource.as_str(), s.requested, s.allocatable),
        ("cpu", 64_000, 4_000)
    );
    let text = text_at(&t, at, 120, 40, Lang::En);
    for needle in [
        "none of the 4 nodes fits:",
        "1 × node(s) had untolerated taint(s)",
        "3 × Insufficient cpu",
        "NodeResourcesFit: Insufficient cpu: 64 requested,",
        "free of 4",
        "PostFilter: preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
    ] {
        assert!(text.contains(needle), "{needle}\n{text}");
    }
    snapshots(&t, at, "pending");
}

#[test]
fn preemption_names_the_nominated_node_and_the_victims() {
    let t = fixture_run(&[
        "apply -f tests/fixtures/batch-pods.yaml",
        "wait idle",
        "apply -f tests/fixtures/vip-pod.yaml",
    ]);
    let at = find(&t, "FailedScheduling pod/vip");
    let c = cycle(model(&t, at, Lang::En));
    // (The default story's nginx runs beside them: batch-1 landed on node-1.)
    find(&t, "Preempted pod/batch-1 from default-scheduler");
    assert_eq!(
        c.preemption,
        Some(Preemption::Nominated {
            node: "node-1".into(),
            victims: vec!["default/batch-1".into()]
        })
    );
    let text = text_at(&t, at, 120, 40, Lang::En);
    let flat = text
        .lines()
        .map(|l| l.trim_matches(['│', ' ']))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("PostFilter: default/vip nominated to node-1 (status.nominatedNodeName); evicting the lower-priority default/batch-1"),
        "{text}"
    );
    assert!(
        flat.contains("Insufficient cpu: 2 requested, 1 free of 4"),
        "{text}"
    );
}

#[test]
fn long_rows_end_with_an_ellipsis_and_hidden_lines_are_counted() {
    let t = nginx_timeline();
    let at = find(&t, "select node-3");
    // At 80×24 the Explain pane is 34 columns by 2 rows: the title row ends
    // with `…`, and the pane's title counts the lines below.
    let text = render_pane(&t, at, PaneId::Explain, 34, 4);
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[0].contains("Explain ↓ 57 more"), "{text}");
    assert!(
        rows[1].trim_end_matches('│').trim_end().ends_with('…'),
        "{text}"
    );
    let t = fixture_run(&["apply -f tests/fixtures/crasher-pod.yaml"]);
    let at = find(&t, "restart in 20s");
    let small = render_pane(&t, at, PaneId::Explain, 48, 8);
    assert!(
        small.lines().next().is_some_and(|l| l.contains("↓")),
        "{small}"
    );
    let scrolled = PaneState {
        scroll: 100,
        ..PaneState::default()
    };
    let end = render_pane_with(&t, at, PaneId::Explain, 48, 8, Lang::En, &scrolled);
    assert!(!end.contains("↓"), "{end}");
}

/// At a kube-proxy sync, the rules that node's sync wrote: here web's
/// first, before its Pods are ready, a REJECT.
#[test]
fn at_a_kube_proxy_sync_the_nodes_rules() {
    let t = timeline(
        &["apply -f tests/fixtures/web-service.yaml", "wait 10s"],
        None,
    );
    let at = find(&t, "sync-proxy-rules node-1 → write");
    let Model::Proxy(p) = model(&t, at, Lang::En) else {
        panic!("not kube-proxy's rules");
    };
    assert_eq!(p.node, "node-1");
    assert!(!p.refused);
    assert!(
        p.rules.iter().any(|r| r.starts_with(
            "-A KUBE-SERVICES -m comment --comment \"default/web:http has no endpoints\""
        ) && r.ends_with("-j REJECT")),
        "{:#?}",
        p.rules
    );
}

const REQUESTING_POD: &str = "apiVersion: v1
kind: Pod
metadata: {name: req}
spec:
  containers:
  - name: c
    image: nginx:1.27
    resources: {requests: {cpu: 250m, memory: 512Mi}}
";

/// The chosen node's total plugin by plugin, and the per-resource figures
/// behind `NodeResourcesFit` (`least_allocated.go`: (allocatable − requested)
/// × 100 / allocatable per resource, then the weighted mean) and
/// `NodeResourcesBalancedAllocation` (`balanced_allocation.go`: the fractions' spread).
#[test]
fn the_chosen_nodes_score_shows_its_parts_and_resources() {
    let args = SetupArgs {
        embedded: vec![("req.yaml", REQUESTING_POD)],
        seed: 1,
        ..Default::default()
    };
    let t = Timeline::new(Engine::new(build_setup(&args).expect("setup builds")));
    let i = find(&t, "select node-");
    let text = render_pane(&t, i, PaneId::Explain, 110, 40);
    assert!(
        text.contains("= TT 100×3 + NRF 93 + NRBA 100 + IL 0 = 493"),
        "{text}"
    );
    assert!(
        text.contains("NRF: cpu 0.25 of 4 → 93, memory 512Mi of 8Gi → 93; weighted mean 93"),
        "{text}"
    );
    assert!(
        text.contains("NRBA: cpu 0.06, memory 0.06 → 100 × (1 − their spread) = 100"),
        "{text}"
    );
}

/// `numFeasibleNodesToFind` stopped the Filter phase: the line names
/// `percentageOfNodesToScore` and its adaptive value.
#[test]
fn a_cycle_that_stopped_early_names_percentage_of_nodes_to_score() {
    let theme = Theme::new(ThemeName::Dark, false);
    let state = PaneState::default();
    let t = nginx_timeline();
    let view = t.view(0);
    let cx = PaneCx {
        view: &view,
        lang: Lang::En,
        theme: &theme,
        focused: false,
        state: &state,
    };
    let mut cycle = scheduling::latest(t.view(find(&t, "select node-3")).records).expect("a cycle");
    cycle.nodes_to_score = Some(podflow_engine::trace::NodesToScore {
        feasible: 420,
        nodes: 1000,
        percentage: 42,
        adaptive: true,
    });
    let line = nodes_to_score_line(&cycle, &cx).expect("a line");
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    assert_eq!(
        text,
        "stopped after 420 feasible nodes: percentageOfNodesToScore, adaptive 42 % at 1,000 nodes"
    );
}

/// The kubelet evicts `report` (it uses 8150Mi besides its own 1Mi, asks
/// for 1Gi) from node-1:
/// its kill is explained as the eviction, not as a crash to restart.
#[test]
fn an_eviction_names_the_node_the_message_and_that_it_is_not_restarted() {
    let t = fixture_run(&["apply -f tests/fixtures/memory-pressure.yaml", "wait 40s"]);
    let at = find(&t, "report exited with code 137 (Error)");
    let Model::Eviction(e) = model(&t, at, Lang::En) else {
        panic!("expected an eviction");
    };
    assert_eq!(
        (e.pod.as_str(), e.node.as_str()),
        ("default/report", "node-1")
    );
    assert!(
        e.message.starts_with(
            "The node was low on resource: memory. Threshold quantity: 100Mi, available: "
        ),
        "{}",
        e.message
    );
    assert!(
        e.message.contains(
            "Container report was using 8151Mi, request is 1Gi, has larger consumption of memory."
        ),
        "{}",
        e.message
    );
    assert_eq!(
        e.kills
            .iter()
            .map(|k| (k.container.as_str(), k.code))
            .collect::<Vec<_>>(),
        [("report", 137)]
    );
    assert_eq!(e.owner, None, "a bare Pod");
    let text = text_at(&t, at, 120, 40, Lang::En);
    for needle in [
        "Why was default/report evicted? node-1 ran low on memory",
        "report: 137 (Error): 128 + 9: killed with SIGKILL, with no grace period",
        "the kubelet never restarts an evicted Pod",
        "kubectl describe pod report",
    ] {
        assert!(text.contains(needle), "{needle}\n{text}");
    }
    assert!(!text.contains("restarting?"), "{text}");
    snapshots(&t, at, "eviction");
    let zh = text_at(&t, at, 120, 40, Lang::Zh);
    assert!(
        zh.contains("为什么 default/report 被驱逐？node-1 内存不足"),
        "{zh}"
    );
    // At the eviction itself, before any container has exited.
    let evicted = find(
        &t,
        "evicted: memory.available 33Mi is below the hard threshold 100Mi",
    );
    assert!(evicted < at);
    let Model::Eviction(e) = model(&t, evicted, Lang::En) else {
        panic!("expected the eviction at its own step");
    };
    assert!(e.kills.is_empty(), "{:?}", e.kills);
    // A crash before any eviction is still a crash.
    let crash = fixture_run(&["apply -f tests/fixtures/crasher-pod.yaml"]);
    let at = find(&crash, "app exited with code 1 (Error)");
    assert!(matches!(model(&crash, at, Lang::En), Model::Crash(_)));
}
