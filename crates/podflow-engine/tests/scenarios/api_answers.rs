//! The API server's answers to what it refuses, word for word as Kubernetes
//! words them, and what kubectl prints for each.

use crate::common::{apply, fixture, kubectl_answers, kubectl_output, run};

#[test]
fn rbac_forbids_a_create_the_user_has_no_rule_for() {
    // jane may get, list and watch pods in dev (tests/fixtures/rbac-cluster.yaml), not create them.
    let records = run(
        Some("rbac-cluster.yaml"),
        &[&format!("create -f {}", fixture("dev-pod.yaml"))],
        |a| {
            a.token = Some("jane-token".into());
        },
    );
    assert_eq!(
        kubectl_answers(&records),
        [(
            403,
            r#"pods is forbidden: User "jane" cannot create resource "pods" in API group "" in the namespace "dev""#.to_owned()
        )]
    );
    let source = fixture("dev-pod.yaml");
    assert_eq!(
        kubectl_output(&records),
        [format!(
            r#"Error from server (Forbidden): error when creating "{source}": pods is forbidden: User "jane" cannot create resource "pods" in API group "" in the namespace "dev""#
        )]
    );
}

#[test]
fn apply_as_a_user_without_get_fails_at_the_first_get() {
    let records = run(Some("rbac-cluster.yaml"), &[&apply("dev-pod.yaml")], |a| {
        a.as_user = Some("bob".into());
    });
    assert_eq!(
        kubectl_answers(&records),
        [(
            403,
            r#"pods "nginx" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "dev""#.to_owned()
        )]
    );
    let output = kubectl_output(&records);
    assert_eq!(
        output[0],
        "Error from server (Forbidden): error when retrieving current configuration of:"
    );
    assert_eq!(
        output[1],
        r#"Resource: "/v1, Resource=pods", GroupVersionKind: "/v1, Kind=Pod""#
    );
    assert_eq!(output[2], r#"Name: "nginx", Namespace: "dev""#);
}

#[test]
fn an_unknown_token_is_unauthorized() {
    let records = run(Some("rbac-cluster.yaml"), &[&apply("dev-pod.yaml")], |a| {
        a.token = Some("not-a-token".into());
    });
    assert_eq!(
        kubectl_answers(&records),
        [(401, "Unauthorized".to_owned())]
    );
    assert_eq!(
        kubectl_output(&records),
        ["error: You must be logged in to the server (Unauthorized)"]
    );
}

#[test]
fn a_container_without_an_image_is_invalid() {
    let records = run(None, &[&apply("no-image-pod.yaml")], |_| {});
    let answers = kubectl_answers(&records);
    assert_eq!(answers[0], (404, r#"pods "x" not found"#.to_owned()));
    assert_eq!(
        answers[1],
        (
            422,
            r#"Pod "x" is invalid: spec.containers[0].image: Required value"#.to_owned()
        )
    );
    assert_eq!(
        kubectl_output(&records),
        [r#"The Pod "x" is invalid: spec.containers[0].image: Required value"#]
    );
}

#[test]
fn an_unknown_field_is_a_strict_decoding_error() {
    let records = run(None, &[&apply("typo-pod.yaml")], |_| {});
    assert_eq!(
        kubectl_answers(&records)[1],
        (
            400,
            r#"Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].imagePullPolicyy""#.to_owned()
        )
    );
}

#[test]
fn a_pod_over_the_quota_is_forbidden() {
    // The running Pod of the cluster file already uses 500m of the quota.
    let records = run(
        Some("quota-cluster.yaml"),
        &[&apply("big-pod.yaml")],
        |_| {},
    );
    assert_eq!(
        kubectl_answers(&records)[1],
        (
            403,
            r#"pods "big" is forbidden: exceeded quota: compute, requested: requests.cpu=2, used: requests.cpu=500m, limited: requests.cpu=1"#.to_owned()
        )
    );
}

#[test]
fn a_missing_namespace_is_not_found() {
    let records = run(None, &[&apply("dev-pod.yaml")], |_| {});
    assert_eq!(
        kubectl_answers(&records)[1],
        (404, r#"namespaces "dev" not found"#.to_owned())
    );
}

#[test]
fn creating_twice_is_already_exists_and_applying_twice_is_unchanged() {
    let create = format!(
        "create -f {}",
        fixture("no-image-pod.yaml").replace("no-image", "big")
    );
    let records = run(None, &[&create, &create, &apply("big-pod.yaml")], |_| {});
    let answers = kubectl_answers(&records);
    assert_eq!(answers[0].0, 201);
    assert_eq!(answers[1], (409, r#"pods "big" already exists"#.to_owned()));
    let output = kubectl_output(&records);
    assert_eq!(output[0], "pod/big created");
    assert!(
        output[1].starts_with("Error from server (AlreadyExists): error when creating"),
        "{}",
        output[1]
    );
    // The created Pod has no last-applied annotation: apply warns
    // (`warningNoLastAppliedConfigAnnotation`) and patches it in.
    assert!(
        output[2].starts_with("Warning: resource pods/big is missing the kubectl.kubernetes.io/last-applied-configuration annotation"),
        "{}",
        output[2]
    );
    assert_eq!(output[3], "pod/big configured");
}

#[test]
fn a_second_apply_of_the_same_manifest_changes_nothing() {
    let records = run(
        None,
        &[&apply("big-pod.yaml"), &apply("big-pod.yaml")],
        |_| {},
    );
    assert_eq!(
        kubectl_output(&records),
        ["pod/big created", "pod/big unchanged"]
    );
}

#[test]
fn deleting_what_is_not_there_is_not_found() {
    let records = run(None, &["delete pod nope"], |_| {});
    assert_eq!(
        kubectl_answers(&records),
        [(404, r#"pods "nope" not found"#.to_owned())]
    );
    assert_eq!(
        kubectl_output(&records),
        [r#"Error from server (NotFound): pods "nope" not found"#]
    );
}

/// The authorization stage of each request kubectl sent: (plugin, detail).
fn kubectl_authorizations(records: &[podflow_engine::trace::TraceRecord]) -> Vec<(String, String)> {
    use podflow_engine::trace::{Record, StageName};
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Stage(s) if s.stage == StageName::Authorization => Some((
                s.plugin.as_deref().unwrap_or_default().to_owned(),
                s.detail.text().into_owned(),
            )),
            _ => None,
        })
        .collect()
}

/// kubeadm ≥ 1.29 (`cmd/kubeadm/app/phases/kubeconfig`): `admin.conf`'s user
/// `kubernetes-admin` is in `kubeadm:cluster-admins`, not `system:masters`, so
/// RBAC decides its requests, through kubeadm's `ClusterRoleBinding`, after the
/// Node authorizer had no opinion (`pkg/kubeapiserver/authorizer/config.go`).
#[test]
fn the_admin_is_kubeadms_and_rbac_allows_it_through_kubeadms_binding() {
    let records = run(None, &["get pods"], |_| {});
    assert_eq!(
        kubectl_authorizations(&records)[0],
        (
            "RBAC".to_owned(),
            r#"Node: no opinion; RBAC: allow (allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins")"#.to_owned()
        )
    );
}

/// `authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)` runs
/// before Node and RBAC: a `system:masters` member is allowed without RBAC.
#[test]
fn system_masters_is_allowed_by_the_privileged_groups_authorizer() {
    let records = run(None, &["get pods"], |a| {
        a.as_user = Some("root".into());
        a.as_groups = vec!["system:masters".into()];
    });
    assert_eq!(
        kubectl_authorizations(&records)[0],
        (
            "privileged groups".to_owned(),
            r#"privileged groups: allow (group "system:masters")"#.to_owned()
        )
    );
}

/// A denial lists each authorizer's answer, then the Forbidden reason.
#[test]
fn a_denial_lists_the_chain_then_the_reason() {
    let records = run(Some("rbac-cluster.yaml"), &["get pods -n default"], |a| {
        a.token = Some("jane-token".into());
    });
    assert_eq!(
        kubectl_authorizations(&records)[0],
        (
            "RBAC".to_owned(),
            r#"Node: no opinion; RBAC: no opinion; denied: User "jane" cannot list resource "pods" in API group "" in the namespace "default""#.to_owned()
        )
    );
}

/// A kubelet reading a Secret no Pod on its node uses: the Node authorizer's
/// reason (`node_authorizer.go`, "no relationship found") ends the 403's
/// message, as `responsewriters.Forbidden` appends the authorizers' reasons.
#[test]
fn a_node_reading_an_unrelated_secret_is_told_why() {
    let records = run(
        None,
        &["get secret db-creds -n default --as system:node:node-1 --as-group system:nodes"],
        |_| {},
    );
    let reason = "no relationship found between node 'node-1' and this object";
    assert_eq!(
        kubectl_answers(&records),
        [(
            403,
            format!(
                r#"secrets "db-creds" is forbidden: User "system:node:node-1" cannot get resource "secrets" in API group "" in the namespace "default": {reason}"#
            )
        )]
    );
    assert_eq!(
        kubectl_authorizations(&records)[0].1,
        format!(
            r#"Node: no opinion ({reason}); RBAC: no opinion; denied: User "system:node:node-1" cannot get resource "secrets" in API group "" in the namespace "default""#
        )
    );
}

/// kubectl sends a manifest without checking its types; the API server's
/// decoder answers `400 BadRequest` (`serializer/versioning`: `Pod in version
/// "v1" cannot be handled as a Pod: ` and Go's `UnmarshalTypeError`), and
/// kubectl prints it as `Error from server (BadRequest): error when creating`.
#[test]
fn a_value_of_the_wrong_type_is_refused_by_the_api_server() {
    let pod = crate::common::TempFile::new(
        "eighty",
        "apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: web
    image: nginx:1.27
    ports:
    - containerPort: eighty
",
    );
    let message = "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32";
    for verb in ["create", "apply"] {
        let records = run(None, &[&format!("{verb} -f {}", pod.path())], |_| {});
        let answers = kubectl_answers(&records);
        assert_eq!(answers.last(), Some(&(400, message.to_owned())), "{verb}");
        assert_eq!(
            kubectl_output(&records),
            [format!(
                "Error from server (BadRequest): error when creating \"{}\": {message}",
                pod.path()
            )],
            "{verb}"
        );
    }
}
