//! `kubectl get`'s table printers (`pkg/printers/internalversion/printers.go`),
//! for the columns podflow can fill: the table itself (columns aligned, AGE),
//! pods, nodes and priority classes here; Services and `EndpointSlices` in
//! [`network`], deployments, replica sets and jobs in [`workloads`],
//! namespaces, config maps, secrets, service accounts, leases and quotas in
//! [`config`], bindings in [`rbac`], volumes, claims and storage classes in
//! [`storage`], the `-o wide` columns in [`wide`]; any other kind as the API
//! server's default table (NAME, CREATED AT). `kubectl describe`'s printers
//! are in [`describe`].

pub mod config;
pub mod describe;
pub mod events;
pub mod jsonpath;
pub mod network;
pub mod rbac;
pub mod storage;
pub mod wide;
pub mod workloads;
pub mod yaml;
pub mod yaml_scalar;

use std::fmt::Write as _;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Container, ContainerStateTerminated, ContainerStatus, Pod};

use crate::clock::SimTime;
use podflow_model::Object;

/// Which columns `kubectl get` adds to a kind's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)]
pub struct TableOptions {
    /// `-o wide`: the [`wide`] columns.
    pub wide: bool,
    /// `-A`: NAMESPACE first.
    pub namespace: bool,
    /// `--show-labels`: LABELS last.
    pub labels: bool,
    /// Several kinds printed together: names as `kind.group/name` (`WithKind`).
    pub kind: bool,
}

/// The lines `kubectl get` prints for `objects`.
pub fn table(objects: &[Arc<Object>], now: SimTime) -> Vec<String> {
    table_with(objects, now, TableOptions::default())
}

/// The lines `kubectl get` prints for `objects` with `options`' columns.
pub fn table_with(objects: &[Arc<Object>], now: SimTime, options: TableOptions) -> Vec<String> {
    let kind = objects.first().map_or("", |o| o.kind().kind);
    let (mut header, mut rows) = header_and_rows(kind, objects, now);
    if options.kind {
        for (row, object) in rows.iter_mut().zip(objects) {
            if let Some(name) = row.first_mut() {
                *name = format!("{}/{name}", crate::kubectl::type_name(object.kind()));
            }
        }
    }
    if options.wide {
        header.extend(wide::header(kind).iter().map(|h| (*h).to_owned()));
        for (row, object) in rows.iter_mut().zip(objects) {
            row.extend(wide::cells(object));
        }
    }
    if options.namespace && objects.first().is_some_and(|o| o.kind().namespaced) {
        header.insert(0, "NAMESPACE".into());
        for (row, object) in rows.iter_mut().zip(objects) {
            row.insert(0, object.namespace().unwrap_or_default().to_owned());
        }
    }
    if options.labels {
        header.push("LABELS".into());
        for (row, object) in rows.iter_mut().zip(objects) {
            row.push(labels_cell(object));
        }
    }
    let mut all = Vec::with_capacity(rows.len() + 1);
    all.push(header);
    all.extend(rows);
    align(&all)
}

/// `k=v,k2=v2` in key order, `<none>` without labels (`labels.FormatLabels`).
fn labels_cell(object: &Object) -> String {
    match object.metadata().labels.as_ref().filter(|l| !l.is_empty()) {
        Some(labels) => labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(","),
        None => "<none>".into(),
    }
}

/// The column headers and the cells of each of `objects` (all of `kind`),
/// as `kubectl get` shows them; the API server's Tables hold the same.
pub fn header_and_rows(
    kind: &str,
    objects: &[Arc<Object>],
    now: SimTime,
) -> (Vec<String>, Vec<Vec<String>>) {
    let mut rows: Vec<Vec<String>> = match Some(kind).filter(|k| !k.is_empty()) {
        Some("Pod") => {
            let mut rows = vec![header(&["NAME", "READY", "STATUS", "RESTARTS", "AGE"])];
            rows.extend(
                objects
                    .iter()
                    .filter_map(|o| o.as_pod())
                    .map(|pod| pod_row(pod, now)),
            );
            rows
        }
        Some("Node") => {
            let mut rows = vec![header(&["NAME", "STATUS", "ROLES", "AGE", "VERSION"])];
            rows.extend(objects.iter().filter_map(|o| o.as_node()).map(|node| {
                let ready = node
                    .status
                    .as_ref()
                    .and_then(|s| s.conditions.as_ref())
                    .and_then(|c| c.iter().find(|c| c.type_ == "Ready"))
                    .is_none_or(|c| c.status == "True");
                let mut status = if ready { "Ready" } else { "NotReady" }.to_owned();
                if node
                    .spec
                    .as_ref()
                    .and_then(|s| s.unschedulable)
                    .unwrap_or(false)
                {
                    status.push_str(",SchedulingDisabled");
                }
                let roles: Vec<&str> = node
                    .metadata
                    .labels
                    .iter()
                    .flatten()
                    .filter_map(|(k, _)| k.strip_prefix("node-role.kubernetes.io/"))
                    .collect();
                vec![
                    node.metadata.name.clone().unwrap_or_default(),
                    status,
                    if roles.is_empty() {
                        "<none>".into()
                    } else {
                        roles.join(",")
                    },
                    age(node.metadata.creation_timestamp.as_ref(), now),
                    node.status
                        .as_ref()
                        .and_then(|s| s.node_info.as_ref())
                        .map(|i| i.kubelet_version.clone())
                        .unwrap_or_default(),
                ]
            }));
            rows
        }
        Some("Event") => events::rows(objects, now),
        Some("PriorityClass") => {
            let mut rows = vec![header(&[
                "NAME",
                "VALUE",
                "GLOBAL-DEFAULT",
                "AGE",
                "PREEMPTIONPOLICY",
            ])];
            rows.extend(objects.iter().filter_map(|o| match &**o {
                Object::PriorityClass(pc) => Some(vec![
                    pc.metadata.name.clone().unwrap_or_default(),
                    pc.value.unwrap_or(0).to_string(),
                    pc.global_default.unwrap_or(false).to_string(),
                    age(pc.metadata.creation_timestamp.as_ref(), now),
                    pc.preemption_policy.clone().unwrap_or_default(),
                ]),
                _ => None,
            }));
            rows
        }
        Some("ResourceQuota") => config::resource_quota_rows(objects, now),
        Some(kind) => {
            if let Some(columns) = network::header(kind) {
                aged_rows(columns, objects, now, network::cells)
            } else if let Some(columns) = workloads::header(kind) {
                aged_rows(columns, objects, now, |o| workloads::cells(o, now))
            } else if let Some(columns) = storage::header(kind) {
                aged_rows(columns, objects, now, storage::cells)
            } else if let Some(columns) = config::header(kind) {
                aged_rows(columns, objects, now, config::cells)
            } else if let Some(columns) = rbac::header(kind) {
                aged_rows(columns, objects, now, rbac::cells)
            } else {
                default_rows(objects)
            }
        }
        None => vec![header(&["NAME", "AGE"])],
    };
    let header = rows.remove(0);
    (header, rows)
}

/// A table whose rows are `cells` then AGE, under `columns`.
fn aged_rows(
    columns: &[&str],
    objects: &[Arc<Object>],
    now: SimTime,
    cells: impl Fn(&Object) -> Vec<String>,
) -> Vec<Vec<String>> {
    let mut rows = vec![header(columns)];
    rows.extend(objects.iter().map(|o| {
        let mut row = cells(o);
        row.push(age(o.metadata().creation_timestamp.as_ref(), now));
        row
    }));
    rows
}

/// The API server's default table (`rest.NewDefaultTableConvertor`): NAME
/// and CREATED AT, the creation time in RFC 3339.
fn default_rows(objects: &[Arc<Object>]) -> Vec<Vec<String>> {
    let mut rows = vec![header(&["NAME", "CREATED AT"])];
    rows.extend(objects.iter().map(|o| {
        let created = o
            .metadata()
            .creation_timestamp
            .as_ref()
            .map(|t| t.0.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
            .unwrap_or_default();
        vec![o.name().to_owned(), created]
    }));
    rows
}

pub(crate) fn header(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| (*c).to_owned()).collect()
}

/// What `printPod` computes for one pod.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PodCells {
    ready: usize,
    total: usize,
    reason: String,
    restarts: i32,
    /// Unix seconds of the last restart (the latest `lastState.terminated.finishedAt`).
    last_restart: Option<i64>,
}

fn finished_at(status: &ContainerStatus) -> Option<i64> {
    status
        .last_state
        .as_ref()
        .and_then(|s| s.terminated.as_ref())
        .and_then(|t| t.finished_at.as_ref())
        .map(|t| t.0.as_second())
}

fn later(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// The reason of a terminated container without one: `Signal:9` or `ExitCode:1`.
fn exit_reason(t: &ContainerStateTerminated) -> String {
    match t.signal {
        Some(signal) if signal != 0 => format!("Signal:{signal}"),
        _ => format!("ExitCode:{}", t.exit_code),
    }
}

/// `printPod` (`pkg/printers/internalversion/printers.go`): READY, STATUS and RESTARTS.
#[allow(clippy::too_many_lines)]
fn print_pod(pod: &Pod) -> PodCells {
    let spec = pod.spec.as_ref();
    let status = pod.status.as_ref();
    let init_specs: Vec<&Container> = spec
        .and_then(|s| s.init_containers.as_ref())
        .into_iter()
        .flatten()
        .collect();
    let sidecar = |name: &str| {
        init_specs
            .iter()
            .any(|c| c.name == name && c.restart_policy.as_deref() == Some("Always"))
    };
    let mut total = spec.map_or(0, |s| s.containers.len());
    total += init_specs
        .iter()
        .filter(|c| c.restart_policy.as_deref() == Some("Always"))
        .count();
    let mut ready = 0;
    let mut restarts = 0;
    let mut sidecar_restarts = 0;
    let mut last_restart = None;
    let mut sidecar_last_restart = None;
    let phase = status.and_then(|s| s.phase.clone()).unwrap_or_default();
    let mut reason = status
        .and_then(|s| s.reason.clone())
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| phase.clone());
    let conditions = status.and_then(|s| s.conditions.as_ref());
    let condition = |kind: &str| conditions.into_iter().flatten().find(|c| c.type_ == kind);
    if condition("PodScheduled").is_some_and(|c| c.reason.as_deref() == Some("SchedulingGated")) {
        reason = "SchedulingGated".into();
    }

    let mut initializing = false;
    let init_statuses = status
        .and_then(|s| s.init_container_statuses.as_ref())
        .map_or(&[][..], Vec::as_slice);
    for (i, c) in init_statuses.iter().enumerate() {
        restarts += c.restart_count;
        last_restart = later(last_restart, finished_at(c));
        let is_sidecar = sidecar(&c.name);
        if is_sidecar {
            sidecar_restarts += c.restart_count;
            sidecar_last_restart = later(sidecar_last_restart, finished_at(c));
        }
        let state = c.state.as_ref();
        let terminated = state.and_then(|s| s.terminated.as_ref());
        let waiting = state
            .and_then(|s| s.waiting.as_ref())
            .and_then(|w| w.reason.as_deref())
            .filter(|r| !r.is_empty());
        if terminated.is_some_and(|t| t.exit_code == 0) {
            continue;
        }
        if is_sidecar && c.started == Some(true) {
            if c.ready {
                ready += 1;
            }
            continue;
        }
        if let Some(t) = terminated {
            reason = match t.reason.as_deref().filter(|r| !r.is_empty()) {
                Some(r) => format!("Init:{r}"),
                None => format!("Init:{}", exit_reason(t)),
            };
        } else if let Some(w) = waiting.filter(|w| *w != "PodInitializing") {
            reason = format!("Init:{w}");
        } else {
            reason = format!("Init:{i}/{}", init_specs.len());
        }
        initializing = true;
        break;
    }

    let initialized = condition("Initialized").is_some_and(|c| c.status == "True");
    if !initializing || initialized {
        restarts = sidecar_restarts;
        last_restart = sidecar_last_restart;
        let mut has_running = false;
        let statuses = status
            .and_then(|s| s.container_statuses.as_ref())
            .map_or(&[][..], Vec::as_slice);
        for c in statuses.iter().rev() {
            restarts += c.restart_count;
            last_restart = later(last_restart, finished_at(c));
            let state = c.state.as_ref();
            let waiting = state
                .and_then(|s| s.waiting.as_ref())
                .and_then(|w| w.reason.clone())
                .filter(|r| !r.is_empty());
            let terminated = state.and_then(|s| s.terminated.as_ref());
            if let Some(w) = waiting {
                reason = w;
            } else if let Some(t) = terminated {
                reason = t
                    .reason
                    .clone()
                    .filter(|r| !r.is_empty())
                    .unwrap_or_else(|| exit_reason(t));
            } else if c.ready && state.is_some_and(|s| s.running.is_some()) {
                has_running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && has_running {
            reason = if condition("Ready").is_some_and(|c| c.status == "True") {
                "Running".into()
            } else {
                "NotReady".into()
            };
        }
    }

    if pod.metadata.deletion_timestamp.is_some() {
        if status.and_then(|s| s.reason.as_deref()) == Some("NodeLost") {
            reason = "Unknown".into();
        } else if phase != "Succeeded" && phase != "Failed" {
            reason = "Terminating".into();
        }
    }
    PodCells {
        ready,
        total,
        reason,
        restarts,
        last_restart,
    }
}

/// One `kubectl get pods` row: NAME, READY, STATUS, RESTARTS (`5 (10s ago)`), AGE.
pub fn pod_row(pod: &Pod, now: SimTime) -> Vec<String> {
    let cells = print_pod(pod);
    let (now_s, _) = now.unix();
    let restarts = match cells.last_restart {
        Some(at) if cells.restarts != 0 => {
            format!("{} ({} ago)", cells.restarts, human_duration(now_s - at))
        }
        _ => cells.restarts.to_string(),
    };
    vec![
        pod.metadata.name.clone().unwrap_or_default(),
        format!("{}/{}", cells.ready, cells.total),
        cells.reason,
        restarts,
        age(pod.metadata.creation_timestamp.as_ref(), now),
    ]
}

/// The STATUS column as `kubectl get pods` prints it: the phase, or the reason
/// of the init container or container that explains it (`Init:0/2`,
/// `Init:CrashLoopBackOff`, `CrashLoopBackOff`, `Completed`, `Terminating`, ...).
pub fn pod_status_column(pod: &Pod) -> String {
    print_pod(pod).reason
}

/// kubectl's AGE column (`translateTimestampSince`).
pub(crate) fn age(
    created: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
    now: SimTime,
) -> String {
    let Some(created) = created else {
        return "<unknown>".into();
    };
    let (now_s, _) = now.unix();
    human_duration(now_s - created.0.as_second())
}

/// `duration.HumanDuration` (`k8s.io/apimachinery/pkg/util/duration`), for whole seconds.
pub fn human_duration(secs: i64) -> String {
    if secs < -1 {
        return "<invalid>".into();
    }
    if secs < 0 {
        return "0s".into();
    }
    if secs < 120 {
        return format!("{secs}s");
    }
    let minutes = secs / 60;
    if minutes < 10 {
        let s = secs % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = secs / 3600;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let d = (hours / 24) % 365;
        return if d == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{d}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// Pads columns with three spaces between them, as kubectl's tabwriter does.
fn align(rows: &[Vec<String>]) -> Vec<String> {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    rows.iter()
        .map(|row| {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                if i + 1 == row.len() {
                    line.push_str(cell);
                } else {
                    let _ = write!(line, "{cell:<width$}   ", width = widths[i]);
                }
            }
            line
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::clock::EPOCH_UNIX_SECONDS;

    /// Now, for the tests: 1000 s after the simulation's epoch.
    const NOW: SimTime = SimTime(1_000_000);

    /// An RFC 3339 time `secs` seconds before [`NOW`].
    fn ago(secs: i64) -> String {
        k8s_openapi::jiff::Timestamp::from_second(EPOCH_UNIX_SECONDS + 1000 - secs)
            .map(|t| t.to_string())
            .unwrap_or_default()
    }

    fn running(ready: bool, restarts: i32, finished_ago: Option<i64>) -> Value {
        let mut c = json!({"name": "c", "image": "i", "imageID": "", "ready": ready,
            "restartCount": restarts, "state": {"running": {}}});
        if let Some(s) = finished_ago {
            c["lastState"] = json!({"terminated": {"exitCode": 1, "finishedAt": ago(s)}});
        }
        c
    }

    fn state(state: &Value, restarts: i32) -> Value {
        json!({"name": "c", "image": "i", "imageID": "", "ready": false,
            "restartCount": restarts, "state": state})
    }

    fn pod(name: &str, init: usize, containers: usize, status: &Value) -> Pod {
        let specs = |n: usize, prefix: &str| -> Vec<Value> {
            (0..n)
                .map(|i| json!({"name": format!("{prefix}{i}")}))
                .collect()
        };
        serde_json::from_value(json!({
            "metadata": {"name": name},
            "spec": {"initContainers": specs(init, "init"), "containers": specs(containers, "c")},
            "status": status,
        }))
        .unwrap_or_default()
    }

    #[test]
    #[allow(clippy::too_many_lines)] // upstream's table, case by case
    fn print_pod_rows() {
        // pkg/printers/internalversion/printers_test.go, TestPrintPod (rows test1..test17).
        let ready_true = json!([{"type": "Ready", "status": "True"}]);
        let rows: Vec<(Pod, [&str; 4])> = vec![
            (
                pod(
                    "test1",
                    0,
                    2,
                    &json!({"phase": "podPhase", "containerStatuses": [
                    running(true, 3, None), state(&json!({}), 3)]}),
                ),
                ["test1", "1/2", "podPhase", "6"],
            ),
            (
                pod(
                    "test2",
                    0,
                    2,
                    &json!({"phase": "podPhase", "containerStatuses": [
                    running(true, 3, None),
                    state(&json!({"waiting": {"reason": "ContainerWaitingReason"}}), 3)]}),
                ),
                ["test2", "1/2", "ContainerWaitingReason", "6"],
            ),
            (
                pod(
                    "test3",
                    0,
                    2,
                    &json!({"phase": "podPhase", "containerStatuses": [
                    state(&json!({"waiting": {"reason": "ContainerWaitingReason"}}), 3),
                    state(&json!({"terminated": {"exitCode": 0, "reason": "ContainerTerminatedReason"}}), 3)]}),
                ),
                ["test3", "0/2", "ContainerWaitingReason", "6"],
            ),
            (
                pod(
                    "test5",
                    0,
                    2,
                    &json!({"phase": "podPhase", "reason": "podReason", "containerStatuses": [
                    running(true, 3, None), state(&json!({}), 3)]}),
                ),
                ["test5", "1/2", "podReason", "6"],
            ),
            (
                pod(
                    "test6",
                    0,
                    2,
                    &json!({"phase": "Running", "containerStatuses": [
                    state(&json!({"terminated": {"exitCode": 0, "reason": "Completed"}}), 3),
                    running(true, 3, None)]}),
                ),
                ["test6", "1/2", "NotReady", "6"],
            ),
            (
                pod(
                    "test6",
                    0,
                    2,
                    &json!({"phase": "Running", "conditions": ready_true, "containerStatuses": [
                    state(&json!({"terminated": {"exitCode": 0, "reason": "Completed"}}), 3),
                    running(true, 3, None)]}),
                ),
                ["test6", "1/2", "Running", "6"],
            ),
            (
                pod(
                    "test7",
                    1,
                    1,
                    &json!({"phase": "podPhase",
                    "initContainerStatuses": [running(false, 3, Some(10))],
                    "containerStatuses": [state(&json!({"waiting": {}}), 0)]}),
                ),
                ["test7", "0/1", "Init:0/1", "3 (10s ago)"],
            ),
            (
                pod(
                    "test9",
                    2,
                    1,
                    &json!({"phase": "podPhase",
                    "initContainerStatuses": [
                        state(&json!({"terminated": {"exitCode": 0}}), 0),
                        running(false, 3, Some(10))],
                    "containerStatuses": [state(&json!({"waiting": {}}), 0)]}),
                ),
                ["test9", "0/1", "Init:1/2", "3 (10s ago)"],
            ),
            (
                pod(
                    "test11",
                    1,
                    1,
                    &json!({"phase": "Running",
                    "initContainerStatuses": [state(&json!({"terminated": {"exitCode": 0}}), 2)],
                    "containerStatuses": [running(false, 4, Some(20))]}),
                ),
                ["test11", "0/1", "Running", "4 (20s ago)"],
            ),
            (
                pod(
                    "test12",
                    0,
                    1,
                    &json!({"phase": "Running",
                    "containerStatuses": [running(true, 3, Some(5 * 86_400))]}),
                ),
                ["test12", "1/1", "Running", "3 (5d ago)"],
            ),
            (
                pod(
                    "test15",
                    0,
                    2,
                    &json!({"phase": "podPhase", "conditions": [
                    {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}),
                ),
                ["test15", "0/2", "SchedulingGated", "0"],
            ),
            (
                pod(
                    "test16",
                    0,
                    1,
                    &json!({"phase": "Succeeded", "containerStatuses": [
                    state(&json!({"terminated": {"exitCode": 0, "reason": "Completed"}}), 0)]}),
                ),
                ["test16", "0/1", "Completed", "0"],
            ),
            (
                pod(
                    "test17",
                    0,
                    1,
                    &json!({"phase": "Failed", "containerStatuses": [
                    state(&json!({"terminated": {"exitCode": 1, "reason": "Error"}}), 0)]}),
                ),
                ["test17", "0/1", "Error", "0"],
            ),
        ];
        for (pod, want) in rows {
            let row = pod_row(&pod, NOW);
            assert_eq!(row[..4], want, "{}", want[0]);
            assert_eq!(row[4], "<unknown>");
        }
    }

    #[test]
    #[allow(clippy::too_many_lines)] // one row per STATUS value
    fn status_column_in_the_lifecycle() {
        // The STATUS values a pod passes through (printPod's branches).
        let waiting = |reason: &str| json!({"waiting": {"reason": reason}});
        let rows: Vec<(Pod, &str)> = vec![
            (
                pod(
                    "a",
                    2,
                    1,
                    &json!({"phase": "Pending",
                    "initContainerStatuses": [state(&waiting("PodInitializing"), 0), state(&waiting("PodInitializing"), 0)],
                    "containerStatuses": [state(&waiting("PodInitializing"), 0)]}),
                ),
                "Init:0/2",
            ),
            (
                pod(
                    "b",
                    1,
                    1,
                    &json!({"phase": "Pending",
                    "initContainerStatuses": [state(&waiting("CrashLoopBackOff"), 3)],
                    "containerStatuses": [state(&waiting("PodInitializing"), 0)]}),
                ),
                "Init:CrashLoopBackOff",
            ),
            (
                pod(
                    "c",
                    1,
                    1,
                    &json!({"phase": "Pending",
                    "initContainerStatuses": [state(&json!({"terminated": {"exitCode": 1, "reason": "Error"}}), 0)],
                    "containerStatuses": [state(&waiting("PodInitializing"), 0)]}),
                ),
                "Init:Error",
            ),
            (
                pod(
                    "d",
                    1,
                    1,
                    &json!({"phase": "Pending",
                    "conditions": [{"type": "Initialized", "status": "True"}],
                    "initContainerStatuses": [state(&json!({"terminated": {"exitCode": 0, "reason": "Completed"}}), 0)],
                    "containerStatuses": [state(&waiting("PodInitializing"), 0)]}),
                ),
                "PodInitializing",
            ),
            (
                pod(
                    "e",
                    0,
                    1,
                    &json!({"phase": "Running",
                    "containerStatuses": [state(&waiting("CrashLoopBackOff"), 5)]}),
                ),
                "CrashLoopBackOff",
            ),
            (
                pod(
                    "f",
                    0,
                    1,
                    &json!({"phase": "Pending",
                    "containerStatuses": [state(&waiting("ImagePullBackOff"), 0)]}),
                ),
                "ImagePullBackOff",
            ),
            (
                pod(
                    "g",
                    0,
                    1,
                    &json!({"phase": "Running",
                    "containerStatuses": [state(&json!({"terminated": {"exitCode": 137, "reason": "OOMKilled"}}), 0)]}),
                ),
                "OOMKilled",
            ),
            (
                pod(
                    "h",
                    0,
                    1,
                    &json!({"phase": "Running",
                    "containerStatuses": [state(&json!({"terminated": {"exitCode": 2}}), 0)]}),
                ),
                "ExitCode:2",
            ),
            (
                pod(
                    "i",
                    0,
                    1,
                    &json!({"phase": "Pending",
                    "containerStatuses": [state(&waiting("ContainerCreating"), 0)]}),
                ),
                "ContainerCreating",
            ),
        ];
        for (pod, want) in rows {
            assert_eq!(pod_status_column(&pod), want);
        }
        let mut deleting = pod(
            "j",
            0,
            1,
            &json!({"phase": "Running",
            "containerStatuses": [running(true, 0, None)]}),
        );
        deleting.metadata.deletion_timestamp =
            Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
            ));
        assert_eq!(pod_status_column(&deleting), "Terminating");
    }

    #[test]
    fn sidecars_count_in_ready_and_restarts() {
        // printers_test.go, TestPrintPodWithRestartableInitContainer.
        let pod: Pod = serde_json::from_value(json!({
            "metadata": {"name": "sidecar"},
            "spec": {"initContainers": [{"name": "log", "restartPolicy": "Always"}],
                     "containers": [{"name": "app"}]},
            "status": {"phase": "Running",
                "conditions": [{"type": "Initialized", "status": "True"}],
                "initContainerStatuses": [{"name": "log", "image": "i", "imageID": "", "ready": true,
                    "started": true, "restartCount": 2, "state": {"running": {}},
                    "lastState": {"terminated": {"exitCode": 1, "finishedAt": ago(30)}}}],
                "containerStatuses": [running(true, 0, None)]},
        }))
        .unwrap_or_default();
        assert_eq!(pod_row(&pod, NOW)[1..4], ["2/2", "Running", "2 (30s ago)"]);
    }

    #[test]
    fn human_durations() {
        // k8s.io/apimachinery/pkg/util/duration/duration_test.go, TestHumanDuration.
        let rows = [
            (-2, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (121, "2m1s"),
            (599, "9m59s"),
            (600, "10m"),
            (3 * 3600 - 1, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 60, "3h1m"),
            (8 * 3600, "8h"),
            (48 * 3600 - 1, "47h"),
            (48 * 3600, "2d"),
            (49 * 3600, "2d1h"),
            (8 * 86_400, "8d"),
            (2 * 365 * 86_400, "2y"),
            (2 * 365 * 86_400 + 86_400, "2y1d"),
            (8 * 365 * 86_400, "8y"),
        ];
        for (secs, want) in rows {
            assert_eq!(human_duration(secs), want, "{secs}");
        }
    }

    #[test]
    fn priority_classes_show_value_default_and_policy() {
        let objects: Vec<Arc<Object>> =
            crate::apiserver::admission::priority::system_priority_classes()
                .into_iter()
                .rev()
                .map(Arc::new)
                .collect();
        assert_eq!(
            table(&objects, SimTime::ZERO),
            [
                "NAME                      VALUE        GLOBAL-DEFAULT   AGE         PREEMPTIONPOLICY",
                "system-cluster-critical   2000000000   false            <unknown>   PreemptLowerPriority",
                "system-node-critical      2000001000   false            <unknown>   PreemptLowerPriority",
            ]
        );
    }
}
