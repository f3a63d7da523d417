//! The terminal interface: the app state and its update function, the key
//! map, the layout and the panes. It renders from the timeline; it never
//! computes cluster behaviour (DESIGN.md rule 6).

pub mod lang;
pub mod narrate;
pub mod panes;
#[cfg(test)]
pub mod testing;
pub mod theme;
