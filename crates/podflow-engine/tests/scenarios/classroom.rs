//! What a class meets on a real cluster and first missed here: images that
//! do not exist failing as the public registries fail them, the `QoS` class of
//! a Pod `LimitRanger` gave resources to, and the network data of Nodes a
//! cluster file writes bare.

use crate::common::{REPO, TempFile, apply, final_object, kubelet_events, run};

/// A `LimitRange` in `dev` whose defaults give requests below limits.
const LIMITED_DEV: &str = r"
apiVersion: v1
kind: Namespace
metadata: {name: dev}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: default, namespace: dev}
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: dev}
spec:
  limits:
    - type: Container
      defaultRequest: {cpu: 250m, memory: 64Mi}
      default: {cpu: 500m, memory: 128Mi}
";

/// Upstream computes the class in `PrepareForCreate`, after mutating
/// admission (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go`
/// admits before `r.Create`): `LimitRanger`'s defaults make the Pod Burstable
/// (`pkg/apis/core/helper/qos/qos.go`).
#[test]
fn a_pod_given_requests_below_limits_by_limit_ranger_is_burstable() {
    let cluster = TempFile::new("limited-dev", LIMITED_DEV);
    let records = run(None, &[&apply("dev-pod.yaml")], |a| {
        a.cluster = Some(cluster.path());
    });
    let pod = final_object(&records, "Pod", "nginx");
    assert_eq!(
        pod["spec"]["containers"][0]["resources"]["requests"]["cpu"],
        "250m"
    );
    assert_eq!(pod["status"]["qosClass"], "Burstable");
}

/// Nodes written without `podCIDR` or addresses get them, so a Pod on one
/// has a `hostIP` and a Pod IP from its node's range.
#[test]
fn bare_nodes_get_a_pod_cidr_and_an_address() {
    let bare = r#"
apiVersion: v1
kind: Node
metadata:
  name: node-1
  labels: {kubernetes.io/hostname: node-1, kubernetes.io/os: linux}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
"#;
    let cluster = TempFile::new("bare-node", bare);
    let nginx = format!("apply -f {REPO}/assets/manifests/nginx-pod.yaml");
    let records = run(None, &[&nginx], |a| a.cluster = Some(cluster.path()));
    let node = final_object(&records, "Node", "node-1");
    assert_eq!(node["spec"]["podCIDR"], "10.244.0.0/24");
    assert_eq!(node["status"]["addresses"][0]["address"], "172.18.0.2");
    let pod = final_object(&records, "Pod", "nginx");
    assert_eq!(pod["status"]["hostIP"], "172.18.0.2");
    let pod_ip = pod["status"]["podIP"].as_str().unwrap_or_default();
    assert!(pod_ip.starts_with("10.244.0."), "{pod_ip}");
}

/// Pods whose images a student mistyped, next to ones that exist.
const IMAGES: &str = r"
apiVersion: v1
kind: Pod
metadata: {name: typo}
spec: {containers: [{name: web, image: 'ngnix:1.27'}]}
---
apiVersion: v1
kind: Pod
metadata: {name: no-tag}
spec: {containers: [{name: web, image: 'nginx:doesnotexist'}]}
---
apiVersion: v1
kind: Pod
metadata: {name: no-host}
spec: {containers: [{name: web, image: 'registry.invalid/foo:1'}]}
---
apiVersion: v1
kind: Pod
metadata: {name: real}
spec: {containers: [{name: db, image: 'postgres:18'}]}
";

/// With no `Simulation` naming them, the public registries decide: a
/// repository that does not exist is denied, a missing tag is not found, a
/// host that does not resolve is no such host, each in containerd's words
/// and followed by the kubelet's back-off; a real tag pulls.
#[test]
fn mistyped_images_fail_as_on_a_real_cluster() {
    let manifests = TempFile::new("images", IMAGES);
    let records = run(
        None,
        &[&format!("apply -f {}", manifests.path()), "wait 20s"],
        |_| {},
    );
    let failure = |pod: &str| {
        let events = kubelet_events(&records, pod);
        let failed = events
            .iter()
            .find(|(_, _, reason, message)| {
                reason == "Failed" && message.starts_with("Failed to pull")
            })
            .map(|(_, _, _, message)| message.clone());
        let backed_off = events.iter().any(|(_, _, reason, _)| reason == "BackOff");
        (failed.unwrap_or_default(), backed_off)
    };
    let (typo, backed_off) = failure("typo");
    assert!(backed_off, "no back-off for typo");
    assert_eq!(
        typo,
        "Failed to pull image \"ngnix:1.27\": rpc error: code = Unknown desc = failed to pull and unpack image \"docker.io/library/ngnix:1.27\": failed to resolve reference \"docker.io/library/ngnix:1.27\": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed"
    );
    let (no_tag, backed_off) = failure("no-tag");
    assert!(backed_off, "no back-off for no-tag");
    assert!(
        no_tag.ends_with("docker.io/library/nginx:doesnotexist: not found"),
        "{no_tag}"
    );
    let (no_host, backed_off) = failure("no-host");
    assert!(backed_off, "no back-off for no-host");
    assert!(
        no_host.ends_with("dial tcp: lookup registry.invalid on 127.0.0.53:53: no such host"),
        "{no_host}"
    );
    let pod = final_object(&records, "Pod", "no-host");
    assert_eq!(
        pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"],
        "ImagePullBackOff"
    );
    let real = kubelet_events(&records, "real");
    assert!(
        real.iter().any(|(_, _, reason, message)| reason == "Pulled"
            && message.starts_with("Successfully pulled image \"postgres:18\"")),
        "{real:?}"
    );
}
