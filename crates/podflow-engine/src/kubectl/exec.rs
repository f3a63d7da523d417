//! `kubectl exec POD [-c CONTAINER] -- COMMAND…` (`pkg/cmd/exec/exec.go`,
//! `ExecOptions.Run`): the Pod's GET, kubectl's own checks (a completed
//! Pod, the container named or the default one, `podcmd.go`), then the
//! `pods/exec` connection; what the command printed, and `command terminated
//! with exit code N` when it failed.

use k8s_openapi::api::core::v1::Pod;

use super::{Body, Cx, InFlight, Kind, Kubectl, Object, Response, Verb, attachable, error_lines};
use crate::store::selector::parse_labels;
use podflow_model::kinds::kind_of;

/// The annotation naming the container `exec`, `logs` and `attach` default to.
const DEFAULT_CONTAINER: &str = "kubectl.kubernetes.io/default-container";

/// What `exec` runs, carried from the Pod's GET to the connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecPlan {
    pub container: Option<String>,
    pub command: Vec<String>,
    /// `-i` and `-t`: kubectl's standard input is no terminal in podflow.
    pub stdin: bool,
    pub tty: bool,
    /// `-q`: only the command's output, no notices of kubectl's own.
    pub quiet: bool,
}

impl Kubectl {
    /// `exec`: first the GET of the Pod (or of the object naming its Pods).
    pub(super) fn start_exec(
        &mut self,
        kind: &'static Kind,
        name: &str,
        namespace: Option<String>,
        plan: ExecPlan,
        cx: &mut Cx<'_>,
    ) {
        let req = self.request(Verb::Get, kind, namespace, name);
        let meaning = if kind.kind == "Pod" {
            InFlight::ExecGet(Box::new(plan))
        } else {
            InFlight::ExecOwnerGet(Box::new(plan))
        };
        self.send(req, meaning, cx);
    }

    /// After a workload's or Service's GET: the LIST of the Pods it selects.
    pub(super) fn exec_after_owner(
        &mut self,
        plan: ExecPlan,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let Some(owner) = response.object.as_deref().filter(|_| response.code < 300) else {
            return Self::print_all(cx, error_lines(response, ""));
        };
        let selector = match attachable::selector_of(owner) {
            Ok(selector) => selector,
            Err(message) => return Self::print(cx, format!("error: {message}")),
        };
        let mut req = self.request(
            Verb::List,
            kind_of("Pod"),
            owner.namespace().map(str::to_owned),
            "",
        );
        req.selector.labels = parse_labels(&selector).unwrap_or_default();
        self.send(req, InFlight::ExecPods(Box::new(plan)), cx);
    }

    /// After the LIST: the most active Pod, as `attachablePodForObject`
    /// takes it; with none, kubectl's wait for one ends at once.
    pub(super) fn exec_after_pods(&mut self, plan: ExecPlan, response: &Response, cx: &mut Cx<'_>) {
        if response.code >= 300 {
            return Self::print_all(cx, error_lines(response, ""));
        }
        match attachable::most_active(&response.items) {
            Some(pod) => self.exec_in(plan, pod, cx),
            None => Self::print(cx, "error: timed out waiting for the condition".into()),
        }
    }

    /// After the Pod's GET: kubectl's checks, then the `pods/exec` POST.
    pub(super) fn exec_after_get(&mut self, plan: ExecPlan, response: &Response, cx: &mut Cx<'_>) {
        let Some(Object::Pod(pod)) = response.object.as_deref().filter(|_| response.code < 300)
        else {
            return Self::print_all(cx, error_lines(response, ""));
        };
        self.exec_in(plan, pod, cx);
    }

    /// `Run` once the Pod is known: the completed-Pod check, the container, the POST.
    fn exec_in(&mut self, plan: ExecPlan, pod: &Pod, cx: &mut Cx<'_>) {
        let container = match choose(pod, plan.container.as_deref()) {
            Ok((container, notice)) => {
                if let Some(line) = notice.filter(|_| !plan.quiet) {
                    Self::print(cx, line);
                }
                container
            }
            Err(message) => return Self::print(cx, format!("error: {message}")),
        };
        if plan.stdin && plan.tty && !plan.quiet {
            // `SetupTTY`: podflow's kubectl reads no terminal.
            Self::print(
                cx,
                "Unable to use a TTY - input is not a terminal or the right kind of file".into(),
            );
        }
        let req = self
            .request(
                Verb::Create,
                kind_of("Pod"),
                pod.metadata.namespace.clone(),
                pod.metadata.name.as_deref().unwrap_or_default(),
            )
            .subresource("exec")
            .body(Body::Exec {
                container: Some(container),
                command: plan.command,
            });
        self.send(req, InFlight::Exec, cx);
    }

    /// What the command printed, and its failure.
    pub(super) fn print_exec(response: &Response, cx: &mut Cx<'_>) {
        match response.exec.as_deref() {
            Some(Ok(result)) => {
                Self::print_all(cx, result.output.lines().map(str::to_owned).collect());
                if result.code != 0 {
                    Self::print(
                        cx,
                        format!("command terminated with exit code {}", result.code),
                    );
                }
            }
            Some(Err(message)) => Self::print(
                cx,
                format!("error: unable to upgrade connection: {message}"),
            ),
            None => Self::print_all(cx, error_lines(response, "")),
        }
    }
}

/// The container to run in (`podcmd.FindOrDefaultContainerByName`), and
/// the `Defaulted container` notice kubectl writes to standard error; or
/// kubectl's refusal (a completed Pod, a container it does not have).
pub fn choose(pod: &Pod, asked: Option<&str>) -> Result<(String, Option<String>), String> {
    let name = pod.metadata.name.as_deref().unwrap_or_default();
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
    if let Some(phase @ ("Succeeded" | "Failed")) = phase {
        return Err(format!(
            "cannot exec into a container in a completed pod; current phase is {phase}"
        ));
    }
    let Some(spec) = pod.spec.as_ref().filter(|s| !s.containers.is_empty()) else {
        let namespace = pod.metadata.namespace.as_deref().unwrap_or_default();
        return Err(format!(
            "pod {namespace}/{name} does not have any containers"
        ));
    };
    let annotated = pod
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(DEFAULT_CONTAINER))
        .filter(|c| !c.is_empty());
    let has = |wanted: &str| {
        spec.containers.iter().any(|c| c.name == wanted)
            || spec
                .init_containers
                .iter()
                .flatten()
                .any(|c| c.name == wanted)
            || spec
                .ephemeral_containers
                .iter()
                .flatten()
                .any(|c| c.name == wanted)
    };
    if let Some(wanted) = asked.or(annotated.map(String::as_str)) {
        return if has(wanted) {
            Ok((wanted.to_owned(), None))
        } else {
            Err(format!(
                "container {wanted} is not valid for pod {name} out of: {}",
                all_container_names(pod)
            ))
        };
    }
    let first = spec.containers[0].name.clone();
    let several = spec.containers.len() > 1
        || spec.init_containers.as_ref().is_some_and(|c| !c.is_empty())
        || spec
            .ephemeral_containers
            .as_ref()
            .is_some_and(|c| !c.is_empty());
    let notice = several.then(|| {
        format!(
            "Defaulted container \"{first}\" out of: {}",
            all_container_names(pod)
        )
    });
    Ok((first, notice))
}

/// `podcmd.AllContainerNames`: `app, debugger (ephem), init-db (init)`.
fn all_container_names(pod: &Pod) -> String {
    let Some(spec) = pod.spec.as_ref() else {
        return String::new();
    };
    let names: Vec<String> = spec
        .containers
        .iter()
        .map(|c| c.name.clone())
        .chain(
            spec.ephemeral_containers
                .iter()
                .flatten()
                .map(|c| format!("{} (ephem)", c.name)),
        )
        .chain(
            spec.init_containers
                .iter()
                .flatten()
                .map(|c| format!("{} (init)", c.name)),
        )
        .collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(value: serde_json::Value) -> Pod {
        serde_json::from_value(value).unwrap()
    }

    /// `TestFindOrDefaultContainerByName` (`pkg/cmd/util/podcmd`) and the
    /// completed-pod check of `exec.go`'s `Run`.
    #[test]
    fn the_container_is_chosen_as_kubectl_chooses_it() {
        let two = pod(json!({
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"containers": [{"name": "app"}, {"name": "sidecar"}],
                     "initContainers": [{"name": "setup"}]},
            "status": {"phase": "Running"},
        }));
        assert_eq!(
            choose(&two, None),
            Ok((
                "app".into(),
                Some("Defaulted container \"app\" out of: app, sidecar, setup (init)".into())
            ))
        );
        assert_eq!(choose(&two, Some("sidecar")), Ok(("sidecar".into(), None)));
        assert_eq!(
            choose(&two, Some("nope")),
            Err(
                "container nope is not valid for pod web out of: app, sidecar, setup (init)".into()
            )
        );
        let annotated = pod(json!({
            "metadata": {"name": "web", "annotations": {DEFAULT_CONTAINER: "sidecar"}},
            "spec": {"containers": [{"name": "app"}, {"name": "sidecar"}]},
        }));
        assert_eq!(choose(&annotated, None), Ok(("sidecar".into(), None)));
        let one = pod(
            json!({"metadata": {"name": "nginx"}, "spec": {"containers": [{"name": "nginx"}]}}),
        );
        assert_eq!(choose(&one, None), Ok(("nginx".into(), None)));
        let done = pod(json!({
            "metadata": {"name": "job"},
            "spec": {"containers": [{"name": "c"}]},
            "status": {"phase": "Succeeded"},
        }));
        assert_eq!(
            choose(&done, None),
            Err(
                "cannot exec into a container in a completed pod; current phase is Succeeded"
                    .into()
            )
        );
    }
}
