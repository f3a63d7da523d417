//! Turns a parsed script into a flat list of instructions with jumps, so the
//! interpreter can stop anywhere (at a `sleep`) and resume later from a
//! program counter instead of from a Rust call stack.

use std::sync::Arc;

use super::lexer::Word;
use super::parse::{AndOr, Command, List, Pipeline, Redir};

/// A simple command, ready to expand and run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simple {
    pub assigns: Vec<(String, Word)>,
    pub words: Vec<Word>,
    pub redirs: Vec<Redir>,
}

/// One instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ins {
    /// Runs a simple command.
    Run(Arc<Simple>),
    /// Runs the simple commands of `A | B | C`, each one's output the next one's input.
    Pipe(Arc<Vec<Simple>>),
    /// `!`: inverts the last status.
    Not,
    /// Jumps when the last status is 0.
    IfZero(usize),
    /// Jumps when the last status is not 0.
    IfNonZero(usize),
    /// Jumps.
    Jump(usize),
    /// Sets the last status.
    Status(i32),
    /// Starts a `for` loop: expands the items (or takes `"$@"`).
    ForInit {
        var: String,
        items: Option<Vec<Word>>,
    },
    /// Sets the variable to the next item, or jumps to `end` when there is none.
    ForNext { end: usize },
    /// Ends a `for` loop.
    ForPop,
}

/// Compiles a list, or says which construct is not supported.
pub fn compile(list: &List) -> Result<Arc<[Ins]>, String> {
    let mut c = Compiler::default();
    c.list(list)?;
    Ok(c.code.into())
}

struct LoopCx {
    head: usize,
    breaks: Vec<usize>,
}

#[derive(Default)]
struct Compiler {
    code: Vec<Ins>,
    loops: Vec<LoopCx>,
}

impl Compiler {
    fn emit(&mut self, ins: Ins) -> usize {
        self.code.push(ins);
        self.code.len() - 1
    }

    fn patch(&mut self, at: usize, target: usize) {
        match &mut self.code[at] {
            Ins::IfZero(t) | Ins::IfNonZero(t) | Ins::Jump(t) | Ins::ForNext { end: t } => {
                *t = target;
            }
            _ => {}
        }
    }

    fn list(&mut self, list: &List) -> Result<(), String> {
        list.iter().try_for_each(|and_or| self.and_or(and_or))
    }

    fn and_or(&mut self, and_or: &AndOr) -> Result<(), String> {
        self.pipeline(&and_or.first)?;
        for (and, pipeline) in &and_or.rest {
            let skip = self.emit(if *and {
                Ins::IfNonZero(0)
            } else {
                Ins::IfZero(0)
            });
            self.pipeline(pipeline)?;
            let here = self.code.len();
            self.patch(skip, here);
        }
        Ok(())
    }

    fn pipeline(&mut self, pipeline: &Pipeline) -> Result<(), String> {
        if let [single] = pipeline.commands.as_slice() {
            self.command(single)?;
        } else {
            let mut stages = Vec::new();
            for command in &pipeline.commands {
                match command {
                    Command::Simple {
                        assigns,
                        words,
                        redirs,
                    } => stages.push(Simple {
                        assigns: assigns.clone(),
                        words: words.clone(),
                        redirs: redirs.clone(),
                    }),
                    _ => return Err("compound commands in a pipeline are not simulated".into()),
                }
            }
            self.emit(Ins::Pipe(Arc::new(stages)));
        }
        if pipeline.negate {
            self.emit(Ins::Not);
        }
        Ok(())
    }

    fn command(&mut self, command: &Command) -> Result<(), String> {
        match command {
            Command::Simple {
                assigns,
                words,
                redirs,
            } => {
                let keyword = words.first().and_then(Word::literal);
                if assigns.is_empty() && matches!(keyword, Some("break" | "continue")) {
                    if let Some(cx) = self.loops.last() {
                        let head = cx.head;
                        if keyword == Some("break") {
                            let at = self.emit(Ins::Jump(0));
                            if let Some(cx) = self.loops.last_mut() {
                                cx.breaks.push(at);
                            }
                        } else {
                            self.emit(Ins::Jump(head));
                        }
                        return Ok(());
                    }
                    self.emit(Ins::Status(0));
                    return Ok(());
                }
                self.emit(Ins::Run(Arc::new(Simple {
                    assigns: assigns.clone(),
                    words: words.clone(),
                    redirs: redirs.clone(),
                })));
            }
            Command::Group(list) => self.list(list)?,
            Command::If {
                branches,
                otherwise,
            } => {
                let mut ends = Vec::new();
                for (cond, body) in branches {
                    self.list(cond)?;
                    let next = self.emit(Ins::IfNonZero(0));
                    self.list(body)?;
                    ends.push(self.emit(Ins::Jump(0)));
                    let here = self.code.len();
                    self.patch(next, here);
                }
                match otherwise {
                    Some(list) => self.list(list)?,
                    None => {
                        self.emit(Ins::Status(0));
                    }
                }
                let end = self.code.len();
                for at in ends {
                    self.patch(at, end);
                }
            }
            Command::Loop { until, cond, body } => {
                let head = self.code.len();
                self.list(cond)?;
                let exit = self.emit(if *until {
                    Ins::IfZero(0)
                } else {
                    Ins::IfNonZero(0)
                });
                self.body(head, body, exit, false)?;
            }
            Command::For { var, items, body } => {
                self.emit(Ins::ForInit {
                    var: var.clone(),
                    items: items.clone(),
                });
                let head = self.code.len();
                let next = self.emit(Ins::ForNext { end: 0 });
                self.body(head, body, next, true)?;
            }
        }
        Ok(())
    }

    /// A loop's body, the jump back to `head`, and the way out (`exit` and `break`s).
    fn body(&mut self, head: usize, body: &List, exit: usize, pop: bool) -> Result<(), String> {
        self.loops.push(LoopCx {
            head,
            breaks: Vec::new(),
        });
        self.list(body)?;
        self.emit(Ins::Jump(head));
        let cx = self.loops.pop().unwrap_or(LoopCx {
            head,
            breaks: Vec::new(),
        });
        let end = self.code.len();
        self.patch(exit, end);
        for at in cx.breaks {
            self.patch(at, end);
        }
        if pop {
            self.emit(Ins::ForPop);
        }
        self.emit(Ins::Status(0));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    #[test]
    fn loops_jump_back_and_out() {
        let code = compile(&parse("while true; do sleep 1; done").unwrap()).unwrap();
        assert!(matches!(code[1], Ins::IfNonZero(4)));
        assert_eq!(code[3], Ins::Jump(0));
        assert_eq!(code[4], Ins::Status(0));
        let code = compile(&parse("for x in a; do break; done").unwrap()).unwrap();
        assert_eq!(code[1], Ins::ForNext { end: 4 });
        assert_eq!(code[2], Ins::Jump(4));
        assert_eq!(code[4], Ins::ForPop);
    }
}
