//! What kube-proxy's iptables mode writes for the Services a node knows, as a
//! pure plan (`pkg/proxy/iptables/proxier.go`, `syncProxyRules`): for each
//! Service port with a `ClusterIP`, a `KUBE-SERVICES` jump to its
//! `KUBE-SVC-…` chain, which picks one endpoint chain `KUBE-SEP-…` with
//! `-m statistic --probability 1/n, 1/(n-1), …` and DNATs to it; a Service
//! port with no usable endpoint gets a `REJECT` in the filter table's
//! `KUBE-SERVICES` (`"NS/NAME:PORT has no endpoints"`). The chain names are
//! upstream's hashes (`portProtoHash`, `servicePortChainName`,
//! `servicePortEndpointChainName`), so they match a real node's
//! `iptables-save`. The fixed chains every sync writes (`KUBE-MARK-MASQ`,
//! `KUBE-POSTROUTING`, `KUBE-FORWARD`, …) are left out.

use std::collections::BTreeMap;

use data_encoding::BASE32;
use sha2::{Digest, Sha256};

/// The Pod network a Service's traffic from outside it is masqueraded for
/// (kube-proxy's `--cluster-cidr`, the `! -s CIDR -j KUBE-MARK-MASQ` rule).
pub const CLUSTER_CIDR: &str = "10.244.0.0/16";

/// One endpoint of a Service port, as kube-proxy's `EndpointSlice` cache holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub ip: String,
    pub port: i32,
    pub ready: bool,
    pub serving: bool,
    pub terminating: bool,
}

impl Endpoint {
    /// `IP:PORT`, as `Endpoint.String()` writes it.
    pub fn address(&self) -> String {
        format!("{}:{}", self.ip, self.port)
    }
}

/// A Service port with a `ClusterIP` and its endpoints (`ServicePortName`,
/// `servicePortInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServicePort {
    /// `ServicePortName.String()`: `NS/NAME:PORT`, or `NS/NAME` for an unnamed port.
    pub name: String,
    pub cluster_ip: String,
    pub port: i32,
    /// As the Service writes it: `TCP`, `UDP`, `SCTP`.
    pub protocol: String,
    pub endpoints: Vec<Endpoint>,
}

/// The rules of one Service port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortRules {
    pub name: String,
    pub cluster_ip: String,
    pub port: i32,
    /// Lower case, as the rules write it (`tcp`).
    pub protocol: String,
    /// `KUBE-SVC-…`.
    pub chain: String,
    /// The endpoints used, in order, each with its `KUBE-SEP-…` chain;
    /// empty: the port is rejected.
    pub endpoints: Vec<(String, String)>,
}

/// Everything one sync wrote, by Service port name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub ports: BTreeMap<String, PortRules>,
}

/// Where a connection to a Service address goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route<'a> {
    /// No rule matches: not a Service address.
    NoService,
    /// The filter table's `REJECT`: the port has no endpoints.
    Reject(&'a PortRules),
    /// DNAT to the endpoint at this index of the port's endpoints.
    Dnat(&'a PortRules, usize),
}

/// `portProtoHash`: the first 16 characters of base32(sha256(name + protocol)).
pub fn port_proto_hash(service_port_name: &str, protocol: &str) -> String {
    let digest = Sha256::digest(format!("{service_port_name}{protocol}").as_bytes());
    BASE32.encode(&digest)[..16].to_owned()
}

/// `servicePortChainName`: `KUBE-SVC-` and the port's hash.
pub fn service_chain(service_port_name: &str, protocol: &str) -> String {
    format!("KUBE-SVC-{}", port_proto_hash(service_port_name, protocol))
}

/// `servicePortEndpointChainName`: `KUBE-SEP-` and the hash of the port's
/// name, protocol and endpoint (`IP:PORT`).
pub fn endpoint_chain(service_port_name: &str, protocol: &str, endpoint: &str) -> String {
    let digest = Sha256::digest(format!("{service_port_name}{protocol}{endpoint}").as_bytes());
    format!("KUBE-SEP-{}", &BASE32.encode(&digest)[..16])
}

/// `probability(n)`: `1/n` with ten decimals (`%0.10f`).
pub fn probability(n: usize) -> String {
    // A Service has far fewer endpoints than 2^32.
    let n = f64::from(u32::try_from(n).unwrap_or(u32::MAX));
    format!("{:.10}", 1.0 / n)
}

/// The endpoints a Service port's traffic goes to
/// (`pkg/proxy/topology.go`, `CategorizeEndpoints`, cluster traffic policy):
/// the ready ones, or, when none is ready, those still serving while they
/// terminate.
pub fn usable(endpoints: &[Endpoint]) -> Vec<&Endpoint> {
    let ready: Vec<&Endpoint> = endpoints.iter().filter(|e| e.ready).collect();
    if !ready.is_empty() {
        return ready;
    }
    endpoints
        .iter()
        .filter(|e| e.serving && e.terminating)
        .collect()
}

/// The rules for `ports`.
pub fn plan(ports: &[ServicePort]) -> Table {
    let mut table = Table::default();
    for port in ports {
        let protocol = port.protocol.to_ascii_lowercase();
        let mut endpoints: Vec<String> = usable(&port.endpoints)
            .into_iter()
            .map(Endpoint::address)
            .collect();
        endpoints.sort();
        endpoints.dedup();
        let endpoints = endpoints
            .into_iter()
            .map(|address| {
                let chain = endpoint_chain(&port.name, &protocol, &address);
                (address, chain)
            })
            .collect();
        table.ports.insert(
            port.name.clone(),
            PortRules {
                name: port.name.clone(),
                cluster_ip: port.cluster_ip.clone(),
                port: port.port,
                chain: service_chain(&port.name, &protocol),
                protocol,
                endpoints,
            },
        );
    }
    table
}

/// iptables-save quotes a comment with spaces.
fn comment(text: &str) -> String {
    if text.contains(' ') {
        format!("\"{text}\"")
    } else {
        text.to_owned()
    }
}

impl PortRules {
    /// `-m tcp -p tcp -d IP --dport PORT`.
    fn destination(&self) -> String {
        let p = &self.protocol;
        format!("-m {p} -p {p} -d {} --dport {}", self.cluster_ip, self.port)
    }

    /// The port's lines: the filter table's REJECT, or the nat table's
    /// jump, masquerade, endpoint choice and DNATs.
    pub fn lines(&self) -> Vec<String> {
        let name = &self.name;
        if self.endpoints.is_empty() {
            return vec![format!(
                "-A KUBE-SERVICES -m comment --comment {} {} -j REJECT",
                comment(&format!("{name} has no endpoints")),
                self.destination()
            )];
        }
        let cluster_ip = comment(&format!("{name} cluster IP"));
        let mut lines = vec![
            format!(
                "-A KUBE-SERVICES -m comment --comment {cluster_ip} {} -j {}",
                self.destination(),
                self.chain
            ),
            format!(
                "-A {} -m comment --comment {cluster_ip} {} ! -s {CLUSTER_CIDR} -j KUBE-MARK-MASQ",
                self.chain,
                self.destination()
            ),
        ];
        let n = self.endpoints.len();
        for (i, (address, sep)) in self.endpoints.iter().enumerate() {
            let statistic = if i + 1 < n {
                format!(
                    " -m statistic --mode random --probability {}",
                    probability(n - i)
                )
            } else {
                String::new()
            };
            lines.push(format!(
                "-A {} -m comment --comment {}{statistic} -j {sep}",
                self.chain,
                comment(&format!("{name} -> {address}"))
            ));
        }
        for (address, sep) in &self.endpoints {
            let ip = address
                .rsplit_once(':')
                .map_or(address.as_str(), |(ip, _)| ip);
            let p = &self.protocol;
            lines.push(format!(
                "-A {sep} -m comment --comment {} -s {ip} -j KUBE-MARK-MASQ",
                comment(name)
            ));
            lines.push(format!(
                "-A {sep} -m comment --comment {} -m {p} -p {p} -j DNAT --to-destination {address}",
                comment(name)
            ));
        }
        lines
    }
}

impl Table {
    /// Every line, the filter table's first, as `iptables-restore` input
    /// would hold them (`*filter` … `*nat` …).
    pub fn lines(&self) -> Vec<String> {
        let (rejected, served): (Vec<&PortRules>, Vec<&PortRules>) =
            self.ports.values().partition(|p| p.endpoints.is_empty());
        let mut lines = vec!["*filter".to_owned()];
        lines.extend(rejected.iter().flat_map(|p| p.lines()));
        lines.push("*nat".to_owned());
        let served: Vec<Vec<String>> = served.iter().map(|p| p.lines()).collect();
        // KUBE-SERVICES first, then each port's own chains.
        lines.extend(served.iter().filter_map(|l| l.first().cloned()));
        lines.push("-A KUBE-SERVICES -m comment --comment \"kubernetes service nodeports; NOTE: this must be the last rule in this chain\" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS".to_owned());
        lines.extend(served.into_iter().flat_map(|l| l.into_iter().skip(1)));
        lines
    }

    /// How many endpoint chains it has.
    pub fn endpoint_count(&self) -> usize {
        self.ports.values().map(|p| p.endpoints.len()).sum()
    }

    /// The Service ports whose rules differ from `before`'s: added, changed
    /// or gone, by name.
    pub fn changed_since(&self, before: &Table) -> Vec<String> {
        let mut names: Vec<String> = self
            .ports
            .iter()
            .filter(|(name, rules)| before.ports.get(*name) != Some(*rules))
            .map(|(name, _)| name.clone())
            .collect();
        names.extend(
            before
                .ports
                .keys()
                .filter(|name| !self.ports.contains_key(*name))
                .cloned(),
        );
        names.sort();
        names
    }

    /// Where a TCP connection to `ip:port` goes; `pick` chooses among the
    /// endpoints (podflow's round-robin for the kernel's random statistic).
    pub fn route(&self, ip: &str, port: u16, pick: u64) -> Route<'_> {
        let found = self
            .ports
            .values()
            .find(|p| p.cluster_ip == ip && i32::from(port) == p.port && p.protocol == "tcp");
        match found {
            None => Route::NoService,
            Some(p) if p.endpoints.is_empty() => Route::Reject(p),
            Some(p) => {
                let n = p.endpoints.len() as u64;
                Route::Dnat(p, usize::try_from(pick % n).unwrap_or(0))
            }
        }
    }

    /// Whether `ip` is an address of one of its endpoints.
    pub fn has_endpoint_ip(&self, ip: &str) -> bool {
        self.ports
            .values()
            .flat_map(|p| &p.endpoints)
            .any(|(address, _)| address.rsplit_once(':').is_some_and(|(a, _)| a == ip))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chain names from `pkg/proxy/iptables/proxier_test.go`
    /// (`TestSyncProxyRulesRepeated`, `TestOverallIPTablesRules`) and a
    /// kind cluster's `kubernetes` and `kube-dns` Services.
    #[test]
    fn chain_names_are_upstreams_hashes() {
        let services = [
            ("ns1/svc1:p80", "tcp", "KUBE-SVC-XPGD46QRK7WJZT7O"),
            ("ns2/svc2:p8080", "tcp", "KUBE-SVC-2VJB64SDSIJUP5T6"),
            ("ns3/svc3:p80", "tcp", "KUBE-SVC-X27LE4BHSL4DOUIK"),
            ("ns4/svc4:p80", "tcp", "KUBE-SVC-4SW47YFZTEDKD3PK"),
            (
                "default/kubernetes:https",
                "tcp",
                "KUBE-SVC-NPX46M4PTMTKRN6Y",
            ),
            (
                "kube-system/kube-dns:dns",
                "udp",
                "KUBE-SVC-TCOU7JCQXEZGVUNU",
            ),
        ];
        for (name, protocol, chain) in services {
            assert_eq!(service_chain(name, protocol), chain, "{name}");
        }
        let endpoints = [
            ("ns1/svc1:p80", "10.0.1.1:80", "KUBE-SEP-SNQ3ZNILQDEJNDQO"),
            (
                "ns2/svc2:p8080",
                "10.0.2.1:8080",
                "KUBE-SEP-UHEGFW77JX3KXTOV",
            ),
            ("ns3/svc3:p80", "10.0.3.1:80", "KUBE-SEP-BSWRHOQ77KEXZLNL"),
            ("ns3/svc3:p80", "10.0.3.2:80", "KUBE-SEP-DKCFIS26GWF2WLWC"),
            ("ns4/svc4:p80", "10.0.4.1:80", "KUBE-SEP-AYCN5HPXMIRJNJXU"),
        ];
        for (name, endpoint, chain) in endpoints {
            assert_eq!(
                endpoint_chain(name, "tcp", endpoint),
                chain,
                "{name} {endpoint}"
            );
        }
    }

    fn endpoint(ip: &str, ready: bool, serving: bool, terminating: bool) -> Endpoint {
        Endpoint {
            ip: ip.into(),
            port: 80,
            ready,
            serving,
            terminating,
        }
    }

    fn port(name: &str, ip: &str, endpoints: Vec<Endpoint>) -> ServicePort {
        ServicePort {
            name: name.into(),
            cluster_ip: ip.into(),
            port: 80,
            protocol: "TCP".into(),
            endpoints,
        }
    }

    /// `TestSyncProxyRulesRepeated`'s svc4 with no endpoints (REJECT), and
    /// svc3 with two (probability 0.5 on the first).
    #[test]
    fn rules_are_written_as_upstream_writes_them() {
        let table = plan(&[
            port("ns4/svc4:p80", "172.30.0.44", vec![]),
            port(
                "ns3/svc3:p80",
                "172.30.0.43",
                vec![
                    endpoint("10.0.3.3", true, true, false),
                    endpoint("10.0.3.2", true, true, false),
                ],
            ),
        ]);
        assert_eq!(
            table.lines(),
            [
                "*filter",
                "-A KUBE-SERVICES -m comment --comment \"ns4/svc4:p80 has no endpoints\" -m tcp -p tcp -d 172.30.0.44 --dport 80 -j REJECT",
                "*nat",
                "-A KUBE-SERVICES -m comment --comment \"ns3/svc3:p80 cluster IP\" -m tcp -p tcp -d 172.30.0.43 --dport 80 -j KUBE-SVC-X27LE4BHSL4DOUIK",
                "-A KUBE-SERVICES -m comment --comment \"kubernetes service nodeports; NOTE: this must be the last rule in this chain\" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS",
                "-A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment \"ns3/svc3:p80 cluster IP\" -m tcp -p tcp -d 172.30.0.43 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ",
                "-A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment \"ns3/svc3:p80 -> 10.0.3.2:80\" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-DKCFIS26GWF2WLWC",
                "-A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment \"ns3/svc3:p80 -> 10.0.3.3:80\" -j KUBE-SEP-JVVZVJ7BSEPPRNBS",
                "-A KUBE-SEP-DKCFIS26GWF2WLWC -m comment --comment ns3/svc3:p80 -s 10.0.3.2 -j KUBE-MARK-MASQ",
                "-A KUBE-SEP-DKCFIS26GWF2WLWC -m comment --comment ns3/svc3:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.3.2:80",
                "-A KUBE-SEP-JVVZVJ7BSEPPRNBS -m comment --comment ns3/svc3:p80 -s 10.0.3.3 -j KUBE-MARK-MASQ",
                "-A KUBE-SEP-JVVZVJ7BSEPPRNBS -m comment --comment ns3/svc3:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.3.3:80",
            ]
        );
    }

    #[test]
    fn probabilities_fall_as_upstream_writes_them() {
        let got: Vec<String> = [3, 2].into_iter().map(probability).collect();
        assert_eq!(got, ["0.3333333333", "0.5000000000"]);
    }

    /// `pkg/proxy/topology_test.go`: ready endpoints; else serving
    /// terminating ones; else none.
    #[test]
    fn only_ready_or_else_serving_terminating_endpoints_are_used() {
        let cases = [
            (
                vec![
                    endpoint("10.0.0.1", true, true, false),
                    endpoint("10.0.0.2", false, true, true),
                ],
                vec!["10.0.0.1"],
            ),
            (
                vec![
                    endpoint("10.0.0.1", false, false, false),
                    endpoint("10.0.0.2", false, true, true),
                    endpoint("10.0.0.3", false, false, true),
                ],
                vec!["10.0.0.2"],
            ),
            (vec![endpoint("10.0.0.1", false, false, false)], vec![]),
        ];
        for (endpoints, expected) in cases {
            let got: Vec<&str> = usable(&endpoints).iter().map(|e| e.ip.as_str()).collect();
            assert_eq!(got, expected);
        }
    }

    #[test]
    fn connections_are_rejected_or_dnatted() {
        let table = plan(&[
            port("default/empty:http", "10.96.0.20", vec![]),
            port(
                "default/web:http",
                "10.96.0.21",
                vec![
                    endpoint("10.244.1.2", true, true, false),
                    endpoint("10.244.2.2", true, true, false),
                ],
            ),
        ]);
        assert!(matches!(table.route("10.96.0.20", 80, 0), Route::Reject(_)));
        assert!(matches!(
            table.route("10.96.0.21", 80, 3),
            Route::Dnat(_, 1)
        ));
        assert_eq!(table.route("10.96.0.21", 81, 0), Route::NoService);
        assert!(table.has_endpoint_ip("10.244.2.2"));
        let before = plan(&[port("default/web:http", "10.96.0.21", vec![])]);
        assert_eq!(
            table.changed_since(&before),
            ["default/empty:http", "default/web:http"]
        );
    }
}
