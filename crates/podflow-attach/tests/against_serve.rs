//! `podflow attach`'s library against `podflow serve` in-process as the
//! cluster, over HTTPS with kube-rs: a Deployment applied through the API
//! is observed (ADDED and MODIFIED with resourceVersions, its Events in
//! order, its Pods Running); a user whose RBAC allows one namespace gets
//! that namespace and notices of what is hidden; a watch whose
//! resourceVersion was compacted relists.
//!
//! Nothing sleeps: each test reads what the watchers deliver until a
//! condition holds, at most a bounded number of inputs, while the server's
//! simulated clock drives the cluster (`--speed max`: as fast as the engine
//! goes; the relist test at 2000 simulated seconds a second, so that
//! compactions, minutes apart, come in a fraction of a second).
//! A generous wall-clock guard only turns a hang into a failure.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::watcher;
use kube::{Client, Config};
use serde_json::json;

use podflow_attach::watch::{Reach, Scope, Watches, start as watch};
use podflow_attach::{Observer, Watched};
use podflow_engine::engine::Engine;
use podflow_engine::trace::{Record, TraceRecord};
use podflow_server::driver::Speed;
use podflow_server::served::served_setup;
use podflow_server::{Listen, Options, Running, start};

const RBAC_CLUSTER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/rbac-cluster.yaml"
);

/// At most this many inputs are read while waiting for a condition.
const INPUTS: usize = 200_000;
/// The wall-clock guard against a hang.
const GUARD: Duration = Duration::from_secs(120);

async fn serve(speed: Speed) -> Running {
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
        speed,
        sink: None,
        session: None,
    })
    .await
    .expect("the server starts")
}

/// A client of `context`, and the context's namespace (`namespace` when given).
async fn client(running: &Running, context: &str, namespace: Option<&str>) -> (Client, String) {
    let mut kubeconfig = Kubeconfig::from_yaml(&running.kubeconfig).expect("the kubeconfig parses");
    if let Some(ns) = namespace {
        for named in &mut kubeconfig.contexts {
            if named.name == context
                && let Some(ctx) = named.context.as_mut()
            {
                ctx.namespace = Some(ns.to_owned());
            }
        }
    }
    let options = KubeConfigOptions {
        context: Some(context.to_owned()),
        ..KubeConfigOptions::default()
    };
    let config = Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .expect("the kubeconfig is usable");
    let namespace = config.default_namespace.clone();
    (Client::try_from(config).expect("a client"), namespace)
}

/// Reads inputs into the observer until `done` holds of what it has.
async fn observe_until(
    watches: &mut Watches,
    observer: &mut Observer,
    records: &mut Vec<TraceRecord>,
    done: impl Fn(&Observer, &[TraceRecord]) -> bool,
) {
    let wait = async {
        for n in 0..INPUTS {
            if done(observer, records) {
                return;
            }
            let input = watches.inputs.recv().await.expect("the watches go on");
            let t_ms = u64::try_from(n).unwrap_or(u64::MAX);
            records.extend(observer.observe(t_ms, input));
        }
        panic!("not done after {INPUTS} inputs");
    };
    tokio::time::timeout(GUARD, wait)
        .await
        .expect("observed in time");
}

fn web() -> Deployment {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}
    }))
    .unwrap()
}

fn running_web_pods(observer: &Observer) -> usize {
    observer
        .objects()
        .filter(|(key, object)| {
            key.starts_with("/registry/pods/default/web-")
                && object
                    .to_json()
                    .pointer("/status/phase")
                    .is_some_and(|p| p == "Running")
        })
        .count()
}

fn watches_of<'a>(records: &'a [TraceRecord], resource: &str) -> Vec<(&'a str, &'a str, &'a str)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Watch(w) if w.resource == resource => Some((
                w.event_type.as_str(),
                w.name.as_str(),
                w.resource_version.as_str(),
            )),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deployment_applied_through_the_api_is_observed() {
    let running = serve(Speed::Max).await;
    let (admin, namespace) = client(&running, "podflow", None).await;
    let mut watches = watch(
        &admin,
        &Scope::All {
            fallback: namespace,
        },
        &watcher::Config::default(),
    )
    .await;
    assert!(
        watches
            .reach
            .iter()
            .all(|(_, reach)| *reach == Reach::Cluster),
        "{:?}",
        watches.reach
    );
    let mut observer = Observer::new();
    let mut records = Vec::new();
    // The first lists: the nodes are there.
    observe_until(&mut watches, &mut observer, &mut records, |_, records| {
        watches_of(records, "nodes").len() >= 4
    })
    .await;
    let listed = records.len();

    Api::<Deployment>::namespaced(admin.clone(), "default")
        .create(&PostParams::default(), &web())
        .await
        .expect("the Deployment is created");
    // Each resource has its own watch, and one may be ahead of another:
    // done when each has told its part (the Pods Running, their containers'
    // Started Events, the Deployment's status counting them ready).
    observe_until(
        &mut watches,
        &mut observer,
        &mut records,
        |observer, records| {
            let started = records
                .iter()
                .filter(|r| matches!(&r.body, Record::Event(e) if e.reason == "Started"))
                .count();
            let ready = observer.objects().any(|(key, object)| {
                key == "/registry/deployments/default/web"
                    && object.to_json().pointer("/status/readyReplicas") == Some(&json!(2))
            });
            let replicaset = watches_of(records, "replicasets")
                .iter()
                .any(|(t, name, _)| *t == "ADDED" && name.starts_with("web-"));
            running_web_pods(observer) == 2 && started == 2 && ready && replicaset
        },
    )
    .await;
    let seen = &records[listed..];
    the_changes_have_resource_versions_and_fields(seen);
    the_events_come_in_the_flows_order(seen);

    // The final record holds the objects as last seen.
    let last = observer.final_records(u64::MAX);
    let Some(Record::Final { objects }) = last.last().map(|r| &r.body) else {
        panic!("no final record");
    };
    assert!(
        objects
            .iter()
            .any(|o| o.kind().kind == "Deployment" && o.metadata().name.as_deref() == Some("web"))
    );
    drop(watches);
    running.stop().await;
}

fn the_changes_have_resource_versions_and_fields(seen: &[TraceRecord]) {
    // The Deployment: ADDED, then MODIFIED at higher resourceVersions.
    let deployment = watches_of(seen, "deployments");
    assert_eq!(deployment[0].0, "ADDED", "{deployment:?}");
    assert!(
        deployment[1..]
            .iter()
            .all(|(t, name, _)| *t == "MODIFIED" && *name == "web")
    );
    let rvs: Vec<u64> = deployment
        .iter()
        .map(|(_, _, rv)| rv.parse().unwrap())
        .collect();
    assert!(rvs.windows(2).all(|w| w[0] < w[1]), "{rvs:?}");
    // Its ReplicaSet and two Pods were added, each Pod then modified (bound, started).
    let replicasets = watches_of(seen, "replicasets");
    assert!(
        replicasets
            .iter()
            .any(|(t, name, _)| *t == "ADDED" && name.starts_with("web-"))
    );
    let pods = watches_of(seen, "pods");
    assert_eq!(
        pods.iter().filter(|(t, _, _)| *t == "ADDED").count(),
        2,
        "{pods:?}"
    );
    assert!(
        pods.iter().filter(|(t, _, _)| *t == "MODIFIED").count() >= 4,
        "{pods:?}"
    );
    // A Pod's binding is told by the fields it touched.
    assert!(
        seen.iter().any(|r| matches!(&r.body, Record::Watch(w)
            if w.resource == "pods" && w.fields.iter().any(|f| f == "spec.nodeName"))),
        "no binding among the Pods' changes"
    );
}

fn the_events_come_in_the_flows_order(seen: &[TraceRecord]) {
    // The Events, each after its reporter's message. Each component sends
    // its own as it goes, so only one Pod's story has an order to keep:
    // the scheduler's verdict, then its kubelet's steps.
    let events: Vec<(&str, &str, &str)> = seen
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) => {
                Some((e.reason.as_str(), e.source.as_str(), e.object.name.as_str()))
            }
            _ => None,
        })
        .collect();
    for (reason, source) in [
        ("ScalingReplicaSet", "deployment-controller"),
        ("SuccessfulCreate", "replicaset-controller"),
    ] {
        assert!(
            events.iter().any(|(r, s, _)| (*r, *s) == (reason, source)),
            "no {reason} from {source}: {events:?}"
        );
    }
    let pods: std::collections::BTreeSet<&str> = events
        .iter()
        .filter(|(r, _, _)| *r == "Scheduled")
        .map(|(_, _, pod)| *pod)
        .collect();
    assert_eq!(pods.len(), 2, "{events:?}");
    for pod in pods {
        let story: Vec<(&str, &str)> = events
            .iter()
            .filter(|(_, _, name)| *name == pod)
            .map(|(r, s, _)| (*r, *s))
            .collect();
        assert_eq!(
            story,
            [
                ("Scheduled", "default-scheduler"),
                ("Pulling", "kubelet"),
                ("Pulled", "kubelet"),
                ("Created", "kubelet"),
                ("Started", "kubelet"),
            ],
            "{pod}"
        );
    }
    let reporters: Vec<String> = seen
        .windows(2)
        .filter_map(|pair| match (&pair[0].body, &pair[1].body) {
            (Record::Message { from, .. }, Record::Event(_)) => Some(from.to_string()),
            _ => None,
        })
        .collect();
    assert!(
        reporters.iter().any(|r| r == "kube-scheduler"),
        "{reporters:?}"
    );
    assert!(
        reporters.iter().any(|r| r == "kube-controller-manager"),
        "{reporters:?}"
    );
    assert!(
        reporters.iter().any(|r| r.starts_with("kubelet/node-")),
        "{reporters:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_allowed_one_namespace_gets_it_and_is_told_what_is_hidden() {
    let running = serve(Speed::Max).await;
    let (admin, _) = client(&running, "podflow", None).await;
    let (jane, namespace) = client(&running, "jane@podflow", Some("dev")).await;
    assert_eq!(namespace, "dev");
    let mut watches = watch(
        &jane,
        &Scope::All {
            fallback: namespace,
        },
        &watcher::Config::default(),
    )
    .await;
    let reach = |watched| {
        watches
            .reach
            .iter()
            .find(|(w, _)| *w == watched)
            .map(|(_, r)| r.clone())
            .unwrap()
    };
    assert_eq!(reach(Watched::Pods), Reach::Namespace("dev".into()));
    assert_eq!(reach(Watched::Nodes), Reach::Hidden);
    assert_eq!(reach(Watched::Deployments), Reach::Hidden);

    let mut observer = Observer::new();
    let mut records = Vec::new();
    let pod: Pod = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "nginx", "namespace": "dev"},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}
    }))
    .unwrap();
    Api::<Pod>::namespaced(admin.clone(), "dev")
        .create(&PostParams::default(), &pod)
        .await
        .expect("admin creates a Pod in dev");
    observe_until(&mut watches, &mut observer, &mut records, |_, records| {
        watches_of(records, "pods")
            .iter()
            .any(|(t, name, _)| *t == "MODIFIED" && *name == "nginx")
    })
    .await;
    let notices: Vec<&str> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Log { line, .. } => Some(line.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        notices.iter().any(
            |n| n.starts_with("pods: cannot list them in all namespaces (403: ")
                && n.ends_with("watching namespace dev only: other namespaces' pods are hidden")
        ),
        "{notices:#?}"
    );
    assert!(
        notices
            .iter()
            .any(|n| n.starts_with("nodes: hidden: cannot list them (cluster-scoped) (403: ")),
        "{notices:#?}"
    );
    assert!(
        notices.iter().any(|n| n.starts_with(
            "deployments: hidden: cannot list them in all namespaces nor in namespace dev (403: "
        )),
        "{notices:#?}"
    );
    drop(watches);
    running.stop().await;
}

/// Without bookmarks, a watcher's resourceVersion is its last object's: when
/// the watch times out (`timeoutSeconds=1`: serve ends a watch on the wall
/// clock, as the API server does) and etcd has been compacted past it
/// (every 5 simulated minutes, 0.15 s at this speed), the server answers
/// 410 Gone and the resource is listed again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_past_compaction_relists() {
    let running = serve(Speed::Times(2000.0)).await;
    let (admin, namespace) = client(&running, "podflow", None).await;
    let config = watcher::Config::default().disable_bookmarks().timeout(1);
    let mut watches = watch(
        &admin,
        &Scope::All {
            fallback: namespace,
        },
        &config,
    )
    .await;
    let mut observer = Observer::new();
    let mut records = Vec::new();
    observe_until(&mut watches, &mut observer, &mut records, |_, records| {
        records.iter().any(|r| matches!(&r.body, Record::Log { line, .. } if line.starts_with("deployments relisted:")))
    })
    .await;
    let notices: Vec<&str> = records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Log { line, .. } => Some(line.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        notices.iter().any(|n| n.starts_with(
            "deployments: 410 Gone: the watch's resourceVersion was compacted; relisting"
        )),
        "{notices:#?}"
    );
    drop(watches);
    running.stop().await;
}
