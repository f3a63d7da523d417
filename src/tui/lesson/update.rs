//! The app's lesson keys: the picker's choice and the player's steps,
//! quizzes and goals; Esc from a lesson back to the picker. Progress is
//! saved through [`Effect::SaveProgress`].

use super::LessonKey;
use super::editor::{EditKey, Editor};
use super::picker::Picker;
use super::player::Player;
use crate::tui::action::{Action, Effect};
use crate::tui::app::{App, Overlay};
use crate::tui::panes::PaneId;
use crate::tui::question::{Ask, Unfinished};
use podflow_lesson::format::Step;
use podflow_lesson::{self as lesson, Lesson, embedded, run};

impl App {
    /// Shows the picker over the app (as `podflow` starts).
    pub fn open_picker(&mut self, picker: Picker) {
        self.picker = Some(picker);
    }

    /// Opens a checked lesson: its timeline replaces the app's, at its first step.
    pub fn open_lesson(&mut self, lesson: Lesson) -> Result<Vec<Effect>, String> {
        let timeline = run::timeline(&lesson).map_err(|e| e.to_string())?;
        self.open_lesson_on(lesson, timeline)
    }

    /// Opens any lesson value (a built-in one, a file, a generated drill) on
    /// `timeline`: its own fresh run, or a served cluster's (`podflow serve
    /// --lesson`), whose goals are then checked against what the real
    /// clients did to the served store.
    pub fn open_lesson_on(
        &mut self,
        lesson: Lesson,
        mut timeline: podflow_engine::timeline::Timeline,
    ) -> Result<Vec<Effect>, String> {
        let (player, cursor) = Player::start(lesson, &mut timeline)?;
        let mut effects = self.pause();
        self.timeline = timeline;
        self.seek(cursor);
        self.lesson = Some(Box::new(player));
        self.picker = None;
        effects.extend(self.reached());
        Ok(effects)
    }

    /// Opens a drill (`podflow drill`): a lesson whose score is kept.
    pub fn open_drill(&mut self, lesson: Lesson) -> Result<Vec<Effect>, String> {
        let effects = self.open_lesson(lesson)?;
        self.keep_score();
        Ok(effects)
    }

    /// Opens a drill on a served timeline (`podflow serve --drill`).
    pub fn open_drill_on(
        &mut self,
        lesson: Lesson,
        timeline: podflow_engine::timeline::Timeline,
    ) -> Result<Vec<Effect>, String> {
        let effects = self.open_lesson_on(lesson, timeline)?;
        self.keep_score();
        Ok(effects)
    }

    fn keep_score(&mut self) {
        if let Some(player) = &mut self.lesson {
            player.scoring = Some(super::player::Scoring::new());
        }
    }

    /// A drill whose last goal holds at the step shown: its score and time
    /// go into the progress, saved.
    pub(crate) fn finish_drill(&mut self) -> Vec<Effect> {
        let Some(player) = &mut self.lesson else {
            return Vec::new();
        };
        if !player.finish_drill(&self.timeline, self.cursor) {
            return Vec::new();
        }
        let Some(scoring) = &player.scoring else {
            return Vec::new();
        };
        let Some((score, seconds)) = scoring.done else {
            return Vec::new();
        };
        self.progress.drilled(
            player.lesson.id(),
            score,
            seconds,
            scoring.hints,
            scoring.solution,
        );
        vec![Effect::SaveProgress]
    }

    /// Esc in a lesson: the picker, the lesson highlighted and kept open
    /// behind it (Esc on the picker comes back to it).
    pub(crate) fn back_to_picker(&mut self) -> Vec<Effect> {
        let lessons = match embedded::all() {
            Ok(lessons) => lessons,
            Err(e) => {
                self.notice = Some(e.to_string());
                return Vec::new();
            }
        };
        let effects = self.pause();
        let mut picker = Picker::new(lessons);
        if let Some(player) = &self.lesson
            && let Some(i) = picker
                .lessons
                .iter()
                .position(|l| l.id() == player.lesson.id())
        {
            picker.selected = i;
        }
        self.picker = Some(picker);
        effects
    }

    /// Notes the current step in the progress and asks for it to be saved.
    fn reached(&mut self) -> Vec<Effect> {
        let Some(player) = &self.lesson else {
            return Vec::new();
        };
        self.progress
            .reached(player.lesson.id(), player.step, player.len());
        vec![Effect::SaveProgress]
    }

    /// Keys while the picker shows.
    pub(crate) fn update_picker(&mut self, action: Action) -> Vec<Effect> {
        if self.help_takes(action) {
            return Vec::new();
        }
        let Some(picker) = &mut self.picker else {
            return Vec::new();
        };
        match action {
            Action::Quit => self.quit(),
            Action::ToggleHelp => {
                self.toggle_help();
                Vec::new()
            }
            // Esc closes the help, else leaves the picker for what is
            // behind it: the lesson it was opened from, or the sandbox.
            Action::Cancel => {
                if let Overlay::Help(_) = self.overlay {
                    self.overlay = Overlay::None;
                } else {
                    self.picker = None;
                }
                Vec::new()
            }
            Action::Select(delta) => {
                picker.select(delta);
                Vec::new()
            }
            Action::ToggleLang => {
                self.lang = self.lang.toggle();
                Vec::new()
            }
            Action::NextTheme => {
                self.theme = self.theme.next();
                Vec::new()
            }
            Action::Lesson(LessonKey::Confirm | LessonKey::NextStep) => {
                let Some(lesson) = picker.lessons.get(picker.selected).cloned() else {
                    return Vec::new();
                };
                // The lesson open behind the picker goes on where it was.
                if self
                    .lesson
                    .as_ref()
                    .is_some_and(|p| p.lesson.id() == lesson.id())
                {
                    self.picker = None;
                    self.overlay = Overlay::None;
                    return Vec::new();
                }
                let opened = lesson::check(&lesson)
                    .map_err(|e| e.to_string())
                    .and_then(|_| self.open_lesson(lesson));
                match opened {
                    Ok(effects) => effects,
                    Err(message) => {
                        if let Some(picker) = &mut self.picker {
                            picker.error = Some(message);
                        }
                        Vec::new()
                    }
                }
            }
            _ => Vec::new(),
        }
    }

    /// A lesson key while a lesson plays. `n` on an unanswered quiz or an
    /// unreached goal asks first (not in presenter mode, where the teacher
    /// moves on with a clicker).
    pub(crate) fn update_lesson(&mut self, key: LessonKey) -> Vec<Effect> {
        if key == LessonKey::NextStep
            && !self.presenter.on
            && let Some(unfinished) = self.unfinished()
        {
            self.ask(Ask::NextStep(unfinished));
            return Vec::new();
        }
        self.lesson_key(key)
    }

    /// What the step shown asks that is not done, when there is a next step.
    fn unfinished(&self) -> Option<Unfinished> {
        let player = self.lesson.as_ref()?;
        if player.step + 1 >= player.len() {
            return None;
        }
        match player.current()? {
            Step::Quiz(_) if !player.quiz.answered => Some(Unfinished::Quiz),
            Step::Goal(_) if player.solved(&self.timeline, self.cursor) == Some(false) => {
                Some(Unfinished::Goal)
            }
            _ => None,
        }
    }

    /// A lesson key, done without asking.
    pub(crate) fn lesson_key(&mut self, key: LessonKey) -> Vec<Effect> {
        match key {
            LessonKey::Scroll(rows) => {
                let on_panel = matches!(
                    self.focus,
                    PaneId::Pipeline | PaneId::Narration | PaneId::Explain
                );
                if !self.scroll_lesson(rows, on_panel) {
                    self.select(rows.into());
                }
                return Vec::new();
            }
            LessonKey::Wheel(rows) => {
                self.scroll_lesson(rows, true);
                return Vec::new();
            }
            _ => {}
        }
        let Some(mut player) = self.lesson.take() else {
            return Vec::new();
        };
        let mut effects = Vec::new();
        match key {
            LessonKey::NextStep => {
                // A step still playing ends at once: the next starts where it ends.
                let unfinished = self.stop_at;
                effects = self.pause();
                if let Some(end) = unfinished {
                    self.seek(end);
                }
                let from = self.cursor;
                match player.next(&mut self.timeline, from) {
                    Ok(Some(end)) => {
                        // Play from where the student is to where the step ends.
                        effects.extend(self.play_to(end));
                    }
                    Ok(None) => {}
                    Err(message) => self.notice = Some(message),
                }
            }
            LessonKey::PrevStep => {
                effects = self.pause();
                if let Some(end) = player.previous(&self.timeline) {
                    self.seek(end);
                }
            }
            LessonKey::Choose(n) => player.choose(n),
            LessonKey::Confirm => player.confirm(),
            LessonKey::Hint => player.hint(),
            LessonKey::Solution => player.toggle_solution(),
            LessonKey::Edit => {
                let (files, first) = player.files_to_edit();
                if files.is_empty() {
                    self.notice = Some(
                        self.lang
                            .pick("this lesson has no files to edit", "本课没有可编辑的文件")
                            .to_owned(),
                    );
                } else {
                    effects = self.pause();
                    // Edits left unsaved when the editor closed come back.
                    let editor = player
                        .draft
                        .take()
                        .unwrap_or_else(|| Box::new(Editor::new(files, first.as_deref())));
                    self.overlay = Overlay::Editor(editor);
                }
            }
            // Taken before the player is.
            LessonKey::Scroll(_) | LessonKey::Wheel(_) => {}
            LessonKey::Reset => {
                if let Some((timeline, cursor)) = player.goal.start.clone() {
                    effects = self.pause();
                    self.timeline = timeline;
                    self.seek(cursor);
                    player.forget_future(Some(cursor));
                }
            }
        }
        let moved = matches!(key, LessonKey::NextStep | LessonKey::PrevStep);
        self.lesson = Some(player);
        if moved {
            effects.extend(self.reached());
        }
        if self.live.is_some() && !self.playing && !matches!(self.overlay, Overlay::Editor(_)) {
            effects.extend(self.keep_serving());
        }
        effects
    }

    /// Scrolls the step's text by `rows` when `wanted` and the step runs
    /// past its panel; whether it did. ↑↓ want it when the focus is on the
    /// panel's place or on the first pane (where a student starts), else
    /// they select in the focused pane, as without a lesson; the wheel over
    /// the panel always does.
    fn scroll_lesson(&mut self, rows: i8, wanted: bool) -> bool {
        let overflow = self.lesson_overflow();
        match &mut self.lesson {
            Some(player) if wanted && overflow > 0 => {
                player.scroll = player
                    .scroll
                    .saturating_add_signed(rows.into())
                    .min(overflow);
                true
            }
            _ => false,
        }
    }

    /// A served lesson (`podflow serve --lesson`) never holds the cluster
    /// still: after a step, time follows the wall clock again and the real
    /// clients' requests are answered (Space still pauses, to walk one through).
    fn keep_serving(&mut self) -> Vec<Effect> {
        self.stop_at = None;
        self.resume_live();
        self.playing = true;
        self.set_frame(Some(0));
        vec![Effect::Ticking(Some(self.tick_ms()))]
    }

    /// A key of the open editor: edits, Ctrl-S saves the shown file for the
    /// lesson's commands (saying whether its manifests read), Esc closes
    /// (keeping unsaved edits for `e` to bring back).
    pub(crate) fn update_editor(&mut self, key: EditKey) -> Vec<Effect> {
        let Overlay::Editor(editor) = &mut self.overlay else {
            return Vec::new();
        };
        if editor.target.is_some() && matches!(key, EditKey::Save | EditKey::Close) {
            return self.finish_object_edit(key == EditKey::Save);
        }
        match key {
            EditKey::Close => {
                let Overlay::Editor(editor) = std::mem::take(&mut self.overlay) else {
                    return Vec::new();
                };
                if let Some(player) = &mut self.lesson {
                    player.draft = (!editor.unsaved().is_empty()).then_some(editor);
                }
            }
            EditKey::Save => {
                let (name, text) = (editor.name().to_owned(), editor.text());
                match podflow_scenario::parse_manifests(&name, text.as_bytes()) {
                    Ok(_) => editor.saved(
                        true,
                        format!(
                            "{} {name}: {} :apply -f {name}",
                            self.lang.pick("saved", "已保存"),
                            self.lang.pick("now run", "现在运行")
                        ),
                    ),
                    Err(e) => editor.saved(
                        false,
                        format!("{} {e}", self.lang.pick("saved, but", "已保存，但")),
                    ),
                }
                if let Some(player) = &mut self.lesson {
                    player.edited.insert(name, text);
                }
            }
            other => editor.edit(other),
        }
        Vec::new()
    }
}
