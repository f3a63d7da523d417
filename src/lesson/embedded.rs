//! The lessons built into the binary (`lessons/*.yaml`, by `include_str!`),
//! in course order.

use super::load::Lesson;
use crate::scenario::InputError;

/// (file, text) of every built-in lesson.
pub const LESSONS: &[(&str, &str)] = &[
    (
        "lessons/01-apply-to-running.yaml",
        include_str!("../../lessons/01-apply-to-running.yaml"),
    ),
    (
        "lessons/02-inside-the-api-server.yaml",
        include_str!("../../lessons/02-inside-the-api-server.yaml"),
    ),
    (
        "lessons/03-etcd-and-watch.yaml",
        include_str!("../../lessons/03-etcd-and-watch.yaml"),
    ),
    (
        "lessons/04-the-scheduler.yaml",
        include_str!("../../lessons/04-the-scheduler.yaml"),
    ),
    (
        "lessons/05-the-kubelet.yaml",
        include_str!("../../lessons/05-the-kubelet.yaml"),
    ),
    (
        "lessons/06-probes-and-restarts.yaml",
        include_str!("../../lessons/06-probes-and-restarts.yaml"),
    ),
    (
        "lessons/07-deployments.yaml",
        include_str!("../../lessons/07-deployments.yaml"),
    ),
    (
        "lessons/08-failure-clinic.yaml",
        include_str!("../../lessons/08-failure-clinic.yaml"),
    ),
];

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
            let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
            let lesson = Lesson::load(&path).unwrap_or_else(|e| panic!("{e}"));
            super::super::check::check(&lesson).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
