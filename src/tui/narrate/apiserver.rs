//! Narrations of the API server's request path and of etcd, after the
//! Kubernetes docs "Controlling Access to the Kubernetes API"
//! (`content/en/docs/concepts/security/controlling-access.md`), "Admission
//! Control in Kubernetes" (`reference/access-authn-authz/admission-controllers.md`)
//! and the handler chain of `staging/src/k8s.io/apiserver/pkg/endpoints/handlers`.

use super::text::first_quoted;
use super::{Narration, tr};
use crate::tui::lang::Lang;
use podflow_engine::trace::{Detail, Outcome, Stage, StageName};

/// A stage of `kube-apiserver` or `etcd`.
pub fn stage(s: &Stage, lang: Lang) -> Narration {
    match s.stage {
        StageName::Authentication => authentication(s, lang),
        StageName::Authorization => authorization(s, lang),
        StageName::Admission => admission(s, lang),
        StageName::Validation => validation(s, lang),
        StageName::Decode => decode(s, lang),
        StageName::Persist => persist(s, lang),
        StageName::Compact => compact(s, lang),
        _ => generic(s, lang),
    }
}

/// Any stage without words of its own: its component, name, outcome and detail.
pub fn generic(s: &Stage, lang: Lang) -> Narration {
    let what = match (&s.plugin, &s.extra().node) {
        (Some(p), _) => format!(" ({p})"),
        (None, Some(n)) => format!(" ({n})"),
        (None, None) => String::new(),
    };
    let mut body = vec![tr(
        lang,
        format!("Outcome: {}.", s.outcome),
        format!("结果：{}。", s.outcome),
    )];
    if !s.detail.is_empty() {
        body.push(s.detail.to_string());
    }
    Narration::new(
        tr(
            lang,
            format!("{}: {}{what}", s.component, s.stage),
            format!("{}：{}{what}", s.component, s.stage),
        ),
        body,
    )
}

fn authentication(s: &Stage, lang: Lang) -> Narration {
    if s.outcome == Outcome::Deny {
        return Narration::new(
            tr(
                lang,
                "The API server does not know who you are".into(),
                "API Server 无法确认你的身份".into(),
            ),
            vec![
                tr(
                    lang,
                    format!("Authentication failed: {}.", s.detail),
                    format!("认证失败：{}。", s.detail),
                ),
                tr(
                    lang,
                    "Every request must prove an identity first; an unknown bearer token is answered 401 Unauthorized before authorization or admission ever run.".into(),
                    "每个请求都必须先证明身份；无法识别的 Bearer Token 会直接得到 401 Unauthorized，根本走不到鉴权和准入。".into(),
                ),
            ],
        );
    }
    let Detail::Authentication(who) = &s.detail else {
        return generic(s, lang);
    };
    let (user, method) = (&who.user, &who.method);
    let groups = who.groups.join(", ");
    let how = if method.starts_with("x509") {
        tr(
            lang,
            "A client certificate signed by the cluster CA names the user in its Common Name (CN) and the groups in its Organization (O) fields.".into(),
            "由集群 CA 签发的客户端证书用 CN（Common Name）字段表示用户名，用 O（Organization）字段表示所属的组。".into(),
        )
    } else if method.starts_with("bearer") {
        tr(
            lang,
            "The token authenticator looked the bearer token up and found the user it belongs to."
                .into(),
            "Token 认证器查到了这个 Bearer Token 所属的用户。".into(),
        )
    } else {
        tr(
            lang,
            "With --as, an authenticated user who may impersonate acts as another user; the request then carries that user's identity.".into(),
            "使用 --as 时，有 impersonate 权限的已认证用户可以以另一个用户的身份发出请求。".into(),
        )
    };
    Narration::new(
        tr(
            lang,
            "The API server checks who you are".into(),
            "API Server 验证你的身份".into(),
        ),
        vec![
            tr(
                lang,
                format!("Authenticated as user \"{user}\" in groups [{groups}], by {method}."),
                format!("认证通过：用户 \"{user}\"，组 [{groups}]，方式：{method}。"),
            ),
            how,
            tr(
                lang,
                "Kubernetes keeps no user objects: an identity is whatever an authenticator vouches for, and system:authenticated is added to every one.".into(),
                "Kubernetes 中没有“用户”对象：身份完全由认证器担保，并且每个已认证用户都会被加入 system:authenticated 组。".into(),
            ),
        ],
    )
}

fn authorization(s: &Stage, lang: Lang) -> Narration {
    let authorizer = s.plugin.clone().unwrap_or_else(|| "RBAC".into());
    if s.outcome == Outcome::Deny {
        return Narration::new(
            tr(
                lang,
                "The API server refuses: you may not do this".into(),
                "API Server 拒绝：你没有这个权限".into(),
            ),
            vec![
                s.detail.to_string(),
                tr(
                    lang,
                    "Neither the Node authorizer nor RBAC found a rule allowing this verb on this resource, so the request ends here with 403 Forbidden and nothing is written.".into(),
                    "Node 鉴权器和 RBAC 都没有找到允许该动词作用于该资源的规则，请求到此为止，返回 403 Forbidden，什么也不会写入。".into(),
                ),
            ],
        );
    }
    let why = if authorizer == podflow_engine::apiserver::authz::PRIVILEGED_GROUPS {
        tr(
            lang,
            "The user is in group system:masters, which kube-apiserver allows before asking Node or RBAC: no binding can take that away (kubeadm's super-admin.conf is such a user; admin.conf is not).".into(),
            "该用户属于 system:masters 组，kube-apiserver 在询问 Node 和 RBAC 之前就放行它：任何绑定都无法收回这一权限（kubeadm 的 super-admin.conf 就是这样的用户，admin.conf 不是）。".into(),
        )
    } else if authorizer == "Node" {
        tr(
            lang,
            "The Node authorizer lets a kubelet (user system:node:NAME in group system:nodes) read and write only what its own node needs: its Node object and the Pods bound to it.".into(),
            "Node 鉴权器只允许 kubelet（用户 system:node:NAME，组 system:nodes）访问其节点需要的对象：自己的 Node 和绑定到该节点的 Pod。".into(),
        )
    } else {
        tr(
            lang,
            "RBAC compares the request's verb (get, create, patch…), resource and namespace with the rules of the Roles and ClusterRoles bound to the user or its groups; one matching rule is enough.".into(),
            "RBAC 把请求的动词（get、create、patch……）、资源和命名空间与绑定到该用户或其所属组的 Role、ClusterRole 中的规则逐一比对；只要有一条规则匹配就放行。".into(),
        )
    };
    let mut body = Vec::new();
    if s.detail.is_empty() {
        body.push(tr(
            lang,
            format!("Allowed by the {authorizer} authorizer."),
            format!("由 {authorizer} 鉴权器放行。"),
        ));
    } else {
        body.push(s.detail.to_string());
    }
    body.push(why);
    Narration::new(
        tr(
            lang,
            "The API server checks what you may do".into(),
            "API Server 检查你的权限（鉴权）".into(),
        ),
        body,
    )
}

/// What an admission plugin is for, in both languages.
pub fn plugin_purpose(plugin: &str) -> Option<(&'static str, &'static str)> {
    Some(match plugin {
        "NamespaceLifecycle" => (
            "NamespaceLifecycle refuses new objects in a namespace that does not exist or is being deleted.",
            "NamespaceLifecycle 拒绝在不存在或正在删除的命名空间中创建新对象。",
        ),
        "LimitRanger" => (
            "LimitRanger applies the namespace's LimitRange: it fills in default requests and limits, then checks the minimum and maximum.",
            "LimitRanger 应用命名空间的 LimitRange：先补上默认的 requests 和 limits，再检查上下限。",
        ),
        "ServiceAccount" => (
            "ServiceAccount sets spec.serviceAccountName (\"default\" if unset) and adds the projected token volume kube-api-access-… that every container mounts.",
            "ServiceAccount 设置 spec.serviceAccountName（未指定时为 \"default\"），并添加所有容器都会挂载的投射卷 kube-api-access-…（含访问 API 的 Token）。",
        ),
        "NodeRestriction" => (
            "NodeRestriction limits what a kubelet may change: only its own Node, and only Pods bound to it.",
            "NodeRestriction 限制 kubelet 能修改的内容：只能改自己的 Node，以及绑定到本节点的 Pod。",
        ),
        "Priority" => (
            "Priority resolves spec.priorityClassName into the numeric spec.priority the scheduler uses for ordering and preemption.",
            "Priority 把 spec.priorityClassName 解析为数值 spec.priority，调度器用它来排序和抢占。",
        ),
        "DefaultTolerationSeconds" => (
            "DefaultTolerationSeconds adds tolerations for the not-ready and unreachable taints, for 300 s: how long the Pod stays on a failed node before eviction.",
            "DefaultTolerationSeconds 为 not-ready 和 unreachable 污点添加 300 秒的容忍：节点故障后 Pod 在被驱逐前最多保留这么久。",
        ),
        "RuntimeClass" => (
            "RuntimeClass adds the overhead and scheduling constraints of the Pod's RuntimeClass, if it names one.",
            "RuntimeClass 在 Pod 指定了 RuntimeClass 时，加入其开销（overhead）和调度约束。",
        ),
        "PodTopologyLabels" => (
            "PodTopologyLabels copies the node's topology labels (zone, region) onto a Pod when it is bound.",
            "PodTopologyLabels 在 Pod 绑定时把节点的拓扑标签（zone、region）复制到 Pod 上。",
        ),
        "MutatingAdmissionPolicy" => (
            "MutatingAdmissionPolicy applies the cluster's declarative (CEL) mutation policies; none match here.",
            "MutatingAdmissionPolicy 执行集群中声明式（CEL）的变更策略；这里没有匹配的策略。",
        ),
        "MutatingAdmissionWebhook" => (
            "MutatingAdmissionWebhook calls the cluster's mutating webhooks (sidecar injectors and the like); none are registered here.",
            "MutatingAdmissionWebhook 调用集群注册的变更型 Webhook（例如注入 Sidecar）；这里没有注册任何 Webhook。",
        ),
        "PodSecurity" => (
            "PodSecurity checks the Pod against the Pod Security Standard the namespace's labels enforce (privileged, baseline or restricted).",
            "PodSecurity 按命名空间标签要求的 Pod 安全标准（privileged、baseline 或 restricted）检查 Pod。",
        ),
        "ValidatingAdmissionPolicy" => (
            "ValidatingAdmissionPolicy evaluates the cluster's CEL validation policies; none match here.",
            "ValidatingAdmissionPolicy 执行集群中的 CEL 校验策略；这里没有匹配的策略。",
        ),
        "ValidatingAdmissionWebhook" => (
            "ValidatingAdmissionWebhook calls the cluster's validating webhooks (policy engines and the like); none are registered here.",
            "ValidatingAdmissionWebhook 调用集群注册的校验型 Webhook（例如策略引擎）；这里没有注册任何 Webhook。",
        ),
        "ResourceQuota" => (
            "ResourceQuota runs last: it charges the object to the namespace's ResourceQuota and refuses it if the quota would be exceeded.",
            "ResourceQuota 最后执行：把对象计入命名空间的 ResourceQuota，超出配额就拒绝。",
        ),
        "TaintNodesByCondition" => (
            "TaintNodesByCondition taints a new Node not-ready until its kubelet reports Ready.",
            "TaintNodesByCondition 给新注册的 Node 加上 not-ready 污点，直到 kubelet 报告 Ready。",
        ),
        "DefaultStorageClass" => (
            "DefaultStorageClass gives a PersistentVolumeClaim without a class the default StorageClass.",
            "DefaultStorageClass 为未指定存储类的 PersistentVolumeClaim 设置默认 StorageClass。",
        ),
        "DefaultIngressClass" => (
            "DefaultIngressClass gives an Ingress without a class the default IngressClass.",
            "DefaultIngressClass 为未指定类的 Ingress 设置默认 IngressClass。",
        ),
        "StorageObjectInUseProtection" => (
            "StorageObjectInUseProtection adds a finalizer so a volume claim in use is not deleted.",
            "StorageObjectInUseProtection 添加 finalizer，防止正在使用的卷声明被删除。",
        ),
        "PersistentVolumeClaimResize" => (
            "PersistentVolumeClaimResize allows growing a claim only if its StorageClass allows expansion.",
            "PersistentVolumeClaimResize 只在存储类允许扩容时才允许扩大卷声明。",
        ),
        "PodResizeValidator" => (
            "PodResizeValidator checks an in-place resize of a Pod's resources.",
            "PodResizeValidator 检查对 Pod 资源的原地调整（resize）。",
        ),
        "JobValidation" => (
            "JobValidation checks the Job-specific rules of a Job.",
            "JobValidation 检查 Job 特有的规则。",
        ),
        "CertificateApproval" | "CertificateSigning" | "CertificateSubjectRestriction" => (
            "The certificate plugins check who may approve and sign CertificateSigningRequests, and for which subjects.",
            "证书相关插件检查谁可以批准、签发 CertificateSigningRequest，以及允许的证书主体。",
        ),
        _ => return None,
    })
}

fn admission(s: &Stage, lang: Lang) -> Narration {
    let plugin = s.plugin.clone().unwrap_or_default();
    let mutating = s.phase.as_deref() != Some("validating");
    let (phase_en, phase_zh) = if mutating {
        ("Mutating admission", "变更准入")
    } else {
        ("Validating admission", "验证准入")
    };
    let (verdict_en, verdict_zh) = match s.outcome {
        Outcome::Mutate => ("changes the object", "修改了对象"),
        Outcome::Deny => ("refuses the request", "拒绝了请求"),
        Outcome::Waiting => ("holds the request", "让请求等待"),
        _ => ("lets it pass", "放行"),
    };
    let mut body = Vec::new();
    match s.outcome {
        Outcome::Mutate => body.push(tr(
            lang,
            format!("{plugin}: {}.", s.detail),
            format!("{plugin}：{}。", s.detail),
        )),
        Outcome::Deny => body.push(tr(
            lang,
            format!("{plugin} said no: {}", s.detail),
            format!("{plugin} 拒绝：{}", s.detail),
        )),
        Outcome::Waiting => body.push(tr(
            lang,
            format!("{plugin} waits: {}. The request stays inside the API server meanwhile; kubectl gets no answer until the plugin finds the ServiceAccount or gives up after its 10th GET.", s.detail),
            format!("{plugin} 等待：{}。在此期间请求停留在 API server 内，kubectl 收不到应答，直到插件找到该 ServiceAccount，或在第 10 次 GET 之后放弃。", s.detail),
        )),
        _ => {}
    }
    if let Some((en, zh)) = plugin_purpose(&plugin) {
        body.push(tr(lang, en.into(), zh.into()));
    }
    body.push(if mutating {
        tr(
            lang,
            "Mutating plugins run one after another, before validation, and may change the object; validating plugins then only accept or refuse it.".into(),
            "变更准入插件在校验之前依次执行，可以修改对象；随后的验证准入插件只能接受或拒绝。".into(),
        )
    } else {
        tr(
            lang,
            "Validating admission runs after validation and may only accept or refuse; any refusal stops the request before it reaches etcd.".into(),
            "验证准入在字段校验之后执行，只能接受或拒绝；任何一个插件拒绝，请求都到不了 etcd。".into(),
        )
    });
    body.truncate(3);
    Narration::new(
        tr(
            lang,
            format!("{phase_en}: {plugin} {verdict_en}"),
            format!("{phase_zh}：{plugin} {verdict_zh}"),
        ),
        body,
    )
}

fn validation(s: &Stage, lang: Lang) -> Narration {
    if s.outcome == Outcome::Deny {
        return Narration::new(
            tr(
                lang,
                "The object is invalid".into(),
                "对象未通过校验".into(),
            ),
            vec![
                s.detail.to_string(),
                tr(
                    lang,
                    "Validation names every wrong field by its path; the API server answers 422 Unprocessable Entity (reason Invalid) and stores nothing.".into(),
                    "校验会按字段路径指出每个错误字段；API Server 返回 422 Unprocessable Entity（原因 Invalid），什么也不存储。".into(),
                ),
            ],
        );
    }
    let detail = s.detail.text();
    let kind = detail.strip_suffix(" is valid").unwrap_or("The object");
    Narration::new(
        tr(
            lang,
            format!("The API server validates the {kind}"),
            format!("API Server 校验 {kind} 的字段"),
        ),
        vec![
            tr(
                lang,
                format!("{kind} is valid."),
                format!("{kind} 合法。"),
            ),
            tr(
                lang,
                "Validation checks the object against the API's rules (names are DNS labels, every container has a name and an image, immutable fields stay unchanged); it runs after mutating admission, so it checks the object as it will be stored.".into(),
                "校验按 API 的规则检查对象（名称须符合 DNS 标签规范、每个容器都要有名称和镜像、不可变字段不能修改）；它在变更准入之后执行，检查的正是将要存储的对象。".into(),
            ),
        ],
    )
}

fn decode(s: &Stage, lang: Lang) -> Narration {
    Narration::new(
        tr(
            lang,
            "The API server cannot decode the request body".into(),
            "API Server 无法解码请求体".into(),
        ),
        vec![
            s.detail.to_string(),
            tr(
                lang,
                "kubectl asks for strict field validation by default, so an unknown or duplicated field is an error, not a silent drop: 400 Bad Request, and nothing is stored.".into(),
                "kubectl 默认要求严格的字段校验，未知或重复的字段会被当作错误而不是被悄悄丢弃：返回 400 Bad Request，什么也不存储。".into(),
            ),
        ],
    )
}

fn persist(s: &Stage, lang: Lang) -> Narration {
    let key = s
        .extra()
        .key
        .clone()
        .or_else(|| s.detail.text().split(' ').nth(1).map(str::to_owned))
        .unwrap_or_default();
    let revision = s
        .extra()
        .revision
        .map(|r| r.to_string())
        .unwrap_or_default();
    match s.outcome {
        Outcome::Ok => Narration::new(
            tr(
                lang,
                format!("etcd stores {key} at revision {revision}"),
                format!("etcd 在修订版本 {revision} 写入 {key}"),
            ),
            vec![
                tr(
                    lang,
                    "Every write gets the next cluster-wide revision, which becomes the object's metadata.resourceVersion; watchers receive changes in revision order.".into(),
                    "每次写入都会得到集群范围内的下一个修订版本号，它就是对象的 metadata.resourceVersion；watch 的客户端按修订版本顺序收到变更。".into(),
                ),
                tr(
                    lang,
                    "Only the API server talks to etcd: every other component reads and writes through it.".into(),
                    "只有 API Server 直接访问 etcd：其他组件都通过 API Server 读写。".into(),
                ),
            ],
        ),
        Outcome::Delete => Narration::new(
            tr(
                lang,
                format!("etcd deletes {key}"),
                format!("etcd 删除 {key}"),
            ),
            vec![
                s.detail.to_string(),
                tr(
                    lang,
                    "The deletion is a change like any other: watchers receive a DELETED event with the object's last state.".into(),
                    "删除也是一次变更：watch 的客户端会收到带有对象最终状态的 DELETED 事件。".into(),
                ),
            ],
        ),
        Outcome::Skip => Narration::new(
            tr(
                lang,
                "Nothing changed, so nothing is written".into(),
                "对象没有变化，不写入 etcd".into(),
            ),
            vec![tr(
                lang,
                format!("{key} is unchanged: the API server skips a write that changes nothing, so the resourceVersion stays and no watch event is sent."),
                format!("{key} 没有变化：API Server 跳过不改变任何内容的写入，resourceVersion 不变，也不产生 watch 事件。"),
            )],
        ),
        _ => Narration::new(
            tr(
                lang,
                format!("etcd refuses the write of {key}"),
                format!("etcd 拒绝写入 {key}"),
            ),
            vec![
                s.detail.to_string(),
                tr(
                    lang,
                    "Writes are guarded transactions: a create fails if the key exists (409 AlreadyExists), an update fails if the object changed since it was read (409 Conflict).".into(),
                    "写入是带条件的事务：创建时键已存在则失败（409 AlreadyExists），更新时对象在读取后已被修改则失败（409 Conflict）。".into(),
                ),
            ],
        ),
    }
}

fn compact(s: &Stage, lang: Lang) -> Narration {
    let revision = s.extra().revision.map_or_else(
        || first_quoted(&s.detail.text()).unwrap_or_default(),
        |r| r.to_string(),
    );
    Narration::new(
        tr(
            lang,
            format!("etcd forgets history before revision {revision}"),
            format!("etcd 压缩修订版本 {revision} 之前的历史"),
        ),
        vec![
            tr(
                lang,
                "Every 5 minutes the API server compacts etcd so old revisions do not pile up.".into(),
                "API Server 每 5 分钟压缩一次 etcd，避免旧的修订版本不断累积。".into(),
            ),
            tr(
                lang,
                "A watch that tries to resume from a compacted revision is answered 410 Gone and must list again.".into(),
                "若某个 watch 试图从已被压缩的修订版本继续，会收到 410 Gone，必须重新 list。".into(),
            ),
        ],
    )
}
