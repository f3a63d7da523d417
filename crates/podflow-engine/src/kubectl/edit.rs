//! `kubectl edit KIND NAME`: the object is shown in an editor; when it is
//! saved, kubectl patches what changed (`pkg/cmd/util/editor/editoptions.go`:
//! `CreateTwoWayMergePatch` between the object as shown and as saved, sent as
//! a strategic merge patch; nothing changed is `Edit cancelled, no changes
//! made.`). The editor is the TUI's; in `--step` and lessons' scripts there is
//! none, and kubectl says so.

use serde_json::Value;

use super::{Cx, Kubectl, type_name};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::apiserver::strategic_merge_patch;
use podflow_model::{Kind, Object};

/// What kubectl does with an edit once the object is read back.
#[derive(Debug, Clone, PartialEq)]
pub enum EditPlan {
    /// Nothing changed: no request.
    Cancelled,
    /// The patch to send.
    Patch(Value),
    /// The edit cannot be sent, with kubectl's words.
    Refused(String),
}

/// The two-way patch from the object as the editor showed it to the object
/// as saved: kubectl refuses an edit that renames the object or changes its
/// kind, as editoptions.go's preconditions (`RequireKeyUnchanged`) do.
pub fn plan(shown: &Object, saved: &Object) -> EditPlan {
    if shown.kind().kind != saved.kind().kind {
        return EditPlan::Refused(
            "error: At least one of apiVersion, kind and name was changed".into(),
        );
    }
    if shown.name() != saved.name() {
        return EditPlan::Refused(
            "error: At least one of apiVersion, kind and name was changed".into(),
        );
    }
    let (Ok(before), Ok(after)) = (serde_json::to_value(shown), serde_json::to_value(saved)) else {
        return EditPlan::Refused("error: the object could not be encoded".into());
    };
    let patch = strategic_merge_patch::two_way(
        strategic_merge_patch::root(shown.kind().kind),
        &before,
        &after,
    );
    if patch.as_object().is_none_or(serde_json::Map::is_empty) {
        EditPlan::Cancelled
    } else {
        EditPlan::Patch(patch)
    }
}

/// The header kubectl's editor file starts with (editoptions.go).
const HEADER: &str = "# Please edit the object below. Lines beginning with a '#' will be ignored,
# and an empty file will abort the edit. If an error occurs while saving this file will be
# reopened with the relevant failures.
#
";

/// The text the editor opens with: the header, then the object as
/// `get -o yaml` prints it.
pub fn shown_text(object: &Object) -> String {
    let mut text = HEADER.to_owned();
    for line in crate::kubectl_printers::yaml::lines(&super::sorted(&object.to_json()), &[]) {
        text.push_str(&line.text);
        text.push('\n');
    }
    text
}

impl Kubectl {
    /// `edit` without an editor: kubectl's answer where none can open.
    pub(super) fn edit_without_editor(cx: &mut Cx<'_>) {
        Self::print(
            cx,
            "error: edit opens an editor: type it in the TUI's : bar (podflow play), or use the real kubectl against podflow serve".into(),
        );
    }

    /// `edit` after its GET: the patch of what the editor changed.
    pub(super) fn edit_after_get(
        &mut self,
        change: &(Object, Object),
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        if response.code >= 300 {
            return Self::print_all(cx, super::error_lines(response, ""));
        }
        let (shown, saved) = change;
        let kind: &'static Kind = shown.kind();
        let name = shown.name().to_owned();
        match plan(shown, saved) {
            EditPlan::Cancelled => Self::print(cx, "Edit cancelled, no changes made.".into()),
            EditPlan::Refused(message) => Self::print(cx, message),
            EditPlan::Patch(patch) => {
                let namespace = shown.namespace().map(str::to_owned);
                let req = self
                    .request(Verb::Patch, kind, namespace, &name)
                    .body(Body::Patch(patch));
                let done = format!("{}/{name} edited", type_name(kind));
                self.send_plain(req, done, cx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::Pod;

    fn pod(app: &str, name: &str) -> Object {
        let value = serde_json::json!({
            "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]},
        });
        Object::Pod(serde_json::from_value::<Pod>(value).expect("a Pod"))
    }

    #[test]
    fn an_edit_patches_what_changed_and_nothing_else() {
        let shown = pod("web", "nginx");
        assert_eq!(plan(&shown, &shown), EditPlan::Cancelled);
        let saved = pod("shop", "nginx");
        assert_eq!(
            plan(&shown, &saved),
            EditPlan::Patch(serde_json::json!({"metadata": {"labels": {"app": "shop"}}}))
        );
        let renamed = pod("web", "other");
        assert!(matches!(plan(&shown, &renamed), EditPlan::Refused(_)));
    }

    #[test]
    fn the_editor_opens_on_kubectls_header_and_the_objects_yaml() {
        let text = shown_text(&pod("web", "nginx"));
        assert!(
            text.starts_with("# Please edit the object below."),
            "{text}"
        );
        assert!(
            text.contains("\nmetadata:\n  labels:\n    app: web\n"),
            "{text}"
        );
    }
}
