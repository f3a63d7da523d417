//! The decoding tables, one file per API group (core/v1 in several): for each
//! upstream message, its fields as [`super::schema::Field`]s, in the order of
//! the upstream `.proto`. Each file names the `generated.proto` it mirrors.

pub(crate) mod apps;
pub(crate) mod authentication;
pub(crate) mod authorization;
pub(crate) mod autoscaling;
pub(crate) mod batch;
pub(crate) mod core_container;
pub(crate) mod core_objects;
pub(crate) mod core_pod;
pub(crate) mod core_scheduling;
pub(crate) mod core_status;
pub(crate) mod core_volume;
pub(crate) mod core_volume_intree;
pub(crate) mod meta;
pub(crate) mod networking;
pub(crate) mod policy;
pub(crate) mod rbac;
pub(crate) mod scheduling;
