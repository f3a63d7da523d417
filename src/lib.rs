//! podflow: a deterministic mini-cluster that shows, step by step, how
//! Kubernetes turns `kubectl apply -f pod.yaml` into a running Pod.
//!
//! This crate is the program around the engine (`podflow-engine`): the command
//! line, the terminal interface and the recordings. docs/architecture.md
//! describes the crates and how they fit.

pub mod cli;
pub mod logging;
pub mod memory;
pub mod record;
pub mod tui;
