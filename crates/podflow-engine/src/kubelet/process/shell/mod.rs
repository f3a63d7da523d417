//! The small shell a simulated container runs (busybox `ash` as the
//! Kubernetes documentation's examples use it): a lexer, a parser, a compiler
//! to jump code and an interpreter that stops at `sleep` and resumes when
//! simulated time reaches the end of the sleep.
//!
//! Simplifications, all documented here: `( … )` subshells and nested
//! `sh -c` share the parent's variables; `&` runs in the foreground; a
//! `sleep` inside `$(…)`, a pipeline stage other than the last, or a
//! `kubectl exec` takes no simulated time; `trap` and `set` options are accepted
//! and ignored.

pub mod builtins;
pub mod compile;
pub mod expand;
mod files;
pub mod lexer;
pub mod net;
pub mod parse;
mod simple;
pub mod test;
pub mod vars;

use std::sync::Arc;

use self::compile::{Ins, Simple, compile};
use self::vars::Vars;
use super::World;
use super::fs::{Fs, normalize};
use super::log::Log;
use crate::clock::SimTime;

/// Instructions one `advance` runs at most: a loop that never sleeps is
/// "busy" until the next advance instead of hanging the engine.
pub const BUDGET: u32 = 100_000;

/// What the shell reaches: the world outside it, for one run.
pub struct Sys<'a> {
    pub fs: &'a mut Fs,
    pub world: &'a dyn World,
    /// The current moment (moves forward at the end of each sleep).
    pub now: SimTime,
    /// Standard error, and standard output unless captured.
    pub log: &'a mut Log,
    /// Standard output of a `$(…)`.
    pub capture: Option<&'a mut Log>,
    /// Instructions left in this run.
    pub budget: u32,
    /// busybox 1.28 and older print `nslookup` the old way.
    pub old_busybox: bool,
    /// The image's own programs (`nginx`, `docker-entrypoint.sh`): a script
    /// that runs one becomes that server, running until stopped.
    pub programs: &'a [String],
    /// The script told the image's server to stop (`nginx -s quit`): the
    /// container's main process exits once this run ends.
    pub stop_server: bool,
}

impl Sys<'_> {
    fn out(&mut self, text: &str) {
        let now = self.now;
        match &mut self.capture {
            Some(capture) => capture.write(now, text),
            None => self.log.write(now, text),
        }
    }
}

/// A command's standard streams.
#[derive(Debug, Default)]
pub struct Io {
    pub stdin: String,
    pub out: String,
    pub err: String,
}

/// What a command asks of the interpreter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It finished with this status.
    Status(i32),
    /// `sleep`: milliseconds, or `None` for `infinity`.
    Sleep(Option<u64>),
    /// `exit N`.
    Exit(i32),
    /// `sh -c SCRIPT`: run this code with these positional parameters.
    Script(Arc<[Ins]>, Vec<String>),
}

/// Where the shell stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// Sleeping until this moment (`None`: forever).
    Sleeping(Option<SimTime>),
    /// Finished with this status.
    Exited(i32),
    /// The instruction budget ran out.
    Busy,
}

#[derive(Debug, Clone)]
struct Frame {
    code: Arc<[Ins]>,
    pc: usize,
    fors: Vec<(String, Vec<String>, usize)>,
    args: Vec<String>,
}

/// A running shell.
#[derive(Debug, Clone)]
pub struct Shell {
    pub vars: Vars,
    pub status: i32,
    pub cwd: String,
    /// `sh` or `bash`, for messages.
    pub name: &'static str,
    frames: Vec<Frame>,
    wake: Option<SimTime>,
    /// The status of the last `$(…)`, for a command of assignments only.
    subst_status: Option<i32>,
    /// The script went on to run the image's server (`… && nginx -g 'daemon off;'`).
    pub serving: bool,
}

/// Compiles a script, or gives the shell's syntax error.
pub fn load(script: &str) -> Result<Arc<[Ins]>, String> {
    compile(&parse::parse(script)?)
}

impl Shell {
    /// A shell with these variables (exported) and nothing to run yet.
    pub fn new(env: &[(String, String)], name: &'static str) -> Shell {
        let mut vars = Vars::default();
        for (key, value) in env {
            vars.set(key, value);
            vars.export(key);
        }
        Shell {
            vars,
            status: 0,
            cwd: "/".to_string(),
            name,
            frames: Vec::new(),
            wake: None,
            subst_status: None,
            serving: false,
        }
    }

    /// Queues `code` to run with positional parameters `args` (`$0` first).
    pub fn push(&mut self, code: Arc<[Ins]>, args: Vec<String>) {
        self.frames.push(Frame {
            code,
            pc: 0,
            fors: Vec::new(),
            args,
        });
    }

    /// Queues one command given as argv (a container's bare `sleep 3600`).
    pub fn push_argv(&mut self, argv: &[String]) {
        let simple = Simple {
            assigns: Vec::new(),
            words: argv.iter().map(|a| lexer::Word::quoted(a)).collect(),
            redirs: Vec::new(),
        };
        let code: Arc<[Ins]> = Arc::from(vec![Ins::Run(Arc::new(simple))]);
        self.push(code, vec![self.name.to_string()]);
    }

    fn args(&self) -> &[String] {
        self.frames.last().map_or(&[], |f| f.args.as_slice())
    }

    /// The path `path` names from the working directory.
    pub fn path(&self, path: &str) -> String {
        normalize(&self.cwd, path)
    }

    /// Runs until a sleep past `until` (with `None`, sleeps end at once), an
    /// exit, or the budget's end.
    pub fn run(&mut self, sys: &mut Sys, until: Option<SimTime>) -> Run {
        loop {
            if let Some(wake) = self.wake {
                match until {
                    Some(until) if wake > until => {
                        return Run::Sleeping((wake != SimTime(u64::MAX)).then_some(wake));
                    }
                    Some(_) => sys.now = wake,
                    // An exec runs to its end: its clock moves on with each
                    // sleep (a sleep without end takes no time).
                    None if wake != SimTime(u64::MAX) => sys.now = wake,
                    None => {}
                }
                self.wake = None;
                self.status = 0;
            }
            let Some(frame) = self.frames.last_mut() else {
                return Run::Exited(self.status);
            };
            let Some(ins) = frame.code.get(frame.pc).cloned() else {
                self.frames.pop();
                continue;
            };
            if sys.budget == 0 {
                return Run::Busy;
            }
            sys.budget -= 1;
            frame.pc += 1;
            let outcome = self.step(sys, ins);
            match outcome {
                Outcome::Status(code) => self.status = code,
                Outcome::Sleep(ms) => {
                    self.wake = Some(ms.map_or(SimTime(u64::MAX), |ms| sys.now.plus(ms)));
                }
                Outcome::Exit(code) => {
                    self.status = code;
                    self.frames.pop();
                    if self.frames.is_empty() {
                        return Run::Exited(code);
                    }
                }
                Outcome::Script(code, args) => self.push(code, args),
            }
        }
    }

    fn step(&mut self, sys: &mut Sys, ins: Ins) -> Outcome {
        let status = self.status;
        let Some(frame) = self.frames.last_mut() else {
            return Outcome::Status(status);
        };
        match ins {
            Ins::Run(simple) => return self.simple(sys, &simple, String::new(), true).0,
            Ins::Pipe(stages) => return self.pipe(sys, &stages),
            Ins::Not => return Outcome::Status(i32::from(status == 0)),
            Ins::IfZero(to) if status == 0 => frame.pc = to,
            Ins::IfNonZero(to) if status != 0 => frame.pc = to,
            Ins::Jump(to) => frame.pc = to,
            Ins::Status(code) => return Outcome::Status(code),
            Ins::ForInit { var, items } => {
                let values = match items {
                    Some(words) => self.expand_words(sys, &words),
                    None => self.args().iter().skip(1).cloned().collect(),
                };
                if let Some(frame) = self.frames.last_mut() {
                    frame.fors.push((var, values, 0));
                }
            }
            Ins::ForNext { end } => {
                let next = frame.fors.last_mut().and_then(|(var, values, at)| {
                    let value = values.get(*at)?.clone();
                    *at += 1;
                    Some((var.clone(), value))
                });
                match next {
                    Some((var, value)) => self.vars.set(&var, &value),
                    None => frame.pc = end,
                }
            }
            Ins::ForPop => {
                frame.fors.pop();
            }
            Ins::IfZero(_) | Ins::IfNonZero(_) => {}
        }
        Outcome::Status(status)
    }

    /// `A | B | C`: each stage runs to its end, its output the next one's input.
    fn pipe(&mut self, sys: &mut Sys, stages: &[Simple]) -> Outcome {
        let mut input = String::new();
        let mut outcome = Outcome::Status(0);
        for (i, stage) in stages.iter().enumerate() {
            let last = i + 1 == stages.len();
            let (result, out) = self.simple(sys, stage, input, last);
            input = out;
            outcome = match result {
                Outcome::Script(code, args) if !last => {
                    let (status, out) = self.child(sys, code, args);
                    input = out;
                    Outcome::Status(status)
                }
                Outcome::Exit(code) => Outcome::Status(code),
                other => other,
            };
        }
        outcome
    }

    /// Runs `code` in a copy of this shell to its end; its status and output.
    fn child(&mut self, sys: &mut Sys, code: Arc<[Ins]>, args: Vec<String>) -> (i32, String) {
        let mut child = self.clone();
        child.frames.clear();
        child.wake = None;
        child.push(code, args);
        let mut capture = Log::default();
        let mut sub = Sys {
            fs: &mut *sys.fs,
            world: sys.world,
            now: sys.now,
            log: &mut *sys.log,
            capture: Some(&mut capture),
            budget: sys.budget,
            old_busybox: sys.old_busybox,
            programs: sys.programs,
            stop_server: false,
        };
        let run = child.run(&mut sub, None);
        sys.budget = sub.budget;
        sys.stop_server |= sub.stop_server;
        let status = match run {
            Run::Exited(code) => code,
            Run::Sleeping(_) | Run::Busy => child.status,
        };
        (status, capture.text())
    }

    /// `$(…)`: the output of `script`, trailing newlines removed.
    pub fn substitute(&mut self, sys: &mut Sys, script: &str) -> String {
        let (status, mut out) = match load(script) {
            Ok(code) => {
                let args = self.args().to_vec();
                self.child(sys, code, args)
            }
            Err(message) => {
                let now = sys.now;
                sys.log.write(now, &format!("{}: {message}\n", self.name));
                (2, String::new())
            }
        };
        self.subst_status = Some(status);
        while out.ends_with('\n') {
            out.pop();
        }
        out
    }
}
