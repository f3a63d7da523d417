//! The `ClusterRoles` and `ClusterRoleBindings` a new cluster starts with
//! (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go` and
//! `controller_policy.go`, as their `testdata/cluster-roles.yaml`,
//! `cluster-role-bindings.yaml`, `controller-roles.yaml` and
//! `controller-role-bindings.yaml` render them).
//!
//! A subset: the roles that matter to podflow's story. Rules behind feature
//! gates that podflow does not model (dynamic resource allocation, cluster trust
//! bundles, ...) are left out. `admin`, `edit` and `view` carry their
//! `aggregationRule` and, as the clusterrole-aggregation controller leaves them
//! in a running cluster, the aggregated rules as well.

use std::collections::BTreeMap;

use k8s_openapi::api::rbac::v1::{
    AggregationRule, ClusterRole, ClusterRoleBinding, PolicyRule, RoleRef, Subject,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};

use podflow_model::Object;

/// The RBAC API group.
pub const RBAC_GROUP: &str = "rbac.authorization.k8s.io";
/// The label every bootstrap object carries.
pub const BOOTSTRAPPING_LABEL: &str = "kubernetes.io/bootstrapping";
/// The annotation that lets the API server reconcile the object at start-up.
pub const AUTOUPDATE_ANNOTATION: &str = "rbac.authorization.kubernetes.io/autoupdate";

const CONTROLLER_PREFIX: &str = "system:controller:";
const AGGREGATE_TO_ADMIN: &str = "rbac.authorization.k8s.io/aggregate-to-admin";
const AGGREGATE_TO_EDIT: &str = "rbac.authorization.k8s.io/aggregate-to-edit";
const AGGREGATE_TO_VIEW: &str = "rbac.authorization.k8s.io/aggregate-to-view";

const READ: &[&str] = &["get", "list", "watch"];
const READ_WRITE: &[&str] = &[
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
];
const WRITE: &[&str] = &["create", "update", "patch", "delete", "deletecollection"];

const CORE: &str = "";
const APPS: &str = "apps";
const EXTENSIONS: &str = "extensions";
const BATCH: &str = "batch";
const AUTOSCALING: &str = "autoscaling";
const POLICY: &str = "policy";
const NETWORKING: &str = "networking.k8s.io";
const DISCOVERY: &str = "discovery.k8s.io";
const COORDINATION: &str = "coordination.k8s.io";
const STORAGE: &str = "storage.k8s.io";
const EVENTS: &str = "events.k8s.io";
const AUTHENTICATION: &str = "authentication.k8s.io";
const AUTHORIZATION: &str = "authorization.k8s.io";
const CERTIFICATES: &str = "certificates.k8s.io";

fn sorted(items: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = items.iter().map(|s| (*s).to_owned()).collect();
    out.sort();
    out.dedup();
    out
}

/// A resource rule, its lists sorted as `rbacv1helpers.PolicyRuleBuilder` sorts them.
pub fn rule(verbs: &[&str], groups: &[&str], resources: &[&str]) -> PolicyRule {
    PolicyRule {
        api_groups: Some(sorted(groups)),
        resources: Some(sorted(resources)),
        verbs: sorted(verbs),
        ..PolicyRule::default()
    }
}

/// A resource rule restricted to these object names.
fn named(mut rule: PolicyRule, names: &[&str]) -> PolicyRule {
    rule.resource_names = Some(sorted(names));
    rule
}

/// A non-resource URL rule.
fn urls(verbs: &[&str], paths: &[&str]) -> PolicyRule {
    PolicyRule {
        non_resource_urls: Some(sorted(paths)),
        verbs: sorted(verbs),
        ..PolicyRule::default()
    }
}

/// `eventsRule()`: create, update and patch events in both event groups.
fn events_rule() -> PolicyRule {
    rule(&["create", "update", "patch"], &[CORE, EVENTS], &["events"])
}

fn meta(name: &str, extra_labels: &[&str]) -> ObjectMeta {
    let mut labels = BTreeMap::from([(BOOTSTRAPPING_LABEL.to_owned(), "rbac-defaults".to_owned())]);
    for label in extra_labels {
        labels.insert((*label).to_owned(), "true".to_owned());
    }
    ObjectMeta {
        name: Some(name.to_owned()),
        labels: Some(labels),
        annotations: Some(BTreeMap::from([(
            AUTOUPDATE_ANNOTATION.to_owned(),
            "true".to_owned(),
        )])),
        ..ObjectMeta::default()
    }
}

fn cluster_role(name: &str, rules: Vec<PolicyRule>) -> ClusterRole {
    ClusterRole {
        metadata: meta(name, &[]),
        rules: Some(rules),
        aggregation_rule: None,
    }
}

/// An aggregated role (`admin`, `edit`, `view`) with the rules the aggregation
/// controller gathered into it.
fn aggregated(
    name: &str,
    selector_label: &str,
    labels: &[&str],
    rules: Vec<PolicyRule>,
) -> ClusterRole {
    ClusterRole {
        metadata: meta(name, labels),
        rules: Some(rules),
        aggregation_rule: Some(AggregationRule {
            cluster_role_selectors: Some(vec![LabelSelector {
                match_labels: Some(BTreeMap::from([(
                    selector_label.to_owned(),
                    "true".to_owned(),
                )])),
                match_expressions: None,
            }]),
        }),
    }
}

/// Appends the rules of each part not already present, as the clusterrole
/// aggregation controller does.
fn union(parts: &[&[PolicyRule]]) -> Vec<PolicyRule> {
    let mut out: Vec<PolicyRule> = Vec::new();
    for rule in parts.iter().flat_map(|p| p.iter()) {
        if !out.contains(rule) {
            out.push(rule.clone());
        }
    }
    out
}

/// `system:aggregate-to-view`.
fn aggregate_to_view() -> Vec<PolicyRule> {
    vec![
        rule(
            READ,
            &[CORE],
            &[
                "pods",
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "serviceaccounts",
                "services",
                "services/status",
                "endpoints",
                "persistentvolumeclaims",
                "persistentvolumeclaims/status",
                "configmaps",
            ],
        ),
        rule(
            READ,
            &[CORE],
            &[
                "limitranges",
                "resourcequotas",
                "bindings",
                "events",
                "pods/status",
                "resourcequotas/status",
                "namespaces/status",
                "replicationcontrollers/status",
                "pods/log",
            ],
        ),
        rule(READ, &[CORE], &["namespaces"]),
        rule(READ, &[DISCOVERY], &["endpointslices"]),
        rule(
            READ,
            &[APPS],
            &[
                "controllerrevisions",
                "statefulsets",
                "statefulsets/scale",
                "statefulsets/status",
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/scale",
                "deployments/status",
                "replicasets",
                "replicasets/scale",
                "replicasets/status",
            ],
        ),
        rule(
            READ,
            &[AUTOSCALING],
            &[
                "horizontalpodautoscalers",
                "horizontalpodautoscalers/status",
            ],
        ),
        rule(
            READ,
            &[BATCH],
            &["jobs", "cronjobs", "cronjobs/status", "jobs/status"],
        ),
        rule(
            READ,
            &[EXTENSIONS],
            &[
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/scale",
                "deployments/status",
                "ingresses",
                "ingresses/status",
                "replicasets",
                "replicasets/scale",
                "replicasets/status",
                "replicationcontrollers/scale",
                "networkpolicies",
            ],
        ),
        rule(
            READ,
            &[POLICY],
            &["poddisruptionbudgets", "poddisruptionbudgets/status"],
        ),
        rule(
            READ,
            &[NETWORKING],
            &["ingresses", "ingresses/status", "networkpolicies"],
        ),
    ]
}

/// `system:aggregate-to-edit`.
fn aggregate_to_edit() -> Vec<PolicyRule> {
    vec![
        rule(
            READ,
            &[CORE],
            &[
                "pods/attach",
                "pods/proxy",
                "pods/exec",
                "pods/portforward",
                "secrets",
                "services/proxy",
            ],
        ),
        rule(&["impersonate"], &[CORE], &["serviceaccounts"]),
        rule(
            WRITE,
            &[CORE],
            &[
                "pods",
                "pods/attach",
                "pods/proxy",
                "pods/exec",
                "pods/portforward",
            ],
        ),
        rule(&["create"], &[CORE], &["pods/eviction"]),
        rule(
            WRITE,
            &[CORE],
            &[
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "serviceaccounts",
                "services",
                "services/proxy",
                "persistentvolumeclaims",
                "configmaps",
                "secrets",
                "events",
            ],
        ),
        rule(&["create"], &[CORE], &["serviceaccounts/token"]),
        rule(
            WRITE,
            &[APPS],
            &[
                "statefulsets",
                "statefulsets/scale",
                "daemonsets",
                "deployments",
                "deployments/scale",
                "deployments/rollback",
                "replicasets",
                "replicasets/scale",
            ],
        ),
        rule(WRITE, &[AUTOSCALING], &["horizontalpodautoscalers"]),
        rule(WRITE, &[BATCH], &["jobs", "cronjobs"]),
        rule(
            WRITE,
            &[EXTENSIONS],
            &[
                "daemonsets",
                "deployments",
                "deployments/scale",
                "deployments/rollback",
                "ingresses",
                "replicasets",
                "replicasets/scale",
                "replicationcontrollers/scale",
                "networkpolicies",
            ],
        ),
        rule(WRITE, &[POLICY], &["poddisruptionbudgets"]),
        rule(WRITE, &[NETWORKING], &["ingresses", "networkpolicies"]),
        rule(READ_WRITE, &[COORDINATION], &["leases"]),
    ]
}

/// `system:aggregate-to-admin`.
fn aggregate_to_admin() -> Vec<PolicyRule> {
    vec![
        rule(
            &["create"],
            &[AUTHORIZATION],
            &["localsubjectaccessreviews"],
        ),
        rule(READ_WRITE, &[RBAC_GROUP], &["rolebindings", "roles"]),
    ]
}

/// `NodeRules()`: what the Node authorizer grants every node outside its graph
/// checks (the `system:node` `ClusterRole`, bound to no one since Kubernetes 1.8).
pub fn node_rules() -> Vec<PolicyRule> {
    vec![
        rule(&["create"], &[AUTHENTICATION], &["tokenreviews"]),
        rule(
            &["create"],
            &[AUTHORIZATION],
            &["subjectaccessreviews", "localsubjectaccessreviews"],
        ),
        rule(READ, &[CORE], &["services"]),
        rule(&["create", "get", "list", "watch"], &[CORE], &["nodes"]),
        rule(&["update", "patch"], &[CORE], &["nodes/status"]),
        rule(&["update", "patch"], &[CORE], &["nodes"]),
        rule(&["create", "update", "patch"], &[CORE], &["events"]),
        rule(READ, &[CORE], &["pods"]),
        rule(&["create", "delete"], &[CORE], &["pods"]),
        rule(&["update", "patch"], &[CORE], &["pods/status"]),
        rule(&["create"], &[CORE], &["pods/eviction"]),
        rule(READ, &[CORE], &["secrets", "configmaps"]),
        rule(
            &["get"],
            &[CORE],
            &["persistentvolumeclaims", "persistentvolumes"],
        ),
        rule(&["get"], &[CORE], &["endpoints"]),
        rule(
            &["create", "get", "list", "watch"],
            &[CERTIFICATES],
            &["certificatesigningrequests"],
        ),
        rule(
            &["get", "create", "update", "patch", "delete"],
            &[COORDINATION],
            &["leases"],
        ),
        rule(&["get"], &[STORAGE], &["volumeattachments"]),
        rule(&["create"], &[CORE], &["serviceaccounts/token"]),
        rule(
            &["get", "update", "patch"],
            &[CORE],
            &["persistentvolumeclaims/status"],
        ),
        rule(READ, &[STORAGE], &["csidrivers"]),
        rule(
            &["get", "create", "update", "patch", "delete"],
            &[STORAGE],
            &["csinodes"],
        ),
        rule(READ, &["node.k8s.io"], &["runtimeclasses"]),
    ]
}

fn kube_scheduler_rules() -> Vec<PolicyRule> {
    vec![
        events_rule(),
        rule(&["create"], &[COORDINATION], &["leases"]),
        named(
            rule(&["get", "update"], &[COORDINATION], &["leases"]),
            &["kube-scheduler"],
        ),
        rule(READ, &[CORE], &["nodes"]),
        rule(&["get", "list", "watch", "delete"], &[CORE], &["pods"]),
        rule(&["create"], &[CORE], &["pods/binding", "bindings"]),
        rule(&["patch", "update"], &[CORE], &["pods/status"]),
        rule(READ, &[CORE], &["replicationcontrollers", "services"]),
        rule(READ, &[APPS, EXTENSIONS], &["replicasets"]),
        rule(READ, &[APPS], &["statefulsets"]),
        rule(READ, &[POLICY], &["poddisruptionbudgets"]),
        rule(
            READ,
            &[CORE],
            &["persistentvolumeclaims", "persistentvolumes"],
        ),
        rule(&["create"], &[AUTHENTICATION], &["tokenreviews"]),
        rule(&["create"], &[AUTHORIZATION], &["subjectaccessreviews"]),
        rule(READ, &[STORAGE], &["csinodes"]),
        rule(READ, &[CORE], &["namespaces"]),
        rule(READ, &[STORAGE], &["csidrivers"]),
        rule(READ, &[STORAGE], &["csistoragecapacities"]),
    ]
}

fn kube_controller_manager_rules() -> Vec<PolicyRule> {
    vec![
        events_rule(),
        rule(&["create"], &[COORDINATION], &["leases"]),
        named(
            rule(&["get", "update"], &[COORDINATION], &["leases"]),
            &["kube-controller-manager"],
        ),
        rule(&["create"], &[CORE], &["secrets", "serviceaccounts"]),
        rule(&["delete"], &[CORE], &["secrets"]),
        rule(
            &["get"],
            &[CORE],
            &["namespaces", "secrets", "serviceaccounts", "configmaps"],
        ),
        rule(&["update"], &[CORE], &["secrets", "serviceaccounts"]),
        rule(&["create"], &[AUTHENTICATION], &["tokenreviews"]),
        rule(&["create"], &[AUTHORIZATION], &["subjectaccessreviews"]),
        rule(&["list", "watch"], &["*"], &["*"]),
        rule(&["create"], &[CORE], &["serviceaccounts/token"]),
    ]
}

/// The `system:controller:*` roles of the controllers podflow runs
/// (`controller_policy.go`), each bound to the service account of that name in
/// `kube-system` (kubeadm runs kube-controller-manager with
/// `--use-service-account-credentials`).
#[expect(
    clippy::too_many_lines,
    reason = "a data table, one entry per controller"
)]
fn controller_roles() -> Vec<(&'static str, Vec<PolicyRule>)> {
    vec![
        (
            "deployment-controller",
            vec![
                rule(
                    &["get", "list", "watch", "update"],
                    &[EXTENSIONS, APPS],
                    &["deployments"],
                ),
                rule(&["update"], &[EXTENSIONS, APPS], &["deployments/status"]),
                rule(
                    &["update"],
                    &[EXTENSIONS, APPS],
                    &["deployments/finalizers"],
                ),
                rule(
                    &[
                        "get", "list", "watch", "create", "update", "patch", "delete",
                    ],
                    &[APPS, EXTENSIONS],
                    &["replicasets"],
                ),
                rule(&["get", "list", "watch", "update"], &[CORE], &["pods"]),
                events_rule(),
            ],
        ),
        (
            "endpoint-controller",
            vec![
                rule(READ, &[CORE], &["services", "pods"]),
                rule(
                    &["get", "list", "watch", "create", "update", "delete"],
                    &[CORE],
                    &["endpoints"],
                ),
                rule(&["create"], &[CORE], &["endpoints/restricted"]),
                events_rule(),
            ],
        ),
        (
            "endpointslice-controller",
            vec![
                rule(READ, &[CORE], &["services", "pods", "nodes"]),
                rule(&["update"], &[CORE], &["services/finalizers"]),
                rule(
                    &["get", "list", "watch", "create", "update", "delete"],
                    &[DISCOVERY],
                    &["endpointslices"],
                ),
                events_rule(),
            ],
        ),
        (
            "generic-garbage-collector",
            vec![
                rule(
                    &["get", "list", "watch", "patch", "update", "delete"],
                    &["*"],
                    &["*"],
                ),
                events_rule(),
            ],
        ),
        (
            "job-controller",
            vec![
                rule(
                    &["get", "list", "watch", "update", "patch"],
                    &[BATCH],
                    &["jobs"],
                ),
                rule(&["update"], &[BATCH], &["jobs/status"]),
                rule(&["update"], &[BATCH], &["jobs/finalizers"]),
                rule(
                    &["list", "watch", "create", "delete", "patch"],
                    &[CORE],
                    &["pods"],
                ),
                events_rule(),
            ],
        ),
        (
            "namespace-controller",
            vec![
                rule(
                    &["get", "list", "watch", "delete"],
                    &[CORE],
                    &["namespaces"],
                ),
                rule(
                    &["update"],
                    &[CORE],
                    &["namespaces/finalize", "namespaces/status"],
                ),
                rule(
                    &["get", "list", "watch", "delete", "deletecollection"],
                    &["*"],
                    &["*"],
                ),
            ],
        ),
        (
            "node-controller",
            vec![
                rule(
                    &["get", "list", "watch", "update", "delete", "patch"],
                    &[CORE],
                    &["nodes"],
                ),
                rule(&["patch", "update"], &[CORE], &["nodes/status"]),
                rule(&["patch", "update"], &[CORE], &["pods/status"]),
                rule(&["list", "watch", "get", "delete"], &[CORE], &["pods"]),
                events_rule(),
            ],
        ),
        (
            "taint-eviction-controller",
            vec![
                rule(&["get", "list", "watch", "delete"], &[CORE], &["pods"]),
                rule(&["patch", "update"], &[CORE], &["pods/status"]),
                events_rule(),
            ],
        ),
        (
            "persistent-volume-binder",
            vec![
                rule(
                    &["get", "list", "watch", "update", "create", "delete"],
                    &[CORE],
                    &["persistentvolumes"],
                ),
                rule(&["update"], &[CORE], &["persistentvolumes/status"]),
                rule(
                    &["get", "list", "watch", "update"],
                    &[CORE],
                    &["persistentvolumeclaims"],
                ),
                rule(&["update"], &[CORE], &["persistentvolumeclaims/status"]),
                rule(
                    &["list", "watch", "get", "create", "delete"],
                    &[CORE],
                    &["pods"],
                ),
                rule(READ, &[STORAGE], &["storageclasses"]),
                rule(&["get", "list"], &[CORE], &["nodes"]),
                rule(&["watch"], &[CORE], &["events"]),
                events_rule(),
            ],
        ),
        (
            "pod-garbage-collector",
            vec![
                rule(&["list", "watch", "delete"], &[CORE], &["pods"]),
                rule(READ, &[CORE], &["nodes"]),
                rule(&["patch"], &[CORE], &["pods/status"]),
            ],
        ),
        (
            "replicaset-controller",
            vec![
                rule(
                    &["get", "list", "watch", "update"],
                    &[APPS, EXTENSIONS],
                    &["replicasets"],
                ),
                rule(&["update"], &[APPS, EXTENSIONS], &["replicasets/status"]),
                rule(
                    &["update"],
                    &[APPS, EXTENSIONS],
                    &["replicasets/finalizers"],
                ),
                rule(
                    &["list", "watch", "patch", "create", "delete"],
                    &[CORE],
                    &["pods"],
                ),
                events_rule(),
            ],
        ),
        (
            "resourcequota-controller",
            vec![
                rule(&["list", "watch"], &["*"], &["*"]),
                rule(&["update"], &[CORE], &["resourcequotas/status"]),
                events_rule(),
            ],
        ),
        (
            "root-ca-cert-publisher",
            vec![
                rule(&["create", "update"], &[CORE], &["configmaps"]),
                events_rule(),
            ],
        ),
        (
            "service-account-controller",
            vec![
                rule(&["create"], &[CORE], &["serviceaccounts"]),
                events_rule(),
            ],
        ),
    ]
}

/// The default `ClusterRoles`, in name order.
pub fn cluster_roles() -> Vec<Object> {
    let view_rules = aggregate_to_view();
    let edit_rules = union(&[&aggregate_to_edit(), &view_rules]);
    let admin_rules = union(&[&edit_rules, &aggregate_to_admin()]);

    let mut edit_agg = cluster_role("system:aggregate-to-edit", aggregate_to_edit());
    let mut view_agg = cluster_role("system:aggregate-to-view", aggregate_to_view());
    let mut admin_agg = cluster_role("system:aggregate-to-admin", aggregate_to_admin());
    edit_agg.metadata = meta("system:aggregate-to-edit", &[AGGREGATE_TO_EDIT]);
    view_agg.metadata = meta("system:aggregate-to-view", &[AGGREGATE_TO_VIEW]);
    admin_agg.metadata = meta("system:aggregate-to-admin", &[AGGREGATE_TO_ADMIN]);

    let mut roles = vec![
        aggregated("admin", AGGREGATE_TO_ADMIN, &[], admin_rules),
        cluster_role(
            "cluster-admin",
            vec![rule(&["*"], &["*"], &["*"]), urls(&["*"], &["*"])],
        ),
        aggregated("edit", AGGREGATE_TO_EDIT, &[AGGREGATE_TO_ADMIN], edit_rules),
        aggregated("view", AGGREGATE_TO_VIEW, &[AGGREGATE_TO_EDIT], view_rules),
        admin_agg,
        edit_agg,
        view_agg,
        cluster_role(
            "system:basic-user",
            vec![
                rule(
                    &["create"],
                    &[AUTHORIZATION],
                    &["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                ),
                rule(&["create"], &[AUTHENTICATION], &["selfsubjectreviews"]),
            ],
        ),
        cluster_role(
            "system:discovery",
            vec![urls(
                &["get"],
                &[
                    "/livez",
                    "/readyz",
                    "/healthz",
                    "/version",
                    "/version/",
                    "/openapi",
                    "/openapi/*",
                    "/api",
                    "/api/*",
                    "/apis",
                    "/apis/*",
                ],
            )],
        ),
        cluster_role(
            "system:kube-controller-manager",
            kube_controller_manager_rules(),
        ),
        cluster_role("system:kube-scheduler", kube_scheduler_rules()),
        cluster_role("system:node", node_rules()),
        cluster_role(
            "system:node-proxier",
            vec![
                rule(&["list", "watch"], &[CORE], &["services", "endpoints"]),
                rule(READ, &[CORE], &["nodes"]),
                events_rule(),
                rule(&["list", "watch"], &[DISCOVERY], &["endpointslices"]),
            ],
        ),
        cluster_role(
            "system:public-info-viewer",
            vec![urls(
                &["get"],
                &["/livez", "/readyz", "/healthz", "/version", "/version/"],
            )],
        ),
        cluster_role(
            "system:volume-scheduler",
            vec![
                rule(
                    &["get", "list", "watch", "update", "patch"],
                    &[CORE],
                    &["persistentvolumes"],
                ),
                rule(READ, &[STORAGE], &["storageclasses"]),
                rule(
                    &["get", "list", "watch", "update", "patch"],
                    &[CORE],
                    &["persistentvolumeclaims"],
                ),
            ],
        ),
    ];
    roles.extend(
        controller_roles()
            .into_iter()
            .map(|(name, rules)| cluster_role(&format!("{CONTROLLER_PREFIX}{name}"), rules)),
    );
    roles.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    roles.into_iter().map(Object::ClusterRole).collect()
}

fn group(name: &str) -> Subject {
    Subject {
        api_group: Some(RBAC_GROUP.to_owned()),
        kind: "Group".to_owned(),
        name: name.to_owned(),
        namespace: None,
    }
}

fn user(name: &str) -> Subject {
    Subject {
        api_group: Some(RBAC_GROUP.to_owned()),
        kind: "User".to_owned(),
        name: name.to_owned(),
        namespace: None,
    }
}

fn service_account(namespace: &str, name: &str) -> Subject {
    Subject {
        api_group: None,
        kind: "ServiceAccount".to_owned(),
        name: name.to_owned(),
        namespace: Some(namespace.to_owned()),
    }
}

fn binding(role: &str, subjects: Vec<Subject>) -> ClusterRoleBinding {
    ClusterRoleBinding {
        metadata: meta(role, &[]),
        role_ref: RoleRef {
            api_group: Some(RBAC_GROUP.to_owned()),
            kind: "ClusterRole".to_owned(),
            name: role.to_owned(),
        },
        subjects: (!subjects.is_empty()).then_some(subjects),
    }
}

/// The default `ClusterRoleBindings`, in name order.
pub fn cluster_role_bindings() -> Vec<Object> {
    let mut bindings = vec![
        binding("cluster-admin", vec![group("system:masters")]),
        binding("system:basic-user", vec![group("system:authenticated")]),
        binding("system:discovery", vec![group("system:authenticated")]),
        binding(
            "system:kube-controller-manager",
            vec![user("system:kube-controller-manager")],
        ),
        binding("system:kube-scheduler", vec![user("system:kube-scheduler")]),
        // Bound to no one: nodes are authorized by the Node authorizer.
        binding("system:node", vec![]),
        binding("system:node-proxier", vec![user("system:kube-proxy")]),
        binding(
            "system:public-info-viewer",
            vec![
                group("system:authenticated"),
                group("system:unauthenticated"),
            ],
        ),
        binding(
            "system:volume-scheduler",
            vec![user("system:kube-scheduler")],
        ),
    ];
    bindings.extend(controller_roles().into_iter().map(|(name, _)| {
        binding(
            &format!("{CONTROLLER_PREFIX}{name}"),
            vec![service_account("kube-system", name)],
        )
    }));
    bindings.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    bindings
        .into_iter()
        .map(Object::ClusterRoleBinding)
        .collect()
}

/// The `ClusterRoleBinding` that `kubeadm init` adds (`cmd/kubeadm/app/phases/kubeconfig`,
/// since Kubernetes 1.29): `admin.conf`'s user `kubernetes-admin` is in group
/// `kubeadm:cluster-admins`, bound to `cluster-admin`; only `super-admin.conf`
/// is in `system:masters`. kubeadm sets no bootstrap labels on it.
pub fn kubeadm_cluster_role_bindings() -> Vec<Object> {
    let name = "kubeadm:cluster-admins";
    let mut binding = binding("cluster-admin", vec![group(name)]);
    binding.metadata = ObjectMeta {
        name: Some(name.to_owned()),
        ..ObjectMeta::default()
    };
    vec![Object::ClusterRoleBinding(binding)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(name: &str) -> ClusterRole {
        cluster_roles()
            .into_iter()
            .find_map(|o| match o {
                Object::ClusterRole(r) if r.metadata.name.as_deref() == Some(name) => Some(r),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn every_object_carries_the_bootstrap_label_and_autoupdate_annotation() {
        for object in cluster_roles().iter().chain(cluster_role_bindings().iter()) {
            let meta = object.metadata();
            assert_eq!(
                meta.labels
                    .as_ref()
                    .and_then(|l| l.get(BOOTSTRAPPING_LABEL))
                    .map(String::as_str),
                Some("rbac-defaults"),
                "{}",
                object.name()
            );
            assert_eq!(
                meta.annotations
                    .as_ref()
                    .and_then(|a| a.get(AUTOUPDATE_ANNOTATION))
                    .map(String::as_str),
                Some("true")
            );
        }
    }

    #[test]
    fn every_binding_refers_to_a_role_that_exists() {
        let roles: Vec<String> = cluster_roles()
            .iter()
            .map(|r| r.name().to_owned())
            .collect();
        for object in cluster_role_bindings() {
            let Object::ClusterRoleBinding(b) = object else {
                unreachable!()
            };
            assert!(roles.contains(&b.role_ref.name), "{}", b.role_ref.name);
        }
    }

    #[test]
    fn controller_bindings_name_kube_system_service_accounts() {
        let bindings = cluster_role_bindings();
        let Some(Object::ClusterRoleBinding(b)) = bindings
            .iter()
            .find(|o| o.name() == "system:controller:replicaset-controller")
        else {
            panic!("missing binding");
        };
        let subject = &b.subjects.as_ref().unwrap()[0];
        assert_eq!(subject.kind, "ServiceAccount");
        assert_eq!(subject.name, "replicaset-controller");
        assert_eq!(subject.namespace.as_deref(), Some("kube-system"));
    }

    #[test]
    fn rules_are_sorted_as_the_rule_builder_sorts_them() {
        let scheduler = role("system:kube-scheduler");
        let pods = &scheduler.rules.as_ref().unwrap()[4];
        assert_eq!(pods.verbs, ["delete", "get", "list", "watch"]);
        let binding = &scheduler.rules.as_ref().unwrap()[5];
        assert_eq!(
            binding.resources.as_deref(),
            Some(&["bindings".to_owned(), "pods/binding".to_owned()][..])
        );
    }

    #[test]
    fn aggregated_roles_hold_their_parts() {
        let admin = role("admin");
        let edit = role("edit");
        let view = role("view");
        let count = |r: &ClusterRole| r.rules.as_ref().map_or(0, Vec::len);
        assert_eq!(count(&view), aggregate_to_view().len());
        assert_eq!(
            count(&edit),
            aggregate_to_view().len() + aggregate_to_edit().len()
        );
        assert_eq!(count(&admin), count(&edit) + aggregate_to_admin().len());
        assert!(view.aggregation_rule.is_some());
    }
}
