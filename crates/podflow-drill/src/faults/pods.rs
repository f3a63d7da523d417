//! Faults in what a Pod runs: a typo'd image, a missing `ConfigMap` key or
//! Secret (`CreateContainerConfigError`), a crash from a missing variable or
//! a wrong command (`CrashLoopBackOff`), and an init container that waits
//! forever for a Service.

use super::{Cx, Fault, Kind, Setup, apply_step};
use crate::app::{self, App, Shape};
use crate::say;

/// A fault on `app`'s Deployment shaped by `shape`, its parts to fill in.
pub(super) fn on_deployment(kind: Kind, app: App, shape: &Shape) -> Fault {
    let file = format!("{}.yaml", app.name);
    let text = app::deployment(&app, shape);
    Fault {
        kind,
        cluster: Vec::new(),
        setup: vec![apply_step(&app, &file)],
        files: vec![(file, text)],
        symptom: say(
            format!(
                "The {name} Deployment{ns} never gets its {n} Pod(s) Ready.",
                name = app.name,
                ns = in_ns(&app, false),
                n = app.replicas
            ),
            format!(
                "{ns}Deployment {name} 的 {n} 个 Pod 始终没有就绪。",
                name = app.name,
                ns = in_ns(&app, true),
                n = app.replicas
            ),
        ),
        task: say(
            format!(
                "Find out why {} is not Ready and fix it: {} Ready replica(s).",
                app.name, app.replicas
            ),
            format!(
                "找出 {} 没有就绪的原因并修复它：{} 个就绪副本。",
                app.name, app.replicas
            ),
        ),
        check: app.ready_check(),
        hints: Vec::new(),
        cause: say("", ""),
        fix: Vec::new(),
        serves: false,
        app: Some(app),
    }
}

/// " in namespace NS" (or the Chinese "命名空间 NS 中的"), empty in `default`.
pub(super) fn in_ns(app: &App, zh: bool) -> String {
    match (app.namespace.as_str(), zh) {
        ("default", _) => String::new(),
        (ns, false) => format!(" in namespace {ns}"),
        (ns, true) => format!("命名空间 {ns} 中"),
    }
}

/// The general first hint: where a Pod's trouble shows.
fn look_at_pods(app: &App) -> crate::Say {
    say(
        format!(
            "Start from the Pods: :get pods{ns} -l app={name}, then :describe pod on one of them; read its STATUS and Events.",
            ns = app.ns_flag(),
            name = app.name
        ),
        format!(
            "从 Pod 入手：:get pods{ns} -l app={name}，再对其中一个执行 :describe pod；看它的 STATUS 和 Events。",
            ns = app.ns_flag(),
            name = app.name
        ),
    )
}

pub(super) fn image_typo(app: App, cx: &mut Cx<'_>) -> Fault {
    let typos: &[&str] = match app.image.as_str() {
        "nginx:1.27" => &["ngnix:1.27", "nginx:1.27.x", "nignx:1.27"],
        "nginx:1.27-alpine" => &[
            "nginx:1.27-alpne",
            "nginx:1.27-alpline",
            "ngnix:1.27-alpine",
        ],
        _ => &["httpd:2.4-alpnie", "htppd:2.4", "httpd:2.4.x"],
    };
    let typo = (*cx.choose(typos)).to_owned();
    let shape = Shape {
        image: Some(typo.clone()),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::ImageTypo, app.clone(), &shape);
    f.hints = vec![
        look_at_pods(&app),
        say(
            "ErrImagePull, then ImagePullBackOff: the kubelet cannot pull the image. Read the Failed event's message: not found, or pull access denied?",
            "先是 ErrImagePull，然后是 ImagePullBackOff：kubelet 拉不到镜像。读 Failed 事件的消息：是 not found，还是 pull access denied？",
        ),
        say(
            format!(
                "Compare the image {typo} with the one the team meant, {}.",
                app.image
            ),
            format!("把镜像 {typo} 和团队本来想要的 {} 比较一下。", app.image),
        ),
    ];
    f.cause = say(
        format!(
            "The image {typo} has a typo: the registry has no such repository or tag, so every pull fails (ErrImagePull, ImagePullBackOff). The Deployment's template needs {}.",
            app.image
        ),
        format!(
            "镜像 {typo} 拼错了：镜像仓库中没有这个仓库或标签，所以每次拉取都失败（ErrImagePull、ImagePullBackOff）。Deployment 的模板需要 {}。",
            app.image
        ),
    );
    f.fix = vec![format!(
        "set image deployment/{} web={}{}",
        app.name,
        app.image,
        app.ns_flag()
    )];
    f
}

pub(super) fn missing_configmap_key(app: App, cx: &mut Cx<'_>) -> Fault {
    let (wanted, present) = *cx.choose(&[
        ("LOG_LEVEL", "log_level"),
        ("CACHE_SIZE", "cache-size"),
        ("UPSTREAM_URL", "UPSTREAM_URI"),
    ]);
    let value = match wanted {
        "LOG_LEVEL" => "info",
        "CACHE_SIZE" => "64m",
        _ => "http://backend.internal",
    };
    let config = format!("{}-config", app.name);
    let shape = Shape {
        container: format!(
            "env:\n  - name: {wanted}\n    valueFrom:\n      configMapKeyRef: {{name: {config}, key: {wanted}}}\n"
        ),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::MissingConfigMapKey, app.clone(), &shape);
    f.cluster.push(format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {config}, namespace: {ns}}}\ndata:\n  {present}: {value}\n",
        ns = app.namespace
    ));
    f.hints = vec![
        look_at_pods(&app),
        say(
            "CreateContainerConfigError: the kubelet cannot build the container's environment. The event names what is missing.",
            "CreateContainerConfigError：kubelet 无法构造容器的环境变量。事件里写明了缺少什么。",
        ),
        say(
            format!(
                ":get configmap {config} -o yaml{} — which keys does it have?",
                app.ns_flag()
            ),
            format!(
                ":get configmap {config} -o yaml{} —— 它有哪些键？",
                app.ns_flag()
            ),
        ),
    ];
    f.cause = say(
        format!(
            "The container takes {wanted} from ConfigMap {config}, which has the key {present} but not {wanted}: CreateContainerConfigError. Add the key (or point the reference at the right one); the kubelet retries by itself."
        ),
        format!(
            "容器从 ConfigMap {config} 读取 {wanted}，但它只有键 {present}，没有 {wanted}：CreateContainerConfigError。添加这个键（或把引用改成正确的键）；kubelet 会自行重试。"
        ),
    );
    f.fix = vec![format!(
        "patch configmap {config}{} -p '{{\"data\":{{\"{wanted}\":\"{value}\"}}}}'",
        app.ns_flag()
    )];
    f
}

pub(super) fn missing_secret(app: App, cx: &mut Cx<'_>) -> Fault {
    let (secret_suffix, key) = *cx.choose(&[("db", "password"), ("api", "token"), ("tls", "key")]);
    let secret = format!("{}-{secret_suffix}", app.name);
    let var = format!("{}_{}", secret_suffix.to_uppercase(), key.to_uppercase());
    let shape = Shape {
        container: format!(
            "env:\n  - name: {var}\n    valueFrom:\n      secretKeyRef: {{name: {secret}, key: {key}}}\n"
        ),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::MissingSecret, app.clone(), &shape);
    f.hints = vec![
        look_at_pods(&app),
        say(
            "CreateContainerConfigError: the Pod refers to something the kubelet cannot find. The event names it.",
            "CreateContainerConfigError：Pod 引用了 kubelet 找不到的东西。事件里写明了是什么。",
        ),
        say(
            format!(":get secrets{} — is {secret} there?", app.ns_flag()),
            format!(":get secrets{} —— {secret} 存在吗？", app.ns_flag()),
        ),
    ];
    f.cause = say(
        format!(
            "The container's {var} comes from Secret {secret}, key {key}, and that Secret does not exist: CreateContainerConfigError. Create it; the kubelet retries by itself."
        ),
        format!(
            "容器的 {var} 来自 Secret {secret} 的键 {key}，而这个 Secret 不存在：CreateContainerConfigError。创建它；kubelet 会自行重试。"
        ),
    );
    f.fix = vec![format!(
        "create secret generic {secret} --from-literal={key}=s3cr3t{}",
        app.ns_flag()
    )];
    f
}

pub(super) fn crash_missing_env(mut app: App, cx: &mut Cx<'_>) -> Fault {
    let (var, value) = *cx.choose(&[
        ("MODE", "production"),
        ("PORT", "8080"),
        ("DATABASE_URL", "postgres://db:5432/app"),
    ]);
    (*cx.choose(&["busybox:1.36", "alpine:3.20"])).clone_into(&mut app.image);
    let script = format!(
        "echo \"starting {name}: {var}=${var}\"; [ -n \"${var}\" ] && sleep 3600",
        name = app.name
    );
    let shape = Shape {
        container: format!(
            "command: [\"sh\", \"-c\", {}]\n",
            crate::yaml::quote(&script)
        ),
        container_name: "app".into(),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::CrashMissingEnv, app.clone(), &shape);
    f.hints = vec![
        look_at_pods(&app),
        say(
            "CrashLoopBackOff: the container starts and exits. What did it print before it exited? (:logs on a Pod, -p for the previous run)",
            "CrashLoopBackOff：容器启动后就退出了。它退出前打印了什么？（对 Pod 执行 :logs，-p 看上一次运行）",
        ),
        say(
            "A Pod's environment is part of its template: change the Deployment, and new Pods get it.",
            "Pod 的环境变量属于模板：修改 Deployment，新的 Pod 就会带上它。",
        ),
    ];
    f.cause = say(
        format!(
            "The container's script needs the variable {var} and exits with 1 when it is empty (its log shows {var}= with nothing after it): the kubelet restarts it with a growing back-off, CrashLoopBackOff. Set {var} in the template."
        ),
        format!(
            "容器的脚本需要变量 {var}，为空时以 1 退出（日志中 {var}= 后面什么也没有）：kubelet 以递增的退避时间重启它，即 CrashLoopBackOff。在模板中设置 {var}。"
        ),
    );
    f.fix = vec![format!(
        "patch deployment {}{} -p '{{\"spec\":{{\"template\":{{\"spec\":{{\"containers\":[{{\"name\":\"app\",\"env\":[{{\"name\":\"{var}\",\"value\":\"{value}\"}}]}}]}}}}}}}}'",
        app.name,
        app.ns_flag()
    )];
    f
}

pub(super) fn wrong_command(mut app: App, cx: &mut Cx<'_>) -> Fault {
    "busybox:1.36".clone_into(&mut app.image);
    let (broken, fixed, why_en, why_zh) = *cx.choose(&[
        (
            "[\"sh\", \"-c\", \"echo ready; slep 3600\"]",
            "[\"sh\",\"-c\",\"echo ready; sleep 3600\"]",
            "the shell cannot find slep (sleep misspelled) and exits with 127",
            "shell 找不到 slep（sleep 拼错了），以 127 退出",
        ),
        (
            "[\"sleep\", \"infinty\"]",
            "[\"sleep\",\"infinity\"]",
            "sleep cannot read its argument infinty (infinity misspelled) and exits with 1",
            "sleep 无法识别参数 infinty（infinity 拼错了），以 1 退出",
        ),
        (
            "[\"sh\", \"-c\", \"exec /app/server --port 8080\"]",
            "[\"sh\",\"-c\",\"echo serving; sleep 3600\"]",
            "the image has no /app/server (the command belongs to another image) and the shell exits with 127",
            "镜像里没有 /app/server（这条命令属于另一个镜像），shell 以 127 退出",
        ),
    ]);
    let shape = Shape {
        container: format!("command: {broken}\n"),
        container_name: "app".into(),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::WrongCommand, app.clone(), &shape);
    f.hints = vec![
        look_at_pods(&app),
        say(
            "CrashLoopBackOff: the container exits at once. Read its exit code (describe: Last State) and its output (:logs -p).",
            "CrashLoopBackOff：容器一启动就退出。看它的退出码（describe 中的 Last State）和输出（:logs -p）。",
        ),
        say(
            "Read the container's command in the Deployment, word by word.",
            "逐字阅读 Deployment 中容器的 command。",
        ),
    ];
    f.cause = say(
        format!(
            "The container's command is wrong: {why_en}. The kubelet restarts it, CrashLoopBackOff. Fix the command in the template."
        ),
        format!(
            "容器的 command 写错了：{why_zh}。kubelet 不断重启它，即 CrashLoopBackOff。修改模板中的 command。"
        ),
    );
    f.fix = vec![format!(
        "patch deployment {}{} -p '{{\"spec\":{{\"template\":{{\"spec\":{{\"containers\":[{{\"name\":\"app\",\"command\":{fixed}}}]}}}}}}}}'",
        app.name,
        app.ns_flag()
    )];
    f
}

pub(super) fn stuck_init_container(app: App, cx: &mut Cx<'_>) -> Fault {
    let (suffix, image, port) = *cx.choose(&[("db", "redis:7", 6379), ("cache", "redis:7", 6379)]);
    let backend = format!("{}-{suffix}", app.name);
    let script = format!("until nslookup {backend}; do echo waiting for {backend}; sleep 2; done");
    let shape = Shape {
        pod: format!(
            "initContainers:\n  - name: wait-for-{suffix}\n    image: busybox:1.36\n    command: [\"sh\", \"-c\", {}]\n",
            crate::yaml::quote(&script)
        ),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::StuckInitContainer, app.clone(), &shape);
    let backend_app = App {
        name: backend.clone(),
        namespace: app.namespace.clone(),
        image: image.to_owned(),
        replicas: 1,
    };
    let backend_deployment = app::deployment(
        &backend_app,
        &Shape {
            container_name: suffix.to_owned(),
            ..Shape::default()
        },
    );
    f.files[0].1 = format!("{}---\n{}", backend_deployment, f.files[0].1);
    f.hints = vec![
        look_at_pods(&app),
        say(
            "Init:0/1: the init container has not finished, so the app's container never starts. What does it print? (:logs POD -c CONTAINER)",
            "Init:0/1：init 容器没有结束，所以应用容器一直不会启动。它打印了什么？（:logs POD -c CONTAINER）",
        ),
        say(
            format!(
                "It waits until the name {backend} resolves. Which objects get a DNS name? :get svc{}",
                app.ns_flag()
            ),
            format!(
                "它在等名字 {backend} 能被解析。哪些对象有 DNS 名字？:get svc{}",
                app.ns_flag()
            ),
        ),
    ];
    f.cause = say(
        format!(
            "The init container waits until {backend} resolves in cluster DNS, but there is no Service {backend}: only its Deployment. The Pod stays Init:0/1. Expose the Deployment as a Service (port {port})."
        ),
        format!(
            "init 容器一直等待 {backend} 在集群 DNS 中可解析，但并没有 Service {backend}，只有它的 Deployment。Pod 停在 Init:0/1。把这个 Deployment 暴露为 Service（端口 {port}）。"
        ),
    );
    f.fix = vec![format!(
        "expose deployment {backend} --port {port}{}",
        app.ns_flag()
    )];
    f
}

/// Helps the other builders add a step.
pub(super) fn step(run: String, en: String, zh: String) -> Setup {
    Setup {
        run,
        text: say(en, zh),
    }
}
