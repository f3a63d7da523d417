//! `kubectl describe service` (`describeService` and `formatEndpointSlices`
//! of `pkg/describe/describe.go`).

use k8s_openapi::api::core::v1::{Service, ServiceSpec};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::Related;
use super::containers::join_host_port;
use super::sections::{LEVEL_0, Writer, annotations, events, format_labels, labels};
use crate::clock::SimTime;

/// The label that ties an `EndpointSlice` to its Service.
const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

/// How many endpoints `formatEndpointSlices` lists before `+ N more...`.
const MAX_ENDPOINTS: usize = 3;

/// The lines of `kubectl describe service`. Of `related.endpoint_slices`,
/// those labelled with the Service's name (in its namespace) are read.
pub fn describe(service: &Service, related: &Related, now: SimTime) -> Vec<String> {
    let mut w = Writer::new();
    let meta = &service.metadata;
    let spec = service.spec.clone().unwrap_or_default();
    let name = meta.name.as_deref().unwrap_or_default();
    w.field(LEVEL_0, "Name", name);
    w.field(
        LEVEL_0,
        "Namespace",
        meta.namespace.as_deref().unwrap_or_default(),
    );
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    w.field(LEVEL_0, "Selector", format_labels(spec.selector.as_ref()));
    w.field(LEVEL_0, "Type", spec.type_.as_deref().unwrap_or_default());
    if let Some(policy) = &spec.ip_family_policy {
        w.field(LEVEL_0, "IP Family Policy", policy);
    }
    let joined = |list: &Option<Vec<String>>| {
        list.as_ref()
            .filter(|l| !l.is_empty())
            .map_or_else(|| "<none>".to_owned(), |l| l.join(","))
    };
    w.field(LEVEL_0, "IP Families", joined(&spec.ip_families));
    w.field(
        LEVEL_0,
        "IP",
        spec.cluster_ip.as_deref().unwrap_or_default(),
    );
    w.field(LEVEL_0, "IPs", joined(&spec.cluster_ips));
    if let Some(ips) = spec.external_ips.as_ref().filter(|l| !l.is_empty()) {
        w.field(LEVEL_0, "External IPs", ips.join(","));
    }
    let set = |value: &Option<String>| value.clone().filter(|v| !v.is_empty());
    if let Some(ip) = set(&spec.load_balancer_ip) {
        w.field(LEVEL_0, "Desired LoadBalancer IP", ip);
    }
    if let Some(external) = set(&spec.external_name) {
        w.field(LEVEL_0, "External Name", external);
    }
    let ingress = load_balancer_ingress(service);
    if !ingress.is_empty() {
        w.field(LEVEL_0, "LoadBalancer Ingress", ingress);
    }
    let slices: Vec<&EndpointSlice> = related
        .endpoint_slices
        .iter()
        .filter_map(|o| o.get::<EndpointSlice>())
        .filter(|s| s.metadata.namespace == meta.namespace)
        .filter(|s| {
            s.metadata
                .labels
                .as_ref()
                .and_then(|l| l.get(SERVICE_NAME_LABEL))
                .is_some_and(|n| n == name)
        })
        .collect();
    ports(&mut w, &spec, &slices);
    w.field(
        LEVEL_0,
        "Session Affinity",
        spec.session_affinity.as_deref().unwrap_or_default(),
    );
    if let Some(policy) = set(&spec.external_traffic_policy) {
        w.field(LEVEL_0, "External Traffic Policy", policy);
    }
    if let Some(policy) = &spec.internal_traffic_policy {
        w.field(LEVEL_0, "Internal Traffic Policy", policy);
    }
    if let Some(port) = spec.health_check_node_port.filter(|p| *p != 0) {
        w.field(LEVEL_0, "HealthCheck NodePort", port);
    }
    if let Some(ranges) = spec
        .load_balancer_source_ranges
        .as_ref()
        .filter(|l| !l.is_empty())
    {
        w.field(LEVEL_0, "LoadBalancer Source Ranges", ranges.join(","));
    }
    if let Some(distribution) = &spec.traffic_distribution {
        w.field(LEVEL_0, "Traffic Distribution", distribution);
    }
    events(&mut w, &related.events, now);
    w.finish()
}

/// Each port's `Port`, `TargetPort`, `AppProtocol`, `NodePort` and `Endpoints` lines.
fn ports(w: &mut Writer, spec: &ServiceSpec, slices: &[&EndpointSlice]) {
    for port in spec.ports.iter().flatten() {
        let port_name = port.name.as_deref().unwrap_or_default();
        let shown_name = if port_name.is_empty() {
            "<unset>"
        } else {
            port_name
        };
        let protocol = port.protocol.as_deref().unwrap_or_default();
        w.line(
            LEVEL_0,
            &format!("Port:\t{shown_name}\t{}/{protocol}", port.port),
        );
        let target = match &port.target_port {
            Some(IntOrString::Int(i)) => i.to_string(),
            Some(IntOrString::String(s)) => s.clone(),
            None => "0".into(),
        };
        w.field(LEVEL_0, "TargetPort", format!("{target}/{protocol}"));
        if let Some(app) = &port.app_protocol {
            w.field(LEVEL_0, "AppProtocol", app);
        }
        if let Some(node_port) = port.node_port.filter(|p| *p != 0) {
            w.line(
                LEVEL_0,
                &format!("NodePort:\t{shown_name}\t{node_port}/{protocol}"),
            );
        }
        w.field(
            LEVEL_0,
            "Endpoints",
            format_endpoint_slices(slices, port_name),
        );
    }
}

/// `buildIngressString`: each ingress's IP (and IP mode) or host name.
fn load_balancer_ingress(service: &Service) -> String {
    service
        .status
        .as_ref()
        .and_then(|s| s.load_balancer.as_ref())
        .and_then(|lb| lb.ingress.as_ref())
        .into_iter()
        .flatten()
        .map(|i| match i.ip.as_deref().filter(|ip| !ip.is_empty()) {
            Some(ip) => match &i.ip_mode {
                Some(mode) => format!("{ip} ({mode})"),
                None => ip.to_owned(),
            },
            None => i.hostname.clone().unwrap_or_default(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `formatEndpointSlices` for one port name: the ready endpoints'
/// `address:port`, three of them then `+ N more...`; `<none>` without slices.
fn format_endpoint_slices(slices: &[&EndpointSlice], port_name: &str) -> String {
    if slices.is_empty() {
        return "<none>".into();
    }
    let mut list: Vec<String> = Vec::new();
    let mut more = false;
    let mut count = 0;
    let mut visit = |address: Option<String>, ready: bool| {
        if list.len() == MAX_ENDPOINTS {
            more = true;
        }
        if !ready {
            return;
        }
        if !more {
            list.push(address.unwrap_or_default());
        }
        count += 1;
    };
    for slice in slices {
        let ports = slice.ports.as_deref().unwrap_or_default();
        let ready = |e: &k8s_openapi::api::discovery::v1::Endpoint| {
            e.conditions.as_ref().and_then(|c| c.ready).unwrap_or(true)
        };
        if ports.is_empty() {
            for endpoint in slice.endpoints.iter().flatten() {
                visit(endpoint.addresses.first().cloned(), ready(endpoint));
            }
            continue;
        }
        for port in ports
            .iter()
            .filter(|p| p.name.as_deref().unwrap_or_default() == port_name)
        {
            for endpoint in slice.endpoints.iter().flatten() {
                let address = endpoint
                    .addresses
                    .first()
                    .map(|a| join_host_port(a, &port.port.unwrap_or(0).to_string()));
                visit(address, ready(endpoint));
            }
        }
    }
    let joined = list.join(",");
    if more {
        format!("{joined} + {} more...", count - MAX_ENDPOINTS)
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testing::object;
    use super::super::{Related, describe as describe_object};
    use super::*;

    #[test]
    fn describe_cluster_ip_service_with_endpoints() {
        // describeService; formatEndpointSlices lists three ready endpoints,
        // skips a not-ready one and counts the rest as `+ 1 more...`.
        let service = object(
            "Service",
            json!({"metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
                "spec": {"type": "ClusterIP", "selector": {"app": "web"}, "clusterIP": "10.96.12.34",
                    "clusterIPs": ["10.96.12.34"], "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                    "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}],
                    "sessionAffinity": "None", "internalTrafficPolicy": "Cluster"}}),
        );
        let endpoint = |ip: &str, ready: Option<bool>| match ready {
            Some(ready) => json!({"addresses": [ip], "conditions": {"ready": ready}}),
            None => json!({"addresses": [ip]}),
        };
        let slice = |name: &str, service: &str| {
            object(
                "EndpointSlice",
                json!({"metadata": {"name": name, "namespace": "default",
                        "labels": {"kubernetes.io/service-name": service}},
                    "addressType": "IPv4",
                    "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
                    "endpoints": [endpoint("10.244.1.5", Some(true)), endpoint("10.244.2.7", Some(true)),
                        endpoint("10.244.1.6", Some(false)), endpoint("10.244.2.8", None),
                        endpoint("10.244.3.9", Some(true))]}),
            )
        };
        let related = Related {
            endpoint_slices: vec![slice("web-abcde", "web"), slice("api-fghij", "api")],
            ..Related::default()
        };
        assert_eq!(
            describe_object(&service, &related, SimTime(0)),
            [
                "Name:                     web",
                "Namespace:                default",
                "Labels:                   app=web",
                "Annotations:              <none>",
                "Selector:                 app=web",
                "Type:                     ClusterIP",
                "IP Family Policy:         SingleStack",
                "IP Families:              IPv4",
                "IP:                       10.96.12.34",
                "IPs:                      10.96.12.34",
                "Port:                     http  80/TCP",
                "TargetPort:               8080/TCP",
                "Endpoints:                10.244.1.5:8080,10.244.2.7:8080,10.244.2.8:8080 + 1 more...",
                "Session Affinity:         None",
                "Internal Traffic Policy:  Cluster",
                "Events:                   <none>",
            ]
        );
    }

    #[test]
    fn node_port_service_without_endpoints() {
        // An unnamed port reads `<unset>`; no slices, `<none>`.
        let service = object(
            "Service",
            json!({"metadata": {"name": "shop", "namespace": "default"},
                "spec": {"type": "NodePort", "clusterIP": "10.96.0.20",
                    "ports": [{"port": 80, "targetPort": "http", "nodePort": 30080, "protocol": "TCP"}],
                    "sessionAffinity": "None", "externalTrafficPolicy": "Cluster"}}),
        );
        let lines = describe_object(&service, &Related::default(), SimTime(0));
        assert_eq!(
            lines[4..],
            [
                "Selector:                 <none>",
                "Type:                     NodePort",
                "IP Families:              <none>",
                "IP:                       10.96.0.20",
                "IPs:                      <none>",
                "Port:                     <unset>  80/TCP",
                "TargetPort:               http/TCP",
                "NodePort:                 <unset>  30080/TCP",
                "Endpoints:                <none>",
                "Session Affinity:         None",
                "External Traffic Policy:  Cluster",
                "Events:                   <none>",
            ]
        );
    }
}
