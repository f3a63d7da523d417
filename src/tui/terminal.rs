//! The terminal: taken over (raw mode, alternate screen, mouse, bracketed
//! paste, cursor hidden) and always given back exactly as found — on quit, on
//! drop, and on panic (a panic hook restores it before the message prints) —
//! or as far as it can be when the terminal is gone (a hang-up).

use std::io::{self, Stdout};
use std::mem::ManuallyDrop;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// The terminal while podflow owns it; dropping it gives it back.
pub struct Tui {
    /// Never dropped: all ratatui's `Terminal` does when dropped is show the
    /// cursor, which [`restore`] does too, and `eprintln!` a failure to — and
    /// `eprintln!` panics (exit 101) when the terminal it writes to is gone (a
    /// hang-up). One `Tui` is made a run, so nothing piles up.
    pub terminal: ManuallyDrop<Terminal<CrosstermBackend<Stdout>>>,
}

impl Tui {
    /// Takes the terminal over, and installs the panic hook that gives it back.
    pub fn enter() -> io::Result<Tui> {
        install_panic_hook();
        enable_raw_mode()?;
        let mut stdout = io::stdout();
        if let Err(e) = execute!(
            stdout,
            EnterAlternateScreen,
            EnableMouseCapture,
            EnableBracketedPaste,
            crossterm::cursor::Hide
        ) {
            restore();
            return Err(e);
        }
        match Terminal::new(CrosstermBackend::new(stdout)) {
            Ok(terminal) => Ok(Tui {
                terminal: ManuallyDrop::new(terminal),
            }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        restore();
    }
}

/// Gives the terminal back: raw mode off, main screen, mouse and paste modes
/// off, cursor shown. Safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}
