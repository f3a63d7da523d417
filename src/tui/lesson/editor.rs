//! The editor pane of a lesson: the student changes one of the lesson's own
//! manifests (`files:`), saves it (Ctrl-S), and the commands of the `:` bar
//! read the saved text from then on. A plain line editor over characters,
//! so wide (Chinese) text and multi-byte input never split a character.

/// A key of the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKey {
    Char(char),
    Enter,
    Backspace,
    Delete,
    Left,
    Right,
    Up,
    Down,
    Home,
    End,
    /// Two spaces: YAML indents with spaces, never tabs.
    Tab,
    /// Ctrl-N: the lesson's next file.
    NextFile,
    /// Ctrl-S: keep the text for the lesson's commands.
    Save,
    /// Esc: close the editor (saved text stays saved, unsaved edits wait for `e`).
    Close,
}

/// One file being edited: its lines and the cursor (row, column in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Buffer {
    name: String,
    lines: Vec<Vec<char>>,
    row: usize,
    col: usize,
    /// Changed since it was opened or last saved.
    dirty: bool,
}

impl Buffer {
    fn new(name: String, text: &str) -> Buffer {
        let mut lines: Vec<Vec<char>> = text.lines().map(|l| l.chars().collect()).collect();
        if lines.is_empty() {
            lines.push(Vec::new());
        }
        Buffer {
            name,
            lines,
            row: 0,
            col: 0,
            dirty: false,
        }
    }

    fn line_len(&self) -> usize {
        self.lines[self.row].len()
    }

    fn edit(&mut self, key: EditKey) {
        match key {
            EditKey::Char(c) => self.insert(c),
            EditKey::Tab => {
                self.insert(' ');
                self.insert(' ');
            }
            EditKey::Enter => {
                let rest = self.lines[self.row].split_off(self.col);
                self.lines.insert(self.row + 1, rest);
                self.row += 1;
                self.col = 0;
                self.dirty = true;
            }
            EditKey::Backspace if self.col > 0 => {
                self.col -= 1;
                self.lines[self.row].remove(self.col);
                self.dirty = true;
            }
            EditKey::Backspace if self.row > 0 => {
                let line = self.lines.remove(self.row);
                self.row -= 1;
                self.col = self.line_len();
                self.lines[self.row].extend(line);
                self.dirty = true;
            }
            EditKey::Delete if self.col < self.line_len() => {
                self.lines[self.row].remove(self.col);
                self.dirty = true;
            }
            EditKey::Delete if self.row + 1 < self.lines.len() => {
                let next = self.lines.remove(self.row + 1);
                self.lines[self.row].extend(next);
                self.dirty = true;
            }
            EditKey::Left if self.col > 0 => self.col -= 1,
            EditKey::Left if self.row > 0 => {
                self.row -= 1;
                self.col = self.line_len();
            }
            EditKey::Right if self.col < self.line_len() => self.col += 1,
            EditKey::Right if self.row + 1 < self.lines.len() => {
                self.row += 1;
                self.col = 0;
            }
            EditKey::Up if self.row > 0 => {
                self.row -= 1;
                self.col = self.col.min(self.line_len());
            }
            EditKey::Down if self.row + 1 < self.lines.len() => {
                self.row += 1;
                self.col = self.col.min(self.line_len());
            }
            EditKey::Home => self.col = 0,
            EditKey::End => self.col = self.line_len(),
            _ => {}
        }
    }

    fn insert(&mut self, c: char) {
        if c.is_control() {
            return;
        }
        self.lines[self.row].insert(self.col, c);
        self.col += 1;
        self.dirty = true;
    }

    fn text(&self) -> String {
        let mut text: String = self
            .lines
            .iter()
            .map(|l| l.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("\n");
        text.push('\n');
        text
    }
}

/// The editor over the lesson's files, one shown at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editor {
    buffers: Vec<Buffer>,
    shown: usize,
    /// What the last save said, and whether the manifests read:
    /// `saved db.yaml`, or the manifest's error.
    pub message: Option<(bool, String)>,
    /// The cluster object `:edit` opened, when the editor shows one rather
    /// than the lesson's files.
    pub target: Option<EditTarget>,
}

/// The object `:edit KIND NAME` opened and the text it was shown as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditTarget {
    pub kind: &'static podflow_model::Kind,
    pub name: String,
    pub namespace: Option<String>,
    pub shown: String,
}

impl Editor {
    /// An editor over `files` (name, text), showing the one named `first`
    /// (or the first file).
    pub fn new(files: Vec<(String, String)>, first: Option<&str>) -> Editor {
        let shown = first
            .and_then(|f| files.iter().position(|(name, _)| name == f))
            .unwrap_or(0);
        let mut buffers: Vec<Buffer> = files
            .into_iter()
            .map(|(name, text)| Buffer::new(name, &text))
            .collect();
        if buffers.is_empty() {
            buffers.push(Buffer::new(String::new(), ""));
        }
        Editor {
            buffers,
            shown,
            message: None,
            target: None,
        }
    }

    fn buffer(&self) -> &Buffer {
        &self.buffers[self.shown]
    }

    /// An editing or moving key (Save and Close are the app's to handle).
    pub fn edit(&mut self, key: EditKey) {
        if key == EditKey::NextFile {
            self.shown = (self.shown + 1) % self.buffers.len();
            self.message = None;
            return;
        }
        self.buffers[self.shown].edit(key);
    }

    /// The shown file's name.
    pub fn name(&self) -> &str {
        &self.buffer().name
    }

    /// The shown file's text, ending with a newline.
    pub fn text(&self) -> String {
        self.buffer().text()
    }

    /// The shown file's lines.
    pub fn lines(&self) -> impl Iterator<Item = String> + '_ {
        self.buffer().lines.iter().map(|l| l.iter().collect())
    }

    /// The cursor: row and column, in characters.
    pub fn cursor(&self) -> (usize, usize) {
        (self.buffer().row, self.buffer().col)
    }

    /// Whether the shown file changed since it was opened or saved.
    pub fn dirty(&self) -> bool {
        self.buffer().dirty
    }

    /// The files changed since they were opened or saved, by name.
    pub fn unsaved(&self) -> Vec<String> {
        self.buffers
            .iter()
            .filter(|b| b.dirty)
            .map(|b| b.name.clone())
            .collect()
    }

    /// The shown file was saved; `ok` when its manifests read.
    pub fn saved(&mut self, ok: bool, message: String) {
        self.buffers[self.shown].dirty = false;
        self.message = Some((ok, message));
    }

    /// Which file shows (0-based).
    pub fn shown(&self) -> usize {
        self.shown
    }

    /// How many files the editor holds.
    pub fn files(&self) -> usize {
        self.buffers.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn editor(text: &str) -> Editor {
        Editor::new(vec![("pod.yaml".into(), text.into())], None)
    }

    fn keys(e: &mut Editor, keys: &[EditKey]) {
        for k in keys {
            e.edit(*k);
        }
    }

    fn typed(e: &mut Editor, text: &str) {
        for c in text.chars() {
            e.edit(if c == '\n' {
                EditKey::Enter
            } else {
                EditKey::Char(c)
            });
        }
    }

    #[test]
    fn typing_inserts_at_the_cursor_and_enter_splits_the_line() {
        let mut e = editor("spec:\n  nodeName: a\n");
        keys(&mut e, &[EditKey::Down, EditKey::End]);
        typed(&mut e, "b\n  x: 1");
        assert_eq!(e.text(), "spec:\n  nodeName: ab\n  x: 1\n");
        assert_eq!(e.cursor(), (2, 6));
        assert!(e.dirty());
    }

    #[test]
    fn backspace_and_delete_join_lines_at_their_ends() {
        let mut e = editor("ab\ncd\n");
        keys(&mut e, &[EditKey::Down, EditKey::Backspace]);
        assert_eq!(e.text(), "abcd\n");
        assert_eq!(e.cursor(), (0, 2));
        keys(&mut e, &[EditKey::Home, EditKey::Delete]);
        assert_eq!(e.text(), "bcd\n");
        keys(&mut e, &[EditKey::End, EditKey::Delete, EditKey::Right]);
        assert_eq!(e.text(), "bcd\n", "nothing to join at the end");
        // At the very start, backspace does nothing.
        keys(&mut e, &[EditKey::Home, EditKey::Backspace]);
        assert_eq!(e.text(), "bcd\n");
    }

    #[test]
    fn moving_keeps_the_cursor_inside_the_text() {
        let mut e = editor("long line\nx\n");
        keys(&mut e, &[EditKey::End, EditKey::Down]);
        assert_eq!(e.cursor(), (1, 1), "clamped to the shorter line");
        keys(&mut e, &[EditKey::Down, EditKey::Right, EditKey::Right]);
        assert_eq!(e.cursor(), (1, 1), "no line below, no column past the end");
        keys(&mut e, &[EditKey::Home, EditKey::Left]);
        assert_eq!(e.cursor(), (0, 9), "left from a line start goes up");
        keys(&mut e, &[EditKey::Right]);
        assert_eq!(e.cursor(), (1, 0), "right from a line end goes down");
    }

    #[test]
    fn characters_not_bytes_and_no_control_characters() {
        let mut e = editor("名字: x\n");
        keys(
            &mut e,
            &[EditKey::Right, EditKey::Right, EditKey::Backspace],
        );
        assert_eq!(e.text(), "名: x\n");
        e.edit(EditKey::Char('\u{7}'));
        e.edit(EditKey::Tab);
        assert_eq!(e.text(), "名  : x\n");
    }

    #[test]
    fn files_cycle_and_open_at_the_one_asked_for() {
        let mut e = Editor::new(
            vec![
                ("a.yaml".into(), "a\n".into()),
                ("b.yaml".into(), "b\n".into()),
            ],
            Some("b.yaml"),
        );
        assert_eq!(e.name(), "b.yaml");
        typed(&mut e, "x");
        e.edit(EditKey::NextFile);
        assert_eq!((e.name(), e.text().as_str()), ("a.yaml", "a\n"));
        e.edit(EditKey::NextFile);
        assert_eq!(e.text(), "xb\n", "each file keeps its edits");
        e.saved(true, "saved b.yaml".into());
        assert!(!e.dirty());
        assert_eq!(e.files(), 2);
    }
}
