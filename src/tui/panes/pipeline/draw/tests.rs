//! The pipeline's drawing at each size and layout, on hand-made models and
//! on the nginx story.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

use crate::tui::lang::Lang;
use crate::tui::panes::{self, PaneCx, PaneId, PaneState};
use crate::tui::testing::{
    find, nginx_timeline, render_pane, render_pane_with, timeline, write_revisions,
};
use crate::tui::theme::{Theme, ThemeName};
use podflow_engine::timeline::Timeline;

const THEME: Theme = Theme {
    name: ThemeName::Dark,
    text: Style::new(),
    dim: Style::new(),
    border: Style::new(),
    border_focused: Style::new(),
    active: Style::new().add_modifier(Modifier::REVERSED),
    ok: Style::new(),
    bad: Style::new(),
    changed: Style::new(),
    component: Style::new(),
    bar: Style::new(),
};

/// The style of the first cell of the first occurrence of `needle` (ASCII)
/// in the pane rendered at `index`, with a theme where only `active` shows.
fn style_of(t: &Timeline, index: usize, w: u16, h: u16, needle: &str) -> Option<Style> {
    let state = PaneState::default();
    let cx = PaneCx {
        view: &t.view(index),
        lang: Lang::En,
        theme: &THEME,
        focused: false,
        state: &state,
    };
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    panes::render(PaneId::Pipeline, &cx, area, &mut buf);
    for y in 0..h {
        let cells: Vec<&str> = (0..w).map(|x| buf[(x, y)].symbol()).collect();
        let found = (0..cells.len()).find(|&x| {
            needle
                .chars()
                .enumerate()
                .all(|(i, c)| cells.get(x + i).is_some_and(|s| s.starts_with(c)))
        });
        if let Some(x) = found {
            let x = u16::try_from(x).expect("fits");
            return Some(buf[(x, y)].style());
        }
    }
    None
}

/// Whether `needle` is drawn in `theme.active` at 100×14.
fn lit(t: &Timeline, index: usize, needle: &str) -> bool {
    style_of(t, index, 100, 14, needle).is_some_and(|s| s.add_modifier.contains(Modifier::REVERSED))
}

#[test]
fn the_lit_stage_is_the_current_records() {
    let t = nginx_timeline();
    let authn = find(&t, "kubectl → kube-apiserver: POST") + 1;
    assert!(lit(&t, authn, "authn"));
    assert!(lit(&t, authn, "kube-apiserver"));
    assert!(!lit(&t, authn, "authz"));
    assert!(!lit(&t, authn, "kubectl"));
    let filter = find(&t, "kube-scheduler filter NodeUnschedulable control-plane");
    assert!(lit(&t, filter, "kube-scheduler"));
    assert!(lit(&t, filter, "filter"));
    assert!(!lit(&t, filter, "authn"));
    assert!(!lit(&t, filter, "score"));
    let pulling = find(&t, "containerd/node-3 → registry: pull");
    assert!(lit(&t, pulling, "registry"));
    assert!(lit(&t, pulling, "pull nginx:1.27"));
    assert!(lit(&t, pulling, "●"));
}

#[test]
fn at_the_posts_authentication_the_authn_box_is_lit() {
    let t = nginx_timeline();
    let authn = find(&t, "kubectl → kube-apiserver: POST") + 1;
    let text = render_pane(&t, authn, PaneId::Pipeline, 80, 14);
    assert!(
        text.contains("kube-apiserver [authn│authz│admission│valid]"),
        "{text}"
    );
    assert!(text.contains("kube-scheduler"), "{text}");
    assert!(text.contains("┌ node-1"), "{text}");
}

#[test]
fn the_token_travels_the_current_arrow() {
    let t = nginx_timeline();
    // The revision before the Pod's create: the store as the cluster began.
    let before = write_revisions(&t, "/registry/pods/default/nginx")[0] - 1;
    let etcd = format!("] ─●─▶ etcd rev {before}");
    let table = [
        (
            "kubectl → kube-apiserver: POST",
            "kubectl ─●─▶ kube-apiserver",
        ),
        (
            "kube-apiserver → kubectl: 201",
            "kubectl ◀─●─ kube-apiserver",
        ),
        ("kube-apiserver → etcd: txn put", etcd.as_str()),
        ("kube-scheduler ← ADDED pods", "▼● ADDED pods/default/nginx"),
        (
            "kube-scheduler → kube-apiserver: POST",
            "▲● POST /api/v1/namespaces/default/pods/nginx/binding",
        ),
        (
            "kubelet/node-3 → containerd/node-3: RunPodSandbox",
            "kubelet ●▶ containerd",
        ),
        ("containerd/node-3 → cni/node-3: ADD eth0", "●cni"),
        ("containerd/node-3 → registry: pull", "▲● registry"),
    ];
    for (needle, drawn) in table {
        let text = render_pane(&t, find(&t, needle), PaneId::Pipeline, 100, 14);
        assert!(text.contains(drawn), "{needle}: {drawn}\n{text}");
    }
}

#[test]
fn at_the_filter_stage_the_scheduler_is_shown_with_its_stages() {
    let t = nginx_timeline();
    let filter = find(&t, "kube-scheduler filter NodeUnschedulable control-plane");
    let text = render_pane(&t, filter, PaneId::Pipeline, 80, 14);
    assert!(
        text.contains("kube-scheduler [filter│score│select│bind]"),
        "{text}"
    );
    let text = render_pane(&t, filter, PaneId::Pipeline, 40, 6);
    assert!(text.contains("kube-scheduler"), "{text}");
}

#[test]
fn the_sandbox_step_names_the_sandbox_once() {
    let t = nginx_timeline();
    let sandbox = find(&t, "containerd/node-3 → kubelet/node-3: sandbox");
    let text = render_pane(&t, sandbox, PaneId::Pipeline, 120, 14);
    assert!(!text.contains("sandbox sandbox"), "{text}");
    assert!(text.contains("▸ sandbox "), "{text}");
}

#[test]
fn during_the_pull_the_node_box_shows_the_pull() {
    let t = nginx_timeline();
    let pulling = find(&t, "containerd/node-3 → registry: pull");
    let text = render_pane(&t, pulling, PaneId::Pipeline, 100, 14);
    assert!(text.contains("▸ pull nginx:1.27"), "{text}");
    assert!(text.contains("┌ node-3"), "{text}");
    // Narrower: node-3 keeps its box, the idle nodes are counted.
    let text = render_pane(&t, pulling, PaneId::Pipeline, 60, 14);
    assert!(text.contains("┌ node-3"), "{text}");
    assert!(text.contains("+2 more"), "{text}");
    // Lines instead of boxes.
    let text = render_pane(&t, pulling, PaneId::Pipeline, 60, 8);
    assert!(text.contains("node-3 ▸ pull nginx:1.27"), "{text}");
    let text = render_pane_with(
        &t,
        pulling,
        PaneId::Pipeline,
        100,
        14,
        Lang::Zh,
        &PaneState::default(),
    );
    assert!(text.contains("拉取"), "{text}");
}

#[test]
fn a_cordoned_node_is_shown() {
    let t = timeline(&["cordon node-2"], None);
    let text = render_pane(&t, t.len() - 1, PaneId::Pipeline, 100, 14);
    assert!(text.contains("node-2 cordoned"), "{text}");
    assert!(!text.contains("node-1 cordoned"), "{text}");
    let text = render_pane(&t, t.len() - 1, PaneId::Pipeline, 60, 8);
    assert!(text.contains("node-2 cordoned"), "{text}");
}

#[test]
fn the_scheduling_queue_is_shown_beside_the_scheduler() {
    // With every worker cordoned, a new pod waits among the unschedulable.
    let big = format!(
        "apply -f {}/tests/fixtures/big-pod.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let steps = ["cordon node-1", "cordon node-2", "cordon node-3", &big];
    let t = timeline(&steps, None);
    let last = t.len() - 1;
    let text = render_pane(&t, last, PaneId::Pipeline, 120, 14);
    assert!(
        text.contains("activeQ 0 · backoffQ 0 · unschedulable 1"),
        "{text}"
    );
    let text = render_pane(&t, last, PaneId::Pipeline, 70, 14);
    assert!(text.contains("kube-scheduler  unschedulable 1"), "{text}");
    // Nothing waits in the plain story's end: no queue shown.
    let t = nginx_timeline();
    let text = render_pane(&t, t.len() - 1, PaneId::Pipeline, 120, 14);
    assert!(!text.contains("activeQ"), "{text}");
}

#[test]
fn small_areas_keep_what_matters() {
    let t = nginx_timeline();
    let post = find(&t, "kubectl → kube-apiserver: POST");
    // (width, height, text present)
    let table = [
        (60, 20, "kubectl"),
        (20, 5, "kubectl"),
        (60, 3, "● kubectl → kube-apiserver: POST"),
        (60, 4, "kubectl"),
        (30, 14, "kube-apiserver"),
    ];
    for (w, h, present) in table {
        let text = render_pane(&t, post, PaneId::Pipeline, w, h);
        assert!(text.contains(present), "{w}×{h}: {present}\n{text}");
    }
}

#[test]
fn renders_at_every_size_without_panic() {
    let t = nginx_timeline();
    let steps = [
        0,
        find(&t, "containerd/node-3 → registry: pull"),
        find(&t, "kubelet/node-3 → containerd/node-3: RunPodSandbox"),
        t.len() - 1,
    ];
    // Every width at the heights where the layout changes, and every
    // height at the widths where it does, then the corners.
    let sizes = (0..=120)
        .flat_map(|w| (0..=12).chain([20, 40]).map(move |h| (w, h)))
        .chain((0..=40).flat_map(|h| (0..=25).chain([60, 120]).map(move |w| (w, h))));
    for (w, h) in sizes {
        for &index in &steps {
            render_pane(&t, index, PaneId::Pipeline, w, h);
        }
    }
    for lang in [Lang::En, Lang::Zh] {
        for (w, h) in [(300, 100), (7, 7), (21, 9)] {
            render_pane_with(&t, 5, PaneId::Pipeline, w, h, lang, &PaneState::default());
        }
    }
}

/// The informers' line takes kubectl's short names, and where even those do
/// not fit it ends with `…`, never cut silently.
#[test]
fn the_informers_line_is_never_cut_silently() {
    let t = timeline(
        &["apply -f tests/fixtures/web-service.yaml", "wait idle"],
        None,
    );
    let end = t.len() - 1;
    for width in [60, 70, 80, 100] {
        let text = render_pane(&t, end, PaneId::Pipeline, width, 20);
        let Some(line) = text.lines().find(|l| l.contains("informers")) else {
            continue;
        };
        let inner = line.trim_end_matches(['┃', '│']).trim_end();
        assert!(
            inner.ends_with('…')
                || inner
                    .split('/')
                    .next_back()
                    .is_some_and(|s| s.chars().all(|c| c.is_ascii_digit())),
            "{width}: {line}"
        );
    }
    let text = render_pane(&t, end, PaneId::Pipeline, 60, 20);
    assert!(text.contains("· ep 3"), "{text}");
}
