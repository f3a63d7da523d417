//! Model and widget tests of the sequence pane, on the nginx story and on
//! hand-made records.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::*;
use crate::tui::lang::Lang;
use crate::tui::panes::{PaneId, PaneState};
use crate::tui::testing::{find, nginx_timeline, render_pane, render_pane_with};
use crate::tui::theme::{Theme, ThemeName};
use podflow_engine::timeline::Timeline;
use podflow_engine::trace::{Record, TraceRecord};

fn model_at(t: &Timeline, index: usize) -> Model {
    Model::from_records(t.view(index).records, 0)
}

fn column(model: &Model, name: &str) -> Option<usize> {
    model.participants.iter().position(|p| p == name)
}

fn message(seq: u64, from: &str, to: &str, label: &str) -> TraceRecord {
    TraceRecord {
        seq,
        t_ms: seq,
        body: Record::message(
            Actor::parse(from).expect("an actor"),
            Actor::parse(to).expect("an actor"),
            label,
        ),
    }
}

#[test]
fn first_post_is_the_current_last_row() {
    let t = nginx_timeline();
    let index = find(
        &t,
        "kubectl → kube-apiserver: POST /api/v1/namespaces/default/pods",
    );
    let model = model_at(&t, index);
    assert_eq!(model.participants, ["kubectl", "kube-apiserver", "etcd"]);
    let last = model.rows.last().expect("a row");
    assert_eq!(last.from, column(&model, "kubectl"));
    assert_eq!(last.to, column(&model, "kube-apiserver"));
    assert_eq!(last.label, "POST /api/v1/namespaces/default/pods");
    assert_eq!(last.kind, RowKind::Request);
    assert!(last.is_current);
    assert_eq!(model.rows.iter().filter(|r| r.is_current).count(), 1);
    // Before it: GET, the etcd range, and the 404 answer.
    let labels: Vec<&str> = model.rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "GET /api/v1/namespaces/default/pods/nginx",
            "range /registry/pods/default/nginx",
            "404 pods \"nginx\" not found",
            "POST /api/v1/namespaces/default/pods",
        ]
    );
    assert!(model.rows[2].is_response());
    assert_eq!(model.rows[2].from, Some(1));
    assert_eq!(model.rows[2].to, Some(0));
}

#[test]
fn a_stage_after_an_arrow_keeps_the_arrow_current() {
    let t = nginx_timeline();
    let post = find(
        &t,
        "kubectl → kube-apiserver: POST /api/v1/namespaces/default/pods",
    );
    let model = model_at(&t, post + 1);
    let last = model.rows.last().expect("a row");
    assert_eq!(last.label, "POST /api/v1/namespaces/default/pods");
    assert!(last.is_current);
    assert_eq!(
        model.current.as_deref(),
        Some("kubectl → kube-apiserver: POST /api/v1/namespaces/default/pods")
    );
}

#[test]
fn columns_appear_as_the_story_reaches_them() {
    let t = nginx_timeline();
    let cases: [(&str, &[&str]); 4] = [
        (
            "kube-scheduler → kube-apiserver: POST /api/v1/namespaces/default/pods/nginx/binding",
            &[
                "kubectl",
                "kube-apiserver",
                "etcd",
                "kube-controller-manager",
                "kube-scheduler",
            ],
        ),
        (
            "kubelet/node-3 → containerd/node-3: RunPodSandbox",
            &[
                "kubectl",
                "kube-apiserver",
                "etcd",
                "kube-controller-manager",
                "kube-scheduler",
                "kubelet/node-3",
                "containerd/node-3",
            ],
        ),
        (
            "containerd/node-3 → registry: pull",
            &[
                "kubectl",
                "kube-apiserver",
                "etcd",
                "kube-controller-manager",
                "kube-scheduler",
                "kubelet/node-3",
                "containerd/node-3",
                "cni/node-3",
                "registry",
            ],
        ),
        (
            "Observed pod startup duration",
            &[
                "kubectl",
                "kube-apiserver",
                "etcd",
                "kube-controller-manager",
                "kube-scheduler",
                "kubelet/node-3",
                "containerd/node-3",
                "cni/node-3",
                "registry",
            ],
        ),
    ];
    for (needle, participants) in cases {
        let model = model_at(&t, find(&t, needle));
        assert_eq!(model.participants, participants, "at {needle}");
    }
}

#[test]
fn binding_is_drawn_from_the_scheduler() {
    let t = nginx_timeline();
    let model = model_at(&t, find(&t, "/pods/nginx/binding"));
    let last = model.rows.last().expect("a row");
    assert_eq!(last.from, column(&model, "kube-scheduler"));
    assert_eq!(last.to, column(&model, "kube-apiserver"));
    assert!(last.is_current);
}

#[test]
fn watch_deliveries_are_dashed_rows_to_the_watcher() {
    let t = nginx_timeline();
    let model = model_at(&t, find(&t, "kube-scheduler ← ADDED pods/default/nginx"));
    let last = model.rows.last().expect("a row");
    assert!(last.is_watch());
    assert_eq!(last.label, "watch ADDED pods/default/nginx");
    assert_eq!(last.from, column(&model, "kube-apiserver"));
    assert_eq!(last.to, column(&model, "kube-scheduler"));
}

#[test]
fn the_final_record_has_no_current_arrow() {
    let records = [
        message(0, "kubectl", "kube-apiserver", "GET /api"),
        TraceRecord {
            seq: 1,
            t_ms: 1,
            body: Record::Final {
                objects: Vec::new(),
            },
        },
    ];
    let model = Model::from_records(&records, 0);
    assert_eq!(model.rows.len(), 1);
    assert!(model.rows.iter().all(|r| !r.is_current));
    assert_eq!(model.current, None);
}

#[test]
fn self_messages_are_notes() {
    let records = [
        message(0, "kubectl", "kube-apiserver", "GET /api"),
        message(1, "kubelet/n1", "kubelet/n1", "run postStart hook"),
    ];
    let model = Model::from_records(&records, 0);
    assert_eq!(
        model.participants,
        ["kubectl", "kube-apiserver", "kubelet/n1"]
    );
    assert!(!model.rows[0].is_note());
    assert!(model.rows[1].is_note());
    assert_eq!(model.rows[1].from, Some(2));
    let theme = Theme::new(ThemeName::Dark, false);
    let state = PaneState::default();
    let store = podflow_engine::store::Snapshot::default();
    let view = podflow_engine::timeline::View {
        records: &records,
        later_in_event: &[],
        store,
        now: podflow_engine::clock::SimTime(1),
        idle_run: false,
    };
    let cx = PaneCx {
        view: &view,
        lang: Lang::En,
        theme: &theme,
        focused: false,
        state: &state,
    };
    let area = Rect::new(0, 0, 80, 8);
    let mut buf = Buffer::empty(area);
    render(&Model::build(&cx), &cx, area, &mut buf);
    let text = crate::tui::testing::buffer_text(&buf);
    assert!(text.contains("[run postStart hook]"), "{text}");
    assert!(text.contains("│─GET /api──"), "{text}");
}

#[test]
fn nodes_come_in_order_of_first_appearance() {
    let records = [
        message(0, "kubelet/w2", "containerd/w2", "RunPodSandbox"),
        message(1, "registry", "containerd/w2", "image"),
        message(2, "kubelet/w1", "kube-apiserver", "GET"),
        message(3, "cni/w1", "csi/w1", "x"),
        message(4, "kubectl", "kube-apiserver", "POST"),
    ];
    let model = Model::from_records(&records, 0);
    assert_eq!(
        model.participants,
        [
            "kubectl",
            "kube-apiserver",
            "kubelet/w2",
            "containerd/w2",
            "kubelet/w1",
            "cni/w1",
            "csi/w1",
            "registry",
        ]
    );
}

#[test]
fn only_the_arrows_needed_are_kept() {
    let records: Vec<TraceRecord> = (0..1000)
        .map(|i| message(i, "kubectl", "kube-apiserver", &format!("GET {i}")))
        .collect();
    let model = Model::from_records(&records, 0);
    assert_eq!(model.rows.len(), KEEP);
    assert_eq!(model.rows.last().map(|r| r.label.as_str()), Some("GET 999"));
    let model = Model::from_records(&records, 50);
    assert_eq!(model.rows.len(), KEEP + 50);
}

#[test]
fn the_window_follows_the_step_and_scrolls_back() {
    let rows = vec![
        Row {
            from: Some(0),
            to: Some(1),
            label: String::new(),
            kind: RowKind::Request,
            is_current: false,
        };
        30
    ];
    let cases = [
        // (scroll, height, window)
        (0, 10, 20..30),
        (5, 10, 15..25),
        (25, 10, 0..10),
        (99, 10, 0..10),
        (0, 40, 0..30),
        (3, 40, 0..30),
        (0, 0, 30..30),
    ];
    for (scroll, height, window) in cases {
        let model = Model {
            participants: vec!["a".into(), "b".into()],
            rows: rows.clone(),
            scroll,
            current: None,
        };
        assert_eq!(
            model.window(height),
            window,
            "scroll {scroll} height {height}"
        );
    }
}

#[test]
fn renders_headers_and_the_post_arrow_at_80_by_20() {
    let t = nginx_timeline();
    let index = find(
        &t,
        "kubectl → kube-apiserver: POST /api/v1/namespaces/default/pods",
    );
    let text = render_pane(&t, index, PaneId::Sequence, 80, 20);
    for needle in [
        "Sequence",
        "kubectl",
        "kube-apiserver",
        "etcd",
        "│─POST …/default/pods",
        "▶│",
        "◀┄404",
        "now: kubectl → kube-apiserver: POST /api/v1/namespaces/default/pods",
    ] {
        assert!(text.contains(needle), "{needle:?} missing in\n{text}");
    }
    // And the whole pane, cell by cell.
    insta::assert_snapshot!("sequence_post_80x20", text);
}

#[test]
fn narrow_panes_use_short_headers() {
    let t = nginx_timeline();
    let text = render_pane(&t, t.len() - 1, PaneId::Sequence, 100, 20);
    for needle in [
        "kubectl",
        "apiserver",
        "etcd",
        "ctrl-mgr",
        "scheduler",
        "klet/n3",
        "ctrd/n3",
        "cni/n3",
        "registry",
    ] {
        assert!(text.contains(needle), "{needle:?} missing in\n{text}");
    }
    // Narrower, the node's lanes merge into one under its name.
    let text = render_pane(&t, t.len() - 1, PaneId::Sequence, 70, 20);
    assert!(text.contains("node-3"), "{text}");
    assert!(!text.contains("klet"), "{text}");
    assert!(text.contains('▶') || text.contains('◀'), "{text}");
    let text = render_pane(&t, t.len() - 1, PaneId::Sequence, 20, 5);
    assert!(text.contains('│'), "{text}");
}

#[test]
fn scrolling_back_moves_the_window() {
    let t = nginx_timeline();
    let end = t.len() - 1;
    let follow = render_pane(&t, end, PaneId::Sequence, 100, 12);
    let state = PaneState {
        scroll: 12,
        ..PaneState::default()
    };
    let back = render_pane_with(&t, end, PaneId::Sequence, 100, 12, Lang::En, &state);
    assert_ne!(follow, back);
    assert!(back.contains("↑12"), "{back}");
    assert!(!follow.contains('↑'), "{follow}");
    // The last arrow of the run (the kubelet's status answer) is out of view.
    let model = model_at(&t, end);
    let newest = &model.rows.last().expect("a row").label;
    assert!(follow.contains(newest.as_str()), "{follow}");
}

#[test]
fn chinese_and_empty_views() {
    let t = nginx_timeline();
    let theme = Theme::new(ThemeName::Dark, false);
    let state = PaneState::default();
    let cx = PaneCx {
        view: &t.start(),
        lang: Lang::Zh,
        theme: &theme,
        focused: true,
        state: &state,
    };
    let area = Rect::new(0, 0, 70, 6);
    let mut buf = Buffer::empty(area);
    render(&Model::build(&cx), &cx, area, &mut buf);
    let text = crate::tui::testing::buffer_text(&buf);
    // Wide characters take two cells; the test buffer spells the second as a space.
    let text = text.replace(' ', "");
    assert!(text.contains("时序图"), "{text}");
    assert!(text.contains("还没有请求"), "{text}");
    let index = find(&t, "POST /api/v1/namespaces/default/pods");
    let text = render_pane_with(
        &t,
        index,
        PaneId::Sequence,
        80,
        20,
        Lang::Zh,
        &PaneState::default(),
    );
    assert!(text.replace(' ', "").contains("当前："), "{text}");
}

#[test]
fn renders_at_every_size_without_panic() {
    let t = nginx_timeline();
    let steps = [0, find(&t, "RunPodSandbox"), t.len() - 1];
    for index in steps {
        for width in (0..=120).step_by(7) {
            for height in (0..=40).step_by(3) {
                render_pane(&t, index, PaneId::Sequence, width, height);
            }
        }
        render_pane(&t, index, PaneId::Sequence, 300, 100);
        render_pane(&t, index, PaneId::Sequence, 1, 1);
        render_pane(&t, index, PaneId::Sequence, 3, 3);
    }
}

#[test]
fn a_narrow_pane_gives_columns_to_the_rows_in_sight() {
    // A Deployment's last steps name a dozen participants; the 80×24
    // layout's sequence pane has 32 cells, two or three each.
    let t = crate::tui::testing::timeline(
        &["create -f tests/fixtures/web-deployment.yaml", "wait idle"],
        None,
    );
    let end = t.len() - 1;
    assert!(model_at(&t, end).participants.len() > 10);
    let text = render_pane(&t, end, PaneId::Sequence, 34, 10);
    let headers = text.lines().nth(1).expect(&text);
    let names: Vec<&str> = headers
        .trim_matches(['│', ' '])
        .split_whitespace()
        .collect();
    assert!(names.len() >= 2, "{text}");
    assert!(
        names.iter().all(|n| n.chars().count() >= 3),
        "headers cut to letters:\n{text}"
    );
    assert!(text.contains('▶') || text.contains('◀'), "{text}");
    // With room for every participant, all keep their columns.
    let wide = render_pane(&t, end, PaneId::Sequence, 300, 10);
    let header = wide.lines().nth(1).expect(&wide).trim_matches(['│', ' ']);
    assert!(header.split_whitespace().count() > 10, "{wide}");
}

#[test]
fn a_narrow_pane_merges_each_nodes_lanes_and_labels_every_arrow() {
    let t = crate::tui::testing::timeline(
        &["create -f tests/fixtures/web-deployment.yaml", "wait idle"],
        None,
    );
    let sandbox = find(&t, "RunPodSandbox");
    let text = render_pane(&t, sandbox + 3, PaneId::Sequence, 48, 20);
    let header = text.lines().nth(1).expect(&text);
    assert!(header.contains("n1") || header.contains("node-1"), "{text}");
    assert!(!header.contains("klet"), "{text}");
    // The kubelet's CRI call is a note on its node's lifeline.
    assert!(
        text.lines()
            .any(|l| l.contains(": kubelet → containerd: RunPodSandbox]")),
        "{text}"
    );
    // Every arrow drawn says what it carries: no arrow of dashes alone.
    for line in text.lines().skip(2) {
        for arrow in line
            .split(['│', '['])
            .filter(|p| p.contains('▶') || p.contains('◀'))
        {
            assert!(
                arrow.chars().any(char::is_alphanumeric),
                "an arrow without its label: {arrow:?} in\n{text}"
            );
        }
    }
    // The merged model keeps one lifeline a node, in the same order.
    let model = model_at(&t, sandbox);
    let merged = model.by_node();
    assert!(merged.participants.iter().any(|p| p.starts_with("node/")));
    assert!(
        !merged
            .participants
            .iter()
            .any(|p| p.starts_with("kubelet/"))
    );
    assert_eq!(merged.rows.len(), model.rows.len());
}
