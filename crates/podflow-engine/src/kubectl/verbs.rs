//! The requests and answers of kubectl's verbs beyond apply, create and
//! get: `logs`, `label`/`annotate`, `set image` and `rollout`, each a GET
//! (or two) and then, where the verb changes something, a patch.

use k8s_openapi::api::apps::v1::Deployment;

use super::{
    Body, Command, Cx, DEFAULT_NAMESPACE, InFlight, Kind, Kubectl, LabelChange, Object, Response,
    RolloutAction, Verb, Wait, error_lines, label_plan, rollout, type_name,
};
use crate::store::selector::LabelRequirement;
use podflow_model::kinds::kind_of;

impl Kubectl {
    /// Starts `describe`, `auth`, `logs`, `label`/`annotate`, `set image` or `rollout`.
    pub(super) fn start_verb(&mut self, command: Command, cx: &mut Cx<'_>) {
        let or_default = |ns: Option<String>| ns.or_else(|| Some(DEFAULT_NAMESPACE.into()));
        match command {
            Command::Describe {
                kind,
                name,
                namespace,
            } => {
                let namespace = or_default(namespace).filter(|_| kind.namespaced);
                self.start_describe(kind, &name, namespace, cx);
            }
            Command::Logs {
                pod,
                namespace,
                container,
                tail,
                previous,
            } => {
                let req = self
                    .request(Verb::Get, kind_of("Pod"), or_default(namespace), &pod)
                    .subresource("log")
                    .body(Body::LogOptions {
                        container,
                        previous,
                    });
                self.send(req, InFlight::Logs { tail }, cx);
            }
            Command::Exec {
                kind,
                name,
                namespace,
                plan,
            } => self.start_exec(kind, &name, or_default(namespace), plan, cx),
            Command::Label {
                kind,
                name,
                namespace,
                changes,
                overwrite,
                annotate,
            } => {
                let namespace = or_default(namespace).filter(|_| kind.namespaced);
                let change = LabelChange {
                    changes,
                    overwrite,
                    annotate,
                };
                self.start_label(kind, &name, namespace, change, cx);
            }
            Command::Edit {
                kind,
                name,
                namespace,
                change,
            } => match change {
                Some(change) => {
                    let namespace = or_default(namespace).filter(|_| kind.namespaced);
                    let req = self.request(Verb::Get, kind, namespace, &name);
                    self.send(req, InFlight::EditGet { change }, cx);
                }
                None => Self::edit_without_editor(cx),
            },
            Command::SetImage {
                kind,
                name,
                namespace,
                images,
            } => {
                let req = self.request(Verb::Get, kind, or_default(namespace), &name);
                self.send(req, InFlight::SetImageGet { images }, cx);
            }
            Command::Rollout {
                action,
                name,
                namespace,
            } => {
                let deployment = kind_of("Deployment");
                let req = self.request(Verb::Get, deployment, or_default(namespace), &name);
                self.send(req, InFlight::RolloutGet { action }, cx);
            }
            Command::AuthCanI {
                verb,
                target,
                name,
                namespace,
            } => {
                let namespace = or_default(namespace);
                self.start_can_i(&verb, &target, name.as_deref(), namespace.as_deref(), cx);
            }
            Command::AuthWhoami => self.start_whoami(cx),
            // `start` hands only the commands above to this function.
            _ => {}
        }
    }

    /// `label`/`annotate`: first the object's GET.
    pub(super) fn start_label(
        &mut self,
        kind: &'static Kind,
        name: &str,
        namespace: Option<String>,
        change: LabelChange,
        cx: &mut Cx<'_>,
    ) {
        let req = self.request(Verb::Get, kind, namespace, name);
        self.send(req, InFlight::LabelGet(Box::new(change)), cx);
    }

    pub(super) fn print_logs(response: &Response, tail: Option<i64>, cx: &mut Cx<'_>) {
        if response.code >= 300 {
            Self::print_all(cx, error_lines(response, ""));
            return;
        }
        let lines: Vec<String> = response
            .log
            .as_ref()
            .map(|log| log.lines.iter().map(|(_, line)| line.clone()).collect())
            .unwrap_or_default();
        let skip = tail
            .and_then(|n| usize::try_from(n).ok())
            .map_or(0, |n| lines.len().saturating_sub(n));
        Self::print_all(cx, lines.into_iter().skip(skip).collect());
    }

    /// `set image` after its GET: kubectl's check, then the patch.
    pub(super) fn set_image_after_get(
        &mut self,
        images: &[(String, String)],
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let Some(Object::Deployment(d)) =
            response.object.as_deref().filter(|_| response.code < 300)
        else {
            return Self::print_all(cx, error_lines(response, ""));
        };
        match rollout::set_image_patch(d, images) {
            Ok(patch) => {
                let req = self
                    .request(
                        Verb::Patch,
                        kind_of("Deployment"),
                        d.metadata.namespace.clone(),
                        d.metadata.name.as_deref().unwrap_or_default(),
                    )
                    .body(Body::Patch(patch));
                let done = format!(
                    "deployment.apps/{} image updated",
                    d.metadata.name.as_deref().unwrap_or_default()
                );
                self.send_plain(req, done, cx);
            }
            Err(message) => Self::print(cx, format!("error: {message}")),
        }
    }

    /// `rollout` after the Deployment's GET.
    pub(super) fn rollout_after_get(
        &mut self,
        action: RolloutAction,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let Some(Object::Deployment(d)) =
            response.object.as_deref().filter(|_| response.code < 300)
        else {
            self.rollout_line = None;
            return Self::print_all(cx, error_lines(response, ""));
        };
        let name = d.metadata.name.clone().unwrap_or_default();
        let namespace = d.metadata.namespace.clone();
        match action {
            RolloutAction::Status => match rollout::status(d) {
                Ok((line, done)) => {
                    if self.rollout_line.as_deref() != Some(line.as_str()) {
                        Self::print(cx, line.clone());
                    }
                    if done {
                        self.rollout_line = None;
                    } else {
                        // kubectl watches; podflow's kubectl looks again each second.
                        self.rollout_line = Some(line);
                        let again = Command::Rollout {
                            action,
                            name,
                            namespace,
                        };
                        self.todo.push_front(match self.acting_as.clone() {
                            Some(user) => Command::As {
                                user,
                                command: Box::new(again),
                            },
                            None => again,
                        });
                        self.todo.push_front(Command::Wait(Wait::For(1000)));
                    }
                }
                Err(message) => {
                    self.rollout_line = None;
                    Self::print(cx, format!("error: {message}"));
                }
            },
            RolloutAction::Restart => {
                let patch = rollout::restart_patch(&cx.now.rfc3339());
                let req = self
                    .request(Verb::Patch, kind_of("Deployment"), namespace, &name)
                    .body(Body::Patch(patch));
                self.send_plain(req, format!("deployment.apps/{name} restarted"), cx);
            }
            RolloutAction::History | RolloutAction::Undo { .. } => {
                let mut req = self.request(Verb::List, kind_of("ReplicaSet"), namespace, "");
                req.selector.labels = d
                    .spec
                    .selector
                    .match_labels
                    .iter()
                    .flatten()
                    .map(|(k, v)| LabelRequirement::equals(k, v))
                    .collect();
                let meaning = InFlight::RolloutReplicaSets {
                    action,
                    deployment: d.clone(),
                };
                self.send(req, meaning, cx);
            }
        }
    }

    /// `rollout history` and `undo` once the replica sets are read.
    pub(super) fn rollout_with_replica_sets(
        &mut self,
        action: RolloutAction,
        d: &Deployment,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        if response.code >= 300 {
            return Self::print_all(cx, error_lines(response, ""));
        }
        let name = d.metadata.name.clone().unwrap_or_default();
        match action {
            RolloutAction::Undo { to_revision } => {
                match rollout::undo(d, &response.items, to_revision) {
                    Ok(rollout::Undo::Patch(patch)) => {
                        let req = self
                            .request(
                                Verb::Patch,
                                kind_of("Deployment"),
                                d.metadata.namespace.clone(),
                                &name,
                            )
                            .body(Body::JsonPatch(patch));
                        self.send_plain(req, format!("deployment.apps/{name} rolled back"), cx);
                    }
                    Ok(rollout::Undo::Skip(why)) => {
                        Self::print(cx, format!("deployment.apps/{name} {why}"));
                    }
                    Err(message) => Self::print(cx, format!("error: {message}")),
                }
            }
            _ => Self::print_all(cx, rollout::history(d, &response.items, "deployment.apps")),
        }
    }

    /// `label`/`annotate` after its GET: kubectl's checks, then a JSON
    /// merge patch of what changed (`pkg/cmd/label/label.go`,
    /// `pkg/cmd/annotate/annotate.go`).
    pub(super) fn label_after_get(
        &mut self,
        change: &LabelChange,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let Some(live) = response.object.as_deref().filter(|_| response.code < 300) else {
            Self::print_all(cx, error_lines(response, ""));
            return;
        };
        let field = if change.annotate {
            "annotations"
        } else {
            "labels"
        };
        let current = if change.annotate {
            live.metadata().annotations.clone()
        } else {
            live.metadata().labels.clone()
        }
        .unwrap_or_default();
        let outcome =
            label_plan::plan(&current, &change.changes, change.overwrite, change.annotate);
        for line in &outcome.notices {
            Self::print(cx, line.clone());
        }
        let plan = match outcome.result {
            Ok(plan) => plan,
            Err(message) => return Self::print(cx, format!("error: {message}")),
        };
        let name = format!("{}/{}", type_name(live.kind()), live.name());
        let Some(patch) = plan.patch else {
            return Self::print(cx, format!("{name} {}", plan.message));
        };
        let req = self
            .request(
                Verb::Patch,
                live.kind(),
                live.namespace().map(str::to_owned),
                live.name(),
            )
            .body(Body::MergePatch(
                serde_json::json!({"metadata": {field: patch}}),
            ));
        self.send_plain(req, format!("{name} {}", plan.message), cx);
    }
}
