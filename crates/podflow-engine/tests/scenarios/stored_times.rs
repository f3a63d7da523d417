//! What etcd keeps of a `metav1.Time`: the whole second. Its JSON is RFC 3339
//! in seconds and its protobuf writes and reads no nanoseconds
//! (`staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/time_proto.go`), so a
//! controller reading an object back sees its times at the second, whatever
//! fraction the writer's clock had.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Event, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use podflow_engine::trace::Record;
use podflow_model::object::Variant;

use crate::common::{apply, run};

/// Each `(what, time)` that has a fraction of a second.
fn with_fractions<'a>(times: impl IntoIterator<Item = (&'a str, Option<&'a Time>)>) -> Vec<String> {
    times
        .into_iter()
        .filter_map(|(what, time)| Some((what, time?)))
        .filter(|(_, time)| time.0.subsec_nanosecond() != 0)
        .map(|(what, time)| format!("{what} {}", time.0))
        .collect()
}

#[test]
fn a_deployments_stored_times_are_whole_seconds() {
    let records = run(None, &[&apply("web-deployment.yaml")], |_| {});
    // The run's writes happen within seconds, at odd milliseconds: the
    // fractions the times would otherwise keep.
    assert!(records.iter().any(|r| r.t_ms % 1000 != 0));
    let Some(Record::Final { objects }) = records.last().map(|r| &r.body) else {
        panic!("the last record is not `final`");
    };
    let mut fractions = Vec::new();
    let mut pods = 0;
    for object in objects {
        let meta = object.metadata();
        fractions.extend(with_fractions([
            ("creationTimestamp", meta.creation_timestamp.as_ref()),
            ("deletionTimestamp", meta.deletion_timestamp.as_ref()),
        ]));
        if let Some(pod) = Pod::of(object) {
            pods += 1;
            let status = pod.status.as_ref().expect("a status");
            fractions.extend(with_fractions([("startTime", status.start_time.as_ref())]));
            for c in status.conditions.iter().flatten() {
                fractions.extend(with_fractions([
                    (c.type_.as_str(), c.last_transition_time.as_ref()),
                    (c.type_.as_str(), c.last_probe_time.as_ref()),
                ]));
            }
        }
        if let Some(deployment) = Deployment::of(object) {
            let status = deployment.status.as_ref().expect("a status");
            for c in status.conditions.iter().flatten() {
                let type_ = c.type_.as_deref().unwrap_or_default();
                fractions.extend(with_fractions([
                    (type_, c.last_transition_time.as_ref()),
                    (type_, c.last_update_time.as_ref()),
                ]));
            }
        }
        if let Some(event) = Event::of(object) {
            fractions.extend(with_fractions([
                ("firstTimestamp", event.first_timestamp.as_ref()),
                ("lastTimestamp", event.last_timestamp.as_ref()),
            ]));
        }
    }
    assert!(pods >= 2, "the Deployment's Pods are stored");
    assert_eq!(fractions, Vec::<String>::new());
}
