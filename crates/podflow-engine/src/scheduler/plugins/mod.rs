//! The scheduler's plugins, one file a plugin, as in
//! `pkg/scheduler/framework/plugins/`.

pub mod balanced_allocation;
pub mod default_binder;
pub mod default_preemption;
pub mod image_locality;
pub mod inter_pod_affinity;
pub mod labels;
pub mod node_affinity;
pub mod node_name;
pub mod node_ports;
pub mod node_resources_fit;
pub mod node_unschedulable;
pub mod pod_topology_spread;
pub mod scheduling_gates;
pub mod taint_toleration;
pub mod volume_binding;
