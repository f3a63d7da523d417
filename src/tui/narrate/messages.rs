//! Narrations of the arrows (requests to the API server, the API server to
//! etcd, the kubelet to containerd over CRI, containerd to CNI and the
//! registry) and of the API server's answers, after the docs "The Kubernetes
//! API", "API Concepts" (`reference/using-api/api-concepts.md`) and the CRI
//! (`staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto`).

use podflow_engine::trace::Actor;

use super::text::{ApiPath, api_path};
use super::{Narration, tr};
use crate::tui::lang::Lang;

/// One arrow of the sequence diagram.
pub fn message(from: &Actor, to: &Actor, label: &str, lang: Lang) -> Narration {
    match (from, to) {
        (_, Actor::ApiServer) => request(from, label, lang),
        (Actor::ApiServer, Actor::Etcd) => etcd(label, lang),
        (Actor::Kubelet(_), Actor::Containerd(_)) => cri(label, lang),
        (Actor::Containerd(_), Actor::Cni(_)) => Narration::new(
            tr(
                lang,
                "containerd calls the CNI plugin".into(),
                "containerd 调用 CNI 插件".into(),
            ),
            vec![tr(
                lang,
                format!("CNI {label}: create the interface in the new sandbox's network namespace and ask IPAM for an address."),
                format!("CNI {label}：在新沙箱的网络命名空间中创建网卡，并向 IPAM 申请地址。"),
            )],
        ),
        (Actor::Cni(_), Actor::Containerd(_)) => Narration::new(
            tr(
                lang,
                format!("The CNI plugin answers with the IP {label}"),
                format!("CNI 插件返回 IP {label}"),
            ),
            vec![tr(
                lang,
                "containerd records the address in the sandbox; the kubelet will report it as status.podIP.".into(),
                "containerd 把地址记录在沙箱中；kubelet 之后会把它作为 status.podIP 上报。".into(),
            )],
        ),
        (Actor::Containerd(_), Actor::Kubelet(_)) => Narration::new(
            tr(
                lang,
                format!("containerd answers: {label}"),
                format!("containerd 返回：{label}"),
            ),
            vec![tr(
                lang,
                "RunPodSandbox returns the sandbox's id; the kubelet creates the containers inside it.".into(),
                "RunPodSandbox 返回沙箱 ID；kubelet 随后在其中创建容器。".into(),
            )],
        ),
        (Actor::Containerd(_), Actor::Registry) => {
            let image = label.strip_prefix("pull ").unwrap_or(label);
            Narration::new(
                tr(
                    lang,
                    format!("containerd pulls {image}"),
                    format!("containerd 拉取镜像 {image}"),
                ),
                vec![
                    tr(
                        lang,
                        "It resolves the tag to a manifest digest and downloads the layers the node does not have yet.".into(),
                        "它先把标签解析为清单（manifest）摘要，再下载节点上还没有的镜像层。".into(),
                    ),
                    tr(
                        lang,
                        "A short name such as nginx:1.27 means docker.io/library/nginx:1.27.".into(),
                        "像 nginx:1.27 这样的短名称，完整写法是 docker.io/library/nginx:1.27。".into(),
                    ),
                ],
            )
        }
        (Actor::Registry, Actor::Containerd(_)) => Narration::new(
            tr(
                lang,
                format!("The registry delivers {label}"),
                format!("镜像仓库返回 {label}"),
            ),
            vec![tr(
                lang,
                "containerd unpacks the layers into a snapshot the containers will use as their root file system.".into(),
                "containerd 把镜像层解压成快照，作为容器的根文件系统。".into(),
            )],
        ),
        _ => Narration::new(
            tr(
                lang,
                format!("{from} → {to}: {label}"),
                format!("{from} → {to}：{label}"),
            ),
            vec![tr(
                lang,
                format!("{from} sends \"{label}\" to {to}."),
                format!("{from} 向 {to} 发送 \"{label}\"。"),
            )],
        ),
    }
}

/// A request to the API server: `METHOD /path`.
#[expect(
    clippy::too_many_lines,
    reason = "a table of bilingual sentences, one arm a case"
)]
fn request(from: &Actor, label: &str, lang: Lang) -> Narration {
    let (method, path) = label.split_once(' ').unwrap_or((label, ""));
    let p = api_path(path);
    let target = p.target();
    let ns = p.namespace.clone().unwrap_or_default();
    let sub = p.subresource.as_deref();
    match (from, method, sub) {
        (Actor::Scheduler, "POST", Some("binding")) => Narration::new(
            tr(
                lang,
                format!("The scheduler posts a Binding for {ns}/{}", name(&p)),
                format!("调度器为 {ns}/{} 提交 Binding", name(&p)),
            ),
            vec![tr(
                lang,
                "Binding is a POST to the Pod's binding subresource; the API server checks it and sets spec.nodeName. Like every component, the scheduler writes only through the API server.".into(),
                "绑定是对 Pod 的 binding 子资源发起 POST；API Server 检查后设置 spec.nodeName。和所有组件一样，调度器只通过 API Server 写数据。".into(),
            )],
        ),
        (Actor::Scheduler, "PATCH", Some("status")) => Narration::new(
            tr(
                lang,
                format!("The scheduler records why {} cannot be scheduled", name(&p)),
                format!("调度器记录 {} 无法调度的原因", name(&p)),
            ),
            vec![tr(
                lang,
                "It patches the Pod's status with the condition PodScheduled=False, reason Unschedulable, and the message of the FailedScheduling event.".into(),
                "它修补 Pod 的 status，写入条件 PodScheduled=False、原因 Unschedulable，以及 FailedScheduling 事件中的信息。".into(),
            )],
        ),
        (Actor::Kubelet(_), "PATCH", Some("status")) => Narration::new(
            tr(
                lang,
                format!("{from} reports the status of {}", name(&p)),
                format!("{from} 上报 {} 的状态", name(&p)),
            ),
            vec![tr(
                lang,
                "The status manager patches the pods/status subresource: phase, conditions, Pod IP and container states. A kubelet may write only Pods bound to its own node (Node authorizer and NodeRestriction).".into(),
                "状态管理器修补 pods/status 子资源：阶段、条件、Pod IP 和容器状态。kubelet 只能写绑定到自己节点的 Pod（由 Node 鉴权器和 NodeRestriction 保证）。".into(),
            )],
        ),
        (Actor::Kubelet(_), "DELETE", _) => Narration::new(
            tr(
                lang,
                format!("{from} confirms the deletion of {}", name(&p)),
                format!("{from} 确认删除 {}", name(&p)),
            ),
            vec![tr(
                lang,
                "Its containers have stopped and the final status is written, so the kubelet deletes the Pod with grace period 0 and the API server removes it from etcd.".into(),
                "容器已停止，最终状态也已写入，kubelet 以 0 秒宽限期删除 Pod，API Server 随即把它从 etcd 中移除。".into(),
            )],
        ),
        (_, "POST", Some("exec")) => Narration::new(
            tr(
                lang,
                format!("{from} asks to run a command in {ns}/{}", name(&p)),
                format!("{from} 请求在 {ns}/{} 中执行命令", name(&p)),
            ),
            vec![tr(
                lang,
                "kubectl exec: the API server checks create on pods/exec, finds the Pod's node and hands the connection to that kubelet, which runs the command inside the running container (its files, environment and network). Nothing is stored.".into(),
                "kubectl exec：API Server 检查对 pods/exec 的 create 权限，找到 Pod 所在节点，把连接交给该节点的 kubelet，由它在运行中的容器里执行命令（用容器的文件、环境变量和网络）。什么也不存储。".into(),
            )],
        ),
        (_, "GET", _) if p.watch => Narration::new(
            tr(
                lang,
                format!("{from} watches {target}"),
                format!("{from} 开始 watch {target}"),
            ),
            vec![tr(
                lang,
                "A watch is a long-running GET: the API server streams every later change as an ADDED, MODIFIED or DELETED event.".into(),
                "watch 是一个长连接的 GET：之后的每一次变更，API Server 都会以 ADDED、MODIFIED 或 DELETED 事件推送过来。".into(),
            )],
        ),
        (_, "GET", _) if p.name.is_some() => Narration::new(
            tr(
                lang,
                format!("{from} asks the API server for {target}"),
                format!("{from} 向 API Server 查询 {target}"),
            ),
            vec![tr(
                lang,
                "kubectl reads the object first: kubectl get shows it, and kubectl apply uses the answer to choose between creating it (POST) and patching it (PATCH).".into(),
                "kubectl 先读取对象：kubectl get 直接显示它；kubectl apply 则根据结果决定是创建（POST）还是修补（PATCH）。".into(),
            )],
        ),
        (_, "GET", _) => Narration::new(
            tr(
                lang,
                format!("{from} lists {target}"),
                format!("{from} 列出 {target}"),
            ),
            vec![tr(
                lang,
                "A list returns every object of the collection with the current resourceVersion, from which a watch can continue.".into(),
                "list 返回集合中的全部对象以及当前 resourceVersion，之后的 watch 可以从这个版本继续。".into(),
            )],
        ),
        (sender, "POST", _) => Narration::new(
            tr(
                lang,
                format!("{from} asks to create {target}"),
                format!("{from} 请求创建 {target}"),
            ),
            vec![
                // kubectl sends the file's manifest; a controller or kubelet
                // the object it built itself.
                if matches!(sender, Actor::Kubectl | Actor::Client(_)) {
                    tr(
                        lang,
                        format!("The manifest travels as the body of an HTTP POST to {path}."),
                        format!("清单作为 HTTP POST 请求体发送到 {path}。"),
                    )
                } else {
                    tr(
                        lang,
                        format!("The object it built travels as the body of an HTTP POST to {path}."),
                        format!("它自己构造的对象作为 HTTP POST 请求体发送到 {path}。"),
                    )
                },
                tr(
                    lang,
                    "The API server authenticates, authorizes, runs admission, validates and only then stores it in etcd.".into(),
                    "API Server 依次进行认证、鉴权、准入控制和校验，全部通过后才写入 etcd。".into(),
                ),
            ],
        ),
        (_, "PATCH", _) => Narration::new(
            tr(
                lang,
                format!("{from} patches {target}"),
                format!("{from} 修补 {target}"),
            ),
            vec![tr(
                lang,
                "A patch sends only what changes: kubectl apply computes it from the last-applied-configuration annotation, the live object and the file; scale and cordon send a small merge patch.".into(),
                "patch 只发送变化的部分：kubectl apply 根据 last-applied-configuration 注解、线上对象和文件计算出差异；scale 和 cordon 发送一个小的合并补丁。".into(),
            )],
        ),
        (_, "PUT", _) => Narration::new(
            tr(
                lang,
                format!("{from} replaces {target}"),
                format!("{from} 更新（替换）{target}"),
            ),
            vec![tr(
                lang,
                "An update sends the whole object with the resourceVersion it read; if someone wrote in between, it gets 409 Conflict.".into(),
                "update 发送完整对象以及读取时的 resourceVersion；如果期间有人写过，就会得到 409 Conflict。".into(),
            )],
        ),
        (_, "DELETE", _) => Narration::new(
            tr(
                lang,
                format!("{from} asks to delete {target}"),
                format!("{from} 请求删除 {target}"),
            ),
            vec![tr(
                lang,
                "A Pod on a node is not removed at once: it gets a deletionTimestamp and a grace period (30 s by default), the kubelet stops its containers, then it is removed. A Pod on no node goes at once.".into(),
                "已在节点上的 Pod 不会立刻被删除：它先被设置 deletionTimestamp 和宽限期（默认 30 秒），kubelet 停止容器后才真正删除。尚未调度的 Pod 会被立即删除。".into(),
            )],
        ),
        _ => Narration::new(
            tr(
                lang,
                format!("{from} sends {label}"),
                format!("{from} 发送 {label}"),
            ),
            vec![tr(
                lang,
                "Every component reaches the cluster state only through the API server.".into(),
                "所有组件都只通过 API Server 访问集群状态。".into(),
            )],
        ),
    }
}

fn name(p: &ApiPath) -> &str {
    p.name.as_deref().unwrap_or_default()
}

/// `range KEY`, `txn put KEY`, `delete KEY`, `compact revision N`.
fn etcd(label: &str, lang: Lang) -> Narration {
    let (op, key) = label.rsplit_once(' ').unwrap_or((label, ""));
    let (headline, body) = match op {
        "range" => (
            tr(
                lang,
                format!("The API server reads {key} from etcd"),
                format!("API Server 从 etcd 读取 {key}"),
            ),
            tr(
                lang,
                "A read is a range request on the object's key; objects live under /registry/RESOURCE/NAMESPACE/NAME.".into(),
                "读取就是对对象键的一次 range 请求；对象保存在 /registry/资源/命名空间/名称 之下。".into(),
            ),
        ),
        "txn put" => (
            tr(
                lang,
                format!("The API server writes {key} to etcd"),
                format!("API Server 向 etcd 写入 {key}"),
            ),
            tr(
                lang,
                "A transaction puts the object under its key only if it is unchanged since it was read (optimistic concurrency).".into(),
                "通过事务写入：只有在读取之后对象未被修改时才会成功（乐观并发控制）。".into(),
            ),
        ),
        "delete" => (
            tr(
                lang,
                format!("The API server deletes {key} from etcd"),
                format!("API Server 从 etcd 删除 {key}"),
            ),
            tr(
                lang,
                "The key is removed; watchers will receive a DELETED event.".into(),
                "键被删除；watch 的客户端会收到 DELETED 事件。".into(),
            ),
        ),
        "compact revision" => (
            tr(
                lang,
                format!("The API server asks etcd to compact up to revision {key}"),
                format!("API Server 请求 etcd 压缩到修订版本 {key}"),
            ),
            tr(
                lang,
                "Compaction drops the history of older revisions so the database does not grow forever.".into(),
                "压缩会丢弃旧修订版本的历史，避免数据库无限增长。".into(),
            ),
        ),
        _ => (
            tr(
                lang,
                format!("The API server sends {label} to etcd"),
                format!("API Server 向 etcd 发送 {label}"),
            ),
            tr(
                lang,
                "etcd is the cluster's only store, and the API server its only client.".into(),
                "etcd 是集群唯一的存储，API Server 是它唯一的客户端。".into(),
            ),
        ),
    };
    Narration::new(headline, vec![body])
}

/// The kubelet calls containerd over the CRI.
fn cri(label: &str, lang: Lang) -> Narration {
    let (call, rest) = label.split_once(' ').unwrap_or((label, ""));
    let (headline, body) = match call {
        "RunPodSandbox" => (
            tr(
                lang,
                "The kubelet asks containerd for a Pod sandbox".into(),
                "kubelet 请求 containerd 创建 Pod 沙箱".into(),
            ),
            tr(
                lang,
                "Over the CRI, RunPodSandbox starts the pause container that holds the Pod's network namespace; containerd calls the CNI plugin to give it an IP.".into(),
                "通过 CRI，RunPodSandbox 启动持有 Pod 网络命名空间的 pause 容器；containerd 调用 CNI 插件为它分配 IP。".into(),
            ),
        ),
        "CreateContainer" => (
            tr(
                lang,
                format!("The kubelet creates container {rest}"),
                format!("kubelet 创建容器 {rest}"),
            ),
            tr(
                lang,
                "CreateContainer prepares the container in the sandbox from the image, with its mounts, environment and command; it does not run yet.".into(),
                "CreateContainer 在沙箱中用镜像准备好容器，包括挂载、环境变量和启动命令；此时还没有运行。".into(),
            ),
        ),
        "StartContainer" => (
            tr(
                lang,
                format!("The kubelet starts container {rest}"),
                format!("kubelet 启动容器 {rest}"),
            ),
            tr(
                lang,
                "StartContainer runs the created container's process.".into(),
                "StartContainer 运行已创建容器的进程。".into(),
            ),
        ),
        "StopContainer" => (
            tr(
                lang,
                format!("The kubelet stops container {rest}"),
                format!("kubelet 停止容器 {rest}"),
            ),
            tr(
                lang,
                "containerd sends SIGTERM, waits up to the grace period, then sends SIGKILL.".into(),
                "containerd 先发送 SIGTERM，最多等待宽限期，然后发送 SIGKILL。".into(),
            ),
        ),
        "StopPodSandbox" => (
            tr(
                lang,
                "The kubelet stops the Pod sandbox".into(),
                "kubelet 停止 Pod 沙箱".into(),
            ),
            tr(
                lang,
                "The pause container stops and the CNI plugin releases the Pod's IP.".into(),
                "pause 容器停止，CNI 插件释放 Pod 的 IP。".into(),
            ),
        ),
        _ => (
            tr(
                lang,
                format!("The kubelet calls containerd: {label}"),
                format!("kubelet 调用 containerd：{label}"),
            ),
            tr(
                lang,
                "The kubelet drives the container runtime through the CRI, a gRPC API.".into(),
                "kubelet 通过 CRI（一个 gRPC 接口）驱动容器运行时。".into(),
            ),
        ),
    };
    Narration::new(headline, vec![body])
}

/// The API server's answer.
#[expect(
    clippy::too_many_lines,
    reason = "a table of bilingual sentences, one arm a case"
)]
pub fn response(to: &Actor, code: u16, message: &str, lang: Lang) -> Narration {
    let (headline, why) = match code {
        201 => (
            tr(
                lang,
                format!("The API server answers {to}: 201 Created"),
                format!("API Server 回复 {to}：201 Created"),
            ),
            if *to == Actor::Scheduler {
                tr(
                    lang,
                    "The binding is stored: the Pod's spec.nodeName now names its node, and that node's kubelet will see it through its watch.".into(),
                    "绑定已保存：Pod 的 spec.nodeName 已指向目标节点，该节点上的 kubelet 会通过 watch 看到它。".into(),
                )
            } else {
                tr(
                    lang,
                    "The object is in etcd. Nothing runs yet: a Pod stays Pending until the scheduler binds it and a kubelet starts it.".into(),
                    "对象已写入 etcd，但还没有任何东西在运行：Pod 处于 Pending，直到调度器绑定它、kubelet 启动它。".into(),
                )
            },
        ),
        101 => (
            tr(
                lang,
                format!("The API server answers {to}: 101 Switching Protocols"),
                format!("API Server 回复 {to}：101 Switching Protocols"),
            ),
            tr(
                lang,
                "The connection is upgraded to a stream between kubectl and the kubelet: the command's output and exit status come through it (in podflow the command has already run to its end).".into(),
                "连接被升级为 kubectl 与 kubelet 之间的数据流：命令的输出和退出状态经由它传回（在 podflow 中命令已经执行完毕）。".into(),
            ),
        ),
        200..=299 => (
            tr(
                lang,
                format!("The API server answers {to}: {code} OK"),
                format!("API Server 回复 {to}：{code} OK"),
            ),
            tr(
                lang,
                "The request succeeded; the answer carries the object as stored, with its resourceVersion.".into(),
                "请求成功；响应中带有存储后的对象及其 resourceVersion。".into(),
            ),
        ),
        400 => (
            tr(
                lang,
                format!("400 Bad Request for {to}"),
                format!("{to} 收到 400 Bad Request"),
            ),
            tr(
                lang,
                "The request itself is malformed (the body cannot be decoded, or it contradicts the URL); nothing is stored.".into(),
                "请求本身有问题（请求体无法解码，或与 URL 矛盾）；什么也不存储。".into(),
            ),
        ),
        401 => (
            tr(
                lang,
                format!("401 Unauthorized for {to}"),
                format!("{to} 收到 401 Unauthorized"),
            ),
            tr(
                lang,
                "No authenticator recognised the credentials, so the API server does not know who is asking.".into(),
                "没有任何认证器认可这份凭据，API Server 不知道是谁在请求。".into(),
            ),
        ),
        403 => (
            tr(
                lang,
                format!("403 Forbidden for {to}"),
                format!("{to} 收到 403 Forbidden"),
            ),
            tr(
                lang,
                "The API server knows who is asking, but authorization (or an admission plugin) refused; the Explain pane shows what is missing.".into(),
                "API Server 知道请求者是谁，但鉴权（或某个准入插件）拒绝了；“原因”面板会说明缺少什么。".into(),
            ),
        ),
        404 => (
            tr(
                lang,
                format!("404 Not Found for {to}"),
                format!("{to} 收到 404 Not Found"),
            ),
            if to.is_client() {
                tr(
                    lang,
                    "Nothing is stored under that name. For kubectl apply this is not an error: it means \"create it\".".into(),
                    "该名称下没有对象。对 kubectl apply 来说这不是错误，而是意味着“去创建它”。".into(),
                )
            } else {
                tr(
                    lang,
                    "The object is gone: it was deleted before this request arrived.".into(),
                    "对象已经不存在：在这个请求到达之前它已被删除。".into(),
                )
            },
        ),
        409 => (
            tr(
                lang,
                format!("409 Conflict for {to}"),
                format!("{to} 收到 409 Conflict"),
            ),
            tr(
                lang,
                "The object already exists, or it changed since the client read it; the client must read again and retry.".into(),
                "对象已存在，或在客户端读取之后已被修改；客户端需要重新读取再重试。".into(),
            ),
        ),
        410 => (
            tr(
                lang,
                format!("410 Gone for {to}"),
                format!("{to} 收到 410 Gone"),
            ),
            tr(
                lang,
                "The requested resourceVersion was compacted away; the client must list again.".into(),
                "请求的 resourceVersion 已被压缩掉；客户端必须重新 list。".into(),
            ),
        ),
        422 => (
            tr(
                lang,
                format!("422 Unprocessable Entity for {to}"),
                format!("{to} 收到 422 Unprocessable Entity"),
            ),
            tr(
                lang,
                "The object failed validation; each error names the field path to fix. Nothing is stored.".into(),
                "对象未通过校验；每条错误都指出了需要修改的字段路径。什么也不存储。".into(),
            ),
        ),
        _ => (
            tr(
                lang,
                format!("The API server answers {to}: {code}"),
                format!("API Server 回复 {to}：{code}"),
            ),
            tr(
                lang,
                "The status code says how the request ended; the message says why.".into(),
                "状态码表示请求的结果，消息说明原因。".into(),
            ),
        ),
    };
    let mut body = Vec::new();
    if !message.is_empty() && !matches!(message, "OK" | "Created" | "Switching Protocols") {
        body.push(message.to_owned());
    }
    body.push(why);
    Narration::new(headline, body)
}
