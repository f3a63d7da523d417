//! Fixtures for the TUI's tests: a way to render one pane into a buffer as
//! text, keys pressed as the terminal reports them, beside the engine's
//! fixtures (timelines of the default story and a few others), re-exported
//! from `podflow_engine::testing`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::action::Effect;
use super::app::App;
use super::keymap;

use super::lang::Lang;
use super::panes::{self, PaneCx, PaneId, PaneState};
use super::theme::{Theme, ThemeName};
pub use podflow_engine::testing::{
    engine, find, fixture, nginx_engine, nginx_timeline, timeline, write_revisions,
};
use podflow_engine::timeline::Timeline;

/// Runs `f` with the pane context of record `index` (English, dark theme,
/// not focused, `state`): how pane tests build their models.
pub fn with_cx<R>(
    timeline: &Timeline,
    index: usize,
    state: &PaneState,
    f: impl FnOnce(&PaneCx<'_>) -> R,
) -> R {
    let theme = Theme::new(ThemeName::Dark, false);
    let cx = PaneCx {
        view: &timeline.view(index),
        lang: Lang::En,
        theme: &theme,
        focused: false,
        state,
    };
    f(&cx)
}

/// Renders pane `id` at record `index` into a `width`×`height` buffer, and
/// returns the buffer's text, one line per row, trailing spaces trimmed.
pub fn render_pane(
    timeline: &Timeline,
    index: usize,
    id: PaneId,
    width: u16,
    height: u16,
) -> String {
    render_pane_with(
        timeline,
        index,
        id,
        width,
        height,
        Lang::En,
        &PaneState::default(),
    )
}

/// [`render_pane`] with a language and pane state.
pub fn render_pane_with(
    timeline: &Timeline,
    index: usize,
    id: PaneId,
    width: u16,
    height: u16,
    lang: Lang,
    state: &PaneState,
) -> String {
    let theme = Theme::new(ThemeName::Dark, false);
    let cx = PaneCx {
        view: &timeline.view(index),
        lang,
        theme: &theme,
        focused: false,
        state,
    };
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    panes::render(id, &cx, area, &mut buf);
    buffer_text(&buf)
}

/// A buffer's symbols as lines of text, trailing spaces trimmed.
pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        let mut skip = 0;
        for x in area.left()..area.right() {
            if skip > 0 {
                // The cell after a double-width character belongs to it.
                skip -= 1;
                continue;
            }
            let symbol = buf[(x, y)].symbol();
            skip = unicode_width::UnicodeWidthStr::width(symbol).saturating_sub(1);
            line.push_str(symbol);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A key without modifiers.
pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Ctrl and a letter.
pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// Presses `key` as the event loop does: the key map of the screen shown,
/// then the app's update. Returns the effects.
pub fn press(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    match keymap::action_for(key, &keymap::Context::of(app)) {
        Some(action) => app.update(action),
        None => Vec::new(),
    }
}

/// Types `text`, one key a character; the effects of the last.
pub fn type_keys(app: &mut App, text: &str) -> Vec<Effect> {
    text.chars()
        .map(|c| press(app, key(KeyCode::Char(c))))
        .last()
        .unwrap_or_default()
}
