//! The watches components registered, indexed as the API server's watch
//! cache indexes its watchers: an event goes only to the watchers of its
//! resource, and a watch whose field selector names one object or one node
//! (`metadata.name=node-1`, the kubelet's `spec.nodeName=node-1`) is looked
//! up by that value instead of being asked about every event
//! (`staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go`,
//! `dispatchEvent` with the trigger values of `pkg/registry/core/pod/storage/storage.go`,
//! `NodeNameTriggerFunc`). With 1,000 kubelets, a Pod's change is checked
//! against the few watches that can see it, not against 4,000.
//!
//! The candidates come back in registration order, so delivery (and the
//! random jitter drawn for it) is the same as asking every watch in turn.

use std::collections::BTreeMap;

use super::component::ComponentId;
use super::store::Change;
use super::store::{WatchFilter, field_value};

/// The field selectors watches are indexed by.
const TRIGGERS: [&str; 2] = ["spec.nodeName", "metadata.name"];

/// What a watcher registered for.
#[derive(Debug, Clone)]
pub struct Subscription {
    pub watcher: ComponentId,
    pub filter: WatchFilter,
}

/// One kind's watches: those that see every object of the kind (subject to
/// their filter), and those that can only see objects with one value of a
/// trigger field.
#[derive(Debug, Clone, Default)]
struct KindWatches {
    any: Vec<usize>,
    /// Trigger field → its value → the watches selecting it.
    by_trigger: BTreeMap<&'static str, BTreeMap<String, Vec<usize>>>,
}

/// Every registered watch.
#[derive(Debug, Clone, Default)]
pub struct Watches {
    subscriptions: Vec<Subscription>,
    by_kind: BTreeMap<&'static str, KindWatches>,
}

impl Watches {
    /// Indexes `subscriptions`, kept in the order given.
    pub fn new(subscriptions: Vec<Subscription>) -> Watches {
        let mut watches = Watches::default();
        for subscription in subscriptions {
            watches.add(subscription);
        }
        watches
    }

    /// Adds a watch, after the others.
    pub fn add(&mut self, subscription: Subscription) {
        let i = self.subscriptions.len();
        let watches = self
            .by_kind
            .entry(subscription.filter.kind.kind)
            .or_default();
        let trigger = subscription
            .filter
            .fields
            .iter()
            .find_map(|(field, value)| {
                TRIGGERS
                    .iter()
                    .find(|t| **t == field.as_str())
                    .map(|t| (*t, value))
            });
        match trigger {
            Some((field, value)) => watches
                .by_trigger
                .entry(field)
                .or_default()
                .entry(value.clone())
                .or_default()
                .push(i),
            None => watches.any.push(i),
        }
        self.subscriptions.push(subscription);
    }

    /// How many watches the watchers `which` names hold.
    pub fn count(&self, which: impl Fn(&ComponentId) -> bool) -> usize {
        self.subscriptions
            .iter()
            .filter(|s| which(&s.watcher))
            .count()
    }

    /// Removes the watches of the watchers `gone` names.
    pub fn remove(&mut self, gone: impl Fn(&ComponentId) -> bool) {
        if !self.subscriptions.iter().any(|s| gone(&s.watcher)) {
            return;
        }
        let mut subscriptions = std::mem::take(&mut self.subscriptions);
        subscriptions.retain(|s| !gone(&s.watcher));
        *self = Watches::new(subscriptions);
    }

    /// The watches that may see `change`, in registration order; each still
    /// decides with [`WatchFilter::event_for`].
    pub fn candidates(&self, change: &Change) -> impl Iterator<Item = &Subscription> {
        self.candidate_indices(change)
            .into_iter()
            .map(|i| &self.subscriptions[i])
    }

    fn candidate_indices(&self, change: &Change) -> Vec<usize> {
        let Some(watches) = self.by_kind.get(change.object.kind().kind) else {
            return Vec::new();
        };
        let mut found = watches.any.clone();
        for (field, by_value) in &watches.by_trigger {
            let objects = std::iter::once(&*change.object).chain(change.prev.as_deref());
            for object in objects {
                if let Some(subs) = field_value(object, field).and_then(|v| by_value.get(v)) {
                    found.extend_from_slice(subs);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use podflow_model::Object;
    use podflow_model::kinds::kind_of;

    fn pod(name: &str, node: Option<&str>) -> Arc<Object> {
        let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [], "nodeName": node}});
        Arc::new(Object::Pod(serde_json::from_value(pod).unwrap()))
    }

    fn change(object: Arc<Object>, prev: Option<Arc<Object>>) -> Change {
        Change {
            revision: 7,
            key: "/registry/pods/default/web".to_owned(),
            object,
            prev,
            deleted: false,
        }
    }

    fn watches() -> Watches {
        let sub = |watcher: ComponentId, filter: WatchFilter| Subscription { watcher, filter };
        let pods = kind_of("Pod");
        let mut subs = vec![sub(ComponentId::Scheduler, WatchFilter::all(pods))];
        for node in ["node-1", "node-2", "node-3"] {
            let kubelet = ComponentId::Kubelet(node.to_owned());
            subs.push(sub(
                kubelet.clone(),
                WatchFilter::all(pods).with_field("spec.nodeName", node),
            ));
            subs.push(sub(
                kubelet,
                WatchFilter::all(kind_of("Node")).with_field("metadata.name", node),
            ));
        }
        subs.push(sub(ComponentId::ControllerManager, WatchFilter::all(pods)));
        Watches::new(subs)
    }

    /// The index gives exactly the watches a full scan would find interested.
    fn by_scan(watches: &Watches, change: &Change) -> Vec<usize> {
        (0..watches.subscriptions.len())
            .filter(|i| watches.subscriptions[*i].filter.event_for(change).is_some())
            .collect()
    }

    #[test]
    fn a_pod_reaches_the_kubelets_of_its_old_and_new_node_only() {
        let watches = watches();
        let cases = [
            (change(pod("web", None), None), vec![0, 7]),
            (
                change(pod("web", Some("node-2")), Some(pod("web", None))),
                vec![0, 3, 7],
            ),
            (
                change(pod("web", Some("node-3")), Some(pod("web", Some("node-1")))),
                vec![0, 1, 5, 7],
            ),
        ];
        for (change, expected) in cases {
            assert_eq!(watches.candidate_indices(&change), expected);
            let interested = by_scan(&watches, &change);
            assert!(
                interested.iter().all(|i| expected.contains(i)),
                "{interested:?}"
            );
        }
    }

    #[test]
    fn other_kinds_reach_no_pod_watch() {
        let watches = watches();
        let service = serde_json::json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web", "namespace": "default"}});
        let service = Arc::new(Object::Service(serde_json::from_value(service).unwrap()));
        assert!(watches.candidates(&change(service, None)).next().is_none());
    }
}
