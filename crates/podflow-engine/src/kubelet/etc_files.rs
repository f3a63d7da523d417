//! The files the kubelet writes into every container besides its volumes:
//! `/etc/hosts` (`pkg/kubelet/kubelet_pods.go`, `managedHostsFileContent`
//! and `hostsEntriesFromHostAliases`), `/etc/hostname` (the Pod's hostname,
//! `GeneratePodHostNameAndDomain`) and `/etc/resolv.conf`
//! (`pkg/kubelet/network/dns/dns.go`, `GetPodDNS` for the Pod's `dnsPolicy`
//! merged with its `dnsConfig`), and the mount points of its volumes.

use std::fmt::Write as _;

use k8s_openapi::api::core::v1::{Container, Pod, PodDNSConfig};

/// The cluster's domain (`clusterDomain` of the kubelet's configuration).
pub const CLUSTER_DOMAIN: &str = "cluster.local";
/// The cluster DNS Service's address (`clusterDNS`: kube-dns's, as kubeadm sets it).
pub const CLUSTER_DNS: &str = "10.96.0.10";
/// The most name servers and search domains a resolver reads (`validation.MaxDNSNameservers`, `MaxDNSSearchPaths`).
const MAX_NAMESERVERS: usize = 3;
const MAX_SEARCHES: usize = 32;

/// The Pod's hostname and, with a `subdomain`, its domain
/// (`SUBDOMAIN.NAMESPACE.svc.cluster.local`); the name is cut to 63
/// characters, without a trailing `-` or `.`, as the kubelet cuts it.
pub fn host_and_domain(pod: &Pod) -> (String, Option<String>) {
    let spec = pod.spec.as_ref();
    let name = spec
        .and_then(|s| s.hostname.clone())
        .filter(|h| !h.is_empty())
        .or_else(|| pod.metadata.name.clone())
        .unwrap_or_default();
    let host = if name.len() > 63 {
        name[..63].trim_end_matches(['-', '.']).to_owned()
    } else {
        name
    };
    let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
    let domain = spec
        .and_then(|s| s.subdomain.as_deref())
        .filter(|d| !d.is_empty())
        .map(|sub| format!("{sub}.{namespace}.svc.{CLUSTER_DOMAIN}"));
    (host, domain)
}

/// `/etc/hosts`: the header, the localhost lines, the Pod IP with its
/// hostname, then the `hostAliases`.
pub fn hosts_file(pod: &Pod, pod_ip: &str) -> String {
    let (host, domain) = host_and_domain(pod);
    let mut text = String::from("# Kubernetes-managed hosts file.\n");
    for line in [
        "127.0.0.1\tlocalhost",
        "::1\tlocalhost ip6-localhost ip6-loopback",
        "fe00::0\tip6-localnet",
        "fe00::0\tip6-mcastprefix",
        "fe00::1\tip6-allnodes",
        "fe00::2\tip6-allrouters",
    ] {
        text.push_str(line);
        text.push('\n');
    }
    match domain {
        Some(domain) => writeln!(text, "{pod_ip}\t{host}.{domain}\t{host}"),
        None => writeln!(text, "{pod_ip}\t{host}"),
    }
    .unwrap_or_default();
    let aliases = pod
        .spec
        .as_ref()
        .and_then(|s| s.host_aliases.as_ref())
        .filter(|a| !a.is_empty());
    if let Some(aliases) = aliases {
        text.push_str("\n# Entries added by HostAliases.\n");
        for alias in aliases {
            let names = alias.hostnames.clone().unwrap_or_default().join("\t");
            let _ = writeln!(text, "{}\t{names}", alias.ip);
        }
    }
    text
}

/// `/etc/resolv.conf` for the Pod's `dnsPolicy` (`ClusterFirst` when unset).
/// podflow's nodes have no resolver of their own: `Default` (and
/// `ClusterFirst` on the host network) keep only the Pod's `dnsConfig`.
pub fn resolv_conf(pod: &Pod) -> String {
    let spec = pod.spec.as_ref();
    let policy = spec
        .and_then(|s| s.dns_policy.as_deref())
        .unwrap_or("ClusterFirst");
    let host_network = spec.and_then(|s| s.host_network).unwrap_or(false);
    let cluster = match policy {
        "ClusterFirstWithHostNet" => true,
        "ClusterFirst" => !host_network,
        _ => false,
    };
    let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
    let (mut servers, mut searches, mut options) = if cluster {
        (
            vec![CLUSTER_DNS.to_owned()],
            vec![
                format!("{namespace}.svc.{CLUSTER_DOMAIN}"),
                format!("svc.{CLUSTER_DOMAIN}"),
                CLUSTER_DOMAIN.to_owned(),
            ],
            vec!["ndots:5".to_owned()],
        )
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };
    if let Some(config) = spec.and_then(|s| s.dns_config.as_ref()) {
        merge_dns_config(config, &mut servers, &mut searches, &mut options);
    }
    servers.truncate(MAX_NAMESERVERS);
    searches.truncate(MAX_SEARCHES);
    let mut text = String::new();
    if !searches.is_empty() {
        let _ = writeln!(text, "search {}", searches.join(" "));
    }
    for server in servers {
        let _ = writeln!(text, "nameserver {server}");
    }
    if !options.is_empty() {
        let _ = writeln!(text, "options {}", options.join(" "));
    }
    text
}

/// `appendDNSConfig`: the Pod's name servers and searches after the
/// policy's (without repeats); its options replace those of the same name.
fn merge_dns_config(
    config: &PodDNSConfig,
    servers: &mut Vec<String>,
    searches: &mut Vec<String>,
    options: &mut Vec<String>,
) {
    for server in config.nameservers.iter().flatten() {
        if !servers.contains(server) {
            servers.push(server.clone());
        }
    }
    for search in config.searches.iter().flatten() {
        if !searches.contains(search) {
            searches.push(search.clone());
        }
    }
    for option in config.options.iter().flatten() {
        let name = option.name.clone().unwrap_or_default();
        let text = match &option.value {
            Some(value) => format!("{name}:{value}"),
            None => name.clone(),
        };
        options.retain(|o| o.split(':').next() != Some(name.as_str()));
        options.push(text);
    }
}

/// The files every container of `pod` gets: `/etc/hosts`, `/etc/hostname`
/// and `/etc/resolv.conf`.
pub fn etc_files(pod: &Pod, pod_ip: &str) -> Vec<(String, String)> {
    let (host, _) = host_and_domain(pod);
    vec![
        ("/etc/hosts".into(), hosts_file(pod, pod_ip)),
        ("/etc/hostname".into(), format!("{host}\n")),
        ("/etc/resolv.conf".into(), resolv_conf(pod)),
    ]
}

/// Where `container` mounts its volumes: directories in its file system.
pub fn mount_points(container: &Container) -> Vec<String> {
    container
        .volume_mounts
        .iter()
        .flatten()
        .filter(|m| m.sub_path.as_deref().is_none_or(str::is_empty))
        .map(|m| m.mount_path.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(spec: &serde_json::Value) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": "nginx", "namespace": "dev"},
            "spec": spec,
        }))
        .unwrap()
    }

    /// `TestManagedHostsFileContent` (`pkg/kubelet/kubelet_pods_test.go`).
    #[test]
    fn hosts_files_as_the_kubelet_writes_them() {
        let plain = pod(&json!({"containers": []}));
        assert_eq!(
            hosts_file(&plain, "10.244.1.5"),
            "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n10.244.1.5\tnginx\n"
        );
        let named = pod(&json!({
            "containers": [], "hostname": "web-0", "subdomain": "web",
            "hostAliases": [{"ip": "10.1.2.3", "hostnames": ["foo.remote", "bar.remote"]}],
        }));
        let text = hosts_file(&named, "10.244.1.5");
        assert!(
            text.ends_with("10.244.1.5\tweb-0.web.dev.svc.cluster.local\tweb-0\n\n# Entries added by HostAliases.\n10.1.2.3\tfoo.remote\tbar.remote\n"),
            "{text}"
        );
    }

    /// `TestGetPodDNS` and `TestGetPodDNSCustom` (`pkg/kubelet/network/dns/dns_test.go`).
    #[test]
    fn resolv_conf_follows_the_dns_policy() {
        let cases = [
            (
                json!({"containers": []}),
                "search dev.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n",
            ),
            (
                json!({"containers": [], "dnsPolicy": "None", "dnsConfig": {
                    "nameservers": ["1.2.3.4"], "searches": ["ns1.svc.cluster-domain.example"],
                    "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}]}}),
                "search ns1.svc.cluster-domain.example\nnameserver 1.2.3.4\noptions ndots:2 edns0\n",
            ),
            (
                json!({"containers": [], "dnsConfig": {"options": [{"name": "ndots", "value": "1"}]}}),
                "search dev.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:1\n",
            ),
            (json!({"containers": [], "hostNetwork": true}), ""),
        ];
        for (spec, want) in cases {
            assert_eq!(resolv_conf(&pod(&spec)), want, "{spec}");
        }
    }
}
