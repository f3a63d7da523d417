//! `podflow serve` driven by a real Kubernetes client, kube-rs, over HTTPS
//! with the kubeconfig the server writes: discovery, create, list (typed and
//! as a Table), watch, strategic merge patch, scale, logs, delete, and a
//! token user refused with 403. The server runs in-process at `--speed max`,
//! so each answer comes as soon as the engine has it; nothing here sleeps.

use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{
    Api, DeleteParams, ListParams, LogParams, Patch, PatchParams, PostParams, WatchEvent,
    WatchParams,
};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config, Discovery};
use serde_json::json;

use podflow_engine::engine::Engine;
use podflow_server::driver::Speed;
use podflow_server::served::served_setup;
use podflow_server::{Listen, Options, Running, start};

const RBAC_CLUSTER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/rbac-cluster.yaml"
);

async fn serve() -> Running {
    let epoch = podflow_engine::clock::EPOCH_UNIX_SECONDS;
    let (setup, users) = served_setup(Some(RBAC_CLUSTER), &[], 1, epoch).expect("the setup builds");
    start(Options {
        listen: Listen {
            address: "127.0.0.1".into(),
            port: 0,
            users,
            recording: false,
        },
        engine: Engine::new(setup),
        speed: Speed::Max,
        sink: None,
        session: None,
    })
    .await
    .expect("the server starts")
}

async fn client(running: &Running, context: &str) -> Client {
    let kubeconfig = Kubeconfig::from_yaml(&running.kubeconfig).expect("the kubeconfig parses");
    let options = KubeConfigOptions {
        context: Some(context.to_owned()),
        ..KubeConfigOptions::default()
    };
    let config = Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .expect("the kubeconfig is usable");
    Client::try_from(config).expect("a client")
}

fn nginx() -> Pod {
    serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "nginx", "labels": {"app": "nginx"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_rs_drives_the_mini_cluster() {
    let running = serve().await;
    let admin = client(&running, "podflow").await;
    discovery_and_a_pods_life(&admin).await;
    logs_and_scale(&admin).await;
    a_token_user_is_held_to_its_role(&running).await;
    bad_requests_get_the_api_servers_status(&admin).await;
    running.stop().await;
}

/// A thousand watches at once (each kube-rs watch is an HTTP/1.1 connection
/// of its own): each hears the Pod created, the server counts them all, and
/// when their clients go mid-watch, without a word, neither the server nor
/// the engine keeps any of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_watches_come_and_go_leaving_nothing() {
    const WATCHES: usize = 1000;
    let running = serve().await;
    let admin = client(&running, "podflow").await;
    let pods: Api<Pod> = Api::namespaced(admin.clone(), "default");
    let from = pods
        .list(&ListParams::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let opened = futures_util::future::join_all((0..WATCHES).map(|_| {
        let pods = pods.clone();
        let from = from.clone();
        async move {
            pods.watch(&WatchParams::default().labels("app=nginx"), &from)
                .await
                .expect("the watch opens")
                .boxed()
        }
    }))
    .await;
    let census = running.census().await.expect("the server counts");
    assert_eq!((census.watches, census.engine_watches), (WATCHES, WATCHES));

    pods.create(&PostParams::default(), &nginx()).await.unwrap();
    let heard = futures_util::future::join_all(opened.into_iter().map(|mut events| async move {
        let first = events
            .try_next()
            .await
            .expect("an event")
            .expect("not ended");
        matches!(first, WatchEvent::Added(pod) if pod.metadata.name.as_deref() == Some("nginx"))
    }))
    .await;
    assert!(heard.iter().all(|added| *added), "a watch missed the Pod");

    // The streams are dropped: each connection closes mid-watch. The server
    // sees each go (its next census round trips let it tend the watches).
    let mut census = running.census().await.expect("the server counts");
    for _ in 0..100_000 {
        if census.watches == 0 {
            break;
        }
        tokio::task::yield_now().await;
        census = running.census().await.expect("the server counts");
    }
    assert_eq!(
        census,
        podflow_server::driver::Census {
            waiting: 0,
            watches: 0,
            engine_watches: 0,
        }
    );
    running.stop().await;
}

/// The `Status` code a raw request is answered with.
async fn code_of(client: &Client, request: http::Request<Vec<u8>>) -> u16 {
    match client.request::<serde_json::Value>(request).await {
        Ok(_) => 200,
        Err(kube::Error::Api(status)) => status.code,
        Err(other) => panic!("expected a Status, got {other}"),
    }
}

async fn bad_requests_get_the_api_servers_status(admin: &Client) {
    let post = |content_type: &str, body: Vec<u8>| {
        http::Request::post("/api/v1/namespaces/default/pods")
            .header("content-type", content_type)
            .body(body)
            .unwrap()
    };
    let malformed = post(
        "application/json",
        b"{\"apiVersion\": \"v1\", \"kind\": ".to_vec(),
    );
    assert_eq!(code_of(admin, malformed).await, 400);
    let wrong_type = post("text/plain", b"nginx".to_vec());
    assert_eq!(code_of(admin, wrong_type).await, 415);
    let huge = post("application/json", vec![b' '; 4 * 1024 * 1024]);
    assert_eq!(code_of(admin, huge).await, 413);
    let unknown = http::Request::get("/api/v1/widgets")
        .body(Vec::new())
        .unwrap();
    assert_eq!(code_of(admin, unknown).await, 404);
    // Server-side apply is answered as by a server without it.
    let apply = http::Request::patch("/api/v1/namespaces/default/pods/hello")
        .header("content-type", "application/apply-patch+yaml")
        .body(b"{}".to_vec())
        .unwrap();
    assert_eq!(code_of(admin, apply).await, 415);
    // The engine's state is whole after all that: the cluster still answers.
    let pods: Api<Pod> = Api::namespaced(admin.clone(), "default");
    assert!(pods.get("hello").await.is_ok());
}

async fn discovery_and_a_pods_life(admin: &Client) {
    // Discovery: the core group and apps, with the scale subresource.
    let discovery = Discovery::new(admin.clone())
        .run()
        .await
        .expect("discovery");
    let groups: Vec<String> = discovery.groups().map(|g| g.name().to_owned()).collect();
    assert!(
        groups.iter().any(String::is_empty) && groups.iter().any(|g| g == "apps"),
        "{groups:?}"
    );

    let nodes: Api<Node> = Api::all(admin.clone());
    assert!(
        nodes
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .len()
            >= 2
    );

    // Create, then watch it run from the list's resourceVersion.
    let pods: Api<Pod> = Api::namespaced(admin.clone(), "default");
    let listed = pods.list(&ListParams::default()).await.unwrap();
    let from = listed.metadata.resource_version.clone().unwrap();
    let created = pods.create(&PostParams::default(), &nginx()).await.unwrap();
    assert_eq!(created.metadata.name.as_deref(), Some("nginx"));
    let mut events = pods
        .watch(
            &WatchParams::default().labels("app=nginx").timeout(60),
            &from,
        )
        .await
        .unwrap()
        .boxed();
    let mut phases = Vec::new();
    while let Some(event) = events.try_next().await.unwrap() {
        if let WatchEvent::Added(pod) | WatchEvent::Modified(pod) = event {
            let phase = pod.status.and_then(|s| s.phase).unwrap_or_default();
            phases.push(phase.clone());
            if phase == "Running" {
                break;
            }
        }
    }
    // The API server creates it Pending (`PrepareForCreate`); its kubelet makes it Running.
    assert_eq!(
        phases.first().map(String::as_str),
        Some("Pending"),
        "{phases:?}"
    );
    assert_eq!(
        phases.last().map(String::as_str),
        Some("Running"),
        "{phases:?}"
    );
    drop(events);

    // A strategic merge patch adds a label; a Table lists it as kubectl get does.
    let patch = json!({"metadata": {"labels": {"tier": "web"}}});
    let patched = pods
        .patch("nginx", &PatchParams::default(), &Patch::Strategic(&patch))
        .await
        .unwrap();
    assert_eq!(patched.metadata.labels.unwrap()["tier"], "web");
    let request = http::Request::get("/api/v1/namespaces/default/pods?labelSelector=tier%3Dweb")
        .header("accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
        .body(Vec::new())
        .unwrap();
    let table: serde_json::Value = admin.request(request).await.unwrap();
    assert_eq!(table["kind"], "Table");
    assert_eq!(table["rows"][0]["cells"][0], "nginx");
    assert_eq!(table["rows"][0]["cells"][2], "Running");

    pods.delete("nginx", &DeleteParams::default())
        .await
        .unwrap();
}

async fn logs_and_scale(admin: &Client) {
    let pods: Api<Pod> = Api::namespaced(admin.clone(), "default");
    // Logs: what a container's shell printed.
    let hello: Pod = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "hello"},
        "spec": {"containers": [{"name": "hello", "image": "busybox:1.36",
                 "command": ["sh", "-c", "echo hello from podflow; sleep 3600"]}]}
    }))
    .unwrap();
    pods.create(&PostParams::default(), &hello).await.unwrap();
    let log = pods.logs("hello", &LogParams::default()).await.unwrap();
    assert_eq!(log, "hello from podflow\n");
    let refused = pods
        .logs(
            "hello",
            &LogParams {
                container: Some("nope".into()),
                ..LogParams::default()
            },
        )
        .await
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("container nope is not valid for pod hello"),
        "{refused}"
    );
    // `previous=true` reaches the kubelet: no instance has terminated yet.
    let previous = pods
        .logs(
            "hello",
            &LogParams {
                previous: true,
                ..LogParams::default()
            },
        )
        .await
        .unwrap_err();
    assert!(
        previous
            .to_string()
            .contains("previous terminated container \"hello\" in pod \"hello\" not found"),
        "{previous}"
    );

    // A Deployment scaled through its scale subresource.
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), "default");
    let web: Deployment = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}
    }))
    .unwrap();
    deployments
        .create(&PostParams::default(), &web)
        .await
        .unwrap();
    let scale = deployments
        .patch_scale(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .unwrap();
    assert_eq!(scale.spec.and_then(|s| s.replicas), Some(3));
    let web_pods = pods
        .list(&ListParams::default().labels("app=web"))
        .await
        .unwrap();
    assert_eq!(web_pods.items.len(), 3);
}

async fn a_token_user_is_held_to_its_role(running: &Running) {
    // jane may read pods in dev, and nothing in default: 403 with the API server's words.
    let jane = client(running, "jane@podflow").await;
    let dev: Api<Pod> = Api::namespaced(jane.clone(), "dev");
    assert!(dev.list(&ListParams::default()).await.is_ok());
    let default: Api<Pod> = Api::namespaced(jane, "default");
    let refused = default.list(&ListParams::default()).await.unwrap_err();
    let kube::Error::Api(status) = refused else {
        panic!("expected a Status, got {refused:?}");
    };
    assert_eq!(status.code, 403);
    assert_eq!(
        status.message,
        "pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\""
    );
    // A token user asking to act as another (`Impersonate-User`) needs `impersonate`.
    let kubeconfig = Kubeconfig::from_yaml(&running.kubeconfig).expect("the kubeconfig parses");
    let options = KubeConfigOptions {
        context: Some("jane@podflow".to_owned()),
        ..KubeConfigOptions::default()
    };
    let mut config = Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .expect("the kubeconfig is usable");
    config.auth_info.impersonate = Some("bob".into());
    let as_bob: Api<Pod> = Api::namespaced(Client::try_from(config).expect("a client"), "dev");
    let refused = as_bob.list(&ListParams::default()).await.unwrap_err();
    let kube::Error::Api(status) = refused else {
        panic!("expected a Status, got {refused:?}");
    };
    assert_eq!(status.code, 403);
    assert_eq!(
        status.message,
        "users \"bob\" is forbidden: User \"jane\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope"
    );
}
