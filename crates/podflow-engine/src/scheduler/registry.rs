//! The in-tree plugin registry: one entry per plugin kube-scheduler ships,
//! the one place a plugin is named. The configuration reads it for the names
//! that exist, the extension points each implements and the default profile
//! with its weights; a profile reads it to build the plugins it runs; the
//! queue reads it for the events that may make a rejected Pod schedulable.
//! Mirrors `pkg/scheduler/framework/plugins/registry.go` (`NewInTreeRegistry`)
//! and `pkg/scheduler/apis/config/v1/default_plugins.go` (`getDefaultPlugins`).

use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;

use super::config::Profile;
use super::events::ClusterEvent;
use super::extension_point::ExtensionPoint::{
    self, Bind, Filter, PostFilter, PreBind, PreEnqueue, PreFilter, PreScore, QueueSort, Reserve,
    Score,
};
use super::framework::{
    BindPlugin, FilterPlugin, PostFilterPlugin, PreBindPlugin, ReservePlugin, ScorePlugin,
};
use super::plugins::balanced_allocation::BalancedAllocation;
use super::plugins::default_binder::DefaultBinder;
use super::plugins::default_preemption::DefaultPreemption;
use super::plugins::image_locality::ImageLocality;
use super::plugins::inter_pod_affinity::InterPodAffinity;
use super::plugins::node_affinity::NodeAffinity;
use super::plugins::node_name::NodeName;
use super::plugins::node_ports::NodePorts;
use super::plugins::node_resources_fit::NodeResourcesFit;
use super::plugins::node_unschedulable::NodeUnschedulable;
use super::plugins::pod_topology_spread::PodTopologySpread;
use super::plugins::taint_toleration::TaintToleration;
use super::plugins::volume_binding::VolumeBinding;
use super::queueing_hints as hints;

/// One in-tree plugin.
pub struct InTreePlugin {
    /// Its name, as upstream spells it (`names.NodeResourcesFit`).
    pub name: &'static str,
    /// The extension points upstream's plugin implements: where a
    /// configuration may enable it.
    pub points: &'static [ExtensionPoint],
    /// Its weight in the default profile (`getDefaultPlugins`); `None` where
    /// upstream gives none (a Score plugin then weighs 1).
    pub default_weight: Option<i64>,
    /// Builds it for a profile (upstream's factory); `None` for the plugins
    /// podflow does not simulate (volumes, devices), which a profile accepts
    /// and leaves out.
    pub build: Option<fn(&Profile) -> Instance>,
    /// Its `EventsToRegister` and their `QueueingHintFn`s: whether an event
    /// may make a Pod it rejected schedulable; `None` for the plugins that
    /// reject no Pod in podflow.
    pub queueing_hint: Option<fn(&ClusterEvent, &Pod) -> bool>,
}

impl InTreePlugin {
    /// Whether upstream's plugin implements `point`.
    pub fn implements(&self, point: ExtensionPoint) -> bool {
        self.points.contains(&point)
    }
}

/// A plugin built for one profile: the handles podflow runs it through, one
/// for each extension point its implementation has.
#[derive(Default)]
pub struct Instance {
    pub filter: Option<Arc<dyn FilterPlugin + Send + Sync>>,
    pub score: Option<Arc<dyn ScorePlugin + Send + Sync>>,
    pub post_filter: Option<Arc<dyn PostFilterPlugin + Send + Sync>>,
    pub reserve: Option<Arc<dyn ReservePlugin + Send + Sync>>,
    pub pre_bind: Option<Arc<dyn PreBindPlugin + Send + Sync>>,
    pub bind: Option<Arc<dyn BindPlugin + Send + Sync>>,
}

impl Instance {
    fn filter(plugin: impl FilterPlugin + Send + Sync + 'static) -> Instance {
        Instance {
            filter: Some(Arc::new(plugin)),
            ..Instance::default()
        }
    }

    fn score(plugin: impl ScorePlugin + Send + Sync + 'static) -> Instance {
        Instance {
            score: Some(Arc::new(plugin)),
            ..Instance::default()
        }
    }

    fn filter_and_score(
        plugin: impl FilterPlugin + ScorePlugin + Send + Sync + 'static,
    ) -> Instance {
        let plugin = Arc::new(plugin);
        Instance {
            filter: Some(plugin.clone()),
            score: Some(plugin),
            ..Instance::default()
        }
    }
}

/// Every in-tree plugin, in the order of the default profile's `MultiPoint`
/// set (`getDefaultPlugins` with the default feature gates:
/// `DynamicResources` before `DefaultPreemption`), which holds them all.
pub static IN_TREE: &[InTreePlugin] = &[
    InTreePlugin {
        name: "SchedulingGates",
        points: &[PreEnqueue],
        default_weight: None,
        build: None,
        queueing_hint: None,
    },
    InTreePlugin {
        name: "PrioritySort",
        points: &[QueueSort],
        default_weight: None,
        build: None,
        queueing_hint: None,
    },
    InTreePlugin {
        name: "NodeUnschedulable",
        points: &[Filter],
        default_weight: None,
        build: Some(|_| Instance::filter(NodeUnschedulable)),
        queueing_hint: Some(hints::node_unschedulable),
    },
    InTreePlugin {
        name: "NodeName",
        points: &[Filter],
        default_weight: None,
        build: Some(|_| Instance::filter(NodeName)),
        queueing_hint: Some(hints::node_name),
    },
    InTreePlugin {
        name: "TaintToleration",
        points: &[Filter, PreScore, Score],
        default_weight: Some(3),
        build: Some(|_| Instance::filter_and_score(TaintToleration)),
        queueing_hint: Some(hints::taint_toleration),
    },
    InTreePlugin {
        name: "NodeAffinity",
        points: &[PreFilter, Filter, PreScore, Score],
        default_weight: Some(2),
        build: Some(|_| Instance::filter_and_score(NodeAffinity)),
        queueing_hint: Some(hints::node_affinity),
    },
    InTreePlugin {
        name: "NodePorts",
        points: &[PreFilter, Filter],
        default_weight: None,
        build: Some(|_| Instance::filter(NodePorts)),
        queueing_hint: Some(hints::node_ports),
    },
    InTreePlugin {
        name: "NodeResourcesFit",
        points: &[PreFilter, Filter, PreScore, Score],
        default_weight: Some(1),
        build: Some(|profile| {
            Instance::filter_and_score(NodeResourcesFit::new(profile.fit.clone()))
        }),
        queueing_hint: Some(hints::node_resources_fit),
    },
    InTreePlugin {
        name: "VolumeRestrictions",
        points: &[PreFilter, Filter],
        default_weight: None,
        build: None,
        queueing_hint: None,
    },
    InTreePlugin {
        name: "NodeVolumeLimits",
        points: &[PreFilter, Filter],
        default_weight: None,
        build: None,
        queueing_hint: None,
    },
    // podflow runs its Filter, Reserve and PreBind; its Score (storage
    // capacity scoring, off by default) is left out.
    InTreePlugin {
        name: "VolumeBinding",
        points: &[PreFilter, Filter, Reserve, PreScore, Score, PreBind],
        default_weight: None,
        build: Some(|_| {
            let plugin = Arc::new(VolumeBinding);
            Instance {
                filter: Some(plugin.clone()),
                reserve: Some(plugin.clone()),
                pre_bind: Some(plugin),
                ..Instance::default()
            }
        }),
        queueing_hint: Some(hints::volume_binding),
    },
    InTreePlugin {
        name: "VolumeZone",
        points: &[PreFilter, Filter],
        default_weight: None,
        build: None,
        queueing_hint: None,
    },
    InTreePlugin {
        name: "PodTopologySpread",
        points: &[PreFilter, Filter, PreScore, Score],
        default_weight: Some(2),
        build: Some(|_| Instance::filter_and_score(PodTopologySpread)),
        queueing_hint: Some(hints::pod_topology_spread),
    },
    InTreePlugin {
        name: "InterPodAffinity",
        points: &[PreFilter, Filter, PreScore, Score],
        default_weight: Some(2),
        build: Some(|_| Instance::filter_and_score(InterPodAffinity)),
        queueing_hint: Some(hints::inter_pod_affinity),
    },
    InTreePlugin {
        name: "DynamicResources",
        points: &[
            PreEnqueue, PreFilter, Filter, PostFilter, PreScore, Score, Reserve, PreBind,
        ],
        default_weight: Some(2),
        build: None,
        queueing_hint: None,
    },
    InTreePlugin {
        name: "DefaultPreemption",
        points: &[PostFilter],
        default_weight: None,
        build: Some(|_| Instance {
            post_filter: Some(Arc::new(DefaultPreemption)),
            ..Instance::default()
        }),
        queueing_hint: None,
    },
    InTreePlugin {
        name: "NodeResourcesBalancedAllocation",
        points: &[PreScore, Score],
        default_weight: Some(1),
        build: Some(|profile| Instance::score(BalancedAllocation::new(profile.balanced.clone()))),
        queueing_hint: None,
    },
    InTreePlugin {
        name: "ImageLocality",
        points: &[Score],
        default_weight: Some(1),
        build: Some(|_| Instance::score(ImageLocality)),
        queueing_hint: None,
    },
    InTreePlugin {
        name: "DefaultBinder",
        points: &[Bind],
        default_weight: None,
        build: Some(|_| Instance {
            bind: Some(Arc::new(DefaultBinder)),
            ..Instance::default()
        }),
        queueing_hint: None,
    },
];

/// The in-tree plugin named `name`, if there is one.
pub fn find(name: &str) -> Option<&'static InTreePlugin> {
    IN_TREE.iter().find(|plugin| plugin.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::config;

    #[test]
    fn every_plugin_is_named_once() {
        for (at, plugin) in IN_TREE.iter().enumerate() {
            assert!(
                IN_TREE[..at].iter().all(|p| p.name != plugin.name),
                "{} twice",
                plugin.name
            );
            assert!(std::ptr::eq(find(plugin.name).unwrap(), plugin));
        }
        assert!(find("Foo").is_none());
    }

    #[test]
    fn what_podflow_builds_is_what_upstream_implements_under_the_same_name() {
        let profile = &config::profiles(None).unwrap()[0];
        for plugin in IN_TREE {
            let Some(constructor) = plugin.build else {
                assert!(plugin.queueing_hint.is_none(), "{}", plugin.name);
                continue;
            };
            let built = constructor(profile);
            let handles = [
                (Filter, built.filter.as_ref().map(|p| p.name())),
                (Score, built.score.as_ref().map(|p| p.name())),
                (PostFilter, built.post_filter.as_ref().map(|p| p.name())),
                (Reserve, built.reserve.as_ref().map(|p| p.name())),
                (PreBind, built.pre_bind.as_ref().map(|p| p.name())),
                (Bind, built.bind.as_ref().map(|p| p.name())),
            ];
            assert!(handles.iter().any(|(_, h)| h.is_some()), "{}", plugin.name);
            for (point, handle) in handles {
                if let Some(name) = handle {
                    assert_eq!(name, plugin.name);
                    assert!(plugin.implements(point), "{} at {point:?}", plugin.name);
                }
            }
            // A plugin that filters can reject a Pod, so it says which events may help it.
            assert_eq!(
                built.filter.is_some(),
                plugin.queueing_hint.is_some(),
                "{}",
                plugin.name
            );
        }
    }

    #[test]
    fn weights_belong_to_scorers() {
        for plugin in IN_TREE {
            if plugin.default_weight.is_some() {
                assert!(plugin.implements(Score), "{}", plugin.name);
            }
        }
    }
}
