//! Who did something, as the trace names it: the control plane's components,
//! the registry, and each node's kubelet, container runtime, CNI and CSI
//! plugins and kube-proxy. Serialized as the names docs/trace-format.md lists
//! (`kube-apiserver`, `kubelet/node-1`, ...).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::{Serialize, Serializer};

/// A node's name, shared by every actor of that node.
pub type NodeName = Arc<str>;

/// A client's name, shared by every record of its requests.
pub type ClientName = Arc<str>;

/// A participant of the trace.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Actor {
    Kubectl,
    ApiServer,
    Etcd,
    ControllerManager,
    Scheduler,
    /// The image registry the nodes pull from.
    Registry,
    Kubelet(NodeName),
    /// The node's container runtime (CRI).
    Containerd(NodeName),
    /// The node's CNI plugin.
    Cni(NodeName),
    /// The node's CSI node plugin.
    Csi(NodeName),
    /// The node's kube-proxy (iptables mode).
    KubeProxy(NodeName),
    /// A client outside the simulation (`podflow serve`'s), named by its
    /// user agent's first product: `kubectl/v1.33.1`, `kube-rs/5.0.0`.
    Client(ClientName),
}

impl Actor {
    /// What it is, without its node: `kube-apiserver`, `kubelet`, `cni`, ...
    pub fn role(&self) -> &'static str {
        match self {
            Actor::Kubectl => "kubectl",
            Actor::ApiServer => "kube-apiserver",
            Actor::Etcd => "etcd",
            Actor::ControllerManager => "kube-controller-manager",
            Actor::Scheduler => "kube-scheduler",
            Actor::Registry => "registry",
            Actor::Kubelet(_) => "kubelet",
            Actor::Containerd(_) => "containerd",
            Actor::Cni(_) => "cni",
            Actor::Csi(_) => "csi",
            Actor::KubeProxy(_) => "kube-proxy",
            Actor::Client(_) => "client",
        }
    }

    /// Whether it is a client of the API server from outside the control
    /// plane: the simulated kubectl, or a real client of `podflow serve`.
    pub fn is_client(&self) -> bool {
        matches!(self, Actor::Kubectl | Actor::Client(_))
    }

    /// The node of a node's actor.
    pub fn node(&self) -> Option<&str> {
        match self {
            Actor::Kubelet(node)
            | Actor::Containerd(node)
            | Actor::Cni(node)
            | Actor::Csi(node)
            | Actor::KubeProxy(node) => Some(node),
            _ => None,
        }
    }

    /// The trace name, borrowed for the actors without a node.
    pub fn name(&self) -> Cow<'static, str> {
        match (self, self.node()) {
            (Actor::Client(name), _) => Cow::Owned(name.to_string()),
            (_, None) => Cow::Borrowed(self.role()),
            (_, Some(_)) => Cow::Owned(self.to_string()),
        }
    }

    /// Every actor that is not a node's (nor an outside client).
    pub const WITHOUT_NODE: [Actor; 6] = [
        Actor::Kubectl,
        Actor::ApiServer,
        Actor::Etcd,
        Actor::ControllerManager,
        Actor::Scheduler,
        Actor::Registry,
    ];

    /// The actor a trace name names (`kubelet/node-1`), if any.
    pub fn parse(name: &str) -> Option<Actor> {
        if let Some((role, node)) = name.split_once('/') {
            let node: NodeName = Arc::from(node);
            return match role {
                "kubelet" => Some(Actor::Kubelet(node)),
                "containerd" => Some(Actor::Containerd(node)),
                "cni" => Some(Actor::Cni(node)),
                "csi" => Some(Actor::Csi(node)),
                "kube-proxy" => Some(Actor::KubeProxy(node)),
                _ => Some(Actor::Client(Arc::from(name))),
            };
        }
        Actor::WITHOUT_NODE
            .into_iter()
            .find(|actor| actor.role() == name)
    }
}

impl fmt::Display for Actor {
    /// The trace name: the role, and `/NODE` for a node's actor.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Actor::Client(name) = self {
            return f.write_str(name);
        }
        f.write_str(self.role())?;
        if let Some(node) = self.node() {
            f.write_str("/")?;
            f.write_str(node)?;
        }
        Ok(())
    }
}

impl Serialize for Actor {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_trace_names_and_read_back() {
        let node: NodeName = Arc::from("node-1");
        let cases = [
            (Actor::Kubectl, "kubectl"),
            (Actor::ApiServer, "kube-apiserver"),
            (Actor::Etcd, "etcd"),
            (Actor::ControllerManager, "kube-controller-manager"),
            (Actor::Scheduler, "kube-scheduler"),
            (Actor::Registry, "registry"),
            (Actor::Kubelet(node.clone()), "kubelet/node-1"),
            (Actor::Containerd(node.clone()), "containerd/node-1"),
            (Actor::Cni(node.clone()), "cni/node-1"),
            (Actor::Csi(node.clone()), "csi/node-1"),
            (Actor::KubeProxy(node), "kube-proxy/node-1"),
            (
                Actor::Client(Arc::from("kubectl/v1.33.1")),
                "kubectl/v1.33.1",
            ),
        ];
        for (actor, name) in cases {
            assert_eq!(actor.to_string(), name);
            assert_eq!(
                serde_json::to_string(&actor).unwrap(),
                format!("\"{name}\"")
            );
            assert_eq!(Actor::parse(name), Some(actor.clone()));
        }
        assert_eq!(Actor::parse("kubelet"), None);
        // Any other name with a `/` is a client of `podflow serve`, named by its user agent.
        assert_eq!(
            Actor::parse("curl/8.5.0"),
            Some(Actor::Client(Arc::from("curl/8.5.0")))
        );
    }
}
