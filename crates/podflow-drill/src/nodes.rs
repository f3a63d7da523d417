//! The drill's nodes: a tainted control plane and three workers as in the
//! default cluster (4 CPU, 8Gi, 110 Pods), with what faults change on them
//! (labels, taints, `spec.unschedulable`) written into the cluster file.

use std::fmt::Write as _;

use crate::yaml::quote;

/// The workers' names.
pub const WORKERS: [&str; 3] = ["node-1", "node-2", "node-3"];

/// One node as the drill's cluster file has it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub labels: Vec<(String, String)>,
    /// Key, value and effect.
    pub taints: Vec<(String, String, String)>,
    pub unschedulable: bool,
}

/// The drill's nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nodes {
    pub workers: Vec<Node>,
}

impl Default for Nodes {
    fn default() -> Nodes {
        Nodes {
            workers: WORKERS
                .iter()
                .map(|n| Node {
                    name: (*n).to_owned(),
                    ..Node::default()
                })
                .collect(),
        }
    }
}

impl Nodes {
    /// The worker named `name`.
    pub fn worker(&mut self, name: &str) -> Option<&mut Node> {
        self.workers.iter_mut().find(|n| n.name == name)
    }

    /// The Node objects of the cluster file.
    pub fn yaml(&self) -> Vec<String> {
        let mut docs = vec![node_yaml(
            "control-plane",
            0,
            &[(
                "node-role.kubernetes.io/control-plane".into(),
                String::new(),
            )],
            &[(
                "node-role.kubernetes.io/control-plane".into(),
                String::new(),
                "NoSchedule".into(),
            )],
            false,
        )];
        for (i, node) in self.workers.iter().enumerate() {
            docs.push(node_yaml(
                &node.name,
                i + 1,
                &node.labels,
                &node.taints,
                node.unschedulable,
            ));
        }
        docs
    }
}

fn node_yaml(
    name: &str,
    index: usize,
    labels: &[(String, String)],
    taints: &[(String, String, String)],
    unschedulable: bool,
) -> String {
    let mut text = format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels:\n    kubernetes.io/hostname: {name}\n    kubernetes.io/os: linux\n    kubernetes.io/arch: amd64\n"
    );
    for (k, v) in labels {
        let _ = writeln!(text, "    {k}: {}", quote(v));
    }
    let _ = writeln!(text, "spec:\n  podCIDR: 10.244.{index}.0/24");
    if unschedulable {
        text.push_str("  unschedulable: true\n");
    }
    let taints: Vec<String> = taints
        .iter()
        .map(|(k, v, e)| {
            if v.is_empty() {
                format!("    - {{key: {k}, effect: {e}}}\n")
            } else {
                format!("    - {{key: {k}, value: {}, effect: {e}}}\n", quote(v))
            }
        })
        .collect();
    if !taints.is_empty() {
        text.push_str("  taints:\n");
        text.push_str(&taints.concat());
    }
    let _ = write!(
        text,
        "status:\n  capacity: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n  allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n  addresses: [{{type: InternalIP, address: 172.18.0.{}}}]\n",
        index + 2
    );
    text
}
