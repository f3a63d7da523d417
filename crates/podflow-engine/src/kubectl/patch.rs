//! `kubectl patch KIND NAME -p PATCH [--type strategic|merge|json]
//! [--subresource status|scale]` (`pkg/cmd/patch/patch.go`): the object's GET
//! (of the subresource, when one is named: the resource builder's
//! `Subresource`), then the PATCH with the patch's content type; kubectl
//! prints `KIND/NAME patched`, or `patched (no change)` when the object the
//! server answered equals the one it read.

use serde_json::Value;

use super::{Cx, InFlight, Kubectl, error_lines, type_name};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use podflow_model::Kind;

/// `--type`: how the API server applies the patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// `application/strategic-merge-patch+json` (kubectl's default).
    Strategic,
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/json-patch+json` (RFC 6902).
    Json,
}

impl PatchType {
    /// `--type`'s value, as `Validate` reads it (case-insensitive).
    pub fn parse(value: &str) -> Result<PatchType, String> {
        match value.to_lowercase().as_str() {
            "strategic" => Ok(PatchType::Strategic),
            "merge" => Ok(PatchType::Merge),
            "json" => Ok(PatchType::Json),
            _ => Err(format!(
                "error: --type must be one of [json merge strategic], not \"{value}\""
            )),
        }
    }

    fn body(self, patch: Value) -> Body {
        match self {
            PatchType::Strategic => Body::Patch(patch),
            PatchType::Merge => Body::MergePatch(patch),
            PatchType::Json => Body::JsonPatch(patch),
        }
    }
}

/// A `patch` command, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchPlan {
    pub kind: &'static Kind,
    pub name: String,
    pub namespace: Option<String>,
    pub patch_type: PatchType,
    pub patch: Value,
    /// `--subresource` (`status`, `scale`).
    pub subresource: Option<String>,
}

/// Where a `patch` is: its GET, or its PATCH with the object's `KIND/NAME`
/// and the object as read.
#[derive(Debug, Clone)]
pub enum Patching {
    Get(PatchPlan),
    Write { name: String, before: Option<Value> },
}

/// `-p`'s text read as the patch (JSON; kubectl's `yaml.ToJSON` would take
/// YAML too).
pub fn parse_patch(text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| format!("error: unable to parse \"{text}\": {e}"))
}

impl Kubectl {
    /// `patch`: the GET the resource builder makes first.
    pub(super) fn start_patch(&mut self, plan: PatchPlan, cx: &mut Cx<'_>) {
        let namespace = plan.namespace.clone().filter(|_| plan.kind.namespaced);
        let mut req = self.request(Verb::Get, plan.kind, namespace, &plan.name);
        if let Some(sub) = &plan.subresource {
            req = req.subresource(sub);
        }
        self.send(req, InFlight::Patch(Box::new(Patching::Get(plan))), cx);
    }

    /// The answer to the GET or the PATCH.
    pub(super) fn patch_answered(
        &mut self,
        patching: Patching,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        match patching {
            Patching::Get(plan) => self.patch_after_get(plan, response, cx),
            Patching::Write { name, before } => Self::patched(&name, before.as_ref(), response, cx),
        }
    }

    /// After the GET: the PATCH.
    fn patch_after_get(&mut self, plan: PatchPlan, response: &Response, cx: &mut Cx<'_>) {
        if response.code >= 300 {
            return Self::print_all(cx, error_lines(response, ""));
        }
        let before = response.object.as_ref().map(|o| o.to_json());
        let namespace = plan.namespace.clone().filter(|_| plan.kind.namespaced);
        let mut req = self
            .request(Verb::Patch, plan.kind, namespace, &plan.name)
            .body(plan.patch_type.body(plan.patch));
        if let Some(sub) = &plan.subresource {
            req = req.subresource(sub);
        }
        let name = format!("{}/{}", type_name(plan.kind), plan.name);
        let write = Patching::Write { name, before };
        self.send(req, InFlight::Patch(Box::new(write)), cx);
    }

    /// After the PATCH: `patched`, or `patched (no change)`.
    fn patched(name: &str, before: Option<&Value>, response: &Response, cx: &mut Cx<'_>) {
        if response.code >= 300 {
            return Self::print_all(cx, error_lines(response, ""));
        }
        let after = response.object.as_ref().map(|o| o.to_json());
        let changed = after.as_ref() != before;
        let done = if changed {
            "patched"
        } else {
            "patched (no change)"
        };
        Self::print(cx, format!("{name} {done}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// patch.go `Validate` and `RunPatch`'s parse.
    #[test]
    fn types_and_patches_parse_as_kubectl_reads_them() {
        assert_eq!(PatchType::parse("Merge"), Ok(PatchType::Merge));
        assert_eq!(
            PatchType::parse("apply"),
            Err("error: --type must be one of [json merge strategic], not \"apply\"".into())
        );
        assert_eq!(
            parse_patch(r#"{"spec":{"schedulingGates":null}}"#),
            Ok(serde_json::json!({"spec": {"schedulingGates": null}}))
        );
        assert!(parse_patch("{").is_err());
    }
}
