//! Where each pane goes. At 120×40:
//!
//! ```text
//! ┌ Pipeline ─────────────────────────────────┬ Sequence ──────────────────────┐
//! │                                           │                                │
//! ├ Watch ─────────┬ Objects (etcd) ──────────┼ Narration ─────────────────────┤
//! │                │                          ├ Explain ───────────────────────┤
//! ├ Logs ──────────┴──────────────────────────┴────────────────────────────────┤
//! └ step 12/87  00:01.250  ×1  ▶  ━━━━━━━━━●──────────  space ←/→ [ ] z ? : q ─┘
//! ```
//!
//! Below 80×24 the middle row drops to narration only; below [`MIN_WIDTH`]×[`MIN_HEIGHT`]
//! the screen asks to be made bigger. A zoomed pane takes everything but the status bar.

use ratatui::layout::{Constraint, Layout, Rect};

use super::panes::PaneId;

/// The smallest screen podflow draws panes on.
pub const MIN_WIDTH: u16 = 40;
/// The smallest screen podflow draws panes on.
pub const MIN_HEIGHT: u16 = 12;

/// The screen's parts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Screen {
    /// Each visible pane and its area.
    pub panes: Vec<(PaneId, Rect)>,
    /// The status bar (the last row).
    pub status: Rect,
    /// Set when the screen is too small for panes.
    pub too_small: bool,
}

/// Lays out `area`, with `zoomed` the focused pane alone.
pub fn layout(area: Rect, zoomed: Option<PaneId>) -> Screen {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return Screen {
            panes: Vec::new(),
            status: area,
            too_small: true,
        };
    }
    let [body, status] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
    if let Some(pane) = zoomed {
        return Screen {
            panes: vec![(pane, body)],
            status,
            too_small: false,
        };
    }
    let roomy = area.width >= 80 && area.height >= 24;
    let log_height = if roomy {
        (area.height / 6).clamp(4, 12)
    } else {
        3
    };
    let [top, middle, logs] = Layout::vertical([
        Constraint::Percentage(if roomy { 45 } else { 50 }),
        Constraint::Min(4),
        Constraint::Length(log_height),
    ])
    .areas(body);
    let [pipeline, sequence] =
        Layout::horizontal([Constraint::Percentage(58), Constraint::Percentage(42)]).areas(top);
    let mut panes = vec![(PaneId::Pipeline, pipeline), (PaneId::Sequence, sequence)];
    if roomy {
        let [watch, objects, right] = Layout::horizontal([
            Constraint::Percentage(26),
            Constraint::Percentage(32),
            Constraint::Percentage(42),
        ])
        .areas(middle);
        let [narration, explain] =
            Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(right);
        panes.extend([
            (PaneId::Watch, watch),
            (PaneId::Objects, objects),
            (PaneId::Narration, narration),
            (PaneId::Explain, explain),
        ]);
    } else {
        panes.push((PaneId::Narration, middle));
    }
    panes.push((PaneId::Logs, logs));
    Screen {
        panes,
        status,
        too_small: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pane_has_room_at_120x40() {
        let screen = layout(Rect::new(0, 0, 120, 40), None);
        assert_eq!(screen.panes.len(), 7);
        for (pane, area) in &screen.panes {
            assert!(area.width >= 10 && area.height >= 4, "{pane:?} {area:?}");
        }
        assert_eq!(screen.status, Rect::new(0, 39, 120, 1));
    }

    #[test]
    fn small_screens_keep_the_essentials() {
        let screen = layout(Rect::new(0, 0, 60, 16), None);
        let ids: Vec<PaneId> = screen.panes.iter().map(|(p, _)| *p).collect();
        assert_eq!(
            ids,
            [
                PaneId::Pipeline,
                PaneId::Sequence,
                PaneId::Narration,
                PaneId::Logs
            ]
        );
        assert!(layout(Rect::new(0, 0, 20, 6), None).too_small);
    }

    #[test]
    fn zoom_gives_one_pane_the_body() {
        let screen = layout(Rect::new(0, 0, 100, 30), Some(PaneId::Objects));
        assert_eq!(screen.panes, [(PaneId::Objects, Rect::new(0, 0, 100, 29))]);
    }
}
