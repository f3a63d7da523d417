//! The RBAC authorizer (`plugin/pkg/auth/authorizer/rbac/rbac.go`) over the
//! rule resolver of `pkg/registry/rbac/validation/rule.go`: `ClusterRoleBindings`
//! first, then the `RoleBindings` of the request's namespace; the first rule that
//! allows the request wins. Rules match as `pkg/apis/rbac/v1/evaluation_helpers.go`
//! matches them. Aggregated `ClusterRoles` are read as the clusterrole-aggregation
//! controller (`pkg/controller/clusterroleaggregation`) would have filled them.

use std::collections::BTreeSet;

use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule, Role, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::{Attributes, go_quote};
use crate::apiserver::ClusterView;
use crate::apiserver::validation::{selector_is_empty, selector_matches};
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// What RBAC said.
pub(super) struct Outcome {
    pub allowed: bool,
    pub reason: String,
}

/// `RBACAuthorizer.Authorize`.
pub(super) fn authorize(attrs: &Attributes, cluster: &dyn ClusterView) -> Outcome {
    let mut errors: Vec<String> = Vec::new();
    if let Some(source) = visit_rules(attrs, cluster, &mut errors) {
        return Outcome {
            allowed: true,
            reason: format!("RBAC: allowed by {source}"),
        };
    }
    let reason = if errors.is_empty() {
        String::new()
    } else {
        format!("RBAC: {}", aggregate(&errors))
    };
    Outcome {
        allowed: false,
        reason,
    }
}

/// `utilerrors.NewAggregate(...).Error()`: one message alone, several as `[a, b]`,
/// duplicates dropped.
fn aggregate(errors: &[String]) -> String {
    let mut seen = BTreeSet::new();
    let unique: Vec<&str> = errors
        .iter()
        .filter(|e| seen.insert(e.as_str()))
        .map(String::as_str)
        .collect();
    match unique.as_slice() {
        [one] => (*one).to_owned(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// `VisitRulesFor` with the authorizing visitor: the describer of the first
/// binding whose rule allows the request, collecting resolution errors.
fn visit_rules(
    attrs: &Attributes,
    cluster: &dyn ClusterView,
    errors: &mut Vec<String>,
) -> Option<String> {
    for object in cluster.list(kind_of("ClusterRoleBinding"), None) {
        let Object::ClusterRoleBinding(binding) = object.as_ref() else {
            continue;
        };
        let subjects = binding.subjects.as_deref().unwrap_or_default();
        let Some(subject) = applies_to(attrs, subjects, "") else {
            continue;
        };
        match role_allows(attrs, &binding.role_ref, "", cluster) {
            Ok(allowed) => {
                if allowed {
                    return Some(format!(
                        "ClusterRoleBinding {} of {} {} to {}",
                        go_quote(binding.metadata.name.as_deref().unwrap_or_default()),
                        binding.role_ref.kind,
                        go_quote(&binding.role_ref.name),
                        describe_subject(subject, ""),
                    ));
                }
            }
            Err(e) => errors.push(e),
        }
    }
    let namespace = attrs.namespace.filter(|ns| !ns.is_empty())?;
    for object in cluster.list(kind_of("RoleBinding"), Some(namespace)) {
        let Object::RoleBinding(binding) = object.as_ref() else {
            continue;
        };
        let subjects = binding.subjects.as_deref().unwrap_or_default();
        let Some(subject) = applies_to(attrs, subjects, namespace) else {
            continue;
        };
        match role_allows(attrs, &binding.role_ref, namespace, cluster) {
            Ok(allowed) => {
                if allowed {
                    let name = binding.metadata.name.as_deref().unwrap_or_default();
                    return Some(format!(
                        "RoleBinding {} of {} {} to {}",
                        go_quote(&format!("{name}/{namespace}")),
                        binding.role_ref.kind,
                        go_quote(&binding.role_ref.name),
                        describe_subject(subject, namespace),
                    ));
                }
            }
            Err(e) => errors.push(e),
        }
    }
    None
}

/// `describeSubject`: `User "jane"`, `ServiceAccount "builder/dev"`.
fn describe_subject(subject: &Subject, binding_namespace: &str) -> String {
    if subject.kind == "ServiceAccount" {
        let ns = subject
            .namespace
            .as_deref()
            .filter(|ns| !ns.is_empty())
            .unwrap_or(binding_namespace);
        format!(
            "{} {}",
            subject.kind,
            go_quote(&format!("{}/{ns}", subject.name))
        )
    } else {
        format!("{} {}", subject.kind, go_quote(&subject.name))
    }
}

/// `appliesTo`: the first subject that names the user, one of its groups, or
/// its service account.
fn applies_to<'s>(
    attrs: &Attributes,
    subjects: &'s [Subject],
    namespace: &str,
) -> Option<&'s Subject> {
    subjects.iter().find(|subject| match subject.kind.as_str() {
        "User" => attrs.user.name == subject.name,
        "Group" => attrs.user.groups.contains(&subject.name),
        "ServiceAccount" => {
            let ns = subject
                .namespace
                .as_deref()
                .filter(|ns| !ns.is_empty())
                .unwrap_or(namespace);
            // `system:serviceaccount:<ns>:<name>`, compared without making it.
            !ns.is_empty()
                && attrs
                    .user
                    .name
                    .strip_prefix("system:serviceaccount:")
                    .and_then(|rest| rest.strip_prefix(ns))
                    .and_then(|rest| rest.strip_prefix(':'))
                    == Some(subject.name.as_str())
        }
        _ => false,
    })
}

/// `GetRoleReferenceRules` (with the listers' `NotFound` wording), then
/// whether any of the rules allows the request. A role's own rules are read
/// where they are stored, not copied: every request asks this of every
/// binding that names its user or groups.
fn role_allows(
    attrs: &Attributes,
    role_ref: &RoleRef,
    binding_namespace: &str,
    cluster: &dyn ClusterView,
) -> Result<bool, String> {
    let any_allows = |rules: &[PolicyRule]| rules.iter().any(|r| rule_allows(attrs, r));
    match role_ref.kind.as_str() {
        "Role" => {
            let role = cluster.get(kind_of("Role"), Some(binding_namespace), &role_ref.name);
            match role.as_deref() {
                Some(Object::Role(Role { rules, .. })) => {
                    Ok(any_allows(rules.as_deref().unwrap_or_default()))
                }
                _ => Err(format!(
                    "role.rbac.authorization.k8s.io {} not found",
                    go_quote(&role_ref.name)
                )),
            }
        }
        "ClusterRole" => match cluster
            .get(kind_of("ClusterRole"), None, &role_ref.name)
            .as_deref()
        {
            Some(Object::ClusterRole(role)) if !is_aggregated(role) => {
                Ok(any_allows(role.rules.as_deref().unwrap_or_default()))
            }
            Some(Object::ClusterRole(role)) => {
                let mut visited = BTreeSet::new();
                Ok(any_allows(&cluster_role_rules(role, cluster, &mut visited)))
            }
            _ => Err(format!(
                "clusterrole.rbac.authorization.k8s.io {} not found",
                go_quote(&role_ref.name)
            )),
        },
        other => Err(format!(
            "unsupported role reference kind: {}",
            go_quote(other)
        )),
    }
}

/// Whether a `ClusterRole` takes its rules from others (`aggregationRule`).
fn is_aggregated(role: &ClusterRole) -> bool {
    role.aggregation_rule
        .as_ref()
        .and_then(|a| a.cluster_role_selectors.as_deref())
        .is_some_and(|selectors| !selectors.is_empty())
}

/// A `ClusterRole`'s rules; for an aggregated one, the rules of every `ClusterRole`
/// its selectors match, in name order, each rule once (the aggregation
/// controller's result).
fn cluster_role_rules(
    role: &ClusterRole,
    cluster: &dyn ClusterView,
    visited: &mut BTreeSet<String>,
) -> Vec<PolicyRule> {
    let name = role.metadata.name.clone().unwrap_or_default();
    let selectors = role
        .aggregation_rule
        .as_ref()
        .and_then(|a| a.cluster_role_selectors.as_deref())
        .unwrap_or_default();
    if selectors.is_empty() || !visited.insert(name.clone()) {
        return role.rules.clone().unwrap_or_default();
    }
    let others = cluster.list(kind_of("ClusterRole"), None);
    let mut rules: Vec<PolicyRule> = Vec::new();
    for selector in selectors {
        for other in &others {
            let Object::ClusterRole(other) = other.as_ref() else {
                continue;
            };
            if other.metadata.name.as_deref() == Some(name.as_str()) {
                continue;
            }
            if !aggregation_selects(selector, other.metadata.labels.as_ref()) {
                continue;
            }
            for rule in cluster_role_rules(other, cluster, visited) {
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
        }
    }
    rules
}

/// Whether an aggregation rule's selector picks a `ClusterRole` with `labels`
/// (`metav1.LabelSelectorAsSelector(...).Matches(labels)`); an empty
/// selector in an aggregation rule selects nothing.
fn aggregation_selects(
    selector: &LabelSelector,
    labels: Option<&std::collections::BTreeMap<String, String>>,
) -> bool {
    !selector_is_empty(selector) && selector_matches(Some(selector), labels)
}

/// `RuleAllows` for a resource request.
pub(super) fn rule_allows(attrs: &Attributes, rule: &PolicyRule) -> bool {
    let has = |list: Option<&Vec<String>>, value: &str| {
        list.is_some_and(|l| l.iter().any(|v| v == "*" || v == value))
    };
    if let Some(path) = attrs.non_resource_path {
        return has(Some(&rule.verbs), attrs.verb) && non_resource_matches(rule, path);
    }
    has(Some(&rule.verbs), attrs.verb)
        && has(rule.api_groups.as_ref(), attrs.api_group)
        && resource_matches(
            rule,
            &attrs.combined_resource(),
            attrs.subresource.unwrap_or_default(),
        )
        && resource_name_matches(rule, attrs.name)
}

/// `ResourceMatches`: `*`, the exact `resource/subresource`, or `*/subresource`.
/// (A rule `pods/*` is no wildcard: it matches only a subresource named `*`.)
fn resource_matches(rule: &PolicyRule, combined: &str, subresource: &str) -> bool {
    rule.resources.iter().flatten().any(|r| {
        r == "*"
            || r == combined
            || (!subresource.is_empty() && r.strip_prefix("*/") == Some(subresource))
    })
}

/// `NonResourceURLMatches`: `*`, the exact path, or a prefix ending in `*`.
fn non_resource_matches(rule: &PolicyRule, path: &str) -> bool {
    rule.non_resource_urls.iter().flatten().any(|url| {
        url == "*"
            || url == path
            || url
                .strip_suffix('*')
                .is_some_and(|prefix| path.starts_with(prefix))
    })
}

/// `ResourceNameMatches`: no names allow any; otherwise the request must name one of them.
fn resource_name_matches(rule: &PolicyRule, name: &str) -> bool {
    match rule.resource_names.as_deref() {
        None | Some([]) => true,
        Some(names) => names.iter().any(|n| n == name),
    }
}
