//! `podflow serve` under load, over HTTPS at `--speed max`: GETs of one Pod
//! and Table LISTs of 1,000 Pods from concurrent kube-rs clients (requests
//! per second and latency percentiles), and the fan-out of one change to 100
//! watchers. Run: `cargo bench -p podflow-server --bench serve`
//! (`PODFLOW_BENCH_SECONDS` sets each phase's length, 5 by default).

use std::time::{Duration, Instant};

use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::api::{Api, ListParams, PostParams, WatchEvent, WatchParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use serde_json::json;

use podflow_engine::engine::Engine;
use podflow_server::driver::Speed;
use podflow_server::served::served_setup;
use podflow_server::{Listen, Options, start};

const CLIENTS: usize = 16;
const WATCHERS: usize = 100;

fn main() {
    let seconds = std::env::var("PODFLOW_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(bench(Duration::from_secs(seconds)));
}

async fn bench(phase: Duration) {
    let epoch = podflow_engine::clock::EPOCH_UNIX_SECONDS;
    let (setup, _) = served_setup(None, &[], 1, epoch).expect("a setup");
    let running = start(Options {
        listen: Listen {
            address: "127.0.0.1".into(),
            port: 0,
            users: Vec::new(),
            recording: false,
        },
        engine: Engine::new(setup),
        speed: Speed::Max,
        sink: None,
        session: None,
    })
    .await
    .expect("the server starts");
    let kubeconfig = Kubeconfig::from_yaml(&running.kubeconfig).expect("a kubeconfig");
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .expect("a config");
    let client = Client::try_from(config).expect("a client");

    // 1,000 Pods, made by a Deployment (the default cluster's three workers
    // hold 330 Pods; the rest stay Pending, which a LIST shows all the same).
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let _ = namespaces.list(&ListParams::default()).await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let web: Deployment = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 1000, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}
    }))
    .expect("a Deployment");
    let made = Instant::now();
    deployments
        .create(&PostParams::default(), &web)
        .await
        .expect("created");
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let listed = pods.list(&ListParams::default()).await.expect("a list");
    println!(
        "setup: {} Pods made by the Deployment in {:.1} s",
        listed.items.len(),
        made.elapsed().as_secs_f64()
    );
    let one = listed.items[0].metadata.name.clone().expect("a name");

    let get = {
        let pods = pods.clone();
        let one = one.clone();
        load(phase, move || {
            let pods = pods.clone();
            let one = one.clone();
            async move {
                pods.get(&one).await.expect("a GET");
            }
        })
        .await
    };
    report("GET one Pod", &get, phase);

    let table = load(phase, move || {
        let client = client.clone();
        async move {
            let request = http::Request::get("/api/v1/namespaces/default/pods")
                .header("accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
                .body(Vec::new())
                .expect("a request");
            let _: serde_json::Value = client.request(request).await.expect("a Table");
        }
    })
    .await;
    report("Table LIST of 1,000 Pods", &table, phase);

    fan_out(&pods).await;
    running.stop().await;
}

/// Runs `CLIENTS` loops of `call` for `phase`; returns every latency.
async fn load<F, Fut>(phase: Duration, call: F) -> Vec<Duration>
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let call = call.clone();
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                let start = Instant::now();
                while start.elapsed() < phase {
                    let sent = Instant::now();
                    call().await;
                    latencies.push(sent.elapsed());
                }
                latencies
            })
        })
        .collect();
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.expect("a client"));
    }
    all
}

fn report(what: &str, latencies: &[Duration], phase: Duration) {
    let mut sorted = latencies.to_vec();
    sorted.sort();
    let at = |q: f64| {
        // An index into a non-empty list of a few hundred thousand at most.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
        sorted[i].as_secs_f64() * 1000.0
    };
    #[allow(clippy::cast_precision_loss)]
    let rate = sorted.len() as f64 / phase.as_secs_f64();
    println!(
        "{what}: {rate:.0}/s from {CLIENTS} clients; latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

/// One Pod created while `WATCHERS` watches wait: how long until every
/// watcher has its `ADDED`.
async fn fan_out(pods: &Api<Pod>) {
    let from = pods
        .list(&ListParams::default().limit(1))
        .await
        .expect("a list")
        .metadata
        .resource_version
        .expect("a resourceVersion");
    let mut streams = Vec::new();
    for _ in 0..WATCHERS {
        let stream = pods
            .watch(&WatchParams::default().labels("bench=fan-out"), &from)
            .await
            .expect("a watch");
        streams.push(stream.boxed());
    }
    let pod: Pod = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "fan-out", "labels": {"bench": "fan-out"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}
    }))
    .expect("a Pod");
    let sent = Instant::now();
    pods.create(&PostParams::default(), &pod)
        .await
        .expect("created");
    let waits = streams.into_iter().map(|mut stream| async move {
        while let Some(event) = stream.try_next().await.expect("an event") {
            if matches!(event, WatchEvent::Added(_)) {
                return;
            }
        }
    });
    futures_util::future::join_all(waits).await;
    println!(
        "watch fan-out: one change reached {WATCHERS} watchers in {:.2} ms",
        sent.elapsed().as_secs_f64() * 1000.0
    );
}
