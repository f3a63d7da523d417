//! The resources `podflow attach` watches, and what podflow calls each.

use podflow_model::Kind;

/// A watched resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Watched {
    Pods,
    Nodes,
    /// `events.k8s.io/v1` Events: told as `event` records, not kept.
    Events,
    Deployments,
    ReplicaSets,
    Services,
    EndpointSlices,
    Jobs,
}

impl Watched {
    /// Every watched resource, in the order the watches start.
    pub const ALL: [Watched; 8] = [
        Watched::Nodes,
        Watched::Deployments,
        Watched::ReplicaSets,
        Watched::Jobs,
        Watched::Pods,
        Watched::Services,
        Watched::EndpointSlices,
        Watched::Events,
    ];

    /// The plural resource name (`pods`), as `watch` records name it.
    pub fn resource(self) -> &'static str {
        match self {
            Watched::Pods => "pods",
            Watched::Nodes => "nodes",
            Watched::Events => "events",
            Watched::Deployments => "deployments",
            Watched::ReplicaSets => "replicasets",
            Watched::Services => "services",
            Watched::EndpointSlices => "endpointslices",
            Watched::Jobs => "jobs",
        }
    }

    /// The kind (`Pod`).
    pub fn kind_name(self) -> &'static str {
        match self {
            Watched::Pods => "Pod",
            Watched::Nodes => "Node",
            Watched::Events => "Event",
            Watched::Deployments => "Deployment",
            Watched::ReplicaSets => "ReplicaSet",
            Watched::Services => "Service",
            Watched::EndpointSlices => "EndpointSlice",
            Watched::Jobs => "Job",
        }
    }

    /// podflow's kind, whose typed object holds it (the `core/v1` Event for
    /// Events, which are not kept).
    pub fn kind(self) -> &'static Kind {
        podflow_model::kinds::kind_of(self.kind_name())
    }

    /// Whether its objects live in a namespace.
    pub fn namespaced(self) -> bool {
        self != Watched::Nodes
    }

    /// The resource named `resource`.
    pub fn parse(resource: &str) -> Option<Watched> {
        Watched::ALL.into_iter().find(|w| w.resource() == resource)
    }
}
