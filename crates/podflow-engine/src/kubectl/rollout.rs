//! `kubectl rollout` and `kubectl set image` on a Deployment, as pure plans
//! over the objects kubectl has read: the status line and whether the
//! rollout is done (`pkg/polymorphichelpers/rollout_status.go`,
//! `DeploymentStatusViewer`), the history table (`history.go`,
//! `DeploymentHistoryViewer`), the undo patch (`rollback.go`,
//! `DeploymentRollbacker`), the restart patch (`objectrestarter.go`) and
//! the image patch (`pkg/cmd/set/set_image.go`).

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use serde_json::{Value, json};

use crate::controllers::deployment_util::{
    HASH_LABEL, REVISION, SKIPPED, annotation_number, equal_ignore_hash, get_condition,
};
use podflow_model::Object;

/// `DeploymentStatusViewer.Status`: the line kubectl prints and whether it
/// is done, or the error that ends the wait.
pub fn status(d: &Deployment) -> Result<(String, bool), String> {
    let name = d.metadata.name.as_deref().unwrap_or_default();
    let status = d.status.clone().unwrap_or_default();
    if d.metadata.generation.unwrap_or(0) > status.observed_generation.unwrap_or(0) {
        return Ok((
            "Waiting for deployment spec update to be observed...".into(),
            false,
        ));
    }
    if get_condition(&status, "Progressing")
        .is_some_and(|c| c.reason.as_deref() == Some("ProgressDeadlineExceeded"))
    {
        return Err(format!(
            "deployment \"{name}\" exceeded its progress deadline"
        ));
    }
    let updated = status.updated_replicas.unwrap_or(0);
    let available = status.available_replicas.unwrap_or(0);
    let waiting = |what: String| {
        Ok((
            format!("Waiting for deployment \"{name}\" rollout to finish: {what}..."),
            false,
        ))
    };
    if let Some(desired) = d.spec.replicas.filter(|desired| updated < *desired) {
        return waiting(format!(
            "{updated} out of {desired} new replicas have been updated"
        ));
    }
    if status.replicas.unwrap_or(0) > updated {
        let old = status.replicas.unwrap_or(0) - updated;
        return waiting(format!("{old} old replicas are pending termination"));
    }
    if available < updated {
        return waiting(format!(
            "{available} of {updated} updated replicas are available"
        ));
    }
    Ok((
        format!("deployment \"{name}\" successfully rolled out"),
        true,
    ))
}

/// The replica sets among `objects` that `d` controls.
fn owned<'a>(d: &Deployment, objects: &'a [Arc<Object>]) -> Vec<&'a ReplicaSet> {
    let uid = d.metadata.uid.as_deref();
    objects
        .iter()
        .filter_map(|o| match &**o {
            Object::ReplicaSet(rs) => Some(rs),
            _ => None,
        })
        .filter(|rs| {
            rs.metadata
                .owner_references
                .iter()
                .flatten()
                .any(|r| r.controller == Some(true) && Some(r.uid.as_str()) == uid)
        })
        .collect()
}

fn revision(rs: &ReplicaSet) -> i64 {
    annotation_number(rs.metadata.annotations.as_ref(), REVISION).unwrap_or(0)
}

/// `rollout history`'s lines: the object's name, then REVISION and
/// CHANGE-CAUSE as tabwriter aligns them, then an empty line.
pub fn history(d: &Deployment, objects: &[Arc<Object>], type_name: &str) -> Vec<String> {
    let mut rows: BTreeMap<i64, String> = BTreeMap::new();
    for rs in owned(d, objects) {
        let cause = rs
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get("kubernetes.io/change-cause"))
            .filter(|c| !c.is_empty())
            .cloned()
            .unwrap_or_else(|| "<none>".into());
        rows.insert(revision(rs), cause);
    }
    let width = rows
        .keys()
        .map(|r| r.to_string().len())
        .max()
        .unwrap_or(0)
        .max("REVISION".len())
        + 2;
    let name = d.metadata.name.as_deref().unwrap_or_default();
    let mut lines = vec![
        format!("{type_name}/{name} "),
        format!("{:<width$}CHANGE-CAUSE", "REVISION"),
    ];
    lines.extend(
        rows.iter()
            .map(|(r, cause)| format!("{:<width$}{cause}", r.to_string())),
    );
    lines.push(String::new());
    lines
}

/// What `rollout undo` does.
#[derive(Debug, Clone, PartialEq)]
pub enum Undo {
    /// Send this JSON patch; print `rolled back`.
    Patch(Value),
    /// Print this after the name (`skipped rollback (…)`); send nothing.
    Skip(String),
}

/// `DeploymentRollbacker.Rollback` to `to_revision` (0: the one before the
/// newest).
pub fn undo(d: &Deployment, objects: &[Arc<Object>], to_revision: i64) -> Result<Undo, String> {
    let name = d.metadata.name.as_deref().unwrap_or_default();
    if d.spec.paused == Some(true) {
        return Err("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again".into());
    }
    let mut sets = owned(d, objects);
    sets.sort_by_key(|rs| revision(rs));
    let target = if to_revision == 0 {
        if sets.len() < 2 {
            return Err(format!(
                "no rollout history found for deployment \"{name}\""
            ));
        }
        sets[sets.len() - 2]
    } else {
        *sets
            .iter()
            .find(|rs| revision(rs) == to_revision)
            .ok_or_else(|| format!("unable to find specified revision {to_revision} in history"))?
    };
    let mut template = target.spec.template.clone().unwrap_or_default();
    if equal_ignore_hash(&template, &d.spec.template) {
        return Ok(Undo::Skip(format!(
            "skipped rollback (current template already matches revision {})",
            revision(target)
        )));
    }
    if let Some(labels) = template.metadata.as_mut().and_then(|m| m.labels.as_mut()) {
        labels.remove(HASH_LABEL);
    }
    let mut annotations: BTreeMap<String, String> = d
        .metadata
        .annotations
        .iter()
        .flatten()
        .filter(|(k, _)| SKIPPED.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, v) in target.metadata.annotations.iter().flatten() {
        if !SKIPPED.contains(&k.as_str()) {
            annotations.insert(k.clone(), v.clone());
        }
    }
    Ok(Undo::Patch(json!([
        {"op": "replace", "path": "/spec/template", "value": template},
        {"op": "replace", "path": "/metadata/annotations", "value": annotations},
    ])))
}

/// `rollout restart`: the template annotated with the time, so the
/// controller rolls out new Pods.
pub fn restart_patch(now_rfc3339: &str) -> Value {
    json!({"spec": {"template": {"metadata": {"annotations": {
        "kubectl.kubernetes.io/restartedAt": now_rfc3339
    }}}}})
}

/// `set image`: a strategic merge patch of the named containers' images,
/// or kubectl's refusal when one is not in the template.
pub fn set_image_patch(d: &Deployment, images: &[(String, String)]) -> Result<Value, String> {
    let containers = d
        .spec
        .template
        .spec
        .as_ref()
        .map(|s| s.containers.as_slice())
        .unwrap_or_default();
    let mut changed = Vec::new();
    for (container, image) in images {
        if container != "*" && !containers.iter().any(|c| &c.name == container) {
            return Err(format!("unable to find container named \"{container}\""));
        }
        for c in containers
            .iter()
            .filter(|c| container == "*" || &c.name == container)
        {
            changed.push(json!({"name": c.name, "image": image}));
        }
    }
    Ok(json!({"spec": {"template": {"spec": {"containers": changed}}}}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment(value: Value) -> Deployment {
        serde_json::from_value(value).unwrap()
    }

    /// `rollout_status_test.go`, `TestDeploymentStatusViewerStatus` (its cases' shape).
    #[test]
    fn status_lines_as_the_viewer_words_them() {
        let d = |generation: i64,
                 observed: i64,
                 replicas: i32,
                 updated: i32,
                 current: i32,
                 available: i32| {
            deployment(
                json!({"metadata": {"name": "web", "generation": generation},
                "spec": {"replicas": replicas, "selector": {}, "template": {}},
                "status": {"observedGeneration": observed, "replicas": current,
                           "updatedReplicas": updated, "availableReplicas": available}}),
            )
        };
        let cases = [
            (
                d(2, 1, 3, 0, 3, 3),
                "Waiting for deployment spec update to be observed...",
                false,
            ),
            (
                d(1, 1, 3, 1, 3, 3),
                "Waiting for deployment \"web\" rollout to finish: 1 out of 3 new replicas have been updated...",
                false,
            ),
            (
                d(1, 1, 3, 3, 4, 3),
                "Waiting for deployment \"web\" rollout to finish: 1 old replicas are pending termination...",
                false,
            ),
            (
                d(1, 1, 3, 3, 3, 2),
                "Waiting for deployment \"web\" rollout to finish: 2 of 3 updated replicas are available...",
                false,
            ),
            (
                d(1, 1, 3, 3, 3, 3),
                "deployment \"web\" successfully rolled out",
                true,
            ),
        ];
        for (d, line, done) in cases {
            assert_eq!(status(&d), Ok((line.to_owned(), done)));
        }
    }

    #[test]
    fn set_image_names_only_containers_the_template_has() {
        let d = deployment(json!({"metadata": {"name": "web"},
            "spec": {"selector": {}, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}}}));
        assert_eq!(
            set_image_patch(&d, &[("nginx".into(), "nginx:1.28".into())]),
            Ok(
                json!({"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.28"}]}}}})
            )
        );
        assert_eq!(
            set_image_patch(&d, &[("web".into(), "nginx:1.28".into())]),
            Err("unable to find container named \"web\"".to_owned())
        );
    }
}
