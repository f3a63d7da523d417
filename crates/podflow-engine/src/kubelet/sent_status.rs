//! The Pod status the kubelet sends, typed: what the status manager keeps as
//! the last status it sent (`pkg/kubelet/status/status_manager.go`, its
//! `podStatuses` cache holds a typed `v1.PodStatus`), compared with the next
//! to send only changes, and diffed into the next patch
//! ([`super::status_patch`]) without writing either status as JSON.
//!
//! Times are kept at the second they are written at (RFC 3339 carries no
//! fraction), so two statuses are equal exactly when their JSON is.

use k8s_openapi::api::core::v1::PodCondition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::{Map, Value, json};

use crate::clock::SimTime;

/// A moment as a status writes it: the whole second.
pub fn second(t: SimTime) -> SimTime {
    SimTime(t.as_millis() / 1000 * 1000)
}

/// The scheduler's `PodScheduled` condition as the status carries it: its
/// times at the second, as they are written (one a client wrote with a
/// fraction of a second holds it in podflow's store, which keeps typed
/// objects, where etcd would have dropped it).
pub fn scheduled(c: &PodCondition) -> Condition {
    let at_second = |t: &Option<Time>| {
        t.as_ref().map(|t| {
            Time(k8s_openapi::jiff::Timestamp::from_second(t.0.as_second()).unwrap_or(t.0))
        })
    };
    let mut c = c.clone();
    c.last_probe_time = at_second(&c.last_probe_time);
    c.last_transition_time = at_second(&c.last_transition_time);
    Condition::Scheduled(Box::new(c))
}

/// A Pod status the kubelet generated (`generateAPIPodStatus`).
#[derive(Debug, Clone, PartialEq)]
pub struct SentStatus {
    pub phase: &'static str,
    /// The stored conditions the kubelet does not own first, then its own
    /// four, then the scheduler's `PodScheduled`.
    pub conditions: Vec<Condition>,
    pub host_ip: Box<str>,
    pub start_time: SimTime,
    /// Present when the Pod has init containers.
    pub init_statuses: Option<Vec<CtrStatus>>,
    pub statuses: Vec<CtrStatus>,
    pub pod_ip: Option<Box<str>>,
    pub qos_class: Option<Box<str>>,
    /// An evicted Pod's `reason` and `message`.
    pub reason: Option<&'static str>,
    pub message: Option<Box<str>>,
}

/// One condition of the status.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// One of the four the kubelet generates (`pkg/kubelet/status/generate.go`).
    Kubelet(KubeletCondition),
    /// The scheduler's `PodScheduled`, as the stored Pod holds it
    /// ([`scheduled`]).
    Scheduled(Box<PodCondition>),
    /// A condition the kubelet does not own (a readiness gate's,
    /// `DisruptionTarget`), as JSON.
    Other(Value),
}

/// A condition the kubelet generates; its `lastProbeTime` is `null`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeletCondition {
    pub kind: &'static str,
    pub ok: bool,
    pub reason: Option<&'static str>,
    pub message: Option<Box<str>>,
    /// `lastTransitionTime`, at the second.
    pub at: SimTime,
}

/// One container's status (`convertToAPIContainerStatuses`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CtrStatus {
    pub name: Box<str>,
    pub image: Box<str>,
    pub image_id: Box<str>,
    pub container_id: Option<Box<str>>,
    pub ready: bool,
    pub started: bool,
    pub restart_count: i32,
    pub state: CtrState,
    /// `lastState.terminated`, else `lastState` is `{}`.
    pub last_state: Option<Terminated>,
}

/// A container status's `state`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CtrState {
    Waiting {
        reason: Box<str>,
        message: Option<Box<str>>,
    },
    Running {
        started_at: SimTime,
    },
    Terminated(Terminated),
}

/// A `terminated` state (current or last).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terminated {
    pub exit_code: i32,
    pub reason: Box<str>,
    pub started_at: SimTime,
    pub finished_at: SimTime,
    pub container_id: Option<Box<str>>,
}

impl Condition {
    /// Its `type`.
    pub fn kind(&self) -> &str {
        match self {
            Condition::Kubelet(c) => c.kind,
            Condition::Scheduled(c) => &c.type_,
            Condition::Other(v) => v["type"].as_str().unwrap_or_default(),
        }
    }

    /// As JSON.
    pub fn to_value(&self) -> Value {
        match self {
            Condition::Kubelet(c) => c.to_value(),
            Condition::Scheduled(c) => serde_json::to_value(c).unwrap_or_default(),
            Condition::Other(v) => v.clone(),
        }
    }
}

impl KubeletCondition {
    /// As JSON, with Go's `lastProbeTime: null`.
    pub fn to_value(&self) -> Value {
        let mut c = Map::new();
        c.insert("type".into(), Value::String(self.kind.into()));
        let status = if self.ok { "True" } else { "False" };
        c.insert("status".into(), Value::String(status.into()));
        c.insert("lastProbeTime".into(), Value::Null);
        c.insert(
            "lastTransitionTime".into(),
            Value::String(self.at.rfc3339()),
        );
        if let Some(r) = self.reason {
            c.insert("reason".into(), Value::String(r.into()));
        }
        if let Some(m) = &self.message {
            c.insert("message".into(), Value::String(m.to_string()));
        }
        Value::Object(c)
    }
}

impl Terminated {
    /// As JSON (`state.terminated`).
    pub fn to_value(&self) -> Value {
        let mut t = json!({
            "exitCode": self.exit_code, "reason": &*self.reason,
            "startedAt": self.started_at.rfc3339(), "finishedAt": self.finished_at.rfc3339(),
        });
        if let Some(id) = &self.container_id {
            t["containerID"] = json!(&**id);
        }
        t
    }
}

impl CtrState {
    /// As JSON: the one key of its kind.
    pub fn to_value(&self) -> Value {
        match self {
            CtrState::Waiting { reason, message } => {
                let mut w = json!({"reason": &**reason});
                if let Some(m) = message {
                    w["message"] = json!(&**m);
                }
                json!({"waiting": w})
            }
            CtrState::Running { started_at } => {
                json!({"running": {"startedAt": started_at.rfc3339()}})
            }
            CtrState::Terminated(t) => json!({"terminated": t.to_value()}),
        }
    }
}

impl CtrStatus {
    /// As JSON.
    pub fn to_value(&self) -> Value {
        let last_state = self
            .last_state
            .as_ref()
            .map_or_else(|| json!({}), |l| json!({"terminated": l.to_value()}));
        let mut status = json!({
            "name": &*self.name,
            "image": &*self.image,
            "imageID": &*self.image_id,
            "ready": self.ready,
            "started": self.started,
            "restartCount": self.restart_count,
            "state": self.state.to_value(),
            "lastState": last_state,
        });
        if let Some(id) = &self.container_id {
            status["containerID"] = json!(&**id);
        }
        status
    }
}

/// A list of container statuses as JSON.
pub fn statuses_value(list: &[CtrStatus]) -> Value {
    Value::Array(list.iter().map(CtrStatus::to_value).collect())
}

/// `[{"ip": ip}]`, as `hostIPs` and `podIPs` list one address.
pub fn ips_value(ip: &str) -> Value {
    json!([{ "ip": ip }])
}

impl SentStatus {
    /// As the JSON `status` object the kubelet sends.
    pub fn to_value(&self) -> Value {
        let mut s = Map::new();
        s.insert("phase".into(), Value::String(self.phase.into()));
        s.insert(
            "conditions".into(),
            Value::Array(self.conditions.iter().map(Condition::to_value).collect()),
        );
        s.insert("hostIP".into(), Value::String(self.host_ip.to_string()));
        s.insert("hostIPs".into(), ips_value(&self.host_ip));
        s.insert("startTime".into(), Value::String(self.start_time.rfc3339()));
        if let Some(init) = &self.init_statuses {
            s.insert("initContainerStatuses".into(), statuses_value(init));
        }
        s.insert("containerStatuses".into(), statuses_value(&self.statuses));
        if let Some(ip) = &self.pod_ip {
            s.insert("podIP".into(), Value::String(ip.to_string()));
            s.insert("podIPs".into(), ips_value(ip));
        }
        if let Some(qos) = &self.qos_class {
            s.insert("qosClass".into(), Value::String(qos.to_string()));
        }
        if let Some(reason) = self.reason {
            s.insert("reason".into(), Value::String(reason.into()));
        }
        if let Some(message) = &self.message {
            s.insert("message".into(), Value::String(message.to_string()));
        }
        Value::Object(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `PodScheduled` stored with a fraction of a second (as a client wrote it)
    /// equals the one read back from JSON: equal exactly when written alike.
    #[test]
    fn scheduled_conditions_compare_as_written() {
        let at = |ms: i64| {
            Some(Time(
                k8s_openapi::jiff::Timestamp::from_millisecond(ms).expect("a time"),
            ))
        };
        let condition = |ms| PodCondition {
            type_: "PodScheduled".into(),
            status: "True".into(),
            last_transition_time: at(ms),
            ..Default::default()
        };
        let (fraction, whole) = (condition(1_700_000_000_250), condition(1_700_000_000_000));
        assert_ne!(fraction, whole);
        assert_eq!(scheduled(&fraction), scheduled(&whole));
        assert_eq!(
            scheduled(&fraction).to_value(),
            Condition::Scheduled(Box::new(fraction)).to_value()
        );
        assert_ne!(scheduled(&whole), scheduled(&condition(1_700_000_001_000)));
    }
}
