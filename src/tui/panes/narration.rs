//! The narration pane: what happens at the current step and why, in the
//! reader's language (the words come from [`crate::tui::narrate::narrate`]),
//! with the headlines of the steps just before it, dimmed, for context.
//!
//! ```text
//! ┌ Narration 00:00.003 ───────────────────────────────┐
//! │The API server checks who you are                    │
//! │Authenticated as user "kubernetes-admin" in groups   │
//! │[system:masters, system:authenticated], by x509 …    │
//! │A client certificate signed by the cluster CA names …│
//! │                                                     │
//! │Before this:                                         │
//! │00:00.002  kubectl asks to create pods               │
//! │00:00.001  404 Not Found for kubectl                 │
//! └─────────────────────────────────────────────────────┘
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::tui::scrolled;
use crate::tui::wrap::wrap;

use super::{PaneCx, PaneId, block};
use crate::tui::narrate::narrate;
use podflow_engine::trace::TraceRecord;

/// How many earlier steps the pane recalls.
const EARLIER: usize = 3;

/// One earlier step: its time and headline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Earlier {
    pub time: String,
    pub headline: String,
}

/// What the pane shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// The current record's simulated time, `mm:ss.mmm`; empty before the first step.
    pub time: String,
    pub headline: String,
    pub body: Vec<String>,
    /// The steps just before, most recent first.
    pub earlier: Vec<Earlier>,
}

/// `mm:ss.mmm`, as the text export writes times.
pub fn clock(t_ms: u64) -> String {
    format!(
        "{:02}:{:02}.{:03}",
        t_ms / 60_000,
        (t_ms / 1000) % 60,
        t_ms % 1000
    )
}

impl Model {
    /// Narrates the current record and recalls the few before it (constant work).
    pub fn build(cx: &PaneCx<'_>) -> Model {
        let records: &[TraceRecord] = cx.view.records;
        let Some((current, before)) = records.split_last() else {
            return Model::before_any_step(cx);
        };
        let narration = narrate(current, cx.lang);
        let earlier = before
            .iter()
            .rev()
            .take(EARLIER)
            .map(|r| Earlier {
                time: clock(r.t_ms),
                headline: narrate(r, cx.lang).headline,
            })
            .collect();
        Model {
            time: clock(current.t_ms),
            headline: narration.headline,
            body: narration.body,
            earlier,
        }
    }

    /// Before the first record: step forward, or, when the run has none at
    /// all, how to ask the cluster for something.
    fn before_any_step(cx: &PaneCx<'_>) -> Model {
        let (headline, body) = if cx.view.idle_run {
            (
                cx.lang.pick(
                    "The cluster is up, and nothing has been asked of it",
                    "集群已就绪，还没有人向它提出请求",
                ),
                cx.lang.pick(
                    "Press : and type a command, such as apply -f pod.yaml, to send kubectl's request and follow it; ? lists the keys.",
                    "按 : 输入命令（例如 apply -f pod.yaml），发出 kubectl 的请求并跟随它；按 ? 查看按键。",
                ),
            )
        } else {
            (
                cx.lang.pick("Nothing has happened yet", "还没有发生任何事"),
                cx.lang.pick(
                    "Step forward to follow the request from kubectl to a running Pod.",
                    "单步前进，跟随请求从 kubectl 一路走到 Pod 运行起来。",
                ),
            )
        };
        Model {
            time: String::new(),
            headline: headline.to_owned(),
            body: vec![body.to_owned()],
            earlier: Vec::new(),
        }
    }
}

/// The story's lines at `width`: the headline, then the body, wrapped here
/// by display width so Chinese text never overflows the border.
fn story(model: &Model, cx: &PaneCx<'_>, width: usize) -> Vec<Line<'static>> {
    let styled = |text: &str, style| -> Vec<Line<'static>> {
        wrap(text, width)
            .into_iter()
            .map(|l| Line::from(Span::styled(l, style)))
            .collect()
    };
    let mut lines = styled(&model.headline, cx.theme.active);
    for paragraph in &model.body {
        lines.extend(styled(paragraph, cx.theme.text));
    }
    lines
}

/// The rows the earlier steps get at the bottom: only when there is room
/// for them and the whole story.
fn earlier_rows(model: &Model, story: usize, height: u16) -> u16 {
    if model.earlier.is_empty() || height < 8 {
        return 0;
    }
    let rows = u16::try_from(model.earlier.len() + 2).unwrap_or(u16::MAX);
    if story + usize::from(rows) <= usize::from(height) {
        rows
    } else {
        0
    }
}

/// How far the story scrolls down in a pane of `area`: 0 when it fits.
pub fn max_scroll(model: &Model, cx: &PaneCx<'_>, area: Rect) -> usize {
    let inner = block(PaneId::Narration, cx, &model.time).inner(area);
    let lines = story(model, cx, usize::from(inner.width)).len();
    let room = inner.height - earlier_rows(model, lines, inner.height);
    scrolled::max_scroll(lines, usize::from(room))
}

/// Draws the pane.
pub fn render(model: &Model, cx: &PaneCx<'_>, area: Rect, buf: &mut Buffer) {
    let block = block(PaneId::Narration, cx, &model.time);
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.is_empty() {
        return;
    }
    let lines = story(model, cx, usize::from(inner.width));
    let earlier_rows = earlier_rows(model, lines.len(), inner.height);
    let [top, bottom] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(earlier_rows)]).areas(inner);

    // A story taller than the pane says what is above and below (↑↓ scroll it).
    let room = usize::from(top.height);
    let shown = scrolled::shown(lines, room, cx.state.scroll, cx.lang, cx.theme.dim);
    Paragraph::new(shown).render(top, buf);

    if earlier_rows > 0 {
        let mut lines = vec![
            Line::default(),
            Line::from(Span::styled(
                cx.lang.pick("Before this:", "此前："),
                cx.theme.dim,
            )),
        ];
        lines.extend(model.earlier.iter().map(|e| {
            Line::from(vec![
                Span::styled(format!("{}  ", e.time), cx.theme.dim),
                Span::styled(e.headline.clone(), cx.theme.dim),
            ])
        }));
        Paragraph::new(lines).render(bottom, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::lang::Lang;
    use crate::tui::panes::PaneState;
    use crate::tui::testing::{find, nginx_timeline, render_pane, render_pane_with};
    use crate::tui::theme::{Theme, ThemeName};

    fn model_at(index: usize, lang: Lang) -> Model {
        let t = nginx_timeline();
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

    #[test]
    fn narrates_the_current_step_and_recalls_three_before() {
        let t = nginx_timeline();
        let i = find(&t, "authentication → allow: user \"kubernetes-admin\"");
        let m = model_at(i, Lang::En);
        assert_eq!(m.time, "00:00.001");
        assert_eq!(m.headline, "The API server checks who you are");
        assert!(m.body[0].starts_with("Authenticated as user \"kubernetes-admin\""));
        assert_eq!(
            m.earlier,
            vec![Earlier {
                time: "00:00.000".into(),
                headline: "kubectl asks the API server for pods/nginx".into()
            }]
        );

        let i = find(&t, "(mutating) ServiceAccount");
        let m = model_at(i, Lang::Zh);
        assert_eq!(m.headline, "变更准入：ServiceAccount 修改了对象");
        assert_eq!(m.earlier.len(), 3);
        assert_eq!(m.earlier[0].headline, "变更准入：LimitRanger 放行");
        assert_eq!(m.earlier[1].headline, "变更准入：NamespaceLifecycle 放行");
        assert_eq!(m.earlier[2].headline, "API Server 检查你的权限（鉴权）");
    }

    #[test]
    fn a_run_with_nothing_to_do_says_how_to_ask_for_something() {
        // `podflow play` without a manifest: the cluster alone.
        let idle = || {
            let setup = podflow_engine::setup::build_setup(&podflow_engine::setup::SetupArgs {
                seed: 1,
                ..podflow_engine::setup::SetupArgs::default()
            });
            podflow_engine::engine::Engine::new(setup.expect("the empty sandbox builds"))
        };
        let t = podflow_engine::timeline::Timeline::new(idle());
        assert!(t.is_empty() && t.is_complete());
        let theme = Theme::new(ThemeName::Dark, false);
        let state = PaneState::default();
        for (lang, headline, hint) in [
            (
                Lang::En,
                "The cluster is up, and nothing has been asked of it",
                "Press : and type a command",
            ),
            (
                Lang::Zh,
                "集群已就绪，还没有人向它提出请求",
                "按 : 输入命令",
            ),
        ] {
            let view = t.view(0);
            let cx = PaneCx {
                view: &view,
                lang,
                theme: &theme,
                focused: false,
                state: &state,
            };
            let m = Model::build(&cx);
            assert_eq!(m.headline, headline);
            assert!(m.body[0].starts_with(hint), "{:?}", m.body);
        }
        // A run not computed yet is not idle: its steps are still to come.
        let started = podflow_engine::timeline::Timeline::started(idle());
        assert!(!started.start().idle_run);
    }

    #[test]
    fn before_the_first_step_it_says_so() {
        let t = nginx_timeline();
        let theme = Theme::new(ThemeName::Dark, false);
        let state = PaneState::default();
        let cx = PaneCx {
            view: &t.start(),
            lang: Lang::En,
            theme: &theme,
            focused: false,
            state: &state,
        };
        let m = Model::build(&cx);
        assert_eq!(m.headline, "Nothing has happened yet");
        assert!(m.time.is_empty());
    }

    #[test]
    fn clock_is_minutes_seconds_millis() {
        assert_eq!(clock(0), "00:00.000");
        assert_eq!(clock(3004), "00:03.004");
        assert_eq!(clock(61_010), "01:01.010");
    }

    #[test]
    fn renders_headline_body_and_earlier_steps() {
        let t = nginx_timeline();
        let i = find(&t, "bind node-3");
        let text = render_pane(&t, i, PaneId::Narration, 60, 20);
        assert!(text.contains("Narration 00:00.005"), "{text}");
        assert!(
            text.contains("The scheduler binds default/nginx to node-3"),
            "{text}"
        );
        assert!(text.contains("Before this:"), "{text}");
        assert!(text.contains("The scheduler picks node-3 for"), "{text}");
        insta::assert_snapshot!("narration_bind_60x20", text);

        let zh = render_pane_with(
            &t,
            i,
            PaneId::Narration,
            60,
            20,
            Lang::Zh,
            &PaneState::default(),
        );
        // Double-width characters take two cells each: compare without the padding.
        assert!(
            zh.replace(' ', "")
                .contains("调度器把default/nginx绑定到node-3"),
            "{zh}"
        );

        let small = render_pane(&t, i, PaneId::Narration, 20, 5);
        assert!(small.contains("The scheduler"), "{small}");
        assert!(!small.contains("Before this:"));
    }

    #[test]
    fn never_panics_at_any_size() {
        let t = nginx_timeline();
        let last = t.len() - 1;
        for index in [0, find(&t, "(mutating) ServiceAccount"), last] {
            for w in (0..=120).step_by(7) {
                for h in (0..=40).step_by(3) {
                    for lang in [Lang::En, Lang::Zh] {
                        render_pane_with(
                            &t,
                            index,
                            PaneId::Narration,
                            w,
                            h,
                            lang,
                            &PaneState::default(),
                        );
                    }
                }
            }
        }
        let scrolled = PaneState {
            scroll: 500,
            ..PaneState::default()
        };
        render_pane_with(&t, last, PaneId::Narration, 40, 10, Lang::Zh, &scrolled);
    }
}

#[cfg(test)]
mod border_tests {
    use crate::tui::lang::Lang;
    use crate::tui::panes::{PaneId, PaneState};
    use crate::tui::testing::{nginx_timeline, render_pane_with};

    #[test]
    fn chinese_text_never_covers_the_right_border() {
        let t = nginx_timeline();
        for index in (0..t.len()).step_by(7) {
            let text = render_pane_with(
                &t,
                index,
                PaneId::Narration,
                50,
                12,
                Lang::Zh,
                &PaneState::default(),
            );
            for line in text.lines().skip(1).take(10) {
                assert!(
                    line.ends_with('│') || line.ends_with('┐') || line.ends_with('┘'),
                    "step {index}: {line:?}\n{text}"
                );
            }
        }
    }
}

#[cfg(test)]
mod overflow_tests {
    use crate::tui::lang::Lang;
    use crate::tui::panes::{PaneId, PaneState};
    use crate::tui::testing::{find, nginx_timeline, render_pane_with};

    /// A story taller than its pane says how much is below, and scrolled to
    /// its end shows its last words with the mark of what is above.
    #[test]
    fn a_story_too_tall_is_never_cut_silently() {
        let t = nginx_timeline();
        let index = find(&t, "authentication");
        let state = |scroll| PaneState {
            scroll,
            ..PaneState::default()
        };
        let text = |scroll| {
            render_pane_with(
                &t,
                index,
                PaneId::Narration,
                30,
                7,
                Lang::En,
                &state(scroll),
            )
        };
        let top = text(0);
        assert!(top.contains("lines below: ↓ scrolls"), "{top}");
        let end = text(usize::MAX);
        assert!(end.contains("above: ↑ scrolls"), "{end}");
        assert!(!end.contains("below"), "{end}");
        let zh = render_pane_with(&t, index, PaneId::Narration, 30, 7, Lang::Zh, &state(0));
        assert!(zh.replace(' ', "").contains("下面还有"), "{zh}");
    }
}
