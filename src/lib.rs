//! podflow: a deterministic mini-cluster that shows, step by step, how
//! Kubernetes turns `kubectl apply -f pod.yaml` into a running Pod.

pub mod cli;
pub mod command;
pub mod engine;
pub mod export;
pub mod lesson;
pub mod memory;
pub mod model;
pub mod record;
pub mod scenario;
pub mod timeline;
pub mod tui;
