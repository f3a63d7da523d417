//! A scheduler profile's plugins, built once from its configuration
//! (`config::Profile`) through the registry: the filters in order, the scorers
//! with their weights, and the share of nodes to score. The configuration
//! refused any name the registry lacks; the registry's plugins podflow does
//! not simulate (the volume plugins, `DynamicResources`, ...) are left out.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::config::{self, Profile};
use super::framework::{
    BindPlugin, FilterPlugin, PermitPlugin, PostFilterPlugin, PreBindPlugin, ReservePlugin,
    ScorePlugin,
};
use super::registry::{self, Instance};

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
        let built = build_needed(profile);
        ProfilePlugins {
            scheduler_name: profile.scheduler_name.clone(),
            filters: handles(&built, &profile.filters, |p| p.filter.as_ref()),
            scorers: profile
                .scorers
                .iter()
                .filter_map(|(name, weight)| {
                    let plugin = built.get(name.as_str())?.score.clone()?;
                    Some((plugin, *weight))
                })
                .collect(),
            post_filters: handles(&built, &profile.post_filters, |p| p.post_filter.as_ref()),
            // Of upstream's Reserve and PreBind plugins podflow has
            // `VolumeBinding`; none of its Permit plugins (`DynamicResources`
            // needs devices it does not simulate).
            reservers: handles(&built, &profile.reservers, |p| p.reserve.as_ref()),
            permits: Vec::new(),
            pre_binders: handles(&built, &profile.pre_binders, |p| p.pre_bind.as_ref()),
            binders: handles(&built, &profile.binders, |p| p.bind.as_ref()),
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

/// Every plugin the profile names at some extension point, built once
/// (upstream's `pluginsNeeded`, then each one's factory), by name.
fn build_needed(profile: &Profile) -> BTreeMap<&'static str, Instance> {
    let lists = [
        &profile.filters,
        &profile.post_filters,
        &profile.reservers,
        &profile.permits,
        &profile.pre_binders,
        &profile.binders,
    ];
    let needed = |name: &str| {
        lists.iter().any(|list| list.iter().any(|n| n == name))
            || profile.scorers.iter().any(|(n, _)| n == name)
    };
    registry::IN_TREE
        .iter()
        .filter(|plugin| needed(plugin.name))
        .filter_map(|plugin| Some((plugin.name, (plugin.build?)(profile))))
        .collect()
}

/// The handles of the plugins `names` at one extension point, in order.
fn handles<T: ?Sized>(
    built: &BTreeMap<&'static str, Instance>,
    names: &[String],
    handle: impl Fn(&Instance) -> Option<&Arc<T>>,
) -> Vec<Arc<T>> {
    names
        .iter()
        .filter_map(|name| built.get(name.as_str()).and_then(&handle).cloned())
        .collect()
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
