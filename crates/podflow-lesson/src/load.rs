//! Reads a lesson file into a [`Lesson`]: YAML through `serde-saphyr`, every
//! error as `file:line:col: message` (an [`InputError`], as manifests and
//! cluster files report theirs). A lesson is data only: the files it names
//! are its own inline `files:` or paths inside its folder, never outside.

use std::path::{Component, Path, PathBuf};

use serde_saphyr::Spanned;

use super::format::LessonFile;
use podflow_engine::kubectl::FileObject;
use podflow_scenario::{self as scenario, InputError, Location};

/// A lesson read from its file.
#[derive(Debug, Clone)]
pub struct Lesson {
    /// The file as errors name it (`lessons/01-apply-to-running.yaml`).
    pub file: String,
    /// The folder its paths are relative to; `None` for a lesson built into
    /// podflow, which may name only its inline files.
    pub folder: Option<PathBuf>,
    pub doc: LessonFile,
}

/// The place of a spanned value in `file`.
pub fn location(file: &str, place: &serde_saphyr::Location) -> Location {
    let n = |v: u64| usize::try_from(v).unwrap_or(usize::MAX).max(1);
    Location::new(file, n(place.line()), n(place.column()))
}

/// saphyr's message without its snippet and place.
fn problem(error: &serde_saphyr::Error) -> String {
    let text = error.without_snippet().to_string();
    let first = text.lines().next().unwrap_or_default().trim();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let first = match first.split_once(": ") {
        Some((place, rest)) if place.starts_with("line ") => rest,
        _ => first,
    };
    let first = first.rfind(" at line ").map_or(first, |i| &first[..i]);
    // A hint to saphyr's caller, not to the author of the lesson.
    first
        .strip_suffix(", set DuplicateKeyPolicy in Options if acceptable")
        .unwrap_or(first)
        .to_owned()
}

impl Lesson {
    /// Reads lesson `text`, named `file` in errors, its paths relative to `folder`.
    pub fn parse(file: &str, text: &str, folder: Option<PathBuf>) -> Result<Lesson, InputError> {
        let doc: LessonFile = serde_saphyr::from_str(text).map_err(|e| {
            let at = e
                .location()
                .map_or_else(|| Location::new(file, 1, 1), |l| location(file, &l));
            InputError::at(&at, problem(&e))
        })?;
        Ok(Lesson {
            file: file.to_owned(),
            folder,
            doc,
        })
    }

    /// Reads the lesson file at `path`.
    pub fn load(path: &str) -> Result<Lesson, InputError> {
        let bytes = scenario::read_file(path)?;
        // Refused as a manifest is: a binary file or bytes that are not UTF-8, with their place.
        let text = scenario::decode(path, &bytes)?;
        let folder = Path::new(path)
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        Lesson::parse(path, &text, Some(folder))
    }

    /// The lesson's id.
    pub fn id(&self) -> &str {
        &self.doc.id.value
    }

    /// The place of a spanned value of this lesson.
    pub fn at<T>(&self, spanned: &Spanned<T>) -> Location {
        location(&self.file, &spanned.referenced)
    }

    /// The file `name` inside the lesson's folder, refusing a path that
    /// leaves it (absolute, or with `..`).
    pub fn path(&self, name: &str, at: &Location) -> Result<PathBuf, InputError> {
        let path = Path::new(name);
        let inside = !name.is_empty()
            && path
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(InputError::at(
                at,
                format!(
                    "the path {name:?} is outside the lesson's folder; a lesson may only name its own files"
                ),
            ));
        }
        match &self.folder {
            Some(folder) => Ok(folder.join(path)),
            None => Err(InputError::at(
                at,
                format!(
                    "the path {name:?} does not exist (a built-in lesson names only its `files:`)"
                ),
            )),
        }
    }

    /// Whether `name` is one of the lesson's own files: inline, or inside
    /// its folder and present there.
    pub fn owns_file(&self, name: &str) -> bool {
        self.doc.files.contains_key(name)
            || self
                .path(name, &Location::new(&self.file, 1, 1))
                .is_ok_and(|p| p.is_file())
    }

    /// The manifests of `name` as a command at `at` names it: an inline
    /// file of the lesson, or a file in its folder.
    pub fn manifests(&self, name: &str, at: &Location) -> Result<Vec<FileObject>, InputError> {
        let read = if let Some(text) = self.doc.files.get(name) {
            scenario::parse_manifests(name, text.value.as_bytes()).map_err(|e| {
                // Places inside an inline file count from the line after its key.
                let inner = e.position.unwrap_or((1, 1));
                let key_line = usize::try_from(text.referenced.line()).unwrap_or(0);
                let mut shifted = e.clone();
                shifted.file.clone_from(&self.file);
                shifted.position = Some((key_line + inner.0, inner.1));
                shifted
            })?
        } else {
            let path = self.path(name, at)?;
            scenario::read_manifests(&path.to_string_lossy())?
        };
        Ok(FileObject::from_file(name, read))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "id: x\ntitle: {en: a, zh: b}\nsummary: {en: a, zh: b}\n";

    #[test]
    fn errors_name_the_place() {
        let cases = [
            (
                format!("{HEAD}steps:\n  - dance: {{}}\n"),
                "x.yaml:5:5: unknown variant `dance`, expected one of narrate, command, pause, quiz, goal",
            ),
            (
                format!("{HEAD}colour: red\nsteps: []\n"),
                "x.yaml:4:1: unknown field `colour`, expected one of id, title, summary, minutes, cluster, identity, files, steps",
            ),
            (
                format!("{HEAD}id: y\nsteps: []\n"),
                "x.yaml:4:1: duplicate mapping key: id",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(
                Lesson::parse("x.yaml", &text, None)
                    .unwrap_err()
                    .to_string(),
                want
            );
        }
    }

    #[test]
    fn paths_stay_inside_the_folder() {
        let lesson = Lesson::parse(
            "l/x.yaml",
            &format!("{HEAD}steps: []\n"),
            Some(PathBuf::from("l")),
        )
        .unwrap();
        let at = Location::new("l/x.yaml", 3, 4);
        assert_eq!(
            lesson.path("pod.yaml", &at).unwrap(),
            PathBuf::from("l/pod.yaml")
        );
        assert_eq!(
            lesson.path("./m/pod.yaml", &at).unwrap(),
            PathBuf::from("l/./m/pod.yaml")
        );
        for bad in ["../pod.yaml", "/etc/passwd", "m/../../x", ""] {
            let e = lesson.path(bad, &at).unwrap_err().to_string();
            assert!(e.starts_with("l/x.yaml:3:4: the path"), "{e}");
            assert!(e.contains("outside the lesson's folder"), "{e}");
        }
    }
}
