//! Recordings and screenshots of the TUI without a terminal: `podflow
//! record` writes a lesson or a sandbox run as an asciicast v2 file on
//! simulated time; `podflow play --screenshot` writes one screen as text.
//! Both draw the app exactly as the TUI does and share one encoder.

pub mod ansi;
pub mod cast;
pub mod driver;

pub use driver::{Options, Recording, record_lesson, record_sandbox};

use crate::tui::app::App;

/// How a screenshot is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Plain text, trailing spaces trimmed.
    #[default]
    Text,
    /// Text with SGR colours.
    Ansi,
}

/// The app's screen on a `cols`×`rows` terminal, as text or with colours.
pub fn screenshot(app: &App, cols: u16, rows: u16, format: Format) -> String {
    let buf = driver::draw(app, cols, rows);
    match format {
        Format::Text => ansi::text(&buf),
        Format::Ansi => ansi::ansi(&buf),
    }
}
