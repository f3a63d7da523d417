//! The lessons built into the binary: every `lessons/*.yaml`, in course
//! (file-name) order, embedded by `build.rs`.

use super::load::Lesson;
use podflow_scenario::InputError;

/// (file, text) of every built-in lesson: each `lessons/*.yaml` of the
/// repository in file-name order, found at build time (`build.rs`).
pub const LESSONS: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/lessons.rs"));

/// Every built-in lesson, read.
pub fn all() -> Result<Vec<Lesson>, InputError> {
    LESSONS
        .iter()
        .map(|(file, text)| Lesson::parse(file, text, None))
        .collect()
}

/// The built-in lesson with this id.
pub fn by_id(id: &str) -> Option<Result<Lesson, InputError>> {
    LESSONS
        .iter()
        .map(|(file, text)| Lesson::parse(file, text, None))
        .find(|l| l.as_ref().is_ok_and(|l| l.id() == id))
}

/// A lesson by id (built in) or path (`--lesson ID|PATH`), checked: a bad
/// lesson is refused with the checker's message.
pub fn open(id_or_path: &str) -> Result<Lesson, InputError> {
    let lesson = match by_id(id_or_path) {
        Some(lesson) => lesson?,
        None => Lesson::load(id_or_path)?,
    };
    super::check::check(&lesson)?;
    Ok(lesson)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shipped lesson passes `lessons check`.
    #[test]
    fn every_shipped_lesson_passes_check() {
        let lessons = all().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(lessons.len(), LESSONS.len());
        for lesson in &lessons {
            super::super::check::check(lesson).unwrap_or_else(|e| panic!("{e}"));
        }
        // The files on disk are the same lessons, and pass as paths too.
        for (file, _) in LESSONS {
            let path = format!("{}/../../{file}", env!("CARGO_MANIFEST_DIR"));
            let lesson = Lesson::load(&path).unwrap_or_else(|e| panic!("{e}"));
            super::super::check::check(&lesson).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    /// Every `lessons/*.yaml` is built in, in file-name order, and nothing else.
    #[test]
    fn every_lesson_file_is_built_in_in_course_order() {
        let dir = format!("{}/../../lessons", env!("CARGO_MANIFEST_DIR"));
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .expect("the lessons directory")
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
            .filter_map(|path| Some(format!("lessons/{}", path.file_name()?.to_str()?)))
            .collect();
        on_disk.sort();
        let built_in: Vec<&str> = LESSONS.iter().map(|(file, _)| *file).collect();
        assert_eq!(built_in, on_disk);
        assert_eq!(built_in.first(), Some(&"lessons/01-apply-to-running.yaml"));
    }
}
