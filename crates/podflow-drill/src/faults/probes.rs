//! Faults in a container's probes: a readiness probe that never passes (the
//! Pods run but are never Ready), and liveness and readiness probes on a port
//! the server does not listen on (restarts, never Ready).

use super::pods::on_deployment;
use super::{Cx, Fault, Kind};
use crate::app::{App, Shape};
use crate::say;

/// A JSON patch of the app's first container, as a cluster-language command.
pub(super) fn json_patch(app: &App, ops: &str) -> String {
    format!(
        "patch deployment {}{} --type json -p '{ops}'",
        app.name,
        app.ns_flag()
    )
}

pub(super) fn failing_readiness(app: App, cx: &mut Cx<'_>) -> Fault {
    let variants: [(&str, &str, &str, &str, &str); 3] = [
        (
            "readinessProbe:\n  httpGet: {path: /healthz, port: 8080}\n  periodSeconds: 5\n",
            "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/readinessProbe/httpGet/port\",\"value\":80}]",
            "an HTTP GET of /healthz on port 8080",
            "对 8080 端口 /healthz 的 HTTP GET",
            "connection refused",
        ),
        (
            "readinessProbe:\n  tcpSocket: {port: 8443}\n  periodSeconds: 5\n",
            "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/readinessProbe/tcpSocket/port\",\"value\":80}]",
            "a TCP connection to port 8443",
            "到 8443 端口的 TCP 连接",
            "connection refused",
        ),
        (
            "readinessProbe:\n  exec:\n    command: [\"cat\", \"/tmp/ready\"]\n  periodSeconds: 5\n",
            "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/readinessProbe\",\"value\":{\"httpGet\":{\"path\":\"/\",\"port\":80},\"periodSeconds\":5}}]",
            "cat /tmp/ready inside the container, a file the web server never writes",
            "在容器里执行 cat /tmp/ready，而 Web 服务器从不写这个文件",
            "No such file or directory",
        ),
    ];
    let (probe, ops, what_en, what_zh, error) = *cx.choose(&variants);
    let shape = Shape {
        container: format!("ports:\n  - containerPort: 80\n{probe}"),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::FailingReadinessProbe, app.clone(), &shape);
    f.hints = vec![
        say(
            format!(
                ":get pods{} -l app={}: Running, but READY 0/1. What decides Ready?",
                app.ns_flag(),
                app.name
            ),
            format!(
                ":get pods{} -l app={}：Running，但 READY 是 0/1。是什么决定了 Ready？",
                app.ns_flag(),
                app.name
            ),
        ),
        say(
            format!("The Unhealthy events say why the readiness probe fails ({error})."),
            format!("Unhealthy 事件说明了就绪探针失败的原因（{error}）。"),
        ),
        say(
            format!("{} serves HTTP on port 80, and nothing else.", app.image),
            format!("{} 只在 80 端口提供 HTTP 服务。", app.image),
        ),
    ];
    f.cause = say(
        format!(
            "The readiness probe is {what_en}; {} serves only HTTP on port 80, so the probe fails ({error}) and the kubelet never marks the container Ready. The Pods run, but no Service would send them traffic. Point the probe at port 80.",
            app.image
        ),
        format!(
            "就绪探针是{what_zh}；{} 只在 80 端口提供 HTTP，所以探针失败（{error}），kubelet 从不把容器标记为 Ready。Pod 在运行，但任何 Service 都不会把流量发给它们。把探针指向 80 端口。",
            app.image
        ),
    );
    f.fix = vec![json_patch(&app, ops)];
    f
}

pub(super) fn failing_liveness(app: App, cx: &mut Cx<'_>) -> Fault {
    let port = *cx.choose(&[8080, 8000, 9090]);
    let shape = Shape {
        container: format!(
            "ports:\n  - containerPort: 80\nlivenessProbe:\n  httpGet: {{path: /, port: {port}}}\n  periodSeconds: 5\n  failureThreshold: 3\nreadinessProbe:\n  httpGet: {{path: /, port: {port}}}\n  periodSeconds: 5\n"
        ),
        ..Shape::default()
    };
    let mut f = on_deployment(Kind::FailingLivenessProbe, app.clone(), &shape);
    f.hints = vec![
        say(
            format!(
                ":get pods{} -l app={}: READY 0/1 and the RESTARTS column grows. Who restarts them?",
                app.ns_flag(),
                app.name
            ),
            format!(
                ":get pods{} -l app={}：READY 是 0/1，RESTARTS 列不断增长。是谁在重启它们？",
                app.ns_flag(),
                app.name
            ),
        ),
        say(
            "Liveness probe failed, then Killing: container failed liveness probe, will be restarted. Which port do the probes ask?",
            "Liveness probe failed，然后是 Killing：container failed liveness probe, will be restarted。探针问的是哪个端口？",
        ),
    ];
    f.cause = say(
        format!(
            "Both probes ask port {port}, but {} listens on port 80: the readiness probe never passes, and after 3 failed liveness probes the kubelet kills the container and restarts it, again and again. Point both probes at port 80.",
            app.image
        ),
        format!(
            "两个探针都访问 {port} 端口，但 {} 监听的是 80 端口：就绪探针从不通过；存活探针连续失败 3 次后 kubelet 杀掉并重启容器，周而复始。把两个探针都指向 80 端口。",
            app.image
        ),
    );
    f.fix = vec![json_patch(
        &app,
        "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/livenessProbe/httpGet/port\",\"value\":80},{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/readinessProbe/httpGet/port\",\"value\":80}]",
    )];
    f
}
