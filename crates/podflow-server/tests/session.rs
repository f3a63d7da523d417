//! `podflow serve --save-session` and `podflow play --session`: a class
//! driven by a real client (kube-rs) over HTTPS is saved, read back and
//! replayed on a new engine, and the replay's trace is the served one, byte
//! for byte.

use std::io::Write;
use std::sync::{Arc, Mutex};

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use serde_json::json;

use podflow_engine::engine::{Engine, Setup};
use podflow_engine::timeline::Timeline;
use podflow_server::driver::{Speed, jsonl_sink};
use podflow_server::served::served_setup;
use podflow_server::session::{self, Header};
use podflow_server::{Listen, Options, start};

const RBAC_CLUSTER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/rbac-cluster.yaml"
);

/// A buffer several writers share.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// The served cluster's setup, as `podflow serve` builds it.
fn setup() -> Setup {
    let epoch = podflow_engine::clock::EPOCH_UNIX_SECONDS;
    served_setup(Some(RBAC_CLUSTER), &[], 7, epoch).unwrap().0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_session_replays_byte_for_byte() {
    let trace = Shared::default();
    let saved = Shared::default();
    let header = Header {
        version: session::VERSION,
        seed: 7,
        cluster: Some(RBAC_CLUSTER.into()),
        files: Vec::new(),
        epoch: podflow_engine::clock::EPOCH_UNIX_SECONDS,
    };
    let running = start(Options {
        listen: Listen {
            address: "127.0.0.1".into(),
            port: 0,
            users: Vec::new(),
            recording: true,
        },
        engine: Engine::new(setup()),
        speed: Speed::Max,
        sink: Some(jsonl_sink(trace.clone())),
        session: Some((header, session::jsonl_sink(saved.clone()))),
    })
    .await
    .unwrap();
    let kubeconfig = Kubeconfig::from_yaml(&running.kubeconfig).unwrap();
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .unwrap();
    let client = Client::try_from(config).unwrap();
    let pods: Api<Pod> = Api::namespaced(client, "default");
    let pod: Pod = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "nginx"},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}
    }))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    assert_eq!(
        pods.list(&ListParams::default()).await.unwrap().items.len(),
        1
    );
    // A refused request is part of the class too.
    assert!(pods.create(&PostParams::default(), &pod).await.is_err());
    pods.delete("nginx", &DeleteParams::default())
        .await
        .unwrap();
    running.stop().await;

    let read = session::read(saved.text().as_bytes(), "class.jsonl").unwrap();
    assert_eq!(read.inputs.len(), 4, "{}", saved.text());
    let mut timeline = Timeline::started(Engine::new(setup()));
    timeline.schedule(read.inputs);
    timeline.finish();
    let mut replayed = Vec::new();
    podflow_engine::export::jsonl::write(&mut replayed, timeline.records()).unwrap();
    let served = trace.text();
    // kube-rs sends no user agent: its requests are `unknown-client`'s.
    assert!(served.contains("\"from\":\"unknown-client\""), "{served}");
    let replayed = String::from_utf8(replayed).unwrap();
    let first_difference = replayed
        .lines()
        .zip(served.lines())
        .position(|(a, b)| a != b);
    assert!(
        replayed == served,
        "the replay differs from line {first_difference:?} ({} lines replayed, {} served)",
        replayed.lines().count(),
        served.lines().count()
    );
}
