//! `NodePorts` (`pkg/scheduler/framework/plugins/nodeports/node_ports.go`):
//! a pod that wants host ports fits only on a node where no pod already holds
//! the same protocol and port on the same host IP (`0.0.0.0` standing for
//! every IP), as `HostPortInfo.CheckConflict` decides.

use k8s_openapi::api::core::v1::{ContainerPort, Pod};

use crate::scheduler::framework::{Code, CycleState, FilterPlugin, NodeInfo, Snapshot, Status};

/// Upstream's `ErrReason`.
pub const REASON: &str = "node(s) didn't have free ports for the requested pod ports";

const PRE_FILTER_KEY: &str = "PreFilterNodePorts";
/// `DefaultBindAllHostIP`.
const BIND_ALL: &str = "0.0.0.0";

pub struct NodePorts;

/// One host port as `HostPortInfo` keys it: IP (empty as `0.0.0.0`),
/// protocol (empty as `TCP`) and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPort {
    pub ip: String,
    pub protocol: String,
    pub port: i32,
}

impl HostPort {
    fn of(port: &ContainerPort) -> HostPort {
        let ip = port.host_ip.as_deref().filter(|ip| !ip.is_empty());
        let protocol = port.protocol.as_deref().filter(|p| !p.is_empty());
        HostPort {
            ip: ip.unwrap_or(BIND_ALL).to_owned(),
            protocol: protocol.unwrap_or("TCP").to_owned(),
            port: port.host_port.unwrap_or_default(),
        }
    }

    /// `HostPortInfo.CheckConflict`: `0.0.0.0` conflicts with the same
    /// protocol and port on any IP; another IP with itself and `0.0.0.0`.
    pub fn conflicts(&self, used: &HostPort) -> bool {
        self.port > 0
            && self.port == used.port
            && self.protocol == used.protocol
            && (self.ip == BIND_ALL || used.ip == BIND_ALL || self.ip == used.ip)
    }
}

/// `util.GetHostPorts`: the ports with a `hostPort` of the app containers and
/// of the sidecars (init containers with `restartPolicy: Always`), which run
/// for the pod's whole life.
pub fn host_ports(pod: &Pod) -> Vec<HostPort> {
    let Some(spec) = pod.spec.as_ref() else {
        return Vec::new();
    };
    let sidecars = spec
        .init_containers
        .iter()
        .flatten()
        .filter(|c| c.restart_policy.as_deref() == Some("Always"));
    sidecars
        .chain(spec.containers.iter())
        .flat_map(|c| c.ports.iter().flatten())
        .filter(|p| p.host_port.is_some_and(|port| port > 0))
        .map(HostPort::of)
        .collect()
}

/// Whether `wanted` ports are all free on `node` (`fitsPorts`).
pub fn fits(wanted: &[HostPort], node: &NodeInfo) -> bool {
    let used: Vec<HostPort> = node.pods.iter().flat_map(|p| host_ports(p)).collect();
    !wanted
        .iter()
        .any(|want| used.iter().any(|have| want.conflicts(have)))
}

impl FilterPlugin for NodePorts {
    fn name(&self) -> &'static str {
        "NodePorts"
    }

    /// Collects the pod's host ports; `Skip` when it wants none.
    fn pre_filter(&self, pod: &Pod, _nodes: &Snapshot<'_>, state: &mut CycleState) -> Status {
        let wanted = host_ports(pod);
        if wanted.is_empty() {
            return Status::skip("the pod asks for no host port");
        }
        state.write(PRE_FILTER_KEY, wanted);
        Status::success()
    }

    fn filter(&self, state: &CycleState, _pod: &Pod, node: &NodeInfo) -> Status {
        let Some(wanted) = state.read::<Vec<HostPort>>(PRE_FILTER_KEY) else {
            return Status::new(
                Code::Error,
                format!("reading {PRE_FILTER_KEY:?} from cycleState: not found"),
            );
        };
        if fits(wanted, node) {
            Status::success()
        } else {
            Status::new(Code::Unschedulable, REASON)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use k8s_openapi::api::core::v1::{Container, Node, PodSpec};

    use super::*;
    use podflow_model::Shared;

    /// Upstream's `newPod`: ports written `PROTOCOL/IP/PORT`, in one container.
    fn pod(ports: &[&str]) -> Pod {
        let ports = ports
            .iter()
            .map(|p| {
                let fields: Vec<&str> = p.split('/').collect();
                ContainerPort {
                    protocol: Some(fields[0].to_owned()),
                    host_ip: Some(fields[1].to_owned()),
                    host_port: fields[2].parse().ok(),
                    ..ContainerPort::default()
                }
            })
            .collect();
        Pod {
            spec: Some(PodSpec {
                containers: vec![Container {
                    ports: Some(ports),
                    ..Container::default()
                }],
                ..PodSpec::default()
            }),
            ..Pod::default()
        }
    }

    /// A pod whose only port is in an init container, a sidecar or not.
    fn init_pod(sidecar: bool) -> Pod {
        Pod {
            spec: Some(PodSpec {
                init_containers: Some(vec![Container {
                    restart_policy: sidecar.then(|| "Always".to_owned()),
                    ports: Some(vec![ContainerPort {
                        container_port: 8001,
                        host_port: Some(8001),
                        protocol: Some("TCP".to_owned()),
                        ..ContainerPort::default()
                    }]),
                    ..Container::default()
                }]),
                ..PodSpec::default()
            }),
            ..Pod::default()
        }
    }

    fn node_with(pods: Vec<Pod>) -> NodeInfo {
        NodeInfo::new(
            Arc::new(Node::default()),
            pods.into_iter().map(Shared::from),
        )
    }

    /// `node_ports_test.go`, `TestNodePorts`: (name, pod, ports in use on the
    /// node, `PreFilter` skips, Filter fails).
    #[test]
    #[allow(clippy::too_many_lines)]
    fn test_node_ports() {
        let cases: Vec<(&str, Pod, Vec<&str>, bool, bool)> = vec![
            ("skip filter", Pod::default(), vec![], true, false),
            (
                "other port",
                pod(&["UDP/127.0.0.1/8080"]),
                vec!["UDP/127.0.0.1/9090"],
                false,
                false,
            ),
            (
                "same udp port",
                pod(&["UDP/127.0.0.1/8080"]),
                vec!["UDP/127.0.0.1/8080"],
                false,
                true,
            ),
            (
                "same tcp port",
                pod(&["TCP/127.0.0.1/8080"]),
                vec!["TCP/127.0.0.1/8080"],
                false,
                true,
            ),
            (
                "different host ip",
                pod(&["TCP/127.0.0.1/8080"]),
                vec!["TCP/127.0.0.2/8080"],
                false,
                false,
            ),
            (
                "different protocol",
                pod(&["UDP/127.0.0.1/8080"]),
                vec!["TCP/127.0.0.1/8080"],
                false,
                false,
            ),
            (
                "second udp port conflict",
                pod(&["UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"]),
                vec!["UDP/127.0.0.1/8080"],
                false,
                true,
            ),
            (
                "first tcp port conflict",
                pod(&["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"]),
                vec!["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"],
                false,
                true,
            ),
            (
                "first tcp port conflict due to 0.0.0.0 hostIP",
                pod(&["TCP/0.0.0.0/8001"]),
                vec!["TCP/127.0.0.1/8001"],
                false,
                true,
            ),
            (
                "TCP hostPort conflict due to 0.0.0.0 hostIP",
                pod(&["TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"]),
                vec!["TCP/127.0.0.1/8001"],
                false,
                true,
            ),
            (
                "second tcp port conflict to 0.0.0.0 hostIP",
                pod(&["TCP/127.0.0.1/8001"]),
                vec!["TCP/0.0.0.0/8001"],
                false,
                true,
            ),
            (
                "second different protocol",
                pod(&["UDP/127.0.0.1/8001"]),
                vec!["TCP/0.0.0.0/8001"],
                false,
                false,
            ),
            (
                "UDP hostPort conflict due to 0.0.0.0 hostIP",
                pod(&["UDP/127.0.0.1/8001"]),
                vec!["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"],
                false,
                true,
            ),
            (
                "non-sidecar initContainer using hostPort",
                init_pod(false),
                vec!["TCP/0.0.0.0/8001"],
                true,
                false,
            ),
            (
                "TCP hostPort conflict from sidecar initContainer",
                init_pod(true),
                vec!["TCP/0.0.0.0/8001"],
                false,
                true,
            ),
            // Beyond upstream's table: an empty host IP and protocol mean 0.0.0.0 and TCP.
            (
                "empty IP and protocol",
                pod(&["//8080"]),
                vec!["TCP/10.0.0.1/8080"],
                false,
                true,
            ),
        ];
        for (name, pod, used, skip, fail) in cases {
            let node = node_with(if used.is_empty() {
                vec![]
            } else {
                vec![self::pod(&used)]
            });
            let mut state = CycleState::default();
            let pre = NodePorts.pre_filter(
                &pod,
                &Snapshot::new(std::slice::from_ref(&node)),
                &mut state,
            );
            if skip {
                assert_eq!(pre.code, Code::Skip, "{name}");
                assert_eq!(pre.reasons, ["the pod asks for no host port"], "{name}");
                continue;
            }
            assert!(pre.is_success(), "{name}: {pre:?}");
            let got = NodePorts.filter(&state, &pod, &node);
            if fail {
                assert_eq!(got, Status::new(Code::Unschedulable, REASON), "{name}");
            } else {
                assert!(got.is_success(), "{name}: {got:?}");
            }
        }
    }

    /// `TestPreFilterDisabled`: Filter without `PreFilter`'s state is an error.
    #[test]
    fn filter_without_pre_filter_is_an_error() {
        let got = NodePorts.filter(&CycleState::default(), &Pod::default(), &node_with(vec![]));
        assert_eq!(got.code, Code::Error);
    }

    /// `TestFits`.
    #[test]
    fn test_fits() {
        let cases = [
            (
                "non-conflicting ports",
                vec!["TCP/127.0.0.1/80"],
                vec!["TCP/127.0.0.1/9090"],
                true,
            ),
            (
                "multiple non-conflicting ports",
                vec![
                    "TCP/127.0.0.1/80",
                    "TCP/127.0.1.1/80",
                    "TCP/127.0.1.1/90",
                    "TCP/127.0.1.1/100",
                ],
                vec![
                    "TCP/127.0.0.1/9090",
                    "TCP/127.0.0.1/9191",
                    "TCP/127.0.1.1/8080",
                ],
                true,
            ),
            (
                "same ports on different protocols",
                vec!["TCP/127.0.0.1/80"],
                vec!["UDP/127.0.0.1/80"],
                true,
            ),
            (
                "conflicting ports",
                vec!["TCP/127.0.0.1/80"],
                vec!["TCP/127.0.0.1/80"],
                false,
            ),
            (
                "multiple ports, some conflicting",
                vec![
                    "TCP/127.0.0.1/80",
                    "TCP/127.0.1.1/80",
                    "TCP/127.0.1.1/90",
                    "TCP/127.0.1.1/100",
                ],
                vec![
                    "TCP/127.0.0.1/9090",
                    "TCP/127.0.1.1/90",
                    "TCP/127.0.1.1/8080",
                ],
                false,
            ),
        ];
        for (name, wanted, used, want) in cases {
            let node = node_with(vec![pod(&used)]);
            assert_eq!(fits(&host_ports(&pod(&wanted)), &node), want, "{name}");
        }
    }

    #[test]
    fn name_is_upstreams() {
        assert_eq!(NodePorts.name(), "NodePorts");
    }
}
