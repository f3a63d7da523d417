//! kube-scheduler's `KubeSchedulerConfiguration` (`kubescheduler.config.k8s.io/v1`)
//! turned into scheduling profiles, as kube-scheduler reads it: defaults
//! (`pkg/scheduler/apis/config/v1/defaults.go`, `default_plugins.go`:
//! `mergePluginSet` of the registry's default `MultiPoint` set), validation
//! (`pkg/scheduler/apis/config/validation/validation.go`), then the framework's
//! expansion of `MultiPoint` into extension points and its checks
//! (`pkg/scheduler/framework/runtime/framework.go`: `updatePluginList`,
//! `expandMultiPointPlugins`, `getScoreWeights`), with errors worded as
//! kube-scheduler prints them. `num_feasible_nodes_to_find` is
//! `pkg/scheduler/schedule_one.go`'s `numFeasibleNodesToFind`.

use serde_json::Value;

use super::extension_point::ExtensionPoint::{
    self, Bind, Filter, Permit, PostFilter, PreBind, QueueSort, Reserve, Score,
};
use super::plugins::balanced_allocation::{self, BalancedArgs};
use super::plugins::node_resources_fit::{
    self, FitArgs, ResourceSpec, ShapePoint, default_resources,
};
use super::registry;

/// The default profile's scheduler name (`v1.DefaultSchedulerName`).
pub const DEFAULT_SCHEDULER_NAME: &str = "default-scheduler";

/// One scheduling profile, ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub scheduler_name: String,
    /// Filter plugins, in the order they run.
    pub filters: Vec<String>,
    /// Score plugins with their weights, in the order they run.
    pub scorers: Vec<(String, i64)>,
    /// `PostFilter` plugins (`DefaultPreemption`), in order.
    pub post_filters: Vec<String>,
    /// Reserve, Permit and `PreBind` plugins, in order.
    pub reservers: Vec<String>,
    pub permits: Vec<String>,
    pub pre_binders: Vec<String>,
    /// Bind plugins, in order (`DefaultBinder`).
    pub binders: Vec<String>,
    pub fit: FitArgs,
    pub balanced: BalancedArgs,
    /// The profile's `percentageOfNodesToScore`, else the configuration's.
    pub percentage_of_nodes_to_score: Option<i32>,
}

/// `field.Path.Child`: `path.name`, or `name` at the root.
pub fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// `utilerrors.NewAggregate(errs).Error()`: nothing, the one message, or `[a, b]`.
pub fn aggregate(errs: &[String]) -> Option<String> {
    match errs {
        [] => None,
        [one] => Some(one.clone()),
        many => Some(format!("[{}]", many.join(", "))),
    }
}

/// Plugins removed from `kubescheduler.config.k8s.io/v1` (`invalidPluginsByVersion`).
const REMOVED: [&str; 4] = [
    "AzureDiskLimits",
    "CinderLimits",
    "EBSLimits",
    "GCEPDLimits",
];
const API_VERSION: &str = "kubescheduler.config.k8s.io/v1";

/// Whether the in-tree plugin `name` implements `point`; `None` when no
/// plugin has that name.
fn implements(name: &str, point: ExtensionPoint) -> Option<bool> {
    registry::find(name).map(|plugin| plugin.implements(point))
}

/// `updatePluginList`'s and `expandMultiPointPlugins`' refusal of a name no
/// plugin has (`pkg/scheduler/framework/runtime/framework.go`:
/// `"%s %q does not exist"`, the extension point's interface first).
fn does_not_exist(point: ExtensionPoint, name: &str) -> String {
    format!("{} {name:?} does not exist", point.interface())
}

/// One plugin of a set: its name and weight (`config.Plugin`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Plugin {
    name: String,
    weight: i64,
}

/// `config.PluginSet`.
#[derive(Debug, Clone, Default)]
struct PluginSet {
    enabled: Vec<Plugin>,
    disabled: Vec<String>,
}

impl PluginSet {
    fn disables(&self, name: &str) -> bool {
        self.disabled.iter().any(|d| d == name)
    }
}

/// A decoding error as the Go JSON decoder words a type mismatch.
fn type_error(value: &Value, field: &str, go_type: &str) -> String {
    let what = match value {
        Value::String(_) => "string".to_owned(),
        Value::Number(n) => format!("number {n}"),
        Value::Bool(_) => "bool".to_owned(),
        Value::Array(_) => "array".to_owned(),
        Value::Object(_) => "object".to_owned(),
        Value::Null => "null".to_owned(),
    };
    format!("json: cannot unmarshal {what} into Go struct field {field} of type {go_type}")
}

fn int32(value: &Value, field: &str) -> Result<i64, String> {
    value
        .as_i64()
        .filter(|n| i32::try_from(*n).is_ok())
        .ok_or_else(|| type_error(value, field, "int32"))
}

fn string(value: &Value, field: &str) -> Result<String, String> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| type_error(value, field, "string"))
}

fn items<'a>(value: Option<&'a Value>, field: &str, go_type: &str) -> Result<&'a [Value], String> {
    match value {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(type_error(other, field, go_type)),
    }
}

fn plugin_set(value: Option<&Value>) -> Result<PluginSet, String> {
    let mut set = PluginSet::default();
    let Some(value) = value else {
        return Ok(set);
    };
    for p in items(
        value.get("enabled"),
        "Plugins.profiles.plugins.enabled",
        "[]v1.Plugin",
    )? {
        let name = string(
            p.get("name").unwrap_or(&Value::Null),
            "Plugin.profiles.plugins.enabled.name",
        )?;
        let weight = match p.get("weight") {
            None | Some(Value::Null) => 0,
            Some(w) => int32(w, "Plugin.profiles.plugins.enabled.weight")?,
        };
        set.enabled.push(Plugin { name, weight });
    }
    for p in items(
        value.get("disabled"),
        "Plugins.profiles.plugins.disabled",
        "[]v1.Plugin",
    )? {
        set.disabled.push(string(
            p.get("name").unwrap_or(&Value::Null),
            "Plugin.profiles.plugins.disabled.name",
        )?);
    }
    Ok(set)
}

fn resource_specs(value: Option<&Value>, field: &str) -> Result<Vec<ResourceSpec>, String> {
    let mut out = Vec::new();
    for r in items(value, field, "[]v1.ResourceSpec")? {
        let name = string(r.get("name").unwrap_or(&Value::Null), "ResourceSpec.name")?;
        let weight = match r.get("weight") {
            None | Some(Value::Null) => 0,
            Some(w) => int32(w, "ResourceSpec.weight")?,
        };
        // SetDefaults: an unset weight is 1.
        out.push(ResourceSpec::new(
            &name,
            if weight == 0 { 1 } else { weight },
        ));
    }
    Ok(out)
}

fn strings(value: Option<&Value>, field: &str) -> Result<Vec<String>, String> {
    items(value, field, "[]string")?
        .iter()
        .map(|v| string(v, field))
        .collect()
}

/// `NodeResourcesFitArgs` from a `pluginConfig` entry, defaulted.
fn fit_args(args: &Value) -> Result<FitArgs, String> {
    let mut fit = FitArgs {
        ignored_resources: strings(
            args.get("ignoredResources"),
            "NodeResourcesFitArgs.ignoredResources",
        )?,
        ignored_resource_groups: strings(
            args.get("ignoredResourceGroups"),
            "NodeResourcesFitArgs.ignoredResourceGroups",
        )?,
        ..FitArgs::default()
    };
    if let Some(strategy) = args.get("scoringStrategy").filter(|s| !s.is_null()) {
        let s = &mut fit.scoring_strategy;
        s.kind = match strategy.get("type") {
            None | Some(Value::Null) => String::new(),
            Some(t) => string(t, "ScoringStrategy.scoringStrategy.type")?,
        };
        s.resources = resource_specs(
            strategy.get("resources"),
            "ScoringStrategy.scoringStrategy.resources",
        )?;
        if s.resources.is_empty() {
            s.resources = default_resources();
        }
        s.shape = match strategy
            .get("requestedToCapacityRatio")
            .filter(|r| !r.is_null())
        {
            None => None,
            Some(ratio) => Some(
                items(
                    ratio.get("shape"),
                    "RequestedToCapacityRatioParam.shape",
                    "[]v1.UtilizationShapePoint",
                )?
                .iter()
                .map(|p| {
                    Ok(ShapePoint {
                        utilization: int32(
                            p.get("utilization").unwrap_or(&Value::from(0)),
                            "UtilizationShapePoint.utilization",
                        )?,
                        score: int32(
                            p.get("score").unwrap_or(&Value::from(0)),
                            "UtilizationShapePoint.score",
                        )?,
                    })
                })
                .collect::<Result<_, String>>()?,
            ),
        };
    }
    Ok(fit)
}

/// A profile as written, with the defaults merged in.
struct RawProfile {
    name: Option<String>,
    multi_point: PluginSet,
    points: Vec<(ExtensionPoint, PluginSet)>,
    plugin_config: Vec<(String, Value)>,
    percentage: Option<i32>,
}

fn percentage(value: Option<&Value>, field: &str) -> Result<Option<i32>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => int32(v, field).map(|n| i32::try_from(n).ok()),
    }
}

/// `mergePluginSet` of the default `MultiPoint` set (every in-tree plugin,
/// with its default weight) with the profile's.
fn merge_multi_point(custom: PluginSet) -> PluginSet {
    let mut enabled = Vec::new();
    let mut replaced = Vec::new();
    if !custom.disables("*") {
        for default in registry::IN_TREE {
            let name = default.name;
            if custom.disables(name) {
                continue;
            }
            match custom.enabled.iter().position(|p| p.name == name) {
                Some(i) => {
                    enabled.push(custom.enabled[i].clone());
                    replaced.push(i);
                }
                None => enabled.push(Plugin {
                    name: name.to_owned(),
                    weight: default.default_weight.unwrap_or(0),
                }),
            }
        }
    }
    for (i, p) in custom.enabled.iter().enumerate() {
        if !replaced.contains(&i) {
            enabled.push(p.clone());
        }
    }
    PluginSet {
        enabled,
        disabled: custom.disabled,
    }
}

fn raw_profile(value: &Value) -> Result<RawProfile, String> {
    let name = match value.get("schedulerName") {
        None | Some(Value::Null) => None,
        Some(v) => Some(string(v, "KubeSchedulerProfile.profiles.schedulerName")?),
    };
    let plugins = value.get("plugins").filter(|p| !p.is_null());
    let multi_point = merge_multi_point(plugin_set(plugins.and_then(|p| p.get("multiPoint")))?);
    let mut points = Vec::new();
    for point in ExtensionPoint::ALL {
        points.push((point, plugin_set(plugins.and_then(|p| p.get(point.key())))?));
    }
    let mut plugin_config = Vec::new();
    for c in items(
        value.get("pluginConfig"),
        "KubeSchedulerProfile.profiles.pluginConfig",
        "[]v1.PluginConfig",
    )? {
        let name = string(
            c.get("name").unwrap_or(&Value::Null),
            "PluginConfig.profiles.pluginConfig.name",
        )?;
        plugin_config.push((name, c.get("args").cloned().unwrap_or(Value::Null)));
    }
    Ok(RawProfile {
        name,
        multi_point,
        points,
        plugin_config,
        percentage: percentage(
            value.get("percentageOfNodesToScore"),
            "KubeSchedulerProfile.profiles.percentageOfNodesToScore",
        )?,
    })
}

fn percentage_error(path: &str, value: Option<i32>) -> Option<String> {
    value
        .filter(|p| !(0..=100).contains(p))
        .map(|p| format!("{path}: Invalid value: {p}: not in valid range [0-100]"))
}

/// `ValidateKubeSchedulerConfiguration`, the parts podflow reads.
fn validate(profiles: &[RawProfile], global: Option<i32>) -> Vec<String> {
    let mut errs = Vec::new();
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for (i, p) in profiles.iter().enumerate() {
        let path = format!("profiles[{i}]");
        let name = p.name.as_deref().unwrap_or_default();
        if name.is_empty() {
            errs.push(format!("{path}.schedulerName: Required value"));
        }
        errs.extend(percentage_error(
            &child(&path, "percentageOfNodesToScore"),
            p.percentage,
        ));
        for (point, set) in &p.points {
            for (j, plugin) in set.enabled.iter().enumerate() {
                if REMOVED.contains(&plugin.name.as_str()) {
                    errs.push(format!(
                        "{path}.plugins.{}.enabled[{j}]: Invalid value: {:?}: was invalid in version {API_VERSION:?} (KubeSchedulerConfiguration is version {API_VERSION:?})",
                        point.key(),
                        plugin.name
                    ));
                }
            }
        }
        let mut seen_config: Vec<&str> = Vec::new();
        for (j, (config_name, args)) in p.plugin_config.iter().enumerate() {
            let at = format!("{path}.pluginConfig[{j}]");
            if seen_config.contains(&config_name.as_str()) {
                errs.push(format!("{at}: Duplicate value: {config_name:?}"));
            } else {
                seen_config.push(config_name);
            }
            if REMOVED.contains(&config_name.as_str()) {
                errs.push(format!(
                    "{at}: Invalid value: {config_name:?}: was invalid in version {API_VERSION:?} (KubeSchedulerConfiguration is version {API_VERSION:?})"
                ));
            } else if config_name == balanced_allocation::NAME
                && let Ok(args) = balanced_args(args)
            {
                errs.extend(args.errors(&child(&at, "args")));
            }
        }
        if let Some(&(_, first)) = seen.iter().find(|(n, _)| *n == name) {
            errs.push(format!(
                "{path}.schedulerName: Duplicate value: profiles[{first}].schedulerName"
            ));
        }
        seen.push((name, i));
    }
    errs.extend(percentage_error("percentageOfNodesToScore", global));
    errs
}

fn balanced_args(args: &Value) -> Result<BalancedArgs, String> {
    let resources = resource_specs(
        args.get("resources"),
        "NodeResourcesBalancedAllocationArgs.resources",
    )?;
    Ok(if resources.is_empty() {
        BalancedArgs::default()
    } else {
        BalancedArgs { resources }
    })
}

/// `NewFramework` for one profile: plugin args, per-point lists, `MultiPoint`
/// expansion, the queue-sort and bind checks, and the score weights.
fn build(p: &RawProfile, global: Option<i32>) -> Result<Profile, String> {
    let name = p.name.clone().unwrap_or_default();
    let config_of = |plugin: &str| {
        p.plugin_config
            .iter()
            .find(|(n, _)| n == plugin)
            .map(|(_, a)| a)
    };
    let fit = match config_of(node_resources_fit::NAME) {
        Some(args) => fit_args(args)?,
        None => FitArgs::default(),
    };
    let balanced = match config_of(balanced_allocation::NAME) {
        Some(args) => balanced_args(args)?,
        None => BalancedArgs::default(),
    };
    let needed = |plugin: &str| {
        p.multi_point.enabled.iter().any(|e| e.name == plugin)
            || p.points
                .iter()
                .any(|(_, s)| s.enabled.iter().any(|e| e.name == plugin))
    };
    if needed(node_resources_fit::NAME) {
        fit.validate()
            .map_err(|e| format!("initializing plugin \"NodeResourcesFit\": {e}"))?;
    }
    if needed(balanced_allocation::NAME) {
        balanced
            .validate()
            .map_err(|e| format!("initializing plugin \"NodeResourcesBalancedAllocation\": {e}"))?;
    }
    check_lists(p)?;
    let expanded = expand(p)?;
    finish(p, global, name, fit, balanced, &expanded)
}

/// `updatePluginList` for each extension point: known, implementing, once.
fn check_lists(p: &RawProfile) -> Result<(), String> {
    for (point, set) in &p.points {
        let mut seen: Vec<&str> = Vec::new();
        for plugin in &set.enabled {
            match implements(&plugin.name, *point) {
                None => return Err(does_not_exist(*point, &plugin.name)),
                Some(false) => {
                    return Err(format!(
                        "plugin {:?} does not extend {} plugin",
                        plugin.name,
                        point.interface()
                    ));
                }
                Some(true) => {}
            }
            if seen.contains(&plugin.name.as_str()) {
                return Err(format!(
                    "plugin {:?} already registered as {:?}",
                    plugin.name,
                    point.interface()
                ));
            }
            seen.push(&plugin.name);
        }
    }
    Ok(())
}

/// `expandMultiPointPlugins`: each point's plugins, explicit overrides first,
/// then `MultiPoint`'s, then the other explicit ones.
fn expand(p: &RawProfile) -> Result<Vec<(ExtensionPoint, Vec<String>)>, String> {
    let mut expanded: Vec<(ExtensionPoint, Vec<String>)> = Vec::new();
    for (point, set) in &p.points {
        let explicit: Vec<String> = set.enabled.iter().map(|e| e.name.clone()).collect();
        if set.disables("*") {
            expanded.push((*point, explicit));
            continue;
        }
        let mut multi: Vec<String> = Vec::new();
        let mut overrides: Vec<String> = Vec::new();
        for plugin in &p.multi_point.enabled {
            match implements(&plugin.name, *point) {
                None => return Err(does_not_exist(*point, &plugin.name)),
                Some(false) => continue,
                Some(true) => {}
            }
            if set.disables(&plugin.name) {
                continue;
            }
            if explicit.contains(&plugin.name) {
                overrides.push(plugin.name.clone());
                continue;
            }
            if multi.contains(&plugin.name) {
                return Err(format!(
                    "plugin {:?} already registered as {:?}",
                    plugin.name,
                    point.interface()
                ));
            }
            multi.push(plugin.name.clone());
        }
        let mut order: Vec<String> = explicit
            .iter()
            .filter(|n| overrides.contains(n))
            .cloned()
            .collect();
        order.extend(multi);
        order.extend(explicit.iter().filter(|n| !overrides.contains(n)).cloned());
        expanded.push((*point, order));
    }
    Ok(expanded)
}

/// The queue-sort and bind checks, the score weights, and the profile.
fn finish(
    p: &RawProfile,
    global: Option<i32>,
    name: String,
    fit: FitArgs,
    balanced: BalancedArgs,
    expanded: &[(ExtensionPoint, Vec<String>)],
) -> Result<Profile, String> {
    let at = |point: ExtensionPoint| {
        expanded
            .iter()
            .find(|(p, _)| *p == point)
            .map(|(_, list)| list.clone())
            .unwrap_or_default()
    };
    let queue_sort = at(QueueSort).len();
    if queue_sort != 1 {
        return Err(format!(
            "only one queue sort plugin required for profile with scheduler name {name:?}, but got {queue_sort}"
        ));
    }
    if at(Bind).is_empty() {
        return Err(format!(
            "at least one bind plugin is needed for profile with scheduler name {name:?}"
        ));
    }
    // getScoreWeights: the Score point's weight first, then MultiPoint's; 0 is 1.
    let score_set = p.points.iter().find(|(pt, _)| *pt == Score).map(|(_, s)| s);
    let mut weights: Vec<(String, i64)> = Vec::new();
    let mut total: i64 = 0;
    for plugin in score_set
        .into_iter()
        .flat_map(|s| &s.enabled)
        .chain(&p.multi_point.enabled)
    {
        if implements(&plugin.name, Score) != Some(true)
            || weights.iter().any(|(n, _)| *n == plugin.name)
        {
            continue;
        }
        let weight = if plugin.weight == 0 { 1 } else { plugin.weight };
        if weight.saturating_mul(100) > i64::MAX - total {
            return Err("total score of Score plugins could overflow".to_owned());
        }
        total += weight * 100;
        weights.push((plugin.name.clone(), weight));
    }
    let scorers = at(Score)
        .into_iter()
        .map(|n| {
            let w = weights.iter().find(|(w, _)| *w == n).map_or(1, |(_, w)| *w);
            (n, w)
        })
        .collect();
    Ok(Profile {
        scheduler_name: name,
        filters: at(Filter),
        scorers,
        post_filters: at(PostFilter),
        reservers: at(Reserve),
        permits: at(Permit),
        pre_binders: at(PreBind),
        binders: at(Bind),
        fit,
        balanced,
        percentage_of_nodes_to_score: p.percentage.or(global),
    })
}

/// The profiles of `config` (the default profile when `None`), or the error
/// kube-scheduler would stop with.
pub fn profiles(config: Option<&Value>) -> Result<Vec<Profile>, String> {
    let empty = Value::Object(serde_json::Map::new());
    let config = config.unwrap_or(&empty);
    let global = percentage(
        config.get("percentageOfNodesToScore"),
        "KubeSchedulerConfiguration.percentageOfNodesToScore",
    )?;
    let mut raw = items(
        config.get("profiles"),
        "KubeSchedulerConfiguration.profiles",
        "[]v1.KubeSchedulerProfile",
    )?
    .iter()
    .map(raw_profile)
    .collect::<Result<Vec<_>, _>>()?;
    if raw.is_empty() {
        raw.push(raw_profile(&empty)?);
    }
    if raw.len() == 1 && raw[0].name.is_none() {
        raw[0].name = Some(DEFAULT_SCHEDULER_NAME.to_owned());
    }
    if let Some(message) = aggregate(&validate(&raw, global)) {
        return Err(message);
    }
    raw.iter()
        .map(|p| {
            build(p, global).map_err(|e| {
                format!(
                    "initializing profiles: creating profile for scheduler name {}: {e}",
                    p.name.as_deref().unwrap_or_default()
                )
            })
        })
        .collect()
}

/// Below this many nodes every node is checked (`minFeasibleNodesToFind`).
const MIN_FEASIBLE_NODES_TO_FIND: usize = 100;
/// The adaptive percentage never goes below this (`minFeasibleNodesPercentageToFind`).
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: i64 = 5;

/// How many feasible nodes the scheduler looks for before it stops filtering
/// (`numFeasibleNodesToFind`): all below 100 nodes; else the percentage (0 or
/// unset: `50 - nodes/125`, at least 5) of the nodes, at least 100.
pub fn num_feasible_nodes_to_find(percentage: Option<i32>, num_all_nodes: usize) -> usize {
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND {
        return num_all_nodes;
    }
    let all = i64::try_from(num_all_nodes).unwrap_or(i64::MAX);
    let (percentage, _) = percentage_used(percentage, num_all_nodes);
    let found = usize::try_from(all.saturating_mul(percentage) / 100).unwrap_or(0);
    found.max(MIN_FEASIBLE_NODES_TO_FIND)
}

/// The percentage [`num_feasible_nodes_to_find`] applies to `num_all_nodes`,
/// and whether it is the adaptive one (`percentageOfNodesToScore` 0 or unset).
pub fn percentage_used(percentage: Option<i32>, num_all_nodes: usize) -> (i64, bool) {
    let all = i64::try_from(num_all_nodes).unwrap_or(i64::MAX);
    match i64::from(percentage.unwrap_or(0)) {
        0 => (
            (50 - all / 125).max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND),
            true,
        ),
        given => (given, false),
    }
}

#[cfg(test)]
#[allow(clippy::type_complexity, clippy::too_many_lines)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn num_feasible_nodes_to_find_mirrors_upstream() {
        // schedule_one_test.go, TestNumFeasibleNodesToFind.
        let cases = [
            (
                "not set percentageOfNodesToScore and nodes number not more than 50",
                None,
                10,
                10,
            ),
            (
                "set profile percentageOfNodesToScore and nodes number not more than 50",
                Some(40),
                10,
                10,
            ),
            (
                "not set percentageOfNodesToScore and nodes number more than 50",
                None,
                1000,
                420,
            ),
            (
                "set profile percentageOfNodesToScore and nodes number more than 50",
                Some(40),
                1000,
                400,
            ),
            (
                "not set percentageOfNodesToScore and nodes number more than 50*125",
                None,
                6000,
                300,
            ),
            (
                "set profile percentageOfNodesToScore and nodes number more than 50*125",
                Some(40),
                6000,
                2400,
            ),
            ("percentage too small for 100 nodes", Some(1), 1000, 100),
            ("all nodes", Some(100), 1000, 1000),
        ];
        for (name, percentage, nodes, expected) in cases {
            assert_eq!(
                num_feasible_nodes_to_find(percentage, nodes),
                expected,
                "{name}"
            );
        }
    }

    /// The percentage behind the same rows, for the trace's `nodes_to_score`.
    #[test]
    fn the_percentage_used_is_adaptive_when_unset() {
        assert_eq!(percentage_used(None, 1000), (42, true));
        assert_eq!(percentage_used(Some(0), 6000), (5, true));
        assert_eq!(percentage_used(Some(40), 1000), (40, false));
    }

    fn names(list: &[(String, i64)]) -> Vec<(&str, i64)> {
        list.iter().map(|(n, w)| (n.as_str(), *w)).collect()
    }

    #[test]
    fn default_profile() {
        // default_plugins_test.go / testing/defaults: the MultiPoint set expanded.
        let profiles = profiles(None).unwrap();
        assert_eq!(profiles.len(), 1);
        let p = &profiles[0];
        assert_eq!(p.scheduler_name, "default-scheduler");
        assert_eq!(
            p.filters,
            [
                "NodeUnschedulable",
                "NodeName",
                "TaintToleration",
                "NodeAffinity",
                "NodePorts",
                "NodeResourcesFit",
                "VolumeRestrictions",
                "NodeVolumeLimits",
                "VolumeBinding",
                "VolumeZone",
                "PodTopologySpread",
                "InterPodAffinity",
                "DynamicResources",
            ]
        );
        assert_eq!(
            names(&p.scorers),
            [
                ("TaintToleration", 3),
                ("NodeAffinity", 2),
                ("NodeResourcesFit", 1),
                ("VolumeBinding", 1),
                ("PodTopologySpread", 2),
                ("InterPodAffinity", 2),
                ("DynamicResources", 2),
                ("NodeResourcesBalancedAllocation", 1),
                ("ImageLocality", 1),
            ]
        );
        assert_eq!(p.fit, FitArgs::default());
        assert_eq!(p.balanced, BalancedArgs::default());
        assert_eq!(p.percentage_of_nodes_to_score, None);
    }

    #[test]
    fn a_profile_disables_image_locality_and_reweights_fit() {
        let config = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "percentageOfNodesToScore": 30,
            "profiles": [{
                "schedulerName": "bin-packer",
                "percentageOfNodesToScore": 70,
                "plugins": {
                    "score": {
                        "enabled": [{"name": "NodeResourcesFit", "weight": 5}],
                        "disabled": [{"name": "ImageLocality"}]
                    }
                },
                "pluginConfig": [{
                    "name": "NodeResourcesFit",
                    "args": {"scoringStrategy": {"type": "MostAllocated",
                        "resources": [{"name": "cpu", "weight": 2}, {"name": "nvidia.com/gpu"}]}}
                }]
            }]
        });
        let p = &profiles(Some(&config)).unwrap()[0];
        assert_eq!(p.scheduler_name, "bin-packer");
        // An explicitly enabled default comes first, then the MultiPoint rest.
        assert_eq!(
            names(&p.scorers),
            [
                ("NodeResourcesFit", 5),
                ("TaintToleration", 3),
                ("NodeAffinity", 2),
                ("VolumeBinding", 1),
                ("PodTopologySpread", 2),
                ("InterPodAffinity", 2),
                ("DynamicResources", 2),
                ("NodeResourcesBalancedAllocation", 1),
            ]
        );
        assert_eq!(p.fit.scoring_strategy.kind, "MostAllocated");
        assert_eq!(
            p.fit.scoring_strategy.resources,
            [
                ResourceSpec::new("cpu", 2),
                ResourceSpec::new("nvidia.com/gpu", 1)
            ]
        );
        assert_eq!(p.percentage_of_nodes_to_score, Some(70));
        assert!(p.filters.contains(&"NodeResourcesFit".to_owned()));
    }

    #[test]
    fn multi_point_merging() {
        // default_plugins_test.go, TestMergePlugins: "*" disables every default;
        // a re-configured default keeps its place with the new weight.
        let only = json!({"profiles": [{"plugins": {"multiPoint": {
            "enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"}, {"name": "NodeName"},
                        {"name": "ImageLocality", "weight": 4}],
            "disabled": [{"name": "*"}]}}}]});
        let p = &profiles(Some(&only)).unwrap()[0];
        assert_eq!(p.filters, ["NodeName"]);
        assert_eq!(names(&p.scorers), [("ImageLocality", 4)]);
        let reweighted = json!({"profiles": [{"plugins": {"multiPoint": {
            "enabled": [{"name": "TaintToleration", "weight": 7}]}}}]});
        let p = &profiles(Some(&reweighted)).unwrap()[0];
        assert_eq!(p.scorers[0], ("TaintToleration".to_owned(), 7));
        let filter_off =
            json!({"profiles": [{"plugins": {"filter": {"disabled": [{"name": "*"}]}}}]});
        assert!(profiles(Some(&filter_off)).unwrap()[0].filters.is_empty());
    }

    #[test]
    fn errors_are_worded_as_kube_scheduler_words_them() {
        let cases = [
            (
                json!({"percentageOfNodesToScore": 101}),
                "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]",
            ),
            (
                json!({"profiles": [{"percentageOfNodesToScore": -1}]}),
                "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]",
            ),
            (
                json!({"profiles": [{"schedulerName": "a"}, {}]}),
                "profiles[1].schedulerName: Required value",
            ),
            (
                json!({"profiles": [{"schedulerName": "a"}, {"schedulerName": "a"}]}),
                "profiles[1].schedulerName: Duplicate value: profiles[0].schedulerName",
            ),
            (
                json!({"profiles": [{"plugins": {"filter": {"enabled": [{"name": "EBSLimits"}]}}}]}),
                "profiles[0].plugins.filter.enabled[0]: Invalid value: \"EBSLimits\": was invalid in version \"kubescheduler.config.k8s.io/v1\" (KubeSchedulerConfiguration is version \"kubescheduler.config.k8s.io/v1\")",
            ),
            (
                json!({"profiles": [{"pluginConfig": [{"name": "NodeResourcesBalancedAllocation",
                    "args": {"resources": [{"name": "cpu", "weight": 2}]}}]}]}),
                "profiles[0].pluginConfig[0].args.resources[0].weight: Invalid value: 2: must be 1",
            ),
            (
                json!({"profiles": [{"plugins": {"score": {"enabled": [{"name": "Foo"}]}}}]}),
                "initializing profiles: creating profile for scheduler name default-scheduler: ScorePlugin \"Foo\" does not exist",
            ),
            (
                json!({"profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": "Foo"}]}}}]}),
                "initializing profiles: creating profile for scheduler name default-scheduler: PreFilterPlugin \"Foo\" does not exist",
            ),
            (
                json!({"profiles": [{"plugins": {"filter": {"enabled": [{"name": "ImageLocality"}]}}}]}),
                "initializing profiles: creating profile for scheduler name default-scheduler: plugin \"ImageLocality\" does not extend FilterPlugin plugin",
            ),
            (
                json!({"profiles": [{"plugins": {"queueSort": {"disabled": [{"name": "*"}]}}}]}),
                "initializing profiles: creating profile for scheduler name default-scheduler: only one queue sort plugin required for profile with scheduler name \"default-scheduler\", but got 0",
            ),
            (
                json!({"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit",
                    "args": {"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 101}]}}}]}]}),
                "initializing profiles: creating profile for scheduler name default-scheduler: initializing plugin \"NodeResourcesFit\": scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]",
            ),
            (
                json!({"profiles": [{"plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 3_000_000_000_i64}]}}}]}),
                "json: cannot unmarshal number 3000000000 into Go struct field Plugin.profiles.plugins.enabled.weight of type int32",
            ),
        ];
        for (config, message) in cases {
            assert_eq!(profiles(Some(&config)), Err(message.to_owned()), "{config}");
        }
    }

    #[test]
    fn an_unknown_plugin_is_refused_where_enabled_and_ignored_where_disabled() {
        // `pkg/scheduler/framework/runtime/framework.go`: `updatePluginList`
        // refuses a name no plugin has in an extension point's enabled list,
        // `expandMultiPointPlugins` in `multiPoint`'s (at the first extension
        // point, PreFilter), both with `"%s %q does not exist"`. A disabled list
        // is only a set of names left out (`expandMultiPointPlugins`'
        // `disabledSet`, `mergePluginSet`; `validation.go` checks enabled names
        // only), so an unknown name there is ignored; `*` disables them all.
        let refused = |interface: &str| {
            Err(format!(
                "initializing profiles: creating profile for scheduler name default-scheduler: \
                 {interface} \"Foo\" does not exist"
            ))
        };
        let foo = json!([{"name": "Foo"}]);
        let cases = [
            (
                "enabled at filter",
                json!({"filter": {"enabled": foo}}),
                refused("FilterPlugin"),
            ),
            (
                "enabled at filter, every other disabled",
                json!({"filter": {"enabled": foo, "disabled": [{"name": "*"}]}}),
                refused("FilterPlugin"),
            ),
            (
                "enabled at preScore",
                json!({"preScore": {"enabled": foo}}),
                refused("PreScorePlugin"),
            ),
            (
                "enabled at bind",
                json!({"bind": {"enabled": foo}}),
                refused("BindPlugin"),
            ),
            (
                "enabled in multiPoint",
                json!({"multiPoint": {"enabled": foo}}),
                refused("PreFilterPlugin"),
            ),
            (
                "enabled in multiPoint, every default disabled",
                json!({"multiPoint": {"enabled": foo, "disabled": [{"name": "*"}]}}),
                refused("PreFilterPlugin"),
            ),
            (
                "disabled at filter",
                json!({"filter": {"disabled": foo}}),
                Ok(json!({})),
            ),
            (
                "disabled in multiPoint",
                json!({"multiPoint": {"disabled": foo}}),
                Ok(json!({})),
            ),
            (
                "disabled at score beside *",
                json!({"score": {"disabled": [{"name": "Foo"}, {"name": "*"}]}}),
                Ok(json!({"score": {"disabled": [{"name": "*"}]}})),
            ),
        ];
        let config = |plugins: &Value| json!({"profiles": [{"plugins": plugins}]});
        for (what, plugins, expected) in cases {
            let expected = expected.map(|same| profiles(Some(&config(&same))).unwrap());
            assert_eq!(profiles(Some(&config(&plugins))), expected, "{what}");
        }
    }
}
