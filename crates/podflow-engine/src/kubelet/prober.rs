//! Container probes: one worker per container and probe type, as
//! `pkg/kubelet/prober/worker.go` (`doProbe`) runs it, and the probe outcomes and
//! `Unhealthy` event wording of `pkg/kubelet/prober/prober.go` and the probers in
//! `pkg/probe/{exec,http,tcp,grpc}`.
//!
//! The kubelet drives a worker: it ticks every `periodSeconds` from the worker's
//! start ([`Worker::next_tick`]); at a tick it asks [`Worker::due`], runs the probe
//! against the simulated container, turns the raw [`Outcome`] into a
//! [`ProbeResult`] with [`evaluate`], records an `Unhealthy` event
//! ([`unhealthy_event`]) when it failed, and feeds it to [`Worker::record`], whose
//! [`Transition`] says what changed (ready, unready, started, restart needed).

use k8s_openapi::api::core::v1::{Container, Probe as ApiProbe};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::clock::SimTime;

/// Which probe (`probeType`); displayed as upstream capitalises it in events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProbeType {
    Startup,
    Liveness,
    Readiness,
}

impl ProbeType {
    /// `Liveness`, `Readiness`, `Startup`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeType::Startup => "Startup",
            ProbeType::Liveness => "Liveness",
            ProbeType::Readiness => "Readiness",
        }
    }
}

/// A probe's port: a number or a named container port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Port {
    Number(i32),
    Name(String),
}

impl From<&IntOrString> for Port {
    fn from(value: &IntOrString) -> Port {
        match value {
            IntOrString::Int(n) => Port::Number(*n),
            IntOrString::String(s) => Port::Name(s.clone()),
        }
    }
}

/// What the probe does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handler {
    Exec {
        command: Vec<String>,
    },
    HttpGet {
        /// Lower-cased (`http`, `https`).
        scheme: String,
        host: Option<String>,
        port: Port,
        path: String,
    },
    TcpSocket {
        host: Option<String>,
        port: Port,
    },
    Grpc {
        port: i32,
        service: String,
    },
}

impl Handler {
    /// An `httpGet` action (of a probe or a lifecycle hook) as a handler:
    /// scheme `http` unless said, an empty host meaning the Pod's IP.
    pub fn http_get(http: &k8s_openapi::api::core::v1::HTTPGetAction) -> Handler {
        Handler::HttpGet {
            scheme: http
                .scheme
                .as_deref()
                .unwrap_or("HTTP")
                .to_ascii_lowercase(),
            host: http.host.clone().filter(|h| !h.is_empty()),
            port: Port::from(&http.port),
            path: http.path.clone().unwrap_or_default(),
        }
    }
}

/// A probe with the API defaults applied (`pkg/apis/core/v1/defaults.go`, `SetDefaults_Probe`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// `None` when no handler is set (upstream's dummy runner: "Missing probe handler").
    pub handler: Option<Handler>,
    pub initial_delay_seconds: i32,
    pub period_seconds: i32,
    pub timeout_seconds: i32,
    pub success_threshold: i32,
    pub failure_threshold: i32,
}

impl Probe {
    /// Reads a `core/v1` Probe; unset or non-positive fields take the defaults
    /// (period 10, timeout 1, success 1, failure 3).
    pub fn from_api(probe: &ApiProbe) -> Probe {
        let positive = |v: Option<i32>, default: i32| v.filter(|v| *v > 0).unwrap_or(default);
        let handler = if let Some(exec) = &probe.exec {
            Some(Handler::Exec {
                command: exec.command.clone().unwrap_or_default(),
            })
        } else if let Some(http) = &probe.http_get {
            Some(Handler::http_get(http))
        } else if let Some(tcp) = &probe.tcp_socket {
            Some(Handler::TcpSocket {
                host: tcp.host.clone().filter(|h| !h.is_empty()),
                port: Port::from(&tcp.port),
            })
        } else {
            probe.grpc.as_ref().map(|grpc| Handler::Grpc {
                port: grpc.port,
                service: grpc.service.clone().unwrap_or_default(),
            })
        };
        Probe {
            handler,
            initial_delay_seconds: probe.initial_delay_seconds.unwrap_or(0).max(0),
            period_seconds: positive(probe.period_seconds, 10),
            timeout_seconds: positive(probe.timeout_seconds, 1),
            success_threshold: positive(probe.success_threshold, 1),
            failure_threshold: positive(probe.failure_threshold, 3),
        }
    }

    /// The period in ms.
    pub fn period_ms(&self) -> u64 {
        u64::try_from(self.period_seconds).unwrap_or(10) * 1000
    }
}

/// Where a probe goes, resolved against the container and the pod IP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Exec {
        command: Vec<String>,
    },
    /// The URL as Go's `url.URL` prints it: `http://10.244.1.5:8080/healthz`.
    Http {
        url: String,
    },
    /// `host:port`.
    Tcp {
        addr: String,
    },
    /// `host:port` and the service name.
    Grpc {
        addr: String,
        service: String,
    },
}

/// `extractPort`: a number, or a named port of the container (else a number in a
/// string); 1..=65535.
pub fn resolve_port(port: &Port, container: &Container) -> Result<i32, String> {
    let number = match port {
        Port::Number(n) => *n,
        Port::Name(name) => container
            .ports
            .iter()
            .flatten()
            .find(|p| p.name.as_deref() == Some(name.as_str()))
            .map(|p| p.container_port)
            .or_else(|| name.parse().ok())
            .ok_or_else(|| format!("strconv.Atoi: parsing \"{name}\": invalid syntax"))?,
    };
    if number > 0 && number < 65536 {
        Ok(number)
    } else {
        Err(format!("invalid port number: {number}"))
    }
}

/// `net.JoinHostPort`.
fn join_host_port(host: &str, port: i32) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Resolves `probe` for `container` in a pod with `pod_ip` (`runProbe`).
pub fn resolve(probe: &Probe, container: &Container, pod_ip: &str) -> Result<Target, String> {
    match &probe.handler {
        None => Err(format!(
            "missing probe handler for container {}",
            container.name
        )),
        Some(Handler::Exec { command }) => Ok(Target::Exec {
            command: command.clone(),
        }),
        Some(Handler::HttpGet {
            scheme,
            host,
            port,
            path,
        }) => {
            let port = resolve_port(port, container)?;
            let host = join_host_port(host.as_deref().unwrap_or(pod_ip), port);
            let path = if path.is_empty() || path.starts_with('/') {
                path.clone()
            } else {
                format!("/{path}")
            };
            Ok(Target::Http {
                url: format!("{scheme}://{host}{path}"),
            })
        }
        Some(Handler::TcpSocket { host, port }) => {
            let port = resolve_port(port, container)?;
            Ok(Target::Tcp {
                addr: join_host_port(host.as_deref().unwrap_or(pod_ip), port),
            })
        }
        Some(Handler::Grpc { port, service }) => Ok(Target::Grpc {
            addr: join_host_port(pod_ip, *port),
            service: service.clone(),
        }),
    }
}

/// A gRPC health answer (`grpc.health.v1.HealthCheckResponse_ServingStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrpcStatus {
    Serving,
    NotServing,
    ServiceUnknown,
    Unknown,
    /// The server has no `grpc.health.v1.Health` service (code `Unimplemented`).
    Unimplemented,
}

/// What happened when the probe ran against the simulated container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The command exited with this code and printed this (stdout and stderr).
    Exec { exit_code: i32, output: String },
    /// The command did not finish within `timeoutSeconds`.
    ExecTimeout,
    /// The server answered with this HTTP status.
    Http { status: u16 },
    /// The gRPC server answered.
    Grpc(GrpcStatus),
    /// Nothing listens on the port.
    Refused,
    /// The connection or the answer took longer than `timeoutSeconds`.
    Timeout,
}

/// A probe's verdict and its output (`probe.Result` and the output string).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeResult {
    pub success: bool,
    pub output: String,
}

/// Turns a raw outcome into the verdict and output the upstream prober reports
/// (`pkg/probe/exec/exec.go`, `http/http.go`, `tcp/tcp.go`, `grpc/grpc.go`).
pub fn evaluate(target: &Target, timeout_seconds: i32, outcome: &Outcome) -> ProbeResult {
    let fail = |output: String| ProbeResult {
        success: false,
        output,
    };
    match (target, outcome) {
        (_, Outcome::Exec { exit_code, output }) => ProbeResult {
            success: *exit_code == 0,
            output: output.clone(),
        },
        (Target::Exec { command }, Outcome::ExecTimeout) => {
            // cri-client ExecSync: a DeadlineExceeded becomes this timeout error.
            fail(format!("command \"{}\" timed out", command.join(" ")))
        }
        (_, Outcome::ExecTimeout) => fail("command timed out".into()),
        (_, Outcome::Http { status }) if (200..400).contains(status) => ProbeResult {
            success: true,
            output: String::new(),
        },
        (_, Outcome::Http { status }) => {
            fail(format!("HTTP probe failed with statuscode: {status}"))
        }
        (Target::Http { url }, Outcome::Refused) => {
            fail(format!("Get \"{url}\": dial tcp {}: connect: connection refused", url_host(url)))
        }
        (Target::Http { url }, Outcome::Timeout) => fail(format!(
            "Get \"{url}\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
        )),
        (Target::Tcp { addr }, Outcome::Refused) => {
            fail(format!("dial tcp {addr}: connect: connection refused"))
        }
        (Target::Tcp { addr }, Outcome::Timeout) => fail(format!("dial tcp {addr}: i/o timeout")),
        (Target::Grpc { addr, .. }, Outcome::Refused | Outcome::Timeout) => fail(format!(
            "timeout: failed to connect service \"{addr}\" within {timeout_seconds}s: context deadline exceeded"
        )),
        (_, Outcome::Grpc(GrpcStatus::Serving)) => ProbeResult {
            success: true,
            output: "service healthy".into(),
        },
        (_, Outcome::Grpc(GrpcStatus::Unimplemented)) => fail(
            "error: this server does not implement the grpc health protocol (grpc.health.v1.Health): unknown service grpc.health.v1.Health".into(),
        ),
        (_, Outcome::Grpc(status)) => {
            let name = match status {
                GrpcStatus::NotServing => "NOT_SERVING",
                GrpcStatus::ServiceUnknown => "SERVICE_UNKNOWN",
                _ => "UNKNOWN",
            };
            fail(format!("service unhealthy (responded with \"{name}\")"))
        }
        (Target::Exec { .. }, Outcome::Refused | Outcome::Timeout) => {
            fail("command timed out".into())
        }
    }
}

/// `scheme://host:port/path` → `host:port`.
fn url_host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split('/').next().unwrap_or(rest)
}

/// The `Unhealthy` (Warning) event message of a failed probe:
/// `Liveness probe failed: HTTP probe failed with statuscode: 500`.
pub fn unhealthy_event(probe_type: ProbeType, result: &ProbeResult) -> Option<String> {
    (!result.success).then(|| format!("{} probe failed: {}", probe_type.as_str(), result.output))
}

/// The `Unhealthy` event when the kubelet could not run the probe (bad port, no handler);
/// the worker throws such results away.
pub fn errored_event(probe_type: ProbeType, error: &str) -> String {
    format!(
        "{} probe errored and resulted in unknown state: {error}",
        probe_type.as_str()
    )
}

/// What a recorded result changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition {
    /// Below a threshold, or the same result as before.
    None,
    /// Readiness turned to success: the container is ready.
    BecameReady,
    /// Readiness turned to failure: the container is not ready.
    BecameUnready,
    /// The startup probe succeeded: the container is started; liveness and readiness begin.
    StartupSucceeded,
    /// The startup probe failed `failureThreshold` times: kill and restart.
    StartupFailed,
    /// The liveness probe failed `failureThreshold` times: kill and restart.
    LivenessFailed,
}

/// One probe worker (`worker.go`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worker {
    pub probe_type: ProbeType,
    pub spec: Probe,
    /// When the worker started ticking (the pod was added to the prober manager).
    pub started_at: SimTime,
    /// The container the worker probes now (a new ID resets the result).
    container_id: Option<String>,
    /// The result manager's value: `None` is Unknown.
    result: Option<bool>,
    last_result: Option<bool>,
    result_run: i32,
    /// Failures in a row as of the last result recorded (0 after a success).
    failure_run: i32,
    on_hold: bool,
}

impl Worker {
    /// A worker for `spec` that starts ticking at `now`.
    pub fn new(probe_type: ProbeType, spec: Probe, now: SimTime) -> Worker {
        Worker {
            probe_type,
            spec,
            started_at: now,
            container_id: None,
            result: None,
            last_result: None,
            result_run: 0,
            failure_run: 0,
            on_hold: false,
        }
    }

    /// The value a new container starts with: readiness Failure, liveness Success,
    /// startup Unknown.
    fn initial_value(&self) -> Option<bool> {
        match self.probe_type {
            ProbeType::Readiness => Some(false),
            ProbeType::Liveness => Some(true),
            ProbeType::Startup => None,
        }
    }

    /// Failures in a row as of the last result recorded (0 after a success),
    /// the one that reached `failureThreshold` included.
    pub fn failures(&self) -> i32 {
        self.failure_run
    }

    /// The current result: `Some(true)` success, `Some(false)` failure, `None` unknown.
    pub fn result(&self) -> Option<bool> {
        self.result
    }

    /// The first tick at or after `after` (ticks are `started_at + k * period`).
    pub fn next_tick(&self, after: SimTime) -> SimTime {
        let period = self.spec.period_ms().max(1);
        let start = self.started_at.as_millis();
        let now = after.as_millis();
        if now <= start {
            return self.started_at;
        }
        let k = (now - start).div_ceil(period);
        SimTime(start + k * period)
    }

    /// A (new) container with `id` is running: a new ID resets the result to the
    /// initial value and lifts the hold.
    pub fn observe_container(&mut self, id: &str) {
        if self.container_id.as_deref() != Some(id) {
            self.container_id = Some(id.to_owned());
            self.result = self.initial_value();
            self.on_hold = false;
        }
    }

    /// The container is not running (`doProbe` on a non-running container): the
    /// result becomes Failure. Returns `BecameUnready` when a ready container stops.
    pub fn container_stopped(&mut self) -> Transition {
        if self.container_id.is_none() {
            return Transition::None;
        }
        let was = self.result.replace(false);
        if self.probe_type == ProbeType::Readiness && was == Some(true) {
            Transition::BecameUnready
        } else {
            Transition::None
        }
    }

    /// Whether a tick at `now` runs the probe, for a container running since
    /// `running_since` whose `started` flag (startup probe passed, or none) is given.
    pub fn due(&self, now: SimTime, running_since: Option<SimTime>, started: bool) -> bool {
        let Some(since) = running_since else {
            return false;
        };
        if self.on_hold {
            return false;
        }
        let ran_seconds = now.as_millis().saturating_sub(since.as_millis()) / 1000;
        if ran_seconds < u64::try_from(self.spec.initial_delay_seconds).unwrap_or(0) {
            return false;
        }
        // Startup runs until the container has started; the others only after.
        (self.probe_type == ProbeType::Startup) != started
    }

    /// Records one probe result (success or failure) and says what changed.
    pub fn record(&mut self, success: bool) -> Transition {
        if self.last_result == Some(success) {
            self.result_run += 1;
        } else {
            self.last_result = Some(success);
            self.result_run = 1;
        }
        self.failure_run = if success { 0 } else { self.result_run };
        let threshold = if success {
            self.spec.success_threshold
        } else {
            self.spec.failure_threshold
        };
        if self.result_run < threshold {
            return Transition::None;
        }
        let before = self.result.replace(success);
        if (self.probe_type == ProbeType::Liveness && !success)
            || self.probe_type == ProbeType::Startup
        {
            // Stop probing until a new container (worker.go: onHold, resultRun = 0).
            self.on_hold = true;
            self.result_run = 0;
        }
        match (self.probe_type, success) {
            (ProbeType::Readiness, true) if before != Some(true) => Transition::BecameReady,
            (ProbeType::Readiness, false) if before != Some(false) => Transition::BecameUnready,
            (ProbeType::Startup, true) => Transition::StartupSucceeded,
            (ProbeType::Startup, false) => Transition::StartupFailed,
            (ProbeType::Liveness, false) => Transition::LivenessFailed,
            _ => Transition::None,
        }
    }
}

/// `started` of a running container: it has no startup probe, or it passed.
pub fn is_started(startup: Option<&Worker>) -> bool {
    startup.is_none_or(|w| w.result() == Some(true))
}

/// `ready` of a running, started container: no readiness probe, or it passes.
pub fn is_ready(readiness: Option<&Worker>, started: bool) -> bool {
    started && readiness.is_none_or(|w| w.result() == Some(true))
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{
        ContainerPort, ExecAction, GRPCAction, HTTPGetAction, TCPSocketAction,
    };

    use super::*;

    fn container() -> Container {
        Container {
            name: "app".into(),
            ports: Some(vec![ContainerPort {
                name: Some("http".into()),
                container_port: 8080,
                ..ContainerPort::default()
            }]),
            ..Container::default()
        }
    }

    fn http(port: IntOrString, path: &str) -> ApiProbe {
        ApiProbe {
            http_get: Some(HTTPGetAction {
                port,
                path: Some(path.into()),
                ..HTTPGetAction::default()
            }),
            ..ApiProbe::default()
        }
    }

    #[test]
    fn defaults_and_handlers() {
        // pkg/apis/core/v1/defaults_test.go, TestSetDefaultProbe.
        let p = Probe::from_api(&ApiProbe {
            exec: Some(ExecAction {
                command: Some(vec!["cat".into(), "/tmp/healthy".into()]),
            }),
            initial_delay_seconds: Some(5),
            period_seconds: Some(5),
            ..ApiProbe::default()
        });
        assert_eq!(
            (
                p.initial_delay_seconds,
                p.period_seconds,
                p.timeout_seconds,
                p.success_threshold,
                p.failure_threshold
            ),
            (5, 5, 1, 1, 3)
        );
        assert_eq!(
            p.handler,
            Some(Handler::Exec {
                command: vec!["cat".into(), "/tmp/healthy".into()]
            })
        );
        assert_eq!(Probe::from_api(&ApiProbe::default()).handler, None);
    }

    #[test]
    fn targets() {
        // pkg/kubelet/prober/prober_test.go, TestFormatURL and TestFindPortByName.
        let c = container();
        let rows: Vec<(ApiProbe, Target)> = vec![
            (
                http(IntOrString::Int(8080), "/healthz"),
                Target::Http {
                    url: "http://10.244.1.5:8080/healthz".into(),
                },
            ),
            (
                http(IntOrString::String("http".into()), "healthz"),
                Target::Http {
                    url: "http://10.244.1.5:8080/healthz".into(),
                },
            ),
            (
                http(IntOrString::String("9090".into()), "/"),
                Target::Http {
                    url: "http://10.244.1.5:9090/".into(),
                },
            ),
            (
                ApiProbe {
                    tcp_socket: Some(TCPSocketAction {
                        port: IntOrString::Int(3306),
                        ..TCPSocketAction::default()
                    }),
                    ..ApiProbe::default()
                },
                Target::Tcp {
                    addr: "10.244.1.5:3306".into(),
                },
            ),
            (
                ApiProbe {
                    grpc: Some(GRPCAction {
                        port: 2379,
                        ..GRPCAction::default()
                    }),
                    ..ApiProbe::default()
                },
                Target::Grpc {
                    addr: "10.244.1.5:2379".into(),
                    service: String::new(),
                },
            ),
        ];
        for (api, want) in rows {
            assert_eq!(
                resolve(&Probe::from_api(&api), &c, "10.244.1.5"),
                Ok(want.clone())
            );
        }
        let bad = Probe::from_api(&http(IntOrString::String("metrics".into()), "/"));
        assert_eq!(
            resolve(&bad, &c, "10.244.1.5"),
            Err("strconv.Atoi: parsing \"metrics\": invalid syntax".into())
        );
        let zero = Probe::from_api(&http(IntOrString::Int(0), "/"));
        assert_eq!(
            resolve(&zero, &c, "10.244.1.5"),
            Err("invalid port number: 0".into())
        );
    }

    #[test]
    #[allow(clippy::too_many_lines)] // one row per outcome
    fn outcomes_and_event_messages() {
        // pkg/probe/http/http_test.go, tcp/tcp_test.go, grpc/grpc_test.go, exec/exec_test.go;
        // the event format of prober.go ("%s probe failed: %s").
        let url = Target::Http {
            url: "http://10.244.1.5:8080/healthz".into(),
        };
        let tcp = Target::Tcp {
            addr: "10.244.1.5:8080".into(),
        };
        let grpc = Target::Grpc {
            addr: "10.244.1.5:2379".into(),
            service: String::new(),
        };
        let exec = Target::Exec {
            command: vec!["cat".into(), "/tmp/healthy".into()],
        };
        let rows: Vec<(ProbeType, &Target, Outcome, Option<&str>)> = vec![
            (
                ProbeType::Liveness,
                &url,
                Outcome::Http { status: 200 },
                None,
            ),
            (
                ProbeType::Liveness,
                &url,
                Outcome::Http { status: 302 },
                None,
            ),
            (
                ProbeType::Readiness,
                &url,
                Outcome::Http { status: 500 },
                Some("Readiness probe failed: HTTP probe failed with statuscode: 500"),
            ),
            (
                ProbeType::Liveness,
                &url,
                Outcome::Refused,
                Some(
                    "Liveness probe failed: Get \"http://10.244.1.5:8080/healthz\": dial tcp 10.244.1.5:8080: connect: connection refused",
                ),
            ),
            (
                ProbeType::Liveness,
                &url,
                Outcome::Timeout,
                Some(
                    "Liveness probe failed: Get \"http://10.244.1.5:8080/healthz\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
                ),
            ),
            (
                ProbeType::Readiness,
                &tcp,
                Outcome::Refused,
                Some(
                    "Readiness probe failed: dial tcp 10.244.1.5:8080: connect: connection refused",
                ),
            ),
            (
                ProbeType::Startup,
                &tcp,
                Outcome::Timeout,
                Some("Startup probe failed: dial tcp 10.244.1.5:8080: i/o timeout"),
            ),
            (
                ProbeType::Liveness,
                &grpc,
                Outcome::Grpc(GrpcStatus::Serving),
                None,
            ),
            (
                ProbeType::Liveness,
                &grpc,
                Outcome::Grpc(GrpcStatus::NotServing),
                Some("Liveness probe failed: service unhealthy (responded with \"NOT_SERVING\")"),
            ),
            (
                ProbeType::Liveness,
                &grpc,
                Outcome::Refused,
                Some(
                    "Liveness probe failed: timeout: failed to connect service \"10.244.1.5:2379\" within 1s: context deadline exceeded",
                ),
            ),
            (
                ProbeType::Liveness,
                &exec,
                Outcome::Exec {
                    exit_code: 1,
                    output: "cat: can't open '/tmp/healthy': No such file or directory\n".into(),
                },
                Some(
                    "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n",
                ),
            ),
            (
                ProbeType::Liveness,
                &exec,
                Outcome::Exec {
                    exit_code: 0,
                    output: String::new(),
                },
                None,
            ),
            (
                ProbeType::Liveness,
                &exec,
                Outcome::ExecTimeout,
                Some("Liveness probe failed: command \"cat /tmp/healthy\" timed out"),
            ),
        ];
        for (kind, target, outcome, want) in rows {
            let result = evaluate(target, 1, &outcome);
            assert_eq!(
                unhealthy_event(kind, &result).as_deref(),
                want,
                "{outcome:?}"
            );
        }
        assert_eq!(
            errored_event(ProbeType::Liveness, "invalid port number: 0"),
            "Liveness probe errored and resulted in unknown state: invalid port number: 0"
        );
    }

    fn spec(success: i32, failure: i32, delay: i32) -> Probe {
        Probe {
            handler: None,
            initial_delay_seconds: delay,
            period_seconds: 10,
            timeout_seconds: 1,
            success_threshold: success,
            failure_threshold: failure,
        }
    }

    #[test]
    fn thresholds() {
        // worker_test.go, TestSuccessThreshold and TestFailureThreshold.
        let mut w = Worker::new(ProbeType::Readiness, spec(3, 3, 0), SimTime(0));
        w.observe_container("c1");
        assert_eq!(w.result(), Some(false), "readiness starts failed");
        let steps = [
            (true, Transition::None),
            (true, Transition::None),
            (true, Transition::BecameReady),
            (true, Transition::None),
            (false, Transition::None),
            (false, Transition::None),
            (false, Transition::BecameUnready),
            (false, Transition::None),
            (true, Transition::None),
        ];
        for (i, (success, want)) in steps.into_iter().enumerate() {
            assert_eq!(w.record(success), want, "step {i}");
        }
    }

    #[test]
    fn liveness_failure_holds_until_a_new_container() {
        // worker_test.go, TestOnHoldOnLivenessOrStartupCheckFailure.
        let mut w = Worker::new(ProbeType::Liveness, spec(1, 3, 0), SimTime(0));
        w.observe_container("c1");
        assert_eq!(w.result(), Some(true), "liveness starts passed");
        let running = Some(SimTime(0));
        assert!(w.due(SimTime(10_000), running, true));
        assert_eq!(w.record(false), Transition::None);
        assert_eq!(w.record(false), Transition::None);
        assert_eq!(w.record(false), Transition::LivenessFailed);
        assert!(!w.due(SimTime(40_000), running, true), "on hold");
        w.observe_container("c2");
        assert_eq!(w.result(), Some(true));
        assert!(w.due(SimTime(50_000), running, true));
        assert_eq!(w.record(false), Transition::None, "the run starts over");
    }

    #[test]
    fn startup_gates_the_others() {
        // worker_test.go, TestStartupProbeSuccessThreshold / TestStartupProbeDisabledByStarted.
        let mut startup = Worker::new(ProbeType::Startup, spec(1, 2, 0), SimTime(0));
        let liveness = Worker::new(ProbeType::Liveness, spec(1, 3, 0), SimTime(0));
        startup.observe_container("c1");
        let running = Some(SimTime(0));
        assert!(!is_started(Some(&startup)));
        assert!(startup.due(SimTime(0), running, false));
        assert!(!liveness.due(SimTime(0), running, false));
        assert_eq!(startup.record(false), Transition::None);
        assert_eq!(startup.record(true), Transition::StartupSucceeded);
        assert!(is_started(Some(&startup)));
        assert!(!startup.due(SimTime(10_000), running, true));
        assert!(liveness.due(SimTime(10_000), running, true));
        let mut failing = Worker::new(ProbeType::Startup, spec(1, 2, 0), SimTime(0));
        failing.observe_container("c1");
        failing.record(false);
        assert_eq!(failing.record(false), Transition::StartupFailed);
    }

    #[test]
    fn initial_delay_and_ticks() {
        // worker_test.go, TestInitialDelay.
        let w = Worker::new(ProbeType::Liveness, spec(1, 3, 15), SimTime(2_000));
        let running = Some(SimTime(3_000));
        assert!(!w.due(SimTime(12_000), running, true));
        assert!(!w.due(SimTime(17_999), running, true));
        assert!(w.due(SimTime(18_000), running, true));
        assert!(!w.due(SimTime(18_000), None, true), "not running");
        assert_eq!(w.next_tick(SimTime(0)), SimTime(2_000));
        assert_eq!(w.next_tick(SimTime(2_001)), SimTime(12_000));
        assert_eq!(w.next_tick(SimTime(12_000)), SimTime(12_000));
    }

    #[test]
    fn readiness_without_a_probe_and_stopped_containers() {
        assert!(is_ready(None, true));
        assert!(!is_ready(None, false));
        let mut w = Worker::new(ProbeType::Readiness, spec(1, 3, 0), SimTime(0));
        assert_eq!(w.container_stopped(), Transition::None);
        w.observe_container("c1");
        assert_eq!(w.record(true), Transition::BecameReady);
        assert!(is_ready(Some(&w), true));
        assert_eq!(w.container_stopped(), Transition::BecameUnready);
        assert!(!is_ready(Some(&w), true));
    }
}
