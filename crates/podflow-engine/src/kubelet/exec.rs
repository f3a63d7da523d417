//! `kubectl exec` at the kubelet: the API server's upgraded connection
//! reaches `/exec/NAMESPACE/POD/CONTAINER` (`pkg/kubelet/server/server.go`,
//! `getExec`); the kubelet finds the running container
//! (`pkg/kubelet/kubelet_pods.go`, `findContainer`) and the runtime runs the
//! command in it, in the container's process context: its file system,
//! environment and view of the cluster ([`Process::exec`]).

use super::Kubelet;
use super::dns::Dns;
use super::process::ExecResult;
use crate::clock::SimTime;

impl Kubelet {
    /// Runs `argv` in `container` of the pod `namespace/pod` at `now`, to its
    /// end; the kubelet's refusal when the container is not running.
    pub fn exec(
        &mut self,
        namespace: &str,
        pod: &str,
        container: &str,
        argv: &[String],
        now: SimTime,
    ) -> Result<ExecResult, String> {
        let not_found = || format!("container not found (\"{container}\")");
        let worker = self
            .workers
            .get_mut(&format!("{namespace}/{pod}"))
            .ok_or_else(not_found)?;
        let process = worker
            .ctrs
            .iter_mut()
            .find(|c| c.view.name == container && c.is_running())
            .and_then(|c| c.process.as_mut())
            .ok_or_else(not_found)?;
        let world = Dns {
            services: &self.services,
            namespace,
        };
        Ok(process.exec(argv, now, &world))
    }
}
