//! The storage path end to end: a `PersistentVolumeClaim` bound to a volume,
//! statically or by the default class's (simulated) CSI provisioner once the
//! first Pod is scheduled, and mounted by the kubelet. The wording is
//! upstream's: `pkg/controller/volume/persistentvolume/pv_controller.go`
//! (`WaitForFirstConsumer`, `ExternalProvisioning`),
//! `sig-storage-lib-external-provisioner` `controller/controller.go`
//! (`Provisioning`, `ProvisioningSucceeded`),
//! `pkg/scheduler/framework/plugins/volumebinding/volume_binding.go` (`PreFilter`,
//! `PreBindPreFlight`), `pkg/scheduler/framework/types.go` (`FitError.Error`),
//! `pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`, and
//! `pkg/volume/util/operationexecutor/operation_generator.go` /
//! `operation_executor.go` (`GenerateMsgDetailed`) for the kubelet's lines.

use crate::common::{apply, final_object, run};
use podflow_engine::trace::{Actor, StageName};
use podflow_engine::trace::{Record, TraceRecord};

/// Every event: (reason, message, object name, source).
fn events(records: &[TraceRecord]) -> Vec<(String, String, String, String)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Event(e) => Some((
                e.reason.clone(),
                e.message.clone(),
                e.object.name.clone(),
                e.source.clone(),
            )),
            _ => None,
        })
        .collect()
}

/// The events about `name`: (reason, message).
fn events_of(records: &[TraceRecord], name: &str) -> Vec<(String, String)> {
    events(records)
        .into_iter()
        .filter(|e| e.2 == name)
        .map(|e| (e.0, e.1))
        .collect()
}

/// The messages of the klog lines (`"…"` of `I… file.go:N] "…" pod=…`), unquoted.
fn log_lines(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Log { line, .. } => Some(line.replace("\\\"", "\"")),
            _ => None,
        })
        .collect()
}

/// The index of the first line containing `wanted`.
fn line_at(lines: &[String], wanted: &str) -> usize {
    lines
        .iter()
        .position(|l| l.contains(wanted))
        .unwrap_or_else(|| panic!("{wanted}: {lines:#?}"))
}

/// The scheduler's binding-cycle stages for `pod`: (stage, plugin, outcome).
fn binding_stages(records: &[TraceRecord], pod: &str) -> Vec<(String, String, String)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Stage(s)
                if s.component == Actor::Scheduler
                    && s.extra().pod.as_deref() == Some(pod)
                    && (s.stage == StageName::Reserve || s.stage == StageName::PreBind) =>
            {
                Some((
                    s.stage.to_string(),
                    s.plugin.as_deref().unwrap_or_default().to_owned(),
                    s.outcome.to_string(),
                ))
            }
            _ => None,
        })
        .collect()
}

/// `FailedScheduling` messages.
fn failed_scheduling(records: &[TraceRecord]) -> Vec<String> {
    events(records)
        .into_iter()
        .filter(|e| e.0 == "FailedScheduling")
        .map(|e| e.1)
        .collect()
}

/// "Configure a Pod to Use a `PersistentVolume` for Storage": the docs' volume,
/// claim and Pod, unmodified; the claim binds statically to the volume and the
/// Pod runs with it mounted (a `hostPath` volume: no `MountDevice`).
#[test]
fn the_docs_task_pv_example_binds_statically_and_runs() {
    let records = run(
        None,
        &[
            &apply("pv-volume.yaml"),
            &apply("pv-claim.yaml"),
            "wait 2s",
            &apply("pv-pod.yaml"),
        ],
        |_| {},
    );
    let pv = final_object(&records, "PersistentVolume", "task-pv-volume");
    assert_eq!(pv["status"]["phase"], "Bound");
    assert_eq!(pv["spec"]["claimRef"]["name"], "task-pv-claim");
    assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
    let pvc = final_object(&records, "PersistentVolumeClaim", "task-pv-claim");
    assert_eq!(pvc["status"]["phase"], "Bound");
    assert_eq!(pvc["spec"]["volumeName"], "task-pv-volume");
    assert_eq!(pvc["status"]["capacity"]["storage"], "10Gi");
    assert_eq!(
        pvc["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"],
        "yes"
    );
    let pod = final_object(&records, "Pod", "task-pv-pod");
    assert_eq!(pod["status"]["phase"], "Running");
    // The claim was bound before the Pod came: Reserve finds every claim
    // bound, and PreBindPreFlight skips PreBind (`allBound`).
    assert_eq!(
        binding_stages(&records, "default/task-pv-pod"),
        [("reserve".into(), "VolumeBinding".into(), "pass".into())]
    );
    let uid = pod["metadata"]["uid"].as_str().unwrap();
    let what = format!(
        "for volume \"task-pv-volume\" (UniqueName: \"kubernetes.io/host-path/{uid}-task-pv-volume\") pod \"task-pv-pod\" (UID: \"{uid}\") "
    );
    let lines = log_lines(&records);
    let at = |wanted: &str| line_at(&lines, wanted);
    let verify = at(&format!(
        "\"operationExecutor.VerifyControllerAttachedVolume started {what}\""
    ));
    let mount = at(&format!("\"operationExecutor.MountVolume started {what}\""));
    let set_up = at(&format!("\"MountVolume.SetUp succeeded {what}\""));
    assert!(verify < mount && mount < set_up);
    assert!(!lines.iter().any(|l| l.contains("MountVolume.MountDevice")));
}

/// A claim of the default class (`standard`, `WaitForFirstConsumer`) waits
/// for its first Pod, is provisioned on the Pod's node by the CSI driver, and
/// the kubelet stages (`MountDevice`) and publishes (`SetUp`) the CSI volume.
#[test]
fn a_default_class_claim_waits_for_its_first_consumer_then_is_provisioned() {
    let records = run(
        None,
        &[
            &apply("default-class-claim.yaml"),
            "wait 5s",
            &apply("data-pod.yaml"),
        ],
        |_| {},
    );
    let pvc = final_object(&records, "PersistentVolumeClaim", "data");
    assert_eq!(pvc["spec"]["storageClassName"], "standard");
    assert_eq!(pvc["status"]["phase"], "Bound");
    let volume = pvc["spec"]["volumeName"].as_str().unwrap().to_owned();
    assert_eq!(
        volume,
        format!("pvc-{}", pvc["metadata"]["uid"].as_str().unwrap())
    );
    let mut claim_events = events_of(&records, "data");
    claim_events.dedup();
    let pairs: Vec<(&str, &str)> = claim_events
        .iter()
        .map(|(r, m)| (r.as_str(), m.as_str()))
        .collect();
    let provisioned = format!("Successfully provisioned volume {volume}");
    assert_eq!(
        pairs,
        [
            (
                "WaitForFirstConsumer",
                "waiting for first consumer to be created before binding"
            ),
            (
                "ExternalProvisioning",
                "Waiting for a volume to be created either by the external provisioner \
                 'hostpath.csi.k8s.io' or manually by the system administrator. If volume \
                 creation is delayed, please verify that the provisioner is running and \
                 correctly registered."
            ),
            (
                "Provisioning",
                "External provisioner is provisioning volume for claim \"default/data\""
            ),
            ("ProvisioningSucceeded", provisioned.as_str()),
        ]
    );
    let source = events(&records)
        .into_iter()
        .find(|e| e.0 == "ProvisioningSucceeded")
        .map(|e| e.3)
        .unwrap();
    assert!(source.starts_with("hostpath.csi.k8s.io_csi-hostpathplugin-0_"));
    let pod = final_object(&records, "Pod", "data-pod");
    assert_eq!(pod["status"]["phase"], "Running");
    let node = pod["spec"]["nodeName"].as_str().unwrap();
    assert_eq!(
        pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"],
        node
    );
    // The claim was unbound: Reserve decides, PreBind runs and waits for the binding.
    assert_eq!(
        binding_stages(&records, "default/data-pod"),
        [
            ("reserve".into(), "VolumeBinding".into(), "pass".into()),
            ("prebind".into(), "VolumeBinding".into(), "pass".into()),
            ("prebind".into(), "VolumeBinding".into(), "waiting".into()),
        ]
    );
    let pv = final_object(&records, "PersistentVolume", &volume);
    let handle = pv["spec"]["csi"]["volumeHandle"].as_str().unwrap();
    let uid = pod["metadata"]["uid"].as_str().unwrap();
    let what = format!(
        "for volume \"{volume}\" (UniqueName: \"kubernetes.io/csi/hostpath.csi.k8s.io^{handle}\") pod \"data-pod\" (UID: \"{uid}\")"
    );
    let lines = log_lines(&records);
    let at = |wanted: &str| line_at(&lines, wanted);
    let verify = at(&format!(
        "\"operationExecutor.VerifyControllerAttachedVolume started {what} \""
    ));
    let mount = at(&format!(
        "\"operationExecutor.MountVolume started {what} \""
    ));
    let device = at(&format!(
        "\"MountVolume.MountDevice succeeded {what} device mount path \"/var/lib/kubelet/plugins/kubernetes.io/csi/hostpath.csi.k8s.io/"
    ));
    let set_up = at(&format!("\"MountVolume.SetUp succeeded {what} \""));
    assert!(verify < mount && mount < device && device < set_up);
    let staged = &lines[device];
    let path = staged
        .split(
            "device mount path \"/var/lib/kubelet/plugins/kubernetes.io/csi/hostpath.csi.k8s.io/",
        )
        .nth(1)
        .unwrap();
    let (digest, rest) = path.split_at(64);
    assert!(digest.chars().all(|c| c.is_ascii_hexdigit()), "{staged}");
    assert!(rest.starts_with("/globalmount\"\""), "{staged}");
}

/// A Pod without claims sees no `VolumeBinding` stage in its binding cycle:
/// `PreFilter` skips it, its `Reserve` has nothing to do, and
/// `PreBindPreFlight` skips `PreBind`.
#[test]
fn a_pod_without_claims_has_no_volume_binding_stages() {
    let nginx = format!(
        "apply -f {}/assets/manifests/nginx-pod.yaml",
        crate::common::REPO
    );
    let records = run(None, &[&nginx], |_| {});
    let pod = final_object(&records, "Pod", "nginx");
    assert_eq!(pod["status"]["phase"], "Running");
    assert_eq!(binding_stages(&records, "default/nginx"), []);
}

/// A Pod whose claim does not exist stays Pending; `VolumeBinding`'s `PreFilter`
/// rejects it with the lister's `NotFound` error, which the `FitError` quotes.
#[test]
fn a_pod_with_a_missing_claim_stays_pending() {
    let records = run(None, &[&apply("missing-claim-pod.yaml")], |_| {});
    let pod = final_object(&records, "Pod", "orphan");
    assert_eq!(pod["status"]["phase"], "Pending");
    assert_eq!(
        failed_scheduling(&records)[0],
        "0/4 nodes are available: persistentvolumeclaim \"nothere\" not found. \
         preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    );
}

/// A Pod whose claim is of an `Immediate` class and unbound (the docs' claim
/// without its volume) waits in `PreFilter`.
#[test]
fn a_pod_with_an_unbound_immediate_claim_stays_pending() {
    let records = run(
        None,
        &[&apply("pv-claim.yaml"), "wait 2s", &apply("pv-pod.yaml")],
        |_| {},
    );
    let pod = final_object(&records, "Pod", "task-pv-pod");
    assert_eq!(pod["status"]["phase"], "Pending");
    assert_eq!(
        failed_scheduling(&records)[0],
        "0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims. \
         preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    );
}

/// A claim without a class whose selector matches no volume gets
/// `FailedBinding` and stays `Pending`; once the volume's label is fixed, the
/// controller's periodic resync (`--pvclaimbinder-sync-period`, 15 s,
/// `pv_controller_base.go` `resync`) binds it, without any change to the claim.
#[test]
fn a_claim_binds_at_the_resync_after_its_volume_comes_to_match() {
    let records = run(
        None,
        &[
            &apply("selector-claim.yaml"),
            "wait 20s",
            "label pv data tier=data --overwrite",
            "wait 30s",
        ],
        |_| {},
    );
    let failed: Vec<_> = events_of(&records, "data")
        .into_iter()
        .filter(|(reason, _)| reason == "FailedBinding")
        .collect();
    assert!(failed.len() >= 2, "{failed:?}");
    assert_eq!(
        failed[0].1,
        "no persistent volumes available for this claim and no storage class is set"
    );
    let pvc = final_object(&records, "PersistentVolumeClaim", "data");
    assert_eq!(pvc["status"]["phase"], "Bound");
    assert_eq!(pvc["spec"]["volumeName"], "data");
}
