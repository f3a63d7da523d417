//! core/v1: where a Pod may run: tolerations, affinities, node selectors,
//! topology spread.
//!
//! Mirrors upstream `k8s.io/api/core/v1/generated.proto` (Kubernetes 1.36:
//! kubernetes/api and kubernetes/apimachinery v0.36.3): field numbers and
//! wire types from that file; JSON names, `omitempty` and which fields are
//! pointers from the Go types (`types.go`) beside it. See `schema.rs` for
//! what `always`, `omitempty`, `pointer`, `list`… mean.

use super::meta::LABEL_SELECTOR;
use crate::protobuf::schema::{Message, Ty, always, list, list_or_null, omitempty, pointer};

pub(crate) static AFFINITY: Message = Message {
    name: "k8s.io.api.core.v1.Affinity",
    fields: &[
        pointer(1, "nodeAffinity", Ty::Message(&NODE_AFFINITY)),
        pointer(2, "podAffinity", Ty::Message(&POD_AFFINITY)),
        pointer(3, "podAntiAffinity", Ty::Message(&POD_ANTI_AFFINITY)),
    ],
};

pub(crate) static NODE_AFFINITY: Message = Message {
    name: "k8s.io.api.core.v1.NodeAffinity",
    fields: &[
        pointer(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            Ty::Message(&NODE_SELECTOR),
        ),
        list(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            Ty::Message(&PREFERRED_SCHEDULING_TERM),
        ),
    ],
};

pub(crate) static NODE_SELECTOR: Message = Message {
    name: "k8s.io.api.core.v1.NodeSelector",
    fields: &[list_or_null(
        1,
        "nodeSelectorTerms",
        Ty::Message(&NODE_SELECTOR_TERM),
    )],
};

pub(crate) static NODE_SELECTOR_REQUIREMENT: Message = Message {
    name: "k8s.io.api.core.v1.NodeSelectorRequirement",
    fields: &[
        always(1, "key", Ty::String),
        always(2, "operator", Ty::String),
        list(3, "values", Ty::String),
    ],
};

pub(crate) static NODE_SELECTOR_TERM: Message = Message {
    name: "k8s.io.api.core.v1.NodeSelectorTerm",
    fields: &[
        list(
            1,
            "matchExpressions",
            Ty::Message(&NODE_SELECTOR_REQUIREMENT),
        ),
        list(2, "matchFields", Ty::Message(&NODE_SELECTOR_REQUIREMENT)),
    ],
};

pub(crate) static POD_AFFINITY: Message = Message {
    name: "k8s.io.api.core.v1.PodAffinity",
    fields: &[
        list(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            Ty::Message(&POD_AFFINITY_TERM),
        ),
        list(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            Ty::Message(&WEIGHTED_POD_AFFINITY_TERM),
        ),
    ],
};

pub(crate) static POD_AFFINITY_TERM: Message = Message {
    name: "k8s.io.api.core.v1.PodAffinityTerm",
    fields: &[
        pointer(1, "labelSelector", Ty::Message(&LABEL_SELECTOR)),
        list(2, "namespaces", Ty::String),
        always(3, "topologyKey", Ty::String),
        pointer(4, "namespaceSelector", Ty::Message(&LABEL_SELECTOR)),
        list(5, "matchLabelKeys", Ty::String),
        list(6, "mismatchLabelKeys", Ty::String),
    ],
};

pub(crate) static POD_ANTI_AFFINITY: Message = Message {
    name: "k8s.io.api.core.v1.PodAntiAffinity",
    fields: &[
        list(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            Ty::Message(&POD_AFFINITY_TERM),
        ),
        list(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            Ty::Message(&WEIGHTED_POD_AFFINITY_TERM),
        ),
    ],
};

pub(crate) static PREFERRED_SCHEDULING_TERM: Message = Message {
    name: "k8s.io.api.core.v1.PreferredSchedulingTerm",
    fields: &[
        always(1, "weight", Ty::Int32),
        always(2, "preference", Ty::Message(&NODE_SELECTOR_TERM)),
    ],
};

pub(crate) static TOLERATION: Message = Message {
    name: "k8s.io.api.core.v1.Toleration",
    fields: &[
        omitempty(1, "key", Ty::String),
        omitempty(2, "operator", Ty::String),
        omitempty(3, "value", Ty::String),
        omitempty(4, "effect", Ty::String),
        pointer(5, "tolerationSeconds", Ty::Int64),
    ],
};

pub(crate) static TOPOLOGY_SPREAD_CONSTRAINT: Message = Message {
    name: "k8s.io.api.core.v1.TopologySpreadConstraint",
    fields: &[
        always(1, "maxSkew", Ty::Int32),
        always(2, "topologyKey", Ty::String),
        always(3, "whenUnsatisfiable", Ty::String),
        pointer(4, "labelSelector", Ty::Message(&LABEL_SELECTOR)),
        pointer(5, "minDomains", Ty::Int32),
        pointer(6, "nodeAffinityPolicy", Ty::String),
        pointer(7, "nodeTaintsPolicy", Ty::String),
        list(8, "matchLabelKeys", Ty::String),
    ],
};

pub(crate) static WEIGHTED_POD_AFFINITY_TERM: Message = Message {
    name: "k8s.io.api.core.v1.WeightedPodAffinityTerm",
    fields: &[
        always(1, "weight", Ty::Int32),
        always(2, "podAffinityTerm", Ty::Message(&POD_AFFINITY_TERM)),
    ],
};
