//! Events as objects, for a cluster served to real clients (`podflow
//! serve`): each Event a component records is also sent to the API server as
//! a `POST /api/v1/namespaces/NS/events` by that component, as client-go's
//! event broadcaster sends it (`staging/src/k8s.io/client-go/tools/record/event.go`,
//! `makeEvent`: the name `INVOLVED.<hex nanoseconds>`, `count: 1`, first and
//! last timestamps), so `kubectl get events` and `kubectl describe` find them.
//! A repeat of an Event (same source, object, type, reason and message) is a
//! PATCH of the first one's `count` and `lastTimestamp`, as the correlator
//! aggregates it (`tools/record/events_cache.go`, `eventLogger.eventObserve`):
//! `kubectl describe` then says `(x4 over 2m)`.
//! The stories `play` and `trace` show keep Events as trace records only.

use k8s_openapi::api::core::v1::{Event as CoreEvent, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta, Time};

use super::Engine;
use crate::apiserver::request::{Body, Credentials, Request, UserInfo, Verb};
use crate::store::key_for;
use crate::trace::{Actor, EventRecord};
use podflow_model::Object;
use podflow_model::kinds::{Kind, kind_of};

impl Engine {
    /// Sends `event`, recorded by `by`, to the API server as an Event object.
    pub(super) fn send_event(&mut self, by: &Actor, event: &EventRecord) {
        let Some(credentials) = credentials(by) else {
            return;
        };
        let involved = &event.object;
        let series = format!(
            "{}|{}|{}|{}|{}|{}|{}|{}|{}",
            event.source,
            by.node().unwrap_or_default(),
            involved.kind,
            involved.namespace.as_deref().unwrap_or_default(),
            involved.name,
            involved.field_path.as_deref().unwrap_or_default(),
            event.event_type,
            event.reason,
            event.message
        );
        if let Some((namespace, name, count)) = self.event_series.get_mut(&series) {
            *count += 1;
            let patch = serde_json::json!({
                "count": *count,
                "lastTimestamp": Time(self.now.to_k8s()),
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
        let (seconds, nanos) = self.now.unix();
        let stamp = i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
        let now = self.now.to_k8s();
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
            first_timestamp: Some(Time(now)),
            last_timestamp: Some(Time(now)),
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
