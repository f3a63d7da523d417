//! The engine: a queue of events in simulated time, the store, the API server
//! and the components. `step()` handles one event and returns the trace records
//! it produced; `run_until()` is only a loop over `step()`. How the cluster
//! stands when the story starts is `bootstrap.rs` (its storage objects,
//! `starting_storage.rs`); a node cut off from the control plane is `faults.rs`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use self::faults::Held;
use super::apiserver::admission::Plugin;
use super::apiserver::authn::TokenAuthenticator;
use super::apiserver::handler::{ApiServer, Detail, Parked, Response};
use super::apiserver::request::{Credentials, Request, Verb};
use super::clock::SimTime;
use super::component::{ComponentId, Cx, KubectlTimer, Outgoing, RequestId, Timer};
use super::controllers::ControllerManager;
use super::kube_proxy::KubeProxy;
use super::kubectl::{Command, Kubectl};
use super::kubelet::{ImageRegistry, Kubelet};
use super::queue::EventQueue;
use super::rng::Rng;
use super::scheduler::Scheduler;
use super::shared_stages::SharedStages;
use super::store::{Change, Free, Retiring, Store, WatchEvent, WatchFilter};
use super::trace::{Record, Stage, TraceRecord};
use super::watches::{Subscription, Watches};
use crate::trace::{Actor, Outcome, StageName};
use foldhash::fast::FixedState;
use podflow_model::Object;

mod bootstrap;
mod event_recorder;
mod faults;
mod pod_exec;
pub use pod_exec::command_query;
mod pod_logs;
mod starting_storage;

/// How long a message takes between two components, in simulated milliseconds.
const HOP_MS: u64 = 1;

/// Everything the engine starts from.
#[derive(Clone)]
pub struct Setup {
    /// The seed of every random choice.
    pub seed: u64,
    /// The cluster's objects at the start, already reconciled.
    pub objects: Vec<Object>,
    /// Token authenticator users: token → user.
    pub tokens: TokenAuthenticator,
    /// The image registry the nodes pull from.
    pub registry: ImageRegistry,
    /// What kubectl does, in order.
    pub commands: Vec<Command>,
    /// Who kubectl is.
    pub identity: Credentials,
    /// How much the trace carries.
    pub detail: Detail,
    /// kube-scheduler's profiles (from a `KubeSchedulerConfiguration`, or the default).
    pub scheduler_profiles: Vec<super::scheduler::profile::ProfilePlugins>,
    /// Whether components also send their Events to the API server as
    /// objects (`podflow serve`; the stories keep them as trace records).
    pub store_events: bool,
    /// Whether repeated stages are kept once and shared ([`SharedStages`]):
    /// for a run whose records are kept (the TUI, `trace --format text`); one
    /// written out record by record (`trace --format jsonl`) drops each at
    /// once, and looking stages up would only cost.
    pub share_stages: bool,
    /// Whether the nodes reach the internet (the `Simulation`'s `internet`).
    pub internet: bool,
}

/// One queued happening.
#[derive(Debug, Clone)]
enum Event {
    /// A request reaches the API server.
    Request {
        id: RequestId,
        from: ComponentId,
        request: Box<Request>,
    },
    /// A request parked in admission goes on ([`Parked`]).
    Resume {
        id: RequestId,
        from: ComponentId,
        request: Box<Request>,
        parked: Box<Parked>,
    },
    /// An answer reaches the client.
    Response {
        id: RequestId,
        to: ComponentId,
        response: Box<Response>,
    },
    /// A watch event reaches a watcher.
    Watch { to: ComponentId, event: WatchEvent },
    /// A component's timer fires.
    Timer { to: ComponentId, timer: Timer },
    /// The API server's periodic etcd compaction.
    Compact,
    /// An Event's etcd lease runs out (`--event-ttl`): the key goes.
    LeaseExpired { key: String },
}

/// Mixed into the seed of kube-controller-manager's delivery-jitter stream.
const CONTROLLER_MANAGER_STREAM: u64 = 0x6b63_6d00;

/// Mixed into the seed of the kube-proxies' delivery-jitter stream.
const KUBE_PROXY_STREAM: u64 = 0x6b70_7800;

/// How often kube-apiserver compacts etcd (`--etcd-compaction-interval`, 5 minutes).
const COMPACTION_INTERVAL_MS: u64 = 5 * 60 * 1000;

/// When `run_until` stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// Nothing left to do but background work, or 30 simulated minutes since the start.
    Idle,
    /// Nothing left to do, or this moment, whichever is first.
    IdleOr(SimTime),
    /// This much simulated time since the start.
    Time(SimTime),
}

/// The longest `Until::Idle` runs: 30 simulated minutes (`podflow trace --help`, `--until`).
pub const IDLE_LIMIT: SimTime = SimTime(30 * 60 * 1000);

/// The simulated cluster.
#[derive(Clone)]
pub struct Engine {
    now: SimTime,
    seq: u64,
    next_request: RequestId,
    rng: Rng,
    /// The delivery jitter of kube-controller-manager's watches: a stream of
    /// its own, so adding its watches leaves every other random draw as it was.
    controller_manager_rng: Rng,
    /// The kube-proxies' watches' delivery jitter, a stream of its own likewise.
    kube_proxy_rng: Rng,
    queue: EventQueue<Event>,
    store: Store,
    /// The API server's stages, each distinct one kept once in the trace.
    shared_stages: SharedStages,
    authn: Arc<TokenAuthenticator>,
    admission: Arc<Vec<Box<dyn Plugin>>>,
    detail: Detail,
    watches: Watches,
    /// When each watcher's latest watch event arrives, to keep its stream in order.
    last_delivery: BTreeMap<ComponentId, SimTime>,
    /// The revision the next compaction compacts to (the one the previous tick saw).
    compact_next: u64,
    kubectl: Kubectl,
    scheduler: Scheduler,
    kubelets: BTreeMap<String, Kubelet>,
    /// Each node's kube-proxy, beside its kubelet.
    kube_proxies: BTreeMap<String, KubeProxy>,
    controller_manager: ControllerManager,
    /// Nodes cut off from the control plane (`fault node`), and what their
    /// kubelets would have sent and received meanwhile.
    faults: BTreeMap<String, Held>,
    /// What reached clients outside the simulation since they last asked.
    outbox: Vec<Answer>,
    /// Whether Events are also written as objects ([`Setup::store_events`]).
    store_events: bool,
    /// Each Event series sent so far: its key → (namespace, name, count).
    event_series: BTreeMap<String, (String, String, i32)>,
    /// How many Events were created, to keep their names apart.
    events_created: u64,
    /// Off a served cluster, the Events the API server keeps in memory, by
    /// series ([`Engine::remember_event`]), shared with the checkpoints
    /// until a repeat counts in one. Hashed: a series is looked up for
    /// every Event (a sorted map compared a dozen long keys out of the
    /// caches each time), and a `LIST` sorts what it takes.
    kept_events: HashMap<Arc<str>, Arc<k8s_openapi::api::core::v1::Event>, FixedState>,
    /// Their series in the order they came, to forget the oldest.
    kept_order: std::collections::VecDeque<Arc<str>>,
    /// Where a forgotten kept Event is freed ([`Engine::free_given_up_with`]).
    forgotten_events: Retiring,
}

/// What a client outside the simulation hands the engine: a request, or
/// the end of a watch (a replayed session's inputs, [`crate::timeline::Timeline::schedule`]).
#[derive(Debug, Clone)]
pub enum Input {
    Request(Box<Request>),
    StopWatch(RequestId),
}

/// What the engine hands a client outside the simulation.
#[derive(Debug, Clone)]
pub enum Answer {
    /// The answer to request `request`.
    Response {
        request: RequestId,
        response: Box<Response>,
    },
    /// An event of the watch that request `stream` opened.
    Watch {
        stream: RequestId,
        event: WatchEvent,
    },
}

/// A cheap, immutable view of the cluster at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub now: SimTime,
    pub store: Store,
}

impl Engine {
    /// A cluster holding `setup.objects`, its components synced to them, and
    /// kubectl about to run `setup.commands`.
    pub fn new(setup: Setup) -> Engine {
        let mut rng = Rng::new(setup.seed);
        let store = bootstrap::starting_store(setup.objects, setup.seed, &mut rng);
        let nodes: Vec<String> = store
            .range("/registry/nodes/")
            .map(|(_, e)| e.object.name().to_owned())
            .collect();
        let mut tokens = setup.tokens;
        super::controllers::client::register_tokens(&mut tokens);
        let mut engine = Engine {
            now: SimTime::ZERO,
            seq: 0,
            next_request: RequestId::MIN,
            rng,
            controller_manager_rng: Rng::new(setup.seed ^ CONTROLLER_MANAGER_STREAM),
            kube_proxy_rng: Rng::new(setup.seed ^ KUBE_PROXY_STREAM),
            queue: EventQueue::default(),
            store,
            shared_stages: SharedStages::sharing(setup.share_stages),
            authn: Arc::new(tokens),
            admission: Arc::new(super::apiserver::admission::default_chain()),
            detail: setup.detail,
            watches: Watches::default(),
            last_delivery: BTreeMap::new(),
            compact_next: 0,
            kubectl: Kubectl::new(setup.commands, setup.identity),
            scheduler: if setup.detail == Detail::Summary {
                Scheduler::new(setup.scheduler_profiles).summarised()
            } else {
                Scheduler::new(setup.scheduler_profiles)
            },
            kubelets: BTreeMap::new(),
            kube_proxies: BTreeMap::new(),
            controller_manager: ControllerManager::default(),
            faults: BTreeMap::new(),
            outbox: Vec::new(),
            store_events: setup.store_events,
            event_series: BTreeMap::new(),
            events_created: 0,
            kept_events: HashMap::default(),
            kept_order: std::collections::VecDeque::new(),
            forgotten_events: Retiring::here(),
        };
        let registry = Arc::new(setup.registry);
        for node in nodes {
            engine.kubelets.insert(node.clone(), {
                let mut kubelet = Kubelet::new(&node, Arc::clone(&registry));
                kubelet.set_internet(setup.internet);
                kubelet
            });
            engine
                .kube_proxies
                .insert(node.clone(), KubeProxy::new(&node));
        }
        engine.start_informers();
        engine.start_heartbeats();
        engine
            .queue
            .push(SimTime(COMPACTION_INTERVAL_MS), Event::Compact, true);
        engine.queue.push(
            SimTime::ZERO,
            Event::Timer {
                to: ComponentId::Kubectl,
                timer: KubectlTimer::NewWork.into(),
            },
            false,
        );
        engine
    }

    /// Registers every component's watches and hands each the objects it
    /// would have listed first (the informers are synced before the story starts).
    fn start_informers(&mut self) {
        let pods = podflow_model::kinds::kind_of("Pod");
        let nodes = podflow_model::kinds::kind_of("Node");
        let mut subs = vec![
            Subscription {
                watcher: ComponentId::Scheduler,
                filter: WatchFilter::all(pods),
            },
            Subscription {
                watcher: ComponentId::Scheduler,
                filter: WatchFilter::all(nodes),
            },
        ];
        // The scheduler's and the kubelets' storage informers (`VolumeBinding`, the volume manager).
        for kind in ["PersistentVolumeClaim", "PersistentVolume", "StorageClass"] {
            let kind = podflow_model::kinds::kind_of(kind);
            subs.push(Subscription {
                watcher: ComponentId::Scheduler,
                filter: WatchFilter::all(kind),
            });
            if kind.kind == "StorageClass" {
                continue;
            }
            // Simplified: upstream's populator GETs the pod's claim and volume.
            for node in self.kubelets.keys() {
                subs.push(Subscription {
                    watcher: ComponentId::Kubelet(node.clone()),
                    filter: WatchFilter::all(kind),
                });
            }
        }
        for node in self.kubelets.keys() {
            let me = ComponentId::Kubelet(node.clone());
            subs.push(Subscription {
                watcher: me.clone(),
                filter: WatchFilter::all(pods).with_field("spec.nodeName", node),
            });
            subs.push(Subscription {
                watcher: me.clone(),
                filter: WatchFilter::all(nodes).with_field("metadata.name", node),
            });
            // The kubelet's Service informer: service env vars and cluster DNS.
            subs.push(Subscription {
                watcher: me.clone(),
                filter: WatchFilter::all(podflow_model::kinds::kind_of("Service")),
            });
            // Its ConfigMap and Secret managers: env and volumes.
            for kind in ["ConfigMap", "Secret"] {
                subs.push(Subscription {
                    watcher: me.clone(),
                    filter: WatchFilter::all(podflow_model::kinds::kind_of(kind)),
                });
            }
        }
        // Each kube-proxy's Service and EndpointSlice informers.
        for node in self.kube_proxies.keys() {
            for kind in super::kube_proxy::WATCHED {
                subs.push(Subscription {
                    watcher: ComponentId::KubeProxy(node.clone()),
                    filter: WatchFilter::all(podflow_model::kinds::kind_of(kind)),
                });
            }
        }
        for kind in super::controllers::WATCHED {
            subs.push(Subscription {
                watcher: ComponentId::ControllerManager,
                filter: WatchFilter::all(podflow_model::kinds::kind_of(kind)),
            });
        }
        for sub in &subs {
            let listed = self.store.list(&sub.filter);
            match &sub.watcher {
                ComponentId::Scheduler => self.scheduler.initial_list(&listed),
                ComponentId::Kubelet(node) => {
                    if let Some(k) = self.kubelets.get_mut(node) {
                        k.initial_list(&listed);
                    }
                }
                ComponentId::KubeProxy(node) => {
                    if let Some(p) = self.kube_proxies.get_mut(node) {
                        p.initial_list(&listed);
                    }
                }
                ComponentId::ControllerManager => self.controller_manager.initial_list(&listed),
                ComponentId::Kubectl | ComponentId::Remote { .. } => {}
            }
        }
        self.watches = Watches::new(subs);
        // The rules each kube-proxy wrote from what it listed.
        for (node, proxy) in &self.kube_proxies {
            if let Some(k) = self.kubelets.get_mut(node) {
                k.set_proxy_rules(proxy.table());
            }
        }
    }

    /// Arms the periodic background work: each kubelet's Lease renewal and
    /// node status sync, the node lifecycle controller's monitor, the pod
    /// garbage collector's pass and the PV controller's resync.
    fn start_heartbeats(&mut self) {
        use super::kubelet::heartbeat;
        for node in self.kubelets.keys() {
            for (timer, delay) in heartbeat::first_timers() {
                self.queue.push(
                    SimTime(delay),
                    Event::Timer {
                        to: ComponentId::Kubelet(node.clone()),
                        timer: timer.into(),
                    },
                    true,
                );
            }
        }
        for (timer, delay) in [
            super::controllers::first_monitor_timer(),
            super::controllers::first_pod_gc_timer(),
            super::controllers::first_pv_resync_timer(),
        ] {
            self.queue.push(
                SimTime(delay),
                Event::Timer {
                    to: ComponentId::ControllerManager,
                    timer: timer.into(),
                },
                true,
            );
        }
    }

    /// Simulated time now.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The store, read-only.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// A cheap snapshot of the cluster now.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            now: self.now,
            store: self.store.clone(),
        }
    }

    /// Hands kubectl another command (the TUI's command bar); it runs after
    /// the ones before it.
    pub fn submit(&mut self, command: Command) {
        self.kubectl.push(command);
        let event = Event::Timer {
            to: ComponentId::Kubectl,
            timer: KubectlTimer::NewWork.into(),
        };
        self.queue.push(self.now, event, false);
    }

    /// A request from a client outside the simulation (`podflow serve`'s):
    /// it reaches the API server now, and its answer (and, for a watch, its
    /// events) come back through [`Engine::take_answers`] under the number returned.
    pub fn receive(&mut self, request: Request) -> RequestId {
        let id = self.next_request;
        self.next_request = id.saturating_add(1);
        let from = ComponentId::Remote {
            request: id,
            client: request.client.clone(),
        };
        let event = Event::Request {
            id,
            from,
            request: Box::new(request),
        };
        self.queue.push(self.now, event, false);
        id
    }

    /// The answers and watch events that reached outside clients, in order.
    pub fn take_answers(&mut self) -> Vec<Answer> {
        std::mem::take(&mut self.outbox)
    }

    /// Ends the watch that request `stream` opened (its client went away).
    pub fn stop_watch(&mut self, stream: RequestId) {
        let gone = |id: &ComponentId| matches!(id, ComponentId::Remote { request, .. } if *request == stream);
        self.watches.remove(gone);
        self.last_delivery.retain(|id, _| !gone(id));
    }

    /// How many watches outside clients hold open.
    pub fn outside_watches(&self) -> usize {
        self.watches
            .count(|id| matches!(id, ComponentId::Remote { .. }))
    }

    /// Lets time pass to `t` with nothing happening: the caller has run every
    /// event up to `t` (a live run paced by the wall clock), so a request
    /// received next arrives at `t`, not at the last event's time.
    pub fn idle_until(&mut self, t: SimTime) {
        if self.queue.peek_time().is_none_or(|next| next > t) {
            self.now = self.now.max(t);
        }
    }

    /// When the next queued event falls due, if any is queued.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.queue.peek_time()
    }

    /// Whether nothing is left to do but background work.
    pub fn is_idle(&self) -> bool {
        self.queue.is_idle() && !self.kubectl.waiting_for_idle()
    }

    /// Handles the next event; returns the records it produced (empty when nothing is queued).
    pub fn step(&mut self) -> Vec<TraceRecord> {
        if self.queue.is_idle() && self.kubectl.waiting_for_idle() {
            return self.with_component(&ComponentId::Kubectl, |c, cx| {
                if let Comp::Kubectl(k) = c {
                    k.on_idle(cx);
                }
            });
        }
        let Some((at, event)) = self.queue.pop() else {
            return Vec::new();
        };
        self.now = self.now.max(at);
        match event {
            Event::Request { id, from, request } => self.serve(id, from, request, None),
            Event::Resume {
                id,
                from,
                request,
                parked,
            } => self.serve(id, from, request, Some(parked)),
            Event::Response {
                id,
                to: ComponentId::Remote { .. },
                response,
            } => {
                self.outbox.push(Answer::Response {
                    request: id,
                    response,
                });
                Vec::new()
            }
            Event::Response { id, to, response } => {
                self.with_component(&to, |c, cx| c.on_response(id, &response, cx))
            }
            Event::Watch {
                to: to @ ComponentId::Remote { request, .. },
                event,
            } => {
                let record = watch_record(&to, &event);
                self.outbox.push(Answer::Watch {
                    stream: request,
                    event,
                });
                self.stamp(vec![record])
            }
            Event::Watch { to, event } => {
                let mut records = vec![watch_record(&to, &event)];
                records.extend(self.dispatch(&to, |c, cx| c.on_watch(&event, cx)));
                self.stamp(records)
            }
            Event::Timer { to, timer } => self.with_component(&to, |c, cx| c.on_timer(timer, cx)),
            Event::Compact => self.compact(),
            Event::LeaseExpired { key } => self.expire_event(&key),
        }
    }

    /// Steps until `until`; returns every record produced.
    pub fn run_until(&mut self, until: Until) -> Vec<TraceRecord> {
        let mut out = Vec::new();
        self.run_until_with(until, |records| {
            out.extend(records);
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap_or_else(|never| match never {});
        out
    }

    /// Runs as [`Engine::run_until`] does, handing each step's records to
    /// `sink` as they come (`podflow trace` writes them out at once, so a
    /// long run never holds its whole trace). Stops at `sink`'s first error.
    pub fn run_until_with<E>(
        &mut self,
        until: Until,
        mut sink: impl FnMut(Vec<TraceRecord>) -> Result<(), E>,
    ) -> Result<(), E> {
        while let Some(records) = self.step_within(until) {
            sink(records)?;
        }
        if let Until::Time(t) = until {
            self.now = self.now.max(t);
        }
        Ok(())
    }

    /// The next step's records, or `None` when `until` says the run is over.
    pub fn step_within(&mut self, until: Until) -> Option<Vec<TraceRecord>> {
        let (idle_stops, limit) = match until {
            Until::Idle => (true, IDLE_LIMIT),
            Until::IdleOr(t) => (true, t),
            Until::Time(t) => (false, t),
        };
        if idle_stops && self.is_idle() {
            return None;
        }
        let resume_kubectl = self.queue.is_idle() && self.kubectl.waiting_for_idle();
        if !resume_kubectl && self.queue.peek_time().is_none_or(|t| t > limit) {
            return None;
        }
        Some(self.step())
    }

    /// Compacts etcd to the revision the previous tick saw, as the API
    /// server's compactor does (`staging/src/k8s.io/apiserver/pkg/storage/etcd3/compact.go`).
    fn compact(&mut self) -> Vec<TraceRecord> {
        let target = std::mem::replace(&mut self.compact_next, self.store.revision());
        self.queue
            .push(self.now.plus(COMPACTION_INTERVAL_MS), Event::Compact, true);
        if target <= self.store.compacted() {
            return Vec::new();
        }
        self.store.compact(target);
        let mut stage = Stage::new(
            Actor::Etcd,
            StageName::Compact,
            Outcome::Ok,
            format!("history up to revision {target} forgotten"),
        );
        stage.extra_mut().revision = Some(target);
        self.stamp(vec![
            Record::message(
                Actor::ApiServer,
                Actor::Etcd,
                format!("compact revision {target}"),
            ),
            Record::from(stage),
        ])
    }

    /// Hands what the engine gives up to `free`, in batches
    /// ([`Retiring`]): the old object versions that leave etcd's watch
    /// history, and the kept Events that leave their window. A batch run
    /// frees them on its otherwise idle second core.
    pub fn free_given_up_with(&mut self, free: Free) {
        self.store.free_history_with(Arc::clone(&free));
        self.forgotten_events = Retiring::with(free);
    }

    /// The `final` record: every object in the store.
    pub fn final_record(&mut self) -> TraceRecord {
        let seq = self.seq;
        self.seq += 1;
        TraceRecord {
            seq,
            t_ms: self.now.as_millis(),
            body: Record::Final {
                objects: self
                    .store
                    .iter()
                    .map(|(_, e)| Arc::clone(&e.object))
                    .collect(),
            },
        }
    }

    /// The API server handles a request; the answer and the watch events it
    /// caused are queued for their receivers.
    /// A request parked in admission is queued again for when its plugin
    /// looks again, and answers nothing yet.
    fn serve(
        &mut self,
        id: RequestId,
        from: ComponentId,
        request: Box<Request>,
        resume: Option<Box<Parked>>,
    ) -> Vec<TraceRecord> {
        let remote = matches!(from, ComponentId::Remote { .. });
        let resumed = resume.is_some();
        let server = ApiServer {
            authn: &self.authn,
            admission: &self.admission,
            detail: self.detail,
        };
        let mut handled = match resume {
            None => server.handle(
                &mut self.store,
                &mut self.rng,
                &mut self.shared_stages,
                self.now,
                id,
                &request,
            ),
            Some(parked) => server.resume(
                &mut self.store,
                &mut self.rng,
                &mut self.shared_stages,
                self.now,
                (id, &request),
                parked,
            ),
        };
        if let Some(parked) = handled.parked.take() {
            let mut records = handled.records;
            if remote && !resumed {
                records.insert(0, arrival(&request, id));
            }
            let at = self.now.plus(parked.retry_ms);
            let event = Event::Resume {
                id,
                from,
                request,
                parked,
            };
            self.queue.push(at, event, false);
            return self.stamp(records);
        }
        let request = &*request;
        let via_kubelet = matches!(request.subresource.as_deref(), Some("log" | "exec"));
        if via_kubelet && handled.response.code == 200 {
            // The answer waits for the kubelet: its record comes after the kubelet's.
            let answered = handled.records.pop();
            if request.subresource.as_deref() == Some("exec") {
                self.answer_pod_exec(request, &mut handled.response, &mut handled.records);
            } else {
                self.answer_pod_log(request, &mut handled.response, &mut handled.records);
            }
            if let Some(Record::Response { to, request, .. }) = answered {
                handled.records.push(Record::Response {
                    to,
                    code: handled.response.code,
                    message: handled.response.message(),
                    request,
                });
            }
        }
        // Off a served cluster, a LIST of Events is answered from the
        // Events the API server keeps in memory.
        if !self.store_events
            && request.verb == Verb::List
            && request.kind.kind == "Event"
            && handled.response.code == 200
        {
            handled.response.items.extend(self.kept_events_for(request));
        }
        let respond_at = self.now.plus(HOP_MS);
        // An outside client's watch, or kubectl's `get -w`.
        let watching = (remote || from == ComponentId::Kubectl)
            && request.verb == Verb::Watch
            && handled.response.code == 200;
        self.queue.push(
            respond_at,
            Event::Response {
                id,
                to: from.clone(),
                response: Box::new(handled.response),
            },
            false,
        );
        if watching {
            self.open_remote_watch(from, request);
        }
        self.fan_out(&handled.changes);
        self.expire_events_later(&handled.changes);
        let mut records = handled.records;
        if remote && !resumed {
            records.insert(0, arrival(request, id));
        }
        self.stamp(records)
    }

    /// Queues the watch events `changes` make for each watcher that sees them.
    fn fan_out(&mut self, changes: &[Change]) {
        for change in changes {
            for sub in self.watches.candidates(change) {
                if let Some(event) = sub.filter.event_for(change) {
                    // A faulted node's kubelet hears nothing until it reconnects.
                    if let ComponentId::Kubelet(node) = &sub.watcher
                        && let Some(held) = self.faults.get_mut(node)
                    {
                        held.watches.push(event);
                        continue;
                    }
                    // Nor does its kube-proxy.
                    if let ComponentId::KubeProxy(node) = &sub.watcher
                        && let Some(held) = self.faults.get_mut(node)
                    {
                        held.proxy_watches.push(event);
                        continue;
                    }
                    // A watch stream delivers in order: never before the watcher's previous event.
                    let jitter = match sub.watcher {
                        ComponentId::ControllerManager => self.controller_manager_rng.below(3),
                        ComponentId::KubeProxy(_) => self.kube_proxy_rng.below(3),
                        // An outside client's watch draws nothing: the run's
                        // random choices stay the same whoever watches.
                        ComponentId::Remote { .. } => 0,
                        _ => self.rng.below(3),
                    };
                    let jittered = self.now.plus(HOP_MS + jitter);
                    let last = self.last_delivery.entry(sub.watcher.clone()).or_default();
                    *last = (*last).max(jittered);
                    self.queue.push(
                        *last,
                        Event::Watch {
                            to: sub.watcher.clone(),
                            event,
                        },
                        false,
                    );
                }
            }
        }
    }

    /// Registers a watch opened with a request (an outside client's, or
    /// kubectl's `get -w`), and queues the changes after the
    /// resourceVersion it asked to start from (the API server's watch cache
    /// replays them, `cacher.go`, `Watch`); without one, the client was sent
    /// the current objects with the answer.
    fn open_remote_watch(&mut self, watcher: ComponentId, request: &Request) {
        let filter = request.watch_filter();
        if let Some(from) = request.resource_version.filter(|rv| *rv > 0)
            && let Ok(changes) = self.store.changes_since(from)
        {
            let at = self.now.plus(HOP_MS);
            let events: Vec<WatchEvent> = changes.filter_map(|c| filter.event_for(c)).collect();
            for event in events {
                let to = watcher.clone();
                self.queue.push(at, Event::Watch { to, event }, false);
            }
            self.last_delivery.insert(watcher.clone(), at);
        }
        self.watches.add(Subscription { watcher, filter });
    }

    fn with_component(
        &mut self,
        who: &ComponentId,
        f: impl FnOnce(&mut Comp<'_>, &mut Cx<'_>),
    ) -> Vec<TraceRecord> {
        let records = self.dispatch(who, f);
        self.stamp(records)
    }

    /// Runs `f` on the component `who` and queues what it asked for.
    fn dispatch(
        &mut self,
        who: &ComponentId,
        f: impl FnOnce(&mut Comp<'_>, &mut Cx<'_>),
    ) -> Vec<Record> {
        let mut records = Vec::new();
        let mut outgoing = Vec::new();
        {
            let mut cx = Cx::new(
                self.now,
                &mut self.rng,
                who,
                &mut records,
                &mut outgoing,
                &mut self.next_request,
            );
            let mut comp = match who {
                ComponentId::Kubectl => Comp::Kubectl(&mut self.kubectl),
                ComponentId::Scheduler => Comp::Scheduler(&mut self.scheduler),
                ComponentId::Kubelet(node) => match self.kubelets.get_mut(node) {
                    Some(k) => Comp::Kubelet(k),
                    None => return records,
                },
                ComponentId::KubeProxy(node) => match self.kube_proxies.get_mut(node) {
                    Some(p) => Comp::KubeProxy(p),
                    None => return records,
                },
                ComponentId::ControllerManager => {
                    Comp::ControllerManager(&mut self.controller_manager)
                }
                // Answers and watch events for outside clients leave in `step`.
                ComponentId::Remote { .. } => return records,
            };
            f(&mut comp, &mut cx);
        }
        for out in outgoing {
            match out {
                Outgoing::Request { id, request } => {
                    if let ComponentId::Kubelet(node) = who
                        && let Some(held) = self.faults.get_mut(node)
                    {
                        held.requests.push((id, request));
                        continue;
                    }
                    let at = self.now.plus(HOP_MS);
                    self.queue.push(
                        at,
                        Event::Request {
                            id,
                            from: who.clone(),
                            request,
                        },
                        false,
                    );
                }
                Outgoing::Timer {
                    delay_ms,
                    timer,
                    background,
                } => {
                    self.queue.push(
                        self.now.plus(delay_ms),
                        Event::Timer {
                            to: who.clone(),
                            timer,
                        },
                        background,
                    );
                }
                Outgoing::NodeFault {
                    node,
                    faulted,
                    memory,
                } => {
                    if memory || !faulted {
                        self.set_memory_fault(&node, faulted, memory, &mut records);
                    }
                    if !memory {
                        self.set_fault(&node, faulted, &mut records);
                    }
                }
                Outgoing::StopWatching => self.watches.remove(|c| c == who),
            }
        }
        if let ComponentId::KubeProxy(node) = who {
            self.hand_rules_to_node(node, &mut records);
        }
        for record in &records {
            if let Record::Event(event) = record {
                let by = who.actor();
                if self.store_events {
                    self.send_event(&by, event);
                } else {
                    self.remember_event(&by, event);
                }
            }
        }
        records
    }

    /// After kube-proxy ran on `node`: the rules it wrote are what the node's
    /// packets go through from now on; processes that poll the network see
    /// them at once (as they do a Service's change).
    fn hand_rules_to_node(&mut self, node: &str, records: &mut Vec<Record>) {
        let Some(table) = self.kube_proxies.get(node).map(KubeProxy::table) else {
            return;
        };
        let kubelet = ComponentId::Kubelet(node.to_owned());
        records.extend(self.dispatch(&kubelet, |c, cx| {
            if let Comp::Kubelet(k) = c {
                k.proxy_rules_written(table, cx);
            }
        }));
    }

    /// Gives records their sequence numbers and the current time.
    fn stamp(&mut self, records: Vec<Record>) -> Vec<TraceRecord> {
        records
            .into_iter()
            .map(|body| {
                let seq = self.seq;
                self.seq += 1;
                TraceRecord {
                    seq,
                    t_ms: self.now.as_millis(),
                    body,
                }
            })
            .collect()
    }
}

/// A borrowed component, for dispatch.
enum Comp<'a> {
    Kubectl(&'a mut Kubectl),
    Scheduler(&'a mut Scheduler),
    Kubelet(&'a mut Kubelet),
    KubeProxy(&'a mut KubeProxy),
    ControllerManager(&'a mut ControllerManager),
}

impl Comp<'_> {
    fn on_watch(&mut self, event: &WatchEvent, cx: &mut Cx<'_>) {
        match self {
            Comp::Kubectl(k) => k.on_watch(event, cx),
            Comp::Scheduler(s) => s.on_watch(event, cx),
            Comp::Kubelet(k) => k.on_watch(event, cx),
            Comp::KubeProxy(p) => p.on_watch(event, cx),
            Comp::ControllerManager(m) => m.on_watch(event, cx),
        }
    }

    fn on_response(&mut self, id: RequestId, response: &Response, cx: &mut Cx<'_>) {
        match self {
            Comp::Kubectl(k) => k.on_response(id, response, cx),
            Comp::Scheduler(s) => s.on_response(id, response, cx),
            Comp::Kubelet(k) => k.on_response(id, response, cx),
            // kube-proxy sends no requests: its informers are synced before the story.
            Comp::KubeProxy(_) => {}
            Comp::ControllerManager(m) => m.on_response(id, response, cx),
        }
    }

    /// A timer goes back to the component that set it ([`Engine::dispatch`]
    /// queues it for `who`), so its kind is that component's.
    fn on_timer(&mut self, timer: Timer, cx: &mut Cx<'_>) {
        match (self, timer) {
            (Comp::Kubectl(k), Timer::Kubectl(t)) => k.on_timer(t, cx),
            (Comp::Scheduler(s), Timer::Scheduler(t)) => s.on_timer(t, cx),
            (Comp::Kubelet(k), Timer::Kubelet(t)) => k.on_timer(t, cx),
            (Comp::KubeProxy(p), Timer::KubeProxy(t)) => p.on_timer(t, cx),
            (Comp::ControllerManager(m), Timer::ControllerManager(t)) => m.on_timer(t, cx),
            (_, timer) => unreachable!("{timer:?} fired at a component that did not set it"),
        }
    }
}

/// An outside client's arrow, drawn when its request arrives.
fn arrival(request: &Request, id: RequestId) -> Record {
    Record::Message {
        from: request.client.clone(),
        to: Actor::ApiServer,
        label: request.label(),
        request: Some(id),
    }
}

/// The `watch` record of an event reaching a watcher.
fn watch_record(to: &ComponentId, event: &WatchEvent) -> Record {
    Record::Watch(Box::new(super::trace::WatchRecord {
        watcher: to.actor(),
        event_type: event.event_type.as_str().into(),
        resource: event.object.kind().resource.into(),
        namespace: event.object.namespace().map(str::to_owned),
        name: event.object.name().into(),
        resource_version: event.revision.to_string(),
        fields: Vec::new(),
    }))
}
