//! A scheduler profile's plugins, built once from its configuration
//! (`config::Profile`): the filters in order, the scorers with their weights,
//! and the share of nodes to score. Names podflow has no plugin for yet (the
//! volume plugins, `DynamicResources`, ...) are left out.

use std::sync::Arc;

use super::config::{self, Profile};
use super::framework::{
    BindPlugin, FilterPlugin, PermitPlugin, PostFilterPlugin, PreBindPlugin, ReservePlugin,
    ScorePlugin,
};
use super::plugins;

/// The runnable plugins of one profile.
#[derive(Clone)]
pub struct ProfilePlugins {
    /// `spec.schedulerName` of the pods this profile schedules.
    pub scheduler_name: String,
    pub filters: Vec<Arc<dyn FilterPlugin + Send + Sync>>,
    pub scorers: Vec<(Arc<dyn ScorePlugin + Send + Sync>, i64)>,
    /// `PostFilter` plugins, in order (`DefaultPreemption`).
    pub post_filters: Vec<Arc<dyn PostFilterPlugin + Send + Sync>>,
    /// Reserve, Permit, `PreBind` and Bind plugins, in order.
    pub reservers: Vec<Arc<dyn ReservePlugin + Send + Sync>>,
    pub permits: Vec<Arc<dyn PermitPlugin + Send + Sync>>,
    pub pre_binders: Vec<Arc<dyn PreBindPlugin + Send + Sync>>,
    pub binders: Vec<Arc<dyn BindPlugin + Send + Sync>>,
    /// `percentageOfNodesToScore`.
    pub percentage_of_nodes_to_score: Option<i32>,
}

impl ProfilePlugins {
    /// The plugins of `profile`.
    pub fn new(profile: &Profile) -> ProfilePlugins {
        ProfilePlugins {
            scheduler_name: profile.scheduler_name.clone(),
            filters: profile
                .filters
                .iter()
                .filter_map(|name| filter(name, profile))
                .collect(),
            scorers: profile
                .scorers
                .iter()
                .filter_map(|(name, weight)| scorer(name, profile).map(|p| (p, *weight)))
                .collect(),
            post_filters: profile
                .post_filters
                .iter()
                .filter_map(|n| post_filter(n))
                .collect(),
            // Of upstream's Reserve and PreBind plugins podflow has
            // `VolumeBinding`; none of its Permit plugins (`DynamicResources`
            // needs devices it does not simulate).
            reservers: profile
                .reservers
                .iter()
                .filter_map(|n| reserver(n))
                .collect(),
            permits: Vec::new(),
            pre_binders: profile
                .pre_binders
                .iter()
                .filter_map(|n| pre_binder(n))
                .collect(),
            binders: profile.binders.iter().filter_map(|n| binder(n)).collect(),
            percentage_of_nodes_to_score: profile.percentage_of_nodes_to_score,
        }
    }
}

impl Default for ProfilePlugins {
    /// The default profile (`default-scheduler`).
    fn default() -> ProfilePlugins {
        let profiles = config::profiles(None).unwrap_or_default();
        profiles.first().map_or_else(
            || ProfilePlugins {
                scheduler_name: config::DEFAULT_SCHEDULER_NAME.to_owned(),
                filters: Vec::new(),
                scorers: Vec::new(),
                post_filters: Vec::new(),
                reservers: Vec::new(),
                permits: Vec::new(),
                pre_binders: Vec::new(),
                binders: Vec::new(),
                percentage_of_nodes_to_score: None,
            },
            ProfilePlugins::new,
        )
    }
}

/// The Filter plugin named `name`, if podflow has it.
fn filter(name: &str, profile: &Profile) -> Option<Arc<dyn FilterPlugin + Send + Sync>> {
    Some(match name {
        "NodeUnschedulable" => Arc::new(plugins::node_unschedulable::NodeUnschedulable),
        "NodeName" => Arc::new(plugins::node_name::NodeName),
        "TaintToleration" => Arc::new(plugins::taint_toleration::TaintToleration),
        "NodeAffinity" => Arc::new(plugins::node_affinity::NodeAffinity),
        "NodePorts" => Arc::new(plugins::node_ports::NodePorts),
        "NodeResourcesFit" => Arc::new(plugins::node_resources_fit::NodeResourcesFit::new(
            profile.fit.clone(),
        )),
        "PodTopologySpread" => Arc::new(plugins::pod_topology_spread::PodTopologySpread),
        "InterPodAffinity" => Arc::new(plugins::inter_pod_affinity::InterPodAffinity),
        "VolumeBinding" => Arc::new(plugins::volume_binding::VolumeBinding),
        _ => return None,
    })
}

/// The Reserve plugin named `name`, if podflow has it.
fn reserver(name: &str) -> Option<Arc<dyn ReservePlugin + Send + Sync>> {
    match name {
        "VolumeBinding" => Some(Arc::new(plugins::volume_binding::VolumeBinding)),
        _ => None,
    }
}

/// The `PreBind` plugin named `name`, if podflow has it.
fn pre_binder(name: &str) -> Option<Arc<dyn PreBindPlugin + Send + Sync>> {
    match name {
        "VolumeBinding" => Some(Arc::new(plugins::volume_binding::VolumeBinding)),
        _ => None,
    }
}

/// The `PostFilter` plugin named `name`, if podflow has it.
fn post_filter(name: &str) -> Option<Arc<dyn PostFilterPlugin + Send + Sync>> {
    match name {
        "DefaultPreemption" => Some(Arc::new(plugins::default_preemption::DefaultPreemption)),
        _ => None,
    }
}

/// The Bind plugin named `name`, if podflow has it.
fn binder(name: &str) -> Option<Arc<dyn BindPlugin + Send + Sync>> {
    match name {
        "DefaultBinder" => Some(Arc::new(plugins::default_binder::DefaultBinder)),
        _ => None,
    }
}

/// The Score plugin named `name`, if podflow has it.
fn scorer(name: &str, profile: &Profile) -> Option<Arc<dyn ScorePlugin + Send + Sync>> {
    Some(match name {
        "TaintToleration" => Arc::new(plugins::taint_toleration::TaintToleration),
        "NodeAffinity" => Arc::new(plugins::node_affinity::NodeAffinity),
        "NodeResourcesFit" => Arc::new(plugins::node_resources_fit::NodeResourcesFit::new(
            profile.fit.clone(),
        )),
        "NodeResourcesBalancedAllocation" => Arc::new(
            plugins::balanced_allocation::BalancedAllocation::new(profile.balanced.clone()),
        ),
        "ImageLocality" => Arc::new(plugins::image_locality::ImageLocality),
        "PodTopologySpread" => Arc::new(plugins::pod_topology_spread::PodTopologySpread),
        "InterPodAffinity" => Arc::new(plugins::inter_pod_affinity::InterPodAffinity),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_profile_runs_the_plugins_podflow_has_in_upstream_order() {
        let p = ProfilePlugins::default();
        assert_eq!(p.scheduler_name, "default-scheduler");
        let filters: Vec<&str> = p.filters.iter().map(|f| f.name()).collect();
        assert_eq!(
            filters,
            [
                "NodeUnschedulable",
                "NodeName",
                "TaintToleration",
                "NodeAffinity",
                "NodePorts",
                "NodeResourcesFit",
                "VolumeBinding",
                "PodTopologySpread",
                "InterPodAffinity"
            ]
        );
        let reservers: Vec<&str> = p.reservers.iter().map(|r| r.name()).collect();
        assert_eq!(reservers, ["VolumeBinding"]);
        let pre_binders: Vec<&str> = p.pre_binders.iter().map(|r| r.name()).collect();
        assert_eq!(pre_binders, ["VolumeBinding"]);
        let post_filters: Vec<&str> = p.post_filters.iter().map(|f| f.name()).collect();
        assert_eq!(post_filters, ["DefaultPreemption"]);
        let binders: Vec<&str> = p.binders.iter().map(|b| b.name()).collect();
        assert_eq!(binders, ["DefaultBinder"]);
        let scorers: Vec<(&str, i64)> = p.scorers.iter().map(|(s, w)| (s.name(), *w)).collect();
        assert_eq!(
            scorers,
            [
                ("TaintToleration", 3),
                ("NodeAffinity", 2),
                ("NodeResourcesFit", 1),
                ("PodTopologySpread", 2),
                ("InterPodAffinity", 2),
                ("NodeResourcesBalancedAllocation", 1),
                ("ImageLocality", 1)
            ]
        );
    }
}
