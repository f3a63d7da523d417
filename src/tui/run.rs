//! The event loop: crossterm's `EventStream`, a play timer that ticks only
//! while playing, and the signals that close the terminal window (SIGTERM,
//! SIGINT, SIGHUP), or the terminal going away without one ([`super::hangup`]:
//! a failed read or draw, or `POLLHUP`, ends the loop as a hang-up, status 0).
//! Nothing is redrawn while nothing happens.

use std::io::{self, IsTerminal};
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream, MouseButton, MouseEvent, MouseEventKind};
use futures_util::StreamExt;
use ratatui::layout::{Position, Rect};
use tokio::time::{Interval, MissedTickBehavior};

use super::action::{Action, Effect};
use super::app::{App, Overlay};
use super::hangup::{self, Input};
use super::keymap;
use super::lesson::LessonKey;
use super::lesson::editor::EditKey;
use super::panes::PaneId;
use super::render::slider_step;
use super::terminal::Tui;
use podflow_engine::kubectl::Command;

/// How many engine events are computed between two looks at the terminal
/// while a run is still being computed (about 10–40 ms on a large cluster).
const COMPUTE_SLICE: usize = 2_000;
/// How many slices are computed between two looks at the memory held
/// ([`crate::memory::Budget`]): about a third of a second.
const SLICES_PER_MEMORY_LOOK: u32 = 16;
/// How often the screen is redrawn while only the computation goes on.
const COMPUTE_REDRAW: Duration = Duration::from_millis(150);
/// How often the loop looks whether the terminal is gone ([`hangup::hung_up`]).
const HANG_UP_CHECK: Duration = Duration::from_millis(250);

/// The run computed a slice at a time between frames, within the
/// machine's memory: a run too large for it stops being computed, rather
/// than the process be killed with the terminal left raw.
struct Computing {
    budget: Option<crate::memory::Budget>,
    slices: u32,
}

impl Computing {
    fn new() -> Computing {
        Computing {
            budget: crate::memory::Budget::of_this_machine(),
            slices: 0,
        }
    }

    /// Computes one slice of `app`'s run; cuts the run short there when
    /// the process holds more than its budget.
    fn slice(&mut self, app: &mut App) {
        app.timeline.advance(COMPUTE_SLICE);
        app.remember_steps(1);
        self.slices = self.slices.wrapping_add(1);
        if self.slices.is_multiple_of(SLICES_PER_MEMORY_LOOK)
            && let Some(budget) = self.budget
            && budget.exceeded()
        {
            app.cut_short(budget);
        }
    }
}

/// `?` for the terminal's I/O: an error that says the terminal is gone
/// ([`hangup::is_hang_up`]) ends the loop as a hang-up, with `Ok`.
macro_rules! or_hang_up {
    ($tui:ident, $result:expr) => {
        match $result {
            Ok(value) => value,
            Err(e) if hangup::is_hang_up(&e) => {
                drop($tui);
                return Ok(());
            }
            Err(e) => return Err(e),
        }
    };
}

/// Runs the interface until the user quits, a signal arrives or the terminal hangs up.
pub async fn run(app: &mut App) -> io::Result<()> {
    // The handlers first: a SIGTERM right after the terminal is taken over must
    // still find them, or it ends podflow with the terminal in raw mode.
    let mut signals = Signals::new()?;
    // The reader before the terminal is taken over: crossterm's
    // `EventStream::new` panics when it cannot open its source, as on a
    // terminal already gone.
    if hangup::hung_up() {
        return Ok(());
    }
    let mut events = EventStream::new();
    let mut tui = match Tui::enter() {
        Ok(tui) => tui,
        Err(e) if hangup::is_hang_up(&e) => return Ok(()),
        Err(e) => return Err(e),
    };
    let mut ticker: Option<Interval> = None;
    // Only a terminal can hang up (a `POLLHUP` of a pipe is not one).
    let mut hang_up_check = io::stdout().is_terminal().then(|| {
        let mut interval = tokio::time::interval(HANG_UP_CHECK);
        interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
        interval
    });
    let size = or_hang_up!(tui, tui.terminal.size());
    app.update(Action::Resize(size.width, size.height));
    or_hang_up!(
        tui,
        tui.terminal
            .draw(|frame| frame.render_widget(&*app, frame.area()))
    );
    // Test-only, not a user setting: `tests/cli/terminal_restore.rs` sets it to check
    // that the panic hook gives the terminal back after a frame was drawn.
    assert!(
        std::env::var_os("PODFLOW_TEST_PANIC").is_none_or(|v| v != "1"),
        "PODFLOW_TEST_PANIC=1: a deliberate panic after the first frame"
    );
    let mut drawn = Instant::now();
    let mut computing_run = Computing::new();
    // A served cluster's requests, or an observed one's records
    // (`podflow attach`), are taken a few times a frame.
    let mut serving = (app.live.is_some() || app.observing.is_some()).then(|| {
        let mut interval = tokio::time::interval(podflow_server::driver::TICK);
        interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
        interval
    });
    loop {
        // A served cluster's run is computed as time goes, by `serve_tick`.
        let computing = !app.timeline.is_complete() && app.live.is_none();
        let mut computed = false;
        let actions: Vec<Action> = tokio::select! {
            // Keys and timers first; the run is computed when nothing waits.
            biased;
            event = events.next() => match hangup::classify(event) {
                Input::Event(event) => {
                    let s = or_hang_up!(tui, tui.terminal.size());
                    actions_for(app, &event, Rect::new(0, 0, s.width, s.height))
                }
                Input::HangUp => {
                    drop(tui);
                    return Ok(());
                }
                Input::Error(e) => return Err(e),
            },
            () = tick(&mut ticker) => vec![Action::Tick],
            () = tick(&mut serving) => {
                let before = (app.timeline.len(), app.cursor);
                app.serve_tick();
                app.observe_tick();
                // Redraw only when something new is there to see.
                if (app.timeline.len(), app.cursor) == before {
                    continue;
                }
                Vec::new()
            }
            () = signals.any() => break,
            () = tick(&mut hang_up_check) => {
                if hangup::hung_up() {
                    drop(tui);
                    return Ok(());
                }
                continue;
            }
            () = std::future::ready(()), if computing => {
                computing_run.slice(app);
                computed = true;
                Vec::new()
            }
        };
        let quit = apply(app, actions, &mut ticker);
        if quit {
            break;
        }
        // While computing, the step count is redrawn a few times a second, not per slice.
        if computed && !app.timeline.is_complete() && drawn.elapsed() < COMPUTE_REDRAW {
            continue;
        }
        or_hang_up!(
            tui,
            tui.terminal
                .draw(|frame| frame.render_widget(&*app, frame.area()))
        );
        drawn = Instant::now();
    }
    drop(tui);
    Ok(())
}

/// Updates the app with `actions` and carries out their effects; whether one
/// of them quits.
fn apply(app: &mut App, actions: Vec<Action>, ticker: &mut Option<Interval>) -> bool {
    let every = |ms: u64| {
        let mut interval = tokio::time::interval(Duration::from_millis(ms));
        interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
        interval.reset();
        interval
    };
    let mut quit = false;
    for action in actions {
        tracing::debug!(?action, "update");
        for effect in app.update(action) {
            match effect {
                Effect::Quit => quit = true,
                Effect::Ticking(Some(ms)) => *ticker = Some(every(ms)),
                Effect::Ticking(None) => *ticker = None,
                Effect::RunCommand(line) => {
                    tracing::info!(%line, "command bar");
                    if let Some(ms) = run_command(app, &line) {
                        *ticker = Some(every(ms));
                    }
                }
                Effect::SaveProgress => save_progress(app),
            }
        }
    }
    quit
}

async fn tick(ticker: &mut Option<Interval>) {
    match ticker {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending::<()>().await,
    }
}

/// The actions of one terminal event.
fn actions_for(app: &App, event: &Event, area: Rect) -> Vec<Action> {
    match event {
        Event::Key(key) => keymap::action_for(*key, &keymap::Context::of(app))
            .into_iter()
            .collect(),
        Event::Resize(width, height) => vec![Action::Resize(*width, *height)],
        Event::Mouse(mouse) => mouse_action(app, *mouse, area).into_iter().collect(),
        Event::Paste(text) if matches!(app.overlay, Overlay::Editor(_)) => text
            .chars()
            .filter(|c| *c == '\n' || !c.is_control())
            .map(|c| {
                Action::Edit(if c == '\n' {
                    EditKey::Enter
                } else {
                    EditKey::Char(c)
                })
            })
            .collect(),
        Event::Paste(text) if matches!(app.overlay, Overlay::Command(_) | Overlay::Filter(..)) => {
            text.chars()
                .filter(|c| !c.is_control())
                .map(Action::Input)
                .collect()
        }
        // Anything else only needs a redraw.
        _ => Vec::new(),
    }
}

pub(crate) fn mouse_action(app: &App, mouse: MouseEvent, area: Rect) -> Option<Action> {
    let screen = app.screen(area);
    let at = Position::new(mouse.column, mouse.row);
    let pane = screen
        .panes
        .iter()
        .find(|(_, rect)| rect.contains(at))
        .map(|(id, _)| *id);
    match mouse.kind {
        MouseEventKind::Down(MouseButton::Left) => {
            if screen.status.contains(at) {
                slider_step(app, screen.status, mouse.column).map(Action::Seek)
            } else {
                pane.map(Action::Focus)
            }
        }
        // Over a lesson's panel, the wheel scrolls its step.
        MouseEventKind::ScrollUp | MouseEventKind::ScrollDown
            if app
                .lesson_panel(area)
                .is_some_and(|panel| panel.contains(at)) =>
        {
            let rows = if mouse.kind == MouseEventKind::ScrollUp {
                -3
            } else {
                3
            };
            Some(Action::Lesson(LessonKey::Wheel(rows)))
        }
        // Panes scroll back in time; the objects pane scrolls down its YAML.
        MouseEventKind::ScrollUp => {
            pane.map(|p| Action::Scroll(p, if p == PaneId::Objects { -3 } else { 3 }))
        }
        MouseEventKind::ScrollDown => {
            pane.map(|p| Action::Scroll(p, if p == PaneId::Objects { 3 } else { -3 }))
        }
        _ => None,
    }
}

/// Runs a command typed in the command bar (errors go to the status bar),
/// plays on to kubectl's answer, in the sandbox as in a lesson or drill,
/// and returns the tick the loop then needs.
pub(super) fn run_command(app: &mut App, line: &str) -> Option<u64> {
    match app.resolve_command(line) {
        // `edit` opens the editor; kubectl runs when it is saved.
        Ok(Command::Edit {
            kind,
            name,
            namespace,
            change: None,
        }) => {
            if let Err(message) = app.open_object_editor(kind, &name, namespace) {
                app.notice = Some(message);
            }
            None
        }
        Ok(command) => {
            app.submit_in_background(command);
            let mut tick = None;
            for effect in app.typed_command_ran() {
                if let Effect::Ticking(ms) = effect {
                    tick = ms;
                }
            }
            app.echo_ran(line);
            tick
        }
        Err(message) => {
            app.notice = Some(message);
            None
        }
    }
}

/// Saves the student's progress; a failure is a notice, never an exit.
fn save_progress(app: &mut App) {
    if let Some(path) = &app.progress_path
        && let Err(e) = podflow_lesson::progress::save(path, &app.progress)
    {
        app.notice = Some(format!("saving progress to {}: {e}", path.display()));
    }
}

/// The signals that end podflow: the window closed (SIGHUP), `kill` (SIGTERM),
/// and SIGINT from outside (Ctrl-C itself arrives as a key in raw mode).
struct Signals {
    #[cfg(unix)]
    streams: Vec<tokio::signal::unix::Signal>,
}

impl Signals {
    fn new() -> io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let streams = vec![
                signal(SignalKind::terminate())?,
                signal(SignalKind::interrupt())?,
                signal(SignalKind::hangup())?,
            ];
            Ok(Signals { streams })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// Waits for any of them.
    async fn any(&mut self) {
        #[cfg(unix)]
        {
            let waits = self.streams.iter_mut().map(|s| Box::pin(s.recv()));
            let _ = futures_util::future::select_all(waits).await;
        }
        #[cfg(not(unix))]
        std::future::pending::<()>().await;
    }
}
