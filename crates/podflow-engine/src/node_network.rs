//! The network data every Node of a real cluster has, given to the Nodes a
//! cluster file leaves without it: a Pod CIDR, as kube-controller-manager's
//! range allocator hands out `/24`s of `--cluster-cidr` (kubeadm with flannel:
//! `10.244.0.0/16`; `pkg/controller/nodeipam/ipam/range_allocator.go`), and the
//! addresses the kubelet reports (`InternalIP`, `Hostname`;
//! `pkg/kubelet/nodestatus/setters.go`, `NodeAddress`), on the `172.18.0.0/16`
//! network kind's nodes sit on. Written values are kept; the rest are handed
//! out in file order, skipping those already taken.

use std::collections::BTreeSet;
use std::net::Ipv4Addr;

use k8s_openapi::api::core::v1::{NodeAddress, NodeSpec, NodeStatus};
use podflow_model::Object;

/// The first address of the cluster CIDR.
const CLUSTER_CIDR_BASE: Ipv4Addr = Ipv4Addr::new(10, 244, 0, 0);
/// The first node address handed out (`.1` is the network's gateway).
const NODE_NETWORK_FIRST: Ipv4Addr = Ipv4Addr::new(172, 18, 0, 2);

/// Gives each Node without a `podCIDR` or addresses its own.
pub fn fill(objects: &mut [Object]) {
    let nodes = || objects.iter().filter_map(Object::as_node);
    let mut cidrs: BTreeSet<String> = nodes()
        .filter_map(|n| n.spec.as_ref()?.pod_cidr.clone())
        .collect();
    let mut addresses: BTreeSet<String> = nodes()
        .filter_map(|n| n.status.as_ref()?.addresses.clone())
        .flatten()
        .filter(|a| a.type_ == "InternalIP")
        .map(|a| a.address)
        .collect();
    let (mut next_cidr, mut next_address) = (0u32, 0u32);
    for object in objects.iter_mut() {
        let Object::Node(node) = object else {
            continue;
        };
        let spec = node.spec.get_or_insert_with(NodeSpec::default);
        if spec.pod_cidr.is_none() {
            let cidr = take_free(&mut cidrs, &mut next_cidr, pod_cidr);
            spec.pod_cidrs = Some(vec![cidr.clone()]);
            spec.pod_cidr = Some(cidr);
        }
        let name = node.metadata.name.clone().unwrap_or_default();
        let status = node.status.get_or_insert_with(NodeStatus::default);
        if status.addresses.as_ref().is_none_or(Vec::is_empty) {
            let ip = take_free(&mut addresses, &mut next_address, node_address);
            status.addresses = Some(vec![
                NodeAddress {
                    type_: "InternalIP".into(),
                    address: ip,
                },
                NodeAddress {
                    type_: "Hostname".into(),
                    address: name,
                },
            ]);
        }
    }
}

/// The `n`th `/24` of the cluster CIDR.
fn pod_cidr(n: u32) -> String {
    let base = u32::from(CLUSTER_CIDR_BASE).saturating_add(n.saturating_mul(256));
    format!("{}/24", Ipv4Addr::from(base))
}

/// The `n`th node address.
fn node_address(n: u32) -> String {
    Ipv4Addr::from(u32::from(NODE_NETWORK_FIRST).saturating_add(n)).to_string()
}

/// The first value of `nth` from `next` on that is not taken; takes it.
fn take_free(taken: &mut BTreeSet<String>, next: &mut u32, nth: fn(u32) -> String) -> String {
    loop {
        let value = nth(*next);
        *next = next.saturating_add(1);
        if taken.insert(value.clone()) {
            return value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(value: serde_json::Value) -> Object {
        Object::Node(serde_json::from_value(value).unwrap())
    }

    fn network(object: &Object) -> (String, String) {
        let node = object.as_node().unwrap();
        let cidr = node.spec.as_ref().unwrap().pod_cidr.clone().unwrap();
        let ip = node.status.as_ref().unwrap().addresses.as_ref().unwrap()[0]
            .address
            .clone();
        (cidr, ip)
    }

    #[test]
    fn bare_nodes_get_the_next_free_cidr_and_address() {
        let mut objects = vec![
            node(json!({"metadata": {"name": "a"}})),
            node(
                json!({"metadata": {"name": "b"}, "spec": {"podCIDR": "10.244.0.0/24"},
                        "status": {"addresses": [{"type": "InternalIP", "address": "172.18.0.2"}]}}),
            ),
            node(json!({"metadata": {"name": "c"}})),
        ];
        fill(&mut objects);
        let got: Vec<_> = objects.iter().map(network).collect();
        assert_eq!(
            got,
            [
                ("10.244.1.0/24".into(), "172.18.0.3".into()),
                ("10.244.0.0/24".into(), "172.18.0.2".into()),
                ("10.244.2.0/24".into(), "172.18.0.4".into()),
            ]
        );
        let a = objects[0].as_node().unwrap();
        assert_eq!(
            a.spec.as_ref().unwrap().pod_cidrs,
            Some(vec!["10.244.1.0/24".to_owned()])
        );
        let hostname = &a.status.as_ref().unwrap().addresses.as_ref().unwrap()[1];
        assert_eq!(
            (hostname.type_.as_str(), hostname.address.as_str()),
            ("Hostname", "a")
        );
    }
}
