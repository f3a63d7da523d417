//! `kubectl get` rows for the network's kinds, Services, Endpoints and
//! `EndpointSlices` (`pkg/printers/internalversion/printers.go`:
//! `printService`, `printEndpoints`, `printEndpointSlice`).

use std::fmt::Write as _;

use k8s_openapi::api::core::v1::{Endpoints, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;

use podflow_model::Object;

/// An object's cells but AGE: NAME, then its kind's own.
pub fn cells(o: &Object) -> Vec<String> {
    let mut row = vec![o.name().to_owned()];
    row.extend(match o {
        Object::Service(s) => service_cells(s),
        Object::EndpointSlice(s) => endpoint_slice_cells(s),
        Object::Endpoints(e) => vec![format_endpoints(e)],
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
        "Endpoints" => Some(&["NAME", "ENDPOINTS", "AGE"]),
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

/// `formatEndpoints(endpoints, nil)`: each ready address with each port of
/// its subset (`IP:PORT`; the bare IP for a headless Service's port-less
/// subset), three of them, then `+ N more...`; `<none>` without subsets.
pub fn format_endpoints(endpoints: &Endpoints) -> String {
    const MAX: usize = 3;
    let subsets = endpoints.subsets.as_deref().unwrap_or_default();
    if subsets.is_empty() {
        return "<none>".into();
    }
    let mut list: Vec<String> = Vec::new();
    let mut count = 0;
    for subset in subsets {
        let addresses = subset.addresses.as_deref().unwrap_or_default();
        let ports = subset.ports.as_deref().unwrap_or_default();
        let mut add = |shown: &dyn Fn(&str) -> String| {
            count += addresses.len();
            for address in addresses {
                if list.len() == MAX {
                    break;
                }
                list.push(shown(&address.ip));
            }
        };
        if ports.is_empty() {
            add(&|ip| ip.to_owned());
            continue;
        }
        for port in ports {
            add(&|ip| format!("{ip}:{}", port.port));
        }
    }
    let joined = list.join(",");
    if count > MAX {
        format!("{joined} + {} more...", count - MAX)
    } else {
        joined
    }
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

    /// Mirrors `TestPrintEndpoint` (`printers_test.go`): no subsets, one
    /// address, several ports, four addresses, a port-less subset.
    #[test]
    fn endpoints_rows() {
        use k8s_openapi::api::core::v1::{EndpointAddress, EndpointPort, EndpointSubset};
        let subset = |ips: &[&str], ports: &[i32]| EndpointSubset {
            addresses: Some(
                ips.iter()
                    .map(|ip| EndpointAddress {
                        ip: (*ip).into(),
                        ..EndpointAddress::default()
                    })
                    .collect(),
            ),
            not_ready_addresses: None,
            ports: Some(
                ports
                    .iter()
                    .map(|p| EndpointPort {
                        port: *p,
                        ..EndpointPort::default()
                    })
                    .collect(),
            ),
        };
        let of = |subsets: Vec<EndpointSubset>| Endpoints {
            subsets: Some(subsets),
            ..Endpoints::default()
        };
        let cases = [
            ("no subsets", Endpoints::default(), "<none>"),
            (
                "one",
                of(vec![subset(&["1.2.3.4"], &[8001])]),
                "1.2.3.4:8001",
            ),
            (
                "two ports",
                of(vec![subset(&["1.2.3.4"], &[8001, 8002])]),
                "1.2.3.4:8001,1.2.3.4:8002",
            ),
            (
                "four addresses",
                of(vec![subset(
                    &["1.2.3.4", "2.3.4.5", "3.4.5.6", "4.5.6.7"],
                    &[8001],
                )]),
                "1.2.3.4:8001,2.3.4.5:8001,3.4.5.6:8001 + 1 more...",
            ),
            (
                "two subsets",
                of(vec![
                    subset(&["1.2.3.4"], &[8001]),
                    subset(&["2.3.4.5"], &[8002]),
                ]),
                "1.2.3.4:8001,2.3.4.5:8002",
            ),
            (
                "headless, no ports",
                of(vec![subset(&["1.2.3.4", "2.3.4.5"], &[])]),
                "1.2.3.4,2.3.4.5",
            ),
        ];
        for (name, endpoints, want) in cases {
            assert_eq!(format_endpoints(&endpoints), want, "{name}");
        }
    }
}
