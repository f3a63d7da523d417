//! `GET pods/NAME/log`: after the API server has authorized the request and
//! read the Pod, it asks the Pod's kubelet for the container's log
//! (`pkg/registry/core/pod/rest/log.go`; the container is chosen as
//! `pkg/registry/core/pod/strategy.go`, `LogLocation`, chooses it).

use k8s_openapi::api::core::v1::Pod;

use super::Engine;
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Request};
use crate::kubelet::ContainerLog;
use crate::trace::{Actor, Record};
use podflow_model::{Object, status};

impl Engine {
    /// Completes a `pods/log` answer the API server gave: the log, or the refusal.
    pub(super) fn answer_pod_log(
        &self,
        request: &Request,
        response: &mut Response,
        records: &mut Vec<Record>,
    ) {
        let Some(Object::Pod(pod)) = response.object.as_deref() else {
            return;
        };
        let (asked, previous) = match &request.body {
            Some(Body::LogOptions {
                container,
                previous,
            }) => (container.as_deref(), *previous),
            _ => (None, false),
        };
        let outcome = choose_container(pod, asked).and_then(|container| {
            let node = pod
                .spec
                .as_ref()
                .and_then(|s| s.node_name.as_deref())
                .filter(|n| !n.is_empty())
                .ok_or_else(|| format!("pod {} does not have a host assigned", request.name))?;
            let namespace = request.namespace.as_deref().unwrap_or_default();
            let query = if previous { "?previous=true" } else { "" };
            records.push(Record::message(
                Actor::ApiServer,
                Actor::Kubelet(node.into()),
                format!(
                    "GET /containerLogs/{namespace}/{}/{container}{query}",
                    request.name
                ),
            ));
            self.kubelets
                .get(node)
                .ok_or_else(|| format!("node \"{node}\" not found"))?
                .container_log(namespace, &request.name, &container, previous)
        });
        match outcome {
            Ok(log) => response.log = Some(Box::new(log)),
            Err(message) => *response = Response::failed(status::bad_request(message)),
        }
    }

    /// The log of `container` of `namespace/pod` on `node` (its running or
    /// last instance, as a follower reads it), or the kubelet's refusal.
    pub fn container_log(
        &self,
        node: &str,
        namespace: &str,
        pod: &str,
        container: &str,
    ) -> Result<ContainerLog, String> {
        self.kubelets
            .get(node)
            .ok_or_else(|| format!("node \"{node}\" not found"))?
            .container_log(namespace, pod, container, false)
    }
}

/// The container asked for, or the only one; upstream's refusals otherwise.
pub(super) fn choose_container(pod: &Pod, asked: Option<&str>) -> Result<String, String> {
    let name = pod.metadata.name.as_deref().unwrap_or_default();
    let spec = pod.spec.as_ref();
    let all: Vec<&str> = spec
        .into_iter()
        .flat_map(|s| s.init_containers.iter().flatten().chain(&s.containers))
        .map(|c| c.name.as_str())
        .collect();
    match asked {
        Some(container) if all.contains(&container) => Ok(container.to_owned()),
        Some(container) => Err(format!("container {container} is not valid for pod {name}")),
        None => {
            let regular: Vec<&str> = spec
                .map(|s| s.containers.iter().map(|c| c.name.as_str()).collect())
                .unwrap_or_default();
            match regular.as_slice() {
                [only] => Ok((*only).to_owned()),
                _ => Err(format!(
                    "a container name must be specified for pod {name}, choose one of: [{}]",
                    regular.join(" ")
                )),
            }
        }
    }
}
