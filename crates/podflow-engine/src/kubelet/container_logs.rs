//! What `kubectl logs` reads: a container's output as the kubelet serves it
//! at `/containerLogs/NAMESPACE/POD/CONTAINER`, or the refusal it answers
//! with when the container has no log yet (`pkg/kubelet/kubelet_pods.go`,
//! `validateContainerLogStatus`). With `previous`, the output of the last
//! terminated instance, which the runtime keeps until the next restart.

use super::Kubelet;
use super::status::ContainerState;
use super::worker::Ctr;
use crate::clock::SimTime;

/// A container's output so far: each line with the moment it was written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerLog {
    pub lines: Vec<(SimTime, String)>,
    /// Whether the container still runs (a follower waits for more).
    pub running: bool,
}

impl Kubelet {
    /// The log of `container` in the pod `namespace/pod` (of its previous
    /// instance with `previous`), or the kubelet's refusal.
    pub fn container_log(
        &self,
        namespace: &str,
        pod: &str,
        container: &str,
        previous: bool,
    ) -> Result<ContainerLog, String> {
        let key = format!("{namespace}/{pod}");
        let not_found = || format!("container \"{container}\" in pod \"{pod}\" is not available");
        let worker = self.workers.get(&key).ok_or_else(not_found)?;
        let ctr = worker
            .ctrs
            .iter()
            .find(|c| c.view.name == container)
            .ok_or_else(not_found)?;
        if previous {
            return previous_log(ctr).ok_or_else(|| {
                format!("previous terminated container \"{container}\" in pod \"{pod}\" not found")
            });
        }
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
            lines: process.output_lines(),
            running: matches!(ctr.view.state, ContainerState::Running { .. }),
        })
    }
}

/// The output of the container `lastState.terminated` names: the process
/// still held when no new one has started (back-off), else the one replaced.
fn previous_log(ctr: &Ctr) -> Option<ContainerLog> {
    let last = ctr.last.as_ref()?;
    let held = ctr
        .process
        .as_ref()
        .filter(|_| last.container_id.is_some() && last.container_id == ctr.view.container_id);
    let lines = match held {
        Some(process) => process.output_lines(),
        None => ctr.previous_output.clone()?,
    };
    Some(ContainerLog {
        lines,
        running: false,
    })
}
