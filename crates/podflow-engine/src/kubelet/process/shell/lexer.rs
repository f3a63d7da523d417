//! The shell's lexer: script text into words (with their quoting and
//! expansions kept apart) and operators, as POSIX `sh` (busybox ash) splits
//! them: "Token Recognition" of the Shell Command Language.

/// A piece of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Unquoted text (reserved words and field splitting see it).
    Lit(String),
    /// Quoted or escaped text: taken as is.
    Quoted(String),
    /// `$NAME`, `${NAME}`, `${NAME:-word}`, `${#NAME}`, `$?`, `$1` …
    Param {
        name: String,
        op: ParamOp,
        quoted: bool,
    },
    /// `$(…)` or `` `…` ``: the script inside.
    Command { script: String, quoted: bool },
    /// `$((…))`: the expression inside.
    Arith { expr: String, quoted: bool },
}

/// What `${NAME…}` does beyond naming a parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamOp {
    /// `$NAME`.
    Plain,
    /// `${#NAME}`.
    Length,
    /// `${NAME:-word}` (`colon`: also when empty) and `${NAME-word}`.
    Default { colon: bool, word: Word },
    /// `${NAME:=word}`.
    Assign { colon: bool, word: Word },
    /// `${NAME:+word}`.
    Alternative { colon: bool, word: Word },
}

/// A word: the parts written next to each other.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word(pub Vec<Part>);

impl Word {
    /// The word's text when it is one plain unquoted literal (reserved words, names).
    pub fn literal(&self) -> Option<&str> {
        match self.0.as_slice() {
            [Part::Lit(text)] => Some(text),
            _ => None,
        }
    }

    /// A word that is exactly `text`, quoted.
    pub fn quoted(text: &str) -> Word {
        Word(vec![Part::Quoted(text.to_string())])
    }
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirOp {
    /// `>`
    Out,
    /// `>>`
    Append,
    /// `<`
    In,
    /// `>&N`
    Dup,
    /// `&>`: stdout and stderr.
    Both,
}

/// A token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    Word(Word),
    /// `;` `&&` `||` `|` `&` `(` `)` `;;` and `\n`.
    Op(&'static str),
    Redir {
        fd: u32,
        op: RedirOp,
    },
}

/// Splits a script into tokens, or says what is wrong (busybox's wording).
pub fn lex(src: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = src.chars().collect();
    let mut lexer = Lexer { chars, pos: 0 };
    lexer.tokens()
}

/// Reads the word of a `${NAME:-word}` (its text, already cut out).
pub fn lex_word(src: &str) -> Result<Word, String> {
    let chars: Vec<char> = src.chars().collect();
    let mut lexer = Lexer { chars, pos: 0 };
    let mut word = Word::default();
    while lexer.pos < lexer.chars.len() {
        lexer.word_piece(&mut word, true)?;
    }
    Ok(word)
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
}

const EOF: &str = "syntax error: unexpected end of file";

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn tokens(&mut self) -> Result<Vec<Token>, String> {
        let mut out = Vec::new();
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' => self.pos += 1,
                '\\' if self.peek(1) == Some('\n') => self.pos += 2,
                '#' => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '\n' => {
                    self.pos += 1;
                    out.push(Token::Op("\n"));
                }
                ';' | '&' | '|' | '(' | ')' | '<' | '>' => out.push(self.operator(0)),
                d if d.is_ascii_digit() && self.redirect_fd().is_some() => {
                    let (fd, len) = self.redirect_fd().unwrap_or((1, 0));
                    self.pos += len;
                    out.push(self.operator(fd));
                }
                _ => {
                    let mut word = Word::default();
                    while self.peek(0).is_some_and(|c| !" \t\r\n;&|()<>".contains(c)) {
                        self.word_piece(&mut word, false)?;
                    }
                    out.push(Token::Word(word));
                }
            }
        }
        Ok(out)
    }

    /// `2>`: digits directly followed by `<` or `>` name a file descriptor.
    fn redirect_fd(&self) -> Option<(u32, usize)> {
        let digits = self.chars[self.pos..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let next = self.peek(digits)?;
        if next != '<' && next != '>' {
            return None;
        }
        let text: String = self.chars[self.pos..self.pos + digits].iter().collect();
        Some((text.parse().ok()?, digits))
    }

    fn operator(&mut self, fd: u32) -> Token {
        let two: String = self.chars[self.pos..].iter().take(2).collect();
        let (token, len) = match two.as_str() {
            "&&" => (Token::Op("&&"), 2),
            "||" => (Token::Op("||"), 2),
            ";;" => (Token::Op(";;"), 2),
            ">>" => (
                Token::Redir {
                    fd: fd.max(1),
                    op: RedirOp::Append,
                },
                2,
            ),
            ">&" => (
                Token::Redir {
                    fd: fd.max(1),
                    op: RedirOp::Dup,
                },
                2,
            ),
            "&>" => (
                Token::Redir {
                    fd: 1,
                    op: RedirOp::Both,
                },
                2,
            ),
            _ => match self.peek(0) {
                Some(';') => (Token::Op(";"), 1),
                Some('&') => (Token::Op("&"), 1),
                Some('|') => (Token::Op("|"), 1),
                Some('(') => (Token::Op("("), 1),
                Some(')') => (Token::Op(")"), 1),
                Some('<') => (
                    Token::Redir {
                        fd,
                        op: RedirOp::In,
                    },
                    1,
                ),
                _ => (
                    Token::Redir {
                        fd: fd.max(1),
                        op: RedirOp::Out,
                    },
                    1,
                ),
            },
        };
        self.pos += len;
        token
    }

    /// One piece of a word: a run of plain text, a quoted string or an expansion.
    /// `raw` reads to the end of the input (the word of `${NAME:-word}`).
    fn word_piece(&mut self, word: &mut Word, raw: bool) -> Result<(), String> {
        let c = self.peek(0).unwrap_or(' ');
        match c {
            '\'' => {
                self.pos += 1;
                let start = self.pos;
                while self.peek(0).is_some_and(|c| c != '\'') {
                    self.pos += 1;
                }
                if self.peek(0).is_none() {
                    return Err(EOF.to_string());
                }
                let text = self.chars[start..self.pos].iter().collect();
                self.pos += 1;
                push_text(word, text, true);
            }
            '"' => {
                self.pos += 1;
                self.double_quoted(word)?;
            }
            '\\' => {
                self.pos += 1;
                if let Some(next) = self.peek(0) {
                    self.pos += 1;
                    if next != '\n' {
                        push_text(word, next.to_string(), true);
                    }
                }
            }
            '$' => self.dollar(word, false)?,
            '`' => self.backquote(word, false)?,
            _ => {
                let start = self.pos;
                while self.peek(0).is_some_and(|c| {
                    !"'\"\\$`".contains(c) && (raw || !" \t\r\n;&|()<>".contains(c))
                }) {
                    self.pos += 1;
                }
                let text = self.chars[start..self.pos].iter().collect();
                push_text(word, text, false);
            }
        }
        Ok(())
    }

    fn double_quoted(&mut self, word: &mut Word) -> Result<(), String> {
        // An empty "" still makes a (quoted, empty) word.
        push_text(word, String::new(), true);
        loop {
            match self.peek(0) {
                None => return Err(EOF.to_string()),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    let next = self.peek(1);
                    self.pos += 2;
                    match next {
                        Some(c @ ('$' | '"' | '\\' | '`')) => push_text(word, c.to_string(), true),
                        Some('\n') => {}
                        Some(c) => push_text(word, format!("\\{c}"), true),
                        None => return Err(EOF.to_string()),
                    }
                }
                Some('$') => self.dollar(word, true)?,
                Some('`') => self.backquote(word, true)?,
                Some(c) => {
                    self.pos += 1;
                    push_text(word, c.to_string(), true);
                }
            }
        }
    }

    fn dollar(&mut self, word: &mut Word, quoted: bool) -> Result<(), String> {
        self.pos += 1;
        match self.peek(0) {
            Some('(') if self.peek(1) == Some('(') => {
                self.pos += 2;
                let expr = self.balanced('(', ')')?;
                if self.peek(0) != Some(')') {
                    return Err(EOF.to_string());
                }
                self.pos += 1;
                word.0.push(Part::Arith { expr, quoted });
            }
            Some('(') => {
                self.pos += 1;
                let script = self.balanced('(', ')')?;
                word.0.push(Part::Command { script, quoted });
            }
            Some('{') => {
                self.pos += 1;
                let inner = self.balanced('{', '}')?;
                word.0.push(braced(&inner, quoted)?);
            }
            Some(c) if "?$#@*!0123456789-".contains(c) => {
                self.pos += 1;
                word.0.push(Part::Param {
                    name: c.to_string(),
                    op: ParamOp::Plain,
                    quoted,
                });
            }
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self
                    .peek(0)
                    .is_some_and(|c| c == '_' || c.is_ascii_alphanumeric())
                {
                    self.pos += 1;
                }
                let name = self.chars[start..self.pos].iter().collect();
                word.0.push(Part::Param {
                    name,
                    op: ParamOp::Plain,
                    quoted,
                });
            }
            _ => push_text(word, "$".to_string(), quoted),
        }
        Ok(())
    }

    fn backquote(&mut self, word: &mut Word, quoted: bool) -> Result<(), String> {
        self.pos += 1;
        let start = self.pos;
        while self.peek(0).is_some_and(|c| c != '`') {
            self.pos += if self.peek(0) == Some('\\') { 2 } else { 1 };
        }
        if self.peek(0).is_none() {
            return Err(EOF.to_string());
        }
        let script = self.chars[start..self.pos].iter().collect();
        self.pos += 1;
        word.0.push(Part::Command { script, quoted });
        Ok(())
    }

    /// The text up to the `close` that balances an already-read `open`, skipping quotes.
    fn balanced(&mut self, open: char, close: char) -> Result<String, String> {
        let start = self.pos;
        let mut depth = 1;
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek(0) {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some('"') | None, '\\') => self.pos += 1,
                (None, '\'' | '"') => quote = Some(c),
                (None, c) if c == open => depth += 1,
                (None, c) if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        let text = self.chars[start..self.pos].iter().collect();
                        self.pos += 1;
                        return Ok(text);
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        Err(EOF.to_string())
    }
}

/// `${…}`'s inside: `NAME`, `#NAME`, `NAME:-word` and the like.
fn braced(inner: &str, quoted: bool) -> Result<Part, String> {
    let bad = || "syntax error: bad substitution".to_string();
    if let Some(name) = inner.strip_prefix('#').filter(|n| !n.is_empty()) {
        return Ok(Part::Param {
            name: name.to_string(),
            op: ParamOp::Length,
            quoted,
        });
    }
    let name_len = if inner.starts_with(|c: char| "?$#@*!-".contains(c) || c.is_ascii_digit()) {
        1
    } else {
        inner
            .find(|c: char| c != '_' && !c.is_ascii_alphanumeric())
            .unwrap_or(inner.len())
    };
    if name_len == 0 {
        return Err(bad());
    }
    let (name, rest) = inner.split_at(name_len);
    let (colon, rest) = match rest.strip_prefix(':') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let op = match rest.chars().next() {
        None if !colon => ParamOp::Plain,
        Some('-') => ParamOp::Default {
            colon,
            word: lex_word(&rest[1..])?,
        },
        Some('=') => ParamOp::Assign {
            colon,
            word: lex_word(&rest[1..])?,
        },
        Some('+') => ParamOp::Alternative {
            colon,
            word: lex_word(&rest[1..])?,
        },
        _ => return Err(bad()),
    };
    Ok(Part::Param {
        name: name.to_string(),
        op,
        quoted,
    })
}

/// Appends text to a word, joining it with the text before when the quoting matches.
fn push_text(word: &mut Word, text: String, quoted: bool) {
    match (word.0.last_mut(), quoted) {
        (Some(Part::Quoted(last)), true) | (Some(Part::Lit(last)), false) => last.push_str(&text),
        _ => word.0.push(if quoted {
            Part::Quoted(text)
        } else {
            Part::Lit(text)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(src: &str) -> Vec<String> {
        lex(src)
            .unwrap()
            .into_iter()
            .map(|t| match t {
                Token::Word(w) => format!("{:?}", w.0),
                Token::Op(op) => op.to_string(),
                Token::Redir { fd, op } => format!("{fd}{op:?}"),
            })
            .collect()
    }

    #[test]
    fn splits_words_operators_and_quotes() {
        assert_eq!(
            words("echo 'a b' \"c $X\"&&x 2>/dev/null # gone"),
            [
                r#"[Lit("echo")]"#,
                r#"[Quoted("a b")]"#,
                r#"[Quoted("c "), Param { name: "X", op: Plain, quoted: true }]"#,
                "&&",
                r#"[Lit("x")]"#,
                "2Out",
                r#"[Lit("/dev/null")]"#,
            ]
        );
        assert_eq!(
            words("a$(cat /f)b"),
            [r#"[Lit("a"), Command { script: "cat /f", quoted: false }, Lit("b")]"#]
        );
        assert_eq!(
            words("$((i+1))"),
            [r#"[Arith { expr: "i+1", quoted: false }]"#]
        );
        assert_eq!(lex("echo 'open").unwrap_err(), EOF);
    }
}
