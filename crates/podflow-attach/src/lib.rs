//! `podflow attach`: what a real Kubernetes API server shows its watchers,
//! as podflow's trace records (docs/trace-format.md, "Observed records").
//!
//! - [`watch`] (IO): kube-runtime watchers of Pods, Nodes, Events
//!   (`events.k8s.io/v1`), Deployments, `ReplicaSets`, Services,
//!   `EndpointSlices` and Jobs, with the scope the user's RBAC allows;
//! - [`observer`] (sans IO): their events in, `watch`, `event`, `message`,
//!   `log` and `final` records out, memory bounded;
//! - [`actor`], [`managers`]: who did a change, from `managedFields` and
//!   Event reporters; [`fields`]: what it touched;
//! - [`narrate`], [`fit_error`]: Events told in English and Chinese, with
//!   their part of the flow; `FailedScheduling` read into its table;
//! - [`replay`]: a recorded observation read back.

pub mod actor;
pub mod connect;
pub mod fields;
pub mod fit_error;
pub mod managers;
pub mod narrate;
pub mod observer;
pub mod replay;
pub mod watch;
pub mod watched;

pub use observer::{Input, Observer};
pub use watched::Watched;

#[cfg(test)]
mod observer_tests;
