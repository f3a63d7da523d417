//! Faults between a client and its server: a Service whose selector matches
//! no Pod (no endpoints), a Service whose named `targetPort` no container
//! port has (endpoints without the port: connections refused), and the frontend a level-3
//! drill puts in front of any fault, whose readiness probe fetches the
//! broken service, so the symptom shows far from the cause.

use super::pods::on_deployment;
use super::{Cx, Fault, Kind};
use crate::app::{self, App, Shape};
use crate::say;

pub(super) fn wrong_service_selector(app: App, cx: &mut Cx<'_>) -> Fault {
    let wrong = format!("{}{}", app.name, cx.choose(&["-web", "-v2", "s", "-app"]));
    let mut f = on_deployment(Kind::WrongServiceSelector, app.clone(), &Shape::default());
    f.files[0].1.push_str("---\n");
    f.files[0].1.push_str(&app::service(&app, &wrong, 80));
    f.serves = true;
    let endpoints = if app.replicas == 1 {
        "endpoint"
    } else {
        "endpoints"
    };
    f.symptom = say(
        format!(
            "The {name} Pods are Running and Ready, but Service {name} has no endpoints: nothing answers at {name}.",
            name = app.name
        ),
        format!(
            "{name} 的 Pod 在运行且已就绪，但 Service {name} 没有任何端点：访问 {name} 没有回应。",
            name = app.name
        ),
    );
    f.task = say(
        format!(
            "Make Service {} send traffic to its {} Pod(s).",
            app.name, app.replicas
        ),
        format!(
            "让 Service {} 把流量发给它的 {} 个 Pod。",
            app.name, app.replicas
        ),
    );
    f.check = format!(
        "service {} has {} ready {endpoints}",
        app.reference(),
        app.replicas
    );
    f.hints = vec![
        say(
            format!(
                ":get endpointslices{} -l kubernetes.io/service-name={} — which Pods does it list?",
                app.ns_flag(),
                app.name
            ),
            format!(
                ":get endpointslices{} -l kubernetes.io/service-name={} —— 它列出了哪些 Pod？",
                app.ns_flag(),
                app.name
            ),
        ),
        say(
            format!(
                "Compare the Service's selector (:describe svc {}) with the Pods' labels (:get pods --show-labels).",
                app.name
            ),
            format!(
                "比较 Service 的选择算符（:describe svc {}）和 Pod 的标签（:get pods --show-labels）。",
                app.name
            ),
        ),
    ];
    f.cause = say(
        format!(
            "Service {name} selects app={wrong}, but the Pods are labelled app={name}: the EndpointSlice controller finds no Pod, so the Service has no endpoints and kube-proxy rejects its traffic. Fix the selector.",
            name = app.name
        ),
        format!(
            "Service {name} 选择的是 app={wrong}，而 Pod 的标签是 app={name}：EndpointSlice 控制器找不到任何 Pod，所以 Service 没有端点，kube-proxy 拒绝发往它的流量。修正选择算符。",
            name = app.name
        ),
    );
    f.fix = vec![format!(
        "patch service {}{} -p '{{\"spec\":{{\"selector\":{{\"app\":\"{}\"}}}}}}'",
        app.name,
        app.ns_flag(),
        app.name
    )];
    f
}

pub(super) fn wrong_target_port(app: App, cx: &mut Cx<'_>) -> Fault {
    // A named targetPort the container does not name: `FindPort` finds no
    // port, so the endpoint has none for it and kube-proxy rejects.
    let (wanted, named) = *cx.choose(&[("http", "web"), ("web", "http"), ("http-web", "http")]);
    let mut f = on_deployment(
        Kind::WrongTargetPort,
        app.clone(),
        &Shape {
            container: format!("ports:\n  - {{name: {named}, containerPort: 80}}\n"),
            ..Shape::default()
        },
    );
    f.files[0].1.push_str("---\n");
    f.files[0].1.push_str(
        &app::service(&app, &app.name, 80)
            .replace("targetPort: 80", &format!("targetPort: {wanted}")),
    );
    f.serves = true;
    f.hints = vec![
        say(
            format!(
                "Service {name}: :describe svc {name} — its TargetPort and its Endpoints. :get endpointslices -l kubernetes.io/service-name={name} — its PORTS.",
                name = app.name
            ),
            format!(
                "Service {name}：:describe svc {name} —— 看它的 TargetPort 和 Endpoints。:get endpointslices -l kubernetes.io/service-name={name} —— 看 PORTS。",
                name = app.name
            ),
        ),
        say(
            format!(
                "A named targetPort is looked up among the container's ports by name. What are {}'s ports called?",
                app.name
            ),
            format!(
                "命名的 targetPort 会按名字在容器的端口中查找。{} 的端口叫什么名字？",
                app.name
            ),
        ),
    ];
    f.cause = say(
        format!(
            "Service {name} sends port 80 to targetPort {wanted}, a port name; the container names its port 80 {named}. The EndpointSlice controller finds no port called {wanted} in the Pods (FindPort), so the endpoints carry no port for the Service and kube-proxy rejects the connections. Set targetPort to {named} (or 80).",
            name = app.name
        ),
        format!(
            "Service {name} 把 80 端口转发到 targetPort {wanted}，这是一个端口名；而容器把 80 端口命名为 {named}。EndpointSlice 控制器在 Pod 中找不到名为 {wanted} 的端口（FindPort），所以端点没有这个 Service 的端口，kube-proxy 拒绝连接。把 targetPort 改为 {named}（或 80）。",
            name = app.name
        ),
    );
    f.fix = vec![format!(
        "patch service {}{} --type json -p '[{{\"op\":\"replace\",\"path\":\"/spec/ports/0/targetPort\",\"value\":\"{named}\"}}]'",
        app.name,
        app.ns_flag()
    )];
    // Only a client shows this fault: its symptom is always a frontend's.
    behind_frontend(&mut f);
    f
}

/// The name of the frontend of `app`.
fn frontend_name(app: &App) -> String {
    format!("{}-frontend", app.name)
}

/// Puts a frontend in front of the fault's app: a Service on port 80 when it
/// has none, and a Deployment whose readiness probe fetches the Service. Its
/// symptom and goal become the frontend's; the cause and the fix stay.
pub(super) fn behind_frontend(f: &mut Fault) {
    let Some(app) = f.app.clone() else {
        return;
    };
    let frontend = frontend_name(&app);
    if f.check.starts_with(&format!("deployment {frontend} ")) {
        return;
    }
    if !f.serves {
        f.files[0].1.push_str("---\n");
        f.files[0].1.push_str(&app::service(&app, &app.name, 80));
        f.serves = true;
    }
    let url = format!("http://{}.{}.svc.cluster.local/", app.name, app.namespace);
    let front = App {
        name: frontend.clone(),
        namespace: "default".into(),
        image: "busybox:1.36".into(),
        replicas: 1,
    };
    let shape = Shape {
        container_name: "frontend".into(),
        container: format!(
            "command: [\"sh\", \"-c\", \"echo frontend up; sleep 3600\"]\nreadinessProbe:\n  exec:\n    command: [\"wget\", \"-q\", \"-O\", \"-\", \"{url}\"]\n  periodSeconds: 5\n"
        ),
        ..Shape::default()
    };
    f.files[0].1.push_str("---\n");
    f.files[0].1.push_str(&app::deployment(&front, &shape));
    f.symptom = say(
        format!("The {frontend} Pod is never Ready."),
        format!("{frontend} 的 Pod 始终没有就绪。"),
    );
    f.task = say(
        format!("Find out why {frontend} is not Ready and fix the cause: 1 Ready replica."),
        format!("找出 {frontend} 没有就绪的原因并修复根源：1 个就绪副本。"),
    );
    f.check = front.ready_check();
    let mut hints = vec![
        say(
            format!(
                "Read the {frontend} Pod's Unhealthy events: what does its readiness probe run, and what does it get?"
            ),
            format!(
                "阅读 {frontend} 的 Pod 的 Unhealthy 事件：它的就绪探针运行了什么，得到了什么？"
            ),
        ),
        say(
            format!(
                "Follow the name it fetches: Service {} in {}, its endpoints, the Pods behind them.",
                app.name, app.namespace
            ),
            format!(
                "顺着它访问的名字往下查：{} 中的 Service {}、它的端点、端点背后的 Pod。",
                app.namespace, app.name
            ),
        ),
    ];
    hints.append(&mut f.hints);
    f.hints = hints;
    f.cause = say(
        format!(
            "{frontend} is Ready only when its probe, wget {url}, gets an answer. It gets none because: {}",
            f.cause.en
        ),
        format!(
            "{frontend} 只有在探针 wget {url} 得到应答时才就绪。它得不到应答，原因是：{}",
            f.cause.zh
        ),
    );
}
