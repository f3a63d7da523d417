//! Mirrors `plugin/pkg/admission/noderestriction/admission_test.go`
//! `Test_nodePlugin_Admit`: its case names, with the full messages of the
//! newest `admission.go` (upstream's table matches substrings).

use super::*;
use crate::apiserver::StaticCluster;
use crate::apiserver::admission::testing::{meta, pod};
use crate::apiserver::request::UserInfo;
use k8s_openapi::api::core::v1::{Node, NodeConfigSource, NodeSpec, Taint};
use serde_json::json;

const NS: &str = "ns";

fn user(name: &str) -> UserInfo {
    UserInfo::new(name, &["system:nodes", "system:authenticated"])
}

/// `makeTestPod`: bound to `node` (or unbound), a mirror Pod when `mirror`
/// (annotation and a controller reference to its node).
fn test_pod(name: &str, node: Option<&str>, mirror: bool, extra: &serde_json::Value) -> Object {
    let mut metadata = json!({"name": name, "namespace": NS});
    if mirror {
        metadata["annotations"] = json!({MIRROR_POD_ANNOTATION: "true"});
        let owner = node.unwrap_or("mynode");
        metadata["ownerReferences"] = json!([{
            "apiVersion": "v1", "kind": "Node", "name": owner,
            "uid": format!("{owner}-uid"), "controller": true
        }]);
    }
    let mut spec = json!({"containers": [{"name": "c", "image": "nginx"}]});
    if let Some(node) = node {
        spec["nodeName"] = json!(node);
    }
    if let (Some(extra), Some(spec)) = (extra.as_object(), spec.as_object_mut()) {
        spec.extend(extra.clone());
    }
    pod(json!({"metadata": metadata, "spec": spec}))
}

fn node_obj(name: &str, labels: &[(&str, &str)], taints: &[&str], config: bool) -> Object {
    let mut metadata = meta(None, name);
    metadata.uid = Some(format!("{name}-uid"));
    if !labels.is_empty() {
        metadata.labels = Some(
            labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        );
    }
    Object::Node(Node {
        metadata,
        spec: Some(NodeSpec {
            taints: (!taints.is_empty()).then(|| {
                taints
                    .iter()
                    .map(|k| Taint {
                        key: (*k).to_owned(),
                        effect: "NoSchedule".into(),
                        ..Taint::default()
                    })
                    .collect()
            }),
            config_source: config.then(NodeConfigSource::default),
            ..NodeSpec::default()
        }),
        ..Node::default()
    })
}

struct Case {
    name: &'static str,
    existing: bool,
    operation: Operation,
    subresource: Option<&'static str>,
    object: Object,
    old: Option<Object>,
    want: Option<String>,
}

fn case(
    name: &'static str,
    operation: Operation,
    subresource: Option<&'static str>,
    object: &Object,
    want: Option<&str>,
) -> Case {
    let old = (operation != Operation::Create).then(|| object.clone());
    Case {
        name,
        existing: true,
        operation,
        subresource,
        object: object.clone(),
        old,
        want: want.map(str::to_owned),
    }
}

fn run(case: &Case, who: &UserInfo) {
    let pods = [
        "mymirrorpod",
        "othermirrorpod",
        "unboundmirrorpod",
        "mypod",
        "otherpod",
        "unboundpod",
    ];
    let mut objects = vec![node_obj("mynode", &[], &[], false)];
    if case.existing {
        objects.extend(all_pods().into_iter().filter(|p| pods.contains(&p.name())));
    }
    let cluster = StaticCluster::new(objects);
    let name = case.object.name().to_owned();
    let kind = case.object.kind();
    let req = AdmissionRequest {
        operation: case.operation,
        kind,
        subresource: case.subresource,
        namespace: case.object.namespace(),
        name: &name,
        user: who,
        old: case.old.as_ref(),
        cluster: &cluster,
        attempt: 1,
        retry_ms: 0,
    };
    let mut object = case.object.clone();
    let verdict = NodeRestriction.admit(&req, &mut object, &mut Rng::new(1));
    match (&case.want, verdict) {
        (None, Verdict::Allow) => {}
        (Some(want), Verdict::Deny(status)) => {
            assert_eq!(
                status.message.as_deref(),
                Some(want.as_str()),
                "{}",
                case.name
            );
        }
        (want, got) => panic!("{}: want {want:?}, got {got:?}", case.name),
    }
}

fn all_pods() -> Vec<Object> {
    vec![
        test_pod("mymirrorpod", Some("mynode"), true, &json!({})),
        test_pod("othermirrorpod", Some("othernode"), true, &json!({})),
        test_pod("unboundmirrorpod", None, true, &json!({})),
        test_pod("mypod", Some("mynode"), false, &json!({})),
        test_pod("otherpod", Some("othernode"), false, &json!({})),
        test_pod("unboundpod", None, false, &json!({})),
    ]
}

fn forbidden(name: &str, reason: &str) -> String {
    format!(r#"pods "{name}" is forbidden: {reason}"#)
}

#[test]
#[allow(clippy::too_many_lines)] // one row per upstream case
fn node_plugin_admit_pods() {
    use Operation::{Create, Delete, Update};
    let [
        mymirror,
        othermirror,
        unboundmirror,
        mypod,
        otherpod,
        unboundpod,
    ] = <[Object; 6]>::try_from(all_pods()).unwrap_or_else(|_| unreachable!());
    let update_op = |n: &str| {
        forbidden(
            n,
            r#"unexpected operation "UPDATE", node "mynode" can only create and delete mirror pods"#,
        )
    };
    let create_nodename = |n: &str| {
        forbidden(
            n,
            r#"node "mynode" can only create pods with spec.nodeName set to itself"#,
        )
    };
    let delete_nodename = |n: &str| {
        forbidden(
            n,
            r#"node "mynode" can only delete pods with spec.nodeName set to itself"#,
        )
    };
    let status_nodename = |n: &str| {
        forbidden(
            n,
            r#"node "mynode" can only update pod status for pods with spec.nodeName set to itself"#,
        )
    };
    let evict_nodename = |n: &str| {
        forbidden(
            n,
            "node mynode can only evict pods with spec.nodeName set to itself",
        )
    };
    let not_mirror = |n: &str| {
        forbidden(
            n,
            r#"pod does not have "kubernetes.io/config.mirror" annotation, node "mynode" can only create mirror pods"#,
        )
    };
    let op = |n: &str, o: &str| forbidden(n, &format!("unexpected operation {o:?}"));
    let cases = vec![
        // Mirror pods bound to us
        case(
            "allow creating a mirror pod bound to self",
            Create,
            None,
            &mymirror,
            None,
        ),
        case(
            "forbid update of mirror pod bound to self",
            Update,
            None,
            &mymirror,
            Some(&update_op("mymirrorpod")),
        ),
        case(
            "allow delete of mirror pod bound to self",
            Delete,
            None,
            &mymirror,
            None,
        ),
        case(
            "forbid create of mirror pod status bound to self",
            Create,
            Some("status"),
            &mymirror,
            Some(&op("mymirrorpod", "CREATE")),
        ),
        case(
            "allow update of mirror pod status bound to self",
            Update,
            Some("status"),
            &mymirror,
            None,
        ),
        case(
            "forbid delete of mirror pod status bound to self",
            Delete,
            Some("status"),
            &mymirror,
            Some(&op("mymirrorpod", "DELETE")),
        ),
        case(
            "allow create of eviction for mirror pod bound to self",
            Create,
            Some("eviction"),
            &mymirror,
            None,
        ),
        case(
            "forbid update of eviction for mirror pod bound to self",
            Update,
            Some("eviction"),
            &mymirror,
            Some(&forbidden("mymirrorpod", "unexpected operation UPDATE")),
        ),
        // Mirror pods bound to another node
        case(
            "forbid creating a mirror pod bound to another",
            Create,
            None,
            &othermirror,
            Some(&create_nodename("othermirrorpod")),
        ),
        case(
            "forbid update of mirror pod bound to another",
            Update,
            None,
            &othermirror,
            Some(&update_op("othermirrorpod")),
        ),
        case(
            "forbid delete of mirror pod bound to another",
            Delete,
            None,
            &othermirror,
            Some(&delete_nodename("othermirrorpod")),
        ),
        case(
            "forbid update of mirror pod status bound to another",
            Update,
            Some("status"),
            &othermirror,
            Some(&status_nodename("othermirrorpod")),
        ),
        case(
            "forbid create of eviction for mirror pod bound to another",
            Create,
            Some("eviction"),
            &othermirror,
            Some(&evict_nodename("othermirrorpod")),
        ),
        // Mirror pods not bound to any node
        case(
            "forbid creating a mirror pod unbound",
            Create,
            None,
            &unboundmirror,
            Some(&create_nodename("unboundmirrorpod")),
        ),
        case(
            "forbid delete of mirror pod unbound",
            Delete,
            None,
            &unboundmirror,
            Some(&delete_nodename("unboundmirrorpod")),
        ),
        case(
            "forbid update of mirror pod status unbound",
            Update,
            Some("status"),
            &unboundmirror,
            Some(&status_nodename("unboundmirrorpod")),
        ),
        // Normal pods bound to us
        case(
            "forbid creating a normal pod bound to self",
            Create,
            None,
            &mypod,
            Some(&not_mirror("mypod")),
        ),
        case(
            "forbid update of normal pod bound to self",
            Update,
            None,
            &mypod,
            Some(&update_op("mypod")),
        ),
        case(
            "allow delete of normal pod bound to self",
            Delete,
            None,
            &mypod,
            None,
        ),
        case(
            "allow update of normal pod status bound to self",
            Update,
            Some("status"),
            &mypod,
            None,
        ),
        case(
            "allow create of unnamed eviction for normal pod bound to self",
            Create,
            Some("eviction"),
            &mypod,
            None,
        ),
        // Normal pods bound to another
        case(
            "forbid creating a normal pod bound to another",
            Create,
            None,
            &otherpod,
            Some(&not_mirror("otherpod")),
        ),
        case(
            "forbid delete of normal pod bound to another",
            Delete,
            None,
            &otherpod,
            Some(&delete_nodename("otherpod")),
        ),
        case(
            "forbid update of normal pod status bound to another",
            Update,
            Some("status"),
            &otherpod,
            Some(&status_nodename("otherpod")),
        ),
        case(
            "forbid create of eviction for normal pod bound to another",
            Create,
            Some("eviction"),
            &otherpod,
            Some(&evict_nodename("otherpod")),
        ),
        // Normal pods not bound to any node
        case(
            "forbid creating a normal pod unbound",
            Create,
            None,
            &unboundpod,
            Some(&not_mirror("unboundpod")),
        ),
        case(
            "forbid delete of normal pod unbound",
            Delete,
            None,
            &unboundpod,
            Some(&delete_nodename("unboundpod")),
        ),
        case(
            "forbid update of normal pod status unbound",
            Update,
            Some("status"),
            &unboundpod,
            Some(&status_nodename("unboundpod")),
        ),
        // Resource pods
        case(
            "forbid create of pod referencing service account",
            Create,
            None,
            &test_pod(
                "sapod",
                Some("mynode"),
                true,
                &json!({"serviceAccountName": "foo"}),
            ),
            Some(&forbidden(
                "sapod",
                r#"node "mynode" can not create pods that reference a service account"#,
            )),
        ),
        case(
            "forbid create of pod referencing secret",
            Create,
            None,
            &test_pod(
                "secretpod",
                Some("mynode"),
                true,
                &json!({"volumes": [{"name": "foo", "secret": {"secretName": "foo"}}]}),
            ),
            Some(&forbidden(
                "secretpod",
                r#"node "mynode" can not create pods that reference secrets"#,
            )),
        ),
        case(
            "forbid create of pod referencing configmap",
            Create,
            None,
            &test_pod(
                "configmappod",
                Some("mynode"),
                true,
                &json!({"volumes": [{"name": "foo", "configMap": {"name": "foo"}}]}),
            ),
            Some(&forbidden(
                "configmappod",
                r#"node "mynode" can not create pods that reference configmaps"#,
            )),
        ),
        case(
            "forbid create of pod referencing persistentvolumeclaim",
            Create,
            None,
            &test_pod(
                "pvcpod",
                Some("mynode"),
                true,
                &json!({"volumes": [{"name": "foo", "persistentVolumeClaim": {"claimName": "foo"}}]}),
            ),
            Some(&forbidden(
                "pvcpod",
                r#"node "mynode" can not create pods that reference persistentvolumeclaims"#,
            )),
        ),
        case(
            "forbid create of pod referencing clustertrustbundle",
            Create,
            None,
            &test_pod(
                "ctbpod",
                Some("mynode"),
                true,
                &json!({"volumes": [{"name": "foo", "projected": {"sources": [{"clusterTrustBundle": {"name": "foo", "path": "ca.pem"}}]}}]}),
            ),
            Some(&forbidden(
                "ctbpod",
                r#"node "mynode" can not create pods that reference clustertrustbundles"#,
            )),
        ),
        case(
            "forbid create of pod referencing a secret through env",
            Create,
            None,
            &test_pod(
                "envpod",
                Some("mynode"),
                true,
                &json!({"containers": [{"name": "c", "image": "nginx", "env": [{"name": "X", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]}]}),
            ),
            Some(&forbidden(
                "envpod",
                r#"node "mynode" can not create pods that reference secrets"#,
            )),
        ),
        // Pods/binding and other subresources
        case(
            "forbid a node binding a pod",
            Create,
            Some("binding"),
            &mypod,
            Some(&forbidden(
                "mypod",
                r#"unexpected pod subresource "binding", only 'status' and 'eviction' are allowed"#,
            )),
        ),
    ];
    let me = user("system:node:mynode");
    for case in cases {
        run(&case, &me);
    }

    // Missing pod
    let mut unknown = case(
        "forbid delete of unknown pod",
        Delete,
        None,
        &unboundpod,
        Some("pod \"unboundpod\" not found"),
    );
    unknown.existing = false;
    unknown.old = None;
    run(&unknown, &me);
}

/// Owner references of a mirror Pod (`admitPodCreate`).
#[test]
fn node_plugin_admit_mirror_pod_owners() {
    let me = user("system:node:mynode");
    let owners = |refs: serde_json::Value| {
        let mut p = test_pod("mirror", Some("mynode"), true, &json!({}));
        p.metadata_mut().owner_references = serde_json::from_value(refs).unwrap();
        p
    };
    let owner = |extra: serde_json::Value| {
        let mut o = json!({"apiVersion": "v1", "kind": "Node", "name": "mynode", "uid": "mynode-uid", "controller": true});
        if let (Some(o), Some(extra)) = (o.as_object_mut(), extra.as_object()) {
            o.extend(extra.clone());
        }
        o
    };
    let table = vec![
        (
            owners(json!([])),
            r#"node "mynode" can only create pods with an owner reference set to itself"#,
        ),
        (
            owners(json!([owner(json!({})), owner(json!({}))])),
            r#"node "mynode" can only create pods with a single owner reference set to itself"#,
        ),
        (
            owners(json!([owner(json!({"name": "othernode"}))])),
            r#"node "mynode" can only create pods with an owner reference set to itself"#,
        ),
        (
            owners(json!([owner(json!({"controller": false}))])),
            r#"node "mynode" can only create pods with a controller owner reference set to itself"#,
        ),
        (
            owners(json!([owner(json!({"blockOwnerDeletion": true}))])),
            r#"node "mynode" must not set blockOwnerDeletion on an owner reference"#,
        ),
        (
            owners(json!([owner(json!({"uid": "stale"}))])),
            "node mynode UID mismatch: expected stale got mynode-uid",
        ),
    ];
    for (object, reason) in table {
        let c = case(
            "owner reference",
            Operation::Create,
            None,
            &object,
            Some(&forbidden("mirror", reason)),
        );
        run(&c, &me);
    }
}

/// Label and claim changes through `pods/status` (`admitPodStatus`), and who
/// counts as a node (`nodeidentifier.NodeIdentity`).
#[test]
fn node_plugin_admit_pod_status_and_identity() {
    let me = user("system:node:mynode");
    let mypod = test_pod("mypod", Some("mynode"), false, &json!({}));
    let mut relabelled = mypod.clone();
    relabelled.metadata_mut().labels = Some([("app".to_owned(), "x".to_owned())].into());
    let mut c = case(
        "forbid a node relabelling a pod through status",
        Operation::Update,
        Some("status"),
        &relabelled,
        Some(&forbidden(
            "mypod",
            r#"node "mynode" cannot update labels through pod status"#,
        )),
    );
    c.old = Some(mypod.clone());
    run(&c, &me);

    let mut claimed = mypod.clone();
    if let Object::Pod(p) = &mut claimed {
        p.status = serde_json::from_value(
            json!({"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "gpu-x"}]}),
        )
        .unwrap();
    }
    let mut c = case(
        "forbid a node changing resource claim statuses",
        Operation::Update,
        Some("status"),
        &claimed,
        Some(&forbidden(
            "mypod",
            r#"node "mynode" cannot update resource claim statues"#,
        )),
    );
    c.old = Some(mypod.clone());
    run(&c, &me);

    // Who is a node (`nodeidentifier`).
    let c = case(
        "a user outside system:nodes is not restricted",
        Operation::Create,
        None,
        &mypod,
        None,
    );
    run(
        &c,
        &UserInfo::new("system:node:mynode", &["system:authenticated"]),
    );
    let c = case(
        "an admin is not restricted",
        Operation::Update,
        None,
        &mypod,
        None,
    );
    run(&c, &UserInfo::new("kubernetes-admin", &["system:masters"]));
    let c = case(
        "a node without a name",
        Operation::Update,
        Some("status"),
        &mypod,
        Some(&forbidden(
            "mypod",
            r#"could not determine node from user "system:node:""#,
        )),
    );
    run(&c, &user("system:node:"));
}

#[test]
#[allow(clippy::too_many_lines)] // one row per upstream case
fn node_plugin_admit_nodes() {
    use Operation::{Create, Delete, Update};
    let mynode = node_obj("mynode", &[], &[], false);
    let tainted_a = node_obj("mynode", &[], &["mynode-taint-a"], false);
    let tainted_b = node_obj("mynode", &[], &["mynode-taint-b"], false);
    let config = node_obj("mynode", &[], &[], true);
    let allowed: &[(&str, &str)] = &[
        ("kubernetes.io/hostname", "mynode"),
        ("topology.kubernetes.io/zone", "a"),
        ("node.kubernetes.io/instance-type", "big"),
        ("kubelet.kubernetes.io/foo", "bar"),
        ("foo.node.kubernetes.io/foo", "bar"),
        ("example.com/foo", "bar"),
    ];
    let forbidden_labels: &[(&str, &str)] = &[
        ("node-restriction.kubernetes.io/foo", "bar"),
        ("foo.node-restriction.kubernetes.io/foo", "bar"),
        ("other.kubernetes.io/foo", "bar"),
        ("other.k8s.io/foo", "bar"),
    ];
    let with_allowed = node_obj("mynode", allowed, &[], false);
    let with_forbidden = node_obj("mynode", forbidden_labels, &[], false);
    let all: Vec<(&str, &str)> = allowed.iter().chain(forbidden_labels).copied().collect();
    let with_all = node_obj("mynode", &all, &[], false);
    let other = node_obj("othernode", &[], &[], false);
    let nodes = |n: &str, reason: &str| format!(r#"nodes "{n}" is forbidden: {reason}"#);
    let labels_msg = "is not allowed to modify labels: foo.node-restriction.kubernetes.io/foo, node-restriction.kubernetes.io/foo, other.k8s.io/foo, other.kubernetes.io/foo";
    let taints_msg = r#"node "mynode" is not allowed to modify taints"#;
    let update = |name, new: &Object, old: &Object, want: Option<String>| Case {
        old: Some(old.clone()),
        ..case(name, Update, None, new, want.as_deref())
    };
    let cases = vec![
        // My node object
        case("allow create of my node", Create, None, &mynode, None),
        case(
            "allow create of my node with taints",
            Create,
            None,
            &tainted_a,
            None,
        ),
        case(
            "allow create of my node with labels",
            Create,
            None,
            &with_allowed,
            None,
        ),
        case(
            "forbid create of my node with forbidden labels",
            Create,
            None,
            &with_forbidden,
            Some(&nodes(
                "mynode",
                r#"node "mynode" is not allowed to set the following labels: foo.node-restriction.kubernetes.io/foo, node-restriction.kubernetes.io/foo, other.k8s.io/foo, other.kubernetes.io/foo"#,
            )),
        ),
        case("allow update of my node", Update, None, &mynode, None),
        case("allow delete of my node", Delete, None, &mynode, None),
        case(
            "allow update of my node status",
            Update,
            Some("status"),
            &mynode,
            None,
        ),
        case(
            "forbid create of my node with non-nil configSource",
            Create,
            None,
            &config,
            Some(&nodes(
                "mynode",
                r#"node "mynode" is not allowed to create pods with a non-nil configSource"#,
            )),
        ),
        update(
            "forbid update of my node: nil configSource to new non-nil configSource",
            &config,
            &mynode,
            Some(nodes(
                "mynode",
                r#"node "mynode" is not allowed to update configSource to a new non-nil configSource"#,
            )),
        ),
        update(
            "allow update of my node: non-nil configSource unchanged",
            &config,
            &config,
            None,
        ),
        update(
            "allow update of my node: non-nil configSource to nil configSource",
            &mynode,
            &config,
            None,
        ),
        update(
            "allow update of my node: no change to taints",
            &tainted_a,
            &tainted_a,
            None,
        ),
        update(
            "allow update of my node: add allowed labels",
            &with_allowed,
            &mynode,
            None,
        ),
        update(
            "allow update of my node: remove allowed labels",
            &mynode,
            &with_allowed,
            None,
        ),
        update(
            "allow update of my node: no change to labels",
            &with_all,
            &with_all,
            None,
        ),
        update(
            "allow update of my node: add allowed labels while forbidden labels exist unmodified",
            &with_all,
            &with_forbidden,
            None,
        ),
        update(
            "allow update of my node: remove allowed labels while forbidden labels exist unmodified",
            &with_forbidden,
            &with_all,
            None,
        ),
        update(
            "forbid update of my node: add taints",
            &tainted_a,
            &mynode,
            Some(nodes("mynode", taints_msg)),
        ),
        update(
            "forbid update of my node: remove taints",
            &mynode,
            &tainted_a,
            Some(nodes("mynode", taints_msg)),
        ),
        update(
            "forbid update of my node: change taints",
            &tainted_a,
            &tainted_b,
            Some(nodes("mynode", taints_msg)),
        ),
        update(
            "forbid update of my node: add labels",
            &with_forbidden,
            &mynode,
            Some(nodes("mynode", labels_msg)),
        ),
        update(
            "forbid update of my node: remove labels",
            &mynode,
            &with_forbidden,
            Some(nodes("mynode", labels_msg)),
        ),
        // Other node object
        case(
            "forbid create of other node",
            Create,
            None,
            &other,
            Some(&nodes(
                "othernode",
                r#"node "mynode" is not allowed to modify node "othernode""#,
            )),
        ),
        case(
            "forbid update of other node",
            Update,
            None,
            &other,
            Some(&nodes(
                "othernode",
                r#"node "mynode" is not allowed to modify node "othernode""#,
            )),
        ),
        case(
            "forbid delete of other node",
            Delete,
            None,
            &other,
            Some(&nodes(
                "othernode",
                r#"node "mynode" is not allowed to modify node "othernode""#,
            )),
        ),
        case(
            "forbid update of other node status",
            Update,
            Some("status"),
            &other,
            Some(&nodes(
                "othernode",
                r#"node "mynode" is not allowed to modify node "othernode""#,
            )),
        ),
    ];
    let me = user("system:node:mynode");
    for case in cases {
        run(&case, &me);
    }
    // kubectl cordon: a patch by the admin is not the plugin's business.
    let mut cordoned = other.clone();
    if let Object::Node(n) = &mut cordoned {
        n.spec.get_or_insert_default().unschedulable = Some(true);
    }
    let c = update("allow an admin cordoning any node", &cordoned, &other, None);
    run(&c, &UserInfo::new("kubernetes-admin", &["system:masters"]));
}

#[test]
fn handles_what_its_admit_switches_on() {
    use podflow_model::kinds::kind_of;
    let pods = kind_of("Pod");
    for sub in [None, Some("status"), Some("binding"), Some("eviction")] {
        assert!(NodeRestriction.handles(Operation::Create, pods, sub));
    }
    assert!(NodeRestriction.handles(Operation::Update, kind_of("Node"), Some("status")));
    assert!(NodeRestriction.handles(Operation::Create, kind_of("ServiceAccount"), None));
    assert!(!NodeRestriction.handles(Operation::Create, kind_of("Deployment"), None));
    assert!(!NodeRestriction.handles(Operation::Update, kind_of("ReplicaSet"), Some("scale")));
    assert!(!NodeRestriction.handles(Operation::Create, kind_of("Event"), None));
    assert!(NodeRestriction.mutating() && !NodeRestriction.validating());
}
