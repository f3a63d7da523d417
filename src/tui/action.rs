//! What the user can ask for, whatever key, click or command asked for it;
//! and what the app asks of the loop in return.

use super::lesson::LessonKey;
use super::lesson::editor::EditKey;
use super::panes::PaneId;

/// One thing the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    TogglePlay,
    StepForward,
    StepBack,
    NextPhase,
    PrevPhase,
    First,
    Last,
    Faster,
    Slower,
    FocusNext,
    FocusPrev,
    Focus(PaneId),
    ToggleZoom,
    ToggleHelp,
    ToggleLang,
    NextTheme,
    /// Open the `:` command bar.
    OpenCommand,
    /// Open the `/` filter of the focused pane.
    OpenFilter,
    /// A character typed into the open bar.
    Input(char),
    Backspace,
    /// Enter in the open bar.
    Submit,
    /// Esc: close what is open, or go back one level (a lesson to the
    /// picker). Never quits.
    Cancel,
    /// Ctrl-U: clear the open bar's text, or the focused pane's filter.
    Clear,
    /// Page Down (1) or Page Up (-1): scroll a zoomed pane a page; in a
    /// lesson without one, the next or previous lesson step.
    Page(i32),
    /// The answer to the question shown (`y` is yes, any other key no).
    Answer(bool),
    /// The terminal's size changed (columns, rows); also sent once at start.
    Resize(u16, u16),
    /// Scroll the pane back (positive) or forward (negative) by lines.
    Scroll(PaneId, i32),
    /// Select the next (positive) or previous (negative) row of the focused pane.
    Select(i32),
    /// Jump to this step (the timeline slider).
    Seek(usize),
    /// The play timer fired.
    Tick,
    /// A key of the lesson picker or player.
    Lesson(LessonKey),
    /// A key of the lesson's editor.
    Edit(EditKey),
    /// Presenter mode: black out the screen until the next key.
    Blank,
    /// Show every record as a step, or fold runs of heartbeats into one.
    ToggleHeartbeats,
    /// Open the jump list (`g`), or close it.
    OpenJumps,
    /// Presenter mode: show the presenter's notes in the status bar, or the step's title.
    ToggleNotes,
    /// Presenter mode: show the dense panes (watch, objects, explain, logs) or hide them.
    ToggleDense,
}

/// What the app asks the loop to do after an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Leave, restoring the terminal.
    Quit,
    /// Start ticking every `ms` milliseconds (playing), or stop (`None`).
    Ticking(Option<u64>),
    /// Run a cluster-language command typed in the command bar.
    RunCommand(String),
    /// Save the student's progress (a lesson step was reached).
    SaveProgress,
}
