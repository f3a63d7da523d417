//! Authorization: the privileged-groups authorizer, the Node authorizer and
//! RBAC, as kube-apiserver runs them with `--authorization-mode=Node,RBAC` (the
//! kubeadm default).
//!
//! They run in turn as upstream's union authorizer does
//! (`staging/src/k8s.io/apiserver/pkg/authorization/union/union.go`): the first
//! to allow wins; when none does, the reasons they gave are joined with a new
//! line and appended to the Forbidden message
//! (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go`).
//! Only resource requests are modelled; non-resource URLs (`/healthz`) are not.

mod node;
mod rbac;

use std::fmt::Write as _;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;

use crate::apiserver::ClusterView;
use crate::apiserver::request::{Request, UserInfo};
use podflow_model::Kind;
use podflow_model::status;

/// What a request asks to do, as `authorizer.Attributes` has it.
#[derive(Debug, Clone, Copy)]
pub struct Attributes<'a> {
    /// Who asks.
    pub user: &'a UserInfo,
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`.
    pub verb: &'a str,
    /// `""` for the core group, `apps`, ...
    pub api_group: &'a str,
    /// Plural resource: `pods`.
    pub resource: &'a str,
    /// `status`, `binding`, ...
    pub subresource: Option<&'a str>,
    /// The namespace of a namespaced request; `None` at the cluster scope.
    pub namespace: Option<&'a str>,
    /// The object's name; empty for a create or a list.
    pub name: &'a str,
    /// A list or watch's field selector, as the URL carries it
    /// (`spec.nodeName=node-1`); the Node authorizer reads it.
    pub field_selector: Option<&'a str>,
    /// For a request outside the API's resources (`/healthz`, `/version`):
    /// its path, which RBAC matches against `nonResourceURLs`.
    pub non_resource_path: Option<&'a str>,
}

impl<'a> Attributes<'a> {
    /// The attributes of a request on `kind`.
    pub fn new(
        user: &'a UserInfo,
        verb: &'a str,
        kind: &'a Kind,
        namespace: Option<&'a str>,
        name: &'a str,
    ) -> Attributes<'a> {
        Attributes {
            user,
            verb,
            api_group: kind.group,
            resource: kind.resource,
            subresource: None,
            namespace: if kind.namespaced { namespace } else { None },
            name,
            field_selector: None,
            non_resource_path: None,
        }
    }

    /// The attributes of a request as the API server's request-info resolver reads its URL.
    pub fn for_request(user: &'a UserInfo, request: &'a Request) -> Attributes<'a> {
        let mut attrs = Attributes::new(
            user,
            request.verb.as_str(),
            request.kind,
            request.namespace.as_deref(),
            &request.name,
        );
        attrs.subresource = request.subresource.as_deref();
        attrs
    }

    /// The same request on a subresource.
    #[must_use]
    pub fn with_subresource(mut self, subresource: &'a str) -> Attributes<'a> {
        self.subresource = Some(subresource);
        self
    }

    /// The same list or watch with a field selector. As the request-info
    /// resolver does (Kubernetes 1.31 and later), a `metadata.name=NAME`
    /// selector names the object of a list or watch.
    #[must_use]
    pub fn with_field_selector(mut self, selector: &'a str) -> Attributes<'a> {
        self.field_selector = Some(selector);
        if self.name.is_empty()
            && matches!(self.verb, "list" | "watch")
            && let Some(name) = field_selector_value(selector, "metadata.name")
        {
            self.name = name;
        }
        self
    }

    /// `resource/subresource`, as RBAC rules and Forbidden messages spell it.
    pub fn combined_resource(&self) -> String {
        match self.subresource {
            Some(sub) if !sub.is_empty() => format!("{}/{sub}", self.resource),
            _ => self.resource.to_owned(),
        }
    }

    fn namespace(&self) -> &'a str {
        self.namespace.unwrap_or_default()
    }
}

/// The value a field selector requires of `field` with `=` or `==`.
pub(crate) fn field_selector_value<'s>(selector: &'s str, field: &str) -> Option<&'s str> {
    selector.split(',').find_map(|term| {
        if term.contains("!=") {
            return None;
        }
        let (key, value) = term.split_once("==").or_else(|| term.split_once('='))?;
        (key.trim() == field).then(|| value.trim())
    })
}

/// The group kube-apiserver's privileged-groups authorizer allows before any
/// other is asked (`user.SystemPrivilegedGroup`).
pub const PRIVILEGED_GROUP: &str = "system:masters";

/// The name the trace gives the privileged-groups authorizer
/// (`authorizerfactory.NewPrivilegedGroups`), which has no mode of its own.
pub const PRIVILEGED_GROUPS: &str = "privileged groups";

/// One authorizer's answer in the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `privileged groups`, `Node` or `RBAC`.
    pub authorizer: &'static str,
    /// `DecisionAllow`; otherwise `DecisionNoOpinion` (neither Node nor RBAC
    /// ever answers `DecisionDeny`).
    pub allowed: bool,
    /// The reason it gave, often empty.
    pub reason: String,
}

/// The authorizers' answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Whether the request may go on.
    pub allowed: bool,
    /// `Node` or `RBAC` (or [`PRIVILEGED_GROUPS`]): the authorizer that allowed
    /// it; for a denial, the last one asked (`RBAC`), since none decided.
    pub authorizer: &'static str,
    /// When allowed, the audit annotation `authorization.k8s.io/reason`
    /// (`RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of
    /// ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins"`; empty
    /// for the Node and privileged-groups authorizers, as upstream). When
    /// denied, the authorizers' reasons joined with a new line, often empty.
    pub reason: String,
    /// Each authorizer asked, in order, with its answer.
    pub chain: Vec<Verdict>,
}

impl Decision {
    /// The chain as the trace shows it, one entry per authorizer asked:
    /// `Node: no opinion; RBAC: allow (allowed by ClusterRoleBinding ...)`.
    /// The privileged-groups authorizer is named only when it allows: for
    /// everyone else it is a silent `no opinion` ahead of `Node`.
    pub fn chain_summary(&self) -> String {
        self.chain
            .iter()
            .filter(|v| v.allowed || v.authorizer != PRIVILEGED_GROUPS)
            .map(|v| {
                let answer = if v.allowed { "allow" } else { "no opinion" };
                let own = format!("{}: ", v.authorizer);
                let reason = v.reason.strip_prefix(&own).unwrap_or(&v.reason);
                if reason.is_empty() {
                    format!("{}: {answer}", v.authorizer)
                } else {
                    format!("{}: {answer} ({reason})", v.authorizer)
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Runs the authorizer chain kube-apiserver builds for
/// `--authorization-mode=Node,RBAC` (`pkg/kubeapiserver/authorizer/config.go`):
/// the privileged-groups authorizer for `system:masters` first, then Node,
/// then RBAC; the first to allow wins.
pub fn authorize(attrs: &Attributes, cluster: &dyn ClusterView) -> Decision {
    let mut chain = Vec::new();
    if attrs.user.groups.iter().any(|g| g == PRIVILEGED_GROUP) {
        chain.push(Verdict {
            authorizer: PRIVILEGED_GROUPS,
            allowed: true,
            reason: format!("group {}", go_quote(PRIVILEGED_GROUP)),
        });
        return Decision {
            allowed: true,
            authorizer: PRIVILEGED_GROUPS,
            reason: String::new(),
            chain,
        };
    }
    chain.push(Verdict {
        authorizer: PRIVILEGED_GROUPS,
        allowed: false,
        reason: String::new(),
    });
    let node = node::authorize(attrs, cluster);
    chain.push(Verdict {
        authorizer: "Node",
        allowed: node.allowed,
        reason: node.reason.clone(),
    });
    if node.allowed {
        return Decision {
            allowed: true,
            authorizer: "Node",
            reason: node.reason,
            chain,
        };
    }
    let rbac = rbac::authorize(attrs, cluster);
    chain.push(Verdict {
        authorizer: "RBAC",
        allowed: rbac.allowed,
        reason: rbac.reason.clone(),
    });
    if rbac.allowed {
        return Decision {
            allowed: true,
            authorizer: "RBAC",
            reason: rbac.reason,
            chain,
        };
    }
    let reasons: Vec<&str> = [node.reason.as_str(), rbac.reason.as_str()]
        .into_iter()
        .filter(|r| !r.is_empty())
        .collect();
    Decision {
        allowed: false,
        authorizer: "RBAC",
        reason: reasons.join("\n"),
        chain,
    }
}

/// Go's `%q` for a string: quoted, with `"`, `\` and control characters escaped.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `forbiddenMessage`: `User "jane" cannot create resource "pods" in API group
/// "" in the namespace "dev"`, or `... at the cluster scope`, with `&`, `<` and
/// `>` escaped as upstream's sanitizer escapes them.
pub fn forbidden_reason(attrs: &Attributes) -> String {
    let scope = match attrs.namespace {
        Some(ns) if !ns.is_empty() => format!("in the namespace {}", go_quote(ns)),
        _ => "at the cluster scope".to_owned(),
    };
    let message = format!(
        "User {} cannot {} resource {} in API group {} {scope}",
        go_quote(&attrs.user.name),
        attrs.verb,
        go_quote(&attrs.combined_resource()),
        go_quote(attrs.api_group),
    );
    message
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The error text of a denied request: [`forbidden_reason`], then `: ` and the
/// authorizers' reasons when they gave any.
pub fn forbidden_message(attrs: &Attributes, decision: &Decision) -> String {
    let message = forbidden_reason(attrs);
    if decision.reason.is_empty() {
        message
    } else {
        format!("{message}: {}", decision.reason)
    }
}

/// The 403 answer to a denied request: `pods is forbidden: User "jane" cannot ...`.
pub fn forbidden_status(kind: &Kind, attrs: &Attributes, decision: &Decision) -> Status {
    status::forbidden(kind, attrs.name, &forbidden_message(attrs, decision))
}

/// `pods`, `deployments.apps`: a resource as kubectl takes it.
fn kubectl_resource(attrs: &Attributes) -> String {
    if attrs.api_group.is_empty() {
        attrs.resource.to_owned()
    } else {
        format!("{}.{}", attrs.resource, attrs.api_group)
    }
}

/// Whether podflow serves the resource as a namespaced one.
fn is_namespaced(attrs: &Attributes) -> bool {
    podflow_model::KINDS
        .iter()
        .any(|k| k.resource == attrs.resource && k.group == attrs.api_group && k.namespaced)
}

/// Groups that impersonation adds by itself, so `--as-group` need not name them.
fn implied_group(user: &str, group: &str) -> bool {
    if group == "system:authenticated" {
        return true;
    }
    match user
        .strip_prefix("system:serviceaccount:")
        .and_then(|rest| rest.split_once(':'))
    {
        Some((ns, _)) => {
            group == "system:serviceaccounts"
                || group.strip_prefix("system:serviceaccounts:") == Some(ns)
        }
        None => false,
    }
}

/// The check that reproduces the request:
/// `kubectl auth can-i create pods --namespace dev --as jane`.
pub fn can_i_command(attrs: &Attributes) -> String {
    let mut command = format!(
        "kubectl auth can-i {} {}",
        attrs.verb,
        kubectl_resource(attrs)
    );
    if !attrs.name.is_empty() {
        command.push('/');
        command.push_str(attrs.name);
    }
    if let Some(sub) = attrs.subresource.filter(|s| !s.is_empty()) {
        command.push_str(" --subresource ");
        command.push_str(sub);
    }
    match attrs.namespace.filter(|ns| !ns.is_empty()) {
        Some(ns) => {
            command.push_str(" --namespace ");
            command.push_str(ns);
        }
        // A namespaced resource at the cluster scope is a request across all namespaces.
        None if is_namespaced(attrs) => command.push_str(" --all-namespaces"),
        None => {}
    }
    command.push_str(" --as ");
    command.push_str(&attrs.user.name);
    for group in &attrs.user.groups {
        if !implied_group(&attrs.user.name, group) {
            command.push_str(" --as-group ");
            command.push_str(group);
        }
    }
    command
}

/// The kind of role that would grant the request: `Role` in a namespace,
/// `ClusterRole` at the cluster scope.
pub fn suggested_role_kind(attrs: &Attributes) -> &'static str {
    if attrs.namespace.is_some_and(|ns| !ns.is_empty()) {
        "Role"
    } else {
        "ClusterRole"
    }
}

/// The rule that would allow the request, as a one-line YAML flow mapping:
/// `apiGroups: [""], resources: ["pods"], verbs: ["create"]`, with
/// `resourceNames` when the request names one object (not for create, list or
/// watch, which a `resourceNames` rule cannot allow).
pub fn suggested_rule(attrs: &Attributes) -> String {
    let names = if attrs.name.is_empty()
        || matches!(attrs.verb, "create" | "list" | "watch" | "deletecollection")
    {
        String::new()
    } else {
        format!(", resourceNames: [{}]", go_quote(attrs.name))
    };
    format!(
        "apiGroups: [{}], resources: [{}]{names}, verbs: [{}]",
        go_quote(attrs.api_group),
        go_quote(&attrs.combined_resource()),
        go_quote(attrs.verb)
    )
}

#[cfg(test)]
mod tests;
