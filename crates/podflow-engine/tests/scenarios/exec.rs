//! `kubectl exec` end to end (`pkg/cmd/exec/exec.go`): the Pod's GET, the
//! `pods/exec` connection the API server authorizes as `create` and hands to
//! the kubelet, the command run in the container with the files the kubelet
//! wrote (`/etc/resolv.conf`, `/etc/hosts`, `/etc/hostname`), and kubectl's
//! words for each way it fails; and `auth can-i --as`, impersonation as
//! kubectl sends it.

use crate::common::{REPO, apply, final_object, kubectl_answers, kubectl_output, run};

fn nginx() -> String {
    format!("apply -f {REPO}/assets/manifests/nginx-pod.yaml")
}

fn printed(steps: &[&str]) -> Vec<String> {
    kubectl_output(&run(None, steps, |_| {}))
}

#[test]
fn exec_shows_the_files_the_kubelet_wrote() {
    let records = run(
        None,
        &[
            &nginx(),
            "wait 10s",
            "exec nginx -- cat /etc/resolv.conf",
            "exec pod/nginx -- hostname",
            "exec nginx -- cat /etc/hosts",
        ],
        |_| {},
    );
    let out = kubectl_output(&records);
    let pod = final_object(&records, "Pod", "nginx");
    let ip = pod["status"]["podIP"].as_str().expect("a Pod IP");
    assert_eq!(
        out[1..],
        [
            "search default.svc.cluster.local svc.cluster.local cluster.local",
            "nameserver 10.96.0.10",
            "options ndots:5",
            "nginx",
            "# Kubernetes-managed hosts file.",
            "127.0.0.1\tlocalhost",
            "::1\tlocalhost ip6-localhost ip6-loopback",
            "fe00::0\tip6-localnet",
            "fe00::0\tip6-mcastprefix",
            "fe00::1\tip6-allnodes",
            "fe00::2\tip6-allrouters",
            &format!("{ip}\tnginx"),
        ],
        "{out:#?}"
    );
    // The connection is upgraded: 101 Switching Protocols, after the Pod's GET.
    let answers = kubectl_answers(&records);
    assert!(
        answers.contains(&(101, "Switching Protocols".into())),
        "{answers:#?}"
    );
}

#[test]
fn exec_reports_the_exit_code_and_kubelets_refusals() {
    let out = printed(&[
        &nginx(),
        &apply("echo-never-pod.yaml"),
        &apply("flaky-pod.yaml"),
        "wait 10s",
        "exec nginx -- sh -c 'echo half; exit 3'",
        "exec nginx -- frobnicate",
        "exec nginx -c nope -- ls",
        "exec hello -- ls",
        // flaky's second run failed at 7s; it waits out a 10s back-off.
        "exec flaky -- ls",
        "exec ghost -- ls",
    ]);
    let expected = [
        "half",
        "command terminated with exit code 3",
        "OCI runtime exec failed: exec failed: unable to start container process: exec: \"frobnicate\": executable file not found in $PATH: unknown",
        "command terminated with exit code 126",
        "error: container nope is not valid for pod nginx out of: nginx",
        "error: cannot exec into a container in a completed pod; current phase is Succeeded",
        "error: unable to upgrade connection: container not found (\"app\")",
        "Error from server (NotFound): pods \"ghost\" not found",
    ];
    assert_eq!(out[3..], expected, "{out:#?}");
}

#[test]
fn exec_defaults_to_the_first_container_and_sees_its_mounts() {
    let out = printed(&[
        &apply("web-sidecar-pod.yaml"),
        "wait 10s",
        "exec web -- sh -c 'test -d /shared && echo mounted'",
        "exec web -c sidecar -- printenv ROLE",
        // `hostname` is the UTS name, whatever a `HOSTNAME` variable says.
        "exec web -c sidecar -- hostname",
        "exec web -c sidecar -- cat /etc/hosts",
        "exec -it web -- true",
        "exec -q web -- echo quiet",
    ]);
    assert_eq!(
        out[1..5],
        [
            "Defaulted container \"app\" out of: app, sidecar",
            "mounted",
            "sidecar",
            "web-0",
        ],
        "{out:#?}"
    );
    assert!(
        out.iter()
            .any(|l| l.ends_with("\tweb-0.web.default.svc.cluster.local\tweb-0")),
        "{out:#?}"
    );
    assert_eq!(
        out[out.len() - 3..],
        [
            "Defaulted container \"app\" out of: app, sidecar",
            "Unable to use a TTY - input is not a terminal or the right kind of file",
            "quiet",
        ],
        "{out:#?}"
    );
}

/// A user who may read Pods but not `create` `pods/exec` gets the API
/// server's Forbidden; so does one who may not impersonate (`auth can-i --as`).
#[test]
fn exec_and_impersonation_need_their_rbac() {
    let out = kubectl_output(&run(
        Some("rbac-cluster.yaml"),
        &[
            "run web --image=busybox:1.36 -n dev -- sleep 3600",
            "wait 10s",
            "get pod web -n dev -o name --as jane",
            "exec web -n dev --as jane -- hostname",
            "exec web -n dev -- hostname",
            "auth can-i list pods -n dev --as jane",
            "auth can-i create pods/exec -n dev --as jane",
            "auth can-i list pods -n dev --as bob --as-group developers",
        ],
        |_| {},
    ));
    assert_eq!(
        out[1..],
        [
            "pod/web",
            "Error from server (Forbidden): pods \"web\" is forbidden: User \"jane\" cannot create resource \"pods/exec\" in API group \"\" in the namespace \"dev\"",
            "web",
            "yes",
            "no",
            "no",
        ],
        "{out:#?}"
    );
    let jane = kubectl_output(&run(
        Some("rbac-cluster.yaml"),
        &["auth can-i list pods -n dev --as bob"],
        |a| a.token = Some("jane-token".into()),
    ));
    assert_eq!(
        jane,
        [
            "Error from server (Forbidden): users \"bob\" is forbidden: User \"jane\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope"
        ],
    );
}

/// `exec deploy/NAME` and `exec svc/NAME`: the object's GET, the LIST of the
/// Pods its selector picks, and the most active of them
/// (`pkg/polymorphichelpers/attachablepodforobject.go`).
#[test]
fn exec_into_a_workload_runs_in_one_of_its_pods() {
    let records = run(
        None,
        &[
            &apply("web-deployment.yaml"),
            "wait 30s",
            "exec deploy/web -- hostname",
            &apply("web-service.yaml"),
            "exec svc/web -- hostname",
            "exec rs/nope -- ls",
        ],
        |_| {},
    );
    let out = kubectl_output(&records);
    let hosts: Vec<&String> = out.iter().filter(|l| l.starts_with("web-")).collect();
    assert_eq!(hosts.len(), 2, "{out:#?}");
    assert_eq!(hosts[0], hosts[1], "the same, most active Pod: {out:#?}");
    assert_eq!(
        out.last().map(String::as_str),
        Some("Error from server (NotFound): replicasets.apps \"nope\" not found"),
        "{out:#?}"
    );
}

/// A container reaches the internet through `CoreDNS`'s `forward` (the docs'
/// init-container example fetches `http://info.cern.ch`), fails on a
/// special-use name (RFC 6761 `.invalid`) in busybox's words, and a cluster
/// file's `Simulation` `internet: false` cuts it off (`SERVFAIL`); Service
/// names keep resolving either way.
#[test]
fn exec_reaches_the_internet_unless_cut_off() {
    let steps = [
        nginx(),
        "wait 10s".to_owned(),
        "exec nginx -- wget -q -O- http://info.cern.ch".to_owned(),
        "exec nginx -- wget -q -O- http://nothere.invalid".to_owned(),
        "exec nginx -- nslookup kubernetes.default.svc.cluster.local".to_owned(),
    ];
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    let online = kubectl_output(&run(None, &steps, |_| {}));
    assert!(
        !online.iter().any(|l| l.contains("info.cern.ch")),
        "{online:#?}"
    );
    assert!(
        online.contains(&"wget: bad address 'nothere.invalid'".to_owned()),
        "{online:#?}"
    );
    assert!(
        online.contains(&"Address: 10.96.0.1".to_owned()),
        "{online:#?}"
    );
    let offline = kubectl_output(&run(Some("offline-cluster.yaml"), &steps, |_| {}));
    assert!(
        offline.contains(&"wget: bad address 'info.cern.ch'".to_owned()),
        "{offline:#?}"
    );
    assert!(
        offline.contains(&"Address: 10.96.0.1".to_owned()),
        "{offline:#?}"
    );
}
