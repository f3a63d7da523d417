//! The storage path end to end: a `PersistentVolumeClaim` bound to a volume,
//! statically or by the default class's (simulated) CSI provisioner once the
//! first Pod is scheduled, and mounted by the kubelet
//! (`pkg/controller/volume/persistentvolume/pv_controller.go`,
//! `pkg/scheduler/framework/plugins/volumebinding/`,
//! `pkg/volume/util/operationexecutor/operation_generator.go`).

mod common;

use common::{apply, final_object, run};
use podflow::engine::trace::{Record, TraceRecord};

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

fn log_lines(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Log { line, .. } => Some(line.clone()),
            _ => None,
        })
        .collect()
}

/// "Configure a Pod to Use a PersistentVolume for Storage": the docs' volume,
/// claim and Pod, unmodified; the claim binds to the volume and the Pod runs.
#[test]
fn the_docs_task_pv_example_binds_and_runs() {
    let records = run(
        None,
        &[
            &apply("pv-volume.yaml"),
            &apply("pv-claim.yaml"),
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
    let pod = final_object(&records, "Pod", "task-pv-pod");
    assert_eq!(pod["status"]["phase"], "Running");
    let lines = log_lines(&records);
    assert!(
        lines.iter().any(|l| l.contains(
            "MountVolume.SetUp succeeded for volume \\\"task-pv-volume\\\" (UniqueName: \\\"kubernetes.io/host-path/"
        )),
        "{lines:#?}"
    );
}

/// A claim of the default class (`standard`, `WaitForFirstConsumer`) waits
/// for its first Pod, is provisioned on the Pod's node by the CSI driver, and
/// the kubelet stages and publishes the CSI volume.
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
    let events = events(&records);
    let reasons: Vec<&str> = events
        .iter()
        .filter(|e| e.2 == "data")
        .map(|e| e.0.as_str())
        .collect();
    assert_eq!(reasons[0], "WaitForFirstConsumer");
    assert!(reasons.contains(&"ExternalProvisioning"));
    let provisioned = events
        .iter()
        .find(|e| e.0 == "ProvisioningSucceeded")
        .expect("the volume is provisioned");
    let pvc = final_object(&records, "PersistentVolumeClaim", "data");
    assert_eq!(pvc["spec"]["storageClassName"], "standard");
    assert_eq!(pvc["status"]["phase"], "Bound");
    let volume = pvc["spec"]["volumeName"].as_str().unwrap().to_owned();
    assert_eq!(
        volume,
        format!("pvc-{}", pvc["metadata"]["uid"].as_str().unwrap())
    );
    assert_eq!(
        provisioned.1,
        format!("Successfully provisioned volume {volume}")
    );
    assert!(
        provisioned
            .3
            .starts_with("hostpath.csi.k8s.io_csi-hostpathplugin-0_")
    );
    let pod = final_object(&records, "Pod", "data-pod");
    assert_eq!(pod["status"]["phase"], "Running");
    let node = pod["spec"]["nodeName"].as_str().unwrap();
    assert_eq!(
        pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"],
        node
    );
    let lines = log_lines(&records);
    for wanted in [
        "operationExecutor.VerifyControllerAttachedVolume started for volume",
        "MountVolume.MountDevice succeeded for volume",
        "MountVolume.SetUp succeeded for volume",
    ] {
        assert!(
            lines.iter().any(|l| l.contains(wanted)
                && l.contains(&format!(
                    "\\\"{volume}\\\" (UniqueName: \\\"kubernetes.io/csi/hostpath.csi.k8s.io^"
                ))),
            "{wanted}: {lines:#?}"
        );
    }
    assert!(lines.iter().any(|l| l.contains(
        "device mount path \\\"/var/lib/kubelet/plugins/kubernetes.io/csi/hostpath.csi.k8s.io/"
    )));
}

/// A Pod whose claim does not exist stays Pending with the scheduler's reason.
#[test]
fn a_pod_with_a_missing_claim_stays_pending() {
    let records = run(None, &[&apply("missing-claim-pod.yaml")], |_| {});
    let pod = final_object(&records, "Pod", "orphan");
    assert_eq!(pod["status"]["phase"], "Pending");
    let failed = events(&records)
        .into_iter()
        .find(|e| e.0 == "FailedScheduling")
        .expect("the scheduler says why");
    assert!(
        failed
            .1
            .contains("persistentvolumeclaim \"nothere\" not found"),
        "{}",
        failed.1
    );
}
