//! Table tests of the narrator: every record kind and stage name in both
//! languages, and a few sentences pinned.

use super::*;
use crate::tui::testing::{find, nginx_timeline, timeline};
use podflow_engine::trace::{
    Actor, AuthenticationDetail, Detail, EventObject, EventRecord, NetworkDetail, Outcome,
    SandboxDetail, Stage, StageName, VolumeDetail, WatchRecord,
};

fn rec(body: Record) -> TraceRecord {
    TraceRecord {
        seq: 0,
        t_ms: 0,
        body,
    }
}

fn stage(component: &str, name: &str, outcome: &str, detail: &str) -> Stage {
    Stage::new(
        Actor::parse(component).expect("an actor"),
        StageName::parse(name).expect("a stage name"),
        Outcome::parse(outcome).expect("an outcome"),
        detail,
    )
    .pod("default/nginx")
    .node("node-3")
}

/// `stage` with a typed detail.
fn typed(mut stage: Stage, detail: impl Into<Detail>) -> Stage {
    stage.detail = detail.into();
    stage
}

fn actor(name: &str) -> Actor {
    Actor::parse(name).expect("an actor")
}

fn msg(from: &str, to: &str, label: &str) -> TraceRecord {
    rec(Record::message(actor(from), actor(to), label))
}

fn log(component: &str, line: &str) -> TraceRecord {
    rec(Record::Log {
        component: actor(component),
        node: None,
        line: line.into(),
    })
}

fn event(reason: &str, message: &str) -> TraceRecord {
    rec(Record::Event(Box::new(EventRecord {
        event_type: "Normal".into(),
        reason: reason.into(),
        message: message.into(),
        object: EventObject {
            kind: "Pod".into(),
            namespace: Some("default".into()),
            name: "nginx".into(),
            field_path: Some("spec.containers{nginx}".into()),
        },
        source: "kubelet".into(),
    })))
}

/// Every stage name of the trace has a sample, so each is narrated in both
/// languages by the test below.
#[test]
fn every_stage_name_has_a_sample() {
    let sampled: std::collections::BTreeSet<StageName> = samples()
        .iter()
        .filter_map(|r| match &r.body {
            Record::Stage(s) => Some(s.stage),
            _ => None,
        })
        .collect();
    let missing: Vec<&StageName> = StageName::ALL
        .iter()
        .filter(|name| !sampled.contains(name))
        .collect();
    assert!(missing.is_empty(), "no sample of {missing:?}");
}

/// One record of every kind, every stage the engine emits, and the message,
/// response, watch, event and log shapes of docs/trace-format.md.
#[expect(clippy::too_many_lines, reason = "one sample of every record shape")]
fn samples() -> Vec<TraceRecord> {
    let api = "kube-apiserver";
    let mut stages = vec![
        typed(
            stage(api, "authentication", "allow", ""),
            AuthenticationDetail {
                user: "jane".into(),
                groups: vec!["developers".into(), "system:authenticated".into()],
                method: "bearer token".into(),
            },
        ),
        typed(
            stage(api, "authentication", "allow", ""),
            AuthenticationDetail {
                user: "kubernetes-admin".into(),
                groups: vec!["system:masters".into(), "system:authenticated".into()],
                method: "x509 client certificate".into(),
            },
        ),
        stage(
            api,
            "authentication",
            "deny",
            "no authenticator recognised the bearer token",
        ),
        stage(api, "authorization", "allow", "").plugin("Node"),
        stage(
            api,
            "authorization",
            "allow",
            r#"RBAC: allowed by ClusterRoleBinding "cluster-admin""#,
        )
        .plugin("RBAC"),
        stage(
            api,
            "authorization",
            "deny",
            r#"User "jane" cannot create resource "pods" in API group "" in the namespace "dev""#,
        )
        .plugin("RBAC"),
        stage(api, "validation", "allow", "Pod is valid"),
        stage(
            api,
            "validation",
            "deny",
            r#"Pod "x" is invalid: spec.containers[0].image: Required value"#,
        ),
        stage(api, "decode", "deny", "strict decoding error"),
        stage(
            "etcd",
            "persist",
            "ok",
            "wrote /registry/pods/default/nginx at revision 59",
        ),
        stage(
            "etcd",
            "persist",
            "skip",
            "/registry/pods/default/nginx unchanged",
        ),
        stage(
            "etcd",
            "persist",
            "deny",
            "/registry/pods/default/nginx already exists",
        ),
        stage(
            "etcd",
            "persist",
            "delete",
            "deleted /registry/pods/default/nginx at revision 60",
        ),
        stage(
            "etcd",
            "compact",
            "ok",
            "history up to revision 60 forgotten",
        ),
        stage("kube-scheduler", "filter", "pass", "").plugin("NodeName"),
        stage(
            "kube-scheduler",
            "filter",
            "fail",
            "node(s) had untolerated taint(s)",
        )
        .plugin("TaintToleration"),
        stage("kube-scheduler", "score", "scored", "97 × 1").plugin("NodeResourcesFit"),
        stage(
            "kube-scheduler",
            "prescore",
            "skip",
            "the pod has no preferred node affinity",
        )
        .plugin("NodeAffinity"),
        stage(
            "kube-scheduler",
            "select",
            "selected",
            "node-3 with total 497 (node-1=497)",
        ),
        stage(
            "kube-scheduler",
            "select",
            "unschedulable",
            "0/4 nodes are available",
        ),
        stage(
            "kube-scheduler",
            "bind",
            "request",
            "binding default/nginx to node-3",
        ),
        typed(
            stage("kubelet/node-3", "volume", "mounted", ""),
            VolumeDetail {
                name: "kube-api-access-qh6ck".into(),
                plugin: "kubernetes.io/projected".into(),
                error: None,
            },
        ),
        typed(
            stage("kubelet/node-3", "sandbox", "ready", ""),
            SandboxDetail {
                id: "12f8adeaeea67".into(),
                ip: "10.244.3.2".into(),
            },
        ),
        stage(
            "kubelet/node-3",
            "pull",
            "present",
            "nginx:1.27 already present",
        ),
        stage(
            "kubelet/node-3",
            "pull",
            "pulled",
            "nginx:1.27 (72044385 bytes) in 2.101s",
        ),
        stage(
            "kubelet/node-3",
            "container",
            "started",
            "nginx (68e74a3414a3d)",
        ),
        stage("kubelet/node-3", "probe", "success", "liveness exec"),
        stage(
            "kube-scheduler",
            "queue",
            "unschedulable",
            "default/data-pod waits among unschedulable pods for a cluster event (attempt 1)",
        ),
        stage(
            "kube-scheduler",
            "prefilter",
            "fail",
            r#"persistentvolumeclaim "data" not found"#,
        )
        .plugin("VolumeBinding"),
        stage(
            "kube-scheduler",
            "postfilter",
            "unschedulable",
            "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
        )
        .plugin("DefaultPreemption"),
        stage("kube-scheduler", "reserve", "pass", "").plugin("VolumeBinding"),
        stage("kube-scheduler", "permit", "pass", "").plugin("VolumeBinding"),
        stage(
            "kube-scheduler",
            "prebind",
            "waiting",
            "default/data-pod: waiting for default/data to be bound",
        )
        .plugin("VolumeBinding"),
        stage(
            "kube-controller-manager",
            "informer",
            "added",
            "pods cache: ADDED default/batch-1 (resourceVersion 78, 1 cached)",
        ),
        stage(
            "kube-controller-manager",
            "queue",
            "added",
            "claim/default/data queued (1 waiting)",
        )
        .plugin("persistent-volume-binder"),
        stage(
            "kube-controller-manager",
            "sync",
            "create",
            "default/flaky: 0 active; creating 1",
        )
        .plugin("job-controller"),
        stage(
            "kubelet/node-1",
            "fault",
            "partitioned",
            "node-1 is cut off from the control plane: its kubelet stops renewing its Lease and posting node status; its containers keep running",
        ),
        stage(
            "kubelet/node-3",
            "status",
            "running",
            "every container created, 1 of 1 running",
        ),
        stage(
            "kubelet/node-3",
            "status",
            "terminated",
            "containers stopped; confirming deletion",
        ),
        stage(
            "kube-proxy/node-3",
            "sync-proxy-rules",
            "write",
            "3 service ports, 2 endpoints, 1 rejected; changed: default/web:http → 2 endpoints",
        ),
        stage(
            "kube-proxy/node-3",
            "connect",
            "dnat",
            "10.96.0.10:80 (default/web:http) → 10.244.1.2:80 via KUBE-SVC-CDGGSHYLG3RE2FKL → KUBE-SEP-PBQ62IOVWGYEN623 (endpoint 1 of 2, round-robin)",
        ),
        stage(
            "kube-proxy/node-3",
            "connect",
            "reject",
            "10.96.0.11:80 (default/myservice has no endpoints) → REJECT: Connection refused",
        ),
        typed(
            stage("cni/node-3", "network", "ok", ""),
            NetworkDetail {
                ip: "10.244.3.2".into(),
                cidr: "10.244.3.0/24".into(),
            },
        ),
    ];
    for phase in ["mutating", "validating"] {
        for (plugin, outcome) in [
            ("ServiceAccount", "mutate"),
            ("NamespaceLifecycle", "allow"),
            ("ResourceQuota", "deny"),
            ("SomeNewPlugin", "allow"),
        ] {
            let mut s = stage(api, "admission", outcome, "detail").plugin(plugin);
            s.phase = Some(phase.into());
            stages.push(s);
        }
    }
    let mut out: Vec<TraceRecord> = stages.into_iter().map(|s| rec(Record::from(s))).collect();
    for label in [
        "GET /api/v1/namespaces/default/pods/nginx",
        "GET /api/v1/namespaces/default/pods",
        "GET /api/v1/pods?watch=true",
        "POST /api/v1/namespaces/default/pods",
        "PATCH /api/v1/namespaces/default/pods/nginx",
        "PUT /api/v1/namespaces/default/pods/nginx",
        "DELETE /api/v1/namespaces/default/pods/nginx",
        "OPTIONS /",
    ] {
        out.push(msg("kubectl", api, label));
    }
    out.extend([
        msg(
            "kube-scheduler",
            api,
            "POST /api/v1/namespaces/default/pods/nginx/binding",
        ),
        msg(
            "kube-scheduler",
            api,
            "PATCH /api/v1/namespaces/default/pods/nginx/status",
        ),
        msg(
            "kubelet/node-3",
            api,
            "PATCH /api/v1/namespaces/default/pods/nginx/status",
        ),
        msg(
            "kubelet/node-3",
            api,
            "DELETE /api/v1/namespaces/default/pods/nginx",
        ),
        msg(api, "etcd", "range /registry/pods/default/nginx"),
        msg(api, "etcd", "txn put /registry/pods/default/nginx"),
        msg(api, "etcd", "delete /registry/pods/default/nginx"),
        msg(api, "etcd", "compact revision 60"),
        msg(api, "etcd", "lease grant"),
        msg("kubelet/node-3", "containerd/node-3", "RunPodSandbox"),
        msg(
            "kubelet/node-3",
            "containerd/node-3",
            "CreateContainer nginx",
        ),
        msg(
            "kubelet/node-3",
            "containerd/node-3",
            "StartContainer 68e74a3414a3d",
        ),
        msg(
            "kubelet/node-3",
            "containerd/node-3",
            "StopContainer nginx (grace 30s)",
        ),
        msg("kubelet/node-3", "containerd/node-3", "StopPodSandbox"),
        msg("kubelet/node-3", "containerd/node-3", "ExecSync"),
        msg(
            "kubectl",
            "kube-apiserver",
            "POST /api/v1/namespaces/default/pods/nginx/exec?command=hostname&container=nginx&stderr=true&stdout=true",
        ),
        msg("containerd/node-3", "cni/node-3", "ADD eth0"),
        msg("cni/node-3", "containerd/node-3", "10.244.3.2"),
        msg(
            "containerd/node-3",
            "kubelet/node-3",
            "sandbox 12f8adeaeea67",
        ),
        msg(
            "containerd/node-3",
            "registry",
            "pull docker.io/library/nginx:1.27",
        ),
        msg(
            "registry",
            "containerd/node-3",
            "docker.io/library/nginx:1.27 (72044385 bytes)",
        ),
    ]);
    for (code, message) in [
        (101, "Switching Protocols"),
        (200, "OK"),
        (201, "Created"),
        (400, "bad"),
        (401, "Unauthorized"),
        (403, "pods is forbidden"),
        (404, r#"pods "nginx" not found"#),
        (409, "conflict"),
        (410, "gone"),
        (422, "invalid"),
        (500, "boom"),
    ] {
        for to in ["kubectl", "kube-scheduler"] {
            out.push(rec(Record::Response {
                to: actor(to),
                code,
                message: message.into(),
                request: podflow_engine::component::RequestId::MIN,
            }));
        }
    }
    for watcher in [
        "kube-scheduler",
        "kubelet/node-3",
        "kube-controller-manager",
    ] {
        for t in ["ADDED", "MODIFIED", "DELETED"] {
            out.push(rec(Record::Watch(Box::new(WatchRecord {
                watcher: actor(watcher),
                event_type: t.into(),
                resource: "pods".into(),
                namespace: Some("default".into()),
                name: "nginx".into(),
                resource_version: "59".into(),
                fields: Vec::new(),
            }))));
        }
    }
    for (reason, message) in [
        ("Scheduled", "Successfully assigned default/nginx to node-3"),
        ("Pulling", r#"Pulling image "nginx:1.27""#),
        (
            "Pulled",
            r#"Successfully pulled image "nginx:1.27" in 2.101s (2.101s including waiting). Image size: 72044385 bytes."#,
        ),
        (
            "Pulled",
            r#"Container image "nginx:1.27" already present on machine and can be accessed by the pod"#,
        ),
        ("Created", "Container created"),
        ("Started", "Container started"),
        ("Killing", "Stopping container nginx"),
        ("FailedScheduling", "0/4 nodes are available"),
        ("BackOff", "Back-off restarting failed container"),
    ] {
        out.push(event(reason, message));
    }
    for line in [
        "pod/nginx created",
        "pod/nginx configured",
        "pod/nginx unchanged",
        r#"pod "nginx" deleted from default namespace"#,
        "deployment.apps/web scaled",
        "node/node-1 cordoned",
        r#"Error from server (Forbidden): error when creating "dev-pod.yaml": pods is forbidden"#,
        r#"The Pod "x" is invalid: spec.containers[0].image: Required value"#,
        "error: the server answered 500",
        "NAME    READY   STATUS    RESTARTS   AGE",
    ] {
        out.push(log("kubectl", line));
    }
    let klog = |loc: &str, rest: &str| format!("I1130 02:20:30.008000    2147 {loc}] {rest}");
    for line in [
        klog(
            "kubelet.go:2407",
            r#""SyncLoop ADD" source="api" pods=["default/nginx"]"#,
        ),
        klog(
            "kubelet.go:2414",
            r#""SyncLoop UPDATE" source="api" pods=["default/nginx"]"#,
        ),
        klog(
            "kubelet.go:2426",
            r#""SyncLoop RECONCILE" source="api" pods=["default/nginx"]"#,
        ),
        klog(
            "kubelet.go:2420",
            r#""SyncLoop DELETE" source="api" pods=["default/nginx"]"#,
        ),
        klog(
            "kubelet.go:2434",
            r#""SyncLoop REMOVE" source="api" pods=["default/nginx"]"#,
        ),
        klog(
            "kuberuntime_manager.go:1079",
            r#""No sandbox for pod can be found. Need to start a new one" pod="default/nginx""#,
        ),
        klog(
            "reconciler_common.go:251",
            r#""operationExecutor.VerifyControllerAttachedVolume started for volume \"kube-api-access-qh6ck\" (UniqueName: \"x\") pod \"nginx\" (UID: \"u\") " pod="default/nginx""#,
        ),
        klog(
            "reconciler_common.go:224",
            r#""operationExecutor.MountVolume started for volume \"kube-api-access-qh6ck\" (UniqueName: \"x\") pod \"nginx\" (UID: \"u\") " pod="default/nginx""#,
        ),
        klog(
            "operation_generator.go:614",
            r#""MountVolume.SetUp succeeded for volume \"kube-api-access-qh6ck\" (UniqueName: \"x\") pod \"nginx\" (UID: \"u\") " pod="default/nginx""#,
        ),
        klog(
            "kubelet.go:2453",
            r#""SyncLoop (PLEG): event for pod" pod="default/nginx" event={"ID":"u","Type":"ContainerStarted","Data":"68e74a3414a3de83bbe9"}"#,
        ),
        klog(
            "pod_startup_latency_tracker.go:104",
            r#""Observed pod startup duration" pod="default/nginx" podStartSLOduration=0.903 podStartE2EDuration="3.004s""#,
        ),
        klog("kubelet.go:1", r#""Something else""#),
        "not klog at all".to_owned(),
    ] {
        out.push(log("kubelet/node-3", &line));
    }
    out.push(log("kube-controller-manager", "I... controller line"));
    out.push(rec(Record::Final { objects: vec![] }));
    out
}

#[test]
fn every_sample_has_a_headline_and_a_body_in_both_languages() {
    for record in samples() {
        for lang in [Lang::En, Lang::Zh] {
            let n = narrate(&record, lang);
            assert!(!n.headline.trim().is_empty(), "{lang:?} {record:?}");
            assert!(
                !n.body.is_empty() && n.body.len() <= 4,
                "{lang:?} {record:?}: {n:?}"
            );
            assert!(n.body.iter().all(|l| !l.trim().is_empty()), "{n:?}");
        }
        // The two languages differ wherever something is taught.
        let (en, zh) = (narrate(&record, Lang::En), narrate(&record, Lang::Zh));
        assert_ne!(en.headline, zh.headline, "{record:?}");
    }
}

#[test]
fn every_record_of_real_runs_narrates() {
    let runs = vec![
        nginx_timeline(),
        timeline(&["delete pod nginx", "wait idle"], None),
        timeline(&["create -f tests/fixtures/typo-pod.yaml"], None),
        timeline(
            &[
                "apply -f assets/manifests/nginx-pod.yaml",
                "wait 10s",
                "exec nginx -- hostname",
            ],
            None,
        ),
    ];
    for t in &runs {
        for record in t.records() {
            for lang in [Lang::En, Lang::Zh] {
                let n = narrate(record, lang);
                assert!(!n.headline.is_empty() && !n.body.is_empty(), "{record:?}");
            }
        }
    }
}

#[test]
fn pinned_sentences() {
    let t = nginx_timeline();
    let at = |needle: &str, lang| narrate(&t.records()[find(&t, needle)], lang);
    let authn = at(
        "authentication → allow: user \"kubernetes-admin\"",
        Lang::En,
    );
    assert_eq!(authn.headline, "The API server checks who you are");
    assert_eq!(
        authn.body[0],
        "Authenticated as user \"kubernetes-admin\" in groups [kubeadm:cluster-admins, system:authenticated], by x509 client certificate."
    );
    let authn_zh = at(
        "authentication → allow: user \"kubernetes-admin\"",
        Lang::Zh,
    );
    assert_eq!(authn_zh.headline, "API Server 验证你的身份");

    let sa = at("(mutating) ServiceAccount", Lang::Zh);
    assert_eq!(sa.headline, "变更准入：ServiceAccount 修改了对象");

    let filter = at("TaintToleration control-plane", Lang::En);
    assert_eq!(
        filter.headline,
        "Filter TaintToleration: control-plane does not fit default/nginx"
    );
    assert_eq!(
        filter.body[0],
        "control-plane is ruled out: node(s) had untolerated taint(s) (UnschedulableAndUnresolvable)."
    );

    let bind = at("bind node-3", Lang::Zh);
    assert_eq!(bind.headline, "调度器把 default/nginx 绑定到 node-3");

    let kubelet = at("kubelet/node-3 ← ADDED", Lang::En);
    assert_eq!(
        kubelet.headline,
        "kubelet/node-3 receives ADDED pods/default/nginx"
    );
    assert!(kubelet.body[1].contains("spec.nodeName"));

    let pleg = at("SyncLoop (PLEG)", Lang::En);
    assert!(
        pleg.body[0]
            .starts_with("The Pod Lifecycle Event Generator relists containerd every second")
    );

    let created = at("201 Created", Lang::En);
    assert_eq!(
        created.headline,
        "The API server answers kubectl: 201 Created"
    );

    let startup = at("Observed pod startup duration", Lang::Zh);
    assert_eq!(startup.headline, "default/nginx 启动耗时 3.004s");
}

#[test]
fn the_controller_managers_stages_are_told_in_both_languages() {
    let cases = [
        ("informer", "added", None, "informer", "informer"),
        (
            "queue",
            "added",
            Some("replicaset-controller"),
            "queues",
            "工作队列",
        ),
        (
            "sync",
            "create",
            Some("replicaset-controller"),
            "syncs",
            "同步",
        ),
        (
            "sync",
            "waiting",
            Some("deployment-controller"),
            "syncs",
            "同步",
        ),
    ];
    for (name, outcome, controller, en, zh) in cases {
        let detail = if outcome == "waiting" {
            "default/web: the cache holds Deployment web at resourceVersion 5; waiting for its own write at 6"
        } else {
            "default/web"
        };
        let mut s = stage("kube-controller-manager", name, outcome, detail);
        s.plugin = controller.map(|c| c.to_owned().into());
        let record = rec(Record::from(s));
        let english = narrate(&record, Lang::En);
        let chinese = narrate(&record, Lang::Zh);
        assert!(english.headline.contains(en), "{english:?}");
        assert!(chinese.headline.contains(zh), "{chinese:?}");
        assert!(!english.body.is_empty() && !chinese.body.is_empty());
        if outcome == "waiting" {
            assert!(english.body.iter().any(|b| b.contains("stale cache")));
        }
    }
}

#[test]
fn every_controller_says_what_its_sync_does_and_what_a_wait_waits_for() {
    for controller in podflow_engine::controllers::client::CONTROLLERS {
        let mut s = stage("kube-controller-manager", "sync", "taint", "node-1");
        s.plugin = Some(controller.to_owned().into());
        let record = rec(Record::from(s));
        for lang in [Lang::En, Lang::Zh] {
            assert!(!narrate(&record, lang).body.is_empty(), "{controller}");
        }
    }
    let waits = [
        (
            "default/web: expecting 3 creation(s) and 0 deletion(s) to be observed first",
            "expectations",
        ),
        (
            "ReplicaSet:default/b: deleting in the foreground; waiting for 1 blocking dependent(s): ReplicaSet:default/a",
            "foregroundDeletion",
        ),
    ];
    for (detail, words) in waits {
        let mut s = stage("kube-controller-manager", "sync", "waiting", detail);
        s.plugin = Some("generic-garbage-collector".into());
        let english = narrate(&rec(Record::from(s)), Lang::En);
        assert!(
            english.body.iter().any(|b| b.contains(words)),
            "{english:?}"
        );
    }
}

/// kube-apiserver's privileged-groups authorizer (`pkg/kubeapiserver/authorizer/config.go`)
/// allows `system:masters` before Node and RBAC; the narration says so.
#[test]
fn a_system_masters_user_is_told_it_skipped_rbac() {
    let s = stage(
        "kube-apiserver",
        "authorization",
        "allow",
        r#"privileged groups: allow (group "system:masters")"#,
    )
    .plugin(podflow_engine::apiserver::authz::PRIVILEGED_GROUPS);
    let told = narrate(&rec(Record::from(s)), Lang::En);
    assert_eq!(
        told.body[0],
        r#"privileged groups: allow (group "system:masters")"#
    );
    assert!(
        told.body[1].contains("before asking Node or RBAC"),
        "{told:?}"
    );
}

/// kubectl sends the file's manifest; a controller sends an object it built.
#[test]
fn a_post_says_whether_it_carries_a_manifest_or_a_built_object() {
    let path = "POST /apis/discovery.k8s.io/v1/namespaces/default/endpointslices";
    let by_kubectl = narrate(&msg("kubectl", "kube-apiserver", path), Lang::En);
    assert!(by_kubectl.body[0].starts_with("The manifest travels"));
    let by_controller = narrate(
        &msg("kube-controller-manager", "kube-apiserver", path),
        Lang::En,
    );
    assert!(by_controller.body[0].starts_with("The object it built travels"));
    let zh = narrate(
        &msg("kube-controller-manager", "kube-apiserver", path),
        Lang::Zh,
    );
    assert!(zh.body[0].starts_with("它自己构造的对象"));
}
