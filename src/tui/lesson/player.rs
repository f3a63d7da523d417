//! The player: which step of the lesson is shown, where each visited step
//! left the cursor (so stepping back is a seek), the quiz's answer and the
//! goal's hints, solution and starting point for a reset.
//!
//! A step's `until:` is looked for from where the lesson left the run, not
//! from where the student stepped to with `→`: a moment already stepped past
//! is reached behind the cursor, and the next step shows it there.

use std::collections::{BTreeMap, BTreeSet};

use podflow_engine::timeline::Timeline;
use podflow_lesson::format::Step;
use podflow_lesson::goal::{self, Check};
use podflow_lesson::{Lesson, run};

use super::editor::Editor;
use crate::tui::lang::Lang;

/// A quiz being answered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuizState {
    /// The choices picked (0-based).
    pub chosen: BTreeSet<usize>,
    /// The answer was given: the explanation shows.
    pub answered: bool,
}

/// A goal being worked on.
#[derive(Clone, Default)]
pub struct GoalState {
    /// How many hints show.
    pub hints: usize,
    pub solution: bool,
    /// The timeline and cursor when the goal started, for a reset.
    pub start: Option<(Timeline, usize)>,
}

/// The player's state.
#[derive(Clone)]
pub struct Player {
    pub lesson: Lesson,
    /// The step shown (0-based).
    pub step: usize,
    /// Where each visited step left the cursor (`None`: before any record).
    ends: Vec<Option<usize>>,
    /// Where the next step's `until:` is looked for from: where the step
    /// shown left the run, or where a `:` command last changed it.
    since: Option<usize>,
    pub quiz: QuizState,
    pub goal: GoalState,
    /// The lesson files the student changed and saved in the editor, by
    /// name: the `:` bar's commands read these instead of the lesson's.
    pub edited: BTreeMap<String, String>,
    /// The editor as it was closed with unsaved edits (`e` brings it back).
    pub draft: Option<Box<Editor>>,
    /// A drill's score being kept (`podflow drill`); `None` in a lesson.
    pub scoring: Option<Scoring>,
    /// Rows of the step's text scrolled out of the top of its panel, when
    /// the step is longer than the panel (a quiz's explanation at 80×24).
    pub scroll: u16,
}

/// A drill's hints and solution counted for its score, and when it started.
#[derive(Debug, Clone)]
pub struct Scoring {
    pub started: std::time::Instant,
    /// Hints shown, over all the drill's goals.
    pub hints: usize,
    /// The solution was shown for some goal.
    pub solution: bool,
    /// The score and seconds, once every goal held.
    pub done: Option<(u32, u64)>,
}

impl Scoring {
    /// A drill starting now.
    pub fn new() -> Scoring {
        Scoring {
            started: std::time::Instant::now(),
            hints: 0,
            solution: false,
            done: None,
        }
    }

    /// The points the drill is worth now.
    pub fn score(&self) -> u32 {
        podflow_drill::score::score(self.hints, self.solution)
    }
}

impl Default for Scoring {
    fn default() -> Scoring {
        Scoring::new()
    }
}

fn opt(timeline: &Timeline, cursor: usize) -> Option<usize> {
    (!timeline.is_empty()).then_some(cursor)
}

impl Player {
    /// Opens `lesson` on its fresh `timeline`: runs its first step; the cursor it leaves.
    pub fn start(lesson: Lesson, timeline: &mut Timeline) -> Result<(Player, usize), String> {
        let mut player = Player {
            lesson,
            step: 0,
            ends: Vec::new(),
            since: None,
            quiz: QuizState::default(),
            goal: GoalState::default(),
            edited: BTreeMap::new(),
            draft: None,
            scoring: None,
            scroll: 0,
        };
        let end = run::enter(&player.lesson, 0, timeline, None).map_err(|e| e.to_string())?;
        player.ends.push(end);
        player.since = end;
        player.begin(timeline, end.unwrap_or(0));
        Ok((player, end.unwrap_or(0)))
    }

    /// The number of steps.
    pub fn len(&self) -> usize {
        self.lesson.doc.steps.len()
    }

    /// Whether the lesson has no steps (a checked lesson has some).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where the step shown ends (the cursor its run left), once it ran.
    pub fn step_end(&self) -> Option<usize> {
        self.ends.get(self.step).copied().flatten()
    }

    /// The step shown.
    pub fn current(&self) -> Option<&Step> {
        self.lesson.doc.steps.get(self.step).map(|s| &s.value)
    }

    /// Fresh quiz and goal state for the step just entered.
    fn begin(&mut self, timeline: &Timeline, cursor: usize) {
        self.scroll = 0;
        self.quiz = QuizState::default();
        self.goal = GoalState::default();
        if matches!(self.current(), Some(Step::Goal(_))) {
            self.goal.start = Some((timeline.clone(), cursor));
        }
    }

    /// Moves to the next step, running it when it was not visited: the
    /// cursor it ends at (behind `cursor` when the student stepped past its
    /// `until:`), or `None` at the last step. A command runs after `cursor`.
    pub fn next(
        &mut self,
        timeline: &mut Timeline,
        cursor: usize,
    ) -> Result<Option<usize>, String> {
        if self.step + 1 >= self.len() {
            return Ok(None);
        }
        let step = self.step + 1;
        let end = if let Some(end) = self.ends.get(step) {
            *end
        } else {
            let from = if self.waits(step) {
                self.since
            } else {
                opt(timeline, cursor)
            };
            let end = run::enter(&self.lesson, step, timeline, from).map_err(|e| e.to_string())?;
            self.ends.push(end);
            end
        };
        self.step = step;
        self.since = end.or(opt(timeline, cursor));
        let end = end.unwrap_or(cursor);
        self.begin(timeline, end);
        Ok(Some(end))
    }

    /// Moves to the previous step: the cursor it ended at.
    pub fn previous(&mut self, timeline: &Timeline) -> Option<usize> {
        if self.step == 0 {
            return None;
        }
        self.step -= 1;
        self.since = self.ends.get(self.step).copied().flatten();
        let end = self.since.unwrap_or(0);
        self.begin(timeline, end);
        Some(end)
    }

    /// Whether step `index` waits for a moment (a narration's `until:`).
    fn waits(&self, index: usize) -> bool {
        matches!(
            self.lesson.doc.steps.get(index).map(|s| &s.value),
            Some(Step::Narrate(n)) if n.until.is_some()
        )
    }

    /// The student changed the run after `at` (a command, a reset): later
    /// steps run again, and the next `until:` is looked for from there.
    pub fn forget_future(&mut self, at: Option<usize>) {
        self.ends.truncate(self.step + 1);
        self.since = at;
    }

    /// Picks choice `n` (1-based) of the quiz: a single-answer quiz is
    /// answered at once; a multiple-answer one toggles until Enter.
    pub fn choose(&mut self, n: u8) {
        let Some(Step::Quiz(quiz)) = self.current() else {
            return;
        };
        let i = usize::from(n).saturating_sub(1);
        if i >= quiz.choices.len() || self.quiz.answered {
            return;
        }
        let multiple = quiz.choices.iter().filter(|c| c.value.correct).count() > 1;
        if multiple {
            if !self.quiz.chosen.remove(&i) {
                self.quiz.chosen.insert(i);
            }
        } else {
            self.quiz.chosen = BTreeSet::from([i]);
            self.quiz.answered = true;
        }
    }

    /// Enter on a quiz: answers it with the choices picked.
    pub fn confirm(&mut self) {
        if matches!(self.current(), Some(Step::Quiz(_))) && !self.quiz.chosen.is_empty() {
            self.quiz.answered = true;
        }
    }

    /// Whether the answer given is right (every right choice, no wrong one).
    pub fn quiz_right(&self) -> bool {
        let Some(Step::Quiz(quiz)) = self.current() else {
            return false;
        };
        let right: BTreeSet<usize> = quiz
            .choices
            .iter()
            .enumerate()
            .filter(|(_, c)| c.value.correct)
            .map(|(i, _)| i)
            .collect();
        right == self.quiz.chosen
    }

    /// One more hint of the goal.
    pub fn hint(&mut self) {
        if let Some(Step::Goal(g)) = self.current() {
            let hints = (self.goal.hints + 1).min(g.hints.len());
            if let Some(scoring) = &mut self.scoring
                && hints > self.goal.hints
                && scoring.done.is_none()
            {
                scoring.hints += 1;
            }
            self.goal.hints = hints;
        }
    }

    /// Shows or hides the goal's solution.
    pub fn toggle_solution(&mut self) {
        if matches!(self.current(), Some(Step::Goal(_))) {
            self.goal.solution = !self.goal.solution;
            if let Some(scoring) = &mut self.scoring
                && self.goal.solution
                && scoring.done.is_none()
            {
                scoring.solution = true;
            }
        }
    }

    /// The goal's check, when the step is a goal.
    pub fn check(&self) -> Option<Check> {
        match self.current() {
            Some(Step::Goal(g)) => goal::parse(&g.check.value).ok(),
            _ => None,
        }
    }

    /// The goal's check in `lang`, when the step is a goal.
    pub fn check_text(&self, lang: Lang) -> Option<String> {
        self.check().map(|check| match lang {
            Lang::En => check.to_string(),
            Lang::Zh => check.in_chinese(),
        })
    }

    /// The lesson's files as the editor opens them (saved edits first), and
    /// the one to show: the goal's `edit:` file, if the step is a goal.
    pub fn files_to_edit(&self) -> (Vec<(String, String)>, Option<String>) {
        let files = self
            .lesson
            .doc
            .files
            .iter()
            .map(|(name, text)| {
                let text = self.edited.get(name).unwrap_or(&text.value).clone();
                (name.clone(), text)
            })
            .collect();
        let first = match self.current() {
            Some(Step::Goal(g)) => g.edit.as_ref().map(|e| e.value.clone()),
            _ => None,
        };
        (files, first)
    }

    /// Whether the goal holds at the step shown, `cursor` (`None` outside a
    /// goal): the cluster as the panes show it, not the end of the computed
    /// run, so "done" never shows before the animation has reached it.
    pub fn solved(&self, timeline: &Timeline, cursor: usize) -> Option<bool> {
        let since = self.goal.start.as_ref().and_then(|(t, c)| opt(t, *c));
        self.check()
            .map(|c| c.holds_in(&timeline.view(cursor), since))
    }

    /// A drill at its last goal, which now holds: its score and time are
    /// kept (once). Whether they were just kept.
    pub fn finish_drill(&mut self, timeline: &Timeline, cursor: usize) -> bool {
        let last = self.step + 1 >= self.len();
        let pending = self.scoring.as_ref().is_some_and(|s| s.done.is_none());
        if !pending || !last || self.solved(timeline, cursor) != Some(true) {
            return false;
        }
        if let Some(scoring) = &mut self.scoring {
            scoring.done = Some((scoring.score(), scoring.started.elapsed().as_secs()));
        }
        true
    }
}
