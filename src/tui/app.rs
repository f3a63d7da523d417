//! The app's state and its update function: every change goes through
//! [`App::update`], which takes an [`Action`] and returns the [`Effect`]s the
//! loop must carry out. No engine state lives here beyond the timeline.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ratatui::layout::Rect;

use super::action::{Action, Effect};
use super::jump_list::JumpList;
use super::lang::Lang;
use super::lesson::editor::Editor;
use super::lesson::picker::Picker;
use super::lesson::player::Player;
use super::panes::{PaneId, PaneState};
use super::question::Question;
use super::steps::{self, Heartbeats};
use super::theme::ThemeName;
use podflow_engine::command;
use podflow_engine::kubectl::{Command, FileObject};
use podflow_engine::timeline::{Timeline, View};
use podflow_lesson::progress::Progress;
use podflow_scenario::Location;

/// How far past a typed command the run is computed to find kubectl's answer.
const OUTPUT_LOOKAHEAD: usize = 5_000;
/// How many steps are computed at a time while looking for it.
const OUTPUT_SLICE: usize = 64;
/// How many steps the view plays on to kubectl's answer (a request's own
/// steps and a few more); an answer farther on, behind the rest of a busy
/// run's moment, is jumped to: playing every step between would keep the
/// class waiting for a `get pods` (27 steps, 16 s at ×1, in the default
/// story's scheduling).
const PLAYED_TO_OUTPUT: usize = 12;

/// Playback speeds, slowest first.
pub const SPEEDS: [f64; 7] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0];
/// The index of 1× in [`SPEEDS`].
const NORMAL_SPEED: usize = 2;
/// How long one step shows at 1×, in milliseconds.
const STEP_MS: f64 = 600.0;
/// Animation frames per step while playing (the pipeline's token moves).
const FRAMES_PER_STEP: u8 = 4;
/// Steps of a run given at the start whose pane summaries are kept at once.
const STEPS_REMEMBERED: usize = 64;

/// What is drawn over the panes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Overlay {
    #[default]
    None,
    /// The keys of the screen shown, scrolled down this many lines.
    Help(usize),
    /// The `:` command bar and what was typed.
    Command(String),
    /// The `/` filter of a pane and what was typed.
    Filter(PaneId, String),
    /// The lesson's editor.
    Editor(Box<Editor>),
    /// A y/n question, over what was open.
    Question(Box<Question>),
    /// The jump list (`g`).
    Jumps(JumpList),
}

/// The whole state of the interface.
pub struct App {
    pub timeline: Timeline,
    /// The current step: an index into the timeline's records.
    pub cursor: usize,
    pub playing: bool,
    /// An index into [`SPEEDS`].
    pub speed: usize,
    pub focus: PaneId,
    pub zoomed: bool,
    pub overlay: Overlay,
    pub lang: Lang,
    pub theme: ThemeName,
    /// `NO_COLOR` was set.
    pub no_color: bool,
    pub panes: BTreeMap<PaneId, PaneState>,
    /// A one-line message for the status bar (a command's error, say).
    pub notice: Option<String>,
    /// The command just run from the `:` bar, echoed in the status bar until
    /// the next key ([`App::echo_ran`]): cut to the bar, never boxed above it,
    /// and not drawn as an error.
    pub ran: Option<String>,
    /// The animation frame within the current step while playing.
    frame: u8,
    /// The lesson being played, if any.
    pub lesson: Option<Box<Player>>,
    /// The lesson picker, while it shows (it takes the whole screen).
    pub picker: Option<Picker>,
    /// The student's saved progress, and where the loop saves it.
    pub progress: Progress,
    pub progress_path: Option<PathBuf>,
    /// Playing stops here (a lesson step's end) rather than at the last step.
    pub(crate) stop_at: Option<usize>,
    /// Presenter mode (`--present`) and its state.
    pub presenter: super::present::Presenter,
    /// The server, when the run is a served cluster's (`podflow serve`).
    pub live: Option<Box<super::live::Live>>,
    /// What `podflow attach` observes of a real cluster, when the run is
    /// an observation (its timeline is [`Timeline::observed`]).
    pub observing: Option<Box<super::observed::Observing>>,
    /// The terminal's area, as last resized (a page of a zoomed pane, the
    /// help's scrolling).
    pub area: Rect,
    /// Commands typed in the `:` bar and run in the sandbox this session.
    pub commands_typed: usize,
    /// Whether a run of heartbeats is one step (the default) or each is (`H`).
    pub heartbeats: Heartbeats,
}

impl App {
    /// The app on `timeline`, at its first step, paused.
    pub fn new(timeline: Timeline, lang: Lang, theme: ThemeName, no_color: bool) -> App {
        let app = App {
            timeline,
            cursor: 0,
            playing: false,
            speed: NORMAL_SPEED,
            focus: PaneId::Pipeline,
            zoomed: false,
            overlay: Overlay::None,
            lang,
            theme,
            no_color,
            panes: PaneId::ALL
                .into_iter()
                .map(|p| (p, PaneState::default()))
                .collect(),
            notice: None,
            ran: None,
            frame: 0,
            lesson: None,
            picker: None,
            progress: Progress::default(),
            progress_path: None,
            stop_at: None,
            presenter: super::present::Presenter::default(),
            live: None,
            observing: None,
            area: Rect::new(0, 0, 120, 40),
            commands_typed: 0,
            heartbeats: Heartbeats::Folded,
        };
        app.remember_steps(STEPS_REMEMBERED);
        app
    }

    /// Has the objects and pipeline panes keep their summaries of `count`
    /// steps spread over the run computed so far (the newest, for 1), so that
    /// a seek anywhere starts near one (`store_index::remember`).
    pub fn remember_steps(&self, count: usize) {
        let len = self.timeline.len();
        for i in 1..=count {
            let step = (len * i / count).saturating_sub(1);
            super::panes::store_index::remember(&self.timeline.view(step).store);
        }
    }

    /// The cluster at the current step.
    pub fn view(&self) -> View<'_> {
        if self.timeline.is_empty() {
            self.timeline.start()
        } else {
            self.timeline.view(self.cursor)
        }
    }

    /// The last step's index.
    pub fn last(&self) -> usize {
        self.timeline.len().saturating_sub(1)
    }

    /// The play timer's period at the current speed: one animation frame.
    pub fn tick_ms(&self) -> u64 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let ms = (STEP_MS / SPEEDS[self.speed] / f64::from(FRAMES_PER_STEP)).round() as u64;
        ms.max(1)
    }

    /// Sets the animation frame of the current step (`None` when paused).
    pub(crate) fn set_frame(&mut self, frame: Option<u8>) {
        self.frame = frame.unwrap_or(0);
        let progress = frame.map(|f| (f + 1) * (100 / FRAMES_PER_STEP));
        self.pane_mut(PaneId::Pipeline).progress = progress;
    }

    /// The state of pane `id`.
    pub fn pane(&self, id: PaneId) -> &PaneState {
        &self.panes[&id]
    }

    fn pane_mut(&mut self, id: PaneId) -> &mut PaneState {
        self.panes.entry(id).or_default()
    }

    /// Moves to step `index` (clamped); panes follow the new step.
    pub(crate) fn seek(&mut self, index: usize) {
        self.cursor = index.min(self.last());
        for state in self.panes.values_mut() {
            state.scroll = 0;
            state.selected = 0;
        }
    }

    pub(crate) fn pause(&mut self) -> Vec<Effect> {
        self.set_frame(None);
        self.stop_at = None;
        if self.playing {
            self.playing = false;
            vec![Effect::Ticking(None)]
        } else {
            Vec::new()
        }
    }

    /// Plays from the current step to `end` and stops there (a lesson step).
    pub(crate) fn play_to(&mut self, end: usize) -> Vec<Effect> {
        if end <= self.cursor {
            self.seek(end);
            return Vec::new();
        }
        self.playing = true;
        self.stop_at = Some(end);
        self.set_frame(Some(0));
        vec![Effect::Ticking(Some(self.tick_ms()))]
    }

    /// Applies `action`; returns what the loop must do. A drill whose last
    /// goal now holds has its score kept.
    pub fn update(&mut self, action: Action) -> Vec<Effect> {
        let mut effects = self.update_action(action);
        effects.extend(self.finish_drill());
        effects
    }

    /// Applies `action`.
    fn update_action(&mut self, action: Action) -> Vec<Effect> {
        if action != Action::Tick {
            self.notice = None;
            self.ran = None;
        }
        if let Action::Resize(width, height) = action {
            self.area = Rect::new(0, 0, width, height);
            self.scroll_help(0);
            return Vec::new();
        }
        if let Some(effects) = self.update_present(action) {
            return effects;
        }
        if matches!(self.overlay, Overlay::Question(_)) && action != Action::Tick {
            return self.update_question(action);
        }
        if self.picker.is_some() {
            return self.update_picker(action);
        }
        if let Overlay::Jumps(_) = self.overlay {
            return self.update_jumps(action);
        }
        if let Overlay::Command(_) | Overlay::Filter(..) = self.overlay {
            return self.update_bar(&action);
        }
        if let Overlay::Editor(_) = self.overlay {
            match action {
                Action::Edit(key) => return self.update_editor(key),
                Action::Quit => return self.quit(),
                _ => {}
            }
            return Vec::new();
        }
        if self.help_takes(action) {
            return Vec::new();
        }
        match action {
            Action::Lesson(key) => self.update_lesson(key),
            Action::Quit => self.quit(),
            Action::Cancel => self.back(),
            Action::Page(pages) => self.page(pages),
            Action::TogglePlay | Action::Tick | Action::Faster | Action::Slower => {
                self.playback(&action)
            }
            // Paused at the last step of a served cluster: the next engine event.
            Action::StepForward if self.live.is_some() && self.cursor >= self.last() => {
                let effects = self.pause();
                self.step_live();
                self.seek(self.cursor + 1);
                effects
            }
            Action::StepForward
            | Action::StepBack
            | Action::NextPhase
            | Action::PrevPhase
            | Action::First
            | Action::Last
            | Action::Seek(_) => {
                let effects = self.pause();
                let target = self.target(&action);
                self.seek(target);
                effects
            }
            Action::OpenJumps => self.open_jumps(),
            Action::OpenCommand if self.timeline.is_observed() => {
                self.notice = Some(super::observed::no_commands(self.lang).to_owned());
                Vec::new()
            }
            Action::OpenCommand => {
                let effects = self.pause();
                self.overlay = Overlay::Command(String::new());
                effects
            }
            other => {
                self.arrange(other);
                Vec::new()
            }
        }
    }

    /// Esc: closes what is open (the help, the zoom, the focused pane's
    /// filter), or goes back one level: from a lesson to the lesson picker
    /// (the lesson stays open behind it). It never quits.
    fn back(&mut self) -> Vec<Effect> {
        if let Overlay::Help(_) = self.overlay {
            self.overlay = Overlay::None;
        } else if self.zoomed {
            self.zoomed = false;
        } else if !self.pane(self.focus).filter.is_empty() {
            self.pane_mut(self.focus).filter.clear();
        } else if self.lesson.is_some() {
            return self.back_to_picker();
        } else {
            self.notice = Some(
                self.lang
                    .pick(
                        "Nothing to close; q quits.",
                        "没有可关闭的内容；按 q 退出。",
                    )
                    .to_owned(),
            );
        }
        Vec::new()
    }

    /// Page Down or Up: a page of the zoomed pane, else a lesson step.
    fn page(&mut self, pages: i32) -> Vec<Effect> {
        if self.zoomed {
            let lines = pages.saturating_mul(self.page_lines());
            // As the mouse wheel: the objects pane scrolls down its YAML,
            // the others back in time.
            let lines = if self.focus == PaneId::Objects {
                lines
            } else {
                -lines
            };
            self.arrange(Action::Scroll(self.focus, lines));
            return Vec::new();
        }
        if self.lesson.is_some() {
            return self.update_lesson(if pages > 0 {
                super::lesson::LessonKey::NextStep
            } else {
                super::lesson::LessonKey::PrevStep
            });
        }
        Vec::new()
    }

    /// The lines a page scrolls: the zoomed pane's inside, less one kept in sight.
    fn page_lines(&self) -> i32 {
        let height = self
            .screen(self.area)
            .panes
            .iter()
            .find(|(id, _)| *id == self.focus)
            .map_or(self.area.height, |(_, rect)| rect.height);
        i32::from(height.saturating_sub(3).max(1))
    }

    /// Ctrl-U: clears the focused pane's filter, or every pane's when it has none.
    fn clear_filter(&mut self) {
        let focused = self.pane_mut(self.focus);
        if focused.filter.is_empty() {
            for state in self.panes.values_mut() {
                state.filter.clear();
            }
        } else {
            focused.filter.clear();
        }
    }

    /// Play, pause, the play timer and the speed.
    fn playback(&mut self, action: &Action) -> Vec<Effect> {
        match action {
            Action::TogglePlay if self.playing => self.pause(),
            Action::TogglePlay => {
                // At the end of a computed run, play starts again; while the
                // run is still being computed (or served), it goes on from there.
                if self.cursor >= self.last() && self.run_is_over() {
                    self.seek(0);
                }
                self.resume_live();
                self.playing = true;
                self.set_frame(Some(0));
                vec![Effect::Ticking(Some(self.tick_ms()))]
            }
            Action::Tick if !self.playing => Vec::new(),
            Action::Tick if self.frame + 1 < FRAMES_PER_STEP => {
                self.set_frame(Some(self.frame + 1));
                Vec::new()
            }
            // At the end of what is computed so far, playing waits for the rest.
            Action::Tick
                if self.stop_at.is_none() && self.cursor >= self.last() && !self.run_is_over() =>
            {
                Vec::new()
            }
            Action::Tick if self.cursor >= self.stop_at.unwrap_or(self.last()).min(self.last()) => {
                self.pause()
            }
            Action::Tick => {
                let next = steps::next(&self.timeline, self.cursor, self.heartbeats.folded());
                self.seek(next.min(self.stop_at.unwrap_or(usize::MAX)));
                self.set_frame(Some(0));
                Vec::new()
            }
            _ => {
                self.speed = if *action == Action::Faster {
                    (self.speed + 1).min(SPEEDS.len() - 1)
                } else {
                    self.speed.saturating_sub(1)
                };
                if self.playing {
                    vec![Effect::Ticking(Some(self.tick_ms()))]
                } else {
                    Vec::new()
                }
            }
        }
    }

    /// Echoes `line`, a command just run from the `:` bar, in the status bar.
    pub fn echo_ran(&mut self, line: &str) {
        self.ran = Some(format!("{}: {line}", self.lang.pick("ran", "已执行")));
    }

    /// Stops computing a run that holds more memory than `budget` allows:
    /// the steps computed so far stay, the status bar marks the run cut
    /// short (`✂`), and a notice says why and what computes it whole.
    pub fn cut_short(&mut self, budget: crate::memory::Budget) {
        self.timeline.cut_short();
        let step = self.timeline.len();
        let tenths = budget.limit_kb * 10 / (1024 * 1024);
        let gib = format!("{}.{}", tenths / 10, tenths % 10);
        self.notice = Some(match self.lang {
            Lang::En => format!(
                "stopped computing at step {step}: the run holds over {gib} GiB, 3/4 of the memory free \
                 when podflow started (podflow trace computes it whole, keeping no steps)"
            ),
            Lang::Zh => format!(
                "在第 {step} 步停止计算：运行已占用超过 {gib} GiB，即 podflow 启动时空闲内存的 3/4\
                 （podflow trace 可完整计算，且不保留步骤）"
            ),
        });
    }

    /// Whether the run has ended: computed to its end, and not a served
    /// cluster's, which goes on as long as the server does.
    pub fn run_is_over(&self) -> bool {
        self.live.is_none() && self.observing.is_none() && self.timeline.is_complete()
    }

    /// The step a navigation action goes to.
    pub(crate) fn target(&self, action: &Action) -> usize {
        let (t, fold) = (&self.timeline, self.heartbeats.folded());
        match action {
            Action::StepForward => steps::next(t, self.cursor, fold),
            Action::StepBack => steps::previous(t, self.cursor, fold),
            Action::NextPhase => steps::next_phase(t, self.cursor, fold).unwrap_or(self.last()),
            Action::PrevPhase => steps::previous_phase(t, self.cursor, fold),
            Action::Last => self.last(),
            Action::Seek(index) => *index,
            _ => 0,
        }
    }

    /// Focus, zoom, overlays, language, theme, scrolling and selection.
    fn arrange(&mut self, action: Action) {
        match action {
            Action::FocusNext | Action::FocusPrev => {
                let order = self.focus_order();
                let i = order.iter().position(|p| *p == self.focus).unwrap_or(0);
                let n = order.len();
                let next = if action == Action::FocusNext {
                    i + 1
                } else {
                    i + n - 1
                };
                self.focus = order[next % n];
            }
            Action::Focus(pane) => self.focus = pane,
            Action::ToggleZoom => self.zoomed = !self.zoomed,
            Action::ToggleHelp => self.toggle_help(),
            Action::Clear => self.clear_filter(),
            Action::ToggleLang => self.lang = self.lang.toggle(),
            Action::ToggleHeartbeats => {
                self.heartbeats = self.heartbeats.toggle();
                let (en, zh) = match self.heartbeats {
                    Heartbeats::Each => (
                        "Heartbeats shown: each Lease renewal is a step (H folds them).",
                        "显示心跳：每次 Lease 续约都是一步（H 合并）。",
                    ),
                    Heartbeats::Folded => (
                        "Heartbeats folded: a run of Lease renewals and node status reports is one step (H shows each).",
                        "合并心跳：连续的 Lease 续约和节点状态上报为一步（H 逐条显示）。",
                    ),
                };
                self.notice = Some(self.lang.pick(en, zh).to_owned());
            }
            Action::NextTheme => self.theme = self.theme.next(),
            Action::OpenFilter => {
                let current = self.pane(self.focus).filter.clone();
                self.overlay = Overlay::Filter(self.focus, current);
            }
            Action::Scroll(pane, lines) => {
                let state = self.pane_mut(pane);
                state.scroll = state.scroll.saturating_add_signed(lines as isize);
            }
            Action::Select(delta) => self.select(delta),
            _ => {}
        }
    }

    /// Moves the focused pane's selection: the objects pane's keys (its
    /// `selected` is 1-based, 0 following the step), or scrolls the others.
    pub(crate) fn select(&mut self, delta: i32) {
        let focus = self.focus;
        let theme = self.styles();
        let view = self.view();
        let cx = super::panes::PaneCx {
            view: &view,
            lang: self.lang,
            theme: &theme,
            focused: true,
            state: self.pane(focus),
        };
        if focus == PaneId::Objects {
            let current = super::panes::objects::Model::build(&cx)
                .selected
                .map_or(0, |i| i + 1);
            let state = self.pane_mut(focus);
            state.selected = current.saturating_add_signed(delta as isize).max(1);
            state.scroll = 0;
        } else if focus == PaneId::Narration {
            // The story reads down: ↓ scrolls on, as far as its end.
            let model = super::panes::narration::Model::build(&cx);
            let area = self
                .screen(self.area)
                .panes
                .iter()
                .find(|(id, _)| *id == focus)
                .map(|(_, r)| *r);
            let max = area.map_or(0, |area| {
                super::panes::narration::max_scroll(&model, &cx, area)
            });
            let state = self.pane_mut(focus);
            state.scroll = state.scroll.saturating_add_signed(delta as isize).min(max);
        } else {
            let state = self.pane_mut(focus);
            state.scroll = state.scroll.saturating_add_signed(-delta as isize);
        }
    }

    /// Keys while the command bar or a filter is open.
    fn update_bar(&mut self, action: &Action) -> Vec<Effect> {
        let overlay = std::mem::take(&mut self.overlay);
        let (mut text, filter_of) = match overlay {
            Overlay::Command(text) => (text, None),
            Overlay::Filter(pane, text) => (text, Some(pane)),
            other => {
                self.overlay = other;
                return Vec::new();
            }
        };
        match action {
            Action::Input(c) => text.push(*c),
            Action::Backspace => {
                text.pop();
            }
            Action::Clear => text.clear(),
            Action::Cancel => return Vec::new(),
            // Ctrl-C: quits, asking first when a typed command would be lost.
            Action::Quit => {
                self.overlay = match filter_of {
                    Some(pane) => Overlay::Filter(pane, text),
                    None => Overlay::Command(text),
                };
                return self.quit();
            }
            Action::Submit => {
                return match filter_of {
                    Some(pane) => {
                        self.pane_mut(pane).filter = text;
                        Vec::new()
                    }
                    None if text.trim().is_empty() => Vec::new(),
                    None => vec![Effect::RunCommand(text)],
                };
            }
            _ => {}
        }
        if let Some(pane) = filter_of {
            // Filters apply as they are typed.
            self.pane_mut(pane).filter.clone_from(&text);
            self.overlay = Overlay::Filter(pane, text);
        } else {
            self.overlay = Overlay::Command(text);
        }
        Vec::new()
    }

    /// Reads a command-bar line into kubectl's command. In a lesson, `-f`
    /// names the lesson's own files first (as its steps do), then files on disk.
    pub fn resolve_command(&self, line: &str) -> Result<Command, String> {
        let parsed = command::parse(line).map_err(|e| e.0)?;
        let resolved = match self.lesson.as_deref() {
            Some(player) => command::resolve(parsed, |file| {
                let lesson = &player.lesson;
                if let Some(text) = player.edited.get(file) {
                    let read = podflow_scenario::parse_manifests_as_sent(file, text.as_bytes())?;
                    Ok(FileObject::from_file(file, read))
                } else if lesson.owns_file(file) {
                    lesson.manifests(file, &Location::new(&lesson.file, 1, 1))
                } else {
                    podflow_engine::setup::load_manifests(file)
                }
            }),
            None => command::resolve(parsed, podflow_engine::setup::load_manifests),
        };
        resolved.map_err(|e| e.to_string())
    }

    /// Runs a command typed in the command bar after the current step: the
    /// run is recomputed from there and the cursor moves to the first new step.
    pub fn submit(&mut self, command: Command) {
        self.submit_then(command, Timeline::finish);
    }

    /// [`App::submit`], with only the first new step computed: the event
    /// loop computes the rest between frames, so a large run does not freeze
    /// the screen. In a lesson the whole run is computed at once, as its
    /// goals are checked on the run's end.
    pub fn submit_in_background(&mut self, command: Command) {
        if self.lesson.is_some() {
            self.submit(command);
            return;
        }
        self.submit_then(command, |timeline| {
            let wanted = timeline.len() + 1;
            while timeline.len() < wanted && !timeline.advance(1) {}
        });
    }

    /// After a command typed in the `:` bar or saved from the editor: counts
    /// it for the question `q` asks before quitting (a lesson keeps its own
    /// progress), and plays on to kubectl's answer
    /// ([`App::play_to_command_output`]).
    pub fn typed_command_ran(&mut self) -> Vec<Effect> {
        if self.lesson.is_none() {
            self.commands_typed += 1;
        }
        self.play_to_command_output()
    }

    /// After a command from the `:` bar or the editor: plays on to where
    /// kubectl prints its answer (its last line of that moment), computing the
    /// run that far, so the output shows in the logs pane at once and the
    /// requests before it travel on screen; jumps there when it is more than
    /// [`PLAYED_TO_OUTPUT`] steps on (the sequence pane still shows the
    /// requests). Nothing when kubectl prints nothing within
    /// [`OUTPUT_LOOKAHEAD`] steps.
    fn play_to_command_output(&mut self) -> Vec<Effect> {
        let is_output = |record: &podflow_engine::trace::TraceRecord| {
            matches!(&record.body,
                podflow_engine::trace::Record::Log { component, .. }
                    if *component == podflow_engine::trace::Actor::Kubectl)
        };
        let limit = self.cursor.saturating_add(OUTPUT_LOOKAHEAD);
        let mut scanned = self.cursor;
        loop {
            let complete = self.timeline.is_complete();
            let records = self.timeline.records();
            if let Some(first) = (scanned..records.len()).find(|i| is_output(&records[*i])) {
                let mut last = first;
                while last + 1 < records.len() && is_output(&records[last + 1]) {
                    last += 1;
                }
                // Lines of the same moment may still be coming: compute one more slice.
                if last + 1 == records.len() && !complete {
                    self.timeline.advance(OUTPUT_SLICE);
                    continue;
                }
                if last - self.cursor > PLAYED_TO_OUTPUT {
                    self.seek(last);
                    return Vec::new();
                }
                return self.play_to(last);
            }
            scanned = records.len();
            if complete || scanned >= limit {
                return Vec::new();
            }
            self.timeline.advance(OUTPUT_SLICE);
        }
    }

    /// Replaces the future after the current step with `command`'s, computed
    /// as far as `compute` takes it, and moves to its first new step.
    fn submit_then(&mut self, command: Command, compute: impl FnOnce(&mut Timeline)) {
        if self.timeline.is_observed() {
            self.notice = Some(super::observed::no_commands(self.lang).to_owned());
            return;
        }
        let at = (!self.timeline.is_empty()).then_some(self.cursor);
        let first_new = self.timeline.resubmit(at, command);
        compute(&mut self.timeline);
        self.seek(first_new);
        if let Some(player) = &mut self.lesson {
            player.forget_future(at);
        }
    }
}
