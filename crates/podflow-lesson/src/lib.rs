//! Lessons: the format, loading with `file:line:col` errors, the checker that
//! runs every step headless, the `until` moments, the goal checks and the
//! student's saved progress.

pub mod check;
pub mod embedded;
pub mod format;
pub mod goal;
pub mod load;
pub mod moment;
pub mod progress;
pub mod request_check;
pub mod run;

pub use check::{Summary, check};
pub use load::Lesson;
