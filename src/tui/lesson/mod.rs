//! Lessons in the interface: the picker shown when `podflow` starts, the
//! player that walks a lesson's steps on the timeline, and how both draw.
//! The app routes [`LessonKey`]s here; the player never computes cluster
//! behaviour, it asks the lesson runner ([`podflow_lesson::run`]).

pub mod editor;
pub mod editor_view;
pub mod picker;
pub mod player;
pub mod view;

mod update;

/// The keys of the picker and the player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LessonKey {
    /// `n`: the next step.
    NextStep,
    /// `p`: the previous step.
    PrevStep,
    /// `1`–`9`: a quiz choice.
    Choose(u8),
    /// Enter: open the picked lesson, or answer a multiple-choice quiz.
    Confirm,
    /// `i`: one more hint of the goal.
    Hint,
    /// `r`: put the cluster back as it was when the goal started.
    Reset,
    /// `s`: show the goal's solution.
    Solution,
    /// `e`: edit the lesson's files.
    Edit,
    /// ↑↓ (`k` `j`): scroll a step longer than its panel by rows (else the
    /// focused pane's selection, as without a lesson).
    Scroll(i8),
    /// The mouse wheel over the lesson's panel: scrolls a step longer than
    /// the panel by rows, whichever pane has the focus.
    Wheel(i8),
}

#[cfg(test)]
mod key_tests;
#[cfg(test)]
mod tests;
