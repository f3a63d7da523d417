//! Reads manifests, cluster files and the `Simulation` object into typed values,
//! with file, line, column and field path for every error.

mod location;
mod text;
mod tree;
pub mod unknown_fields;

pub use location::{InputError, Location};
pub use text::MAX_INPUT_BYTES;
pub use unknown_fields::{strict_decoding_error, unknown_fields};
