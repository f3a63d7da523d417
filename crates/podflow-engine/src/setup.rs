//! Builds the engine's starting point from the command line's choices: the
//! cluster (the embedded default or `--cluster`), the bootstrap RBAC policy,
//! the token users, the registry, kubectl's identity and its commands.

use std::collections::BTreeSet;

use crate::apiserver::authn::TokenAuthenticator;
use crate::apiserver::bootstrap_policy;
use crate::apiserver::handler::Detail;
use crate::apiserver::request::{Credentials, UserInfo};
use crate::command;
use crate::engine::Setup;
use crate::kubectl::{Command, FileObject};
use crate::kubelet::images::RegistryMode;
use crate::kubelet::{ImageRegistry, images};
use crate::scheduler::config;
use crate::scheduler::profile::ProfilePlugins;
use podflow_scenario::{self as scenario, ClusterSpec, InputError};

/// What the user chose, for every subcommand that runs the engine.
#[derive(Debug, Clone, Default)]
pub struct SetupArgs {
    pub files: Vec<String>,
    pub steps: Vec<String>,
    pub cluster: Option<String>,
    pub as_user: Option<String>,
    pub as_groups: Vec<String>,
    pub token: Option<String>,
    pub seed: u64,
    pub detail: Option<Detail>,
    /// Manifests built into the binary, applied before `files`: (name, YAML).
    pub embedded: Vec<(&'static str, &'static str)>,
}

/// The bare `nginx` Pod of the seeds, built into the binary.
pub const NGINX_POD: (&str, &str) = (
    "nginx-pod.yaml",
    include_str!("../../../assets/manifests/nginx-pod.yaml"),
);

/// Why a setup could not be built: one line naming the file, line and column.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{0}")]
    Input(#[from] InputError),
    #[error("--step \"{step}\": {message}")]
    Step { step: String, message: String },
    /// kube-scheduler would not start with this configuration.
    #[error("{file}: KubeSchedulerConfiguration: {message}")]
    Scheduler { file: String, message: String },
}

/// The user kubeadm's admin kubeconfig (`admin.conf`) authenticates as: since
/// Kubernetes 1.29, `kubernetes-admin` in `kubeadm:cluster-admins`, which RBAC
/// allows through the `ClusterRoleBinding` of the same name; only
/// `super-admin.conf` is in `system:masters`
/// (`cmd/kubeadm/app/phases/kubeconfig`, `constants.ClusterAdminsGroupAndClusterRoleBinding`).
pub fn admin() -> UserInfo {
    UserInfo::new("kubernetes-admin", &["kubeadm:cluster-admins"])
}

/// The cluster: the default one, or the default merged with `--cluster FILE`.
pub fn cluster(path: Option<&str>) -> Result<ClusterSpec, InputError> {
    match path {
        None => Ok(scenario::default_cluster()),
        Some(path) => {
            let bytes = scenario::read_file(path)?;
            Ok(scenario::merge_with_default(scenario::parse_cluster(
                path, &bytes,
            )?))
        }
    }
}

/// kubectl's commands: the `-f` files as applies, then the `--step`s in order.
fn commands(args: &SetupArgs) -> Result<Vec<Command>, SetupError> {
    let lines = args
        .files
        .iter()
        .map(|f| (format!("apply -f {}", shell_quote(f)), f.clone()))
        .chain(args.steps.iter().map(|s| (s.clone(), s.clone())));
    let mut out = Vec::new();
    for (name, yaml) in &args.embedded {
        let manifests =
            FileObject::from_file(name, scenario::parse_manifests(name, yaml.as_bytes())?);
        out.push(Command::Apply {
            manifests,
            namespace: None,
        });
    }
    for (line, shown) in lines {
        let parsed = command::parse(&line).map_err(|e| SetupError::Step {
            step: shown,
            message: e.0,
        })?;
        out.push(command::resolve(parsed, load_manifests)?);
    }
    Ok(out)
}

fn shell_quote(path: &str) -> String {
    format!("'{path}'")
}

/// Reads the manifests of one `-f` path, as kubectl sends them.
pub fn load_manifests(path: &str) -> Result<Vec<FileObject>, InputError> {
    Ok(FileObject::from_file(path, scenario::read_manifests(path)?))
}

/// The registry the nodes pull from: the image catalog, extended and
/// overridden by the `Simulation` object's registry.
fn registry(spec: &ClusterSpec) -> ImageRegistry {
    let mut catalog = scenario::image_catalog();
    catalog.extend(&spec.simulation.registry);
    let mut registry = ImageRegistry::default();
    for image in &catalog.images {
        registry
            .sizes
            .insert(images::normalize(&image.name), image.size_bytes);
    }
    registry.missing = spec
        .simulation
        .registry
        .missing
        .iter()
        .map(|m| images::normalize(m))
        .collect::<BTreeSet<_>>();
    registry.mode = if spec.simulation.registry.open {
        RegistryMode::Open
    } else if spec.simulation.registry.closed {
        RegistryMode::Closed
    } else {
        RegistryMode::Public
    };
    registry
}

/// Builds the engine's `Setup`.
pub fn build_setup(args: &SetupArgs) -> Result<Setup, SetupError> {
    build_setup_on(&cluster(args.cluster.as_deref())?, args)
}

/// Builds the engine's `Setup` on a cluster already read (a lesson's); `args.cluster` only names it.
pub fn build_setup_on(spec: &ClusterSpec, args: &SetupArgs) -> Result<Setup, SetupError> {
    let mut tokens = TokenAuthenticator::default();
    for user in &spec.simulation.users {
        let groups: Vec<&str> = user.groups.iter().map(String::as_str).collect();
        tokens.add(&user.token, UserInfo::new(user.name.clone(), &groups));
    }
    let own = match &args.token {
        Some(token) => Credentials::BearerToken(token.clone()),
        None => Credentials::Certificate(admin()),
    };
    let identity = match &args.as_user {
        Some(user) => {
            let groups: Vec<&str> = args.as_groups.iter().map(String::as_str).collect();
            Credentials::Impersonated {
                by: Box::new(own),
                user: UserInfo::new(user.clone(), &groups),
            }
        }
        None => own,
    };
    let mut objects = bootstrap_policy::cluster_roles();
    objects.extend(bootstrap_policy::cluster_role_bindings());
    objects.extend(spec.objects.iter().map(|m| m.object.clone()));
    crate::node_network::fill(&mut objects);
    let profiles = config::profiles(spec.scheduler_config.as_ref()).map_err(|message| {
        SetupError::Scheduler {
            file: args.cluster.clone().unwrap_or_default(),
            message,
        }
    })?;
    Ok(Setup {
        scheduler_profiles: profiles.iter().map(ProfilePlugins::new).collect(),
        seed: args.seed,
        objects,
        tokens,
        registry: registry(spec),
        commands: commands(args)?,
        identity,
        detail: args.detail.unwrap_or(Detail::Full),
        store_events: false,
        share_stages: true,
        internet: spec.simulation.reaches_internet(),
    })
}
