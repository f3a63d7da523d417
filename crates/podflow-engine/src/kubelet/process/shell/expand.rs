//! Word expansion as POSIX `sh` does it: parameters (`$X`, `${X:-d}`, `$?`,
//! `$1`), command substitution, arithmetic, then field splitting of the
//! unquoted results on blanks. No pathname expansion (`*` stays as written).

use super::lexer::{ParamOp, Part, Word};
use super::{Shell, Sys};

impl Shell {
    /// Expands words into fields (the argv of a command).
    pub fn expand_words(&mut self, sys: &mut Sys, words: &[Word]) -> Vec<String> {
        let mut fields = Vec::new();
        for word in words {
            self.expand_into(sys, word, &mut fields, true);
        }
        fields
    }

    /// Expands one word without splitting (assignments, redirection targets).
    pub fn expand_single(&mut self, sys: &mut Sys, word: &Word) -> String {
        let mut fields = Vec::new();
        self.expand_into(sys, word, &mut fields, false);
        fields.join(" ")
    }

    fn expand_into(&mut self, sys: &mut Sys, word: &Word, fields: &mut Vec<String>, split: bool) {
        let mut current = String::new();
        let mut have = false;
        for part in &word.0 {
            let (value, quoted) = match part {
                Part::Lit(text) | Part::Quoted(text) => {
                    current.push_str(text);
                    have = true;
                    continue;
                }
                Part::Param { name, quoted, .. } if name == "@" && *quoted => {
                    for (i, arg) in self.args().iter().skip(1).enumerate() {
                        if i > 0 {
                            fields.push(std::mem::take(&mut current));
                        }
                        current.push_str(arg);
                        have = true;
                    }
                    continue;
                }
                Part::Param { name, op, quoted } => (self.param(sys, name, op), *quoted),
                Part::Command { script, quoted } => (self.substitute(sys, script), *quoted),
                Part::Arith { expr, quoted } => (self.arith(sys, expr), *quoted),
            };
            if quoted || !split {
                current.push_str(&value);
                have = true;
                continue;
            }
            for c in value.chars() {
                if c == ' ' || c == '\t' || c == '\n' {
                    if have {
                        fields.push(std::mem::take(&mut current));
                        have = false;
                    }
                } else {
                    current.push(c);
                    have = true;
                }
            }
        }
        if have {
            fields.push(current);
        }
    }

    /// The value of a parameter: special, positional or variable.
    fn lookup(&self, name: &str) -> Option<String> {
        let args = self.args();
        match name {
            "?" => Some(self.status.to_string()),
            "$" => Some("1".to_string()),
            "#" => Some(args.len().saturating_sub(1).to_string()),
            "@" | "*" => Some(args.iter().skip(1).cloned().collect::<Vec<_>>().join(" ")),
            "!" | "-" => Some(String::new()),
            digits if digits.chars().all(|c| c.is_ascii_digit()) => {
                args.get(digits.parse::<usize>().ok()?).cloned()
            }
            _ => self.vars.get(name).map(ToString::to_string),
        }
    }

    fn param(&mut self, sys: &mut Sys, name: &str, op: &ParamOp) -> String {
        let value = self.lookup(name);
        let is_set = |colon: bool| value.as_ref().is_some_and(|v| !colon || !v.is_empty());
        match op {
            ParamOp::Length => value.unwrap_or_default().chars().count().to_string(),
            ParamOp::Default { colon, word } if !is_set(*colon) => self.expand_single(sys, word),
            ParamOp::Assign { colon, word } if !is_set(*colon) => {
                let new = self.expand_single(sys, word);
                self.vars.set(name, &new);
                new
            }
            ParamOp::Alternative { colon, word } if is_set(*colon) => self.expand_single(sys, word),
            ParamOp::Alternative { .. } => String::new(),
            ParamOp::Default { .. } | ParamOp::Assign { .. } | ParamOp::Plain => {
                value.unwrap_or_default()
            }
        }
    }

    /// `$((expr))`; an error is printed as the shell prints it and gives 0.
    fn arith(&mut self, sys: &mut Sys, expr: &str) -> String {
        let text = if expr.contains('$') {
            let word = super::lexer::lex_word(expr).unwrap_or_default();
            self.expand_single(sys, &word)
        } else {
            expr.to_string()
        };
        let mut eval = Arith {
            chars: text.chars().collect(),
            pos: 0,
            shell: self,
        };
        match eval.expr(0) {
            Ok(value) if eval.at_end() => value.to_string(),
            Ok(_) | Err(()) => {
                let now = sys.now;
                sys.log
                    .write(now, &format!("{}: arithmetic syntax error\n", self.name));
                "0".to_string()
            }
        }
    }
}

/// A precedence-climbing evaluator for `$((…))`.
struct Arith<'s> {
    chars: Vec<char>,
    pos: usize,
    shell: &'s Shell,
}

const BINARY: [(&str, u8); 13] = [
    ("||", 1),
    ("&&", 2),
    ("==", 3),
    ("!=", 3),
    ("<=", 4),
    (">=", 4),
    ("<", 4),
    (">", 4),
    ("+", 5),
    ("-", 5),
    ("*", 6),
    ("/", 6),
    ("%", 6),
];

impl Arith<'_> {
    fn skip(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn at_end(&mut self) -> bool {
        self.skip();
        self.pos >= self.chars.len()
    }

    fn operator(&mut self) -> Option<(&'static str, u8)> {
        self.skip();
        let rest: String = self.chars[self.pos..].iter().take(2).collect();
        BINARY.into_iter().find(|(op, _)| rest.starts_with(op))
    }

    fn expr(&mut self, min: u8) -> Result<i64, ()> {
        let mut left = self.unary()?;
        while let Some((op, prec)) = self.operator().filter(|(_, p)| *p > min) {
            self.pos += op.len();
            let right = self.expr(prec)?;
            left = match op {
                "||" => i64::from(left != 0 || right != 0),
                "&&" => i64::from(left != 0 && right != 0),
                "==" => i64::from(left == right),
                "!=" => i64::from(left != right),
                "<=" => i64::from(left <= right),
                ">=" => i64::from(left >= right),
                "<" => i64::from(left < right),
                ">" => i64::from(left > right),
                "+" => left.wrapping_add(right),
                "-" => left.wrapping_sub(right),
                "*" => left.wrapping_mul(right),
                "/" => left.checked_div(right).ok_or(())?,
                _ => left.checked_rem(right).ok_or(())?,
            };
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<i64, ()> {
        self.skip();
        match self.chars.get(self.pos).copied() {
            Some('-') => {
                self.pos += 1;
                Ok(self.unary()?.wrapping_neg())
            }
            Some('+') => {
                self.pos += 1;
                self.unary()
            }
            Some('!') => {
                self.pos += 1;
                Ok(i64::from(self.unary()? == 0))
            }
            Some('(') => {
                self.pos += 1;
                let value = self.expr(0)?;
                self.skip();
                if self.chars.get(self.pos) != Some(&')') {
                    return Err(());
                }
                self.pos += 1;
                Ok(value)
            }
            Some(c) if c.is_ascii_digit() => Ok(self
                .take(|c| c.is_ascii_alphanumeric())
                .parse()
                .map_err(|_| ())?),
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                let name = self.take(|c| c == '_' || c.is_ascii_alphanumeric());
                let value = self.shell.vars.get(&name).unwrap_or("0").trim();
                Ok(if value.is_empty() {
                    0
                } else {
                    value.parse().map_err(|_| ())?
                })
            }
            _ => Err(()),
        }
    }

    fn take(&mut self, keep: impl Fn(char) -> bool) -> String {
        let start = self.pos;
        while self.chars.get(self.pos).is_some_and(|c| keep(*c)) {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }
}
