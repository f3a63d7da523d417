//! Every namespace gets the `default` `ServiceAccount` from the serviceaccount
//! controller (`pkg/controller/serviceaccount/serviceaccounts_controller.go`)
//! and the `kube-root-ca.crt` `ConfigMap` from the root CA publisher
//! (`pkg/controller/certificates/rootcacertpublisher/publisher.go`), both in
//! kube-controller-manager; a Pod created before `default` exists waits in
//! the `ServiceAccount` admission plugin, which looks again up to 10 times
//! (`plugin/pkg/admission/serviceaccount/admission.go`, `getServiceAccount`).

use crate::common::{apply, final_objects, kubectl_answers, kubectl_output, run};
use podflow_engine::trace::{Actor, Outcome, Record, StageName, TraceRecord};

/// The `ServiceAccount` admission stages that waited, their details.
fn admission_waits(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Stage(s)
                if s.stage == StageName::Admission
                    && s.plugin.as_deref() == Some("ServiceAccount")
                    && s.outcome == Outcome::Waiting =>
            {
                Some(s.detail.to_string())
            }
            _ => None,
        })
        .collect()
}

/// The requests kube-controller-manager sent (`POST /api/v1/…`).
fn controller_requests(records: &[TraceRecord]) -> Vec<String> {
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

/// Whether namespace `ns` ends with the `default` account and the CA `ConfigMap`.
fn assert_namespace_defaults(records: &[TraceRecord], ns: &str) {
    let objects = final_objects(records);
    let find = |kind: &str, name: &str| {
        objects
            .iter()
            .find(|o| {
                o["kind"] == kind
                    && o["metadata"]["namespace"] == ns
                    && o["metadata"]["name"] == name
            })
            .cloned()
    };
    assert!(
        find("ServiceAccount", "default").is_some(),
        "{ns}/default missing"
    );
    let ca = find("ConfigMap", "kube-root-ca.crt").expect("kube-root-ca.crt");
    assert!(
        ca["data"]["ca.crt"]
            .as_str()
            .is_some_and(|c| c.starts_with("-----BEGIN CERTIFICATE-----"))
    );
    assert!(
        ca["metadata"]["annotations"]["kubernetes.io/description"]
            .as_str()
            .is_some_and(|d| d.starts_with("Contains a CA bundle"))
    );
}

/// The phase of Pod `ns/name` at the end.
fn pod_phase(records: &[TraceRecord], ns: &str, name: &str) -> String {
    final_objects(records)
        .into_iter()
        .find(|o| {
            o["kind"] == "Pod" && o["metadata"]["namespace"] == ns && o["metadata"]["name"] == name
        })
        .and_then(|p| p["status"]["phase"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// `kubectl create namespace dev` then `kubectl run -n dev`: the
/// serviceaccount controller's `syncNamespace` creates `default` and the
/// publisher's creates `kube-root-ca.crt`, through the API server; the Pod is
/// admitted (after waiting, if it came first) and runs.
#[test]
fn a_new_namespace_gets_its_default_account_and_ca() {
    let records = run(
        None,
        &[
            "create namespace dev",
            "run x --image=nginx -n dev",
            "wait 30s",
        ],
        |_| {},
    );
    let output = kubectl_output(&records);
    assert!(output.contains(&"pod/x created".to_owned()), "{output:?}");
    assert_eq!(pod_phase(&records, "dev", "x"), "Running");
    assert_namespace_defaults(&records, "dev");
    let sent = controller_requests(&records);
    for wanted in [
        "POST /api/v1/namespaces/dev/serviceaccounts",
        "POST /api/v1/namespaces/dev/configmaps",
    ] {
        assert!(
            sent.iter().any(|l| l.starts_with(wanted)),
            "{wanted}: {sent:?}"
        );
    }
    // Each admission wait names the account and how many GETs it tried.
    for wait in admission_waits(&records) {
        assert!(
            wait.starts_with(r#"serviceaccount "default" not found in dev (GET "#),
            "{wait}"
        );
    }
}

/// `kubectl apply -f` of a file holding a Namespace and a Pod in it: the Pod
/// is created right after the namespace (kubectl's GET of the Pod between
/// them gives the controller time to make `default` first, as it usually
/// has upstream); the Pod is admitted and runs.
#[test]
fn applying_a_namespace_and_its_pod_together_works() {
    let records = run(
        None,
        &[&apply("namespace-and-pod.yaml"), "wait 30s"],
        |_| {},
    );
    let output = kubectl_output(&records);
    assert!(
        output.contains(&"namespace/web created".to_owned()),
        "{output:?}"
    );
    assert!(
        output.contains(&"pod/nginx created".to_owned()),
        "{output:?}"
    );
    assert_eq!(pod_phase(&records, "web", "nginx"), "Running");
    assert_namespace_defaults(&records, "web");
}

/// With no `default` account and no controller to make it (a namespace of
/// the cluster file, reconciled as it stands), `getServiceAccount` tries its
/// 10 GETs, one retry interval (100–199 ms) apart, then the Pod is refused
/// with the plugin's words.
#[test]
fn without_an_account_admission_gives_up_after_ten_lookups() {
    let records = run(
        Some("bare-namespace-cluster.yaml"),
        &["run x --image=nginx -n bare"],
        |_| {},
    );
    let waits = admission_waits(&records);
    assert_eq!(waits.len(), 9, "{waits:?}");
    assert!(waits[0].contains("(GET 1 of 10)"), "{}", waits[0]);
    assert!(waits[8].contains("(GET 9 of 10)"), "{}", waits[8]);
    let refused = r#"pods "x" is forbidden: error looking up service account bare/default: serviceaccount "default" not found"#;
    assert!(
        kubectl_answers(&records).contains(&(403, refused.to_owned())),
        "{:?}",
        kubectl_answers(&records)
    );
}

/// `kubectl create -f` of the same file POSTs the Pod at once after the
/// namespace's answer, before the serviceaccount controller's create has
/// landed: the `ServiceAccount` plugin waits one retry interval, finds
/// `default` on its next GET, and the Pod is created (the race of
/// kubernetes/kubernetes#66689 that the plugin's retries absorb).
#[test]
fn a_pod_created_with_its_namespace_waits_for_default_then_runs() {
    let records = run(
        None,
        &[
            &format!(
                "create -f {}",
                crate::common::fixture("namespace-and-pod.yaml")
            ),
            "wait 30s",
        ],
        |_| {},
    );
    let waits = admission_waits(&records);
    assert_eq!(waits.len(), 1, "{waits:?}");
    assert!(
        waits[0].contains("not found in web (GET 1 of 10)"),
        "{}",
        waits[0]
    );
    // The same plugin's next record, after the wait, sets the account and mounts the token.
    let resumed = records.iter().find_map(|r| match &r.body {
        Record::Stage(s)
            if s.stage == StageName::Admission
                && s.plugin.as_deref() == Some("ServiceAccount")
                && s.outcome == Outcome::Mutate =>
        {
            Some((r.t_ms, s.detail.to_string()))
        }
        _ => None,
    });
    let (at, detail) = resumed.expect("the plugin went on");
    assert!((100..300).contains(&at), "{at}");
    assert!(
        detail.starts_with(r#"set serviceAccountName to "default""#),
        "{detail}"
    );
    let output = kubectl_output(&records);
    assert!(
        output.contains(&"pod/nginx created".to_owned()),
        "{output:?}"
    );
    assert_eq!(pod_phase(&records, "web", "nginx"), "Running");
    assert_namespace_defaults(&records, "web");
}
