//! The objects kubectl's imperative commands build before they POST them:
//! `run` (`pkg/cmd/run/run.go`, `createPod`), `create deployment`
//! (`pkg/cmd/create/create_deployment.go`), `create namespace`,
//! `create configmap` and `create secret generic` with `--from-literal`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::parse::ParseError;
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// What `run NAME --image=IMAGE` was told.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunSpec {
    pub name: String,
    pub image: String,
    /// `--restart`: `Always` (the default), `OnFailure` or `Never`.
    pub restart: String,
    /// `--command`: the words after `--` are the command, not its arguments.
    pub command: bool,
    /// The words after `--`.
    pub args: Vec<String>,
    pub port: Option<i32>,
}

fn object(kind: &str, value: Value) -> Result<Object, ParseError> {
    Object::from_json(kind_of(kind), value).map_err(|e| ParseError(format!("error: {e}")))
}

/// The Pod `run` creates: labelled `run=NAME`, one container named NAME.
pub fn run_pod(spec: &RunSpec) -> Result<Object, ParseError> {
    if !matches!(spec.restart.as_str(), "Always" | "OnFailure" | "Never") {
        return Err(ParseError(format!(
            "error: invalid restart policy: {}, valid values are: Always, OnFailure, Never",
            spec.restart
        )));
    }
    let mut container = json!({"name": spec.name, "image": spec.image});
    if !spec.args.is_empty() {
        let field = if spec.command { "command" } else { "args" };
        container[field] = json!(spec.args);
    }
    if let Some(port) = spec.port {
        container["ports"] = json!([{"containerPort": port}]);
    }
    object(
        "Pod",
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": spec.name, "labels": {"run": spec.name}},
            "spec": {"containers": [container], "dnsPolicy": "ClusterFirst",
                     "restartPolicy": spec.restart},
        }),
    )
}

/// The container name `create deployment` gives an image: its last path
/// segment without tag or digest (`registry.k8s.io/pause:3.10` → `pause`).
fn container_name(image: &str) -> String {
    let last = image.rsplit('/').next().unwrap_or(image);
    let name = last.split([':', '@']).next().unwrap_or(last);
    name.replace(['_', '.'], "-")
}

/// The Deployment `create deployment NAME --image=…` creates: labelled and
/// selected by `app=NAME`, one container per image.
pub fn deployment(
    name: &str,
    images: &[String],
    replicas: i32,
    port: Option<i32>,
) -> Result<Object, ParseError> {
    let mut containers: Vec<Value> = images
        .iter()
        .map(|image| json!({"name": container_name(image), "image": image}))
        .collect();
    if let (Some(port), Some(first)) = (port, containers.first_mut()) {
        first["ports"] = json!([{"containerPort": port}]);
    }
    object(
        "Deployment",
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "labels": {"app": name}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": containers}}},
        }),
    )
}

/// `create namespace NAME`.
pub fn namespace(name: &str) -> Result<Object, ParseError> {
    object(
        "Namespace",
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}),
    )
}

/// `--from-literal=KEY=VALUE` pairs, as kubectl reads them.
pub fn literals(sources: &[String]) -> Result<BTreeMap<String, String>, ParseError> {
    let mut data = BTreeMap::new();
    for source in sources {
        let Some((key, value)) = source.split_once('=').filter(|(k, _)| !k.is_empty()) else {
            return Err(ParseError(format!(
                "error: invalid literal source {source}, expected key=value"
            )));
        };
        data.insert(key.to_owned(), value.to_owned());
    }
    Ok(data)
}

/// `create configmap NAME --from-literal=…`.
pub fn config_map(name: &str, data: &BTreeMap<String, String>) -> Result<Object, ParseError> {
    object(
        "ConfigMap",
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}),
    )
}

/// `create secret generic NAME --from-literal=…`: an `Opaque` Secret whose
/// values are sent as `data` (base64 on the wire).
pub fn generic_secret(name: &str, data: &BTreeMap<String, String>) -> Object {
    Object::Secret(k8s_openapi::api::core::v1::Secret {
        metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            name: Some(name.to_owned()),
            ..Default::default()
        },
        type_: Some("Opaque".into()),
        data: Some(
            data.iter()
                .map(|(k, v)| (k.clone(), k8s_openapi::ByteString(v.clone().into_bytes())))
                .collect(),
        ),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_builds_kubectls_pod() {
        let spec = RunSpec {
            name: "box".into(),
            image: "busybox:1.36".into(),
            restart: "Never".into(),
            args: vec!["sleep".into(), "60".into()],
            ..RunSpec::default()
        };
        let pod = run_pod(&spec).unwrap().to_json();
        assert_eq!(pod["metadata"]["labels"]["run"], "box");
        assert_eq!(pod["spec"]["containers"][0]["args"], json!(["sleep", "60"]));
        assert_eq!(pod["spec"]["restartPolicy"], "Never");
        let bad = RunSpec {
            restart: "Sometimes".into(),
            ..spec
        };
        assert_eq!(
            run_pod(&bad).unwrap_err().0,
            "error: invalid restart policy: Sometimes, valid values are: Always, OnFailure, Never"
        );
    }

    #[test]
    fn create_deployment_names_containers_after_their_images() {
        assert_eq!(container_name("registry.k8s.io/pause:3.10"), "pause");
        assert_eq!(container_name("nginx@sha256:abc"), "nginx");
        let web = deployment("web", &["nginx:1.27".into()], 2, Some(80))
            .unwrap()
            .to_json();
        assert_eq!(web["spec"]["selector"]["matchLabels"]["app"], "web");
        assert_eq!(
            web["spec"]["template"]["spec"]["containers"][0]["name"],
            "nginx"
        );
        assert_eq!(
            web["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"],
            80
        );
    }

    #[test]
    fn literals_need_a_key_and_a_value() {
        assert_eq!(
            literals(&["a=1".into(), "b=x=y".into()]).unwrap(),
            [
                ("a".to_owned(), "1".to_owned()),
                ("b".to_owned(), "x=y".to_owned())
            ]
            .into()
        );
        assert_eq!(
            literals(&["nokey".into()]).unwrap_err().0,
            "error: invalid literal source nokey, expected key=value"
        );
    }
}
