//! The objects pane (being written: a first version that lists what it will show).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, Widget};

use super::{PaneCx, PaneId, block};

/// What the pane shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    pub lines: Vec<String>,
}

impl Model {
    /// Builds the model from the current step.
    pub fn build(cx: &PaneCx<'_>) -> Model {
        let lines = cx
            .view
            .records
            .iter()
            .rev()
            .take(50)
            .map(crate::export::text::line)
            .collect();
        Model { lines }
    }
}

/// Draws the pane.
pub fn render(model: &Model, cx: &PaneCx<'_>, area: Rect, buf: &mut Buffer) {
    let pane = PaneId::ALL
        .into_iter()
        .find(|p| format!("{p:?}").to_lowercase() == "objects")
        .unwrap_or(PaneId::Logs);
    Paragraph::new(model.lines.join("\n"))
        .style(cx.theme.text)
        .block(block(pane, cx, ""))
        .render(area, buf);
}
