//! podflow's deterministic mini-cluster: etcd, the API server, the scheduler,
//! the controller manager, the kubelets and kubectl as a client, stepped one
//! event at a time by [`Engine::step`]. No threads, wall clock or I/O inside the
//! simulation: the same setup and seed give the same trace
//! (docs/architecture.md, "The rules").
//!
//! Around the simulation: [`setup`] turns a user's choices (files, steps,
//! cluster, identity) into an engine's starting point, [`command`] is the
//! cluster language, [`trace`] the one vocabulary every view reads, [`export`]
//! its text, JSON-lines and Mermaid forms, and [`timeline`] keeps a run
//! seekable at any step.

pub mod apiserver;
pub mod clock;
pub mod command;
pub mod component;
pub mod controllers;
pub mod cow_map;
pub mod engine;
pub mod export;
pub mod kube_proxy;
pub mod kubectl;
pub mod kubectl_printers;
pub mod kubelet;
pub mod node_network;
pub mod queue;
pub mod rng;
pub mod scheduler;
pub mod setup;
pub mod shared_stages;
pub mod storage_listers;
pub mod store;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod timeline;
pub mod trace;
pub mod watches;

pub use engine::{Engine, Setup, Until};
