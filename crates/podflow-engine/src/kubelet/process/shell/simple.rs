//! Running one simple command: expanding its words and assignments, opening
//! its redirections (`>`, `>>`, `<`, `2>&1`, `>&2`, `&>`), running it and
//! sending its output where the redirections say.

use super::compile::Simple;
use super::lexer::RedirOp;
use super::{Io, Outcome, Shell, Sys, builtins};
use crate::kubelet::process::fs::FsError;

impl Shell {
    /// Expands and runs one simple command with its redirections. With
    /// `to_log`, its output goes to the log (or capture); else it is returned.
    pub(super) fn simple(
        &mut self,
        sys: &mut Sys,
        s: &Simple,
        stdin: String,
        to_log: bool,
    ) -> (Outcome, String) {
        self.subst_status = None;
        let argv = self.expand_words(sys, &s.words);
        let assigns: Vec<(String, String)> = s
            .assigns
            .iter()
            .map(|(name, word)| (name.clone(), self.expand_single(sys, word)))
            .collect();
        if argv.is_empty() {
            for (name, value) in &assigns {
                self.vars.set(name, value);
            }
            return (
                Outcome::Status(self.subst_status.unwrap_or(0)),
                String::new(),
            );
        }
        let mut io = Io {
            stdin,
            ..Io::default()
        };
        let (mut out_to, mut err_to) = (Dest::Default, Dest::Log);
        for redir in &s.redirs {
            let target = self.expand_single(sys, &redir.target);
            match (redir.fd, redir.op) {
                (_, RedirOp::Dup) if target == "2" => out_to = err_to.clone(),
                (_, RedirOp::Dup) if target == "1" => err_to = out_to.clone(),
                (_, RedirOp::Dup) => {}
                (_, RedirOp::In) => match sys.fs.read(&self.path(&target)) {
                    Ok(text) => io.stdin = text.to_string(),
                    Err(e) => {
                        let message =
                            format!("{}: can't open '{target}': {}\n", self.name, e.text());
                        let now = sys.now;
                        sys.log.write(now, &message);
                        return (Outcome::Status(1), String::new());
                    }
                },
                (fd, op) => {
                    let path = self.path(&target);
                    let parent_ok = sys.fs.write(&path, "", true);
                    if let Err(e) = parent_ok {
                        let reason = if e == FsError::NotFound {
                            "nonexistent directory"
                        } else {
                            e.text()
                        };
                        let message = format!("{}: can't create {target}: {reason}\n", self.name);
                        let now = sys.now;
                        sys.log.write(now, &message);
                        return (Outcome::Status(1), String::new());
                    }
                    if op != RedirOp::Append {
                        let _ = sys.fs.write(&path, "", false);
                    }
                    let dest = Dest::File(path);
                    match (fd, op) {
                        (_, RedirOp::Both) => (out_to, err_to) = (dest.clone(), dest),
                        (2, _) => err_to = dest,
                        _ => out_to = dest,
                    }
                }
            }
        }
        let saved: Vec<(String, Option<String>)> = assigns
            .iter()
            .map(|(name, value)| {
                let old = self.vars.get(name).map(ToString::to_string);
                self.vars.set(name, value);
                self.vars.export(name);
                (name.clone(), old)
            })
            .collect();
        let outcome = builtins::run(self, sys, &argv, &mut io);
        for (name, old) in saved {
            match old {
                Some(value) => self.vars.set(&name, &value),
                None => self.vars.unset(&name),
            }
        }
        let mut piped = String::new();
        for (text, dest) in [(io.out, out_to), (io.err, err_to)] {
            if text.is_empty() {
                continue;
            }
            match dest {
                Dest::Default if !to_log => piped.push_str(&text),
                Dest::Default => sys.out(&text),
                Dest::Log => {
                    let now = sys.now;
                    sys.log.write(now, &text);
                }
                Dest::File(path) => {
                    let _ = sys.fs.write(&path, &text, true);
                }
            }
        }
        (outcome, piped)
    }
}

/// Where a stream goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Dest {
    /// Standard output: the log, a capture, or the next pipeline stage.
    Default,
    /// The log (standard error).
    Log,
    /// A file, appended to (it was truncated when the redirection opened it).
    File(String),
}
