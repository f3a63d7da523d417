//! kube-controller-manager's insides as the pipeline pane shows them under
//! the nodes: each shared informer's cache (how many objects, the
//! resourceVersion it has caught up to, against etcd's) and each
//! controller's work queue (its depth and the key its worker took last),
//! as client-go's `tools/cache` and `util/workqueue` keep them.
//!
//! ```text
//! informers deployments 1 · replicasets 1 · pods 3  synced rv 72 of 74
//! queues deployment 0 · replicaset 1 ▸ default/web-66fd85854b
//! ```
//!
//! Everything comes from the trace, walking back from the current record at
//! most [`super::LOOKBACK`] records: the `informer` stages (`key`, `revision`,
//! `size`) and the `queue` stages (`plugin`, `item`, `size`).

use podflow_engine::trace::StageName;
use podflow_engine::trace::{Actor, Outcome};
use podflow_engine::trace::{Record, TraceRecord};

/// The controller manager as far as the trace tells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Controllers {
    /// Each informer seen, in the order [`podflow_engine::controllers::WATCHED`] has them.
    pub informers: Vec<InformerState>,
    /// Each controller that queued a key, in the manager's order.
    pub queues: Vec<QueueState>,
}

/// One shared informer's cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InformerState {
    /// The resource: `deployments`, `pods`, ...
    pub resource: String,
    /// Objects cached.
    pub size: u64,
    /// The resourceVersion of the latest event it applied.
    pub revision: u64,
}

/// One controller's work queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueState {
    /// `deployment-controller`, ...
    pub controller: String,
    /// Keys waiting.
    pub depth: u64,
    /// The key its worker took last.
    pub key: Option<String>,
    /// Whether the current record is one of this controller's.
    pub current: bool,
}

/// The manager's controllers in the order its workers run them.
const ORDER: [&str; 6] = [
    "deployment-controller",
    "replicaset-controller",
    "endpointslice-controller",
    "endpoint-controller",
    "job-controller",
    "generic-garbage-collector",
];

/// The informers' resources in the order the manager watches them.
const RESOURCES: [&str; 8] = [
    "deployments",
    "replicasets",
    "pods",
    "services",
    "endpointslices",
    "endpoints",
    "jobs",
    "nodes",
];

impl Controllers {
    /// Whether nothing is known: no controller queued a key within reach.
    pub fn is_empty(&self) -> bool {
        self.queues.is_empty()
    }

    /// Reads the latest informer and queue stages from `records`.
    pub fn build(records: &[TraceRecord]) -> Controllers {
        let mut out = Controllers::default();
        let current = records.last().and_then(|r| match &r.body {
            Record::Stage(s) if s.component == Actor::ControllerManager => s.plugin.as_deref(),
            _ => None,
        });
        for record in records.iter().rev().take(super::LOOKBACK) {
            let Record::Stage(s) = &record.body else {
                continue;
            };
            if s.component != Actor::ControllerManager {
                continue;
            }
            match s.stage {
                StageName::Informer => {
                    let resource = s.extra().key.as_deref().and_then(resource_of);
                    if let (Some(resource), Some(size), Some(revision)) =
                        (resource, s.extra().size, s.extra().revision)
                        && !out.informers.iter().any(|i| i.resource == resource)
                    {
                        out.informers.push(InformerState {
                            resource: resource.to_owned(),
                            size,
                            revision,
                        });
                    }
                }
                StageName::Queue => {
                    let Some(controller) = s.plugin.as_deref() else {
                        continue;
                    };
                    let known = out.queues.iter_mut().find(|q| q.controller == controller);
                    if let Some(q) = known {
                        if q.key.is_none() && s.outcome == Outcome::Processing {
                            q.key.clone_from(&s.extra().item);
                        }
                    } else if let Some(depth) = s.extra().size {
                        out.queues.push(QueueState {
                            controller: controller.to_owned(),
                            depth,
                            key: s
                                .extra()
                                .item
                                .clone()
                                .filter(|_| s.outcome == Outcome::Processing),
                            current: current == Some(controller),
                        });
                    }
                }
                _ => {}
            }
        }
        out.informers.sort_by_key(|i| {
            RESOURCES
                .iter()
                .position(|r| *r == i.resource)
                .unwrap_or(RESOURCES.len())
        });
        out.queues.sort_by_key(|q| {
            ORDER
                .iter()
                .position(|c| *c == q.controller)
                .unwrap_or(ORDER.len())
        });
        out
    }

    /// The newest resourceVersion any informer has applied.
    pub fn synced(&self) -> u64 {
        self.informers.iter().map(|i| i.revision).max().unwrap_or(0)
    }
}

/// The resource of an etcd key (`/registry/pods/default/nginx` → `pods`;
/// Services live under `/registry/services/specs/`).
fn resource_of(key: &str) -> Option<&str> {
    key.strip_prefix("/registry/")?.split('/').next()
}

/// A controller's name as the queue line shows it: `deployment`, `garbage-collector`.
pub fn short_name(controller: &str) -> &str {
    controller
        .strip_suffix("-controller")
        .or_else(|| controller.strip_prefix("generic-"))
        .unwrap_or(controller)
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_engine::trace::Stage;

    fn stage(s: Stage) -> TraceRecord {
        TraceRecord {
            seq: 0,
            t_ms: 0,
            body: Record::from(s),
        }
    }

    #[test]
    fn the_latest_cache_and_queue_stages_win() {
        let records = [
            stage(
                Stage::new(
                    Actor::ControllerManager,
                    StageName::Informer,
                    Outcome::Added,
                    "",
                )
                .at_key("/registry/pods/default/a", 70)
                .queued(None, 1),
            ),
            stage(
                Stage::new(
                    Actor::ControllerManager,
                    StageName::Informer,
                    Outcome::Added,
                    "",
                )
                .at_key("/registry/deployments/default/web", 71)
                .queued(None, 1),
            ),
            stage(
                Stage::new(
                    Actor::ControllerManager,
                    StageName::Informer,
                    Outcome::Added,
                    "",
                )
                .at_key("/registry/pods/default/b", 72)
                .queued(None, 2),
            ),
            stage(
                Stage::new(
                    Actor::ControllerManager,
                    StageName::Queue,
                    Outcome::Processing,
                    "",
                )
                .plugin("replicaset-controller")
                .queued(Some("default/web-1"), 0),
            ),
            stage(
                Stage::new(
                    Actor::ControllerManager,
                    StageName::Queue,
                    Outcome::Added,
                    "",
                )
                .plugin("replicaset-controller")
                .queued(Some("default/web-2"), 1),
            ),
            stage(
                Stage::new(
                    Actor::ControllerManager,
                    StageName::Queue,
                    Outcome::Added,
                    "",
                )
                .plugin("deployment-controller")
                .queued(Some("default/web"), 1),
            ),
        ];
        let c = Controllers::build(&records);
        assert_eq!(
            c.informers,
            [
                InformerState {
                    resource: "deployments".into(),
                    size: 1,
                    revision: 71
                },
                InformerState {
                    resource: "pods".into(),
                    size: 2,
                    revision: 72
                },
            ]
        );
        assert_eq!(c.synced(), 72);
        assert_eq!(
            c.queues,
            [
                QueueState {
                    controller: "deployment-controller".into(),
                    depth: 1,
                    key: None,
                    current: true
                },
                QueueState {
                    controller: "replicaset-controller".into(),
                    depth: 1,
                    key: Some("default/web-1".into()),
                    current: false
                },
            ]
        );
    }

    #[test]
    fn short_names() {
        assert_eq!(short_name("deployment-controller"), "deployment");
        assert_eq!(short_name("generic-garbage-collector"), "garbage-collector");
        assert_eq!(
            resource_of("/registry/services/specs/default/k"),
            Some("services")
        );
    }
}
