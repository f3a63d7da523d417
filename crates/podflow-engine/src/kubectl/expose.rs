//! The Service `kubectl expose` builds from the object it exposes, as a pure
//! function (`pkg/cmd/expose/expose.go`: `RunExpose`, `createService`;
//! `pkg/polymorphichelpers`: `canBeExposed`, `mapBasedSelectorForObject`,
//! `portsForObject`, `multiProtocolsForObject`), and its requests: the
//! object's GET, then the Service's POST.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{PodSpec, ServiceSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde_json::{Value, json};

use super::{Body, Cx, InFlight, Kubectl, Object, Response, Verb, error_lines};
use podflow_model::kinds::kind_of;

/// What `expose` was told besides the object.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExposeSpec {
    /// `--port`.
    pub port: Option<String>,
    /// `--target-port`: a number or a port name.
    pub target_port: Option<String>,
    /// `--name`: the Service's name (default: the object's).
    pub name: Option<String>,
    /// `--type`.
    pub service_type: Option<String>,
    /// `--protocol`.
    pub protocol: Option<String>,
}

/// `mapBasedSelectorForObject`: the labels the Service selects.
fn selector(object: &Object) -> Result<BTreeMap<String, String>, String> {
    let from_selector = |s: Option<&LabelSelector>, what: &str| {
        let s = s.filter(|s| s.match_labels.as_ref().is_some_and(|m| !m.is_empty()));
        let Some(s) = s else {
            return Err(format!(
                "invalid {what}: no selectors, therefore cannot be exposed"
            ));
        };
        if let Some(expressions) = s.match_expressions.as_ref().filter(|e| !e.is_empty()) {
            return Err(format!(
                "couldn't convert expressions - \"{expressions:?}\" to map-based selector format"
            ));
        }
        Ok(s.match_labels.clone().unwrap_or_default())
    };
    match object {
        Object::Pod(pod) => pod
            .metadata
            .labels
            .clone()
            .filter(|l| !l.is_empty())
            .ok_or_else(|| "the pod has no labels and cannot be exposed".to_owned()),
        Object::Service(svc) => svc
            .spec
            .as_ref()
            .and_then(|s| s.selector.clone())
            .ok_or_else(|| "the service has no pod selector set".to_owned()),
        Object::Deployment(d) => from_selector(Some(&d.spec.selector), "deployment"),
        Object::ReplicaSet(rs) => from_selector(Some(&rs.spec.selector), "replicaset"),
        other => Err(format!(
            "cannot extract pod selector from {}",
            go_type(other)
        )),
    }
}

/// `*v1.Node`: how Go's `%T` names the object's type.
fn go_type(object: &Object) -> String {
    format!("*v1.{}", object.kind().kind)
}

fn pod_spec(object: &Object) -> Option<&PodSpec> {
    match object {
        Object::Pod(pod) => pod.spec.as_ref(),
        Object::Deployment(d) => d.spec.template.spec.as_ref(),
        Object::ReplicaSet(rs) => rs.spec.template.as_ref()?.spec.as_ref(),
        _ => None,
    }
}

fn service_spec(object: &Object) -> Option<&ServiceSpec> {
    match object {
        Object::Service(svc) => svc.spec.as_ref(),
        _ => None,
    }
}

/// `portsForObject` and `multiProtocolsForObject`: each distinct port in
/// order, with the protocols it is declared with.
fn ports(object: &Object) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut add = |port: i32, protocol: Option<&str>| {
        let port = port.to_string();
        let protocol = protocol.unwrap_or("TCP").to_owned();
        match out.iter_mut().find(|(p, _)| *p == port) {
            Some((_, protocols)) if !protocols.contains(&protocol) => protocols.push(protocol),
            Some(_) => {}
            None => out.push((port, vec![protocol])),
        }
    };
    if let Some(spec) = pod_spec(object) {
        for port in spec
            .containers
            .iter()
            .flat_map(|c| c.ports.iter().flatten())
        {
            add(port.container_port, port.protocol.as_deref());
        }
    }
    if let Some(spec) = service_spec(object) {
        for port in spec.ports.iter().flatten() {
            add(port.port, port.protocol.as_deref());
        }
    }
    out
}

/// `intstr.Parse`: a number, or a name.
fn int_or_string(value: &str) -> Value {
    value
        .parse::<i32>()
        .map_or_else(|_| json!(value), |n| json!(n))
}

/// The Service `expose` posts for `object`, or kubectl's error (without `error: `).
pub fn service(object: &Object, spec: &ExposeSpec) -> Result<Object, String> {
    if !matches!(
        object.kind().kind,
        "Pod" | "Service" | "Deployment" | "ReplicaSet" | "ReplicationController"
    ) {
        return Err(format!(
            "cannot expose a {}",
            podflow_model::status::group_kind(object.kind())
        ));
    }
    let selector = selector(object).map_err(|e| {
        format!("couldn't retrieve selectors via --selector flag or introspection: {e}")
    })?;
    let found = ports(object);
    let port_list: Vec<String> = match &spec.port {
        Some(port) => vec![port.clone()],
        None if found.is_empty() => {
            return Err("couldn't find port via --port flag or introspection".into());
        }
        None if found.len() == 1 => vec![found[0].0.clone()],
        // Several ports: `o.Ports`, split again below.
        None => found.iter().map(|(p, _)| p.clone()).collect(),
    };
    let mut service_ports = Vec::new();
    for (i, port_text) in port_list.iter().enumerate() {
        let port: i32 = port_text
            .parse()
            .map_err(|_| format!("strconv.Atoi: parsing {port_text:?}: invalid syntax"))?;
        let name = (port_list.len() > 1).then(|| format!("port-{}", i + 1));
        let declared = found.iter().find(|(p, _)| p == port_text).map(|(_, ps)| ps);
        let protocols: Vec<String> = match (&spec.protocol, declared) {
            (Some(protocol), _) => vec![protocol.clone()],
            (None, Some(declared)) => declared.clone(),
            (None, None) => vec!["TCP".into()],
        };
        if protocols.len() > 1 {
            for protocol in protocols {
                service_ports.push(json!({
                    "name": format!("port-{}-{}", i + 1, protocol.to_ascii_lowercase()),
                    "port": port, "protocol": protocol,
                }));
            }
            continue;
        }
        let mut entry = json!({"port": port, "protocol": protocols[0]});
        if let Some(name) = name {
            entry["name"] = json!(name);
        }
        service_ports.push(entry);
    }
    for entry in &mut service_ports {
        entry["targetPort"] = match &spec.target_port {
            Some(target) => int_or_string(target),
            None => entry["port"].clone(),
        };
    }
    let name = spec.name.clone().unwrap_or_else(|| {
        let own = object.name();
        own.chars().take(63).collect()
    });
    let mut metadata = json!({"name": name});
    if let Some(labels) = object.metadata().labels.as_ref().filter(|l| !l.is_empty()) {
        metadata["labels"] = json!(labels);
    }
    let mut service_spec = json!({"ports": service_ports, "selector": selector});
    if let Some(service_type) = &spec.service_type {
        service_spec["type"] = json!(service_type);
    }
    Object::from_json(
        kind_of("Service"),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": metadata, "spec": service_spec}),
    )
    .map_err(|e| e.to_string())
}

impl Kubectl {
    /// `expose` after the object's GET: the Service's POST, or kubectl's error.
    pub(super) fn expose_after_get(
        &mut self,
        spec: &ExposeSpec,
        namespace: Option<String>,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let Some(object) = response.object.as_deref().filter(|_| response.code < 300) else {
            return Self::print_all(cx, error_lines(response, ""));
        };
        let service = match service(object, spec) {
            Ok(service) => service,
            Err(message) => return Self::print(cx, format!("error: {message}")),
        };
        let name = service.name().to_owned();
        let req = self
            .request(Verb::Create, kind_of("Service"), namespace, "")
            .body(Body::Object(Box::new(service)));
        self.send(
            req,
            InFlight::Plain {
                done: format!("service/{name} exposed"),
            },
            cx,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(kind: &str, value: Value) -> Object {
        Object::from_json(kind_of(kind), value).unwrap()
    }

    fn web() -> Object {
        object(
            "Deployment",
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "web", "labels": {"app": "web"}},
                "spec": {"selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                        "spec": {"containers": [{"name": "nginx", "image": "nginx", "ports": [{"containerPort": 80}]}]}}}}),
        )
    }

    fn spec_of(service: &Object) -> Value {
        service.to_json()["spec"].clone()
    }

    /// After `pkg/cmd/expose/expose_test.go`, `TestRunExposeService`:
    /// the selector, ports, names and protocols kubectl gives the Service.
    #[test]
    fn the_service_is_built_as_expose_builds_it() {
        let svc = service(&web(), &ExposeSpec::default()).unwrap();
        assert_eq!(svc.name(), "web");
        assert_eq!(svc.to_json()["metadata"]["labels"], json!({"app": "web"}));
        assert_eq!(
            spec_of(&svc),
            json!({"ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}], "selector": {"app": "web"}})
        );
        let named = service(
            &web(),
            &ExposeSpec {
                port: Some("8080".into()),
                target_port: Some("http".into()),
                name: Some("front".into()),
                service_type: Some("NodePort".into()),
                protocol: Some("UDP".into()),
            },
        )
        .unwrap();
        assert_eq!(named.name(), "front");
        assert_eq!(
            spec_of(&named),
            json!({"ports": [{"port": 8080, "protocol": "UDP", "targetPort": "http"}],
                   "selector": {"app": "web"}, "type": "NodePort"})
        );
        let two = object(
            "Pod",
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"run": "p"}},
                "spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}, {"containerPort": 443}]}]}}),
        );
        assert_eq!(
            spec_of(&service(&two, &ExposeSpec::default()).unwrap())["ports"],
            json!([{"name": "port-1", "port": 80, "protocol": "TCP", "targetPort": 80},
                   {"name": "port-2", "port": 443, "protocol": "TCP", "targetPort": 443}])
        );
    }

    #[test]
    fn what_cannot_be_exposed_gets_kubectls_words() {
        let bare = object(
            "Pod",
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "c", "image": "i"}]}}),
        );
        assert_eq!(
            service(&bare, &ExposeSpec::default()).unwrap_err(),
            "couldn't retrieve selectors via --selector flag or introspection: the pod has no labels and cannot be exposed"
        );
        let no_port = object(
            "Pod",
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]}}),
        );
        assert_eq!(
            service(&no_port, &ExposeSpec::default()).unwrap_err(),
            "couldn't find port via --port flag or introspection"
        );
        let node = object(
            "Node",
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}),
        );
        assert_eq!(
            service(&node, &ExposeSpec::default()).unwrap_err(),
            "cannot expose a Node"
        );
    }
}
