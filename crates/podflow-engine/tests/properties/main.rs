//! Property tests of the engine (proptest): invariants that hold for every
//! generated cluster and workload, at every write of the run.

#[path = "../common/mod.rs"]
mod common;

mod properties;
mod rollout_properties;
