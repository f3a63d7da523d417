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
        None if looks_like_an_id(id_or_path) => {
            return Err(InputError::file(
                id_or_path,
                format!(
                    "no built-in lesson has this id, and no file this path; the built-in lessons are {}",
                    ids().join(", ")
                ),
            ));
        }
        None => Lesson::load(id_or_path)?,
    };
    super::check::check(&lesson)?;
    Ok(lesson)
}

/// The built-in lessons' ids, in course order.
pub fn ids() -> Vec<String> {
    all()
        .map(|lessons| lessons.iter().map(|l| l.id().to_owned()).collect())
        .unwrap_or_default()
}

/// A word without a path's marks (`/`, `.yaml`) and naming no file.
fn looks_like_an_id(word: &str) -> bool {
    let path = std::path::Path::new(word);
    let yaml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
    !word.contains('/') && !yaml && !path.exists()
}

/// The built-in lesson `id`'s file as written, to start a lesson of one's own from.
pub fn source(id: &str) -> Option<&'static str> {
    LESSONS
        .iter()
        .find(|(file, text)| Lesson::parse(file, text, None).is_ok_and(|l| l.id() == id))
        .map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An unknown id is refused with the ids there are.
    #[test]
    fn an_unknown_id_lists_the_lessons() {
        let error = open("the-schedular").unwrap_err().to_string();
        assert!(
            error.starts_with("the-schedular: no built-in lesson has this id, and no file this path; the built-in lessons are apply-to-running, inside-the-api-server,"),
            "{error}"
        );
    }

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
