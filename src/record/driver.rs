//! Drives the app as a student would, on simulated time: a lesson step by
//! step (`n`, the step playing to its end, quizzes answered right, goals
//! solved by typing their solution in the `:` bar), or a sandbox's trace
//! played from start to end. Each screen is drawn exactly as the TUI draws
//! it (`impl Widget for &App` into a [`Buffer`]) and handed to the cast.
//!
//! Pace (all multiplied by `--pace`; 1.0 is the default):
//! - one animation frame while a step plays: [`FRAME_MS`] (a record shows 4);
//! - reading a step's text: [`WORD_MS`] a word (a CJK character counts as half
//!   a word), at least [`MIN_READ_MS`];
//! - typing a command: [`KEY_MS`] a character; a beat between actions: [`BEAT_MS`];
//! - a `pause:` step: [`PAUSE_MS`]; the last screen: [`END_MS`].

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::ansi;
use super::cast::Cast;
use crate::tui::action::{Action, Effect};
use crate::tui::app::{App, Overlay};
use crate::tui::lang::Lang;
use crate::tui::lesson::LessonKey;
use crate::tui::phases;
use crate::tui::theme::ThemeName;
use podflow_engine::timeline::Timeline;
use podflow_lesson::Lesson;
use podflow_lesson::format::Step;

/// One animation frame while a step plays, in milliseconds.
pub const FRAME_MS: u64 = 60;
/// Reading one word of a step's text.
pub const WORD_MS: u64 = 280;
/// The shortest time a step's text shows.
pub const MIN_READ_MS: u64 = 1500;
/// Typing one character of a command.
pub const KEY_MS: u64 = 45;
/// A beat between two actions (before an answer, after a command).
pub const BEAT_MS: u64 = 800;
/// A `pause:` step.
pub const PAUSE_MS: u64 = 2500;
/// The last screen.
pub const END_MS: u64 = 3000;

/// How a recording looks and runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub cols: u16,
    pub rows: u16,
    pub lang: Lang,
    /// Multiplies every duration: 2.0 is twice as slow.
    pub pace: f64,
    /// The cast's title.
    pub title: Option<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            cols: 120,
            rows: 40,
            lang: Lang::En,
            pace: 1.0,
            title: None,
        }
    }
}

/// A finished recording.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The asciicast v2 file's text.
    pub cast: String,
    /// The last screen drawn.
    pub screen: Buffer,
    /// When the last event happens, in simulated milliseconds.
    pub duration_ms: u64,
    /// How many markers the cast has.
    pub markers: usize,
}

/// The app on `timeline`, as `podflow play` makes it (dark theme, colours on).
pub fn app(timeline: Timeline, lang: Lang) -> App {
    App::new(timeline, lang, ThemeName::Dark, false)
}

/// The app with `lesson` open at its first step.
pub fn lesson_app(lesson: Lesson, lang: Lang) -> Result<App, String> {
    // The lesson's own timeline stands in until the lesson opens on a fresh one.
    let start = podflow_lesson::run::timeline(&lesson).map_err(|e| e.to_string())?;
    let mut app = app(start, lang);
    app.open_lesson(lesson)?;
    Ok(app)
}

/// Draws the app on a `cols`×`rows` screen, as the TUI does.
pub fn draw(app: &App, cols: u16, rows: u16) -> Buffer {
    let area = Rect::new(0, 0, cols, rows);
    let mut buf = Buffer::empty(area);
    app.render(area, &mut buf);
    buf
}

/// Presses `n`, and `y` when asked whether to leave a quiz unanswered or a
/// goal unreached.
pub fn next_step(app: &mut App) -> Vec<Effect> {
    let effects = app.update(Action::Lesson(LessonKey::NextStep));
    if matches!(app.overlay, Overlay::Question(_)) {
        return app.update(Action::Answer(true));
    }
    effects
}

/// Presses `n` `steps` times, each step playing to its end and each goal
/// solved first (the `--at-step` of a screenshot): the app at lesson step
/// `steps + 1`, or the reason a step cannot be reached.
pub fn advance_lesson(app: &mut App, steps: usize) -> Result<(), String> {
    for _ in 0..steps {
        solve_goal(app)?;
        let before = app.lesson.as_ref().map(|p| p.step);
        if app.lesson.as_ref().is_none_or(|p| p.step + 1 >= p.len()) {
            // The last step: `n` has nowhere to go.
            break;
        }
        next_step(app);
        if app.lesson.as_ref().map(|p| p.step) == before {
            return Err(app
                .notice
                .clone()
                .unwrap_or_else(|| "the lesson did not go on to its next step".into()));
        }
        while app.playing {
            app.update(Action::Tick);
        }
    }
    Ok(())
}

/// Plays every step of `lesson` as a student who solves each goal would,
/// in both languages: the first step that cannot be reached is the error.
pub fn play_every_step(lesson: &Lesson) -> Result<(), String> {
    for lang in [Lang::En, Lang::Zh] {
        let mut app = lesson_app(lesson.clone(), lang)?;
        let steps = app.lesson.as_ref().map_or(0, |p| p.len());
        advance_lesson(&mut app, steps.saturating_sub(1))?;
    }
    Ok(())
}

/// At a goal, types its solution in the `:` bar as a student would, so
/// the steps after it (`until: pod db Running`) find the run they wait for.
pub fn solve_goal(app: &mut App) -> Result<(), String> {
    if let Some(Step::Goal(goal)) = app.lesson.as_ref().and_then(|p| p.current()).cloned() {
        for line in &goal.solution {
            app.update(Action::OpenCommand);
            for c in line.value.chars() {
                app.update(Action::Input(c));
            }
            submit_line(app)?;
            play_to_end(app);
        }
    }
    Ok(())
}

/// Plays what a command started to the end of the run, as the recording does.
fn play_to_end(app: &mut App) {
    if app.cursor < app.last() && !app.playing {
        app.update(Action::TogglePlay);
    }
    while app.playing {
        app.update(Action::Tick);
    }
}

/// Submits the `:` bar and runs the command it holds, as the TUI's loop does.
fn submit_line(app: &mut App) -> Result<(), String> {
    for effect in app.update(Action::Submit) {
        if let Effect::RunCommand(line) = effect {
            let command = app.resolve_command(&line)?;
            app.submit(command);
            app.echo_ran(&line);
        }
    }
    Ok(())
}

/// Records a lesson from its first step to its last.
pub fn record_lesson(lesson: Lesson, options: &Options) -> Result<Recording, String> {
    let mut app = lesson_app(lesson, options.lang)?;
    let mut rec = Recorder::new(options);
    let steps = app.lesson.as_ref().map_or(0, |p| p.len());
    for index in 0..steps {
        if index > 0 {
            next_step(&mut app);
        }
        let Some(step) = app.lesson.as_ref().and_then(|p| p.current()).cloned() else {
            break;
        };
        rec.marker(&label(index, &step, options.lang));
        rec.show(&app);
        rec.play_out(&mut app);
        rec.step(&mut app, &step, options.lang)?;
    }
    Ok(rec.finish(&app))
}

/// Records a sandbox's trace played from its first step to its last, with a
/// marker where each phase starts (the acting component changes).
pub fn record_sandbox(timeline: Timeline, options: &Options) -> Recording {
    let mut app = app(timeline, options.lang);
    let mut rec = Recorder::new(options);
    let mut phase = 0;
    let mut mark = |rec: &mut Recorder, app: &App| {
        if app.cursor < app.timeline.len() {
            phase += 1;
            // Named as the status bar names the step: who does what.
            let title = phases::title(app.timeline.records(), app.cursor);
            rec.marker(&format!("{phase} {title}"));
        }
    };
    mark(&mut rec, &app);
    rec.show(&app);
    if app.cursor < app.last() {
        app.update(Action::TogglePlay);
        rec.show(&app);
        let mut next_phase = phases::next(app.timeline.records(), app.cursor);
        while app.playing {
            rec.wait(FRAME_MS);
            app.update(Action::Tick);
            if Some(app.cursor) == next_phase {
                mark(&mut rec, &app);
                next_phase = phases::next(app.timeline.records(), app.cursor);
            }
            rec.show(&app);
        }
    }
    rec.finish(&app)
}

/// A step's marker: its number, kind and first words.
fn label(index: usize, step: &Step, lang: Lang) -> String {
    let (kind, text) = match step {
        Step::Narrate(n) => ("narrate", n.text.value.pick(lang == Lang::Zh).to_owned()),
        Step::Command(c) => ("command", c.run.value.clone()),
        Step::Pause(_) => ("pause", String::new()),
        Step::Quiz(q) => ("quiz", q.question.value.pick(lang == Lang::Zh).to_owned()),
        Step::Goal(g) => ("goal", g.task.value.pick(lang == Lang::Zh).to_owned()),
    };
    let first = first_words(&text, 32);
    if first.is_empty() {
        format!("{} {kind}", index + 1)
    } else {
        format!("{} {kind}: {first}", index + 1)
    }
}

/// The text's first characters, up to `max`, cut at a word where there is one.
fn first_words(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(space) if space > max / 2 => cut[..space].to_owned(),
        _ => cut,
    };
    format!("{}…", cut.trim_end())
}

/// How long `text` takes to read, before the pace.
pub fn reading_ms(text: &str) -> u64 {
    // Words of spaced scripts; a CJK character is half a word.
    let mut half_words: u64 = 0;
    for word in text.split_whitespace() {
        let cjk = word.chars().filter(|c| is_cjk(*c)).count() as u64;
        let rest = word.chars().count() as u64 - cjk;
        half_words += cjk + if rest > 0 { 2 } else { 0 };
    }
    (half_words * WORD_MS / 2).max(MIN_READ_MS)
}

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{2E80}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{FF00}'..='\u{FFEF}')
}

/// The screen so far and the cast being written.
struct Recorder {
    cast: Cast,
    cols: u16,
    rows: u16,
    pace: f64,
    /// The simulated time, in milliseconds.
    now: u64,
    /// The screen the cast shows (`None` before the first frame).
    screen: Option<Buffer>,
    markers: usize,
}

impl Recorder {
    fn new(options: &Options) -> Recorder {
        Recorder {
            cast: Cast::new(options.cols, options.rows, options.title.as_deref()),
            cols: options.cols,
            rows: options.rows,
            pace: options.pace,
            now: 0,
            screen: None,
            markers: 0,
        }
    }

    /// Lets `ms` (before the pace) pass.
    fn wait(&mut self, ms: u64) {
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
        let paced = (ms as f64 * self.pace).round() as u64;
        self.now += paced;
    }

    fn marker(&mut self, label: &str) {
        self.cast.marker(self.now, label);
        self.markers += 1;
    }

    /// Draws the app and writes what changed on the screen.
    fn show(&mut self, app: &App) {
        let next = draw(app, self.cols, self.rows);
        let data = if let Some(prev) = &self.screen {
            ansi::diff(prev, &next)
        } else {
            let blank = Buffer::empty(next.area);
            format!("{}{}", ansi::START, ansi::diff(&blank, &next))
        };
        if !data.is_empty() {
            self.cast.output(self.now, &data);
        }
        self.screen = Some(next);
    }

    /// Ticks while the step plays, a frame at a time.
    fn play_out(&mut self, app: &mut App) {
        while app.playing {
            self.wait(FRAME_MS);
            app.update(Action::Tick);
            self.show(app);
        }
    }

    /// What a student does on a step once it has played: reads it, answers
    /// the quiz, solves the goal.
    fn step(&mut self, app: &mut App, step: &Step, lang: Lang) -> Result<(), String> {
        let zh = lang == Lang::Zh;
        match step {
            Step::Narrate(n) => self.wait(reading_ms(n.text.value.pick(zh))),
            Step::Command(c) => {
                let text = c.text.as_ref().map_or("", |t| t.value.pick(zh));
                self.wait(reading_ms(&format!("{} {text}", c.run.value)));
            }
            Step::Pause(_) => self.wait(PAUSE_MS),
            Step::Quiz(q) => {
                let mut text = q.question.value.pick(zh).to_owned();
                for choice in &q.choices {
                    text.push(' ');
                    text.push_str(choice.value.text().pick(zh));
                }
                self.wait(reading_ms(&text));
                let right: Vec<u8> = (1..=u8::MAX)
                    .zip(&q.choices)
                    .filter(|(_, c)| c.value.correct)
                    .map(|(n, _)| n)
                    .collect();
                for n in &right {
                    app.update(Action::Lesson(LessonKey::Choose(*n)));
                    self.show(app);
                    self.wait(BEAT_MS);
                }
                if right.len() > 1 {
                    app.update(Action::Lesson(LessonKey::Confirm));
                    self.show(app);
                }
                self.wait(reading_ms(q.explain.value.pick(zh)));
            }
            Step::Goal(g) => {
                self.wait(reading_ms(g.task.value.pick(zh)));
                for line in &g.solution {
                    self.type_command(app, &line.value)?;
                }
                self.show(app);
                self.wait(BEAT_MS * 2);
            }
        }
        Ok(())
    }

    /// Types `line` in the `:` bar, runs it as the TUI's loop does, and
    /// plays what it started to its end.
    fn type_command(&mut self, app: &mut App, line: &str) -> Result<(), String> {
        app.update(Action::OpenCommand);
        self.show(app);
        for c in line.chars() {
            self.wait(KEY_MS);
            app.update(Action::Input(c));
            self.show(app);
        }
        self.wait(BEAT_MS);
        submit_line(app)?;
        self.show(app);
        self.wait(BEAT_MS);
        if app.cursor < app.last() {
            app.update(Action::TogglePlay);
            self.show(app);
            self.play_out(app);
        }
        Ok(())
    }

    /// Holds the last screen, then resets the terminal's style.
    fn finish(mut self, app: &App) -> Recording {
        self.show(app);
        self.wait(END_MS);
        self.cast.output(self.now, ansi::END);
        let duration_ms = self.cast.last_ms();
        let screen = self
            .screen
            .take()
            .unwrap_or_else(|| draw(app, self.cols, self.rows));
        Recording {
            cast: self.cast.finish(),
            screen,
            duration_ms,
            markers: self.markers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_words_cut_at_a_word() {
        let table = [
            ("short text", "short text"),
            (
                "The API server authenticates the request first",
                "The API server authenticates…",
            ),
            (
                "一二三四五六七八九十一二三四五六七八九十一二三四五六七八九十一二三",
                "一二三四五六七八九十一二三四五六七八九十一二三四五六七八九十一二…",
            ),
            ("  spaced\n  out ", "spaced out"),
        ];
        for (text, want) in table {
            assert_eq!(first_words(text, 32), want, "{text}");
        }
    }

    #[test]
    fn reading_time_counts_words_and_cjk_characters() {
        assert_eq!(reading_ms("a"), MIN_READ_MS);
        let twenty = ["word"; 20].join(" ");
        assert_eq!(reading_ms(&twenty), 20 * WORD_MS);
        let forty_cjk = "字".repeat(40);
        assert_eq!(reading_ms(&forty_cjk), 20 * WORD_MS);
    }

    #[test]
    fn pace_multiplies_every_wait() {
        let mut rec = Recorder::new(&Options {
            pace: 2.5,
            ..Options::default()
        });
        rec.wait(FRAME_MS);
        assert_eq!(rec.now, 150);
    }
}
