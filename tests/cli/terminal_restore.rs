//! `podflow play` gives the terminal back however it ends: `q`, Ctrl-C,
//! SIGTERM, and a panic (`PODFLOW_TEST_PANIC=1`, a test-only trigger that
//! panics after the first frame). Runs the real binary on a pseudo-terminal,
//! waits for the alternate screen, ends it, and checks that the leave-alternate-
//! screen and show-cursor sequences were written and that the terminal is out
//! of raw mode (ICANON and ECHO back on). Polls with deadlines; no sleeps.
#![cfg(unix)]

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, Signal, kill_process};
use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
use rustix::termios::{LocalModes, Winsize, tcgetattr, tcsetwinsize};

const DEADLINE: Duration = Duration::from_secs(30);
const ENTER_ALT: &[u8] = b"\x1b[?1049h";
const LEAVE_ALT: &[u8] = b"\x1b[?1049l";
const SHOW_CURSOR: &[u8] = b"\x1b[?25h";

/// podflow on a fresh pseudo-terminal of 120×40.
struct Session {
    master: File,
    child: Child,
    output: Vec<u8>,
    state: std::path::PathBuf,
}

impl Session {
    fn start(name: &str, panic: bool) -> Session {
        let master =
            openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC).unwrap();
        grantpt(&master).unwrap();
        unlockpt(&master).unwrap();
        let path = ptsname(&master, Vec::new()).unwrap();
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(rustix::fs::OFlags::NOCTTY.bits().cast_signed())
            .open(path.to_str().unwrap())
            .unwrap();
        tcsetwinsize(
            &slave,
            Winsize {
                ws_row: 40,
                ws_col: 120,
                ws_xpixel: 0,
                ws_ypixel: 0,
            },
        )
        .unwrap();
        let state = std::env::temp_dir().join(format!("podflow-pty-{}-{name}", std::process::id()));
        let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/myapp-pod.yaml");
        let mut command = Command::new(env!("CARGO_BIN_EXE_podflow"));
        command
            .args(["play", "-f", fixture])
            .env("XDG_STATE_HOME", &state)
            .env("TERM", "xterm-256color")
            .env_remove("PODFLOW_TEST_PANIC")
            .stdin(slave.try_clone().unwrap())
            .stdout(slave.try_clone().unwrap())
            .stderr(slave);
        if panic {
            command.env("PODFLOW_TEST_PANIC", "1");
        }
        let child = command.spawn().unwrap();
        // Our copies of the slave go with `command`: the master reads EOF once podflow is gone.
        drop(command);
        Session {
            master: File::from(master),
            child,
            output: Vec::new(),
            state,
        }
    }

    /// Reads what podflow wrote until `done` holds or the deadline passes;
    /// whether it held.
    fn read_until(&mut self, done: impl Fn(&Session) -> bool) -> bool {
        let start = Instant::now();
        let mut buf = [0u8; 8192];
        while !done(self) {
            if start.elapsed() > DEADLINE {
                return false;
            }
            let mut fds = [PollFd::new(&self.master, PollFlags::IN)];
            let tick = Timespec {
                tv_sec: 0,
                tv_nsec: 100_000_000,
            };
            if poll(&mut fds, Some(&tick)).unwrap_or(0) == 0 {
                continue;
            }
            match self.master.read(&mut buf) {
                Ok(0) | Err(_) => return done(self), // EIO: every slave is closed
                Ok(n) => self.output.extend_from_slice(&buf[..n]),
            }
        }
        true
    }

    fn wait_for_first_frame(&mut self) {
        assert!(
            self.read_until(|s| contains(&s.output, ENTER_ALT)),
            "no alternate screen within {DEADLINE:?}: {}",
            String::from_utf8_lossy(&self.output)
        );
        let modes = tcgetattr(&self.master).unwrap().local_modes;
        assert!(
            !modes.contains(LocalModes::ICANON) && !modes.contains(LocalModes::ECHO),
            "raw mode is on while podflow runs"
        );
    }

    /// Waits for podflow to end, reading the rest of its output.
    fn finish(&mut self) -> ExitStatus {
        self.read_until(|_| false);
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(start.elapsed() < DEADLINE, "podflow did not end");
            self.read_until(|_| false);
        }
    }

    fn assert_restored(&self) {
        let after_enter = &self.output[find(&self.output, ENTER_ALT).unwrap()..];
        assert!(
            contains(after_enter, LEAVE_ALT),
            "no leave-alternate-screen"
        );
        assert!(contains(after_enter, SHOW_CURSOR), "no show-cursor");
        let modes = tcgetattr(&self.master).unwrap().local_modes;
        assert!(
            modes.contains(LocalModes::ICANON) && modes.contains(LocalModes::ECHO),
            "the terminal is left in raw mode"
        );
        let _ = std::fs::remove_dir_all(&self.state);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle).is_some()
}

#[test]
fn q_and_ctrl_c_give_the_terminal_back() {
    for (name, key) in [("q", b"q".as_slice()), ("ctrl-c", b"\x03".as_slice())] {
        let mut session = Session::start(name, false);
        session.wait_for_first_frame();
        session.master.write_all(key).unwrap();
        let status = session.finish();
        assert!(status.success(), "{name}: {status}");
        session.assert_restored();
    }
}

#[test]
fn sigterm_gives_the_terminal_back() {
    let mut session = Session::start("sigterm", false);
    session.wait_for_first_frame();
    kill_process(Pid::from_child(&session.child), Signal::TERM).unwrap();
    let status = session.finish();
    assert!(status.success(), "{status}");
    session.assert_restored();
}

#[test]
fn a_panic_gives_the_terminal_back_before_its_message() {
    let mut session = Session::start("panic", true);
    session.wait_for_first_frame();
    let status = session.finish();
    assert_eq!(status.code(), Some(101));
    session.assert_restored();
    let leave = find(&session.output, LEAVE_ALT).unwrap();
    let message = find(&session.output, b"PODFLOW_TEST_PANIC=1").unwrap();
    assert!(
        leave < message,
        "the panic message went to the alternate screen"
    );
}

/// The terminal goes away without a signal (`tmux kill-session`, an ssh
/// drop): the pseudo-terminal's master is closed, podflow's reads end and its
/// writes fail with `EIO`, and no SIGHUP comes (the pty is not its controlling
/// terminal). Like a shell on a hung-up line, podflow ends, with status 0 —
/// not 101, the panic of ratatui's `eprintln!` on the gone terminal when its
/// `Terminal` is dropped, nor spinning on crossterm's reads for ever.
#[test]
fn closing_the_terminal_ends_podflow_with_status_0() {
    let mut session = Session::start("hang-up", false);
    session.wait_for_first_frame();
    let Session {
        master,
        mut child,
        state,
        ..
    } = session;
    drop(master);
    let pid = Pid::from_child(&child);
    let (done, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait()));
    let Ok(status) = ended.recv_timeout(DEADLINE) else {
        let _ = kill_process(pid, Signal::KILL);
        panic!("podflow still runs {DEADLINE:?} after its terminal closed");
    };
    let status = status.unwrap();
    let _ = std::fs::remove_dir_all(&state);
    assert_eq!(status.code(), Some(0), "{status}");
}
