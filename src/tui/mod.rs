//! The terminal interface: the app state and its update function, the key
//! map, the layout and the panes. It renders from the timeline; it never
//! computes cluster behaviour (docs/architecture.md, rule 6).

pub mod action;
pub mod app;
pub mod edit_object;
pub mod hangup;
pub mod help;
pub mod jump_list;
pub mod jumps;
#[cfg(test)]
mod key_tests;
pub mod keymap;
pub mod lang;
pub mod layout;
pub mod lesson;
pub mod live;
pub mod narrate;
pub mod observed;
#[cfg(test)]
mod observed_tests;
pub mod panes;
pub mod phases;
pub mod present;
pub mod question;
pub mod render;
pub mod run;
pub mod scrolled;
pub mod steps;
pub mod terminal;
#[cfg(test)]
pub mod testing;
#[cfg(test)]
mod tests;
pub mod theme;
pub mod wrap;

/// What podflow simplifies against real Kubernetes, in one line (English,
/// Chinese); the README has the short list, docs/simplified.md every item.
pub const SIMPLIFIED: (&str, &str) = (
    "Simplified (the README lists it all): containers run a small shell; Events stay out of etcd; etcd keeps its last 4,096 changes.",
    "简化之处（完整列表见 README）：容器运行小型 shell；Event 不存入 etcd；etcd 只保留最近 4,096 次变更。",
);
