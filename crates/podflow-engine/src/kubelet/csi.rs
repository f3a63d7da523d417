//! A pod's `persistentVolumeClaim` volumes in the kubelet's volume manager
//! (`pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go`,
//! `reconciler/reconciler_common.go`, `pkg/volume/util/operationexecutor/operation_generator.go`,
//! `pkg/volume/csi/csi_attacher.go`).
//!
//! The populator resolves claim → volume; a claim that is not bound yet keeps
//! the pod waiting (`"Error processing volume" err="error processing PVC
//! NS/NAME: PVC is not bound"`) until the claim binds. A CSI volume's
//! `UniqueName` is `kubernetes.io/csi/DRIVER^HANDLE` (device-mountable); the
//! reconciler verifies it attached (the driver's `CSIDriver` says
//! `attachRequired: false`, so no `VolumeAttachment` is waited for),
//! stages it (`MountVolume.MountDevice succeeded` with its global mount path
//! `/var/lib/kubelet/plugins/kubernetes.io/csi/DRIVER/SHA256(HANDLE)/globalmount`)
//! and publishes it (`MountVolume.SetUp succeeded`). A `hostPath` volume is
//! neither attachable nor device-mountable: `kubernetes.io/host-path/PODUID-PVNAME`.
//!
//! Simplified: the kubelet learns claims and volumes from watches, where
//! upstream's populator GETs them.

use crate::trace::Actor;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use k8s_openapi::api::core::v1::{PersistentVolume, Pod, Volume};

use super::{Kubelet, klog};
use crate::component::Cx;
use crate::storage_listers::Listers;
use podflow_model::storage::{claim_phase, claim_volume_name};
use podflow_model::{Object, Shared};

/// The claims and volumes the kubelet knows, and the pods waiting for a claim.
#[derive(Debug, Clone, Default)]
pub struct Claims {
    cache: Listers,
    waiting: BTreeMap<String, Shared<Pod>>,
}

impl Claims {
    /// A claim, volume or class changed; false if the object is none of them.
    pub fn apply(&mut self, object: &Object, deleted: bool) -> bool {
        self.cache.apply(object, deleted)
    }

    /// The volume bound to the pod's claim `name`, or why there is none
    /// (`getPVCExtractPV`, `getPVSpec`).
    fn volume_of(&self, namespace: &str, name: &str) -> Result<&PersistentVolume, String> {
        let claim = self.cache.claim(namespace, name).ok_or_else(|| {
            format!(
                "error processing PVC {namespace}/{name}: failed to fetch PVC from API server: persistentvolumeclaims \"{name}\" not found"
            )
        })?;
        if claim_phase(claim) != "Bound" || claim_volume_name(claim).is_empty() {
            return Err(format!(
                "error processing PVC {namespace}/{name}: PVC is not bound"
            ));
        }
        let volume = claim_volume_name(claim);
        self.cache.volumes.get(volume).map(|v| &**v).ok_or_else(|| {
            format!(
                "error processing PVC {namespace}/{name}: failed to fetch PV {volume:?} from API server: persistentvolumes {volume:?} not found"
            )
        })
    }
}

/// The claim volumes of a pod: (volume name, claim name).
fn claim_volumes(pod: &Pod) -> Vec<(String, String)> {
    pod.spec
        .as_ref()
        .and_then(|s| s.volumes.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|v| {
            v.persistent_volume_claim
                .as_ref()
                .map(|c| (v.name.clone(), c.claim_name.clone()))
        })
        .collect()
}

impl Kubelet {
    /// Whether every claim of the pod is bound to a known volume; if not, the
    /// populator's error is logged and the pod waits for its claims.
    pub(super) fn claims_ready(&mut self, key: &str, pod: &Shared<Pod>, cx: &mut Cx<'_>) -> bool {
        let namespace = pod.metadata.namespace.as_deref().unwrap_or_default();
        for (volume, claim) in claim_volumes(pod) {
            if let Err(err) = self.claims.volume_of(namespace, &claim) {
                let line = klog::info(
                    cx.now,
                    self.pid,
                    "desired_state_of_world_populator.go:326",
                    "Error processing volume",
                    &[
                        ("err", klog::quoted(&err)),
                        ("pod", klog::quoted(key)),
                        ("volumeName", klog::quoted(&volume)),
                    ],
                );
                cx.log(&self.me(), Some(&self.node), format!("E{}", &line[1..]));
                self.claims.waiting.insert(key.to_owned(), pod.clone());
                return false;
            }
        }
        self.claims.waiting.remove(key);
        true
    }

    /// A claim or volume changed: pods waiting for it are admitted now.
    pub(super) fn claims_changed(
        &mut self,
        object: &Object,
        deleted: bool,
        cx: &mut Cx<'_>,
    ) -> bool {
        if !self.claims.apply(object, deleted) {
            return false;
        }
        let waiting: Vec<(String, Shared<Pod>)> = self
            .claims
            .waiting
            .iter()
            .map(|(k, p)| (k.clone(), p.clone()))
            .collect();
        for (key, pod) in waiting {
            let namespace = pod.metadata.namespace.as_deref().unwrap_or_default();
            let ready = claim_volumes(&pod)
                .iter()
                .all(|(_, claim)| self.claims.volume_of(namespace, claim).is_ok());
            if ready && !self.workers.contains_key(&key) {
                self.claims.waiting.remove(&key);
                self.admit(&key, &pod, cx);
            }
        }
        true
    }

    /// The reconciler's lines for one claim volume (already known bound);
    /// returns the volume plugin's name.
    pub(super) fn mount_claim(
        &self,
        cx: &mut Cx<'_>,
        key: &str,
        pod: &Pod,
        volume: &Volume,
    ) -> &'static str {
        let namespace = pod.metadata.namespace.as_deref().unwrap_or_default();
        let claim = volume
            .persistent_volume_claim
            .as_ref()
            .map(|c| c.claim_name.clone())
            .unwrap_or_default();
        let Ok(pv) = self.claims.volume_of(namespace, &claim) else {
            return "kubernetes.io/csi";
        };
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let pod_name = pod.metadata.name.clone().unwrap_or_default();
        let pv_name = pv.metadata.name.clone().unwrap_or_default();
        let csi = pv.spec.as_ref().and_then(|s| s.csi.as_ref());
        let (plugin, unique) = match csi {
            Some(csi) => (
                "kubernetes.io/csi",
                format!("kubernetes.io/csi/{}^{}", csi.driver, csi.volume_handle),
            ),
            None if pv.spec.as_ref().is_some_and(|s| s.host_path.is_some()) => (
                "kubernetes.io/host-path",
                format!("kubernetes.io/host-path/{uid}-{pv_name}"),
            ),
            None => (
                "kubernetes.io/local-volume",
                format!("kubernetes.io/local-volume/{uid}-{pv_name}"),
            ),
        };
        let what = format!(
            "volume \"{pv_name}\" (UniqueName: \"{unique}\") pod \"{pod_name}\" (UID: \"{uid}\")"
        );
        let pod_field = [("pod", klog::quoted(key))];
        let log = |cx: &mut Cx<'_>, location: &str, message: String| {
            let line = klog::info(cx.now, self.pid, location, &message, &pod_field);
            cx.log(&self.me(), Some(&self.node), line);
        };
        log(
            cx,
            "reconciler_common.go:251",
            format!("operationExecutor.VerifyControllerAttachedVolume started for {what} "),
        );
        log(
            cx,
            "reconciler_common.go:224",
            format!("operationExecutor.MountVolume started for {what} "),
        );
        if let Some(csi) = csi {
            let path = format!(
                "/var/lib/kubelet/plugins/kubernetes.io/csi/{}/{}/globalmount",
                csi.driver,
                sha256_hex(csi.volume_handle.as_bytes())
            );
            log(
                cx,
                "operation_generator.go:580",
                format!(
                    "MountVolume.MountDevice succeeded for {what} device mount path \"{path}\""
                ),
            );
            cx.message(
                &self.me(),
                &Actor::Csi(self.node.clone()),
                "NodeStageVolume / NodePublishVolume",
            );
        }
        log(
            cx,
            "operation_generator.go:614",
            format!("MountVolume.SetUp succeeded for {what} "),
        );
        plugin
    }
}

/// SHA-256's round constants (FIPS 180-4, 4.2.2).
#[rustfmt::skip]
const SHA256_K: [u32; 64] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
];

/// SHA-256 of `data` in lower-case hex (FIPS 180-4), as `csi_attacher.go`'s
/// `makeDeviceMountPath` names a volume's staging directory.
fn sha256_hex(data: &[u8]) -> String {
    let mut h: [u32; 8] = [
        0x6a09_e667,
        0xbb67_ae85,
        0x3c6e_f372,
        0xa54f_f53a,
        0x510e_527f,
        0x9b05_688c,
        0x1f83_d9ab,
        0x5be0_cd19,
    ];
    let mut message = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&bits.to_be_bytes());
    for block in message.chunks(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7]
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(SHA256_K[i])
                .wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [
                t1.wrapping_add(t2),
                v[0],
                v[1],
                v[2],
                v[3].wrapping_add(t1),
                v[4],
                v[5],
                v[6],
            ];
        }
        for (a, b) in h.iter_mut().zip(v) {
            *a = a.wrapping_add(b);
        }
    }
    h.iter().fold(String::with_capacity(64), |mut out, word| {
        let _ = write!(out, "{word:08x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS 180-4 examples.
    #[test]
    fn sha256_known_answers() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
    }

    #[test]
    fn unbound_and_missing_claims_say_why() {
        let mut claims = Claims::default();
        assert_eq!(
            claims.volume_of("default", "c").unwrap_err(),
            "error processing PVC default/c: failed to fetch PVC from API server: persistentvolumeclaims \"c\" not found"
        );
        let pending = Object::from_json(
            podflow_model::kinds::kind_of("PersistentVolumeClaim"),
            serde_json::json!({"metadata": {"name": "c", "namespace": "default"}, "status": {"phase": "Pending"}}),
        )
        .unwrap();
        claims.apply(&pending, false);
        assert_eq!(
            claims.volume_of("default", "c").unwrap_err(),
            "error processing PVC default/c: PVC is not bound"
        );
    }
}
