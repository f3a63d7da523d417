//! Container lifecycle hooks (`postStart`, `preStop`) as the kubelet runs them:
//! `pkg/kubelet/lifecycle/handlers.go` (`handlerRunner.Run`: `exec` in the
//! container, `httpGet` against it, `sleep`; anything else, the deprecated
//! `tcpSocket` among them, is an invalid handler) and
//! `pkg/kubelet/kuberuntime/kuberuntime_container.go` (`startContainer` runs
//! `postStart` after `StartContainer`; `killContainer` runs `preStop` before
//! SIGTERM, and its time counts against the grace period).
//!
//! The events carry no detail ("do not record the message in the event so that
//! secrets won't leak"): `FailedPostStartHook` / `PostStartHook failed`,
//! `FailedPreStopHook` / `PreStopHook failed`. The detailed message (`Exec
//! lifecycle hook ([…]) for Container "x" in Pod "y" failed - error: …`) is
//! what `startContainer` returns; it becomes the waiting message of a
//! `PostStartHookError`.
//!
//! An `exec` hook takes the time its command sleeps (`sleep 5`: five
//! simulated seconds, which a `preStop` hook takes from the grace period).
//!
//! Simplifications: an `httpGet` hook, and an `exec` hook that fails, take
//! no simulated time; the exec error's stderr is the command's whole output (the simulated runtime
//! does not keep the two streams apart); `httpGet` reaches the container's own
//! servers whatever its `host`.

use k8s_openapi::api::core::v1::{Container, LifecycleHandler, Pod};

use super::Kubelet;
use super::backoff::pod_full_name;
use super::dns::Dns;
use super::prober::{self, Handler, Outcome, Port, Target};
use super::process::{Process, World};
use crate::apiserver::validation::go_quote;
use crate::clock::SimTime;
use crate::component::Cx;
use crate::trace::{self, StageName};

/// The `Warning` event of a failed `postStart` hook, and its message.
pub const FAILED_POST_START_HOOK: &str = "FailedPostStartHook";
pub const POST_START_HOOK_FAILED: &str = "PostStartHook failed";
/// The `Warning` event of a failed `preStop` hook, and its message.
pub const FAILED_PRE_STOP_HOOK: &str = "FailedPreStopHook";
pub const PRE_STOP_HOOK_FAILED: &str = "PreStopHook failed";
/// `ErrPostStartHook`: the waiting reason of a container whose `postStart` failed.
pub const POST_START_HOOK_ERROR: &str = "PostStartHookError";
/// `killContainer`'s floor on the grace period left after `preStop` (`minimumGracePeriodInSeconds`).
pub const MINIMUM_GRACE_MS: u64 = 2000;

/// What running a hook came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookRun {
    /// It succeeded at once.
    Done,
    /// A `sleep` hook: it succeeds after this many ms.
    Sleep(u64),
    /// An `exec` hook whose command sleeps: it succeeds after this many ms.
    Took(u64),
    /// It failed: `handlerRunner.Run`'s message.
    Failed(String),
}

/// The pod as `format.Pod` prints it: `name_namespace(uid)`.
fn pod_desc(pod: &Pod) -> String {
    let m = &pod.metadata;
    pod_full_name(
        m.namespace.as_deref().unwrap_or_default(),
        m.name.as_deref().unwrap_or_default(),
        m.uid.as_deref().unwrap_or_default(),
    )
}

/// `IntOrString` as Go's `%v` prints the struct: `{0 8080 }`, `{1 0 http}`.
fn go_int_or_string(port: &k8s_openapi::apimachinery::pkg::util::intstr::IntOrString) -> String {
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    match port {
        IntOrString::Int(n) => format!("{{0 {n} }}"),
        IntOrString::String(s) => format!("{{1 0 {s}}}"),
    }
}

/// The generated `String()` of a `LifecycleHandler` that names no handler the
/// kubelet runs (`tcpSocket`, or none): the `invalid handler` error's text.
fn go_handler(handler: &LifecycleHandler) -> String {
    let tcp = handler.tcp_socket.as_ref().map_or_else(
        || "nil".to_owned(),
        |t| {
            format!(
                "&TCPSocketAction{{Port:{},Host:{},}}",
                go_int_or_string(&t.port),
                t.host.as_deref().unwrap_or_default()
            )
        },
    );
    format!("&LifecycleHandler{{Exec:nil,HTTPGet:nil,TCPSocket:{tcp},Sleep:nil,}}")
}

/// Runs `handler` for `container` of `pod` (IP `pod_ip`) against its running
/// `process` at `now` (`handlerRunner.Run`).
pub fn run(
    handler: &LifecycleHandler,
    container: &Container,
    pod: &Pod,
    pod_ip: &str,
    process: &mut Process,
    world: &dyn World,
    now: SimTime,
) -> HookRun {
    let who = format!(
        "for Container {} in Pod {}",
        go_quote(&container.name),
        go_quote(&pod_desc(pod))
    );
    if let Some(exec) = &handler.exec {
        let command = exec.command.clone().unwrap_or_default();
        let result = process.exec(&command, now, world);
        if result.code == 0 {
            return match result.took_ms {
                0 => HookRun::Done,
                ms => HookRun::Took(ms),
            };
        }
        // cri-client ExecSync: a non-zero exit is `command '…' exited with N: <stderr>`.
        let error = format!(
            "command '{}' exited with {}: {}",
            command.join(" "),
            result.code,
            result.output
        );
        return HookRun::Failed(format!(
            "Exec lifecycle hook ([{}]) {who} failed - error: {error}, message: {}",
            command.join(" "),
            go_quote(&result.output)
        ));
    }
    if let Some(http) = &handler.http_get {
        let path = http.path.clone().unwrap_or_default();
        let probe = prober::Probe {
            handler: Some(Handler::http_get(http)),
            ..prober::Probe::from_api(&k8s_openapi::api::core::v1::Probe::default())
        };
        let failed = |error: String| {
            HookRun::Failed(format!(
                "HTTP lifecycle hook ({path}) {who} failed - error: {error}"
            ))
        };
        let target = match prober::resolve(&probe, container, pod_ip) {
            Ok(target) => target,
            Err(error) => return failed(error),
        };
        let port = prober::resolve_port(&Port::from(&http.port), container)
            .map_or(0, |n| u16::try_from(n).unwrap_or(0));
        let url_path = match &target {
            Target::Http { url } => url
                .split_once("://")
                .and_then(|(_, rest)| rest.find('/').map(|i| rest[i..].to_owned()))
                .unwrap_or_else(|| "/".to_owned()),
            _ => "/".to_owned(),
        };
        // Any answer will do: the lifecycle handler does not look at the status.
        return match process.http_get(port, &url_path, now) {
            Some(_) => HookRun::Done,
            None => failed(prober::evaluate(&target, 1, &Outcome::Refused).output),
        };
    }
    if let Some(sleep) = &handler.sleep {
        return HookRun::Sleep(u64::try_from(sleep.seconds.max(0)).unwrap_or(0) * 1000);
    }
    HookRun::Failed(format!(
        "Cannot run handler: invalid handler: {}",
        go_handler(handler)
    ))
}

/// The grace period (ms) `killContainer` gives SIGTERM after a `preStop` hook
/// that took `hook_ms` of `grace_ms`: what is left, at least two seconds.
pub fn grace_after_pre_stop(grace_ms: u64, hook_ms: u64) -> u64 {
    grace_ms.saturating_sub(hook_ms).max(MINIMUM_GRACE_MS)
}

/// Which hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    PostStart,
    PreStop,
}

impl Kubelet {
    /// Runs `hook` of container `i` against its process, with the warning event
    /// when it fails; `None` when the container has no such hook.
    pub(super) fn run_hook(
        &mut self,
        key: &str,
        i: usize,
        hook: Hook,
        cx: &mut Cx<'_>,
    ) -> Option<HookRun> {
        let w = self.workers.get_mut(key)?;
        let pod = w.pod.clone();
        let pod_ip = w.pod_ip.clone().unwrap_or_default();
        let ns = w.names().0;
        let ctr = w.ctrs.get_mut(i)?;
        let lifecycle = ctr.spec.lifecycle.as_ref()?;
        let handler = match hook {
            Hook::PostStart => lifecycle.post_start.clone(),
            Hook::PreStop => lifecycle.pre_stop.clone(),
        }?;
        let process = ctr.process.as_mut()?;
        let world = Dns::new(&self.services, &ns, &self.net);
        let result = run(&handler, &ctr.spec, &pod, &pod_ip, process, &world, cx.now);
        let (cname, field) = (ctr.spec.name.clone(), ctr.field_path());
        let name = match hook {
            Hook::PostStart => "postStart",
            Hook::PreStop => "preStop",
        };
        let (outcome, detail) = match &result {
            HookRun::Done => (
                trace::Outcome::Hook,
                format!("{cname}: {name} hook succeeded"),
            ),
            HookRun::Sleep(ms) => (
                trace::Outcome::Hook,
                format!(
                    "{cname}: {name} hook sleeps {}",
                    super::klog::go_duration(*ms)
                ),
            ),
            HookRun::Took(ms) => (
                trace::Outcome::Hook,
                format!("{cname}: {name} hook ran {}", super::klog::go_duration(*ms)),
            ),
            HookRun::Failed(message) => (trace::Outcome::HookFailed, format!("{cname}: {message}")),
        };
        self.stage(cx, key, StageName::Container, outcome, detail);
        if let HookRun::Failed(_) = &result {
            let (reason, text) = match hook {
                Hook::PostStart => (FAILED_POST_START_HOOK, POST_START_HOOK_FAILED),
                Hook::PreStop => (FAILED_PRE_STOP_HOOK, PRE_STOP_HOOK_FAILED),
            };
            Self::event(cx, key, true, reason, text.into(), Some(field));
        }
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{ExecAction, HTTPGetAction, SleepAction, TCPSocketAction};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

    use super::*;
    use crate::kubelet::process::Launch;
    use podflow_scenario::image_catalog;

    struct NoWorld;
    impl World for NoWorld {
        fn lookup(&self, _: &str) -> crate::kubelet::process::Answer {
            crate::kubelet::process::Answer::NoSuchName
        }
        fn http_get(&self, _: &str) -> Option<u16> {
            None
        }
    }

    fn pod() -> Pod {
        Pod {
            metadata: ObjectMeta {
                name: Some("podFoo".into()),
                namespace: Some("nsFoo".into()),
                uid: Some("uid-1".into()),
                ..ObjectMeta::default()
            },
            ..Pod::default()
        }
    }

    fn container() -> Container {
        Container {
            name: "containerFoo".into(),
            ..Container::default()
        }
    }

    fn nginx() -> Process {
        let catalog = image_catalog();
        let image = catalog.lookup("nginx").cloned();
        Process::start(
            Launch {
                image: image.as_ref(),
                command: &[],
                args: &[],
                env: Vec::new(),
                files: Vec::new(),
                dirs: Vec::new(),
                memory_limit_bytes: None,
            },
            SimTime::ZERO,
            &NoWorld,
        )
    }

    fn exec(args: &[&str]) -> LifecycleHandler {
        LifecycleHandler {
            exec: Some(ExecAction {
                command: Some(args.iter().map(|a| (*a).to_owned()).collect()),
            }),
            ..LifecycleHandler::default()
        }
    }

    fn run_on(handler: &LifecycleHandler, process: &mut Process) -> HookRun {
        run(
            handler,
            &container(),
            &pod(),
            "10.244.1.5",
            process,
            &NoWorld,
            SimTime(1000),
        )
    }

    /// The docs' "Attach Handlers to Container Lifecycle Events"
    /// (`content/en/examples/pods/lifecycle-events.yaml`).
    #[test]
    fn lifecycle_events_example() {
        let mut p = nginx();
        let post_start = exec(&[
            "/bin/sh",
            "-c",
            "echo Hello from the postStart handler > /usr/share/message",
        ]);
        assert_eq!(run_on(&post_start, &mut p), HookRun::Done);
        let cat = ["cat".to_owned(), "/usr/share/message".to_owned()];
        let out = p.exec(&cat, SimTime(2000), &NoWorld);
        assert_eq!(out.output, "Hello from the postStart handler\n");
        let pre_stop = exec(&[
            "/bin/sh",
            "-c",
            "nginx -s quit; while killall -0 nginx; do sleep 1; done",
        ]);
        assert_eq!(run_on(&pre_stop, &mut p), HookRun::Done);
        assert_eq!(
            p.state(),
            &crate::kubelet::process::State::Exited {
                code: 0,
                reason: "Completed"
            },
            "nginx -s quit ends the server"
        );
    }

    /// `handlers_test.go` `TestRunHandlerExecFailure`, `TestRunHandlerHttpFailure`,
    /// `TestRunHandlerNil` (wording of the newest `handlers.go`).
    #[test]
    fn failure_messages() {
        let mut p = nginx();
        let rows: [(LifecycleHandler, &str); 4] = [
            (
                exec(&["/bin/sh", "-c", "echo oops >&2; exit 3"]),
                "Exec lifecycle hook ([/bin/sh -c echo oops >&2; exit 3]) for Container \"containerFoo\" in Pod \"podFoo_nsFoo(uid-1)\" failed - error: command '/bin/sh -c echo oops >&2; exit 3' exited with 3: oops\n, message: \"oops\\n\"",
            ),
            (
                LifecycleHandler {
                    http_get: Some(HTTPGetAction {
                        port: IntOrString::Int(8080),
                        path: Some("bar".into()),
                        ..HTTPGetAction::default()
                    }),
                    ..LifecycleHandler::default()
                },
                "HTTP lifecycle hook (bar) for Container \"containerFoo\" in Pod \"podFoo_nsFoo(uid-1)\" failed - error: Get \"http://10.244.1.5:8080/bar\": dial tcp 10.244.1.5:8080: connect: connection refused",
            ),
            (
                LifecycleHandler {
                    tcp_socket: Some(TCPSocketAction {
                        port: IntOrString::Int(8080),
                        ..TCPSocketAction::default()
                    }),
                    ..LifecycleHandler::default()
                },
                "Cannot run handler: invalid handler: &LifecycleHandler{Exec:nil,HTTPGet:nil,TCPSocket:&TCPSocketAction{Port:{0 8080 },Host:,},Sleep:nil,}",
            ),
            (
                LifecycleHandler::default(),
                "Cannot run handler: invalid handler: &LifecycleHandler{Exec:nil,HTTPGet:nil,TCPSocket:nil,Sleep:nil,}",
            ),
        ];
        for (handler, want) in rows {
            assert_eq!(run_on(&handler, &mut p), HookRun::Failed(want.into()));
        }
    }

    #[test]
    fn http_to_a_serving_port_and_sleep() {
        let mut p = nginx();
        let http = LifecycleHandler {
            http_get: Some(HTTPGetAction {
                port: IntOrString::Int(80),
                path: Some("/hook".into()),
                ..HTTPGetAction::default()
            }),
            ..LifecycleHandler::default()
        };
        assert_eq!(run_on(&http, &mut p), HookRun::Done);
        let sleep = LifecycleHandler {
            sleep: Some(SleepAction { seconds: 5 }),
            ..LifecycleHandler::default()
        };
        assert_eq!(run_on(&sleep, &mut p), HookRun::Sleep(5000));
    }

    /// `kuberuntime_container.go` `executePreStopHook` waits for the hook's
    /// command: an `exec` of `sleep 5` takes five seconds.
    #[test]
    fn an_exec_hook_takes_its_commands_time() {
        let mut p = nginx();
        assert_eq!(
            run_on(&exec(&["/bin/sh", "-c", "sleep 5"]), &mut p),
            HookRun::Took(5000)
        );
        assert_eq!(run_on(&exec(&["sleep", "2"]), &mut p), HookRun::Took(2000));
    }

    #[test]
    fn grace_left_after_pre_stop() {
        assert_eq!(grace_after_pre_stop(30_000, 5000), 25_000);
        assert_eq!(grace_after_pre_stop(30_000, 29_500), 2000);
        assert_eq!(grace_after_pre_stop(1000, 5000), 2000);
    }
}
