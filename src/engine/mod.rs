//! The deterministic simulation: no threads, wall clock or I/O in here
//! (DESIGN.md rule 1). `Engine::step()` advances one event.

pub mod apiserver;
pub mod clock;
pub mod component;
pub mod controllers;
pub mod cow_map;
// DESIGN.md names the engine's own file `engine/engine.rs`.
#[allow(clippy::module_inception)]
pub mod engine;
pub mod kubectl;
pub mod kubectl_table;
pub mod kubectl_table_more;
pub mod kubectl_table_storage;
pub mod kubelet;
pub mod queue;
pub mod rng;
pub mod scheduler;
pub mod shared_stages;
pub mod storage_cache;
pub mod storage_stream;
pub mod store;
pub mod trace;
pub mod watches;
