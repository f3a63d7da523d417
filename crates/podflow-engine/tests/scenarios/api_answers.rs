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
    // The created Pod has no last-applied annotation, so apply patches it in.
    assert_eq!(output[2], "pod/big configured");
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
