//! The terminal interface: the app state and its update function, the key
//! map, the layout and the panes. It renders from the timeline; it never
//! computes cluster behaviour (DESIGN.md rule 6).

pub mod action;
pub mod app;
pub mod keymap;
pub mod lang;
pub mod layout;
pub mod lesson;
pub mod narrate;
pub mod panes;
pub mod phases;
pub mod present;
pub mod render;
pub mod run;
pub mod terminal;
#[cfg(test)]
pub mod testing;
#[cfg(test)]
mod tests;
pub mod theme;
pub mod wrap;

/// What podflow simplifies against real Kubernetes, in one line (the README has the list).
pub const SIMPLIFIED: &str = "Simplified: containers run until stopped (no commands, probes or restarts yet); no controllers or preemption yet; events are not stored in etcd.";
