//! The terminal going away without a signal: `tmux kill-session`, an ssh
//! connection dropped, a terminal emulator killed. The pseudo-terminal's
//! other side is closed, so reads from it end (EOF) or fail (`EIO`), and
//! writes fail. Like a shell's or an editor's, podflow's answer is a hang-up:
//! give back what it can of the terminal and end with status 0.
//!
//! crossterm 0.29's reader does not report this: on EOF or `EIO` its event
//! thread reads again at once, forever (`UnixInternalEventSource::try_read`
//! only ends its loop on `WouldBlock`). So besides reading what its
//! `EventStream` yields ([`classify`]), the event loop looks at the terminal
//! itself a few times a second ([`hung_up`]): `poll` answers `POLLHUP` (or
//! `POLLERR`) on a terminal whose other side is closed.

use std::io;

use crossterm::event::Event;

/// What one read of the terminal means for the event loop.
#[derive(Debug)]
pub enum Input {
    /// A key, a mouse event, a paste or a resize.
    Event(Event),
    /// The terminal is gone: restore what can be, and end with status 0.
    HangUp,
    /// Any other failure: podflow ends with it.
    Error(io::Error),
}

/// `EIO`: the usual answer of a read from, or write to, a terminal whose other side is closed.
const EIO: i32 = 5;
/// `ENXIO`: a terminal device gone (a hung-up line).
const ENXIO: i32 = 6;

/// Maps what the terminal's event stream yielded to what the loop does: the
/// end of the stream, or a read that fails as a closed terminal's reads do,
/// is a hang-up.
pub fn classify(read: Option<io::Result<Event>>) -> Input {
    match read {
        Some(Ok(event)) => Input::Event(event),
        None => Input::HangUp,
        Some(Err(e)) if is_hang_up(&e) => Input::HangUp,
        Some(Err(e)) => Input::Error(e),
    }
}

/// Whether an error of a terminal read or write says the terminal is gone.
pub fn is_hang_up(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(EIO | ENXIO))
        || matches!(
            e.kind(),
            io::ErrorKind::UnexpectedEof
                | io::ErrorKind::BrokenPipe
                | io::ErrorKind::ConnectionReset
        )
}

/// What `poll` says of the terminal, as the loop reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Readiness {
    /// `POLLHUP`: the other side is closed.
    pub hang_up: bool,
    /// `POLLERR`: an error is pending on the terminal.
    pub error: bool,
    /// `POLLNVAL`: the descriptor is not open.
    pub invalid: bool,
}

impl Readiness {
    /// Whether the terminal is gone.
    pub fn is_hang_up(self) -> bool {
        self.hang_up || self.error || self.invalid
    }
}

/// Whether the terminal podflow draws on (its standard output) is gone.
/// `false` when it cannot tell (not Linux, or `poll` failed).
pub fn hung_up() -> bool {
    readiness().is_some_and(Readiness::is_hang_up)
}

#[cfg(target_os = "linux")]
fn readiness() -> Option<Readiness> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let stdout = io::stdout();
    let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&now)).ok()?;
    let flags = fds[0].revents();
    Some(Readiness {
        hang_up: flags.contains(PollFlags::HUP),
        error: flags.contains(PollFlags::ERR),
        invalid: flags.contains(PollFlags::NVAL),
    })
}

#[cfg(not(target_os = "linux"))]
fn readiness() -> Option<Readiness> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyEvent};

    /// A closed pseudo-terminal: reads end (EOF, the stream ends) or fail
    /// with `EIO`/`ENXIO` (`read(2)`, `pty(7)`); those are hang-ups, as a
    /// shell takes them; anything else stays an error.
    #[test]
    fn a_read_that_ends_or_fails_with_eio_is_a_hang_up() {
        let key = Event::Key(KeyEvent::from(KeyCode::Char('q')));
        let cases: Vec<(&str, Option<io::Result<Event>>, &str)> = vec![
            ("a key", Some(Ok(key)), "event"),
            ("the stream ends", None, "hang-up"),
            (
                "EIO",
                Some(Err(io::Error::from_raw_os_error(EIO))),
                "hang-up",
            ),
            (
                "ENXIO",
                Some(Err(io::Error::from_raw_os_error(ENXIO))),
                "hang-up",
            ),
            (
                "EOF",
                Some(Err(io::ErrorKind::UnexpectedEof.into())),
                "hang-up",
            ),
            (
                "broken pipe",
                Some(Err(io::ErrorKind::BrokenPipe.into())),
                "hang-up",
            ),
            (
                "permission denied",
                Some(Err(io::ErrorKind::PermissionDenied.into())),
                "error",
            ),
        ];
        for (name, read, want) in cases {
            let got = match classify(read) {
                Input::Event(_) => "event",
                Input::HangUp => "hang-up",
                Input::Error(_) => "error",
            };
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn pollhup_pollerr_and_pollnval_are_hang_ups() {
        assert!(!Readiness::default().is_hang_up());
        for r in [
            Readiness {
                hang_up: true,
                ..Readiness::default()
            },
            Readiness {
                error: true,
                ..Readiness::default()
            },
            Readiness {
                invalid: true,
                ..Readiness::default()
            },
        ] {
            assert!(r.is_hang_up(), "{r:?}");
        }
    }
}
