//! What a component (kubectl, the scheduler, a kubelet, kube-controller-manager) may do when it runs:
//! send API requests, set timers ([`Timer`], one variant a purpose), and say
//! what it did, through [`Cx`]. Components never touch the store
//! (docs/architecture.md, rule 2).

use super::apiserver::request::Request;
use super::clock::SimTime;
use super::rng::Rng;
use super::trace::{Actor, EventObject, EventRecord, NodeName, Record, Stage};

/// Who a component is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ComponentId {
    Kubectl,
    Scheduler,
    Kubelet(String),
    /// kube-proxy on a node.
    KubeProxy(String),
    ControllerManager,
    /// A client outside the simulation: answers and watch events for it
    /// leave the engine ([`crate::engine::Engine::take_answers`]). It is
    /// known by the number of the request it sent (a watch's stream too).
    Remote {
        request: RequestId,
        client: Actor,
    },
}

impl ComponentId {
    /// The actor it is in the trace.
    pub fn actor(&self) -> Actor {
        match self {
            ComponentId::Kubectl => Actor::Kubectl,
            ComponentId::Scheduler => Actor::Scheduler,
            ComponentId::Kubelet(node) => Actor::Kubelet(NodeName::from(node.as_str())),
            ComponentId::KubeProxy(node) => Actor::KubeProxy(NodeName::from(node.as_str())),
            ComponentId::ControllerManager => Actor::ControllerManager,
            ComponentId::Remote { client, .. } => client.clone(),
        }
    }
}

/// What a timer is for, by the component that set it: the engine hands it
/// back to that component's `on_timer`, which matches its own kind of timer
/// exhaustively. `Copy` and two words at most: the event queue holds one per
/// pending timer and is cloned with every checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    Kubectl(KubectlTimer),
    Scheduler(SchedulerTimer),
    Kubelet(KubeletTimer),
    KubeProxy(KubeProxyTimer),
    ControllerManager(ControllerManagerTimer),
}

/// kubectl's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KubectlTimer {
    /// A `wait DURATION` is over.
    WaitOver,
    /// Commands arrived (the script starts, or the TUI's command bar).
    NewWork,
}

/// kube-scheduler's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerTimer {
    /// A scheduling cycle for the next pod of the active queue (`ScheduleOne`).
    ScheduleOne,
    /// The queue's flush: back-offs over, or unschedulable pods timed out.
    FlushQueue,
}

/// A kubelet's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KubeletTimer {
    /// The node Lease's renewal (`renewInterval`).
    LeaseRenewal,
    /// The node status sync (`nodeStatusUpdateFrequency`).
    NodeStatusSync,
    /// A pod worker's step falls due: its number in the kubelet's table of
    /// pending steps, which holds the pod and the step.
    PodWorkerStep(u64),
}

/// kube-proxy's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KubeProxyTimer {
    /// The rate-limited sync runs (`BoundedFrequencyRunner`, `minSyncPeriod`).
    SyncProxyRules,
}

/// kube-controller-manager's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControllerManagerTimer {
    /// Keys whose retry delay is over go back to their work queues.
    RetryDelayOver,
    /// The node lifecycle controller's monitor pass (`--node-monitor-period`).
    NodeMonitor,
    /// A taint eviction deadline, by the number the controller gave it when it
    /// scheduled the deletion (a cancelled one no longer matches).
    TaintEviction(u64),
    /// The pod garbage collector's pass (`gcCheckPeriod`).
    PodGc,
    /// Nothing to do: it keeps the cluster busy until the pod garbage
    /// collector's next pass (after a Node with Pods was deleted).
    PodGcHold,
    /// The PV controller's periodic resync (`--pvclaimbinder-sync-period`).
    PvResync,
}

impl From<KubectlTimer> for Timer {
    fn from(timer: KubectlTimer) -> Timer {
        Timer::Kubectl(timer)
    }
}

impl From<SchedulerTimer> for Timer {
    fn from(timer: SchedulerTimer) -> Timer {
        Timer::Scheduler(timer)
    }
}

impl From<KubeletTimer> for Timer {
    fn from(timer: KubeletTimer) -> Timer {
        Timer::Kubelet(timer)
    }
}

impl From<KubeProxyTimer> for Timer {
    fn from(timer: KubeProxyTimer) -> Timer {
        Timer::KubeProxy(timer)
    }
}

impl From<ControllerManagerTimer> for Timer {
    fn from(timer: ControllerManagerTimer) -> Timer {
        Timer::ControllerManager(timer)
    }
}

/// A request's number, unique in a run, for matching answers to requests
/// (the trace's `request`): counted from 1, so that an optional one costs
/// nothing beside it.
pub type RequestId = std::num::NonZeroU64;

/// Something a component asked the engine to do after it returns.
#[derive(Debug, Clone)]
pub enum Outgoing {
    /// Deliver this request to the API server.
    Request {
        id: RequestId,
        request: Box<Request>,
    },
    /// Wake the component after `delay_ms` with `timer`.
    Timer {
        delay_ms: u64,
        timer: Timer,
        background: bool,
    },
    /// Cut `node` off from the control plane (`faulted`), or reconnect it
    /// (the cluster language's `fault node` / `recover node`).
    NodeFault {
        node: String,
        faulted: bool,
        memory: bool,
    },
    /// Close the watches this component opened with a request (`get -w`).
    StopWatching,
}

/// A component's window on the engine while it handles one event.
pub struct Cx<'a> {
    pub now: SimTime,
    pub rng: &'a mut Rng,
    me: &'a ComponentId,
    records: &'a mut Vec<Record>,
    outgoing: &'a mut Vec<Outgoing>,
    next_request: &'a mut RequestId,
}

impl<'a> Cx<'a> {
    /// A context for `me` at `now`.
    pub fn new(
        now: SimTime,
        rng: &'a mut Rng,
        me: &'a ComponentId,
        records: &'a mut Vec<Record>,
        outgoing: &'a mut Vec<Outgoing>,
        next_request: &'a mut RequestId,
    ) -> Cx<'a> {
        Cx {
            now,
            rng,
            me,
            records,
            outgoing,
            next_request,
        }
    }

    /// Who the component is in the trace.
    pub fn me(&self) -> Actor {
        self.me.actor()
    }

    /// Sends `request` to the API server; the arrow is drawn now.
    pub fn send(&mut self, request: Request) -> RequestId {
        let id = *self.next_request;
        *self.next_request = id.saturating_add(1);
        self.records.push(Record::Message {
            from: request.client.clone(),
            to: Actor::ApiServer,
            label: request.label(),
            request: Some(id),
        });
        self.outgoing.push(Outgoing::Request {
            id,
            request: Box::new(request),
        });
        id
    }

    /// Wakes this component after `delay_ms` with `timer` (one of its own kind).
    pub fn after(&mut self, delay_ms: u64, timer: impl Into<Timer>) {
        self.outgoing.push(Outgoing::Timer {
            delay_ms,
            timer: timer.into(),
            background: false,
        });
    }

    /// Like [`Cx::after`], for periodic work that does not keep the cluster busy.
    pub fn after_background(&mut self, delay_ms: u64, timer: impl Into<Timer>) {
        self.outgoing.push(Outgoing::Timer {
            delay_ms,
            timer: timer.into(),
            background: true,
        });
    }

    /// Closes the watches this component opened with requests.
    pub fn stop_watching(&mut self) {
        self.outgoing.push(Outgoing::StopWatching);
    }

    /// Cuts `node`'s kubelet off from the API server, or reconnects it.
    /// With `memory`, its memory is taken instead (`fault node NODE memory-pressure`).
    pub fn fault_node(&mut self, node: &str, faulted: bool, memory: bool) {
        self.outgoing.push(Outgoing::NodeFault {
            node: node.to_owned(),
            faulted,
            memory,
        });
    }

    /// Records an arrow between two components that are not the API server
    /// (kubelet → containerd, containerd → registry, ...).
    pub fn message(&mut self, from: &Actor, to: &Actor, label: impl Into<String>) {
        self.records
            .push(Record::message(from.clone(), to.clone(), label));
    }

    /// Records a stage.
    pub fn stage(&mut self, stage: Stage) {
        self.records.push(Record::from(stage));
    }

    /// Records a log line of `component` (on `node`, for node components).
    pub fn log(&mut self, component: &Actor, node: Option<&str>, line: String) {
        self.records.push(Record::Log {
            component: component.clone(),
            node: node.map(str::to_owned),
            line,
        });
    }

    /// Records a `core/v1` Event.
    pub fn event(&mut self, event: EventRecord) {
        self.records.push(Record::Event(Box::new(event)));
    }
}

/// Builds an Event about a Pod (or one of its containers, with `field_path`).
pub fn pod_event(
    warning: bool,
    reason: &str,
    message: impl Into<String>,
    pod: (&str, &str),
    field_path: Option<String>,
    source: &str,
) -> EventRecord {
    EventRecord {
        event_type: if warning { "Warning" } else { "Normal" }.into(),
        reason: reason.into(),
        message: message.into(),
        object: EventObject {
            kind: "Pod".into(),
            namespace: Some(pod.0.to_owned()),
            name: pod.1.to_owned(),
            field_path,
        },
        source: source.into(),
    }
}
