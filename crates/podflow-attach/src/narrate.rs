//! Narration from a cluster's Events: which part of the flow each one is,
//! as the lessons teach it (lessons/01 to 07), and one sentence in English
//! and Chinese. Reasons and messages are upstream's: the scheduler's
//! `Scheduled`/`FailedScheduling` (`pkg/scheduler/schedule_one.go`), the
//! kubelet's `Pulling`, `Pulled`, `Created`, `Started`, `BackOff`, `Killing`,
//! `Unhealthy` (`pkg/kubelet/events/event.go`), the Deployment controller's
//! `ScalingReplicaSet` (`pkg/controller/deployment/sync.go`) and the
//! `ReplicaSet` and Job controllers' `SuccessfulCreate`
//! (`pkg/controller/replicaset/replica_set.go`, `pkg/controller/job/job_controller.go`).

use crate::fit_error;

/// The part of the flow an Event belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Controllers turn a Deployment into `ReplicaSets` and Pods (lesson 07).
    Controllers,
    /// The scheduler picks a node, or cannot (lesson 04).
    Scheduling,
    /// The kubelet pulls the image (lesson 05).
    ImagePull,
    /// The kubelet creates and starts containers (lesson 05).
    Containers,
    /// Probes and restarts (lesson 06).
    Health,
    /// The kubelet stops containers.
    Termination,
}

impl Stage {
    /// Its name in English and Chinese.
    pub fn name(self) -> (&'static str, &'static str) {
        match self {
            Stage::Controllers => ("controllers", "控制器"),
            Stage::Scheduling => ("scheduling", "调度"),
            Stage::ImagePull => ("image pull", "拉取镜像"),
            Stage::Containers => ("containers", "启动容器"),
            Stage::Health => ("probes and restarts", "探针与重启"),
            Stage::Termination => ("termination", "终止"),
        }
    }
}

/// One Event told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narration {
    pub stage: Stage,
    pub en: String,
    pub zh: String,
}

/// The text between the first pair of double quotes (an image name).
fn quoted(message: &str) -> &str {
    message.split('"').nth(1).unwrap_or_default()
}

/// The narration of an Event with this reason and message about `object`
/// (`pod/nginx`); `None` for a reason the flow does not tell.
pub fn narrate(reason: &str, message: &str, object: &str) -> Option<Narration> {
    // Messages are quoted inside sentences that end with their own stop.
    let message = message.trim_end_matches('.');
    let (stage, en, zh) = match reason {
        "ScalingReplicaSet" => (
            Stage::Controllers,
            format!("The Deployment controller resizes a ReplicaSet: {message}."),
            format!("Deployment 控制器调整 ReplicaSet 的副本数：{message}。"),
        ),
        "SuccessfulCreate" => (
            Stage::Controllers,
            format!(
                "{object}'s controller created a Pod ({message}); the scheduler will see it unbound."
            ),
            format!("{object} 的控制器创建了 Pod（{message}）；调度器会看到这个未绑定的 Pod。"),
        ),
        "Scheduled" => (
            Stage::Scheduling,
            format!("The scheduler bound {object}: {message}. That node's kubelet takes over."),
            format!("调度器已绑定 {object}：{message}。由该节点的 kubelet 接手。"),
        ),
        "FailedScheduling" => failed_scheduling(message, object),
        "Pulling" => (
            Stage::ImagePull,
            format!("The kubelet pulls {} for {object}.", quoted(message)),
            format!("kubelet 为 {object} 拉取镜像 {}。", quoted(message)),
        ),
        "Pulled" => (
            Stage::ImagePull,
            format!("The image {} is on the node: {message}.", quoted(message)),
            format!("镜像 {} 已在节点上：{message}。", quoted(message)),
        ),
        "Created" => (
            Stage::Containers,
            format!("The runtime created a container of {object}: {message}."),
            format!("容器运行时为 {object} 创建了容器：{message}。"),
        ),
        "Started" => (
            Stage::Containers,
            format!("A container of {object} runs: {message}."),
            format!("{object} 的容器已运行：{message}。"),
        ),
        "BackOff" => (
            Stage::Health,
            format!(
                "The kubelet waits before trying again ({message}): the back-off doubles up to 5 minutes."
            ),
            format!("kubelet 等待后再重试（{message}）：退避时间加倍，最长 5 分钟。"),
        ),
        "Unhealthy" => (
            Stage::Health,
            format!("A probe of {object} failed: {message}."),
            format!("{object} 的探针失败：{message}。"),
        ),
        "Killing" => (
            Stage::Termination,
            format!("The kubelet stops a container of {object}: {message}."),
            format!("kubelet 停止 {object} 的容器：{message}。"),
        ),
        _ => return None,
    };
    Some(Narration { stage, en, zh })
}

/// `FailedScheduling`: the nodes per reason, read from the message.
fn failed_scheduling(message: &str, object: &str) -> (Stage, String, String) {
    let Some(fit) = fit_error::parse(message) else {
        return (
            Stage::Scheduling,
            format!("The scheduler cannot place {object}: {message}."),
            format!("调度器无法放置 {object}：{message}。"),
        );
    };
    let rows = if let Some(prefilter) = &fit.prefilter {
        prefilter.clone()
    } else {
        fit.rows
            .iter()
            .map(|r| format!("{} × {}", r.count, r.reason))
            .collect::<Vec<_>>()
            .join("; ")
    };
    (
        Stage::Scheduling,
        format!(
            "No node of {} fits {object}: {rows}. It stays Pending until the cluster changes.",
            fit.nodes
        ),
        format!(
            "{} 个节点都放不下 {object}：{rows}。它保持 Pending，直到集群发生变化。",
            fit.nodes
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Events as a kind cluster's `kubectl events` prints them, worded as
    /// the upstream files named in the module doc word them.
    #[test]
    fn each_event_of_the_flow_is_told_with_its_stage() {
        let table: &[(&str, &str, &str, Stage, &str)] = &[
            (
                "ScalingReplicaSet",
                "Scaled up replica set web-69c6f74b8b from 0 to 3",
                "deployment/web",
                Stage::Controllers,
                "resizes a ReplicaSet",
            ),
            (
                "SuccessfulCreate",
                "Created pod: web-69c6f74b8b-abcde",
                "replicaset/web-69c6f74b8b",
                Stage::Controllers,
                "created a Pod",
            ),
            (
                "Scheduled",
                "Successfully assigned default/nginx to node-1",
                "pod/nginx",
                Stage::Scheduling,
                "bound pod/nginx",
            ),
            (
                "FailedScheduling",
                "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
                "pod/huge",
                Stage::Scheduling,
                "2 × Insufficient cpu",
            ),
            (
                "Pulling",
                "Pulling image \"nginx:1.27\"",
                "pod/nginx",
                Stage::ImagePull,
                "pulls nginx:1.27",
            ),
            (
                "Pulled",
                "Successfully pulled image \"nginx:1.27\" in 2.1s (2.1s including waiting). Image size: 72 bytes.",
                "pod/nginx",
                Stage::ImagePull,
                "nginx:1.27 is on the node",
            ),
            (
                "Created",
                "Created container: nginx",
                "pod/nginx",
                Stage::Containers,
                "created a container",
            ),
            (
                "Started",
                "Started container nginx",
                "pod/nginx",
                Stage::Containers,
                "runs",
            ),
            (
                "BackOff",
                "Back-off restarting failed container app in pod crash_default(uid)",
                "pod/crash",
                Stage::Health,
                "waits before trying again",
            ),
            (
                "Unhealthy",
                "Liveness probe failed: HTTP probe failed with statuscode: 500",
                "pod/web",
                Stage::Health,
                "probe of pod/web failed",
            ),
            (
                "Killing",
                "Stopping container nginx",
                "pod/nginx",
                Stage::Termination,
                "stops a container",
            ),
        ];
        for (reason, message, object, stage, says) in table {
            let told = narrate(reason, message, object).unwrap_or_else(|| panic!("{reason}"));
            assert_eq!(told.stage, *stage, "{reason}");
            assert!(told.en.contains(says), "{reason}: {}", told.en);
            assert!(!told.zh.is_empty() && told.zh != told.en, "{reason}");
        }
        assert!(narrate("LeaderElection", "x", "lease/kube-scheduler").is_none());
    }

    #[test]
    fn failed_scheduling_says_the_nodes_per_reason_in_both_languages() {
        let told = narrate(
            "FailedScheduling",
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.",
            "pod/huge",
        )
        .unwrap();
        assert_eq!(
            told.en,
            "No node of 4 fits pod/huge: 1 × node(s) had untolerated taint(s); 3 × Insufficient cpu. It stays Pending until the cluster changes."
        );
        assert!(
            told.zh
                .starts_with("4 个节点都放不下 pod/huge：1 × node(s)")
        );
    }
}
