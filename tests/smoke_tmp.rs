use podflow::engine::apiserver::authn::TokenAuthenticator;
use podflow::engine::apiserver::handler::Detail;
use podflow::engine::apiserver::request::{Credentials, UserInfo};
use podflow::engine::engine::{Engine, Setup, Until};
use podflow::engine::kubectl::{Command, Manifest};
use podflow::engine::kubelet::Registry;
use podflow::model::{Object, kinds::kind_of};
use serde_json::json;

#[test]
fn smoke() {
    let node = |name: &str, n: u8| {
        Object::from_json(kind_of("Node"), json!({
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
        "spec": {"podCIDR": format!("10.244.{n}.0/24")},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "addresses": [{"type": "InternalIP", "address": format!("172.18.0.{n}")}]}
    })).unwrap()
    };
    let pod = Object::from_json(
        kind_of("Pod"),
        json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nginx"},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}
        }),
    )
    .unwrap();
    let ns = Object::from_json(
        kind_of("Namespace"),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}),
    )
    .unwrap();
    let mut engine = Engine::new(Setup {
        seed: 1,
        objects: vec![ns, node("node-1", 1), node("node-2", 2)],
        tokens: TokenAuthenticator::default(),
        registry: Registry::default(),
        commands: vec![Command::Apply {
            manifests: vec![Manifest {
                object: pod,
                unknown_fields: vec![],
                source: "pod.yaml".into(),
            }],
            namespace: None,
        }],
        identity: Credentials::Certificate(UserInfo::new("kubernetes-admin", &["system:masters"])),
        detail: Detail::Summary,
    });
    let mut records = engine.run_until(Until::Idle);
    records.push(engine.final_record());
    let mut out = Vec::new();
    podflow::export::text::write(&mut out, &records).unwrap();
    println!("{}", String::from_utf8(out).unwrap());
}
