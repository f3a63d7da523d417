//! What a Pod and a pod template print alike (`pkg/describe/describe.go`):
//! the containers (`describeContainers`, `DescribeProbe`, the environment and
//! the mounts), the volumes (`describeVolumes`), the resources
//! (`describeResources`) and `DescribePodTemplate`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use k8s_openapi::api::core::v1::{
    Container, ContainerState, ContainerStatus, EnvVar, Pod, PodSpec, PodTemplateSpec, Probe,
    ResourceRequirements, TopologySpreadConstraint, Volume,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::sections::{
    LEVEL_0, LEVEL_1, LEVEL_2, LEVEL_3, Writer, format_label_selector, labels, or_none, print_bool,
    quantity, rfc1123z, tolerations,
};
use podflow_model::quantity::{Format, ParsedQuantity};

/// `describeContainers`: `Containers:` (or `Init Containers:`), then each
/// container with its status when `statuses` has one. `pod` resolves the
/// environment's field references (`EnvValueRetriever`); a template has none.
/// `space` is `"  "` inside a pod template.
pub fn describe_containers(
    w: &mut Writer,
    label: &str,
    containers: &[Container],
    statuses: &[ContainerStatus],
    pod: Option<&Pod>,
    space: &str,
) {
    let none = if containers.is_empty() { " <none>" } else { "" };
    w.line(LEVEL_0, &format!("{space}{label}:{none}"));
    for container in containers {
        let status = statuses.iter().find(|s| s.name == container.name);
        basic_info(w, container, status, space);
        command(w, container);
        if let Some(status) = status {
            container_state(w, status);
        }
        if let Some(resources) = &container.resources {
            describe_resources(w, resources, LEVEL_2);
        }
        probes(w, container);
        if container.env_from.as_ref().is_some_and(|e| !e.is_empty()) {
            env_from(w, container);
        }
        env_vars(w, container, pod);
        mounts(w, container);
    }
}

/// `describeContainerBasicInfo`: the name, IDs, image, ports and seccomp profile.
fn basic_info(
    w: &mut Writer,
    container: &Container,
    status: Option<&ContainerStatus>,
    space: &str,
) {
    let name_indent = if space.is_empty() { "" } else { " " };
    w.line(LEVEL_1, &format!("{name_indent}{}:", container.name));
    if let Some(status) = status {
        w.field(
            LEVEL_2,
            "Container ID",
            status.container_id.as_deref().unwrap_or_default(),
        );
    }
    w.field(
        LEVEL_2,
        "Image",
        container.image.as_deref().unwrap_or_default(),
    );
    if let Some(status) = status {
        w.field(LEVEL_2, "Image ID", &status.image_id);
    }
    let ports = container.ports.as_deref().unwrap_or_default();
    let list = |port_of: fn(&k8s_openapi::api::core::v1::ContainerPort) -> i32| {
        ports
            .iter()
            .map(|p| {
                let text = format!(
                    "{}/{}",
                    port_of(p),
                    p.protocol.as_deref().unwrap_or_default()
                );
                match p.name.as_deref().filter(|n| !n.is_empty()) {
                    Some(name) => format!("{text} ({name})"),
                    None => text,
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (one, many, text) in [
        ("Port", "Ports", list(|p| p.container_port)),
        (
            "Host Port",
            "Host Ports",
            list(|p| p.host_port.unwrap_or(0)),
        ),
    ] {
        if text.contains(',') {
            w.field(LEVEL_2, many, &text);
        } else {
            w.field(LEVEL_2, one, or_none(&text));
        }
    }
    if let Some(profile) = container
        .security_context
        .as_ref()
        .and_then(|s| s.seccomp_profile.as_ref())
    {
        w.field(LEVEL_2, "SeccompProfile", &profile.type_);
        if profile.type_ == "Localhost" {
            w.field(
                LEVEL_3,
                "LocalhostProfile",
                profile.localhost_profile.as_deref().unwrap_or_default(),
            );
        }
    }
}

/// `describeContainerCommand`: `Command:` and `Args:`, a line each.
fn command(w: &mut Writer, container: &Container) {
    for (title, words) in [("Command", &container.command), ("Args", &container.args)] {
        let Some(words) = words.as_ref().filter(|w| !w.is_empty()) else {
            continue;
        };
        w.line(LEVEL_2, &format!("{title}:"));
        for word in words {
            for line in word.split('\n') {
                w.line(LEVEL_3, line);
            }
        }
    }
}

/// `describeContainerState`: State, Last State (when it terminated), Ready, Restart Count.
fn container_state(w: &mut Writer, status: &ContainerStatus) {
    describe_status(w, "State", status.state.as_ref());
    if let Some(last) = status
        .last_state
        .as_ref()
        .filter(|s| s.terminated.is_some())
    {
        describe_status(w, "Last State", Some(last));
    }
    w.field(LEVEL_2, "Ready", print_bool(status.ready));
    w.field(LEVEL_2, "Restart Count", status.restart_count);
}

/// `describeStatus`: Running (Started), Waiting (Reason) or Terminated
/// (Reason, Message, Exit Code, Signal, Started, Finished).
fn describe_status(w: &mut Writer, title: &str, state: Option<&ContainerState>) {
    let state = state.cloned().unwrap_or_default();
    if let Some(running) = &state.running {
        w.field(LEVEL_2, title, "Running");
        w.field(LEVEL_3, "Started", rfc1123z(running.started_at.as_ref()));
    } else if let Some(waiting) = &state.waiting {
        w.field(LEVEL_2, title, "Waiting");
        if let Some(reason) = waiting.reason.as_deref().filter(|r| !r.is_empty()) {
            w.field(LEVEL_3, "Reason", reason);
        }
    } else if let Some(terminated) = &state.terminated {
        w.field(LEVEL_2, title, "Terminated");
        if let Some(reason) = terminated.reason.as_deref().filter(|r| !r.is_empty()) {
            w.field(LEVEL_3, "Reason", reason);
        }
        if let Some(message) = terminated.message.as_deref().filter(|m| !m.is_empty()) {
            w.field(LEVEL_3, "Message", message);
        }
        w.field(LEVEL_3, "Exit Code", terminated.exit_code);
        if let Some(signal) = terminated.signal.filter(|s| *s > 0) {
            w.field(LEVEL_3, "Signal", signal);
        }
        w.field(LEVEL_3, "Started", rfc1123z(terminated.started_at.as_ref()));
        w.field(
            LEVEL_3,
            "Finished",
            rfc1123z(terminated.finished_at.as_ref()),
        );
    } else {
        w.field(LEVEL_2, title, "Waiting");
    }
}

/// `describeResources`: `Limits:` and `Requests:`, each resource sorted by name.
pub fn describe_resources(w: &mut Writer, resources: &ResourceRequirements, level: usize) {
    for (title, list) in [
        ("Limits", &resources.limits),
        ("Requests", &resources.requests),
    ] {
        let Some(list) = list.as_ref().filter(|l| !l.is_empty()) else {
            continue;
        };
        w.line(level, &format!("{title}:"));
        for (name, value) in list {
            w.field(level + 1, name, quantity(value));
        }
    }
}

/// `describeContainerProbe`: Liveness, Readiness, Startup.
fn probes(w: &mut Writer, container: &Container) {
    for (title, probe) in [
        ("Liveness", &container.liveness_probe),
        ("Readiness", &container.readiness_probe),
        ("Startup", &container.startup_probe),
    ] {
        if let Some(probe) = probe {
            w.field(LEVEL_2, title, describe_probe(probe));
        }
    }
}

/// `DescribeProbe` as kubectl v1.37 words it:
/// `http-get http://:8080/healthz delay=3s timeout=1s period=3s successThreshold=1 failureThreshold=3`
/// (before v1.37, `#success=1 #failure=3`).
pub fn describe_probe(probe: &Probe) -> String {
    let attrs = format!(
        "delay={}s timeout={}s period={}s successThreshold={} failureThreshold={}",
        probe.initial_delay_seconds.unwrap_or(0),
        probe.timeout_seconds.unwrap_or(0),
        probe.period_seconds.unwrap_or(0),
        probe.success_threshold.unwrap_or(0),
        probe.failure_threshold.unwrap_or(0),
    );
    if let Some(exec) = &probe.exec {
        let command = exec.command.as_deref().unwrap_or_default().join(" ");
        return format!("exec [{command}] {attrs}");
    }
    if let Some(http) = &probe.http_get {
        let scheme = http.scheme.as_deref().unwrap_or_default().to_lowercase();
        let host = join_host_port(
            http.host.as_deref().unwrap_or_default(),
            &int_or_string(&http.port),
        );
        let path = http.path.as_deref().unwrap_or_default();
        // url.URL.String() puts a slash between a host and a relative path.
        let slash = if path.is_empty() || path.starts_with('/') {
            ""
        } else {
            "/"
        };
        let url = if scheme.is_empty() {
            format!("//{host}{slash}{path}")
        } else {
            format!("{scheme}://{host}{slash}{path}")
        };
        return format!("http-get {url} {attrs}");
    }
    if let Some(tcp) = &probe.tcp_socket {
        return format!(
            "tcp-socket {}:{} {attrs}",
            tcp.host.as_deref().unwrap_or_default(),
            int_or_string(&tcp.port)
        );
    }
    if let Some(grpc) = &probe.grpc {
        return format!(
            "grpc <pod>:{} {} {attrs}",
            grpc.port,
            grpc.service.as_deref().unwrap_or_default()
        );
    }
    format!("unknown {attrs}")
}

/// `IntOrString.String()`.
pub fn int_or_string(value: &IntOrString) -> String {
    match value {
        IntOrString::Int(i) => i.to_string(),
        IntOrString::String(s) => s.clone(),
    }
}

/// `net.JoinHostPort`: an IPv6 host in brackets.
pub fn join_host_port(host: &str, port: &str) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// `describeContainerEnvFrom`: `Environment Variables from:`, a source a line.
fn env_from(w: &mut Writer, container: &Container) {
    w.line(LEVEL_2, "Environment Variables from:");
    for source in container.env_from.iter().flatten() {
        let (from, name, optional) = if let Some(c) = &source.config_map_ref {
            ("ConfigMap", c.name.as_str(), c.optional.unwrap_or(false))
        } else if let Some(s) = &source.secret_ref {
            ("Secret", s.name.as_str(), s.optional.unwrap_or(false))
        } else {
            ("", "", false)
        };
        match source.prefix.as_deref().filter(|p| !p.is_empty()) {
            None => w.line(LEVEL_3, &format!("{name}\t{from}\tOptional: {optional}")),
            Some(prefix) => w.line(
                LEVEL_3,
                &format!("{name}\t{from} with prefix '{prefix}'\tOptional: {optional}"),
            ),
        }
    }
}

/// `describeContainerEnvVars`: `Environment:`, each variable's value or where it comes from.
fn env_vars(w: &mut Writer, container: &Container, pod: Option<&Pod>) {
    let env = container.env.as_deref().unwrap_or_default();
    if env.is_empty() {
        w.line(LEVEL_2, "Environment:\t<none>");
        return;
    }
    w.line(LEVEL_2, "Environment:");
    for var in env {
        let Some(from) = &var.value_from else {
            let value = var.value.as_deref().unwrap_or_default();
            for (i, line) in value.split('\n').enumerate() {
                if i == 0 {
                    w.field(LEVEL_3, &var.name, line);
                } else {
                    w.line(LEVEL_3, &format!("\t{line}"));
                }
            }
            continue;
        };
        if let Some(field) = &from.field_ref {
            let value = pod.map(|p| field_value(p, var)).unwrap_or_default();
            w.line(
                LEVEL_3,
                &format!(
                    "{}:\t{value} ({}:{})",
                    var.name,
                    field.api_version.as_deref().unwrap_or_default(),
                    field.field_path
                ),
            );
        } else if let Some(resource) = &from.resource_field_ref {
            let mut value =
                resource_value(container, &resource.resource, resource.divisor.as_ref())
                    .unwrap_or_default();
            if value == "0" && matches!(resource.resource.as_str(), "limits.cpu" | "limits.memory")
            {
                value = "node allocatable".into();
            }
            w.line(
                LEVEL_3,
                &format!("{}:\t{value} ({})", var.name, resource.resource),
            );
        } else if let Some(secret) = &from.secret_key_ref {
            w.line(
                LEVEL_3,
                &format!(
                    "{}:\t<set to the key '{}' in secret '{}'>\tOptional: {}",
                    var.name,
                    secret.key,
                    secret.name,
                    secret.optional.unwrap_or(false)
                ),
            );
        } else if let Some(map) = &from.config_map_key_ref {
            w.line(
                LEVEL_3,
                &format!(
                    "{}:\t<set to the key '{}' of config map '{}'>\tOptional: {}",
                    var.name,
                    map.key,
                    map.name,
                    map.optional.unwrap_or(false)
                ),
            );
        }
    }
}

/// `EnvValueRetriever`: kubectl's scheme converts only `metadata.name` and
/// `metadata.namespace` field labels, so only those resolve; any other field
/// (`status.podIP`) prints empty, as kubectl shows it.
fn field_value(pod: &Pod, var: &EnvVar) -> String {
    let path = var
        .value_from
        .as_ref()
        .and_then(|f| f.field_ref.as_ref())
        .map_or("", |f| f.field_path.as_str());
    match path {
        "metadata.name" => pod.metadata.name.clone().unwrap_or_default(),
        "metadata.namespace" => pod.metadata.namespace.clone().unwrap_or_default(),
        _ => String::new(),
    }
}

/// `ExtractContainerResourceValue`: the container's request or limit over the
/// divisor, rounded up; `None` for a resource it cannot read.
fn resource_value(
    container: &Container,
    resource: &str,
    divisor: Option<&Quantity>,
) -> Option<String> {
    let (list, name) = match resource.split_once('.') {
        Some(("limits", name)) => (container.resources.as_ref()?.limits.as_ref(), name),
        Some(("requests", name)) => (container.resources.as_ref()?.requests.as_ref(), name),
        _ => return None,
    };
    let amount = list
        .and_then(|l| l.get(name))
        .and_then(|q| ParsedQuantity::parse(&q.0).ok())
        .unwrap_or_else(|| ParsedQuantity::from_units(0, Format::DecimalSI));
    let divisor = divisor
        .and_then(|q| ParsedQuantity::parse(&q.0).ok())
        .filter(|d| !d.is_zero())
        .unwrap_or_else(|| ParsedQuantity::from_units(1, Format::DecimalSI));
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    let ceil = |a: i64, b: i64| (a as f64 / b as f64).ceil() as i64;
    match name {
        "cpu" => Some(ceil(amount.milli_value(), divisor.milli_value()).to_string()),
        "memory" | "ephemeral-storage" => Some(ceil(amount.value(), divisor.value()).to_string()),
        name if name.starts_with("hugepages-") => {
            Some(ceil(amount.value(), divisor.value()).to_string())
        }
        _ => None,
    }
}

/// `describeContainerVolumes`: `Mounts:` sorted by path, `path from volume (ro|rw)`.
fn mounts(w: &mut Writer, container: &Container) {
    let mut mounts: Vec<_> = container.volume_mounts.iter().flatten().collect();
    let none = if mounts.is_empty() { "\t<none>" } else { "" };
    w.line(LEVEL_2, &format!("Mounts:{none}"));
    mounts.sort_by(|a, b| a.mount_path.cmp(&b.mount_path));
    for mount in mounts {
        let mut flags = vec![
            if mount.read_only == Some(true) {
                "ro"
            } else {
                "rw"
            }
            .to_owned(),
        ];
        if let Some(sub_path) = mount.sub_path.as_deref().filter(|p| !p.is_empty()) {
            flags.push(format!("path={sub_path:?}"));
        }
        w.line(
            LEVEL_3,
            &format!(
                "{} from {} ({})",
                mount.mount_path,
                mount.name,
                flags.join(",")
            ),
        );
    }
    let mut devices: Vec<_> = container.volume_devices.iter().flatten().collect();
    if !devices.is_empty() {
        w.line(LEVEL_2, "Devices:");
        devices.sort_by(|a, b| a.device_path.cmp(&b.device_path));
        for device in devices {
            w.line(
                LEVEL_3,
                &format!("{} from {}", device.device_path, device.name),
            );
        }
    }
}

/// `describeVolumes`: `Volumes:`, each with its source's type and fields.
/// Mirrored: host path, empty dir, secret, config map, projected, claim,
/// ephemeral (its type line), downward API, NFS, CSI and image; any other
/// source prints as `<unknown>`.
pub fn describe_volumes(w: &mut Writer, volumes: &[Volume], space: &str) {
    if volumes.is_empty() {
        w.line(LEVEL_0, &format!("{space}Volumes:\t<none>"));
        return;
    }
    w.line(LEVEL_0, &format!("{space}Volumes:"));
    let name_indent = if space.is_empty() { "" } else { " " };
    for volume in volumes {
        w.line(LEVEL_1, &format!("{name_indent}{}:", volume.name));
        volume_source(w, volume);
    }
}

/// The `print*VolumeSource` of a volume's source.
fn volume_source(w: &mut Writer, volume: &Volume) {
    if let Some((kind, fields)) = plain_source(volume) {
        w.field(LEVEL_2, "Type", kind);
        for (name, value) in fields {
            w.field(LEVEL_2, name, value);
        }
    } else if let Some(downward) = &volume.downward_api {
        w.field(
            LEVEL_2,
            "Type",
            "DownwardAPI (a volume populated by information about the pod)",
        );
        w.line(LEVEL_2, "Items:");
        for item in downward.items.iter().flatten() {
            if let Some(field) = &item.field_ref {
                w.line(LEVEL_3, &format!("{} -> {}", field.field_path, item.path));
            }
            if let Some(resource) = &item.resource_field_ref {
                w.line(LEVEL_3, &format!("{} -> {}", resource.resource, item.path));
            }
        }
    } else if let Some(projected) = &volume.projected {
        projected_source(w, projected);
    } else if let Some(csi) = &volume.csi {
        w.field(
            LEVEL_2,
            "Type",
            "CSI (a Container Storage Interface (CSI) volume source)",
        );
        w.field(LEVEL_2, "Driver", &csi.driver);
        w.field(
            LEVEL_2,
            "FSType",
            csi.fs_type.as_deref().unwrap_or_default(),
        );
        w.field(LEVEL_2, "ReadOnly", csi.read_only.unwrap_or(false));
        csi_attributes(w, csi.volume_attributes.as_ref());
    } else {
        w.line(LEVEL_1, "<unknown>");
    }
}

/// The sources printed as a `Type:` and fields: their type's words and the fields.
fn plain_source(volume: &Volume) -> Option<(&'static str, Vec<(&'static str, String)>)> {
    let flag = |value: Option<bool>| value.unwrap_or(false).to_string();
    let text = |value: &Option<String>| value.clone().unwrap_or_default();
    if let Some(host_path) = &volume.host_path {
        let kind = or_none(host_path.type_.as_deref().unwrap_or_default()).to_owned();
        return Some((
            "HostPath (bare host directory volume)",
            vec![("Path", host_path.path.clone()), ("HostPathType", kind)],
        ));
    }
    if let Some(empty_dir) = &volume.empty_dir {
        let size_limit = empty_dir
            .size_limit
            .as_ref()
            .filter(|q| ParsedQuantity::parse(&q.0).is_ok_and(|p| p.nanos() > 0))
            .map_or_else(|| "<unset>".to_owned(), quantity);
        return Some((
            "EmptyDir (a temporary directory that shares a pod's lifetime)",
            vec![
                ("Medium", text(&empty_dir.medium)),
                ("SizeLimit", size_limit),
            ],
        ));
    }
    if let Some(secret) = &volume.secret {
        return Some((
            "Secret (a volume populated by a Secret)",
            vec![
                ("SecretName", text(&secret.secret_name)),
                ("Optional", flag(secret.optional)),
            ],
        ));
    }
    if let Some(config_map) = &volume.config_map {
        return Some((
            "ConfigMap (a volume populated by a ConfigMap)",
            vec![
                ("Name", config_map.name.clone()),
                ("Optional", flag(config_map.optional)),
            ],
        ));
    }
    if let Some(claim) = &volume.persistent_volume_claim {
        return Some((
            "PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
            vec![
                ("ClaimName", claim.claim_name.clone()),
                ("ReadOnly", flag(claim.read_only)),
            ],
        ));
    }
    if volume.ephemeral.is_some() {
        return Some((
            "EphemeralVolume (an inline specification for a volume that gets created and deleted with the pod)",
            Vec::new(),
        ));
    }
    if let Some(nfs) = &volume.nfs {
        return Some((
            "NFS (an NFS mount that lasts the lifetime of a pod)",
            vec![
                ("Server", nfs.server.clone()),
                ("Path", nfs.path.clone()),
                ("ReadOnly", flag(nfs.read_only)),
            ],
        ));
    }
    let image = volume.image.as_ref()?;
    Some((
        "Image (a container image or OCI artifact)",
        vec![
            ("Reference", text(&image.reference)),
            ("PullPolicy", text(&image.pull_policy)),
        ],
    ))
}

/// `printProjectedVolumeSource`: the kube-api-access volume's token, CA and namespace.
fn projected_source(w: &mut Writer, projected: &k8s_openapi::api::core::v1::ProjectedVolumeSource) {
    w.field(
        LEVEL_2,
        "Type",
        "Projected (a volume that contains injected data from multiple sources)",
    );
    for source in projected.sources.iter().flatten() {
        if let Some(secret) = &source.secret {
            w.field(LEVEL_2, "SecretName", &secret.name);
            w.field(LEVEL_2, "Optional", secret.optional.unwrap_or(false));
        } else if source.downward_api.is_some() {
            w.field(LEVEL_2, "DownwardAPI", "true");
        } else if let Some(config_map) = &source.config_map {
            w.field(LEVEL_2, "ConfigMapName", &config_map.name);
            w.field(LEVEL_2, "Optional", config_map.optional.unwrap_or(false));
        } else if let Some(token) = &source.service_account_token {
            w.field(
                LEVEL_2,
                "TokenExpirationSeconds",
                token.expiration_seconds.unwrap_or(0),
            );
        }
    }
}

/// `printCSIPersistentVolumeAttributesMultiline`: `VolumeAttributes:\tk=v`, one a line.
fn csi_attributes(w: &mut Writer, attributes: Option<&BTreeMap<String, String>>) {
    w.write(LEVEL_2, "VolumeAttributes:\t");
    let Some(attributes) = attributes.filter(|a| !a.is_empty()) else {
        w.line(LEVEL_0, "<none>");
        return;
    };
    for (i, (key, value)) in attributes.iter().enumerate() {
        if i != 0 {
            w.write(LEVEL_2, "");
            w.write(LEVEL_2, "\t");
        }
        let line = format!("{key}={value}");
        if line.len() > 140 {
            let mut end = 140;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            w.line(LEVEL_2, &format!("{}...", &line[..end]));
        } else {
            w.line(LEVEL_2, &line);
        }
    }
}

/// `describeTopologySpreadConstraints`: sorted by topology key, one a line.
pub fn topology_spread_constraints(
    w: &mut Writer,
    constraints: &[TopologySpreadConstraint],
    space: &str,
) {
    if constraints.is_empty() {
        return;
    }
    let mut sorted: Vec<_> = constraints.iter().collect();
    sorted.sort_by(|a, b| a.topology_key.cmp(&b.topology_key));
    w.write(LEVEL_0, &format!("{space}Topology Spread Constraints:\t"));
    for (i, constraint) in sorted.into_iter().enumerate() {
        if i != 0 {
            w.write(LEVEL_0, &format!("{space}\t"));
        }
        let mut text = format!(
            "{}:{} when max skew {} is exceeded",
            constraint.topology_key, constraint.when_unsatisfiable, constraint.max_skew
        );
        if let Some(selector) = &constraint.label_selector {
            let _ = write!(
                text,
                " for selector {}",
                format_label_selector(Some(selector))
            );
        }
        w.line(LEVEL_0, &text);
    }
}

/// `describeSchedulingGroup`.
pub fn scheduling_group(w: &mut Writer, spec: &PodSpec, space: &str) {
    if let Some(group) = &spec.scheduling_group {
        w.line(LEVEL_0, &format!("{space}SchedulingGroup:"));
        w.field(
            LEVEL_1,
            "PodGroupName",
            group.pod_group_name.as_deref().unwrap_or_default(),
        );
    }
}

/// `DescribePodTemplate`: the template's labels, annotations, service
/// account, containers, volumes, priority class, node selector and tolerations.
pub fn describe_pod_template(w: &mut Writer, template: Option<&PodTemplateSpec>) {
    w.line(LEVEL_0, "Pod Template:");
    let Some(template) = template else {
        w.write(LEVEL_1, "<unset>");
        return;
    };
    let meta = template.metadata.clone().unwrap_or_default();
    let spec = template.spec.clone().unwrap_or_default();
    labels(w, "  Labels", meta.labels.as_ref());
    if meta.annotations.as_ref().is_some_and(|a| !a.is_empty()) {
        super::sections::annotations(w, "  Annotations", meta.annotations.as_ref());
    }
    if let Some(account) = spec
        .service_account_name
        .as_deref()
        .filter(|a| !a.is_empty())
    {
        w.field(LEVEL_1, "Service Account", account);
    }
    let init = spec.init_containers.as_deref().unwrap_or_default();
    if !init.is_empty() {
        describe_containers(w, "Init Containers", init, &[], None, "  ");
    }
    describe_containers(w, "Containers", &spec.containers, &[], None, "  ");
    describe_volumes(w, spec.volumes.as_deref().unwrap_or_default(), "  ");
    topology_spread_constraints(
        w,
        spec.topology_spread_constraints
            .as_deref()
            .unwrap_or_default(),
        "  ",
    );
    if let Some(class) = spec
        .priority_class_name
        .as_deref()
        .filter(|c| !c.is_empty())
    {
        w.field(LEVEL_1, "Priority Class Name", class);
    }
    labels(w, "  Node-Selectors", spec.node_selector.as_ref());
    tolerations(
        w,
        "  Tolerations",
        spec.tolerations.as_deref().unwrap_or_default(),
    );
    scheduling_group(w, &spec, "  ");
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn probe(value: serde_json::Value) -> Probe {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn describe_probe_as_kubectl() {
        // describe_test.go, TestDescribeProbe, in v1.37's words.
        let attrs = json!({"initialDelaySeconds": 3, "timeoutSeconds": 1, "periodSeconds": 3,
            "successThreshold": 1, "failureThreshold": 3});
        let with = |action: serde_json::Value| {
            let mut p = attrs.clone();
            p.as_object_mut()
                .unwrap()
                .extend(action.as_object().unwrap().clone());
            describe_probe(&probe(p))
        };
        let tail = "delay=3s timeout=1s period=3s successThreshold=1 failureThreshold=3";
        assert_eq!(
            with(json!({"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}})),
            format!("http-get http://:8080/healthz {tail}")
        );
        assert_eq!(
            with(json!({"httpGet": {"port": "http", "host": "::1", "scheme": "HTTPS"}})),
            format!("http-get https://[::1]:http {tail}")
        );
        assert_eq!(
            with(json!({"exec": {"command": ["cat", "/tmp/healthy"]}})),
            format!("exec [cat /tmp/healthy] {tail}")
        );
        assert_eq!(
            with(json!({"tcpSocket": {"port": 6379}})),
            format!("tcp-socket :6379 {tail}")
        );
        assert_eq!(
            with(json!({"grpc": {"port": 9000, "service": "health"}})),
            format!("grpc <pod>:9000 health {tail}")
        );
    }

    #[test]
    fn template_containers_are_indented_under_the_template() {
        // DescribePodTemplate of a Deployment's nginx template: kubectl's
        // scheme resolves no `status.podIP`, so the value is empty.
        let template: PodTemplateSpec = serde_json::from_value(json!({
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "env": [{"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}}]}]}
        }))
        .unwrap();
        let mut w = Writer::new();
        describe_pod_template(&mut w, Some(&template));
        assert_eq!(
            w.finish(),
            [
                "Pod Template:",
                "  Labels:  app=web",
                "  Containers:",
                "   nginx:",
                "    Image:      nginx:1.27",
                "    Port:       80/TCP",
                "    Host Port:  0/TCP",
                "    Environment:",
                "      POD_IP:       (v1:status.podIP)",
                "    Mounts:        <none>",
                "  Volumes:         <none>",
                "  Node-Selectors:  <none>",
                "  Tolerations:     <none>",
            ]
        );
    }
}
