//! What the scale benches share: a Deployment on a generated cluster, set up
//! as `podflow trace --cluster <gen-cluster> -f web.yaml --detail summary` does.

use podflow_engine::apiserver::handler::Detail;
use podflow_engine::engine::Engine;
use podflow_engine::setup::{SetupArgs, build_setup_on};
use podflow_scenario::generate::{NodeShape, generate};
use podflow_scenario::{merge_with_default, parse_cluster};

/// The Deployment `web` of `replicas` nginx Pods, each asking 100m CPU and 128Mi.
fn deployment(replicas: usize) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  \
         replicas: {replicas}\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    \
         metadata: {{labels: {{app: web}}}}\n    spec:\n      containers:\n      \
         - name: nginx\n        image: nginx:1.27\n        \
         resources: {{requests: {{cpu: 100m, memory: 128Mi}}}}\n"
    )
}

/// An engine about to run `web` of `replicas` on `nodes` generated workers in `zones` zones.
pub fn deployment_engine(nodes: usize, zones: usize, replicas: usize) -> Engine {
    let cluster = generate(nodes, zones, &NodeShape::default()).expect("generate");
    let spec =
        merge_with_default(parse_cluster("cluster.yaml", cluster.as_bytes()).expect("parse"));
    let manifest: &'static str = Box::leak(deployment(replicas).into_boxed_str());
    let args = SetupArgs {
        embedded: vec![("web.yaml", manifest)],
        seed: 1,
        detail: Some(Detail::Summary),
        ..SetupArgs::default()
    };
    Engine::new(build_setup_on(&spec, &args).expect("setup"))
}

/// The number in the environment variable `name`, else `default`.
pub fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
