//! A served cluster's starting point, shared by `podflow serve`, `podflow
//! play --session` (which must build the same cluster again) and the tests
//! and benchmarks of the server.

use podflow_engine::engine::Setup;
use podflow_engine::setup::{SetupArgs, build_setup_on, cluster};

use crate::kubeconfig::TokenUser;

/// A served cluster's starting point, as `podflow serve` builds it and
/// `podflow play --session` builds it again: the cluster file and `-f`
/// files (with kubeadm's admin binding, as every setup), Events stored as objects, and simulated
/// time starting at the wall-clock second `epoch`. Also its token users.
pub fn served_setup(
    cluster_file: Option<&str>,
    files: &[String],
    seed: u64,
    epoch: i64,
) -> Result<(Setup, Vec<TokenUser>), String> {
    podflow_engine::clock::start_at_unix(epoch);
    let spec = cluster(cluster_file).map_err(|e| e.to_string())?;
    let setup_args = SetupArgs {
        files: files.to_vec(),
        cluster: cluster_file.map(str::to_owned),
        seed,
        ..SetupArgs::default()
    };
    let mut setup = build_setup_on(&spec, &setup_args).map_err(|e| e.to_string())?;
    setup.store_events = true;
    let users = spec
        .simulation
        .users
        .iter()
        .map(|u| TokenUser {
            name: u.name.clone(),
            token: u.token.clone(),
        })
        .collect();
    Ok((setup, users))
}
