//! Views of the trace outside the TUI: text for reading, JSON lines for tools.

mod json_line;
mod json_text;
pub mod jsonl;
pub mod mermaid;
pub mod only;
pub mod text;
