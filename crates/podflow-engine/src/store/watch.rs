//! Watch events and the filters watchers register with: a kind, a namespace
//! and field selectors such as the kubelet's `spec.nodeName=node-1`.

use std::sync::Arc;

use podflow_model::{Kind, Object};

use super::Change;
use super::selector::{LabelRequirement, labels_match};

/// `ADDED`, `MODIFIED`, `DELETED`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    /// As the watch protocol spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }

    /// The outcome of the informer stage that saw it (`added`, ...).
    pub fn outcome(self) -> crate::trace::Outcome {
        match self {
            EventType::Added => crate::trace::Outcome::Added,
            EventType::Modified => crate::trace::Outcome::Modified,
            EventType::Deleted => crate::trace::Outcome::Deleted,
        }
    }
}

/// One event a watcher receives.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchEvent {
    pub event_type: EventType,
    pub object: Arc<Object>,
    pub revision: u64,
}

/// What a watcher asked to see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchFilter {
    pub kind: &'static Kind,
    pub namespace: Option<String>,
    /// `(field, value)` pairs that must all hold, as a field selector `a=b,c=d`.
    pub fields: Vec<(String, String)>,
    /// `(field, value)` pairs that must not hold (`status.phase!=Failed`).
    pub not_fields: Vec<(String, String)>,
    /// A label selector's terms, all of which must hold.
    pub labels: Vec<LabelRequirement>,
}

impl WatchFilter {
    /// Everything of `kind`.
    pub fn all(kind: &'static Kind) -> WatchFilter {
        WatchFilter {
            kind,
            namespace: None,
            fields: Vec::new(),
            not_fields: Vec::new(),
            labels: Vec::new(),
        }
    }

    /// With a field selector term `field=value`.
    #[must_use]
    pub fn with_field(mut self, field: &str, value: &str) -> WatchFilter {
        self.fields.push((field.to_owned(), value.to_owned()));
        self
    }

    /// The object a `metadata.name=` term pins this watch to, as its etcd key,
    /// when the filter says enough to know the key (a namespaced kind needs
    /// its namespace).
    pub fn pinned_key(&self) -> Option<String> {
        let name = self
            .fields
            .iter()
            .find(|(field, _)| field == "metadata.name")
            .map(|(_, value)| value.as_str())?;
        if self.kind.namespaced && self.namespace.is_none() {
            return None;
        }
        Some(super::key_for(self.kind, self.namespace.as_deref(), name))
    }

    /// Whether `object` is one this watcher sees.
    pub fn matches(&self, object: &Object) -> bool {
        object.kind() == self.kind
            && self
                .namespace
                .as_deref()
                .is_none_or(|ns| object.namespace() == Some(ns))
            && self
                .fields
                .iter()
                .all(|(field, value)| field_value(object, field) == Some(value.as_str()))
            && self
                .not_fields
                .iter()
                .all(|(field, value)| field_value(object, field) != Some(value.as_str()))
            && labels_match(&self.labels, object.metadata().labels.as_ref())
    }

    /// The event this watcher gets for `change`, if any. An object that starts
    /// to match the filter arrives as `ADDED`, one that stops matching as
    /// `DELETED`, as the API server's watch cache does
    /// (`staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go`, `convertToWatchEvent`).
    pub fn event_for(&self, change: &Change) -> Option<WatchEvent> {
        let now = !change.deleted && self.matches(&change.object);
        let before = change.prev.as_deref().is_some_and(|p| self.matches(p));
        let event_type = match (before, now) {
            (false, true) => EventType::Added,
            (true, true) => EventType::Modified,
            (true, false) => EventType::Deleted,
            (false, false) => return None,
        };
        Some(WatchEvent {
            event_type,
            object: Arc::clone(&change.object),
            revision: change.revision,
        })
    }
}

/// The value of a selectable field of an object (`metadata.name`,
/// `metadata.namespace`, a Pod's `spec.nodeName`, `status.phase`, ..., an
/// Event's `involvedObject.name`, ...): the fields upstream's registries
/// offer to field selectors (`pkg/registry/core/pod/strategy.go`,
/// `ToSelectableFields`; `pkg/registry/core/event/strategy.go`).
pub fn field_value<'a>(object: &'a Object, field: &str) -> Option<&'a str> {
    match field {
        "metadata.name" => Some(object.name()),
        "metadata.namespace" => object.namespace(),
        _ => match object {
            Object::Pod(pod) => {
                let spec = pod.spec.as_ref();
                let status = pod.status.as_ref();
                match field {
                    "spec.nodeName" => Some(
                        spec.and_then(|s| s.node_name.as_deref())
                            .unwrap_or_default(),
                    ),
                    "spec.schedulerName" => spec.and_then(|s| s.scheduler_name.as_deref()),
                    "spec.serviceAccountName" => {
                        spec.and_then(|s| s.service_account_name.as_deref())
                    }
                    "spec.restartPolicy" => spec.and_then(|s| s.restart_policy.as_deref()),
                    "status.phase" => {
                        Some(status.and_then(|s| s.phase.as_deref()).unwrap_or_default())
                    }
                    "status.podIP" => {
                        Some(status.and_then(|s| s.pod_ip.as_deref()).unwrap_or_default())
                    }
                    "status.nominatedNodeName" => Some(
                        status
                            .and_then(|s| s.nominated_node_name.as_deref())
                            .unwrap_or_default(),
                    ),
                    _ => None,
                }
            }
            Object::Event(event) => {
                let involved = &event.involved_object;
                let text = |v: &'a Option<String>| Some(v.as_deref().unwrap_or_default());
                match field {
                    "involvedObject.kind" => text(&involved.kind),
                    "involvedObject.namespace" => text(&involved.namespace),
                    "involvedObject.name" => text(&involved.name),
                    "involvedObject.uid" => text(&involved.uid),
                    "involvedObject.apiVersion" => text(&involved.api_version),
                    "involvedObject.resourceVersion" => text(&involved.resource_version),
                    "involvedObject.fieldPath" => text(&involved.field_path),
                    "reason" => text(&event.reason),
                    "reportingComponent" => text(&event.reporting_component),
                    "source" => Some(
                        event
                            .source
                            .as_ref()
                            .and_then(|s| s.component.as_deref())
                            .unwrap_or_default(),
                    ),
                    "type" => text(&event.type_),
                    _ => None,
                }
            }
            _ => None,
        },
    }
}

/// Whether a field selector may name `field` for `kind`: the API server
/// refuses any other with `field label not supported: FIELD`.
pub fn is_selectable(kind: &Kind, field: &str) -> bool {
    const POD: &[&str] = &[
        "spec.nodeName",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.restartPolicy",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    ];
    const EVENT: &[&str] = &[
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    ];
    field == "metadata.name"
        || field == "metadata.namespace"
        || (kind.kind == "Pod" && POD.contains(&field))
        || (kind.kind == "Event" && EVENT.contains(&field))
}
