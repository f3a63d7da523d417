//! Events as objects, for a cluster served to real clients (`podflow
//! serve`): each Event a component records is also sent to the API server as
//! a `POST /api/v1/namespaces/NS/events` by that component, as client-go's
//! event broadcaster sends it (`staging/src/k8s.io/client-go/tools/record/event.go`,
//! `makeEvent`: the name `INVOLVED.<hex nanoseconds>`, `count: 1`, first and
//! last timestamps), so `kubectl get events` and `kubectl describe` find them.
//! A repeat of an Event (same source, object, type, reason and message) is a
//! PATCH of the first one's `count` and `lastTimestamp`, as the correlator
//! aggregates it (`tools/record/events_cache.go`, `eventLogger.eventObserve`):
//! `kubectl describe` then says `(x4 over 2m)`. An Event is written with an
//! etcd lease of `--event-ttl` (one hour): when it runs out, etcd deletes the
//! key and the watchers hear `DELETED` (`pkg/registry/core/event/storage`).
//! The stories `play` and `trace` show keep Events as trace records only.

use k8s_openapi::api::core::v1::{Event as CoreEvent, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};

use std::sync::Arc;

use super::Engine;
use crate::apiserver::request::{Body, Credentials, Request, UserInfo, Verb};
use crate::store::Change;
use crate::store::key_for;
use crate::trace::{Actor, EventRecord, Outcome, Record, Stage, StageName, TraceRecord};
use podflow_model::Object;
use podflow_model::kinds::{Kind, kind_of};

/// How many Event series the API server keeps in memory off a served
/// cluster (the oldest go first).
const KEPT_EVENTS: usize = 8_192;

/// kube-apiserver's `--event-ttl`: one hour.
const EVENT_TTL_MS: u64 = 60 * 60 * 1000;

impl Engine {
    /// Queues the end of the lease of each Event `changes` created.
    pub(super) fn expire_events_later(&mut self, changes: &[Change]) {
        if !self.store_events {
            return;
        }
        for change in changes {
            if change.prev.is_none()
                && !change.deleted
                && matches!(*change.object, Object::Event(_))
            {
                let key = change.key.clone();
                self.queue.push(
                    self.now.plus(EVENT_TTL_MS),
                    super::Event::LeaseExpired { key },
                    true,
                );
            }
        }
    }

    /// An Event's lease ran out: etcd deletes it, its series ends.
    pub(super) fn expire_event(&mut self, key: &str) -> Vec<TraceRecord> {
        let before = self.store.revision();
        let Ok(gone) = self.store.delete(key) else {
            return Vec::new();
        };
        let (namespace, name) = (gone.namespace().unwrap_or_default(), gone.name());
        self.event_series
            .retain(|_, (ns, n, _)| !(ns == namespace && n == name));
        let changes: Vec<Change> = self
            .store
            .changes_since(before)
            .map(|c| c.cloned().collect())
            .unwrap_or_default();
        self.fan_out(&changes);
        let mut stage = Stage::new(
            Actor::Etcd,
            StageName::Persist,
            Outcome::Delete,
            format!("lease expired: deleted {key} (--event-ttl 1h)"),
        );
        stage.extra_mut().key = Some(key.to_owned());
        stage.extra_mut().revision = Some(self.store.revision());
        self.stamp(vec![Record::from(stage)])
    }

    /// The correlator's key of an Event: what must be equal for a repeat
    /// to count in the same Event (`EventCorrelator`'s aggregate key).
    fn series_key(by: &Actor, event: &EventRecord) -> String {
        let involved = &event.object;
        // Joined, not formatted: this is made for every Event a run records.
        [
            event.source.as_str(),
            by.node().unwrap_or_default(),
            &involved.kind,
            involved.namespace.as_deref().unwrap_or_default(),
            &involved.name,
            involved.field_path.as_deref().unwrap_or_default(),
            &event.event_type,
            &event.reason,
            &event.message,
        ]
        .join("|")
    }

    /// Off a served cluster, an Event is kept by the API server in memory
    /// rather than written to etcd (docs/simplified.md): a repeat counts in
    /// the same Event, as the correlator counts it, and `LIST` (`describe`,
    /// `get events`) is answered from them.
    pub(super) fn remember_event(&mut self, by: &Actor, event: &EventRecord) {
        let series = Self::series_key(by, event);
        if let Some(kept) = self.kept_events.get_mut(series.as_str()) {
            let kept = Arc::make_mut(kept);
            kept.count = Some(kept.count.unwrap_or(1) + 1);
            kept.last_timestamp = Some(self.now.to_time());
            return;
        }
        let object = self.event_object(by, event);
        self.events_created += 1;
        let series: Arc<str> = series.into();
        self.kept_order.push_back(Arc::clone(&series));
        self.kept_events.insert(series, Arc::new(object));
        // A bounded memory: a run of 10,000 Pods keeps its latest Events.
        // The oldest, written thousands of Events ago, is freed where the
        // engine frees what it gives up ([`Engine::free_given_up_with`]).
        if self.kept_order.len() > KEPT_EVENTS
            && let Some(oldest) = self.kept_order.pop_front()
            && let Some(forgotten) = self.kept_events.remove_entry(&oldest)
        {
            self.forgotten_events.retire((oldest, forgotten));
        }
    }

    /// The kept Events a `LIST` of Events selects.
    pub(super) fn kept_events_for(&self, request: &Request) -> Vec<Arc<Object>> {
        let filter = request.watch_filter();
        let mut events: Vec<Arc<Object>> = self
            .kept_events
            .values()
            .map(|e| Object::Event(CoreEvent::clone(e)))
            .filter(|o| filter.matches(o))
            .map(Arc::new)
            .collect();
        // In etcd's key order, as a LIST of stored Events comes.
        events.sort_by(|a, b| (a.namespace(), a.name()).cmp(&(b.namespace(), b.name())));
        events
    }

    /// Sends `event`, recorded by `by`, to the API server as an Event object.
    pub(super) fn send_event(&mut self, by: &Actor, event: &EventRecord) {
        let Some(credentials) = credentials(by) else {
            return;
        };
        let series = Self::series_key(by, event);
        if let Some((namespace, name, count)) = self.event_series.get_mut(&series) {
            *count += 1;
            let patch = serde_json::json!({
                "count": *count,
                "lastTimestamp": self.now.to_time(),
            });
            let request = Request::new(
                by.clone(),
                credentials,
                Verb::Patch,
                kind_of("Event"),
                Some(namespace.clone()),
                name.clone(),
            )
            .body(Body::Patch(patch));
            self.receive(request);
            return;
        }
        let object = self.event_object(by, event);
        self.events_created += 1;
        self.event_series.insert(
            series,
            (
                object.metadata.namespace.clone().unwrap_or_default(),
                object.metadata.name.clone().unwrap_or_default(),
                1,
            ),
        );
        let namespace = object.metadata.namespace.clone();
        let request = Request::new(
            by.clone(),
            credentials,
            Verb::Create,
            kind_of("Event"),
            namespace,
            "",
        )
        .body(Body::Object(Box::new(Object::Event(object))));
        self.receive(request);
    }

    fn event_object(&self, by: &Actor, event: &EventRecord) -> CoreEvent {
        let involved = &event.object;
        let kind = Kind::lookup(&involved.kind);
        let uid = kind.and_then(|kind| {
            let key = key_for(kind, involved.namespace.as_deref(), &involved.name);
            self.store.get(&key)?.object.metadata().uid.clone()
        });
        // client-go names an Event by the wall clock's nanoseconds; simulated
        // time has milliseconds, so the Events of one millisecond are told
        // apart by how many came before.
        let (seconds, nanos) = self.now.unix();
        let stamp = i128::from(seconds) * 1_000_000_000
            + i128::from(nanos)
            + i128::from(self.events_created);
        let now = self.now.to_time();
        CoreEvent {
            metadata: ObjectMeta {
                name: Some(format!("{}.{stamp:x}", involved.name)),
                namespace: Some(
                    involved
                        .namespace
                        .clone()
                        .unwrap_or_else(|| "default".to_owned()),
                ),
                ..ObjectMeta::default()
            },
            involved_object: ObjectReference {
                kind: Some(involved.kind.clone()),
                namespace: involved.namespace.clone(),
                name: Some(involved.name.clone()),
                uid,
                api_version: kind.map(Kind::api_version),
                field_path: involved.field_path.clone(),
                ..ObjectReference::default()
            },
            reason: Some(event.reason.clone()),
            message: Some(event.message.clone()),
            type_: Some(event.event_type.clone()),
            source: Some(EventSource {
                component: Some(event.source.clone()),
                host: by.node().map(str::to_owned),
            }),
            count: Some(1),
            first_timestamp: Some(now.clone()),
            last_timestamp: Some(now),
            event_time: None::<MicroTime>,
            reporting_component: Some(event.source.clone()),
            reporting_instance: Some(by.node().unwrap_or(&event.source).to_owned()),
            ..CoreEvent::default()
        }
    }
}

/// Who a component is to the API server: its client certificate's user.
fn credentials(by: &Actor) -> Option<Credentials> {
    let user = match by {
        Actor::Kubelet(node) => UserInfo::new(format!("system:node:{node}"), &["system:nodes"]),
        Actor::Scheduler => UserInfo::new("system:kube-scheduler", &[]),
        Actor::ControllerManager => UserInfo::new("system:kube-controller-manager", &[]),
        _ => return None,
    };
    Some(Credentials::Certificate(user))
}

#[cfg(test)]
mod tests {
    use crate::clock::SimTime;
    use crate::engine::{Engine, Until};
    use crate::setup::{NGINX_POD, SetupArgs, build_setup};
    use crate::store::WatchFilter;
    use podflow_model::kinds::kind_of;

    fn events(engine: &Engine) -> usize {
        engine
            .store()
            .list(&WatchFilter::all(kind_of("Event")))
            .len()
    }

    /// A served cluster stores its Events (the nginx story's Scheduled,
    /// Pulling, Pulled, Created, Started) and etcd forgets each an hour later.
    #[test]
    fn stored_events_expire_after_the_event_ttl() {
        let args = SetupArgs {
            embedded: vec![NGINX_POD],
            seed: 1,
            ..SetupArgs::default()
        };
        let mut setup = build_setup(&args).unwrap();
        setup.store_events = true;
        let mut engine = Engine::new(setup);
        engine.run_until(Until::Time(SimTime(60_000)));
        let reasons: Vec<String> = engine
            .store()
            .list(&WatchFilter::all(kind_of("Event")))
            .iter()
            .filter_map(|e| match &**e {
                podflow_model::Object::Event(e) => e.reason.clone(),
                _ => None,
            })
            .collect();
        assert_eq!(
            reasons,
            ["Scheduled", "Pulling", "Pulled", "Created", "Started"]
        );
        engine.run_until(Until::Time(SimTime(2 * 60 * 60 * 1000)));
        assert_eq!(events(&engine), 0);
    }
}
