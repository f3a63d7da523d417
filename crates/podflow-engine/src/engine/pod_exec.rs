//! `POST pods/NAME/exec`: after the API server has authorized the request
//! (`create` on `pods/exec`) and read the Pod, it finds where the container
//! runs (`pkg/registry/core/pod/strategy.go`, `ExecLocation`) and hands the
//! upgraded connection to that node's kubelet, which runs the command; the
//! answer is `101 Switching Protocols` and the command's output, or the
//! kubelet's refusal, which kubectl reports as `unable to upgrade connection`.
//! podflow runs the command to its end within the request.

use std::fmt::Write as _;

use super::Engine;
use super::pod_logs::choose_container;
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Request};
use crate::trace::{Actor, Record};
use podflow_model::{Object, status};

impl Engine {
    /// Completes a `pods/exec` answer the API server gave: the command's
    /// output, or the refusal.
    pub(super) fn answer_pod_exec(
        &mut self,
        request: &Request,
        response: &mut Response,
        records: &mut Vec<Record>,
    ) {
        let Some(Object::Pod(pod)) = response.object.as_deref() else {
            return;
        };
        let Some(Body::Exec { container, command }) = &request.body else {
            *response = Response::failed(status::bad_request(
                "you must specify at least 1 command".into(),
            ));
            return;
        };
        let located = choose_container(pod, container.as_deref()).and_then(|container| {
            let node = pod
                .spec
                .as_ref()
                .and_then(|s| s.node_name.clone())
                .filter(|n| !n.is_empty())
                .ok_or_else(|| format!("pod {} does not have a host assigned", request.name))?;
            Ok((node, container))
        });
        let (node, container) = match located {
            Ok(found) => found,
            Err(message) => return *response = Response::failed(status::bad_request(message)),
        };
        let namespace = request.namespace.clone().unwrap_or_default();
        records.push(Record::message(
            Actor::ApiServer,
            Actor::Kubelet(node.as_str().into()),
            format!(
                "POST /exec/{namespace}/{}/{container}?{}",
                request.name,
                command_query(command)
            ),
        ));
        let pod_ips = pod_ips(&self.store);
        let Some(kubelet) = self.kubelets.get_mut(&node) else {
            let message = format!("node \"{node}\" not found");
            return *response = Response::failed(status::bad_request(message));
        };
        let ran = kubelet.exec(
            &namespace,
            &request.name,
            &container,
            command,
            self.now,
            &pod_ips,
        );
        match ran {
            Ok((result, connections)) => {
                records.push(Record::message(
                    Actor::Kubelet(node.as_str().into()),
                    Actor::Containerd(node.as_str().into()),
                    format!("Exec {container} {}", command.join(" ")),
                ));
                records.extend(connections.into_iter().map(Record::from));
                response.code = 101;
                response.exec = Some(Box::new(Ok(result)));
            }
            Err(message) => {
                *response = Response::failed(status::internal_error(message.clone()));
                response.exec = Some(Box::new(Err(message)));
            }
        }
    }
}

/// Every Pod's IP: the Pod network, which reaches any Pod directly.
fn pod_ips(store: &crate::store::Store) -> std::collections::BTreeSet<String> {
    store
        .range("/registry/pods/")
        .filter_map(|(_, e)| e.object.as_pod()?.status.as_ref()?.pod_ip.clone())
        .filter(|ip| !ip.is_empty())
        .collect()
}

/// `command=cat&command=%2Fetc%2Fhosts`: the argv as `PodExecOptions`
/// puts it in the URL (Go's `url.QueryEscape`).
pub fn command_query(command: &[String]) -> String {
    command
        .iter()
        .map(|word| format!("command={}", query_escape(word)))
        .collect::<Vec<_>>()
        .join("&")
}

/// `url.QueryEscape`: letters, digits and `-_.~` stay, a space is `+`, any
/// other byte `%XX`.
fn query_escape(word: &str) -> String {
    let mut out = String::new();
    for byte in word.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            other => {
                let _ = write!(out, "%{other:02X}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::command_query;

    #[test]
    fn the_command_is_escaped_as_go_escapes_a_query() {
        let argv = ["sh", "-c", "echo $HOME > /tmp/x"].map(String::from);
        assert_eq!(
            command_query(&argv),
            "command=sh&command=-c&command=echo+%24HOME+%3E+%2Ftmp%2Fx"
        );
    }
}
