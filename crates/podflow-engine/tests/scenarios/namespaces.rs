//! Deleting a namespace: the API server marks it `Terminating`
//! (`pkg/registry/core/namespace/storage/storage.go`, `Delete`), admission
//! refuses new content (`NamespaceLifecycle`), and the namespace controller
//! (`pkg/controller/namespace/deletion/namespaced_resources_deleter.go`)
//! deletes what it holds through the API server, sets its deletion
//! conditions, and takes out the `kubernetes` finalizer through
//! `namespaces/finalize`, which deletes it.

use crate::common::{apply, final_objects, kubectl_answers, kubectl_output, run, writes};
use podflow_engine::trace::{Actor, Record};

/// The requests the controller manager sent: their labels (`DELETE /api/…`).
fn controller_requests(records: &[podflow_engine::trace::TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Message {
                from,
                label,
                request: Some(_),
                ..
            } if *from == Actor::ControllerManager => Some(label.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn deleting_a_namespace_empties_it_then_finalizes_it() {
    let records = run(
        None,
        &[
            &apply("dev-namespace.yaml"),
            &apply("dev-web-deployment.yaml"),
            "wait 20s",
            "delete namespace dev",
            "get namespace dev",
            "run extra --image=nginx -n dev",
            "wait 2m",
        ],
        |_| {},
    );
    let output = kubectl_output(&records);
    assert!(
        output.contains(&r#"namespace "dev" deleted"#.to_owned()),
        "{output:?}"
    );
    assert!(
        output
            .iter()
            .any(|l| l.starts_with("dev ") && l.contains("Terminating"))
    );
    // NamespaceLifecycle: 403 Forbidden, in the created object's own words.
    let refused = r#"pods "extra" is forbidden: unable to create new content in namespace dev because it is being terminated"#;
    assert!(kubectl_answers(&records).contains(&(403, refused.to_owned())));

    let namespace_writes: Vec<serde_json::Value> = writes(&records)
        .into_iter()
        .filter(|(_, key, _)| key == "/registry/namespaces/dev")
        .filter_map(|(_, _, object)| object)
        .collect();
    // Created Active with the kubernetes finalizer (the strategy's PrepareForCreate).
    assert_eq!(namespace_writes[0]["status"]["phase"], "Active");
    assert_eq!(
        namespace_writes[0]["spec"]["finalizers"],
        serde_json::json!(["kubernetes"])
    );
    // The DELETE: a deletion timestamp and Terminating, the finalizer kept.
    let terminating = &namespace_writes[1];
    assert_eq!(terminating["status"]["phase"], "Terminating");
    assert!(terminating["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(
        terminating["spec"]["finalizers"],
        serde_json::json!(["kubernetes"])
    );
    // The controller's conditions: first the Pods still terminating, then nothing left.
    let condition = |ns: &serde_json::Value, t: &str| {
        ns["status"]["conditions"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["type"] == t).cloned())
    };
    let remaining = condition(&namespace_writes[2], "NamespaceContentRemaining").unwrap();
    assert_eq!(remaining["status"], "True");
    assert_eq!(remaining["reason"], "SomeResourcesRemain");
    assert_eq!(
        remaining["message"],
        "Some resources are remaining: pods. has 2 resource instances"
    );
    let last = namespace_writes.last().unwrap();
    let removed = condition(last, "NamespaceContentRemaining").unwrap();
    assert_eq!(
        (removed["status"].as_str(), removed["message"].as_str()),
        (Some("False"), Some("All content successfully removed"))
    );
    let discovered = condition(last, "NamespaceDeletionDiscoveryFailure").unwrap();
    assert_eq!(discovered["reason"], "ResourcesDiscovered");

    // Real requests: the Deployment, the Pods, then the finalizer's removal.
    let requests = controller_requests(&records);
    assert!(requests.contains(&"DELETE /apis/apps/v1/namespaces/dev/deployments/web".to_owned()));
    assert!(
        requests
            .iter()
            .any(|r| r.starts_with("DELETE /api/v1/namespaces/dev/pods/web-"))
    );
    assert!(
        requests
            .iter()
            .any(|r| r == "DELETE /api/v1/namespaces/dev/serviceaccounts/default")
    );
    assert!(requests.contains(&"PUT /api/v1/namespaces/dev/finalize".to_owned()));
    // The finalize update deleted it, and nothing of dev is left.
    let left: Vec<_> = final_objects(&records)
        .into_iter()
        .filter(|o| {
            o["metadata"]["namespace"] == "dev"
                || (o["kind"] == "Namespace" && o["metadata"]["name"] == "dev")
        })
        .map(|o| format!("{} {}", o["kind"], o["metadata"]["name"]))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // A ReplicaSet refused for a terminating namespace records no FailedCreate.
    assert!(
        !records
            .iter()
            .any(|r| matches!(&r.body, Record::Event(e) if e.reason == "FailedCreate"))
    );
}
