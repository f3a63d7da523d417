//! Cluster files (`--cluster`) and the default cluster (docs/cluster-files.md, "The
//! default cluster" and "Cluster files"): real Kubernetes objects, one
//! `Simulation` object, and optionally a `KubeSchedulerConfiguration`.

use serde_json::Value;

use super::location::{InputError, Location};
use super::manifest::{DecodedObject, manifests_of, parse_documents};
use super::simulation::{SIMULATION_API_VERSION, Simulation};
use super::tree::{NodeValue, on_large_stack};

/// The group of kube-scheduler's configuration file.
pub const SCHEDULER_CONFIG_API_VERSION: &str = "kubescheduler.config.k8s.io/v1";

/// The default cluster's file, embedded in the binary.
const DEFAULT_CLUSTER_FILE: &str = "assets/clusters/default.yaml";
const DEFAULT_CLUSTER_YAML: &str = include_str!("../../../assets/clusters/default.yaml");

/// A cluster at the start of a simulation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClusterSpec {
    /// The objects the cluster holds, in file order.
    pub objects: Vec<DecodedObject>,
    /// Users and registry.
    pub simulation: Simulation,
    /// The `KubeSchedulerConfiguration` document as written (interpreted by the scheduler).
    pub scheduler_config: Option<Value>,
}

impl ClusterSpec {
    /// Whether the cluster defines at least one Node.
    pub fn has_nodes(&self) -> bool {
        self.node_count() > 0
    }

    /// How many Nodes the cluster defines.
    pub fn node_count(&self) -> usize {
        self.objects
            .iter()
            .filter(|m| m.object.as_node().is_some())
            .count()
    }
}

/// Reads a cluster file. Several `Simulation` documents add up; a second
/// `KubeSchedulerConfiguration` is an error, as kube-scheduler takes one.
pub fn parse_cluster(file: &str, bytes: &[u8]) -> Result<ClusterSpec, InputError> {
    on_large_stack(|| {
        let mut spec = ClusterSpec::default();
        for document in parse_documents(file, bytes)? {
            let node = &document.node;
            let field = |key: &str| match node.get(key).map(|n| &n.value) {
                Some(NodeValue::String(s)) => s.clone(),
                _ => String::new(),
            };
            let (api_version, kind) = (field("apiVersion"), field("kind"));
            match (api_version.as_str(), kind.as_str()) {
                (SIMULATION_API_VERSION, "Simulation") => {
                    spec.simulation.extend(Simulation::from_node(file, node)?);
                }
                (SCHEDULER_CONFIG_API_VERSION, "KubeSchedulerConfiguration") => {
                    if spec.scheduler_config.is_some() {
                        return Err(InputError::at(
                            &document.location,
                            "a cluster file holds at most one KubeSchedulerConfiguration",
                        ));
                    }
                    spec.scheduler_config = Some(node.to_json());
                }
                _ => manifests_of(file, node, &mut spec.objects)?,
            }
        }
        Ok(spec)
    })
}

/// The default cluster: a control-plane node, three workers, the four
/// namespaces and their `default` service accounts.
pub fn default_cluster() -> ClusterSpec {
    parse_cluster(DEFAULT_CLUSTER_FILE, DEFAULT_CLUSTER_YAML.as_bytes())
        .unwrap_or_else(|e| panic!("podflow's embedded default cluster must read: {e}"))
}

/// A cluster file on top of the default cluster, as docs/cluster-files.md says: a file
/// without a Node adds its objects to the default cluster; a file with a Node
/// replaces the default nodes. Default objects the file defines again (same kind,
/// namespace and name) give way to the file's.
pub fn merge_with_default(file_spec: ClusterSpec) -> ClusterSpec {
    let replace_nodes = file_spec.has_nodes();
    let defined = |m: &DecodedObject| {
        file_spec.objects.iter().any(|f| {
            f.object.kind() == m.object.kind()
                && f.object.name() == m.object.name()
                && f.object.namespace() == m.object.namespace()
        })
    };
    let mut objects: Vec<DecodedObject> = default_cluster()
        .objects
        .into_iter()
        .filter(|m| (!replace_nodes || m.object.as_node().is_none()) && !defined(m))
        .collect();
    objects.extend(file_spec.objects);
    ClusterSpec {
        objects,
        simulation: file_spec.simulation,
        scheduler_config: file_spec.scheduler_config,
    }
}

/// The location of the first object named `name` of kind `kind`, for messages.
pub fn location_of<'a>(spec: &'a ClusterSpec, kind: &str, name: &str) -> Option<&'a Location> {
    spec.objects
        .iter()
        .find(|m| m.object.kind().kind == kind && m.object.name() == name)
        .map(|m| &m.location)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(spec: &ClusterSpec) -> Vec<String> {
        spec.objects
            .iter()
            .map(|m| format!("{}/{}", m.object.kind().kind, m.object.namespaced_name()))
            .collect()
    }

    #[test]
    fn the_default_cluster_is_as_the_contract_says() {
        let spec = default_cluster();
        assert_eq!(
            names(&spec),
            [
                "Namespace/default",
                "Namespace/kube-system",
                "Namespace/kube-public",
                "Namespace/kube-node-lease",
                "ServiceAccount/default/default",
                "ServiceAccount/kube-system/default",
                "ServiceAccount/kube-public/default",
                "ServiceAccount/kube-node-lease/default",
                "Node/control-plane",
                "Node/node-1",
                "Node/node-2",
                "Node/node-3",
                "Service/default/kubernetes",
                "EndpointSlice/default/kubernetes",
                "Endpoints/default/kubernetes",
                "Service/kube-system/kube-dns",
                "EndpointSlice/kube-system/kube-dns-7xk2p",
                "Endpoints/kube-system/kube-dns",
                "CSIDriver/hostpath.csi.k8s.io",
                "StorageClass/standard",
                "ServiceAccount/kube-system/csi-provisioner",
                "ClusterRole/external-provisioner-runner",
                "ClusterRoleBinding/csi-provisioner-role",
            ]
        );
        assert!(
            spec.objects.iter().all(|m| m.unknown_fields.is_empty()),
            "{:?}",
            spec.objects
        );
        let cp = spec.objects[8].object.as_node().unwrap();
        let taint = &cp.spec.as_ref().unwrap().taints.as_ref().unwrap()[0];
        assert_eq!(
            (taint.key.as_str(), taint.effect.as_str()),
            ("node-role.kubernetes.io/control-plane", "NoSchedule")
        );
        let worker = spec.objects[9].object.as_node().unwrap();
        let status = worker.status.as_ref().unwrap();
        let allocatable = status.allocatable.as_ref().unwrap();
        assert_eq!(allocatable["cpu"].0, "4");
        assert_eq!(allocatable["memory"].0, "8Gi");
        assert_eq!(allocatable["pods"].0, "110");
        assert_eq!(
            status.node_info.as_ref().unwrap().kubelet_version,
            "v1.37.0"
        );
        assert!(spec.simulation == Simulation::default() && spec.scheduler_config.is_none());
    }

    #[test]
    fn a_file_without_nodes_adds_to_the_default() {
        let file = parse_cluster(
            "c.yaml",
            b"apiVersion: v1\nkind: Namespace\nmetadata: {name: dev}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: default, labels: {mine: x}}\n",
        )
        .unwrap();
        let merged = merge_with_default(file);
        let names = names(&merged);
        assert_eq!(names.len(), 24);
        assert!(names.contains(&"Node/node-3".to_owned()));
        assert_eq!(names.last().unwrap(), "ServiceAccount/default/default");
        assert_eq!(
            names
                .iter()
                .filter(|n| *n == "ServiceAccount/default/default")
                .count(),
            1
        );
    }

    #[test]
    fn a_file_with_nodes_replaces_the_default_nodes() {
        let file = parse_cluster(
            "c.yaml",
            b"apiVersion: v1\nkind: Node\nmetadata: {name: big}\n---\napiVersion: podflow.dev/v1alpha1\nkind: Simulation\nusers: [{name: jane, token: t}]\n---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 50\n",
        )
        .unwrap();
        assert_eq!(file.simulation.users[0].name, "jane");
        assert_eq!(
            file.scheduler_config.as_ref().unwrap()["percentageOfNodesToScore"],
            50
        );
        let merged = merge_with_default(file);
        let nodes: Vec<_> = merged
            .objects
            .iter()
            .filter_map(|m| m.object.as_node())
            .collect();
        assert_eq!(nodes.len(), 1);
        assert_eq!(names(&merged).len(), 20);
        assert_eq!(merged.simulation.users.len(), 1);
    }
}
