//! Faults of a namespace's policy: a `ResourceQuota` that leaves no room for
//! the last replica, a `LimitRange` the containers' limits break (both refused
//! at admission, seen as the `ReplicaSet`'s `FailedCreate`), and an RBAC rule or
//! binding that leaves a user or `ServiceAccount` Forbidden.

use super::pods::{on_deployment, step};
use super::{Cx, Fault, Kind};
use crate::app::{App, Shape};
use crate::say;

/// The namespace `app` gets, with its `default` `ServiceAccount`, as cluster objects.
fn namespace(app: &mut App) -> Vec<String> {
    app.namespace = app.name.clone();
    let ns = &app.namespace;
    vec![
        format!(
            "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {ns}, labels: {{kubernetes.io/metadata.name: {ns}}}}}\n"
        ),
        format!(
            "apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: default, namespace: {ns}}}\n"
        ),
    ]
}

/// The `ReplicaSet`'s side of the hints: `FailedCreate`.
fn failed_create_hint(app: &App) -> crate::Say {
    say(
        format!(
            "Fewer Pods than replicas? The ReplicaSet creates them: :get rs{ns}, then :describe rs on it; read its FailedCreate events.",
            ns = app.ns_flag()
        ),
        format!(
            "Pod 比副本数少？Pod 是 ReplicaSet 创建的：:get rs{ns}，再对它执行 :describe rs；看 FailedCreate 事件。",
            ns = app.ns_flag()
        ),
    )
}

pub(super) fn quota_exceeded(mut app: App, cx: &mut Cx<'_>) -> Fault {
    app.replicas = app.replicas.max(2);
    let cluster = namespace(&mut app);
    let allowed = app.replicas - 1;
    let quota = format!("{}-quota", app.name);
    let mut f = on_deployment(Kind::QuotaExceeded, app.clone(), &Shape::default());
    f.cluster = cluster;
    let _ = cx.rng.next_u64();
    f.cluster.push(format!(
        "apiVersion: v1\nkind: ResourceQuota\nmetadata: {{name: {quota}, namespace: {ns}}}\nspec:\n  hard: {{pods: \"{allowed}\"}}\n",
        ns = app.namespace
    ));
    f.hints = vec![
        failed_create_hint(&app),
        say(
            format!(":describe quota{} — Used against Hard.", app.ns_flag()),
            format!(":describe quota{} —— 对比 Used 和 Hard。", app.ns_flag()),
        ),
    ];
    f.cause = say(
        format!(
            "ResourceQuota {quota} allows {allowed} Pod(s) in namespace {ns}, and the Deployment wants {n}: the ResourceQuota admission plugin refuses the last Pod (exceeded quota), the ReplicaSet reports FailedCreate and retries. Raise the quota (or ask for fewer replicas).",
            ns = app.namespace,
            n = app.replicas
        ),
        format!(
            "ResourceQuota {quota} 只允许命名空间 {ns} 中有 {allowed} 个 Pod，而 Deployment 需要 {n} 个：ResourceQuota 准入插件拒绝了最后一个 Pod（exceeded quota），ReplicaSet 报告 FailedCreate 并不断重试。提高配额（或减少副本数）。",
            ns = app.namespace,
            n = app.replicas
        ),
    );
    f.fix = vec![format!(
        "patch resourcequota {quota}{} -p '{{\"spec\":{{\"hard\":{{\"pods\":\"10\"}}}}}}'",
        app.ns_flag()
    )];
    f
}

pub(super) fn limitrange_violated(mut app: App, cx: &mut Cx<'_>) -> Fault {
    let cluster = namespace(&mut app);
    let (resource, max, limit) = *cx.choose(&[
        ("cpu", "500m", "1"),
        ("cpu", "1", "2"),
        ("memory", "512Mi", "1Gi"),
    ]);
    let limits = format!("{}-limits", app.name);
    let shape = Shape {
        container: format!("resources:\n  limits: {{{resource}: \"{limit}\"}}\n"),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::LimitRangeViolated, app.clone(), &shape);
    f.cluster = cluster;
    f.cluster.push(format!(
        "apiVersion: v1\nkind: LimitRange\nmetadata: {{name: {limits}, namespace: {ns}}}\nspec:\n  limits:\n    - type: Container\n      max: {{{resource}: \"{max}\"}}\n",
        ns = app.namespace
    ));
    f.hints = vec![
        failed_create_hint(&app),
        say(
            format!(
                ":describe limitrange{} — what is the most a container may ask?",
                app.ns_flag()
            ),
            format!(
                ":describe limitrange{} —— 一个容器最多可以要多少？",
                app.ns_flag()
            ),
        ),
    ];
    f.cause = say(
        format!(
            "LimitRange {limits} caps a container's {resource} at {max}, and the containers' limit is {limit}: the LimitRanger admission plugin refuses every Pod (maximum {resource} usage per Container is {max}, but limit is {limit}), so the ReplicaSet creates none. Lower the limit to {max}.",
        ),
        format!(
            "LimitRange {limits} 把单个容器的 {resource} 上限定为 {max}，而容器的 limit 是 {limit}：LimitRanger 准入插件拒绝了每一个 Pod（maximum {resource} usage per Container is {max}, but limit is {limit}），所以 ReplicaSet 一个也创建不了。把 limit 降到 {max}。",
        ),
    );
    f.fix = vec![format!(
        "patch deployment {}{} -p '{{\"spec\":{{\"template\":{{\"spec\":{{\"containers\":[{{\"name\":\"web\",\"resources\":{{\"limits\":{{\"{resource}\":\"{max}\"}}}}}}]}}}}}}}}'",
        app.name,
        app.ns_flag()
    )];
    f
}

#[allow(clippy::too_many_lines)] // one fault, its two halves side by side
pub(super) fn missing_rbac(app: App, cx: &mut Cx<'_>) -> Fault {
    let role = format!("{}-reader", app.name);
    let user = cx.rng.below(2) == 0;
    let (subject_yaml, as_flag, check, who) = if user {
        let name = (*cx.choose(&["jane", "li", "omar"])).to_owned();
        (
            format!("  - {{kind: User, name: {name}, apiGroup: rbac.authorization.k8s.io}}\n"),
            format!("--as {name}"),
            format!("user {name} can list pods in default"),
            name,
        )
    } else {
        let sa = format!("{}-ci", app.name);
        (
            format!("  - {{kind: ServiceAccount, name: {sa}, namespace: default}}\n"),
            format!("--as system:serviceaccount:default:{sa}"),
            format!("serviceaccount default/{sa} can list pods"),
            format!("system:serviceaccount:default:{sa}"),
        )
    };
    // Which half is broken: the Role lacks `list`, or the binding names someone else.
    let broken_role = cx.rng.below(2) == 0;
    let verbs = if broken_role {
        "[get, watch]"
    } else {
        "[get, list, watch]"
    };
    let mut cluster = vec![format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {{name: {role}, namespace: default}}\nrules:\n  - apiGroups: [\"\"]\n    resources: [pods, pods/log]\n    verbs: {verbs}\n"
    )];
    let binding = format!("{}-readers", app.name);
    let (bound, typo) = if broken_role {
        (subject_yaml.clone(), String::new())
    } else {
        let typo = if user {
            let name = who.clone();
            let mut chars: Vec<char> = name.chars().collect();
            chars.swap(0, 1);
            chars.into_iter().collect::<String>()
        } else {
            format!("{}-cl", app.name)
        };
        let real = if user {
            who.clone()
        } else {
            format!("{}-ci", app.name)
        };
        (
            subject_yaml.replace(&format!("name: {real},"), &format!("name: {typo},")),
            typo,
        )
    };
    cluster.push(format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: {binding}, namespace: default}}\nsubjects:\n{bound}roleRef: {{kind: Role, name: {role}, apiGroup: rbac.authorization.k8s.io}}\n"
    ));
    if !user {
        cluster.push(format!(
            "apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: {}-ci, namespace: default}}\n",
            app.name
        ));
    }
    let (cause, fix) = if broken_role {
        (
            say(
                format!(
                    "RoleBinding {binding} gives {who} Role {role}, but the Role's rule allows only get and watch on pods: list is missing, so the RBAC authorizer denies the list (Forbidden). Add list to the rule."
                ),
                format!(
                    "RoleBinding {binding} 把 Role {role} 授予了 {who}，但这个 Role 的规则只允许对 pods 执行 get 和 watch：缺少 list，所以 RBAC 授权器拒绝了 list 请求（Forbidden）。在规则中加上 list。"
                ),
            ),
            format!(
                "patch role {role} --type json -p '[{{\"op\":\"add\",\"path\":\"/rules/0/verbs/-\",\"value\":\"list\"}}]'"
            ),
        )
    } else {
        let real = if user {
            who.clone()
        } else {
            format!("{}-ci", app.name)
        };
        (
            say(
                format!(
                    "Role {role} allows listing pods, but RoleBinding {binding} binds it to {typo}, not {real}: no rule applies to {who}, so the RBAC authorizer denies the list (Forbidden). Fix the binding's subject."
                ),
                format!(
                    "Role {role} 允许列出 pods，但 RoleBinding {binding} 把它绑定给了 {typo}，而不是 {real}：没有任何规则适用于 {who}，所以 RBAC 授权器拒绝了 list 请求（Forbidden）。修正绑定的 subject。"
                ),
            ),
            format!(
                "patch rolebinding {binding} --type json -p '[{{\"op\":\"replace\",\"path\":\"/subjects/0/name\",\"value\":\"{real}\"}}]'"
            ),
        )
    };
    Fault {
        kind: Kind::MissingRbac,
        app: None,
        cluster,
        files: Vec::new(),
        setup: vec![step(
            format!("get pods {as_flag}"),
            format!("{who} of the {} team lists the Pods in default.", app.name),
            format!("{} 团队的 {who} 列出 default 中的 Pod。", app.name),
        )],
        symptom: say(
            format!("{who} cannot list the Pods in namespace default: Forbidden."),
            format!("{who} 无法列出命名空间 default 中的 Pod：Forbidden。"),
        ),
        task: say(
            format!("Let {who} list Pods in default, and no more than the team meant."),
            format!("让 {who} 能够列出 default 中的 Pod，但不要给得比团队原本打算的更多。"),
        ),
        check,
        hints: vec![
            say(
                format!(
                    ":auth can-i list pods {as_flag} — and the 403's message: which verb, which resource?"
                ),
                format!(":auth can-i list pods {as_flag} —— 再看 403 的消息：哪个动词、哪个资源？"),
            ),
            say(
                format!(
                    ":get rolebindings -o wide, then :get role {role} -o yaml: who is bound, and to which verbs?"
                ),
                format!(
                    ":get rolebindings -o wide，然后 :get role {role} -o yaml：绑定给了谁，允许哪些动词？"
                ),
            ),
        ],
        cause,
        fix: vec![fix],
        serves: false,
    }
}
