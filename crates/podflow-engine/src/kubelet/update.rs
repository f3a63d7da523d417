//! A running pod's spec changed (`SyncLoop UPDATE`): of a container, only its
//! name and image count (`HashContainer` hashes what `pickFieldsToHash` picks,
//! `pkg/kubelet/container/helpers.go`), and the image is the one field of a
//! Pod's containers the API server lets change. A running container whose
//! image changed is killed (`Container web definition changed, will be
//! restarted`) and started again with the new image whatever the restart
//! policy says (`computePodActions`); a waiting one is created with the new
//! image at once: the pod worker syncs on the update, and the image pull
//! back-off is kept per image.

use k8s_openapi::api::core::v1::Pod;
use podflow_model::Shared;

use super::container_spec::ContainerSpec;
use super::{Kubelet, Step};
use crate::component::Cx;

impl Kubelet {
    /// The pod's new spec: containers whose image changed follow it.
    pub(super) fn spec_updated(&mut self, key: &str, pod: &Shared<Pod>, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get_mut(key) else {
            return;
        };
        let mut restart = Vec::new();
        for (i, (ctr, new)) in w.ctrs.iter_mut().zip(ContainerSpec::all(pod)).enumerate() {
            if ctr.spec.name != new.name || ctr.spec.image == new.image {
                continue;
            }
            // Only the image can have changed: the new version reads as
            // the old with the new image.
            ctr.spec = new;
            ctr.waiting_announced = false;
            if ctr.is_running() {
                ctr.definition_changed = true;
                restart.push(i);
            }
        }
        let grace = w.grace_ms();
        for i in restart {
            let name = self.workers[key].ctrs[i].spec.name.clone();
            let message = format!("Container {name} definition changed, will be restarted");
            self.kill_with(key, i, message, grace, cx);
        }
        self.timer(cx, 1, key, Step::Sync);
    }
}
