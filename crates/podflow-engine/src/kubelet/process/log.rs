//! A container's output (what `kubectl logs` shows): complete lines with the
//! moment each was written, the unfinished last line kept apart. At most
//! [`MAX_LINES`] lines are kept (the oldest go first), as a log file rotated
//! by the kubelet would lose them, so a busy loop cannot exhaust memory.

use crate::clock::SimTime;

/// Lines kept at most.
pub const MAX_LINES: usize = 10_000;

/// Output written so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Log {
    lines: Vec<String>,
    times: Vec<SimTime>,
    partial: String,
}

impl Log {
    /// Writes `text` at `now`.
    pub fn write(&mut self, now: SimTime, text: &str) {
        let mut rest = text;
        while let Some(newline) = rest.find('\n') {
            self.partial.push_str(&rest[..newline]);
            self.lines.push(std::mem::take(&mut self.partial));
            self.times.push(now);
            rest = &rest[newline + 1..];
        }
        self.partial.push_str(rest);
        if self.lines.len() > MAX_LINES {
            let excess = self.lines.len() - MAX_LINES;
            self.lines.drain(..excess);
            self.times.drain(..excess);
        }
    }

    /// Ends the unfinished line (the program exited).
    pub fn flush(&mut self, now: SimTime) {
        if !self.partial.is_empty() {
            self.write(now, "\n");
        }
    }

    /// The complete lines.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// When each line was written.
    pub fn times(&self) -> &[SimTime] {
        &self.times
    }

    /// Everything as one text (what a `$(…)` captures).
    pub fn text(&self) -> String {
        let mut text = String::new();
        for line in &self.lines {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&self.partial);
        text
    }
}
