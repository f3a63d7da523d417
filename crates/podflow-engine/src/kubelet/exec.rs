//! `kubectl exec` at the kubelet: the API server's upgraded connection
//! reaches `/exec/NAMESPACE/POD/CONTAINER` (`pkg/kubelet/server/server.go`,
//! `getExec`); the kubelet finds the running container
//! (`pkg/kubelet/kubelet_pods.go`, `findContainer`) and the runtime runs the
//! command in it, in the container's process context: its file system,
//! environment and view of the cluster ([`Process::exec`]).

use std::collections::BTreeSet;

use super::Kubelet;
use super::dns::Dns;
use super::process::ExecResult;
use crate::clock::SimTime;
use crate::trace::Stage;

impl Kubelet {
    /// Runs `argv` in `container` of the pod `namespace/pod` at `now`, to its
    /// end, with the connections it made through the node's Service rules
    /// (`pod_ips`: the Pod IPs that exist); the kubelet's refusal when the
    /// container is not running.
    pub fn exec(
        &mut self,
        namespace: &str,
        pod: &str,
        container: &str,
        argv: &[String],
        now: SimTime,
        pod_ips: &BTreeSet<String>,
    ) -> Result<(ExecResult, Vec<Stage>), String> {
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
        let mut world = Dns::new(&self.services, namespace, &self.net);
        world.pod_ips = Some(pod_ips);
        let result = process.exec(argv, now, &world);
        let key = format!("{namespace}/{pod}");
        let stages = world.connection_stages(&self.node);
        Ok((result, stages.into_iter().map(|s| s.pod(&key)).collect()))
    }
}
