//! `kubectl get`'s table output (`pkg/printers/internalversion/printers.go`),
//! for the columns podflow can fill: pods, nodes, priority classes and the rest
//! by name and age.

use std::fmt::Write as _;
use std::sync::Arc;

use super::clock::SimTime;
use crate::model::Object;

/// The lines `kubectl get` prints for `objects`.
pub fn table(objects: &[Arc<Object>], now: SimTime) -> Vec<String> {
    let rows: Vec<Vec<String>> = match objects.first().map(|o| o.kind().kind) {
        Some("Pod") => {
            let mut rows = vec![header(&["NAME", "READY", "STATUS", "RESTARTS", "AGE"])];
            rows.extend(objects.iter().filter_map(|o| o.as_pod()).map(|pod| {
                let statuses = pod
                    .status
                    .as_ref()
                    .and_then(|s| s.container_statuses.clone())
                    .unwrap_or_default();
                let total = pod.spec.as_ref().map_or(0, |s| s.containers.len());
                let ready = statuses.iter().filter(|c| c.ready).count();
                let restarts: i32 = statuses.iter().map(|c| c.restart_count).sum();
                vec![
                    pod.metadata.name.clone().unwrap_or_default(),
                    format!("{ready}/{total}"),
                    pod_status_column(pod),
                    restarts.to_string(),
                    age(pod.metadata.creation_timestamp.as_ref(), now),
                ]
            }));
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
        _ => {
            let mut rows = vec![header(&["NAME", "AGE"])];
            rows.extend(objects.iter().map(|o| {
                vec![
                    o.name().to_owned(),
                    age(o.metadata().creation_timestamp.as_ref(), now),
                ]
            }));
            rows
        }
    };
    align(&rows)
}

fn header(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| (*c).to_owned()).collect()
}

/// The STATUS column: the phase, or the waiting or terminated reason of a
/// container, as kubectl shows it (simplified: init containers not counted yet).
pub fn pod_status_column(pod: &k8s_openapi::api::core::v1::Pod) -> String {
    if pod.metadata.deletion_timestamp.is_some() {
        return "Terminating".into();
    }
    let status = pod.status.as_ref();
    let mut reason = status
        .and_then(|s| s.phase.clone())
        .unwrap_or_else(|| "Pending".into());
    for c in status
        .and_then(|s| s.container_statuses.as_ref())
        .into_iter()
        .flatten()
    {
        let state = c.state.as_ref();
        if let Some(r) = state
            .and_then(|s| s.waiting.as_ref())
            .and_then(|w| w.reason.clone())
        {
            reason = r;
        } else if let Some(r) = state
            .and_then(|s| s.terminated.as_ref())
            .and_then(|t| t.reason.clone())
        {
            reason = r;
        }
    }
    reason
}

/// kubectl's AGE column (`duration.HumanDuration`), for the durations a demo reaches.
fn age(
    created: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
    now: SimTime,
) -> String {
    let Some(created) = created else {
        return "<unknown>".into();
    };
    let (now_s, _) = now.unix();
    let secs = (now_s - created.0.as_second()).max(0);
    if secs < 120 {
        format!("{secs}s")
    } else if secs < 600 {
        format!("{}m{}s", secs / 60, secs % 60)
    } else if secs < 3 * 3600 {
        format!("{}m", secs / 60)
    } else if secs < 8 * 3600 {
        format!("{}h{}m", secs / 3600, secs % 3600 / 60)
    } else if secs < 48 * 3600 {
        format!("{}h", secs / 3600)
    } else {
        format!("{}d", secs / 86_400)
    }
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
    use super::*;

    #[test]
    fn priority_classes_show_value_default_and_policy() {
        let objects: Vec<Arc<Object>> =
            crate::engine::apiserver::admission::priority::system_priority_classes()
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
