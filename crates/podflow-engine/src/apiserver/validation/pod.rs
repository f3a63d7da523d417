//! Pod and `PodSpec` validation, after `pkg/apis/core/validation/validation.go`
//! (`ValidatePodCreate`, `validatePodMetadataAndSpec`, `ValidatePodSpec`,
//! `ValidateVolumes`, `validateContainers`, `validateInitContainers`,
//! `validateContainerCommon`, `validateContainerPorts`, `ValidateEnv`,
//! `ValidateVolumeMounts`, `validatePullPolicy`, `validateResourceRequirements`,
//! probes, `validateRestartPolicy`, `validateDNSPolicy`), in upstream's order.
//!
//! Validation runs on the defaulted object upstream, so a field the defaulter
//! fills (`restartPolicy`, `dnsPolicy`, `imagePullPolicy`, `protocol`,
//! `terminationGracePeriodSeconds`, probe thresholds) is taken as defaulted
//! when absent or empty rather than reported as required.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Container, PodSpec, Probe, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::field::{
    IS_NEGATIVE, duplicate, forbidden, inclusive_range, invalid, invalid_raw, nonnegative,
    not_found, not_supported, required,
};
use super::names::{
    dns1123_label, name_is_dns_subdomain, port_name, qualified_name, relaxed_env_var_name,
    validate_labels,
};
use podflow_model::quantity::{ParsedQuantity, parse_k8s};
use podflow_model::status::FieldError;

/// `ValidatePodSpec`, at `path` (`spec` or `spec.template.spec`).
pub fn validate_pod_spec(spec: &PodSpec, path: &str, errs: &mut Vec<FieldError>) {
    let volumes = validate_volumes(spec, path, errs);
    validate_containers(spec, &volumes, &format!("{path}.containers"), errs);
    validate_init_containers(spec, &volumes, &format!("{path}.initContainers"), errs);
    if let Some(p) = spec.restart_policy.as_deref()
        && !p.is_empty()
        && !matches!(p, "Always" | "OnFailure" | "Never")
    {
        errs.push(not_supported(
            &format!("{path}.restartPolicy"),
            p,
            &["Always", "OnFailure", "Never"],
        ));
    }
    if let Some(p) = spec.dns_policy.as_deref()
        && !p.is_empty()
        && !matches!(
            p,
            "ClusterFirstWithHostNet" | "ClusterFirst" | "Default" | "None"
        )
    {
        errs.push(not_supported(
            &format!("{path}.dnsPolicy"),
            p,
            &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
        ));
    }
    if let Some(sel) = &spec.node_selector {
        validate_labels(sel, &format!("{path}.nodeSelector"), errs);
    }
    let named = [
        ("serviceAccountName", spec.service_account_name.as_deref()),
        ("nodeName", spec.node_name.as_deref()),
    ];
    for (field, value) in named {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            let p = format!("{path}.{field}");
            errs.extend(
                name_is_dns_subdomain(v, false)
                    .iter()
                    .map(|m| invalid(&p, v, m)),
            );
        }
    }
    if let Some(v) = spec.active_deadline_seconds
        && !(1..=i64::from(i32::MAX)).contains(&v)
    {
        let p = format!("{path}.activeDeadlineSeconds");
        errs.push(invalid_raw(
            &p,
            &v.to_string(),
            &inclusive_range(1, i64::from(i32::MAX)),
        ));
    }
    for (field, value) in [
        ("hostname", spec.hostname.as_deref()),
        ("subdomain", spec.subdomain.as_deref()),
    ] {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            let p = format!("{path}.{field}");
            errs.extend(dns1123_label(v).iter().map(|m| invalid(&p, v, m)));
        }
    }
    if let Some(v) = spec
        .priority_class_name
        .as_deref()
        .filter(|v| !v.is_empty())
    {
        let p = format!("{path}.priorityClassName");
        errs.extend(
            name_is_dns_subdomain(v, false)
                .iter()
                .map(|m| invalid(&p, v, m)),
        );
    }
}

/// `validateContainersOnlyForPod`: images may not carry white space around them.
pub fn validate_containers_only_for_pod(spec: &PodSpec, errs: &mut Vec<FieldError>) {
    let none = Vec::new();
    let lists = [
        ("spec.containers", &spec.containers),
        (
            "spec.initContainers",
            spec.init_containers.as_ref().unwrap_or(&none),
        ),
    ];
    for (path, containers) in lists {
        for (i, c) in containers.iter().enumerate() {
            if let Some(image) = c.image.as_deref()
                && image.trim() != image
            {
                errs.push(invalid(
                    &format!("{path}[{i}].image"),
                    image,
                    "must not have leading or trailing whitespace",
                ));
            }
        }
    }
}

/// The extra checks of `ValidatePodCreate` after the spec.
pub fn validate_pod_create_extras(spec: &PodSpec, errs: &mut Vec<FieldError>) {
    if spec
        .ephemeral_containers
        .as_ref()
        .is_some_and(|e| !e.is_empty())
    {
        errs.push(forbidden(
            "spec.ephemeralContainers",
            "cannot be set on create",
        ));
    }
    if spec.node_name.as_deref().is_some_and(|n| !n.is_empty())
        && spec
            .scheduling_gates
            .as_ref()
            .is_some_and(|g| !g.is_empty())
    {
        errs.push(forbidden(
            "spec.nodeName",
            "cannot be set until all schedulingGates have been cleared",
        ));
    }
}

/// `ValidateVolumes`: names required, DNS-1123 labels, unique. Returns the valid names.
fn validate_volumes(spec: &PodSpec, path: &str, errs: &mut Vec<FieldError>) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (i, vol) in spec.volumes.iter().flatten().enumerate() {
        let name_path = format!("{path}.volumes[{i}].name");
        let mut el = Vec::new();
        if let Some(hp) = &vol.host_path
            && hp.path.is_empty()
        {
            el.push(required(&format!("{path}.volumes[{i}].hostPath.path"), ""));
        }
        if vol.name.is_empty() {
            el.push(required(&name_path, ""));
        } else {
            el.extend(
                dns1123_label(&vol.name)
                    .iter()
                    .map(|m| invalid(&name_path, &vol.name, m)),
            );
        }
        if names.contains(&vol.name) {
            el.push(duplicate(&name_path, &vol.name));
        }
        if el.is_empty() {
            names.insert(vol.name.clone());
        } else {
            errs.extend(el);
        }
    }
    names
}

fn validate_containers(
    spec: &PodSpec,
    volumes: &BTreeSet<String>,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    if spec.containers.is_empty() {
        errs.push(required(path, ""));
        return;
    }
    let mut names = BTreeSet::new();
    for (i, c) in spec.containers.iter().enumerate() {
        let p = format!("{path}[{i}]");
        validate_container_common(c, volumes, &p, errs);
        if !names.insert(c.name.clone()) {
            errs.push(duplicate(&format!("{p}.name"), &c.name));
        }
        validate_probes(c, &p, errs);
        if c.restart_policy.is_some() {
            errs.push(forbidden(
                &format!("{p}.restartPolicy"),
                "may not be set for non-init containers",
            ));
        }
    }
    host_port_conflicts(&spec.containers, path, errs);
}

/// The liveness, readiness and startup probes of one container at `path`.
fn validate_probes(c: &Container, path: &str, errs: &mut Vec<FieldError>) {
    validate_probe(
        c.liveness_probe.as_ref(),
        &format!("{path}.livenessProbe"),
        true,
        errs,
    );
    validate_probe(
        c.readiness_probe.as_ref(),
        &format!("{path}.readinessProbe"),
        false,
        errs,
    );
    validate_probe(
        c.startup_probe.as_ref(),
        &format!("{path}.startupProbe"),
        true,
        errs,
    );
}

fn validate_init_containers(
    spec: &PodSpec,
    volumes: &BTreeSet<String>,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    let mut names: BTreeSet<String> = spec.containers.iter().map(|c| c.name.clone()).collect();
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        let p = format!("{path}[{i}]");
        validate_container_common(c, volumes, &p, errs);
        let mut restart_always = false;
        if let Some(rp) = c.restart_policy.as_deref() {
            if rp == "Always" {
                restart_always = true;
            } else {
                errs.push(not_supported(
                    &format!("{p}.restartPolicy"),
                    rp,
                    &["Always"],
                ));
            }
        }
        if names.contains(&c.name) {
            errs.push(duplicate(&format!("{p}.name"), &c.name));
        } else if !c.name.is_empty() {
            names.insert(c.name.clone());
        }
        host_port_conflicts(std::slice::from_ref(c), path, errs);
        if restart_always {
            validate_probes(c, &p, errs);
        } else {
            let why = "may not be set for init containers without restartPolicy=Always";
            if c.lifecycle.is_some() {
                errs.push(forbidden(&format!("{p}.lifecycle"), why));
            }
            for (field, probe) in [
                ("livenessProbe", &c.liveness_probe),
                ("readinessProbe", &c.readiness_probe),
                ("startupProbe", &c.startup_probe),
            ] {
                if probe.is_some() {
                    errs.push(forbidden(&format!("{p}.{field}"), why));
                }
            }
        }
    }
}

/// `validateContainerCommon`.
fn validate_container_common(
    c: &Container,
    volumes: &BTreeSet<String>,
    p: &str,
    errs: &mut Vec<FieldError>,
) {
    let name_path = format!("{p}.name");
    if c.name.is_empty() {
        errs.push(required(&name_path, ""));
    } else {
        errs.extend(
            dns1123_label(&c.name)
                .iter()
                .map(|m| invalid(&name_path, &c.name, m)),
        );
    }
    if c.image.as_deref().unwrap_or_default().is_empty() {
        errs.push(required(&format!("{p}.image"), ""));
    }
    if let Some(t) = c.termination_message_policy.as_deref()
        && !t.is_empty()
        && !matches!(t, "File" | "FallbackToLogsOnError")
    {
        errs.push(not_supported(
            &format!("{p}.terminationMessagePolicy"),
            t,
            &["File", "FallbackToLogsOnError"],
        ));
    }
    validate_ports(c, &format!("{p}.ports"), errs);
    validate_env(c, &format!("{p}.env"), errs);
    validate_volume_mounts(c, volumes, &format!("{p}.volumeMounts"), errs);
    if let Some(pp) = c.image_pull_policy.as_deref()
        && !pp.is_empty()
        && !matches!(pp, "Always" | "IfNotPresent" | "Never")
    {
        errs.push(not_supported(
            &format!("{p}.imagePullPolicy"),
            pp,
            &["Always", "IfNotPresent", "Never"],
        ));
    }
    if let Some(r) = &c.resources {
        validate_resources(r, &format!("{p}.resources"), errs);
    }
}

/// `validateContainerPorts`.
fn validate_ports(c: &Container, path: &str, errs: &mut Vec<FieldError>) {
    let mut names = BTreeSet::new();
    for (i, port) in c.ports.iter().flatten().enumerate() {
        let p = format!("{path}[{i}]");
        if let Some(name) = port.name.as_deref().filter(|n| !n.is_empty()) {
            let msgs = port_name(name);
            if !msgs.is_empty() {
                errs.extend(msgs.iter().map(|m| invalid(&format!("{p}.name"), name, m)));
            } else if !names.insert(name.to_owned()) {
                errs.push(duplicate(&format!("{p}.name"), name));
            }
        }
        if port.container_port == 0 {
            errs.push(required(&format!("{p}.containerPort"), ""));
        } else if !(1..=65535).contains(&port.container_port) {
            let v = port.container_port.to_string();
            errs.push(invalid_raw(
                &format!("{p}.containerPort"),
                &v,
                &inclusive_range(1, 65535),
            ));
        }
        if let Some(hp) = port.host_port
            && hp != 0
            && !(1..=65535).contains(&hp)
        {
            errs.push(invalid_raw(
                &format!("{p}.hostPort"),
                &hp.to_string(),
                &inclusive_range(1, 65535),
            ));
        }
        if let Some(proto) = port.protocol.as_deref()
            && !proto.is_empty()
            && !matches!(proto, "SCTP" | "TCP" | "UDP")
        {
            errs.push(not_supported(
                &format!("{p}.protocol"),
                proto,
                &["SCTP", "TCP", "UDP"],
            ));
        }
    }
}

/// `AccumulateUniqueHostPorts`: `Duplicate value: "TCP//8080"`.
fn host_port_conflicts(containers: &[Container], path: &str, errs: &mut Vec<FieldError>) {
    let mut seen = BTreeSet::new();
    for (ci, c) in containers.iter().enumerate() {
        for (pi, port) in c.ports.iter().flatten().enumerate() {
            let Some(hp) = port.host_port.filter(|&h| h != 0) else {
                continue;
            };
            let key = format!(
                "{}/{}/{hp}",
                port.protocol.as_deref().unwrap_or("TCP"),
                port.host_ip.as_deref().unwrap_or_default()
            );
            if !seen.insert(key.clone()) {
                errs.push(duplicate(
                    &format!("{path}[{ci}].ports[{pi}].hostPort"),
                    &key,
                ));
            }
        }
    }
}

/// `ValidateEnv` (names only, with the relaxed rule) and `validateEnvVarValueFrom`'s counts.
fn validate_env(c: &Container, path: &str, errs: &mut Vec<FieldError>) {
    for (i, ev) in c.env.iter().flatten().enumerate() {
        let p = format!("{path}[{i}]");
        if ev.name.is_empty() {
            errs.push(required(&format!("{p}.name"), ""));
        } else {
            errs.extend(
                relaxed_env_var_name(&ev.name)
                    .iter()
                    .map(|m| invalid(&format!("{p}.name"), &ev.name, m)),
            );
        }
        let Some(from) = &ev.value_from else { continue };
        let sources = [
            from.field_ref.is_some(),
            from.resource_field_ref.is_some(),
            from.config_map_key_ref.is_some(),
            from.secret_key_ref.is_some(),
        ]
        .iter()
        .filter(|s| **s)
        .count();
        let vf = format!("{p}.valueFrom");
        if sources == 0 {
            errs.push(invalid(&vf, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
        } else if ev.value.as_deref().is_some_and(|v| !v.is_empty()) {
            errs.push(invalid(
                &vf,
                "",
                "may not be specified when `value` is not empty",
            ));
        } else if sources > 1 {
            errs.push(invalid(
                &vf,
                "",
                "may not have more than one field specified at a time",
            ));
        }
    }
}

/// `ValidateVolumeMounts`.
fn validate_volume_mounts(
    c: &Container,
    volumes: &BTreeSet<String>,
    path: &str,
    errs: &mut Vec<FieldError>,
) {
    let mut points = BTreeSet::new();
    for (i, m) in c.volume_mounts.iter().flatten().enumerate() {
        let p = format!("{path}[{i}]");
        if m.name.is_empty() {
            errs.push(required(&format!("{p}.name"), ""));
        }
        if !volumes.contains(&m.name) {
            errs.push(not_found(&format!("{p}.name"), &m.name));
        }
        if m.mount_path.is_empty() {
            errs.push(required(&format!("{p}.mountPath"), ""));
        }
        if !points.insert(m.mount_path.clone()) {
            errs.push(invalid(
                &format!("{p}.mountPath"),
                &m.mount_path,
                "must be unique",
            ));
        }
    }
}

/// Standard names of `helper.IsStandardResourceName`.
const STANDARD_RESOURCES: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "services",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
];

fn is_hugepages(name: &str) -> bool {
    name.starts_with("hugepages-")
}

/// `helper.IsNativeResource`: unprefixed, or in the `kubernetes.io/` domain.
fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `validateContainerResourceName`; the value prints unquoted (a `fmt.Stringer`).
fn validate_resource_name(name: &str, p: &str, errs: &mut Vec<FieldError>) {
    let msgs = qualified_name(name);
    if !msgs.is_empty() {
        errs.extend(msgs.iter().map(|m| invalid_raw(p, name, m)));
    } else if !name.contains('/') && !STANDARD_RESOURCES.contains(&name) && !is_hugepages(name) {
        errs.push(invalid_raw(
            p,
            name,
            "must be a standard resource type or fully qualified",
        ));
    }
    if !name.contains('/') {
        if !matches!(name, "cpu" | "memory" | "ephemeral-storage") && !is_hugepages(name) {
            errs.push(invalid_raw(
                p,
                name,
                "must be a standard resource for containers",
            ));
        }
    } else if !is_native(name)
        && (name.starts_with("requests.")
            || !qualified_name(&format!("requests.{name}")).is_empty())
    {
        errs.push(invalid_raw(
            p,
            name,
            "doesn't follow extended resource name standard",
        ));
    }
}

/// `ValidateResourceQuantityValue`: not negative; whole for integer resources.
fn validate_quantity_value(name: &str, q: &ParsedQuantity, p: &str, errs: &mut Vec<FieldError>) {
    if q.is_negative() {
        errs.push(invalid(p, &q.to_string(), IS_NEGATIVE));
    }
    if !is_native(name) && q.milli_value() % 1000 != 0 {
        errs.push(invalid_raw(p, &q.to_string(), "must be an integer"));
    }
}

fn parsed(list: Option<&BTreeMap<String, K8sQuantity>>) -> Vec<(&str, Option<ParsedQuantity>)> {
    list.into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), parse_k8s(v).ok()))
        .collect()
}

/// `validateResourceRequirements` (limits, then requests, in key order).
fn validate_resources(r: &ResourceRequirements, path: &str, errs: &mut Vec<FieldError>) {
    let lim_path = format!("{path}.limits");
    let req_path = format!("{path}.requests");
    let limits = parsed(r.limits.as_ref());
    let mut cpu_or_mem = false;
    let mut huge = false;
    for (name, q) in &limits {
        let p = format!("{lim_path}[{name}]");
        validate_resource_name(name, &p, errs);
        if let Some(q) = q {
            validate_quantity_value(name, q, &p, errs);
        }
        huge |= is_hugepages(name);
        cpu_or_mem |= matches!(*name, "cpu" | "memory");
    }
    for (name, q) in parsed(r.requests.as_ref()) {
        let p = format!("{req_path}[{name}]");
        validate_resource_name(name, &p, errs);
        let Some(q) = q else { continue };
        validate_quantity_value(name, &q, &p, errs);
        let overcommit = is_native(name) && !is_hugepages(name);
        match limits.iter().find(|(n, _)| *n == name) {
            Some((_, Some(limit))) => {
                if q != *limit && !overcommit {
                    errs.push(invalid(
                        &req_path,
                        &q.to_string(),
                        &format!("must be equal to {name} limit of {limit}"),
                    ));
                } else if q > *limit {
                    errs.push(invalid(
                        &req_path,
                        &q.to_string(),
                        &format!("must be less than or equal to {name} limit of {limit}"),
                    ));
                }
            }
            None if !overcommit => {
                errs.push(required(
                    &lim_path,
                    "Limit must be set for non overcommitable resources",
                ));
            }
            Some((_, None)) | None => {}
        }
        huge |= is_hugepages(name);
        cpu_or_mem |= matches!(name, "cpu" | "memory");
    }
    if huge && !cpu_or_mem {
        errs.push(forbidden(path, "HugePages require cpu or memory"));
    }
}

/// `validateLivenessProbe` / `validateReadinessProbe` / `validateStartupProbe`.
fn validate_probe(
    probe: Option<&Probe>,
    p: &str,
    success_must_be_one: bool,
    errs: &mut Vec<FieldError>,
) {
    let Some(probe) = probe else { return };
    let mut handlers = 0;
    if let Some(exec) = &probe.exec {
        handlers += 1;
        if exec.command.as_ref().is_none_or(Vec::is_empty) {
            errs.push(required(&format!("{p}.exec.command"), ""));
        }
    }
    for (field, port) in [
        ("httpGet", probe.http_get.as_ref().map(|h| &h.port)),
        ("tcpSocket", probe.tcp_socket.as_ref().map(|t| &t.port)),
    ] {
        let Some(port) = port else { continue };
        if handlers > 0 {
            errs.push(forbidden(
                &format!("{p}.{field}"),
                "may not specify more than 1 handler type",
            ));
            continue;
        }
        handlers += 1;
        validate_port_num_or_name(port, &format!("{p}.{field}.port"), errs);
        if let Some(scheme) = probe.http_get.as_ref().and_then(|h| h.scheme.as_deref())
            && field == "httpGet"
            && !scheme.is_empty()
            && !matches!(scheme, "HTTP" | "HTTPS")
        {
            errs.push(not_supported(
                &format!("{p}.httpGet.scheme"),
                scheme,
                &["HTTP", "HTTPS"],
            ));
        }
    }
    if let Some(grpc) = &probe.grpc {
        if handlers > 0 {
            errs.push(forbidden(
                &format!("{p}.grpc"),
                "may not specify more than 1 handler type",
            ));
        } else {
            handlers += 1;
            if !(1..=65535).contains(&grpc.port) {
                errs.push(invalid_raw(
                    &format!("{p}.grpc.port"),
                    &grpc.port.to_string(),
                    &inclusive_range(1, 65535),
                ));
            }
        }
    }
    if handlers == 0 {
        errs.push(required(p, "must specify a handler type"));
    }
    for (field, value) in [
        ("initialDelaySeconds", probe.initial_delay_seconds),
        ("timeoutSeconds", probe.timeout_seconds),
        ("periodSeconds", probe.period_seconds),
        ("successThreshold", probe.success_threshold),
        ("failureThreshold", probe.failure_threshold),
    ] {
        if let Some(e) = nonnegative(
            &format!("{p}.{field}"),
            i64::from(value.unwrap_or_default()),
        ) {
            errs.push(e);
        }
    }
    if let Some(t) = probe.termination_grace_period_seconds {
        if t <= 0 {
            errs.push(invalid_raw(
                &format!("{p}.terminationGracePeriodSeconds"),
                &t.to_string(),
                "must be greater than 0",
            ));
        }
        if !success_must_be_one {
            errs.push(invalid_raw(
                &format!("{p}.terminationGracePeriodSeconds"),
                &t.to_string(),
                "must not be set for readinessProbes",
            ));
        }
    }
    if success_must_be_one
        && let Some(s) = probe.success_threshold
        && s != 1
        && s != 0
    {
        errs.push(invalid_raw(
            &format!("{p}.successThreshold"),
            &s.to_string(),
            "must be 1",
        ));
    }
}

/// `ValidatePortNumOrName`.
pub fn validate_port_num_or_name(port: &IntOrString, p: &str, errs: &mut Vec<FieldError>) {
    match port {
        IntOrString::Int(n) => {
            if !(1..=65535).contains(n) {
                errs.push(invalid_raw(p, &n.to_string(), &inclusive_range(1, 65535)));
            }
        }
        IntOrString::String(s) => errs.extend(port_name(s).iter().map(|m| invalid(p, s, m))),
    }
}
