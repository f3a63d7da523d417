//! Narrations of what happens on a node: the kubelet's stages and log lines,
//! the CNI plugin. After `pkg/kubelet/kubelet.go` (`syncLoopIteration`),
//! `pkg/kubelet/kuberuntime/kuberuntime_manager.go` (`computePodActions`,
//! `SyncPod`), `pkg/kubelet/pleg/generic.go` (relist every second),
//! `pkg/kubelet/volumemanager/reconciler/` and
//! `pkg/kubelet/util/pod_startup_latency_tracker.go`.

use super::text::{klog_field, klog_message, quoted_after};
use super::{Narration, apiserver, tr};
use crate::tui::lang::Lang;
use podflow_engine::trace::{Actor, Detail, Outcome, Stage, StageName};

/// A stage of `kubelet/NODE`, `cni/NODE`, `containerd/NODE` or `csi/NODE`.
pub fn stage(s: &Stage, lang: Lang) -> Narration {
    let node = s
        .extra()
        .node
        .clone()
        .or_else(|| s.component.node().map(str::to_owned))
        .unwrap_or_default();
    let pod = s.extra().pod.clone().unwrap_or_default();
    if matches!(s.component, Actor::Kubelet(_))
        && let Some(narration) = super::restarts::outcome(s, &node, &pod, lang)
    {
        return narration;
    }
    match s.stage {
        StageName::Network => network(s, &node, &pod, lang),
        StageName::Volume => volume(s, &pod, lang),
        StageName::Sandbox => sandbox(s, &pod, lang),
        StageName::Pull => pull(s, &node, lang),
        StageName::Container => container(s, &pod, lang),
        StageName::Probe => probe(s, &pod, lang),
        StageName::Status if s.outcome == Outcome::Terminated => terminated(&pod, lang),
        StageName::Status => running(s, &node, &pod, lang),
        // The node's fault says what happened in its detail.
        _ => apiserver::generic(s, lang),
    }
}

fn network(s: &Stage, node: &str, pod: &str, lang: Lang) -> Narration {
    let (ip, cidr) = match &s.detail {
        Detail::Network(n) => (n.ip.as_str(), n.cidr.as_str()),
        _ => ("", ""),
    };
    Narration::new(
        tr(
            lang,
            format!("The CNI plugin gives {pod} the IP {ip}"),
            format!("CNI 插件为 {pod} 分配 IP {ip}"),
        ),
        vec![
            tr(
                lang,
                format!("It creates eth0 in the sandbox's network namespace and takes {ip} from {node}'s Pod CIDR {cidr}."),
                format!("它在沙箱的网络命名空间中创建 eth0，并从 {node} 的 Pod 网段 {cidr} 中分配 {ip}。"),
            ),
            tr(
                lang,
                "Every Pod gets its own IP, reachable from every other Pod without NAT: the Kubernetes network model.".into(),
                "每个 Pod 都有自己的 IP，其他 Pod 无需 NAT 即可直接访问：这就是 Kubernetes 的网络模型。".into(),
            ),
        ],
    )
}

fn volume(s: &Stage, pod: &str, lang: Lang) -> Narration {
    let (volume, plugin) = match &s.detail {
        Detail::Volume(v) => (v.name.as_str(), v.plugin.as_str()),
        _ => ("", ""),
    };
    Narration::new(
        tr(
            lang,
            format!("The kubelet mounts volume {volume}"),
            format!("kubelet 挂载卷 {volume}"),
        ),
        vec![
            tr(
                lang,
                format!("Volume {volume} of {pod} is set up by the {plugin} plugin."),
                format!("{pod} 的卷 {volume} 由 {plugin} 插件准备好。"),
            ),
            tr(
                lang,
                "The volume manager mounts every volume before any container starts; kube-api-access-… holds the service-account token, ca.crt and the namespace.".into(),
                "卷管理器在任何容器启动之前挂载所有卷；kube-api-access-… 中包含 ServiceAccount 的 Token、ca.crt 和命名空间。".into(),
            ),
        ],
    )
}

fn sandbox(s: &Stage, pod: &str, lang: Lang) -> Narration {
    let (id, ip) = match &s.detail {
        Detail::Sandbox(sandbox) => (sandbox.id.as_str(), sandbox.ip.as_str()),
        _ => ("", ""),
    };
    Narration::new(
        tr(
            lang,
            format!("The Pod sandbox of {pod} is ready"),
            format!("{pod} 的 Pod 沙箱已就绪"),
        ),
        vec![
            tr(
                lang,
                format!("The pause container {id} holds the Pod's network namespace, with IP {ip}."),
                format!("pause 容器 {id} 持有 Pod 的网络命名空间，IP 为 {ip}。"),
            ),
            tr(
                lang,
                "Every container of the Pod joins this sandbox: they share the IP and can reach each other on localhost.".into(),
                "Pod 中的所有容器都加入这个沙箱：它们共享同一个 IP，可以通过 localhost 互相访问。".into(),
            ),
        ],
    )
}

fn pull(s: &Stage, node: &str, lang: Lang) -> Narration {
    let d = s.detail.text();
    let image = d.split(' ').next().unwrap_or_default();
    if s.outcome == Outcome::Present {
        Narration::new(
            tr(
                lang,
                format!("{image} is already on {node}"),
                format!("{image} 已在 {node} 上"),
            ),
            vec![tr(
                lang,
                "With imagePullPolicy IfNotPresent (the default for a tag other than :latest) the kubelet uses the node's copy and skips the registry.".into(),
                "imagePullPolicy 为 IfNotPresent（非 :latest 标签时的默认值）时，kubelet 直接使用节点上已有的镜像，不访问镜像仓库。".into(),
            )],
        )
    } else {
        Narration::new(
            tr(
                lang,
                format!("{node} has pulled {image}"),
                format!("{node} 已拉取 {image}"),
            ),
            vec![
                tr(
                    lang,
                    format!("Pulled {d}."),
                    format!("已拉取：{d}。"),
                ),
                tr(
                    lang,
                    "The image now stays on the node: the next Pod here that uses it starts without a pull.".into(),
                    "镜像现在保存在节点上：之后在此节点上使用它的 Pod 无需再次拉取。".into(),
                ),
            ],
        )
    }
}

fn container(s: &Stage, pod: &str, lang: Lang) -> Narration {
    let d = s.detail.text();
    let name = d.split(' ').next().unwrap_or_default();
    Narration::new(
        tr(
            lang,
            format!("Container {name} is running"),
            format!("容器 {name} 已运行"),
        ),
        vec![
            tr(
                lang,
                format!("containerd created and started {d} in the sandbox of {pod}."),
                format!("containerd 在 {pod} 的沙箱中创建并启动了 {d}。"),
            ),
            tr(
                lang,
                "Containers start in the order the spec lists them, after the init containers have all succeeded.".into(),
                "容器按 spec 中列出的顺序启动，并且要等所有 init 容器都成功之后。".into(),
            ),
        ],
    )
}

fn probe(s: &Stage, pod: &str, lang: Lang) -> Narration {
    let d = s.detail.text();
    Narration::new(
        tr(
            lang,
            format!("The kubelet probes a container of {pod}"),
            format!("kubelet 探测 {pod} 的容器"),
        ),
        vec![
            tr(lang, format!("{}: {d}", s.outcome), format!("{}：{d}", s.outcome)),
            tr(
                lang,
                "A failing liveness probe restarts the container; a failing readiness probe takes the Pod out of its Services' endpoints; a startup probe holds the other two back until it succeeds.".into(),
                "存活探针失败会重启容器；就绪探针失败会把 Pod 从 Service 的端点中摘除；启动探针成功之前，另外两种探针不会执行。".into(),
            ),
        ],
    )
}

fn terminated(pod: &str, lang: Lang) -> Narration {
    Narration::new(
        tr(
            lang,
            format!("The containers of {pod} have stopped"),
            format!("{pod} 的容器已全部停止"),
        ),
        vec![tr(
            lang,
            "The kubelet writes the final status, then deletes the Pod for good (grace period 0): only then does it disappear from the API.".into(),
            "kubelet 写入最终状态后，以 0 秒宽限期彻底删除 Pod：这时它才会从 API 中消失。".into(),
        )],
    )
}

fn running(s: &Stage, node: &str, pod: &str, lang: Lang) -> Narration {
    let d = s.detail.text();
    Narration::new(
        tr(
            lang,
            format!("{pod} is Running"),
            format!("{pod} 进入 Running"),
        ),
        vec![
            tr(
                lang,
                format!("The kubelet computes the Pod's status on {node}: {d}. Running means every container has been created and at least one is running, starting or restarting."),
                format!("kubelet 在 {node} 上计算 Pod 状态：{d}。Running 表示所有容器都已创建，且至少有一个正在运行、启动或重启。"),
            ),
            tr(
                lang,
                "Its status manager will send phase Running, the Ready condition and the container states to the API server; until then nobody else knows.".into(),
                "它的状态管理器会把 Running 阶段、Ready 条件和容器状态发给 API Server；在此之前，其他组件都还不知道。".into(),
            ),
        ],
    )
}

/// A kubelet log line (klog).
#[expect(
    clippy::too_many_lines,
    reason = "a table of bilingual sentences, one arm a case"
)]
pub fn kubelet_log(component: &Actor, line: &str, lang: Lang) -> Narration {
    let message = klog_message(line).unwrap_or_else(|| line.to_owned());
    let pod = klog_field(line, "pod").unwrap_or_default();
    let pods = klog_field(line, "pods")
        .map(|p| p.trim_matches(['[', ']']).replace('"', ""))
        .unwrap_or_default();
    let sync = |op: &str, en: &str, zh: &str| {
        Narration::new(
            tr(
                lang,
                format!("Kubelet sync loop: {op} {pods}"),
                format!("kubelet 同步循环：{op} {pods}"),
            ),
            vec![tr(lang, en.into(), zh.into())],
        )
    };
    if let Some(op) = message.strip_prefix("SyncLoop ") {
        return match op {
            "ADD" => sync(
                "ADD",
                "Its watch (source \"api\": only Pods with spec.nodeName set to this node) delivered a new Pod; the kubelet admits it and starts a pod worker for it.",
                "kubelet 的 watch（来源 \"api\"：只包含 spec.nodeName 为本节点的 Pod）送来了一个新 Pod；kubelet 准入它，并为它启动一个 Pod worker。",
            ),
            "UPDATE" => sync(
                "UPDATE",
                "The Pod's spec, labels or annotations changed; the pod worker syncs it again.",
                "Pod 的 spec、标签或注解发生了变化；Pod worker 会重新同步它。",
            ),
            "RECONCILE" => sync(
                "RECONCILE",
                "Only the status changed (often the kubelet's own status write coming back through the watch): the kubelet reconciles it, nothing is restarted.",
                "只有 status 发生了变化（通常是 kubelet 自己写入的状态经 watch 回到这里）：kubelet 做一次核对，不会重启任何东西。",
            ),
            "DELETE" => sync(
                "DELETE",
                "The Pod got a deletionTimestamp: graceful termination begins, the containers get SIGTERM and the grace period to exit.",
                "Pod 被设置了 deletionTimestamp：优雅终止开始，容器收到 SIGTERM，并有一个宽限期来退出。",
            ),
            "REMOVE" => sync(
                "REMOVE",
                "The Pod is gone from the API server; the kubelet forgets it.",
                "Pod 已从 API Server 中删除；kubelet 不再管理它。",
            ),
            _ if op.starts_with("(PLEG)") => pleg(line, &pod, lang),
            _ => Narration::new(
                tr(
                    lang,
                    format!("Kubelet: {message}"),
                    format!("kubelet：{message}"),
                ),
                vec![line.to_owned()],
            ),
        };
    }
    if message.starts_with("No sandbox for pod can be found") {
        return Narration::new(
            tr(
                lang,
                format!("The kubelet finds no sandbox for {pod}"),
                format!("kubelet 发现 {pod} 还没有沙箱"),
            ),
            vec![tr(
                lang,
                "computePodActions compares the Pod with what containerd runs: there is no sandbox yet, so the plan is to create one (RunPodSandbox), then pull images and start the containers.".into(),
                "computePodActions 把 Pod 与 containerd 中实际运行的内容比较：还没有沙箱，所以计划是先创建沙箱（RunPodSandbox），再拉取镜像、启动容器。".into(),
            )],
        );
    }
    let volume = quoted_after(&message, "volume").unwrap_or_default();
    if message.starts_with("operationExecutor.VerifyControllerAttachedVolume") {
        return Narration::new(
            tr(
                lang,
                format!("The volume manager checks that {volume} is attached"),
                format!("卷管理器确认卷 {volume} 已挂接"),
            ),
            vec![tr(
                lang,
                "A projected, Secret or ConfigMap volume needs no attaching; a network disk waits for the attach/detach controller to attach it to the node.".into(),
                "投射卷、Secret 和 ConfigMap 卷不需要挂接；网络磁盘则要等 attach/detach 控制器把它挂接到节点上。".into(),
            )],
        );
    }
    if message.starts_with("operationExecutor.MountVolume started") {
        return Narration::new(
            tr(
                lang,
                format!("The volume manager mounts {volume}"),
                format!("卷管理器开始挂载卷 {volume}"),
            ),
            vec![tr(
                lang,
                "The reconciler compares the volumes the Pod wants with those mounted and starts the missing mounts.".into(),
                "reconciler 比较 Pod 期望的卷和已挂载的卷，为缺少的卷发起挂载。".into(),
            )],
        );
    }
    if message.starts_with("MountVolume.SetUp succeeded") {
        return Narration::new(
            tr(
                lang,
                format!("Volume {volume} is mounted"),
                format!("卷 {volume} 挂载成功"),
            ),
            vec![tr(
                lang,
                "The files are in place in the Pod's directory on the node; containers can start only when every volume is mounted.".into(),
                "文件已放到节点上该 Pod 的目录中；只有所有卷都挂载完成，容器才能启动。".into(),
            )],
        );
    }
    if message == "Observed pod startup duration" {
        let e2e = klog_field(line, "podStartE2EDuration").unwrap_or_default();
        let slo = klog_field(line, "podStartSLOduration").unwrap_or_default();
        return Narration::new(
            tr(
                lang,
                format!("{pod} took {e2e} to start"),
                format!("{pod} 启动耗时 {e2e}"),
            ),
            vec![tr(
                lang,
                format!(
                    "From creation until the kubelet saw it running: {e2e}; without the image pulls: {slo}s, the pod startup latency SLI."
                ),
                format!(
                    "从创建到 kubelet 观察到它运行共 {e2e}；扣除拉取镜像的时间为 {slo} 秒，即 Pod 启动延迟 SLI。"
                ),
            )],
        );
    }
    Narration::new(
        tr(
            lang,
            format!("{component} logs: {message}"),
            format!("{component} 日志：{message}"),
        ),
        vec![line.to_owned()],
    )
}

fn pleg(line: &str, pod: &str, lang: Lang) -> Narration {
    let kind = line
        .split_once("\"Type\":\"")
        .and_then(|(_, r)| r.split_once('"'))
        .map_or("ContainerStarted", |(t, _)| t);
    let id: String = line
        .split_once("\"Data\":\"")
        .map(|(_, r)| r.chars().take(13).collect())
        .unwrap_or_default();
    Narration::new(
        tr(
            lang,
            format!("PLEG: {kind} in {pod}"),
            format!("PLEG：{pod} 中的 {kind} 事件"),
        ),
        vec![
            tr(
                lang,
                format!(
                    "The Pod Lifecycle Event Generator relists containerd every second and turns what changed into events: here {kind} for {id}."
                ),
                format!(
                    "Pod 生命周期事件生成器（PLEG）每秒重新列举一次 containerd 中的容器，把变化转换成事件：这里是 {id} 的 {kind}。"
                ),
            ),
            tr(
                lang,
                "The sync loop reacts by syncing the Pod, which updates its status.".into(),
                "同步循环收到事件后重新同步该 Pod，从而更新它的状态。".into(),
            ),
        ],
    )
}
