//! A container whose configuration refers to a `ConfigMap`, `Secret` or key
//! the cluster lacks (`startContainer` in `kuberuntime_container.go`:
//! `generateContainerConfig` fails with `ErrCreateContainerConfig`): it waits
//! with the reason `CreateContainerConfigError` and the manager's message, a
//! Warning `Failed` event `Error: configmap "app-config" not found` is
//! recorded on the container, the pod stays `Pending`, and the pod worker
//! tries again after its back-off (`pod_workers.go`, `completeWork`:
//! `wait.Jitter(backOffPeriod, 0.5)`, 10 to 15 s).

use super::env::{self, EnvInput};
use super::lifecycle;
use super::mount::{SYNC_BACK_OFF_MS, error_s};
use super::status::ContainerState;
use super::{Kubelet, Step, klog, payload, until};
use crate::component::Cx;
use crate::trace::{Outcome, StageName};

/// Go's `%q` of a string (the `SyncResult` message in the pod worker's error).
fn go_quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The pod worker's error for a container that could not be configured.
pub fn start_error(container: &str, message: &str) -> String {
    format!(
        "failed to \"StartContainer\" for \"{container}\" with {}: {}",
        lifecycle::CREATE_CONTAINER_CONFIG_ERROR,
        go_quote(message)
    )
}

/// A container's environment and its mounted files.
pub(super) type ContainerConfig = (Vec<(String, String)>, Vec<(String, String)>);

impl Kubelet {
    /// `generateContainerConfig`'s config part: container `i`'s environment
    /// and the files of its mounts; `Err` is the `CreateContainerConfigError` message.
    pub(super) fn generate_container_config(
        &self,
        key: &str,
        i: usize,
    ) -> Result<ContainerConfig, String> {
        let Some(w) = self.workers.get(key) else {
            return Err(format!("pod {key} is not known"));
        };
        let spec = &w.ctrs[i].spec;
        let pod_ip = w.pod_ip.clone().unwrap_or_default();
        let input = EnvInput {
            pod: &w.pod,
            services: &self.services,
            node_name: &self.node,
            pod_ip: &pod_ip,
            host_ip: &self.host_ip,
            config: &self.config.cache,
        };
        let environment = env::container_env(spec, &input)?;
        let mut files = super::etc_files::etc_files(&w.pod, &pod_ip);
        files.extend(env::service_account_files(spec, &w.pod));
        files.extend(payload::container_files(spec, &w.pod, &self.config.cache));
        Ok((environment, files))
    }

    /// Whether container `i` failed its configuration in this sync (it is
    /// tried again when the pod worker's back-off ends).
    pub(super) fn config_blocked(&self, key: &str, i: usize) -> bool {
        self.config.blocked.contains(&(key.to_owned(), i))
    }

    /// Container `i` could not be configured: `message` says why.
    pub(super) fn config_error(&mut self, key: &str, i: usize, message: &str, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get_mut(key) else {
            return;
        };
        let uid = w.names().2;
        let pleg_pending = !w.pleg.is_empty();
        let ctr = &mut w.ctrs[i];
        ctr.view.state = ContainerState::Waiting {
            reason: lifecycle::CREATE_CONTAINER_CONFIG_ERROR.into(),
            message: Some(message.to_owned()),
        };
        let (cname, field) = (ctr.spec.name.clone(), ctr.field_path());
        Self::event(
            cx,
            key,
            true,
            "Failed",
            lifecycle::error_event(message),
            Some(field),
        );
        self.stage(
            cx,
            key,
            StageName::Container,
            Outcome::ConfigError,
            format!(
                "{cname} {}: {message}",
                lifecycle::CREATE_CONTAINER_CONFIG_ERROR
            ),
        );
        let line = error_s(
            cx.now,
            self.pid,
            "pod_workers.go:1301",
            "Error syncing pod, skipping",
            &start_error(&cname, message),
            &[("pod", klog::quoted(key)), ("podUID", klog::quoted(&uid))],
        );
        cx.log(&self.me(), Some(&self.node), line);
        self.config.blocked.insert((key.to_owned(), i));
        // The work queue keeps the latest enqueue of a pod.
        let at = cx
            .now
            .plus(cx.rng.between(SYNC_BACK_OFF_MS.0, SYNC_BACK_OFF_MS.1));
        self.config.retry_at.insert(key.to_owned(), at);
        self.timer(cx, until(cx.now, at), key, Step::Config);
        if pleg_pending {
            // The sandbox's start is relisted and the pod syncs: its status
            // shows the waiting reason.
            self.schedule_pleg(key, cx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pod_worker_error() {
        // As `kubelet` logs it: err="failed to \"StartContainer\" for ...".
        assert_eq!(
            start_error("test-container", "configmap \"special-config\" not found"),
            r#"failed to "StartContainer" for "test-container" with CreateContainerConfigError: "configmap \"special-config\" not found""#
        );
    }
}
