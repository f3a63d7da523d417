//! Tables mirroring upstream's: `plugin/pkg/auth/authorizer/rbac/rbac_test.go`
//! (`TestAuthorizer`, `TestRuleMatches`), `pkg/registry/rbac/validation/rule_test.go`
//! (`TestAppliesTo`), `plugin/pkg/auth/authorizer/node/node_authorizer_test.go`
//! (`TestNodeAuthorizer`), and the Forbidden wording of
//! `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors_test.go`.

use crate::trace::Actor;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::core::v1::{
    ConfigMapProjection, PodSpec, ProjectedVolumeSource, SecretVolumeSource, Volume,
    VolumeProjection,
};
use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};

use super::*;
use crate::apiserver::StaticCluster;
use crate::apiserver::bootstrap_policy::{self, rule};
use podflow_model::Object;
use podflow_model::kinds::kind_of;

fn meta(namespace: Option<&str>, name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        namespace: namespace.map(str::to_owned),
        ..ObjectMeta::default()
    }
}

/// `Kind:name` or `ServiceAccount:ns/name`, as upstream's test helpers spell subjects.
fn subjects(specs: &[&str]) -> Vec<Subject> {
    specs
        .iter()
        .map(|spec| {
            let (kind, name) = spec.split_once(':').unwrap();
            let (namespace, name) = match (kind, name.split_once('/')) {
                ("ServiceAccount", Some((ns, n))) => (Some(ns.to_owned()), n),
                _ => (None, name),
            };
            Subject {
                api_group: (kind != "ServiceAccount")
                    .then(|| "rbac.authorization.k8s.io".to_owned()),
                kind: kind.to_owned(),
                name: name.to_owned(),
                namespace,
            }
        })
        .collect()
}

fn role_ref(kind: &str, name: &str) -> RoleRef {
    RoleRef {
        api_group: Some("rbac.authorization.k8s.io".into()),
        kind: kind.into(),
        name: name.into(),
    }
}

fn role(namespace: &str, name: &str, rules: Vec<PolicyRule>) -> Object {
    Object::Role(Role {
        metadata: meta(Some(namespace), name),
        rules: Some(rules),
    })
}

fn cluster_role(name: &str, rules: Vec<PolicyRule>) -> Object {
    Object::ClusterRole(ClusterRole {
        metadata: meta(None, name),
        rules: Some(rules),
        aggregation_rule: None,
    })
}

fn role_binding(
    namespace: &str,
    name: &str,
    ref_kind: &str,
    ref_name: &str,
    who: &[&str],
) -> Object {
    Object::RoleBinding(RoleBinding {
        metadata: meta(Some(namespace), name),
        role_ref: role_ref(ref_kind, ref_name),
        subjects: Some(subjects(who)),
    })
}

fn cluster_role_binding(name: &str, ref_name: &str, who: &[&str]) -> Object {
    Object::ClusterRoleBinding(ClusterRoleBinding {
        metadata: meta(None, name),
        role_ref: role_ref("ClusterRole", ref_name),
        subjects: Some(subjects(who)),
    })
}

fn pod(namespace: &str, name: &str, node: &str, volumes: Vec<Volume>) -> Object {
    Object::Pod(Pod {
        metadata: meta(Some(namespace), name),
        spec: Some(PodSpec {
            node_name: (!node.is_empty()).then(|| node.to_owned()),
            service_account_name: Some("default".into()),
            volumes: Some(volumes),
            ..PodSpec::default()
        }),
        status: None,
    })
}

fn user(spec: &str) -> UserInfo {
    let (name, groups) = spec.split_once('|').unwrap_or((spec, ""));
    let groups: Vec<&str> = groups.split(',').filter(|g| !g.is_empty()).collect();
    UserInfo::new(name, &groups)
}

/// One request: `user|groups`, verb, group, resource, subresource, namespace, name.
struct Req {
    user: &'static str,
    verb: &'static str,
    group: &'static str,
    resource: &'static str,
    sub: &'static str,
    ns: &'static str,
    name: &'static str,
    selector: &'static str,
}

const fn req(
    user: &'static str,
    verb: &'static str,
    resource: &'static str,
    ns: &'static str,
) -> Req {
    Req {
        user,
        verb,
        group: "",
        resource,
        sub: "",
        ns,
        name: "",
        selector: "",
    }
}

impl Req {
    const fn group(mut self, group: &'static str) -> Req {
        self.group = group;
        self
    }
    const fn sub(mut self, sub: &'static str) -> Req {
        self.sub = sub;
        self
    }
    const fn named(mut self, name: &'static str) -> Req {
        self.name = name;
        self
    }
    const fn selector(mut self, selector: &'static str) -> Req {
        self.selector = selector;
        self
    }

    fn with<T>(&self, f: impl FnOnce(&Attributes) -> T) -> T {
        let user = user(self.user);
        let mut attrs = Attributes {
            user: &user,
            verb: self.verb,
            api_group: self.group,
            resource: self.resource,
            subresource: (!self.sub.is_empty()).then_some(self.sub),
            namespace: (!self.ns.is_empty()).then_some(self.ns),
            name: self.name,
            field_selector: None,
            non_resource_path: None,
        };
        if !self.selector.is_empty() {
            attrs = attrs.with_field_selector(self.selector);
        }
        f(&attrs)
    }
}

fn cluster(extra: Vec<Object>) -> StaticCluster {
    let mut objects = bootstrap_policy::cluster_roles();
    objects.extend(bootstrap_policy::cluster_role_bindings());
    objects.extend(bootstrap_policy::kubeadm_cluster_role_bindings());
    objects.extend(extra);
    StaticCluster::new(objects)
}

const ADMIN: &str = "kubernetes-admin|system:masters,system:authenticated";
const KUBEADM_ADMIN: &str = "kubernetes-admin|kubeadm:cluster-admins,system:authenticated";
const JANE: &str = "jane|system:authenticated";
const BOB: &str = "bob|developers,system:authenticated";
const BUILDER: &str = "system:serviceaccount:dev:builder|system:serviceaccounts,system:serviceaccounts:dev,system:authenticated";
const SCHEDULER: &str = "system:kube-scheduler|system:authenticated";
const RS_CONTROLLER: &str = "system:serviceaccount:kube-system:replicaset-controller|system:serviceaccounts,system:serviceaccounts:kube-system,system:authenticated";
const NODE1: &str = "system:node:node-1|system:nodes,system:authenticated";

fn scenario_cluster() -> StaticCluster {
    cluster(vec![
        role(
            "dev",
            "pod-creator",
            vec![rule(&["create", "get", "list"], &[""], &["pods"])],
        ),
        role_binding("dev", "jane-pods", "Role", "pod-creator", &["User:jane"]),
        role_binding(
            "dev",
            "dev-editors",
            "ClusterRole",
            "edit",
            &["Group:developers"],
        ),
        role(
            "dev",
            "status-reader",
            vec![rule(&["get"], &[""], &["pods/status"])],
        ),
        role_binding(
            "dev",
            "builder-status",
            "Role",
            "status-reader",
            &["ServiceAccount:builder"],
        ),
        role(
            "dev",
            "one-pod",
            vec![bootstrap_policy_named(
                rule(&["get", "update"], &[""], &["pods"]),
                "nginx",
            )],
        ),
        role_binding(
            "dev",
            "builder-one-pod",
            "Role",
            "one-pod",
            &["Group:system:serviceaccounts:dev"],
        ),
        role_binding("dev", "dangling", "Role", "missing", &["User:jane"]),
    ])
}

fn bootstrap_policy_named(mut rule: PolicyRule, name: &str) -> PolicyRule {
    rule.resource_names = Some(vec![name.to_owned()]);
    rule
}

#[test]
fn authorizes_as_node_then_rbac() {
    let allowed_by = |crb: &str, role: &str, subject: &str| {
        format!(
            "RBAC: allowed by ClusterRoleBinding \"{crb}\" of ClusterRole \"{role}\" to {subject}"
        )
    };
    let scheduler = allowed_by(
        "system:kube-scheduler",
        "system:kube-scheduler",
        "User \"system:kube-scheduler\"",
    );
    let cases: Vec<(Req, bool, &str, String)> = vec![
        (
            req(KUBEADM_ADMIN, "create", "pods", "default"),
            true,
            "RBAC",
            allowed_by("kubeadm:cluster-admins", "cluster-admin", "Group \"kubeadm:cluster-admins\""),
        ),
        // system:masters: the privileged-groups authorizer, with no reason.
        (req(ADMIN, "create", "pods", "default"), true, PRIVILEGED_GROUPS, String::new()),
        (req(ADMIN, "delete", "nodes", "").named("node-1"), true, PRIVILEGED_GROUPS, String::new()),
        (req(ADMIN, "patch", "deployments", "kube-system").group("apps").sub("scale"), true, PRIVILEGED_GROUPS, String::new()),
        (
            req(JANE, "create", "pods", "dev"),
            true,
            "RBAC",
            r#"RBAC: allowed by RoleBinding "jane-pods/dev" of Role "pod-creator" to User "jane""#.into(),
        ),
        (req(JANE, "create", "pods", "default"), false, "RBAC", String::new()),
        // The dangling binding's error is reported only when nothing allows.
        (
            req(JANE, "delete", "pods", "dev"),
            false,
            "RBAC",
            r#"RBAC: role.rbac.authorization.k8s.io "missing" not found"#.into(),
        ),
        (
            req(BOB, "create", "deployments", "dev").group("apps"),
            true,
            "RBAC",
            r#"RBAC: allowed by RoleBinding "dev-editors/dev" of ClusterRole "edit" to Group "developers""#.into(),
        ),
        // A ClusterRole bound by a RoleBinding grants only in that namespace.
        (req(BOB, "create", "deployments", "default").group("apps"), false, "RBAC", String::new()),
        (req(BOB, "list", "pods", "").group(""), false, "RBAC", String::new()),
        // `edit` aggregates `view`: pods/log is readable.
        (
            req(BOB, "get", "pods", "dev").sub("log").named("nginx"),
            true,
            "RBAC",
            r#"RBAC: allowed by RoleBinding "dev-editors/dev" of ClusterRole "edit" to Group "developers""#.into(),
        ),
        (
            req(BUILDER, "get", "pods", "dev").sub("status").named("nginx"),
            true,
            "RBAC",
            r#"RBAC: allowed by RoleBinding "builder-status/dev" of Role "status-reader" to ServiceAccount "builder/dev""#.into(),
        ),
        (req(BUILDER, "get", "pods", "dev").named("nginx"), true, "RBAC",
            r#"RBAC: allowed by RoleBinding "builder-one-pod/dev" of Role "one-pod" to Group "system:serviceaccounts:dev""#.into()),
        // resourceNames: another name, or no name at all, is not covered.
        (req(BUILDER, "get", "pods", "dev").named("redis"), false, "RBAC", String::new()),
        (req(BUILDER, "list", "pods", "dev"), false, "RBAC", String::new()),
        (req(SCHEDULER, "create", "pods", "default").sub("binding").named("nginx"), true, "RBAC", scheduler.clone()),
        (req(SCHEDULER, "create", "pods", "default"), false, "RBAC", String::new()),
        (req(SCHEDULER, "patch", "pods", "default").sub("status").named("nginx"), true, "RBAC", scheduler),
        (
            req(RS_CONTROLLER, "create", "pods", "default"),
            true,
            "RBAC",
            allowed_by(
                "system:controller:replicaset-controller",
                "system:controller:replicaset-controller",
                "ServiceAccount \"replicaset-controller/kube-system\"",
            ),
        ),
        (req(RS_CONTROLLER, "create", "deployments", "default").group("apps"), false, "RBAC", String::new()),
        (
            req(JANE, "create", "selfsubjectaccessreviews", "").group("authorization.k8s.io"),
            true,
            "RBAC",
            allowed_by("system:basic-user", "system:basic-user", "Group \"system:authenticated\""),
        ),
        (req(NODE1, "create", "events", "default"), true, "Node", String::new()),
    ];
    let cluster = scenario_cluster();
    for (case, allowed, authorizer, reason) in cases {
        let decision = case.with(|a| authorize(a, &cluster));
        let want = Decision {
            allowed,
            authorizer,
            reason,
            chain: decision.chain.clone(),
        };
        assert_eq!(
            decision, want,
            "{} {} {}/{} in {:?}",
            case.user, case.verb, case.resource, case.sub, case.ns
        );
    }
}

/// `TestAuthorizer`: a `ClusterRole` `admin` of `*` bound in ns1 to User admin and Group admins.
#[test]
fn rbac_test_authorizer_table() {
    let star = rule(&["*"], &["*"], &["*"]);
    let cases: [(PolicyRule, Vec<Req>, Vec<Req>); 3] = [
        (
            star,
            vec![
                req("admin", "get", "Pods", "ns1"),
                req("admin", "watch", "Pods", "ns1"),
                req("admin|group1", "watch", "Foobar", "ns1"),
                req("joe|admins", "watch", "Foobar", "ns1"),
                req("joe|group1,admins", "watch", "Foobar", "ns1"),
            ],
            vec![
                req("admin", "GET", "Pods", "ns2"),
                req("admin", "GET", "Nodes", ""),
                req("admin|admins", "GET", "Pods", "ns2"),
                req("admin|admins", "GET", "Nodes", ""),
            ],
        ),
        (
            rule(&["*"], &["*"], &["pods"]),
            vec![req("admin", "get", "pods", "ns1")],
            vec![req("admin", "get", "pods", "ns1").sub("status")],
        ),
        (
            rule(&["*"], &["*"], &["pods/status"]),
            vec![req("admin", "get", "pods", "ns1").sub("status")],
            vec![req("admin", "get", "pods", "ns1")],
        ),
    ];
    for (i, (rule, pass, fail)) in cases.into_iter().enumerate() {
        let cluster = StaticCluster::new([
            cluster_role("admin", vec![rule]),
            role_binding(
                "ns1",
                "admin",
                "ClusterRole",
                "admin",
                &["User:admin", "Group:admins"],
            ),
        ]);
        for r in pass {
            assert!(
                r.with(|a| authorize(a, &cluster)).allowed,
                "case {i}: restricted {} {}",
                r.user,
                r.verb
            );
        }
        for r in fail {
            assert!(
                !r.with(|a| authorize(a, &cluster)).allowed,
                "case {i}: passed {} {}",
                r.user,
                r.verb
            );
        }
    }
}

/// A named rule and requests with whether it allows each.
type RuleCase = (&'static str, PolicyRule, Vec<(Req, bool)>);

/// `TestRuleMatches`, plus `*/subresource` and `resourceNames` (`evaluation_helpers.go`).
#[test]
fn rule_matches_table() {
    let mut named = rule(&["get"], &[""], &["pods"]);
    named.resource_names = Some(vec!["nginx".into()]);
    let cases: Vec<RuleCase> = vec![
        (
            "star verb",
            rule(&["*"], &["group1"], &["resource1"]),
            vec![
                (req("u", "verb1", "resource1", "").group("group1"), true),
                (req("u", "verb1", "resource1", "").group("group2"), false),
                (req("u", "verb2", "resource1", "").group("group1"), true),
                (req("u", "verb1", "resource2", "").group("group1"), false),
            ],
        ),
        (
            "star group",
            rule(&["verb1"], &["*"], &["resource1"]),
            vec![
                (req("u", "verb1", "resource1", "").group("group2"), true),
                (req("u", "verb2", "resource1", "").group("group1"), false),
            ],
        ),
        (
            "star resource",
            rule(&["verb1"], &["group1"], &["*"]),
            vec![
                (req("u", "verb1", "resource2", "").group("group1"), true),
                (
                    req("u", "verb1", "resource2", "")
                        .group("group1")
                        .sub("sub"),
                    true,
                ),
                (req("u", "verb1", "resource1", "").group("group2"), false),
            ],
        ),
        (
            "tuple expansion",
            rule(
                &["verb1", "verb2"],
                &["group1", "group2"],
                &["resource1", "resource2"],
            ),
            vec![
                (req("u", "verb2", "resource2", "").group("group2"), true),
                (req("u", "verb1", "resource1", "").group("group1"), true),
                (req("u", "verb3", "resource1", "").group("group1"), false),
            ],
        ),
        (
            "subresource expansion",
            rule(&["*"], &["*"], &["resource1/subresource1"]),
            vec![
                (
                    req("u", "verb1", "resource1", "")
                        .group("group1")
                        .sub("subresource1"),
                    true,
                ),
                (
                    req("u", "verb1", "resource1", "")
                        .group("group2")
                        .sub("subresource2"),
                    false,
                ),
                (
                    req("u", "verb1", "resource2", "")
                        .group("group1")
                        .sub("subresource1"),
                    false,
                ),
                (req("u", "verb1", "resource1", "").group("group1"), false),
            ],
        ),
        (
            "star subresource",
            rule(&["*"], &[""], &["*/status"]),
            vec![
                (req("u", "update", "pods", "").sub("status"), true),
                (req("u", "update", "nodes", "").sub("status"), true),
                (req("u", "update", "pods", ""), false),
                (req("u", "create", "pods", "").sub("binding"), false),
            ],
        ),
        // `pods/*` is no wildcard in RBAC: it names a subresource called `*`.
        (
            "resource slash star",
            rule(&["*"], &[""], &["pods/*"]),
            vec![
                (req("u", "update", "pods", "").sub("status"), false),
                (req("u", "update", "pods", ""), false),
            ],
        ),
        (
            "resource names",
            named,
            vec![
                (req("u", "get", "pods", "").named("nginx"), true),
                (req("u", "get", "pods", "").named("redis"), false),
                (req("u", "get", "pods", ""), false),
            ],
        ),
    ];
    for (name, rule, requests) in cases {
        for (r, want) in requests {
            assert_eq!(
                r.with(|a| rbac::rule_allows(a, &rule)),
                want,
                "{name}: {} {}/{}",
                r.verb,
                r.resource,
                r.sub
            );
        }
    }
}

/// `TestAppliesTo`: which binding subjects name which users.
#[test]
fn subjects_apply_as_upstream_applies_them() {
    let cases: [(&[&str], &str, &str, bool); 9] = [
        (&["User:foobar"], "foobar", "", true),
        (&["User:foobar"], "foobar|ns", "", true),
        (&["Group:foobar"], "user|foobar", "", true),
        (&["Group:foobar"], "foobar", "", false),
        (
            &["ServiceAccount:kube-system/default"],
            "system:serviceaccount:kube-system:default",
            "",
            true,
        ),
        (
            &["ServiceAccount:default"],
            "system:serviceaccount:kube-system:default",
            "kube-system",
            true,
        ),
        (
            &["ServiceAccount:default"],
            "system:serviceaccount:kube-system:default",
            "",
            false,
        ),
        (
            &["ServiceAccount:default"],
            "system:serviceaccount:dev:default",
            "kube-system",
            false,
        ),
        (
            &["Group:system:serviceaccounts:dev"],
            "system:serviceaccount:dev:x|system:serviceaccounts:dev",
            "",
            true,
        ),
    ];
    for (i, (who, user_spec, binding_ns, want)) in cases.into_iter().enumerate() {
        let ns = if binding_ns.is_empty() {
            "target"
        } else {
            binding_ns
        };
        let cluster = StaticCluster::new([
            cluster_role("all", vec![rule(&["*"], &["*"], &["*"])]),
            if binding_ns.is_empty() {
                cluster_role_binding("b", "all", who)
            } else {
                role_binding(binding_ns, "b", "ClusterRole", "all", who)
            },
        ]);
        let u = user(user_spec);
        let attrs = Attributes::new(&u, "get", kind_of("Pod"), Some(ns), "");
        assert_eq!(authorize(&attrs, &cluster).allowed, want, "case {i}");
    }
}

#[test]
fn aggregated_cluster_roles_gather_labelled_roles() {
    let label = "rbac.example.com/aggregate-to-monitoring";
    let mut part = ClusterRole {
        metadata: meta(None, "pods-reader"),
        rules: Some(vec![rule(&["get"], &[""], &["pods"])]),
        aggregation_rule: None,
    };
    part.metadata.labels = Some(BTreeMap::from([(label.to_owned(), "true".to_owned())]));
    let monitoring = ClusterRole {
        metadata: meta(None, "monitoring"),
        rules: None,
        aggregation_rule: Some(k8s_openapi::api::rbac::v1::AggregationRule {
            cluster_role_selectors: Some(vec![LabelSelector {
                match_labels: Some(BTreeMap::from([(label.to_owned(), "true".to_owned())])),
                match_expressions: None,
            }]),
        }),
    };
    let cluster = StaticCluster::new([
        Object::ClusterRole(part),
        Object::ClusterRole(monitoring),
        cluster_role_binding("mon", "monitoring", &["User:mo"]),
    ]);
    let allowed = req("mo", "get", "pods", "x")
        .named("a")
        .with(|a| authorize(a, &cluster));
    assert_eq!(
        allowed.reason,
        r#"RBAC: allowed by ClusterRoleBinding "mon" of ClusterRole "monitoring" to User "mo""#
    );
    assert!(
        !req("mo", "delete", "pods", "x")
            .named("a")
            .with(|a| authorize(a, &cluster))
            .allowed
    );
}

fn node_cluster() -> StaticCluster {
    let secret_volume = Volume {
        name: "creds".into(),
        secret: Some(SecretVolumeSource {
            secret_name: Some("db-creds".into()),
            ..SecretVolumeSource::default()
        }),
        ..Volume::default()
    };
    let projected = Volume {
        name: "kube-api-access-abcde".into(),
        projected: Some(ProjectedVolumeSource {
            sources: Some(vec![VolumeProjection {
                config_map: Some(ConfigMapProjection {
                    name: "kube-root-ca.crt".into(),
                    ..ConfigMapProjection::default()
                }),
                ..VolumeProjection::default()
            }]),
            ..ProjectedVolumeSource::default()
        }),
        ..Volume::default()
    };
    cluster(vec![
        pod("default", "web-1", "node-1", vec![secret_volume, projected]),
        pod("default", "web-2", "node-2", vec![]),
        pod("default", "pending", "", vec![]),
    ])
}

/// `pkg/kubeapiserver/authorizer/config.go`: `NewPrivilegedGroups(user.SystemPrivilegedGroup)`
/// comes before every mode, so a `system:masters` user is allowed even where
/// no RBAC binding exists at all (kubeadm's `super-admin.conf`).
#[test]
fn system_masters_is_allowed_before_node_and_rbac() {
    let empty = StaticCluster::default();
    let decision = req(ADMIN, "delete", "namespaces", "")
        .named("kube-system")
        .with(|a| authorize(a, &empty));
    assert!(decision.allowed);
    assert_eq!(decision.authorizer, PRIVILEGED_GROUPS);
    assert_eq!(decision.reason, "");
    assert_eq!(
        decision.chain_summary(),
        r#"privileged groups: allow (group "system:masters")"#
    );
    // kubeadm's admin is not privileged: with no binding, RBAC has no opinion.
    let decision = req(KUBEADM_ADMIN, "delete", "namespaces", "")
        .named("kube-system")
        .with(|a| authorize(a, &empty));
    assert!(!decision.allowed);
    assert_eq!(
        decision.chain_summary(),
        "Node: no opinion; RBAC: no opinion"
    );
}

/// The union authorizer (`staging/src/k8s.io/apiserver/pkg/authorization/union/union.go`)
/// asks each in turn; the trace lists their answers in that order.
#[test]
fn the_chain_lists_each_authorizers_answer_in_order() {
    let cluster = node_cluster();
    let cases = [
        (
            req(KUBEADM_ADMIN, "get", "pods", "default").named("web-1"),
            r#"Node: no opinion; RBAC: allow (allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins")"#,
        ),
        (
            req(NODE1, "get", "nodes", "").named("node-1"),
            "Node: allow",
        ),
        (
            req(NODE1, "get", "secrets", "default").named("db-creds"),
            "Node: allow",
        ),
        (
            req(NODE1, "get", "configmaps", "default").named("kube-root-ca.crt"),
            "Node: allow",
        ),
        (
            req(NODE1, "get", "secrets", "default").named("other"),
            "Node: no opinion (no relationship found between node 'node-1' and this object); RBAC: no opinion",
        ),
        (
            req(NODE1, "get", "pods", "default").named("web-2"),
            "Node: no opinion (no relationship found between node 'node-1' and this object); RBAC: no opinion",
        ),
        (
            req(JANE, "create", "pods", "default"),
            "Node: no opinion; RBAC: no opinion",
        ),
    ];
    for (case, want) in cases {
        assert_eq!(case.with(|a| authorize(a, &cluster)).chain_summary(), want);
    }
}

/// `TestNodeAuthorizer`, simplified to podflow's kinds.
#[test]
#[expect(clippy::too_many_lines, reason = "a table of cases")]
fn node_authorizer_table() {
    const NO_REL: &str = "no relationship found between node 'node-1' and this object";
    let cases: Vec<(Req, bool, &str, &str)> = vec![
        (
            req(NODE1, "get", "pods", "default").named("web-1"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "get", "pods", "default").named("web-2"),
            false,
            "RBAC",
            NO_REL,
        ),
        (
            req(NODE1, "get", "pods", "default").named("pending"),
            false,
            "RBAC",
            NO_REL,
        ),
        (
            req(NODE1, "update", "pods", "default")
                .sub("status")
                .named("web-1"),
            true,
            "Node",
            "",
        ),
        // Allowed here; NodeRestriction admission refuses it afterwards.
        (
            req(NODE1, "patch", "pods", "default")
                .sub("status")
                .named("web-2"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "update", "pods", "default").named("web-1"),
            false,
            "RBAC",
            "",
        ),
        (
            req(NODE1, "watch", "pods", "").selector("spec.nodeName=node-1"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "list", "pods", "").selector("spec.nodeName=node-2"),
            false,
            "RBAC",
            "can only list/watch pods with spec.nodeName field selector",
        ),
        (
            req(NODE1, "watch", "pods", ""),
            false,
            "RBAC",
            "can only list/watch pods with spec.nodeName field selector",
        ),
        (
            req(NODE1, "create", "pods", "kube-system"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "create", "pods", "default")
                .sub("eviction")
                .named("web-1"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "get", "nodes", "").named("node-1"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "get", "nodes", "").named("node-2"),
            false,
            "RBAC",
            "node 'node-1' cannot read 'node-2', only its own Node object",
        ),
        (
            req(NODE1, "list", "nodes", ""),
            false,
            "RBAC",
            "node 'node-1' cannot read all nodes, only its own Node object",
        ),
        (
            req(NODE1, "watch", "nodes", "").selector("metadata.name=node-1"),
            true,
            "Node",
            "",
        ),
        (req(NODE1, "create", "nodes", ""), true, "Node", ""),
        (
            req(NODE1, "patch", "nodes", "")
                .sub("status")
                .named("node-1"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "delete", "nodes", "").named("node-1"),
            false,
            "RBAC",
            "",
        ),
        (
            req(NODE1, "get", "secrets", "default").named("db-creds"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "get", "secrets", "default").named("other"),
            false,
            "RBAC",
            NO_REL,
        ),
        (
            req(NODE1, "list", "secrets", "default"),
            false,
            "RBAC",
            "No Object name found",
        ),
        (
            req(NODE1, "update", "secrets", "default").named("db-creds"),
            false,
            "RBAC",
            "can only read resources of this type",
        ),
        (
            req(NODE1, "watch", "configmaps", "default").selector("metadata.name=kube-root-ca.crt"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "create", "serviceaccounts", "default")
                .sub("token")
                .named("default"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "create", "serviceaccounts", "default").named("default"),
            false,
            "RBAC",
            "can only create token subresource of serviceaccount",
        ),
        (req(NODE1, "create", "events", "default"), true, "Node", ""),
        (
            req(NODE1, "get", "services", "default").named("kubernetes"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "delete", "services", "default").named("kubernetes"),
            false,
            "RBAC",
            "",
        ),
        (
            req(NODE1, "update", "leases", "kube-node-lease")
                .group("coordination.k8s.io")
                .named("node-1"),
            true,
            "Node",
            "",
        ),
        (
            req(NODE1, "update", "leases", "kube-node-lease")
                .group("coordination.k8s.io")
                .named("node-2"),
            false,
            "RBAC",
            "can only access node lease with the same name as the requesting node",
        ),
        (
            req(NODE1, "get", "leases", "default")
                .group("coordination.k8s.io")
                .named("node-1"),
            false,
            "RBAC",
            "can only access leases in the \"kube-node-lease\" system namespace",
        ),
        // Not in system:nodes: no node identity, so RBAC alone decides.
        (
            req(
                "system:node:node-1|system:authenticated",
                "create",
                "events",
                "default",
            ),
            false,
            "RBAC",
            "",
        ),
        (
            req("system:node:|system:nodes", "get", "pods", "default").named("web-1"),
            false,
            "RBAC",
            "unknown node for user \"system:node:\"",
        ),
    ];
    let cluster = node_cluster();
    for (case, allowed, authorizer, reason) in cases {
        let decision = case.with(|a| authorize(a, &cluster));
        let want = Decision {
            allowed,
            authorizer,
            reason: reason.to_owned(),
            chain: decision.chain.clone(),
        };
        assert_eq!(
            decision, want,
            "{} {} {}/{} {:?}",
            case.user, case.verb, case.resource, case.sub, case.name
        );
    }
}

#[test]
fn forbidden_reason_is_worded_as_upstream() {
    let cases = [
        (
            req(JANE, "create", "pods", "dev"),
            r#"User "jane" cannot create resource "pods" in API group "" in the namespace "dev""#,
        ),
        (
            req(JANE, "get", "pods", "dev").named("nginx"),
            r#"User "jane" cannot get resource "pods" in API group "" in the namespace "dev""#,
        ),
        (
            req(JANE, "list", "nodes", ""),
            r#"User "jane" cannot list resource "nodes" in API group "" at the cluster scope"#,
        ),
        (
            req(JANE, "list", "pods", ""),
            r#"User "jane" cannot list resource "pods" in API group "" at the cluster scope"#,
        ),
        (
            req(SCHEDULER, "create", "pods", "default")
                .sub("binding")
                .named("nginx"),
            r#"User "system:kube-scheduler" cannot create resource "pods/binding" in API group "" in the namespace "default""#,
        ),
        (
            req(BUILDER, "create", "deployments", "dev").group("apps"),
            r#"User "system:serviceaccount:dev:builder" cannot create resource "deployments" in API group "apps" in the namespace "dev""#,
        ),
        (
            req("a<b>&\"c\"", "get", "pods", "x"),
            r#"User "a&lt;b&gt;&amp;\"c\"" cannot get resource "pods" in API group "" in the namespace "x""#,
        ),
    ];
    for (case, want) in cases {
        assert_eq!(case.with(forbidden_reason), want);
    }
}

#[test]
fn forbidden_status_message_is_the_whole_line() {
    let cluster = scenario_cluster();
    let cases: [(Req, &'static Kind, &str); 5] = [
        (
            req(JANE, "create", "pods", "default"),
            kind_of("Pod"),
            r#"pods is forbidden: User "jane" cannot create resource "pods" in API group "" in the namespace "default""#,
        ),
        (
            req(JANE, "get", "pods", "default").named("nginx"),
            kind_of("Pod"),
            r#"pods "nginx" is forbidden: User "jane" cannot get resource "pods" in API group "" in the namespace "default""#,
        ),
        (
            req(BOB, "create", "deployments", "default").group("apps"),
            kind_of("Deployment"),
            r#"deployments.apps is forbidden: User "bob" cannot create resource "deployments" in API group "apps" in the namespace "default""#,
        ),
        (
            req(JANE, "delete", "pods", "dev").named("web"),
            kind_of("Pod"),
            r#"pods "web" is forbidden: User "jane" cannot delete resource "pods" in API group "" in the namespace "dev": RBAC: role.rbac.authorization.k8s.io "missing" not found"#,
        ),
        (
            req(NODE1, "list", "nodes", ""),
            kind_of("Node"),
            r#"nodes is forbidden: User "system:node:node-1" cannot list resource "nodes" in API group "" at the cluster scope: node 'node-1' cannot read all nodes, only its own Node object"#,
        ),
    ];
    for (case, kind, want) in cases {
        let status = case.with(|a| forbidden_status(kind, a, &authorize(a, &cluster)));
        assert_eq!(status.code, Some(403));
        assert_eq!(status.reason.as_deref(), Some("Forbidden"));
        assert_eq!(status.message.as_deref(), Some(want));
    }
    let jane = user(JANE);
    let attrs = Attributes::new(&jane, "create", kind_of("Pod"), Some("dev"), "");
    let status = podflow_model::status::forbidden(kind_of("Pod"), "", &forbidden_reason(&attrs));
    assert_eq!(
        status.message.as_deref(),
        Some(
            r#"pods is forbidden: User "jane" cannot create resource "pods" in API group "" in the namespace "dev""#
        )
    );
}

#[test]
fn explains_the_missing_permission() {
    let cases = [
        (
            req(JANE, "create", "pods", "dev"),
            "kubectl auth can-i create pods --namespace dev --as jane",
            r#"apiGroups: [""], resources: ["pods"], verbs: ["create"]"#,
            "Role",
        ),
        (
            req(BOB, "patch", "deployments", "dev")
                .group("apps")
                .named("web"),
            "kubectl auth can-i patch deployments.apps/web --namespace dev --as bob --as-group developers",
            r#"apiGroups: ["apps"], resources: ["deployments"], resourceNames: ["web"], verbs: ["patch"]"#,
            "Role",
        ),
        (
            req(BUILDER, "update", "pods", "dev")
                .sub("status")
                .named("nginx"),
            "kubectl auth can-i update pods/nginx --subresource status --namespace dev --as system:serviceaccount:dev:builder",
            r#"apiGroups: [""], resources: ["pods/status"], resourceNames: ["nginx"], verbs: ["update"]"#,
            "Role",
        ),
        (
            req(JANE, "list", "nodes", ""),
            "kubectl auth can-i list nodes --as jane",
            r#"apiGroups: [""], resources: ["nodes"], verbs: ["list"]"#,
            "ClusterRole",
        ),
    ];
    let all = req(JANE, "list", "pods", "");
    assert_eq!(
        all.with(can_i_command),
        "kubectl auth can-i list pods --all-namespaces --as jane"
    );
    for (case, command, rule, kind) in cases {
        assert_eq!(case.with(can_i_command), command);
        assert_eq!(case.with(suggested_rule), rule);
        assert_eq!(case.with(suggested_role_kind), kind);
    }
}

#[test]
fn attributes_follow_the_request() {
    use crate::apiserver::request::{Credentials, Request, Verb};
    let u = user(SCHEDULER);
    let request = Request {
        client: Actor::Scheduler,
        credentials: Credentials::Certificate(u.clone()),
        verb: Verb::Create,
        kind: kind_of("Pod"),
        namespace: Some("default".into()),
        name: "nginx".into(),
        subresource: Some("binding".into()),
        body: None,
        unknown_fields: Vec::new(),
        type_error: None,
        resource_version: None,
        propagation_policy: None,
        selector: crate::store::selector::Selector::default(),
    };
    let attrs = Attributes::for_request(&u, &request);
    assert_eq!(
        (
            attrs.verb,
            attrs.resource,
            attrs.subresource,
            attrs.namespace
        ),
        ("create", "pods", Some("binding"), Some("default"))
    );
    let nodes = Attributes::new(&u, "get", kind_of("Node"), Some("default"), "node-1");
    assert_eq!(nodes.namespace, None);
    assert_eq!(
        field_selector_value("a=b,spec.nodeName==n1", "spec.nodeName"),
        Some("n1")
    );
    assert_eq!(
        field_selector_value("spec.nodeName!=n1", "spec.nodeName"),
        None
    );
}
