//! Helpers over the `k8s-openapi` types: the kinds podflow serves, objects as
//! one enum, Kubernetes `Status` answers, and resource quantities.

mod go_nulls;
pub mod image;
pub mod kinds;
pub mod object;
pub mod quantity;
pub mod quantity_go;
pub mod shared;
pub mod status;
pub mod storage;

pub use kinds::{KINDS, Kind};
pub use object::Object;
pub use shared::Shared;
