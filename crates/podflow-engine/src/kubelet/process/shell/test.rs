//! `test`, `[ … ]` and `[[ … ]]`: file tests (`-e -f -d -s`), string tests
//! (`-z -n = == !=`), integer comparisons (`-eq -ne -lt -le -gt -ge`), `!`,
//! `-a`/`-o` (and `&&`/`||` inside `[[ ]]`) and parentheses, as busybox's
//! `test` applet reads them.

use std::fmt::Write as _;

use super::{Io, Shell, Sys};
use crate::kubelet::process::fs::Fs;

/// Runs the test; 0 true, 1 false, 2 for a malformed expression.
pub fn test(sh: &Shell, sys: &Sys, name: &str, args: &[String], io: &mut Io) -> i32 {
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    let close = match name {
        "[" => Some("]"),
        "[[" => Some("]]"),
        _ => None,
    };
    if let Some(close) = close {
        if args.last() != Some(&close) {
            let _ = writeln!(io.err, "{name}: missing {close}");
            return 2;
        }
        args.pop();
    }
    if args.is_empty() {
        return 1;
    }
    let mut eval = Eval {
        args,
        pos: 0,
        sh,
        fs: sys.fs,
        error: None,
    };
    let value = eval.or();
    if eval.error.is_none() && eval.pos < eval.args.len() {
        eval.error = Some(format!("{}: unknown operand", eval.args[eval.pos]));
    }
    match eval.error {
        Some(message) => {
            let _ = writeln!(io.err, "{}: {message}", sh.name);
            2
        }
        None => i32::from(!value),
    }
}

struct Eval<'a> {
    args: Vec<&'a str>,
    pos: usize,
    sh: &'a Shell,
    fs: &'a Fs,
    error: Option<String>,
}

const BINARY: [&str; 11] = [
    "=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "<", ">",
];

impl<'a> Eval<'a> {
    fn peek(&self, ahead: usize) -> Option<&'a str> {
        self.args.get(self.pos + ahead).copied()
    }

    fn or(&mut self) -> bool {
        let mut value = self.and();
        while matches!(self.peek(0), Some("-o" | "||")) {
            self.pos += 1;
            value |= self.and();
        }
        value
    }

    fn and(&mut self) -> bool {
        let mut value = self.not();
        while matches!(self.peek(0), Some("-a" | "&&")) {
            self.pos += 1;
            value &= self.not();
        }
        value
    }

    fn not(&mut self) -> bool {
        if self.peek(0) == Some("!") && self.peek(1).is_some() {
            self.pos += 1;
            return !self.not();
        }
        self.primary()
    }

    fn primary(&mut self) -> bool {
        let Some(first) = self.peek(0) else {
            self.error = Some("argument expected".into());
            return false;
        };
        if first == "(" && self.args.len() > self.pos + 2 {
            self.pos += 1;
            let value = self.or();
            if self.peek(0) == Some(")") {
                self.pos += 1;
            } else {
                self.error = Some("missing )".into());
            }
            return value;
        }
        if let (Some(op), Some(right)) = (self.peek(1), self.peek(2))
            && BINARY.contains(&op)
        {
            self.pos += 3;
            return self.binary(first, op, right);
        }
        if first.len() == 2
            && first.starts_with('-')
            && let Some(operand) = self.peek(1)
        {
            self.pos += 2;
            return self.unary(first, operand);
        }
        self.pos += 1;
        !first.is_empty()
    }

    fn unary(&mut self, op: &str, operand: &str) -> bool {
        let path = self.sh.path(operand);
        let fs = self.fs;
        match op {
            "-z" => operand.is_empty(),
            "-n" => !operand.is_empty(),
            "-e" | "-r" | "-w" | "-x" => fs.exists(&path),
            "-f" => fs.is_file(&path),
            "-d" => fs.is_dir(&path),
            "-s" => fs.read(&path).is_ok_and(|t| !t.is_empty()),
            "-L" | "-h" | "-p" | "-S" | "-b" | "-c" | "-t" => false,
            _ => {
                self.error = Some(format!("{op}: unknown operand"));
                false
            }
        }
    }

    fn binary(&mut self, left: &str, op: &str, right: &str) -> bool {
        match op {
            "=" | "==" => return left == right,
            "!=" => return left != right,
            "<" => return left < right,
            ">" => return left > right,
            _ => {}
        }
        let number = |text: &str| {
            text.trim()
                .parse::<i64>()
                .map_err(|_| format!("{text}: bad number"))
        };
        let (l, r) = match (number(left), number(right)) {
            (Ok(l), Ok(r)) => (l, r),
            (Err(e), _) | (_, Err(e)) => {
                self.error = Some(e);
                return false;
            }
        };
        match op {
            "-eq" => l == r,
            "-ne" => l != r,
            "-lt" => l < r,
            "-le" => l <= r,
            "-gt" => l > r,
            _ => l >= r,
        }
    }
}
