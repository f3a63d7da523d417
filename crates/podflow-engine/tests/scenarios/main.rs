//! Engine scenarios: manifests and cluster-language steps run headless on a
//! cluster, as `podflow trace` runs them, and what the trace and the final
//! objects say about it. One module a part of the cluster.

#[path = "../common/mod.rs"]
mod common;

mod api_answers;
mod cascade;
mod classroom;
mod controllers;
mod deployment;
mod determinism;
mod docs_examples;
mod endpoints;
mod exec;
mod kubectl_verbs;
mod kubelet;
mod kubelet_config;
mod kubelet_hooks;
mod namespaces;
mod nginx_pod;
mod node_lifecycle;
mod node_pressure;
mod node_verbs;
mod quota;
mod scheduling;
mod serviceaccounts;
mod services;
mod storage;
mod stored_defaults;
mod stored_times;
