//! `kubectl describe endpoints` (`describeEndpoints` of `pkg/describe/describe.go`):
//! the header, then each subset's ready and not-ready addresses and its
//! ports, then the Events.

use k8s_openapi::api::core::v1::{EndpointAddress, Endpoints};

use super::Related;
use super::sections::{LEVEL_0, LEVEL_1, LEVEL_2, Writer, annotations, events, labels};
use crate::clock::SimTime;

/// The IPs of `addresses` joined with commas, `<none>` when there are none.
fn ips(addresses: Option<&Vec<EndpointAddress>>) -> String {
    let joined = addresses
        .into_iter()
        .flatten()
        .map(|a| a.ip.as_str())
        .collect::<Vec<_>>()
        .join(",");
    if joined.is_empty() {
        "<none>".into()
    } else {
        joined
    }
}

/// The lines of `kubectl describe endpoints`.
pub fn describe(endpoints: &Endpoints, related: &Related, now: SimTime) -> Vec<String> {
    let mut w = Writer::new();
    let meta = &endpoints.metadata;
    w.field(LEVEL_0, "Name", meta.name.as_deref().unwrap_or_default());
    w.field(
        LEVEL_0,
        "Namespace",
        meta.namespace.as_deref().unwrap_or_default(),
    );
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    w.line(LEVEL_0, "Subsets:");
    for subset in endpoints.subsets.iter().flatten() {
        w.field(LEVEL_1, "Addresses", ips(subset.addresses.as_ref()));
        w.field(
            LEVEL_1,
            "NotReadyAddresses",
            ips(subset.not_ready_addresses.as_ref()),
        );
        let ports = subset.ports.as_deref().unwrap_or_default();
        if !ports.is_empty() {
            w.line(LEVEL_1, "Ports:");
            w.line(LEVEL_2, "Name\tPort\tProtocol");
            w.line(LEVEL_2, "----\t----\t--------");
            for port in ports {
                let name = port.name.as_deref().filter(|n| !n.is_empty());
                w.line(
                    LEVEL_2,
                    &format!(
                        "{}\t{}\t{}",
                        name.unwrap_or("<unset>"),
                        port.port,
                        port.protocol.as_deref().unwrap_or_default()
                    ),
                );
            }
        }
        w.line(LEVEL_0, "");
    }
    events(&mut w, &related.events, now);
    w.finish()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testing::object;
    use super::*;

    /// The layout of `TestDescribeEndpoints`-style output: one subset with a
    /// ready and a not-ready address and a named port.
    #[test]
    fn subsets_list_addresses_and_ports() {
        let ep = object(
            "Endpoints",
            json!({
                "apiVersion": "v1", "kind": "Endpoints",
                "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
                "subsets": [{
                    "addresses": [{"ip": "10.244.1.2"}, {"ip": "10.244.2.3"}],
                    "notReadyAddresses": [{"ip": "10.244.3.4"}],
                    "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]
                }]
            }),
        );
        let lines = describe(
            ep.get::<Endpoints>().unwrap(),
            &Related::default(),
            SimTime(0),
        );
        assert_eq!(
            lines,
            [
                "Name:         web",
                "Namespace:    default",
                "Labels:       app=web",
                "Annotations:  <none>",
                "Subsets:",
                "  Addresses:          10.244.1.2,10.244.2.3",
                "  NotReadyAddresses:  10.244.3.4",
                "  Ports:",
                "    Name  Port  Protocol",
                "    ----  ----  --------",
                "    http  80    TCP",
                "",
                "Events:  <none>",
            ]
        );
    }
}
