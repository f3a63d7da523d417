//! Reads manifests, cluster files and the `Simulation` object into typed values,
//! with file, line, column and field path for every error.

mod cluster;
mod floats;
pub mod generate;
mod images;
mod input;
mod location;
mod manifest;
mod public_names;
mod public_registry;
mod simulation;
mod text;
mod tree;
pub mod unknown_fields;

pub use cluster::{
    ClusterSpec, SCHEDULER_CONFIG_API_VERSION, default_cluster, location_of, merge_with_default,
    parse_cluster,
};
pub use images::{Behaviour, ImageCatalog, ImageInfo, image_catalog};
pub use input::{STDIN_NAME, read_file, read_manifests};
pub use location::{InputError, Location};
pub use manifest::{
    DecodedObject, TypeMismatch, first_type_mismatch, parse_manifests, parse_manifests_as_sent,
};
pub use public_names::{PublicName, looks_public, public_address, public_name};
pub use public_registry::{PublicRegistries, Repository, public_registries};
pub use simulation::{RegistryImage, RegistrySpec, SIMULATION_API_VERSION, Simulation, User};
pub use text::MAX_INPUT_BYTES;
pub use text::decode;
pub use tree::Step;
pub use unknown_fields::unknown_fields;
