//! `kubectl get` rows for Services, `EndpointSlices` and Jobs
//! (`pkg/printers/internalversion/printers.go`: `printService`,
//! `printEndpointSlice`, `printJob`), beside [`super::kubectl_table`].

use std::fmt::Write as _;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::discovery::v1::EndpointSlice;

use super::clock::SimTime;
use super::kubectl_table::human_duration;
use podflow_model::Object;

/// An object's cells but AGE: NAME, then its kind's own.
pub fn cells(o: &Object, now: SimTime) -> Vec<String> {
    let mut row = vec![o.name().to_owned()];
    row.extend(match o {
        Object::Service(s) => service_cells(s),
        Object::EndpointSlice(s) => endpoint_slice_cells(s),
        Object::Job(j) => job_cells(j, now),
        _ => Vec::new(),
    });
    row
}

/// The header of each kind's table, if this module prints it.
pub fn header(kind: &str) -> Option<&'static [&'static str]> {
    match kind {
        "Service" => Some(&[
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE",
        ]),
        "EndpointSlice" => Some(&["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]),
        "Job" => Some(&["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]),
        _ => None,
    }
}

/// `printService`'s cells but NAME and AGE: type, cluster IP, external IP, ports.
pub fn service_cells(svc: &Service) -> Vec<String> {
    let spec = svc.spec.clone().unwrap_or_default();
    let service_type = spec.type_.unwrap_or_else(|| "ClusterIP".into());
    let external = match service_type.as_str() {
        "ExternalName" => spec.external_name.clone().unwrap_or_default(),
        "LoadBalancer" => "<pending>".into(),
        _ => spec
            .external_ips
            .filter(|ips| !ips.is_empty())
            .map_or_else(|| "<none>".into(), |ips| ips.join(",")),
    };
    let ports: Vec<String> = spec
        .ports
        .iter()
        .flatten()
        .map(|p| {
            let protocol = p.protocol.as_deref().unwrap_or("TCP");
            match p.node_port {
                Some(node_port) if node_port > 0 => format!("{}:{node_port}/{protocol}", p.port),
                _ => format!("{}/{protocol}", p.port),
            }
        })
        .collect();
    vec![
        service_type,
        spec.cluster_ip.unwrap_or_else(|| "<none>".into()),
        external,
        if ports.is_empty() {
            "<none>".into()
        } else {
            ports.join(",")
        },
    ]
}

/// `printEndpointSlice`'s cells but NAME and AGE: address type, ports, endpoints
/// (`formatDiscoveryPorts`, `formatDiscoveryEndpoints`: three, then `+ N more...`).
pub fn endpoint_slice_cells(slice: &EndpointSlice) -> Vec<String> {
    let ports: Vec<String> = slice
        .ports
        .iter()
        .flatten()
        .map(|p| p.port.map_or_else(|| "<unset>".into(), |n| n.to_string()))
        .collect();
    let addresses: Vec<&String> = slice
        .endpoints
        .iter()
        .flatten()
        .flat_map(|e| e.addresses.iter())
        .collect();
    let mut endpoints = addresses
        .iter()
        .take(3)
        .map(|a| a.as_str())
        .collect::<Vec<_>>()
        .join(",");
    if addresses.len() > 3 {
        let _ = write!(endpoints, " + {} more...", addresses.len() - 3);
    }
    vec![
        slice.address_type.clone(),
        if ports.is_empty() {
            "<unset>".into()
        } else {
            ports.join(",")
        },
        if endpoints.is_empty() {
            "<unset>".into()
        } else {
            endpoints
        },
    ]
}

/// `printJob`'s cells but NAME and AGE: status, completions, duration.
pub fn job_cells(job: &Job, now: SimTime) -> Vec<String> {
    let spec = job.spec.clone().unwrap_or_default();
    let status = job.status.clone().unwrap_or_default();
    let succeeded = status.succeeded.unwrap_or(0);
    let completions = match spec.completions {
        Some(c) => format!("{succeeded}/{c}"),
        None => match spec.parallelism.unwrap_or(1) {
            p if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    };
    let has = |t: &str| {
        status
            .conditions
            .iter()
            .flatten()
            .any(|c| c.type_ == t && c.status == "True")
    };
    let state = if has("Failed") {
        "Failed"
    } else if has("Complete") {
        "Complete"
    } else if spec.suspend == Some(true) {
        "Suspended"
    } else if has("FailureTarget") {
        "FailureTarget"
    } else if has("SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else if job.metadata.deletion_timestamp.is_some() {
        "Terminating"
    } else {
        "Running"
    };
    let duration = status
        .start_time
        .as_ref()
        .map_or_else(String::new, |start| {
            let end = status
                .completion_time
                .as_ref()
                .map_or_else(|| now.unix().0, |t| t.0.as_second());
            human_duration(end - start.0.as_second())
        });
    vec![state.into(), completions, duration]
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{ServicePort, ServiceSpec};
    use k8s_openapi::api::discovery::v1::{Endpoint, EndpointPort};

    use super::*;

    /// Mirrors rows of `TestPrintService` and `TestPrintEndpointSlice` (`printers_test.go`).
    #[test]
    fn service_and_slice_rows() {
        let svc = Service {
            spec: Some(ServiceSpec {
                type_: Some("NodePort".into()),
                cluster_ip: Some("10.96.0.10".into()),
                ports: Some(vec![
                    ServicePort {
                        port: 80,
                        node_port: Some(30080),
                        protocol: Some("TCP".into()),
                        ..ServicePort::default()
                    },
                    ServicePort {
                        port: 53,
                        protocol: Some("UDP".into()),
                        ..ServicePort::default()
                    },
                ]),
                ..ServiceSpec::default()
            }),
            ..Service::default()
        };
        assert_eq!(
            service_cells(&svc),
            ["NodePort", "10.96.0.10", "<none>", "80:30080/TCP,53/UDP"]
        );
        let endpoint = |ip: &str| Endpoint {
            addresses: vec![ip.into()],
            ..Endpoint::default()
        };
        let slice = EndpointSlice {
            address_type: "IPv4".into(),
            endpoints: Some(
                ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]
                    .map(endpoint)
                    .to_vec(),
            ),
            ports: Some(vec![EndpointPort {
                port: Some(8080),
                ..EndpointPort::default()
            }]),
            ..EndpointSlice::default()
        };
        assert_eq!(
            endpoint_slice_cells(&slice),
            ["IPv4", "8080", "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more..."]
        );
        assert_eq!(
            endpoint_slice_cells(&EndpointSlice::default()),
            ["", "<unset>", "<unset>"]
        );
    }

    #[test]
    fn job_rows() {
        let mut job: Job = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "pi"},
            "spec": {"completions": 3, "parallelism": 2, "template": {}},
            "status": {"succeeded": 1, "startTime": "2026-11-30T02:20:30Z"}
        }))
        .unwrap();
        let now = SimTime(45_000);
        let start = job.status.as_ref().unwrap().start_time.clone().unwrap();
        let elapsed = now.unix().0 - start.0.as_second();
        assert_eq!(
            job_cells(&job, now),
            ["Running", "1/3", &human_duration(elapsed)]
        );
        job.status = Some(
            serde_json::from_value(serde_json::json!({
                "succeeded": 3, "startTime": "2026-11-30T02:20:30Z",
                "completionTime": "2026-11-30T02:20:42Z",
                "conditions": [{"type": "Complete", "status": "True"}]
            }))
            .unwrap(),
        );
        assert_eq!(job_cells(&job, now), ["Complete", "3/3", "12s"]);
    }
}
