//! A storage fault: a `PersistentVolumeClaim` whose selector matches no
//! `PersistentVolume`, so it never binds and the Pods that mount it wait.

use super::pods::on_deployment;
use super::{Cx, Fault, Kind};
use crate::app::{App, Shape};
use crate::say;

pub(super) fn unbound_pvc(mut app: App, cx: &mut Cx<'_>) -> Fault {
    app.replicas = 1;
    let claim = format!("{}-data", app.name);
    let (wanted, labelled) = *cx.choose(&[
        ("data", "dta"),
        ("content", "contents"),
        ("static", "statics"),
    ]);
    let mount = if app.image.starts_with("httpd") {
        "/usr/local/apache2/htdocs"
    } else {
        "/usr/share/nginx/html"
    };
    let shape = Shape {
        pod: format!(
            "volumes:\n  - name: content\n    persistentVolumeClaim: {{claimName: {claim}}}\n"
        ),
        container: format!("volumeMounts:\n  - {{name: content, mountPath: {mount}}}\n"),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::UnboundPvc, app.clone(), &shape);
    let pvc = format!(
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: {claim}\nspec:\n  storageClassName: \"\"\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests: {{storage: 1Gi}}\n  selector:\n    matchLabels: {{app: {name}, tier: {wanted}}}\n",
        name = app.name
    );
    f.files[0].1 = format!("{pvc}---\n{}", f.files[0].1);
    f.cluster.push(format!(
        "apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: {claim}\n  labels: {{app: {name}, tier: {labelled}}}\nspec:\n  capacity: {{storage: 1Gi}}\n  accessModes: [ReadWriteOnce]\n  persistentVolumeReclaimPolicy: Retain\n  storageClassName: \"\"\n  hostPath: {{path: /srv/{name}}}\n",
        name = app.name
    ));
    f.hints = vec![
        say(
            format!(
                ":get pods -l app={}: Pending. :describe one: its FailedScheduling names the claim.",
                app.name
            ),
            format!(
                ":get pods -l app={}：Pending。对其中一个执行 :describe：FailedScheduling 提到了存储声明。",
                app.name
            ),
        ),
        say(
            format!(
                ":get pvc,pv — is {claim} Bound? Compare the claim's selector with the volume's labels (--show-labels)."
            ),
            format!(
                ":get pvc,pv —— {claim} 是 Bound 吗？比较声明的 selector 和卷的标签（--show-labels）。"
            ),
        ),
    ];
    f.cause = say(
        format!(
            "Claim {claim} asks for a volume without a StorageClass labelled app={name}, tier={wanted}; the only volume, {claim}, is labelled tier={labelled}. The PV controller finds no match, the claim stays Pending, and the scheduler leaves the Pod Pending (unbound immediate PersistentVolumeClaims). Fix the volume's label.",
            name = app.name
        ),
        format!(
            "声明 {claim} 要求一个不带 StorageClass、标签为 app={name}、tier={wanted} 的卷；唯一的卷 {claim} 的标签却是 tier={labelled}。PV 控制器找不到匹配的卷，声明一直 Pending，调度器也让 Pod 保持 Pending（unbound immediate PersistentVolumeClaims）。修正卷的标签。",
            name = app.name
        ),
    );
    f.fix = vec![format!("label pv {claim} tier={wanted} --overwrite")];
    f
}
