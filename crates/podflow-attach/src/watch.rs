//! The watchers (IO): one kube-runtime `watcher` per resource with its
//! default back-off (client-go's reflector's: 800 ms doubling to 30 s), each
//! feeding [`Input`]s into one channel. The scope is what the user's RBAC
//! allows: a cluster-wide list refused with 403 falls back to the
//! namespace, and a resource refused there too is left out, each with a
//! notice saying what is hidden.
//!
//! kube-runtime relists by itself when a watch stream says `410 Gone`
//! (an `ERROR` event, as the API server's watch cache and `podflow serve`
//! send it). Should a server answer the watch request itself with a 410,
//! its watcher would retry the same resourceVersion for ever; this module
//! then starts it again, which lists.

use std::fmt::Debug;

use futures_util::StreamExt;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Event as CoreEvent, Node, Pod, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, ListParams};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, watcher};
use kube::{Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

pub use kube::runtime::watcher::Config as WatchConfig;

use crate::observer::Input;
use crate::watched::Watched;

/// Which namespaces to watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every namespace (`-A`, and the default): narrowed to `fallback` for
    /// a resource the user may not list cluster-wide.
    All { fallback: String },
    /// One namespace (`-n NS`); Nodes are cluster-scoped and still watched.
    Namespace(String),
}

/// Where one resource is watched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    Cluster,
    Namespace(String),
    /// Not at all: the user may not list it.
    Hidden,
}

/// The watches running; dropping it stops them.
pub struct Watches {
    pub inputs: mpsc::Receiver<Input>,
    /// Where each resource is watched.
    pub reach: Vec<(Watched, Reach)>,
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for Watches {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// How many inputs may wait between the watchers and the observer.
const CHANNEL: usize = 4096;

/// Starts the watches of every [`Watched`] resource in `scope`, each with
/// `config` (`watcher::Config::default()`: bookmarks on, client-go's
/// timeouts). The first inputs are the notices of what is hidden.
pub async fn start(client: &Client, scope: &Scope, config: &watcher::Config) -> Watches {
    let (sender, inputs) = mpsc::channel(CHANNEL);
    let mut reach = Vec::new();
    let mut starting = Starting {
        client,
        scope,
        config,
        sender: &sender,
        tasks: Vec::new(),
    };
    for watched in Watched::ALL {
        let (where_, notices) = match watched {
            Watched::Pods => starting.spawn(watched, namespaced::<Pod>).await,
            Watched::Nodes => starting.spawn(watched, cluster::<Node>).await,
            Watched::Events if events_v1_served(client).await => {
                starting.spawn(watched, namespaced::<Event>).await
            }
            Watched::Events => {
                let (reach, mut notices) = starting.spawn(watched, namespaced::<CoreEvent>).await;
                notices.insert(
                    0,
                    "events: events.k8s.io/v1 is not served (404); watching core/v1 Events"
                        .to_owned(),
                );
                (reach, notices)
            }
            Watched::Deployments => starting.spawn(watched, namespaced::<Deployment>).await,
            Watched::ReplicaSets => starting.spawn(watched, namespaced::<ReplicaSet>).await,
            Watched::Services => starting.spawn(watched, namespaced::<Service>).await,
            Watched::EndpointSlices => starting.spawn(watched, namespaced::<EndpointSlice>).await,
            Watched::Jobs => starting.spawn(watched, namespaced::<Job>).await,
        };
        for line in notices {
            let _ = sender.send(Input::Notice(line)).await;
        }
        reach.push((watched, where_));
    }
    Watches {
        inputs,
        reach,
        tasks: starting.tasks,
    }
}

/// What starting each resource's watcher needs.
struct Starting<'a> {
    client: &'a Client,
    scope: &'a Scope,
    config: &'a watcher::Config,
    sender: &'a mpsc::Sender<Input>,
    tasks: Vec<JoinHandle<()>>,
}

impl Starting<'_> {
    /// Finds where `K` may be listed and starts its watcher there.
    async fn spawn<K: Watchable>(
        &mut self,
        watched: Watched,
        make: MakeApi<K>,
    ) -> (Reach, Vec<String>) {
        let client = self.client;
        let (reach, notices) = reach_of(client, self.scope, watched, make).await;
        let api: Api<K> = match &reach {
            Reach::Cluster => make(client.clone(), None),
            Reach::Namespace(ns) => make(client.clone(), Some(ns)),
            Reach::Hidden => return (reach, notices),
        };
        let task = run(api, self.config.clone(), watched, self.sender.clone());
        self.tasks.push(tokio::spawn(task));
        (reach, notices)
    }
}

/// Whether the server serves `events.k8s.io/v1` (every Kubernetes since
/// 1.19 does; `podflow serve` serves Events as `core/v1` only).
async fn events_v1_served(client: &Client) -> bool {
    let probe = ListParams::default().limit(1);
    !matches!(
        Api::<Event>::all(client.clone()).list(&probe).await,
        Err(kube::Error::Api(status)) if status.code == 404
    )
}

/// A resource that a watcher can watch.
trait Watchable:
    Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug + Send + Sync + 'static
{
}
impl<K> Watchable for K where
    K: Resource<DynamicType = ()>
        + Clone
        + DeserializeOwned
        + Serialize
        + Debug
        + Send
        + Sync
        + 'static
{
}

/// An `Api` for `K` in a namespace, or across all (`None`).
type MakeApi<K> = fn(Client, Option<&str>) -> Api<K>;

fn namespaced<K>(client: Client, namespace: Option<&str>) -> Api<K>
where
    K: Watchable + Resource<Scope = k8s_openapi::NamespaceResourceScope>,
{
    match namespace {
        Some(ns) => Api::namespaced(client, ns),
        None => Api::all(client),
    }
}

fn cluster<K: Watchable>(client: Client, _: Option<&str>) -> Api<K> {
    Api::all(client)
}

/// Where the user may list `K`: probed with a list of one, as a watcher's
/// first list would be refused.
async fn reach_of<K: Watchable>(
    client: &Client,
    scope: &Scope,
    watched: Watched,
    make: MakeApi<K>,
) -> (Reach, Vec<String>) {
    let probe = ListParams::default().limit(1);
    let resource = watched.resource();
    let (first, fallback) = match scope {
        Scope::All { fallback } => (Reach::Cluster, fallback.clone()),
        Scope::Namespace(ns) if watched.namespaced() => {
            (Reach::Namespace(ns.clone()), String::new())
        }
        Scope::Namespace(_) => (Reach::Cluster, String::new()),
    };
    let tried = match &first {
        Reach::Namespace(ns) => make(client.clone(), Some(ns)).list(&probe).await,
        _ => make(client.clone(), None).list(&probe).await,
    };
    let Err(refusal) = tried else {
        return (first, Vec::new());
    };
    let mut notices = Vec::new();
    if first == Reach::Cluster
        && watched.namespaced()
        && !fallback.is_empty()
        && forbidden(&refusal)
    {
        match make(client.clone(), Some(&fallback)).list(&probe).await {
            Ok(_) => {
                notices.push(format!(
                    "{resource}: cannot list them in all namespaces ({}); watching namespace {fallback} only: other namespaces' {resource} are hidden",
                    status_text(&refusal)
                ));
                return (Reach::Namespace(fallback), notices);
            }
            Err(again) => {
                notices.push(format!(
                    "{resource}: hidden: cannot list them in all namespaces nor in namespace {fallback} ({})",
                    status_text(&again)
                ));
                return (Reach::Hidden, notices);
            }
        }
    }
    let place = match &first {
        Reach::Namespace(ns) => format!("in namespace {ns}"),
        _ if watched.namespaced() => "in all namespaces".to_owned(),
        _ => "(cluster-scoped)".to_owned(),
    };
    notices.push(format!(
        "{resource}: hidden: cannot list them {place} ({})",
        status_text(&refusal)
    ));
    (Reach::Hidden, notices)
}

fn forbidden(error: &kube::Error) -> bool {
    matches!(error, kube::Error::Api(status) if status.code == 403)
}

/// An API error as `CODE: message`.
fn status_text(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) => format!("{}: {}", status.code, status.message),
        other => other.to_string(),
    }
}

/// Whether a watcher error is a `410 Gone`.
fn gone(error: &watcher::Error) -> bool {
    match error {
        watcher::Error::WatchStartFailed(kube::Error::Api(s))
        | watcher::Error::InitialListFailed(kube::Error::Api(s))
        | watcher::Error::WatchFailed(kube::Error::Api(s)) => s.code == 410,
        watcher::Error::WatchError(s) => s.as_ref().code == 410,
        _ => false,
    }
}

/// One resource's watcher, started again after a 410 at its watch's start,
/// until the observer goes.
async fn run<K: Watchable>(
    api: Api<K>,
    config: watcher::Config,
    watched: Watched,
    sender: mpsc::Sender<Input>,
) {
    let resource = watched.resource();
    loop {
        let mut events = watcher(api.clone(), config.clone())
            .default_backoff()
            .boxed();
        let mut restart = false;
        while let Some(item) = events.next().await {
            let input = match item {
                Ok(watcher::Event::Init) => Input::ListStart(watched),
                Ok(watcher::Event::InitApply(o)) => Input::Listed(watched, json(&o)),
                Ok(watcher::Event::InitDone) => Input::ListDone(watched),
                Ok(watcher::Event::Apply(o)) => Input::Applied(watched, json(&o)),
                Ok(watcher::Event::Delete(o)) => Input::Deleted(watched, json(&o)),
                Err(error) if gone(&error) => {
                    restart = matches!(error, watcher::Error::WatchStartFailed(_));
                    Input::Notice(format!(
                        "{resource}: 410 Gone: the watch's resourceVersion was compacted; relisting ({error})"
                    ))
                }
                Err(error) => Input::Notice(format!("{resource}: {error}; retrying with back-off")),
            };
            if sender.send(input).await.is_err() {
                return;
            }
            if restart {
                break;
            }
        }
        if !restart {
            return;
        }
    }
}

fn json<K: Serialize>(object: &K) -> serde_json::Value {
    serde_json::to_value(object).unwrap_or_default()
}
