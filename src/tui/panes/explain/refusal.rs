//! A refused request: who refused, at which stage, with which words; for an
//! RBAC denial also the missing permission as `kubectl auth can-i` and a rule
//! that would grant it (`podflow_engine::apiserver::authz`). The Forbidden
//! message is read back as `forbiddenMessage` in
//! `plugin/pkg/auth/authorizer/rbac/rbac.go` and
//! `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go` word it.

use crate::tui::narrate::text::{first_quoted, quoted_after};
use podflow_engine::apiserver::authz::{
    Attributes, can_i_command, suggested_role_kind, suggested_rule,
};
use podflow_engine::apiserver::request::UserInfo;
use podflow_engine::trace::{Actor, Outcome, Record, Stage, StageName, TraceRecord};

/// How far back from an answer the pane looks for the stage that refused.
const LOOK_BACK: usize = 400;

/// What an RBAC denial lacked, and how to grant it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RbacHint {
    pub user: String,
    pub verb: String,
    /// `pods`, or `pods/status`.
    pub resource: String,
    pub api_group: String,
    pub namespace: Option<String>,
    pub name: String,
    /// `kubectl auth can-i create pods --namespace dev --as jane`.
    pub can_i: String,
    /// `Role` or `ClusterRole`.
    pub role_kind: String,
    /// `apiGroups: [""], resources: ["pods"], verbs: ["create"]`.
    pub rule: String,
}

/// A refused request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The component that refused: `kube-apiserver`, `etcd`.
    pub component: Actor,
    /// `authentication`, `authorization`, `admission`, `validation`, `decode`,
    /// `persist`; `None` for the request handler itself (a 404, a 409 before etcd).
    pub stage: Option<StageName>,
    /// The authorizer or admission plugin, with its phase: `RBAC`, `ResourceQuota (validating)`.
    pub plugin: Option<String>,
    /// The HTTP code, when known at this step.
    pub code: Option<u16>,
    /// The exact message.
    pub message: String,
    pub rbac: Option<RbacHint>,
}

/// The refusal the current record is part of: a response of 400 or more, a
/// `deny` stage, or kubectl's error line right after such a response.
pub fn at(records: &[TraceRecord]) -> Option<Refusal> {
    let (current, _) = records.split_last()?;
    match &current.body {
        Record::Stage(s) if s.outcome == Outcome::Deny => Some(from_stage(s, None)),
        Record::Response { code, message, .. } if *code >= 400 => {
            Some(from_response(records, *code, message))
        }
        Record::Log {
            component, line, ..
        } if *component == Actor::Kubectl && is_error(line) => {
            let floor = records.len().saturating_sub(20);
            (floor..records.len())
                .rev()
                .find_map(|i| match &records[i].body {
                    Record::Response {
                        to, code, message, ..
                    } if *to == Actor::Kubectl && *code >= 400 => {
                        Some(from_response(&records[..=i], *code, message))
                    }
                    _ => None,
                })
        }
        _ => None,
    }
}

fn is_error(line: &str) -> bool {
    line.starts_with("Error from server")
        || line.starts_with("error:")
        || line.contains(" is invalid")
}

fn from_response(records: &[TraceRecord], code: u16, message: &str) -> Refusal {
    // The stage that refused sits between the request's arrow and its answer.
    let floor = records.len().saturating_sub(LOOK_BACK);
    let mut deny = None;
    for record in records[floor..records.len().saturating_sub(1)].iter().rev() {
        match &record.body {
            Record::Message { to, .. } if *to == Actor::ApiServer => break,
            Record::Stage(s) if s.outcome == Outcome::Deny => {
                deny = Some(s.as_ref());
                break;
            }
            _ => {}
        }
    }
    let mut refusal = match deny {
        Some(s) => from_stage(s, Some(code)),
        None => Refusal {
            component: Actor::ApiServer,
            stage: None,
            plugin: None,
            code: Some(code),
            message: String::new(),
            rbac: None,
        },
    };
    message.clone_into(&mut refusal.message);
    if refusal.stage == Some(StageName::Authorization)
        && let Some(hint) = rbac_hint(message)
    {
        refusal.rbac = Some(hint);
    }
    refusal
}

fn from_stage(s: &Stage, code: Option<u16>) -> Refusal {
    let code = code.or(match (&s.component, s.stage) {
        (_, StageName::Authentication) => Some(401),
        (_, StageName::Authorization) => Some(403),
        (_, StageName::Decode) => Some(400),
        (_, StageName::Validation) => Some(422),
        (Actor::Etcd, _) => Some(409),
        _ => None,
    });
    let plugin = match (&s.plugin, &s.phase) {
        (Some(p), Some(phase)) => Some(format!("{p} ({phase})")),
        (Some(p), None) => Some(p.to_string()),
        (None, _) => None,
    };
    let rbac = if s.stage == StageName::Authorization {
        rbac_hint(&s.detail.text())
    } else {
        None
    };
    Refusal {
        component: s.component.clone(),
        stage: Some(s.stage),
        plugin,
        code,
        message: s.detail.to_string(),
        rbac,
    }
}

/// Reads an RBAC Forbidden message back into the request's attributes:
/// `pods "nginx" is forbidden: User "jane" cannot get resource "pods" in API
/// group "" in the namespace "dev"` (or `… at the cluster scope`).
pub fn rbac_hint(message: &str) -> Option<RbacHint> {
    let at = message.find("User \"")?;
    let (prefix, reason) = message.split_at(at);
    let user = first_quoted(reason)?;
    let after_user = reason.splitn(3, '"').nth(2)?;
    let verb = after_user
        .trim_start()
        .strip_prefix("cannot ")?
        .split(' ')
        .next()?
        .to_owned();
    let combined = quoted_after(reason, " resource ")?;
    let api_group = quoted_after(reason, " in API group ")?;
    let namespace = quoted_after(reason, " in the namespace ");
    // `pods "nginx" is forbidden:` names the object; `pods is forbidden:` does not.
    let name = if prefix.contains(" is forbidden") {
        first_quoted(prefix).unwrap_or_default()
    } else {
        String::new()
    };
    let (resource, subresource) = match combined.split_once('/') {
        Some((r, s)) => (r.to_owned(), Some(s.to_owned())),
        None => (combined.clone(), None),
    };
    let who = UserInfo {
        name: user.clone(),
        groups: Vec::new(),
    };
    let attrs = Attributes {
        user: &who,
        verb: &verb,
        api_group: &api_group,
        resource: &resource,
        subresource: subresource.as_deref(),
        namespace: namespace.as_deref(),
        name: &name,
        field_selector: None,
        non_resource_path: None,
    };
    Some(RbacHint {
        can_i: can_i_command(&attrs),
        role_kind: suggested_role_kind(&attrs).to_owned(),
        rule: suggested_rule(&attrs),
        user,
        verb,
        resource: combined,
        api_group,
        namespace,
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shapes of `forbiddenMessage` (rbac.go) and the Status message around it.
    #[test]
    fn reads_forbidden_messages() {
        let cases: [(&str, &str, &str, &str); 4] = [
            (
                r#"pods is forbidden: User "jane" cannot create resource "pods" in API group "" in the namespace "dev""#,
                "kubectl auth can-i create pods --namespace dev --as jane",
                "Role",
                r#"apiGroups: [""], resources: ["pods"], verbs: ["create"]"#,
            ),
            (
                r#"User "jane" cannot create resource "pods" in API group "" in the namespace "dev""#,
                "kubectl auth can-i create pods --namespace dev --as jane",
                "Role",
                r#"apiGroups: [""], resources: ["pods"], verbs: ["create"]"#,
            ),
            (
                r#"pods "nginx" is forbidden: User "jane" cannot delete resource "pods" in API group "" in the namespace "dev""#,
                "kubectl auth can-i delete pods/nginx --namespace dev --as jane",
                "Role",
                r#"apiGroups: [""], resources: ["pods"], resourceNames: ["nginx"], verbs: ["delete"]"#,
            ),
            (
                r#"nodes "node-1" is forbidden: User "bob" cannot patch resource "nodes/status" in API group "" at the cluster scope"#,
                "kubectl auth can-i patch nodes/node-1 --subresource status --as bob",
                "ClusterRole",
                r#"apiGroups: [""], resources: ["nodes/status"], resourceNames: ["node-1"], verbs: ["patch"]"#,
            ),
        ];
        for (message, can_i, kind, rule) in cases {
            let hint = rbac_hint(message).expect(message);
            assert_eq!(hint.can_i, can_i);
            assert_eq!(hint.role_kind, kind);
            assert_eq!(hint.rule, rule);
        }
        let deploy = rbac_hint(
            r#"deployments.apps is forbidden: User "jane" cannot list resource "deployments" in API group "apps" in the namespace "dev""#,
        )
        .unwrap();
        assert_eq!(
            deploy.can_i,
            "kubectl auth can-i list deployments.apps --namespace dev --as jane"
        );
        assert_eq!(deploy.api_group, "apps");
        for junk in ["", "User", "User \"x", "pods is forbidden: exceeded quota"] {
            assert_eq!(rbac_hint(junk), None, "{junk}");
        }
    }
}
