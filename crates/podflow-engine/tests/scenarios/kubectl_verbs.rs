//! kubectl's everyday verbs in the cluster language, and what kubectl
//! prints for each: `get` with its columns and `-o`, `-l`, `-A`,
//! `--show-labels`; `logs`; `label` and `annotate`; `run` and `create`;
//! `delete -f`; `set image` and `rollout`; and its words for a verb it does
//! not have.

use crate::common::{REPO, apply, kubectl_output, run};

fn nginx() -> String {
    format!("apply -f {REPO}/assets/manifests/nginx-pod.yaml")
}

/// Runs `steps` on the default cluster and returns what kubectl printed.
fn printed(steps: &[&str]) -> Vec<String> {
    kubectl_output(&run(None, steps, |_| {}))
}

#[test]
fn get_prints_each_kinds_columns() {
    let out = printed(&[
        &apply("web-deployment.yaml"),
        "wait 30s",
        "get deploy",
        "get rs",
        "k get deploy web -o wide",
        "get roles -n kube-system",
    ]);
    let at = |prefix: &str| {
        out.iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line starts with {prefix:?} in {out:#?}"))
    };
    let deploy = at("NAME   READY   UP-TO-DATE   AVAILABLE   AGE");
    assert!(
        out[deploy + 1].starts_with("web    3/3     3            3           "),
        "{out:#?}"
    );
    let rs = at("NAME             DESIRED   CURRENT   READY   AGE");
    assert!(
        out[rs + 1].contains("   3         3         3       "),
        "{out:#?}"
    );
    let wide =
        at("NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES       SELECTOR");
    assert!(
        out[wide + 1].ends_with("nginx        nginx:1.27   app=web"),
        "{out:#?}"
    );
}

#[test]
fn get_prints_what_o_l_a_and_show_labels_ask() {
    let out = printed(&[
        &nginx(),
        "wait 10s",
        "get pods -l app=nginx -o name",
        "get pods -l app=none",
        "get pods -A --show-labels",
        "get pod nginx -o json",
        "get pod nginx -o yaml",
    ]);
    assert!(out.contains(&"pod/nginx".to_owned()), "{out:#?}");
    assert!(out.contains(&"No resources found in default namespace.".to_owned()));
    let header = out
        .iter()
        .find(|l| l.starts_with("NAMESPACE"))
        .expect("a NAMESPACE column");
    assert!(header.ends_with("AGE   LABELS"), "{header}");
    assert!(
        out.iter()
            .any(|l| l.starts_with("default     nginx   1/1     Running")
                && l.ends_with("app=nginx")),
        "{out:#?}"
    );
    // JSON: four spaces, keys sorted; YAML: keys sorted, lists at the key's indentation.
    assert!(
        out.contains(&"    \"apiVersion\": \"v1\",".to_owned()),
        "{out:#?}"
    );
    assert!(out.contains(&"apiVersion: v1".to_owned()) && out.contains(&"kind: Pod".to_owned()));
    assert!(
        out.contains(&"  containers:".to_owned())
            && out.contains(&"  - image: nginx:1.27".to_owned()),
        "{out:#?}"
    );
}

#[test]
fn logs_print_what_the_container_wrote() {
    let out = printed(&[
        &apply("echo-never-pod.yaml"),
        "wait 10s",
        "logs hello",
        "logs hello -c nope",
    ]);
    assert!(out.contains(&"hi".to_owned()), "{out:#?}");
    assert!(
        out.contains(
            &"Error from server (BadRequest): container nope is not valid for pod hello".to_owned()
        ),
        "{out:#?}"
    );
}

/// `pkg/cmd/label/label.go` and `pkg/cmd/annotate/annotate.go`, end to end.
#[test]
fn label_and_annotate_as_kubectl_does() {
    let out = printed(&[
        &nginx(),
        "label pod nginx tier=web",
        "label pod/nginx tier=db",
        "label pod nginx tier=db --overwrite",
        "label pod nginx tier- gone-",
        "annotate pod nginx note=hello",
        "annotate pod nginx note=bye",
        "get pod nginx --show-labels",
    ]);
    let expected = [
        "pod/nginx labeled",
        "error: 'tier' already has a value (web), and --overwrite is false",
        "pod/nginx labeled",
        "label \"gone\" not found.",
        "pod/nginx unlabeled",
        "pod/nginx annotated",
        "error: --overwrite is false but found the following declared annotation(s): 'note' already has a value (hello)",
    ];
    let tail: Vec<&str> = out
        .iter()
        .skip(1)
        .take(expected.len())
        .map(String::as_str)
        .collect();
    assert_eq!(tail, expected, "{out:#?}");
    assert!(
        out.last().is_some_and(|l| l.ends_with("app=nginx")),
        "{out:#?}"
    );
}

#[test]
fn a_verb_kubectl_lacks_is_refused_and_node_failure_is_pointed_to() {
    let e = |line: &str| podflow_engine::command::parse(line).unwrap_err().0;
    assert_eq!(
        e("frobnicate x"),
        r#"error: unknown command "frobnicate" for "kubectl""#
    );
    let shutdown = e("kubectl shutdown node-1");
    assert!(shutdown.starts_with(r#"error: unknown command "shutdown" for "kubectl""#));
    assert!(shutdown.contains("fault node NODE"), "{shutdown}");
    assert_eq!(
        e("get pods -o table"),
        r#"error: unable to match a printer suitable for the output format "table", allowed formats are: json,jsonpath,name,wide,yaml"#
    );
}

/// `run`, `create deployment|namespace|configmap|secret generic` and
/// `delete -f`, with kubectl's lines.
#[test]
fn imperative_creates_and_delete_f() {
    let out = printed(&[
        "run box --image=busybox:1.36 --restart=Never -- sleep 60",
        "create deployment web --image=nginx:1.27 --replicas=2",
        "create namespace team",
        "create configmap settings --from-literal=mode=fast -n team",
        "create secret generic creds --from-literal=password=s3cret -n team",
        "run box --image=busybox:1.36",
        &apply("web-deployment.yaml"),
        &format!("delete -f {REPO}/tests/fixtures/web-deployment.yaml"),
        "get cm -n team",
    ]);
    let expected = [
        "pod/box created",
        "deployment.apps/web created",
        "namespace/team created",
        "configmap/settings created",
        "secret/creds created",
        "Error from server (AlreadyExists): pods \"box\" already exists",
        // `apply.go`'s warning: `create` saved no last-applied configuration.
        "Warning: resource deployments/web is missing the kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.",
        "deployment.apps/web configured",
        "deployment.apps \"web\" deleted from default namespace",
    ];
    let head: Vec<&str> = out
        .iter()
        .take(expected.len())
        .map(String::as_str)
        .collect();
    assert_eq!(head, expected, "{out:#?}");
}

/// `set image`, then `rollout status`, `history`, `undo` and `restart`.
#[test]
fn a_rollout_as_kubectl_drives_and_reports_it() {
    let out = printed(&[
        &apply("web-deployment.yaml"),
        "rollout status deploy/web",
        "set image deploy/web nginx=nginx:1.28",
        "set image deploy/web web=nginx:1.28",
        "rollout status deployment web",
        "rollout history deploy/web",
        "rollout undo deploy/web",
        "rollout status deploy/web",
        "rollout undo deploy/web --to-revision=3",
        "rollout restart deploy/web",
    ]);
    let has = |line: &str| out.iter().any(|l| l == line);
    assert!(
        has(
            "Waiting for deployment \"web\" rollout to finish: 0 of 3 updated replicas are available..."
        ),
        "{out:#?}"
    );
    assert!(
        has("deployment \"web\" successfully rolled out"),
        "{out:#?}"
    );
    assert!(has("deployment.apps/web image updated"), "{out:#?}");
    assert!(
        has("error: unable to find container named \"web\""),
        "{out:#?}"
    );
    let history = out
        .iter()
        .position(|l| l == "deployment.apps/web ")
        .expect("rollout history's first line");
    assert_eq!(
        out[history + 1..history + 4],
        [
            "REVISION  CHANGE-CAUSE",
            "1         <none>",
            "2         <none>"
        ],
        "{out:#?}"
    );
    assert!(has("deployment.apps/web rolled back"), "{out:#?}");
    assert!(
        has("deployment.apps/web skipped rollback (current template already matches revision 3)"),
        "{out:#?}"
    );
    assert!(has("deployment.apps/web restarted"), "{out:#?}");
}

/// `describe` reads the object and what its describer reads beside it (here
/// a Deployment's replica sets, a Node's Pods and Lease) and prints it as
/// `describe.go` does.
#[test]
fn describe_prints_what_kubectl_describe_prints() {
    let out = printed(&[
        &apply("web-deployment.yaml"),
        "wait 30s",
        "describe deploy web",
        "describe node node-1",
        "describe pod nope",
    ]);
    let has = |line: &str| out.iter().any(|l| l == line);
    assert!(has("Name:                   web"), "{out:#?}");
    assert!(
        has(
            "Replicas:               3 desired | 3 updated | 3 total | 3 available | 0 unavailable"
        ),
        "{out:#?}"
    );
    assert!(has("  HolderIdentity:  node-1"), "{out:#?}");
    assert!(
        has("PodCIDR:                      10.244.1.0/24"),
        "{out:#?}"
    );
    assert!(
        has("Error from server (NotFound): pods \"nope\" not found"),
        "{out:#?}"
    );
}

/// `auth can-i` and `auth whoami` as a token user the cluster file's RBAC
/// lets read pods in `dev` only (`pkg/cmd/auth/cani.go`, `whoami.go`).
#[test]
fn auth_can_i_and_whoami_answer_for_the_user() {
    let out = kubectl_output(&run(
        Some("rbac-cluster.yaml"),
        &[
            "auth can-i list pods -n dev",
            "auth can-i list pods",
            "auth can-i create pods -n dev",
            "auth can-i get pods/log -n dev",
            "auth whoami",
        ],
        |a| a.token = Some("jane-token".into()),
    ));
    assert_eq!(out[0], "yes", "{out:#?}");
    assert!(out[1].starts_with("no"), "{out:#?}");
    assert!(out[2].starts_with("no"), "{out:#?}");
    assert!(out[3].starts_with("no"), "{out:#?}");
    assert_eq!(
        out[4..],
        [
            "ATTRIBUTE   VALUE",
            "Username    jane",
            "Groups      [developers system:authenticated]"
        ],
        "{out:#?}"
    );
    let admin = printed(&["k auth can-i create deployments.apps", "auth whoami"]);
    assert_eq!(admin[0], "yes", "{admin:#?}");
    assert_eq!(
        admin[1..3],
        ["ATTRIBUTE   VALUE", "Username    kubernetes-admin"],
        "{admin:#?}"
    );
}

/// `logs -p`: the output of the instance before the running one, which the
/// kubelet keeps when the container restarts; none before the first restart
/// (`pkg/kubelet/kubelet_pods.go`, `validateContainerLogStatus`).
#[test]
fn logs_previous_prints_the_last_terminated_instance() {
    let out = printed(&[
        &apply("flaky-pod.yaml"),
        "wait 2s",
        "logs flaky -p",
        // The first run gave up at 3.5s and was restarted at once.
        "wait 3s",
        "logs flaky",
        "logs flaky --previous",
    ]);
    assert_eq!(
        out[1],
        "Error from server (BadRequest): previous terminated container \"app\" in pod \"flaky\" not found",
        "{out:#?}"
    );
    let started: Vec<&String> = out.iter().filter(|l| l.starts_with("started at")).collect();
    assert_eq!(started.len(), 2, "{out:#?}");
    assert_ne!(
        started[0], started[1],
        "each run says when it started: {out:#?}"
    );
    // The running instance has not given up yet; the previous one has.
    assert_eq!(
        out.last().map(String::as_str),
        Some("giving up"),
        "{out:#?}"
    );
    assert_eq!(
        out.iter().filter(|l| *l == "giving up").count(),
        1,
        "{out:#?}"
    );
}

/// `get -w` (`pkg/cmd/get/get.go`, `watch`): the list's table, then a row
/// for each change the watch delivers, from the list's resourceVersion,
/// until the next command; `wait` does not end it.
#[test]
fn get_w_prints_a_row_for_each_change_until_the_next_command() {
    let records = run(
        None,
        &[&nginx(), "get pods -w", "wait 10s", "get nodes", "wait 10s"],
        |_| {},
    );
    let out = kubectl_output(&records);
    let header = out
        .iter()
        .position(|l| l.starts_with("NAME    READY   STATUS"))
        .expect("the list's header");
    let rows: Vec<&String> = out[header + 1..]
        .iter()
        .take_while(|l| l.starts_with("nginx "))
        .collect();
    assert!(rows.len() >= 3, "{out:#?}");
    assert!(rows[0].contains("Pending"), "{rows:#?}");
    assert!(
        rows.iter().any(|r| r.contains("ContainerCreating")),
        "{rows:#?}"
    );
    assert!(
        rows.last().is_some_and(|r| r.contains("Running")),
        "{rows:#?}"
    );
    assert_eq!(
        out.iter().filter(|l| l.starts_with("NAME ")).count(),
        2,
        "no header for the watch's rows: {out:#?}"
    );
    // The watch is a request of its own, from the list's revision.
    let watch = records.iter().any(|r| {
        matches!(&r.body, podflow_engine::trace::Record::Message { label, .. }
            if label == "GET /api/v1/namespaces/default/pods?watch=true")
    });
    assert!(watch, "kubectl's watch request");
    // After `get nodes`, the nodes' Lease renewals print nothing more.
    let nodes = out
        .iter()
        .position(|l| l.starts_with("NAME            STATUS"))
        .unwrap();
    assert!(
        out[nodes + 1..].iter().all(|l| !l.starts_with("nginx ")),
        "{out:#?}"
    );
}

/// Off a served cluster the API server keeps Events in memory (not in
/// etcd) and answers a LIST of them: `describe` prints them as
/// kubectl's describe does, repeats counted (`x2 over 30s`), and
/// `get events` lists them.
#[test]
fn describe_and_get_events_show_the_events_off_a_served_cluster() {
    let out = printed(&[
        &apply("missing-image-pod.yaml"),
        "wait 30s",
        "describe pod missing",
        "get events",
    ]);
    let events = out
        .iter()
        .position(|l| l == "Events:")
        .unwrap_or_else(|| panic!("{out:#?}"));
    assert!(out[events + 1].starts_with("  Type     Reason"), "{out:#?}");
    assert!(
        out.iter()
            .any(|l| l.starts_with("  Warning  Failed ") && l.contains("(x2 over 30s)")),
        "{out:#?}"
    );
    assert!(
        out.iter()
            .any(|l| l.contains("Successfully assigned default/missing to node-")),
        "{out:#?}"
    );
    assert!(
        out.iter().any(|l| l.starts_with("LAST SEEN   TYPE")),
        "get events: {out:#?}"
    );
}
