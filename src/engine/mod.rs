//! The deterministic simulation: no threads, wall clock or I/O in here
//! (DESIGN.md rule 1). `Engine::step()` advances one event.

pub mod apiserver;
pub mod clock;
pub mod rng;
pub mod store;
pub mod trace;
