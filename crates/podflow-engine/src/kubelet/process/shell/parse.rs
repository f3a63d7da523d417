//! The shell's parser: tokens into lists, and-or lists, pipelines and the
//! compound commands (`if`, `while`, `until`, `for`, `{ … }`, `( … )`), as the
//! POSIX Shell Command Language grammar has them. Errors read as busybox ash's
//! (`syntax error: unexpected "done"`).

use super::lexer::{RedirOp, Token, Word, lex};

/// A redirection of one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redir {
    pub fd: u32,
    pub op: RedirOp,
    pub target: Word,
}

/// One command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `NAME=value … word … redirections`.
    Simple {
        assigns: Vec<(String, Word)>,
        words: Vec<Word>,
        redirs: Vec<Redir>,
    },
    /// `if A; then B; elif C; then D; else E; fi`.
    If {
        branches: Vec<(List, List)>,
        otherwise: Option<List>,
    },
    /// `while`/`until A; do B; done`.
    Loop { until: bool, cond: List, body: List },
    /// `for NAME [in WORDS]; do BODY; done`.
    For {
        var: String,
        items: Option<Vec<Word>>,
        body: List,
    },
    /// `{ … }` and `( … )` (a subshell runs in the same shell here).
    Group(List),
}

/// `[!] A | B | C`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    pub negate: bool,
    pub commands: Vec<Command>,
}

/// `A && B || C`: the first pipeline, then each joined with `&&` (true) or `||`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(bool, Pipeline)>,
}

/// Commands run one after the other.
pub type List = Vec<AndOr>;

/// Parses a script.
pub fn parse(src: &str) -> Result<List, String> {
    let tokens = lex(src)?;
    let mut parser = Parser { tokens, pos: 0 };
    let list = parser.list(&[])?;
    match parser.tokens.get(parser.pos) {
        None => Ok(list),
        Some(token) => Err(unexpected(token)),
    }
}

const RESERVED: [&str; 12] = [
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "{", "}",
];

fn unexpected(token: &Token) -> String {
    let text = match token {
        Token::Word(w) => w.literal().unwrap_or("word").to_string(),
        Token::Op("\n") => "newline".to_string(),
        Token::Op(op) => (*op).to_string(),
        Token::Redir { .. } => "redirection".to_string(),
    };
    format!("syntax error: unexpected \"{text}\"")
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    /// The reserved word at the cursor, if any.
    fn keyword(&self) -> Option<&str> {
        match self.peek() {
            Some(Token::Word(w)) => w.literal().filter(|l| RESERVED.contains(l) || *l == "!"),
            _ => None,
        }
    }

    fn skip_newlines(&mut self) {
        while matches!(self.peek(), Some(Token::Op("\n"))) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, keyword: &str) -> Result<(), String> {
        if self.keyword() == Some(keyword) {
            self.pos += 1;
            return Ok(());
        }
        Err(match self.peek() {
            Some(token) => unexpected(token),
            None => format!("syntax error: unexpected end of file (expecting \"{keyword}\")"),
        })
    }

    /// A list up to one of the `stops` reserved words (or `)` or the end).
    fn list(&mut self, stops: &[&str]) -> Result<List, String> {
        let mut list = Vec::new();
        loop {
            self.skip_newlines();
            match self.peek() {
                None | Some(Token::Op(")")) => break,
                Some(_) if self.keyword().is_some_and(|k| stops.contains(&k)) => break,
                _ => {}
            }
            list.push(self.and_or()?);
            match self.peek() {
                Some(Token::Op(";" | "\n" | "&")) => self.pos += 1,
                None | Some(Token::Op(")")) => {}
                Some(_) if self.keyword().is_some_and(|k| stops.contains(&k)) => {}
                Some(token) => return Err(unexpected(token)),
            }
        }
        Ok(list)
    }

    fn and_or(&mut self) -> Result<AndOr, String> {
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        while let Some(Token::Op(op @ ("&&" | "||"))) = self.peek() {
            let and = *op == "&&";
            self.pos += 1;
            while matches!(self.peek(), Some(Token::Op("\n"))) {
                self.pos += 1;
            }
            rest.push((and, self.pipeline()?));
        }
        Ok(AndOr { first, rest })
    }

    fn pipeline(&mut self) -> Result<Pipeline, String> {
        let negate = self.keyword() == Some("!");
        if negate {
            self.pos += 1;
        }
        let mut commands = vec![self.command()?];
        while let Some(Token::Op("|")) = self.peek() {
            self.pos += 1;
            commands.push(self.command()?);
        }
        Ok(Pipeline { negate, commands })
    }

    fn command(&mut self) -> Result<Command, String> {
        match self.keyword() {
            Some("if") => {
                self.pos += 1;
                self.if_rest()
            }
            Some(kw @ ("while" | "until")) => {
                let until = kw == "until";
                self.pos += 1;
                let cond = self.list(&["do"])?;
                self.expect("do")?;
                let body = self.list(&["done"])?;
                self.expect("done")?;
                Ok(Command::Loop { until, cond, body })
            }
            Some("for") => {
                self.pos += 1;
                self.for_rest()
            }
            Some("{") => {
                self.pos += 1;
                let body = self.list(&["}"])?;
                self.expect("}")?;
                Ok(Command::Group(body))
            }
            Some(_) => Err(unexpected(self.peek().unwrap_or(&Token::Op("\n")))),
            None if matches!(self.peek(), Some(Token::Op("("))) => {
                self.pos += 1;
                let body = self.list(&[])?;
                match self.peek() {
                    Some(Token::Op(")")) => self.pos += 1,
                    Some(token) => return Err(unexpected(token)),
                    None => return Err("syntax error: unexpected end of file".into()),
                }
                Ok(Command::Group(body))
            }
            None => self.simple(),
        }
    }

    fn if_rest(&mut self) -> Result<Command, String> {
        let mut branches = Vec::new();
        let mut otherwise = None;
        loop {
            let cond = self.list(&["then"])?;
            self.expect("then")?;
            let body = self.list(&["elif", "else", "fi"])?;
            branches.push((cond, body));
            match self.keyword() {
                Some("elif") => self.pos += 1,
                Some("else") => {
                    self.pos += 1;
                    otherwise = Some(self.list(&["fi"])?);
                    self.expect("fi")?;
                    break;
                }
                _ => {
                    self.expect("fi")?;
                    break;
                }
            }
        }
        Ok(Command::If {
            branches,
            otherwise,
        })
    }

    fn for_rest(&mut self) -> Result<Command, String> {
        let var = match self.peek() {
            Some(Token::Word(w)) if w.literal().is_some() => w.literal().unwrap_or("").to_string(),
            Some(token) => return Err(unexpected(token)),
            None => return Err("syntax error: unexpected end of file".into()),
        };
        self.pos += 1;
        while matches!(self.peek(), Some(Token::Op("\n"))) {
            self.pos += 1;
        }
        let mut items = None;
        if matches!(self.peek(), Some(Token::Word(w)) if w.literal() == Some("in")) {
            self.pos += 1;
            let mut words = Vec::new();
            while let Some(Token::Word(w)) = self.peek() {
                words.push(w.clone());
                self.pos += 1;
            }
            items = Some(words);
        }
        if matches!(self.peek(), Some(Token::Op(";"))) {
            self.pos += 1;
        }
        self.skip_newlines();
        self.expect("do")?;
        let body = self.list(&["done"])?;
        self.expect("done")?;
        Ok(Command::For { var, items, body })
    }

    fn simple(&mut self) -> Result<Command, String> {
        let mut assigns = Vec::new();
        let mut words = Vec::new();
        let mut redirs = Vec::new();
        loop {
            match self.peek().cloned() {
                Some(Token::Word(word)) => {
                    self.pos += 1;
                    match assignment(&word).filter(|_| words.is_empty()) {
                        Some(pair) => assigns.push(pair),
                        None => words.push(word),
                    }
                }
                Some(Token::Redir { fd, op }) => {
                    self.pos += 1;
                    match self.peek() {
                        Some(Token::Word(target)) => {
                            redirs.push(Redir {
                                fd,
                                op,
                                target: target.clone(),
                            });
                            self.pos += 1;
                        }
                        Some(token) => return Err(unexpected(token)),
                        None => return Err("syntax error: unexpected newline".into()),
                    }
                }
                _ => break,
            }
        }
        if assigns.is_empty() && words.is_empty() && redirs.is_empty() {
            return Err(match self.peek() {
                Some(token) => unexpected(token),
                None => "syntax error: unexpected end of file".into(),
            });
        }
        Ok(Command::Simple {
            assigns,
            words,
            redirs,
        })
    }
}

/// `NAME=value` at the start of a simple command.
fn assignment(word: &Word) -> Option<(String, Word)> {
    let super::lexer::Part::Lit(first) = word.0.first()? else {
        return None;
    };
    let eq = first.find('=')?;
    let name = &first[..eq];
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
    if !valid {
        return None;
    }
    let mut value = word.clone();
    value.0[0] = super::lexer::Part::Lit(first[eq + 1..].to_string());
    Some((name.to_string(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_compound_commands() {
        for src in [
            "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600",
            "until nslookup x; do echo waiting; sleep 2; done",
            "while true; do echo hello; sleep 10;done",
            "if [ -e /f ]; then cat /f; elif true; then :; else echo no; fi",
            "for i in 1 2 3\ndo echo $i\ndone",
            "{ echo a; echo b; } && (exit 1) || ! false | cat",
            "A=1 B=\"x y\" env > /tmp/out 2>&1",
        ] {
            assert!(parse(src).is_ok(), "{src}: {:?}", parse(src));
        }
    }

    #[test]
    fn errors_read_as_busybox_ash() {
        for (src, message) in [
            ("done", "syntax error: unexpected \"done\""),
            (
                "while true; do echo",
                "syntax error: unexpected end of file (expecting \"done\")",
            ),
            (
                "if true; then echo; fi fi",
                "syntax error: unexpected \"fi\"",
            ),
            ("echo a &&", "syntax error: unexpected end of file"),
            ("; echo", "syntax error: unexpected \";\""),
        ] {
            assert_eq!(parse(src).unwrap_err(), message, "{src}");
        }
    }
}
