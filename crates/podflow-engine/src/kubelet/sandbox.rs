//! Admitting a pod: the pod worker, the volumes (`volumemanager/reconciler`),
//! the sandbox (CRI `RunPodSandbox`) and its network (CNI `ADD`, the Pod IP from
//! the node's `podCIDR`).

use k8s_openapi::api::core::v1::{Pod, Volume};

use super::worker::PodWorker;
use super::{Kubelet, Step, klog};
use crate::component::Cx;
use crate::trace::Stage;
use crate::trace::{Actor, NetworkDetail, Outcome, SandboxDetail, StageName};
use podflow_model::Shared;

impl Kubelet {
    /// Admits a new pod and starts its worker: volumes first (`mount.rs`), then
    /// the sandbox once they are all set up.
    pub(super) fn admit(&mut self, key: &str, pod: &Shared<Pod>, cx: &mut Cx<'_>) {
        if !self.can_admit(key, pod, cx) || !self.claims_ready(key, pod, cx) {
            return;
        }
        let worker = PodWorker::new(pod, cx.now);
        self.known.admitted(pod, &worker.counted);
        self.workers.insert(key.to_owned(), worker);
        let pod_field = ("pod", klog::quoted(key));
        self.log(
            cx,
            "kuberuntime_manager.go:1079",
            "No sandbox for pod can be found. Need to start a new one",
            std::slice::from_ref(&pod_field),
        );
        let mounted = self.mount_volumes(key, pod, cx);
        self.report_status(key, cx);
        if mounted {
            self.timer(cx, 100, key, Step::Sandbox);
        }
    }

    pub(super) fn run_sandbox(&mut self, key: &str, cx: &mut Cx<'_>) {
        let me = self.me();
        let containerd = self.containerd();
        let cni = Actor::Cni(self.node.clone());
        let ip = self.allocate_ip();
        let sandbox_id = cx.rng.hex(64);
        cx.message(&me, &containerd, "RunPodSandbox");
        cx.message(&containerd, &cni, "ADD eth0");
        cx.stage(
            Stage::new(
                cni.clone(),
                StageName::Network,
                Outcome::Ok,
                NetworkDetail {
                    ip: ip.clone(),
                    cidr: self.pod_cidr.clone(),
                },
            )
            .node(&*self.node)
            .pod(key),
        );
        cx.message(&cni, &containerd, ip.clone());
        cx.message(&containerd, &me, format!("sandbox {}", &sandbox_id[..13]));
        self.stage(
            cx,
            key,
            StageName::Sandbox,
            Outcome::Ready,
            SandboxDetail {
                id: sandbox_id[..13].to_owned(),
                ip: ip.clone(),
            },
        );
        if let Some(worker) = self.workers.get_mut(key) {
            worker.pleg.push((sandbox_id.clone(), "ContainerStarted"));
            worker.sandbox_id = Some(sandbox_id);
            worker.pod_ip = Some(ip);
        }
        self.timer(cx, 1, key, Step::Continue);
    }

    fn allocate_ip(&mut self) -> String {
        let base = self.pod_cidr.split('/').next().unwrap_or("10.244.0.0");
        let octets: Vec<&str> = base.split('.').collect();
        let ip = match octets.as_slice() {
            [a, b, c, _] => format!("{a}.{b}.{c}.{}", self.next_ip),
            _ => format!("10.244.0.{}", self.next_ip),
        };
        self.next_ip += 1;
        ip
    }
}

/// The volume plugin's name in the `UniqueName` (`kubernetes.io/projected`, ...).
pub(super) fn volume_plugin(volume: &Volume) -> &'static str {
    if volume.projected.is_some() {
        "kubernetes.io/projected"
    } else if volume.config_map.is_some() {
        "kubernetes.io/configmap"
    } else if volume.secret.is_some() {
        "kubernetes.io/secret"
    } else if volume.host_path.is_some() {
        "kubernetes.io/host-path"
    } else if volume.persistent_volume_claim.is_some() {
        "kubernetes.io/csi"
    } else {
        "kubernetes.io/empty-dir"
    }
}
