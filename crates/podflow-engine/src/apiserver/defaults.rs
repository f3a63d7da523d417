//! Defaulting, as the API server applies it when it decodes a request
//! (`pkg/apis/core/v1/defaults.go`, `SetDefaults_Pod`, `SetDefaults_PodSpec`,
//! `SetDefaults_Container`, `SetDefaults_Probe`, `SetDefaults_LimitRangeItem`, ...; `SetDefaults_PriorityClass`).

use k8s_openapi::api::core::v1::{
    Container, EmptyDirVolumeSource, HTTPGetAction, ObjectFieldSelector, PodSecurityContext,
    PodSpec, Probe, Volume,
};

use podflow_model::Object;

mod go_structs;
mod limit_range;

/// The defaults a starting cluster's object of these kinds already had when
/// the API server stored it, before the story: a `PriorityClass`'s
/// `preemptionPolicy`, a `LimitRange`'s defaults (the admission plugins read
/// them). Other kinds of the cluster file are kept as written.
pub fn stored_before(object: &mut Object) {
    if matches!(object, Object::PriorityClass(_) | Object::LimitRange(_)) {
        apply(object);
    }
}

/// Fills in the defaults of `object`'s kind.
pub fn apply(object: &mut Object) {
    super::storage_strategy::apply_defaults(object);
    go_structs::fill(object);
    match object {
        Object::Pod(pod) => {
            if let Some(spec) = pod.spec.as_mut() {
                pod_spec(spec);
                pod_only(spec);
            }
        }
        // `SetDefaults_PriorityClass` (`pkg/apis/scheduling/v1/defaults.go`).
        Object::PriorityClass(pc) => {
            pc.preemption_policy
                .get_or_insert_with(|| "PreemptLowerPriority".into());
        }
        Object::LimitRange(range) => limit_range::limit_range(range),
        Object::Deployment(deployment) => {
            deployment_spec(&mut deployment.spec);
        }
        Object::Job(job) => {
            if let Some(spec) = job.spec.as_mut() {
                job_spec(spec);
            }
        }
        Object::Service(svc) => {
            if let Some(spec) = svc.spec.as_mut() {
                service_spec(spec);
            }
        }
        Object::ReplicaSet(rs) => {
            rs.spec.replicas.get_or_insert(1);
            if let Some(pod) = rs.spec.template.as_mut().and_then(|t| t.spec.as_mut()) {
                pod_spec(pod);
            }
        }
        _ => {}
    }
}

/// `SetDefaults_Job` (`pkg/apis/batch/v1/defaults.go`): one completion and
/// one Pod at a time when neither is set, a back-off limit of 6,
/// `NonIndexed` completion, not suspended, Pods replaced once terminating or
/// failed, and the template's Pod defaults.
fn job_spec(spec: &mut k8s_openapi::api::batch::v1::JobSpec) {
    if spec.completions.is_none() && spec.parallelism.is_none() {
        spec.completions = Some(1);
        spec.parallelism = Some(1);
    }
    spec.parallelism.get_or_insert(1);
    spec.backoff_limit.get_or_insert(6);
    spec.completion_mode
        .get_or_insert_with(|| "NonIndexed".into());
    spec.suspend.get_or_insert(false);
    spec.manual_selector.get_or_insert(false);
    if spec.pod_failure_policy.is_none() {
        spec.pod_replacement_policy
            .get_or_insert_with(|| "TerminatingOrFailed".into());
    }
    if let Some(pod) = spec.template.spec.as_mut() {
        pod_spec(pod);
    }
}

/// `SetDefaults_Service` (`pkg/apis/core/v1/defaults.go`): `ClusterIP`,
/// no session affinity, TCP ports whose `targetPort` is the port, and the
/// traffic policies.
fn service_spec(spec: &mut k8s_openapi::api::core::v1::ServiceSpec) {
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    spec.session_affinity.get_or_insert_with(|| "None".into());
    let service_type = spec.type_.get_or_insert_with(|| "ClusterIP".into()).clone();
    for port in spec.ports.iter_mut().flatten() {
        port.protocol.get_or_insert_with(|| "TCP".into());
        let unset = match &port.target_port {
            None | Some(IntOrString::Int(0)) => true,
            Some(IntOrString::String(s)) => s.is_empty(),
            Some(IntOrString::Int(_)) => false,
        };
        if unset {
            port.target_port = Some(IntOrString::Int(port.port));
        }
    }
    if matches!(service_type.as_str(), "NodePort" | "LoadBalancer") {
        spec.external_traffic_policy
            .get_or_insert_with(|| "Cluster".into());
    }
    if service_type == "LoadBalancer" {
        spec.allocate_load_balancer_node_ports.get_or_insert(true);
    }
    if service_type != "ExternalName" {
        spec.internal_traffic_policy
            .get_or_insert_with(|| "Cluster".into());
    }
}

/// `SetDefaults_Deployment` (`pkg/apis/apps/v1/defaults.go`): one replica,
/// `RollingUpdate` with 25 % surge and 25 % unavailable, ten old `ReplicaSets`
/// kept, a 600 s progress deadline, and the template's Pod defaults.
fn deployment_spec(spec: &mut k8s_openapi::api::apps::v1::DeploymentSpec) {
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    spec.replicas.get_or_insert(1);
    let strategy = spec.strategy.get_or_insert_with(Default::default);
    strategy
        .type_
        .get_or_insert_with(|| "RollingUpdate".to_owned());
    if strategy.type_.as_deref() == Some("RollingUpdate") {
        let rolling = strategy.rolling_update.get_or_insert_with(Default::default);
        rolling
            .max_unavailable
            .get_or_insert_with(|| IntOrString::String("25%".into()));
        rolling
            .max_surge
            .get_or_insert_with(|| IntOrString::String("25%".into()));
    }
    spec.revision_history_limit.get_or_insert(10);
    spec.progress_deadline_seconds.get_or_insert(600);
    if let Some(pod) = spec.template.spec.as_mut() {
        pod_spec(pod);
    }
}

/// `SetDefaults_PodSpec` and the defaults of what a spec holds (containers,
/// ports, probes, handlers, volumes, field selectors): what every Pod
/// template gets, in a Deployment, `ReplicaSet` or Job as in a Pod.
pub fn pod_spec(spec: &mut PodSpec) {
    spec.dns_policy.get_or_insert_with(|| "ClusterFirst".into());
    spec.restart_policy.get_or_insert_with(|| "Always".into());
    spec.security_context
        .get_or_insert_with(PodSecurityContext::default);
    spec.termination_grace_period_seconds.get_or_insert(30);
    spec.scheduler_name
        .get_or_insert_with(|| "default-scheduler".into());
    for container in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten())
    {
        container_defaults(container);
    }
    for volume in spec.volumes.iter_mut().flatten() {
        volume_defaults(volume);
    }
}

/// `SetDefaults_Pod`: what a Pod gets and a Pod template does not (upstream
/// keeps these out of `SetDefaults_PodSpec` on purpose, so that templates do
/// not change): requests defaulted from limits, service links on, and with
/// host networking each container port's `hostPort`.
fn pod_only(spec: &mut PodSpec) {
    spec.enable_service_links.get_or_insert(true);
    let host_network = spec.host_network == Some(true);
    for container in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten())
    {
        if let Some(resources) = container.resources.as_mut()
            && let Some(limits) = resources.limits.as_ref()
        {
            let requests = resources.requests.get_or_insert_with(Default::default);
            for (name, value) in limits {
                requests
                    .entry(name.clone())
                    .or_insert_with(|| value.clone());
            }
        }
        if host_network {
            for port in container.ports.iter_mut().flatten() {
                if port.host_port.unwrap_or(0) == 0 {
                    port.host_port = Some(port.container_port);
                }
            }
        }
    }
}

/// `SetDefaults_Container`, the ports' protocol, the probes, the lifecycle
/// handlers' `httpGet`, and the `fieldRef`s' API version.
fn container_defaults(container: &mut Container) {
    container
        .termination_message_path
        .get_or_insert_with(|| "/dev/termination-log".into());
    container
        .termination_message_policy
        .get_or_insert_with(|| "File".into());
    if container.image_pull_policy.is_none() {
        let image = container.image.as_deref().unwrap_or_default();
        container.image_pull_policy = Some(default_pull_policy(image).into());
    }
    for port in container.ports.iter_mut().flatten() {
        port.protocol.get_or_insert_with(|| "TCP".into());
    }
    for probe in [
        container.liveness_probe.as_mut(),
        container.readiness_probe.as_mut(),
        container.startup_probe.as_mut(),
    ]
    .into_iter()
    .flatten()
    {
        probe_defaults(probe);
    }
    if let Some(lifecycle) = container.lifecycle.as_mut() {
        for handler in [lifecycle.post_start.as_mut(), lifecycle.pre_stop.as_mut()]
            .into_iter()
            .flatten()
        {
            if let Some(http) = handler.http_get.as_mut() {
                http_get_defaults(http);
            }
        }
    }
    for env in container.env.iter_mut().flatten() {
        if let Some(field) = env.value_from.as_mut().and_then(|f| f.field_ref.as_mut()) {
            field_selector_defaults(field);
        }
    }
}

/// `SetDefaults_Volume` (a volume of no kind is an `emptyDir`) and the
/// sources' `defaultMode` 0644 (`SetDefaults_SecretVolumeSource`,
/// `…ConfigMapVolumeSource`, `…DownwardAPIVolumeSource`,
/// `…ProjectedVolumeSource`), a token's hour (`SetDefaults_ServiceAccountTokenProjection`)
/// and a host path's empty type (`SetDefaults_HostPathVolumeSource`).
fn volume_defaults(volume: &mut Volume) {
    let sourceless = Volume {
        name: volume.name.clone(),
        ..Volume::default()
    };
    if *volume == sourceless {
        volume.empty_dir = Some(EmptyDirVolumeSource::default());
    }
    if let Some(secret) = volume.secret.as_mut() {
        secret.default_mode.get_or_insert(0o644);
    }
    if let Some(config_map) = volume.config_map.as_mut() {
        config_map.default_mode.get_or_insert(0o644);
    }
    if let Some(host_path) = volume.host_path.as_mut() {
        host_path.type_.get_or_insert_with(String::new);
    }
    if let Some(downward) = volume.downward_api.as_mut() {
        downward.default_mode.get_or_insert(0o644);
        for item in downward.items.iter_mut().flatten() {
            if let Some(field) = item.field_ref.as_mut() {
                field_selector_defaults(field);
            }
        }
    }
    if let Some(projected) = volume.projected.as_mut() {
        projected.default_mode.get_or_insert(0o644);
        for source in projected.sources.iter_mut().flatten() {
            if let Some(token) = source.service_account_token.as_mut() {
                token.expiration_seconds.get_or_insert(3600);
            }
            let items = source.downward_api.as_mut().and_then(|d| d.items.as_mut());
            for item in items.into_iter().flatten() {
                if let Some(field) = item.field_ref.as_mut() {
                    field_selector_defaults(field);
                }
            }
        }
    }
}

/// `SetDefaults_ObjectFieldSelector`: API version `v1`.
fn field_selector_defaults(field: &mut ObjectFieldSelector) {
    if field.api_version.as_deref().unwrap_or_default().is_empty() {
        field.api_version = Some("v1".into());
    }
}

/// `SetDefaults_HTTPGetAction`: path `/`, scheme `HTTP`.
fn http_get_defaults(http: &mut HTTPGetAction) {
    if http.path.as_deref().unwrap_or_default().is_empty() {
        http.path = Some("/".into());
    }
    http.scheme.get_or_insert_with(|| "HTTP".into());
}

/// `Always` for `:latest` or an untagged image, else `IfNotPresent`.
pub fn default_pull_policy(image: &str) -> &'static str {
    let without_digest = image.split('@').next().unwrap_or_default();
    let last = without_digest.rsplit('/').next().unwrap_or_default();
    match last.split_once(':') {
        Some((_, "latest")) | None if !image.contains('@') => "Always",
        _ => "IfNotPresent",
    }
}

fn probe_defaults(probe: &mut Probe) {
    probe.timeout_seconds.get_or_insert(1);
    probe.period_seconds.get_or_insert(10);
    probe.success_threshold.get_or_insert(1);
    probe.failure_threshold.get_or_insert(3);
    if let Some(http) = probe.http_get.as_mut() {
        http_get_defaults(http);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pull_policy_follows_the_tag() {
        // pkg/apis/core/v1/defaults_test.go, TestSetDefaultsContainer... image pull policy cases.
        assert_eq!(default_pull_policy("nginx"), "Always");
        assert_eq!(default_pull_policy("nginx:latest"), "Always");
        assert_eq!(default_pull_policy("nginx:1.27"), "IfNotPresent");
        assert_eq!(default_pull_policy("localhost:5000/app"), "Always");
        assert_eq!(default_pull_policy("localhost:5000/app:v1"), "IfNotPresent");
        assert_eq!(default_pull_policy("nginx@sha256:abcd"), "IfNotPresent");
    }

    #[test]
    fn pod_spec_defaults() {
        let mut spec: PodSpec = serde_json::from_value(serde_json::json!({
            "containers": [{"name": "a", "image": "nginx:1.27",
                "ports": [{"containerPort": 80}],
                "resources": {"limits": {"cpu": "1"}}}]
        }))
        .unwrap();
        pod_spec(&mut spec);
        let template = serde_json::to_value(&spec).unwrap();
        // A template gets neither requests from limits nor service links.
        assert_eq!(
            template["containers"][0]["resources"]["requests"],
            serde_json::Value::Null
        );
        assert_eq!(template["enableServiceLinks"], serde_json::Value::Null);
        pod_only(&mut spec);
        let value = serde_json::to_value(&spec).unwrap();
        assert_eq!(value["enableServiceLinks"], true);
        assert_eq!(value["restartPolicy"], "Always");
        assert_eq!(value["schedulerName"], "default-scheduler");
        assert_eq!(value["terminationGracePeriodSeconds"], 30);
        assert_eq!(value["containers"][0]["ports"][0]["protocol"], "TCP");
        assert_eq!(value["containers"][0]["resources"]["requests"]["cpu"], "1");
        assert_eq!(value["containers"][0]["imagePullPolicy"], "IfNotPresent");
    }

    #[test]
    fn volume_and_field_selector_defaults() {
        // pkg/apis/core/v1/defaults_test.go: TestSetDefaultVolume (an empty
        // source is an emptyDir), TestSetDefaultDownwardAPIVolumeSource,
        // TestSetDefaultProjectedVolumeSource, TestSetDefaultObjectFieldSelectorAPIVersion.
        let mut spec: PodSpec = serde_json::from_value(serde_json::json!({
            "containers": [{"name": "a", "image": "busybox:1.36",
                "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                "lifecycle": {"preStop": {"httpGet": {"port": 80}}}}],
            "volumes": [
                {"name": "plain"},
                {"name": "info", "downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}},
                {"name": "token", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
                {"name": "host", "hostPath": {"path": "/data"}}
            ]
        }))
        .unwrap();
        pod_spec(&mut spec);
        let v = serde_json::to_value(&spec).unwrap();
        assert_eq!(v["volumes"][0]["emptyDir"], serde_json::json!({}));
        assert_eq!(v["volumes"][1]["downwardAPI"]["defaultMode"], 420);
        assert_eq!(
            v["volumes"][1]["downwardAPI"]["items"][0]["fieldRef"]["apiVersion"],
            "v1"
        );
        assert_eq!(v["volumes"][2]["projected"]["defaultMode"], 420);
        assert_eq!(
            v["volumes"][2]["projected"]["sources"][0]["serviceAccountToken"]["expirationSeconds"],
            3600
        );
        assert_eq!(v["volumes"][3]["hostPath"]["type"], "");
        let container = &v["containers"][0];
        assert_eq!(
            container["env"][0]["valueFrom"]["fieldRef"]["apiVersion"],
            "v1"
        );
        assert_eq!(container["lifecycle"]["preStop"]["httpGet"]["path"], "/");
        assert_eq!(
            container["lifecycle"]["preStop"]["httpGet"]["scheme"],
            "HTTP"
        );
    }
}
