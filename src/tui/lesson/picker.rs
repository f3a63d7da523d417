//! The lesson picker: the built-in lessons in course order, the first one
//! highlighted, each with its saved progress.

use podflow_lesson::Lesson;
use podflow_lesson::progress::Progress;

/// The picker's state.
#[derive(Debug, Clone)]
pub struct Picker {
    pub lessons: Vec<Lesson>,
    /// The highlighted lesson.
    pub selected: usize,
    /// Why the last lesson could not be opened.
    pub error: Option<String>,
}

impl Picker {
    /// The picker on `lessons`, the first highlighted.
    pub fn new(lessons: Vec<Lesson>) -> Picker {
        Picker {
            lessons,
            selected: 0,
            error: None,
        }
    }

    /// Moves the highlight by `delta`, staying on the list.
    pub fn select(&mut self, delta: i32) {
        let last = self.lessons.len().saturating_sub(1);
        self.selected = self
            .selected
            .saturating_add_signed(delta as isize)
            .min(last);
    }

    /// What the picker shows of lesson `i`'s progress: `✓`, `3/16`, or nothing.
    pub fn progress_of(&self, i: usize, progress: &Progress) -> String {
        let Some(lesson) = self.lessons.get(i) else {
            return String::new();
        };
        match progress.lessons.get(lesson.id()) {
            Some(p) if p.done => "✓".to_owned(),
            Some(p) => format!("{}/{}", p.step + 1, lesson.doc.steps.len()),
            None => String::new(),
        }
    }
}
