//! What `kubectl logs` reads: a container's output as the kubelet serves it
//! at `/containerLogs/NAMESPACE/POD/CONTAINER`, or the refusal it answers
//! with when the container has no log yet (`pkg/kubelet/kubelet_pods.go`,
//! `validateContainerLogStatus`).

use super::Kubelet;
use super::status::ContainerState;
use crate::clock::SimTime;

/// A container's output so far: each line with the moment it was written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerLog {
    pub lines: Vec<(SimTime, String)>,
    /// Whether the container still runs (a follower waits for more).
    pub running: bool,
}

impl Kubelet {
    /// The log of `container` in the pod `namespace/pod`, or the kubelet's refusal.
    pub fn container_log(
        &self,
        namespace: &str,
        pod: &str,
        container: &str,
    ) -> Result<ContainerLog, String> {
        let key = format!("{namespace}/{pod}");
        let not_found = || format!("container \"{container}\" in pod \"{pod}\" is not available");
        let worker = self.workers.get(&key).ok_or_else(not_found)?;
        let ctr = worker
            .ctrs
            .iter()
            .find(|c| c.view.name == container)
            .ok_or_else(not_found)?;
        if let ContainerState::Waiting { reason, .. } = &ctr.view.state
            && ctr.process.is_none()
        {
            return Err(format!(
                "container \"{container}\" in pod \"{pod}\" is waiting to start: {reason}"
            ));
        }
        let Some(process) = &ctr.process else {
            return Ok(ContainerLog::default());
        };
        Ok(ContainerLog {
            lines: process
                .output_times()
                .iter()
                .copied()
                .zip(process.output().iter().cloned())
                .collect(),
            running: matches!(ctr.view.state, ContainerState::Running { .. }),
        })
    }
}
