//! What a simulated container does over simulated time (docs/cluster-files.md, "How
//! containers behave"): the kubelet [`Process::start`]s it with the argv the
//! image and the Pod give it, [`Process::advance`]s it to each moment it
//! wakes, probes it ([`Process::exec`], [`Process::http_get`],
//! [`Process::tcp_open`]) and [`Process::stop`]s it.
//!
//! A program that is a shell command (`sh -c …`, `sleep 3600`, `printenv`)
//! runs in the small shell of [`shell`]; the catalog's other programs
//! (servers, pause, agnhost, stress) are in [`programs`].
//!
//! Busy loops: a script that runs [`shell::BUDGET`] commands in one advance
//! without sleeping is "busy" — it stays `Running`, [`Process::next_wakeup`] is
//! `None`, and it continues on the next advance (the kubelet should advance it
//! when the world it polls changes, e.g. a Service appears).
//!
//! SIGTERM and PID 1: the kernel delivers a signal to a namespace's PID 1 only
//! when it has a handler. `sh` (and a bare `sleep`) install none, so SIGTERM is
//! ignored and the container runs until the grace period's SIGKILL (137) — the
//! familiar 30 s wait when deleting a busybox Pod. Servers and pause exit 0;
//! Go programs (agnhost, vish/stress) re-raise the signal, survive it as PID 1
//! and exit 2.

pub mod command;
pub mod fs;
pub mod log;
pub mod programs;
pub mod shell;

#[cfg(test)]
mod script_tests;
#[cfg(test)]
mod tests;

use self::fs::Fs;
use self::log::Log;
use self::programs::{Program, SHELL_MEMORY};
use self::shell::{Run, Shell, Sys};
use crate::clock::SimTime;
use podflow_scenario::{Behaviour, ImageInfo};

/// What the kubelet hands the runtime to start a container.
pub struct Launch<'a> {
    /// The catalog entry (`None`: an unknown image: shell commands run as in a
    /// shell image, any other program runs until stopped).
    pub image: Option<&'a ImageInfo>,
    /// `container.command` (replaces ENTRYPOINT).
    pub command: &'a [String],
    /// `container.args` (replaces CMD).
    pub args: &'a [String],
    /// The environment, resolved by the kubelet (Pod env, service variables, downward API).
    pub env: Vec<(String, String)>,
    /// Mounted files: path and contents (service-account token files etc.).
    pub files: Vec<(String, String)>,
    /// Directories besides the image's: the volumes' mount points.
    pub dirs: Vec<String>,
    /// `resources.limits.memory`.
    pub memory_limit_bytes: Option<u64>,
}

/// What cluster DNS answers for a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A Service's address, from `CoreDNS`'s `kubernetes` plugin (authoritative).
    Cluster(String),
    /// A public name's address, forwarded to the node's resolver (not authoritative).
    Public(String),
    /// `NXDOMAIN`: no such name.
    NoSuchName,
    /// `SERVFAIL`: `CoreDNS` could not reach the resolver it forwards to.
    ServerFailure,
}

impl Answer {
    /// The address, when the name resolved.
    pub fn address(&self) -> Option<&str> {
        match self {
            Answer::Cluster(ip) | Answer::Public(ip) => Some(ip),
            Answer::NoSuchName | Answer::ServerFailure => None,
        }
    }
}

/// What the cluster answers from inside a container.
pub trait World {
    /// Cluster DNS: a Service's name (`name`, `name.ns`,
    /// `name.ns.svc.cluster.local`) to its `ClusterIP`; a public name through
    /// `CoreDNS`'s `forward`.
    fn lookup(&self, name: &str) -> Answer;
    /// An HTTP GET of `url`: the status code, `None` when the connection is refused.
    fn http_get(&self, url: &str) -> Option<u16>;
}

/// A container's state, as the kubelet reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    Running,
    /// `reason`: `Completed` (0), `Error` (non-zero), `OOMKilled` (137) or
    /// `StartError` (128: the program does not exist in the image).
    Exited {
        code: i32,
        reason: &'static str,
    },
}

/// A signal the kubelet sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    Term,
    Kill,
}

/// The result of `kubectl exec` or an exec probe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecResult {
    pub code: i32,
    pub output: String,
    /// How long the command ran, in simulated ms (the sum of its sleeps).
    pub took_ms: u64,
}

#[derive(Clone, Debug)]
enum Kind {
    Shell(Box<Shell>),
    Program(Program),
}

/// A running (or exited) container's program.
#[derive(Clone, Debug)]
pub struct Process {
    kind: Kind,
    fs: Fs,
    env: Vec<(String, String)>,
    log: Log,
    started: SimTime,
    /// How far the program has run.
    clock: SimTime,
    state: State,
    finished: Option<SimTime>,
    message: Option<String>,
    memory_limit: Option<u64>,
    /// The memory in use when the limit was crossed (an OOM kill).
    oom_bytes: Option<u64>,
    old_busybox: bool,
    wake: Option<SimTime>,
    busy: bool,
    /// The image's ports and own programs (a script may start the server).
    ports: Vec<u16>,
    programs: Vec<String>,
    /// A SIGTERM the kubelet will send at this moment (after a `preStop` `sleep`).
    pending_term: Option<SimTime>,
}

const SHELLS: [&str; 4] = ["sh", "bash", "ash", "dash"];

impl Process {
    /// Starts the container's program at `now` and runs it up to `now`.
    pub fn start(launch: Launch<'_>, now: SimTime, world: &dyn World) -> Process {
        let argv = command::argv(launch.image, launch.command, launch.args, &launch.env);
        let behaviour = launch.image.map(|i| i.behaviour);
        let old_busybox = launch
            .image
            .is_some_and(|i| i.name.contains("busybox:1.2") || i.name.contains("busybox:1.1"));
        let mut process = Process {
            kind: Kind::Program(Program::Pause),
            fs: Fs::new(launch.files),
            env: launch.env,
            log: Log::default(),
            started: now,
            clock: now,
            state: State::Running,
            finished: None,
            message: None,
            memory_limit: launch.memory_limit_bytes,
            oom_bytes: None,
            old_busybox,
            wake: None,
            busy: false,
            ports: Vec::new(),
            programs: Vec::new(),
            pending_term: None,
        };
        let name = argv
            .first()
            .map_or("", |a| a.rsplit('/').next().unwrap_or(a));
        let ports = launch.image.map(|i| i.ports.clone()).unwrap_or_default();
        for dir in &launch.dirs {
            let _ = process.fs.mkdir(dir, true);
        }
        for (image, dir) in [
            ("nginx", "/usr/share/nginx/html"),
            ("httpd", "/usr/local/apache2/htdocs"),
        ] {
            if launch.image.is_some_and(|i| i.name.contains(image)) {
                let _ = process.fs.mkdir(dir, true);
            }
        }
        if behaviour == Some(Behaviour::Server) {
            process.ports.clone_from(&ports);
            let image = launch
                .image
                .map(|i| [i.entrypoint.first(), i.command.first()]);
            process.programs = image
                .into_iter()
                .flatten()
                .flatten()
                .map(|p| p.rsplit('/').next().unwrap_or(p).to_string())
                .collect();
        }
        let shell_command = SHELLS.contains(&name) || shell::builtins::KNOWN.contains(&name);
        process.kind = match (behaviour, name) {
            (Some(Behaviour::Shell), "") => {
                process.finish(0, now);
                return process;
            }
            (_, "") if behaviour != Some(Behaviour::Server) => Kind::Program(Program::Pause),
            (Some(Behaviour::Stress), _) | (None, "stress") => {
                let go_flags = launch.image.is_some_and(|i| i.name.contains("/vish/"))
                    || argv
                        .iter()
                        .any(|a| a.starts_with("-mem-") || a.starts_with("-cpus"));
                let parse = if go_flags {
                    programs::vish
                } else {
                    programs::polinux
                };
                Kind::Program(Program::Stress(parse(&argv[1..])))
            }
            (Some(Behaviour::Agnhost), "agnhost" | "server") => {
                Kind::Program(programs::agnhost(&argv))
            }
            _ if shell_command => {
                let mut sh = Shell::new(&process.env, if name == "bash" { "bash" } else { "sh" });
                sh.push_argv(&argv);
                Kind::Shell(Box::new(sh))
            }
            (Some(Behaviour::Shell), _) => {
                process.message = Some(format!(
                    "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: \"{}\": executable file not found in $PATH: unknown",
                    argv[0]
                ));
                process.exit(128, "StartError", now);
                return process;
            }
            (Some(Behaviour::Server), _) => Kind::Program(Program::Server { ports, any: false }),
            (Some(Behaviour::Pause), _) => Kind::Program(Program::Pause),
            _ => Kind::Program(Program::Server { ports, any: true }),
        };
        if let Kind::Program(Program::Stress(s)) = &process.kind
            && let Some(banner) = s.banner()
        {
            process.log.write(now, &format!("{banner}\n"));
        }
        process.advance(now, world);
        process
    }

    /// Runs the program up to `now`.
    pub fn advance(&mut self, now: SimTime, world: &dyn World) -> State {
        if let Some(at) = self.pending_term.filter(|at| *at <= now) {
            self.pending_term = None;
            self.stop(Signal::Term, at, world);
        }
        if self.state != State::Running || now < self.clock {
            return self.state.clone();
        }
        match &mut self.kind {
            Kind::Shell(sh) => {
                let mut sys = Sys {
                    fs: &mut self.fs,
                    world,
                    now: self.clock,
                    log: &mut self.log,
                    capture: None,
                    budget: shell::BUDGET,
                    old_busybox: self.old_busybox,
                    programs: &self.programs,
                    stop_server: false,
                };
                let run = sh.run(&mut sys, Some(now));
                let stopped_at = sys.now;
                self.busy = run == Run::Busy;
                self.wake = None;
                match run {
                    Run::Sleeping(wake) => self.wake = wake,
                    Run::Exited(code) => return self.finish(code, stopped_at),
                    Run::Busy => {}
                }
            }
            Kind::Program(program) => {
                let elapsed = now.as_millis().saturating_sub(self.started.as_millis());
                let oom = self.memory_limit.and_then(|limit| program.oom_at(limit));
                let exit = program.exits_at();
                let growth = self.memory_limit.and_then(|_| program.next_growth(elapsed));
                if let Some(t) = oom.filter(|t| *t <= elapsed && exit.is_none_or(|e| *t < e)) {
                    self.oom_bytes = Some(program.memory(t));
                    return self.exit(137, "OOMKilled", self.started.plus(t));
                }
                if let Some(t) = exit.filter(|t| *t <= elapsed) {
                    let at = self.started.plus(t);
                    let line = format!(
                        "stress: info: [1] successful run completed in {}s\n",
                        t / 1000
                    );
                    self.log.write(at, &line);
                    return self.finish(0, at);
                }
                let next = [growth, exit].into_iter().flatten().min();
                self.wake = next.map(|t| self.started.plus(t));
            }
        }
        self.clock = now;
        self.state.clone()
    }

    fn finish(&mut self, code: i32, at: SimTime) -> State {
        let reason = if code == 0 { "Completed" } else { "Error" };
        self.exit(code, reason, at)
    }

    fn exit(&mut self, code: i32, reason: &'static str, at: SimTime) -> State {
        self.log.flush(at);
        self.clock = self.clock.max(at);
        self.state = State::Exited { code, reason };
        self.finished = Some(at);
        self.wake = None;
        self.busy = false;
        self.state.clone()
    }

    /// When the program next does something by itself (the end of a sleep, a
    /// step of memory growth); `None` when blocked, busy or exited.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        let next = match (self.wake, self.pending_term) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        next.filter(|_| self.state == State::Running)
    }

    /// The kubelet will send SIGTERM at `at` (it runs a `preStop` `sleep` first):
    /// the signal arrives when the process is advanced past `at`.
    pub fn term_at(&mut self, at: SimTime) {
        self.pending_term = Some(at);
    }

    /// Whether the last advance ended in a loop that never sleeps.
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// `kubectl exec`, an exec probe or hook: runs `argv` in the container's
    /// file system and environment, to its end; the result says how long its
    /// sleeps took (the caller decides whether that time passes).
    pub fn exec(&mut self, argv: &[String], now: SimTime, world: &dyn World) -> ExecResult {
        self.advance(now, world);
        if self.state != State::Running {
            return ExecResult {
                code: 126,
                output: "OCI runtime exec failed: exec failed: cannot exec in a stopped container: unknown".into(),
                took_ms: 0,
            };
        }
        let name = argv
            .first()
            .map_or("", |a| a.rsplit('/').next().unwrap_or(a));
        if !SHELLS.contains(&name)
            && !shell::builtins::KNOWN.contains(&name)
            && !self.programs.iter().any(|p| p == name)
        {
            return ExecResult {
                code: 126,
                output: format!(
                    "OCI runtime exec failed: exec failed: unable to start container process: exec: \"{}\": executable file not found in $PATH: unknown",
                    argv.first().map_or("", String::as_str)
                ),
                took_ms: 0,
            };
        }
        let mut sh = Shell::new(&self.env, "sh");
        sh.push_argv(argv);
        let mut log = Log::default();
        let mut sys = Sys {
            fs: &mut self.fs,
            world,
            now,
            log: &mut log,
            capture: None,
            budget: shell::BUDGET,
            old_busybox: self.old_busybox,
            programs: &self.programs,
            stop_server: false,
        };
        let code = match sh.run(&mut sys, None) {
            Run::Exited(code) => code,
            Run::Sleeping(_) | Run::Busy => 1,
        };
        let (stop_server, finished) = (sys.stop_server, sys.now);
        if stop_server && self.term_code() == Some(0) {
            // `nginx -s quit`: the master finishes its requests and exits 0.
            self.finish(0, now);
        }
        let took_ms = finished.as_millis().saturating_sub(now.as_millis());
        ExecResult {
            code,
            output: log.text(),
            took_ms,
        }
    }

    /// An httpGet probe: the status, `None` when the connection is refused.
    pub fn http_get(&self, port: u16, path: &str, now: SimTime) -> Option<u16> {
        match (&self.state, &self.kind) {
            (State::Running, Kind::Program(p)) => p.http(port, path, self.elapsed(now)),
            (State::Running, Kind::Shell(sh)) if sh.serving => {
                Some(200).filter(|_| self.ports.contains(&port))
            }
            _ => None,
        }
    }

    /// A tcpSocket probe: whether something listens on `port`.
    pub fn tcp_open(&self, port: u16, now: SimTime) -> bool {
        self.http_get(port, "/", now).is_some()
    }

    fn elapsed(&self, now: SimTime) -> u64 {
        now.as_millis().saturating_sub(self.started.as_millis())
    }

    /// Memory in use now.
    pub fn memory_bytes(&self) -> u64 {
        match (&self.state, &self.kind) {
            (State::Exited { .. }, _) => 0,
            (_, Kind::Shell(_)) => SHELL_MEMORY,
            (_, Kind::Program(p)) => p.memory(self.elapsed(self.clock)),
        }
    }

    /// Memory in use at `now` (at or after the process's own clock), without
    /// running it: what the summary API would report.
    pub fn memory_bytes_at(&self, now: SimTime) -> u64 {
        match (&self.state, &self.kind) {
            (State::Exited { .. }, _) => 0,
            (_, Kind::Shell(_)) => SHELL_MEMORY,
            (_, Kind::Program(p)) => p.memory(self.elapsed(now.max(self.clock))),
        }
    }

    /// CPU in use now, in millicores.
    pub fn cpu_millis(&self) -> u64 {
        match (&self.state, &self.kind) {
            (State::Running, Kind::Program(p)) => p.cpu_millis(),
            (State::Running, Kind::Shell(_)) if self.busy => 1000,
            _ => 0,
        }
    }

    /// The output lines so far (`kubectl logs`).
    pub fn output(&self) -> &[String] {
        self.log.lines()
    }

    /// For an OOM kill: the bytes in use that crossed the limit, and the limit.
    pub fn oom(&self) -> Option<(u64, u64)> {
        self.oom_bytes.zip(self.memory_limit)
    }

    /// The output lines so far, each with the moment it was written.
    pub fn output_lines(&self) -> Vec<(SimTime, String)> {
        self.output_times()
            .iter()
            .copied()
            .zip(self.output().iter().cloned())
            .collect()
    }

    /// When each output line was written.
    pub fn output_times(&self) -> &[SimTime] {
        self.log.times()
    }

    /// The state after the last advance.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// When the program exited.
    pub fn finished_at(&self) -> Option<SimTime> {
        self.finished
    }

    /// The runtime's message for a `StartError`.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// The contents of a file in the container (`/dev/termination-log`, a shared volume).
    pub fn file(&self, path: &str) -> Option<&str> {
        self.fs.read(path).ok()
    }

    /// Sends a signal at `now` (after running the program up to `now`).
    pub fn stop(&mut self, signal: Signal, now: SimTime, world: &dyn World) -> State {
        self.advance(now, world);
        if self.state != State::Running {
            return self.state.clone();
        }
        let code = match signal {
            Signal::Kill => Some(137),
            Signal::Term => self.term_code(),
        };
        if let Some(code) = code {
            self.finish(code, now);
        }
        self.state.clone()
    }

    /// The status SIGTERM ends the program with (`None`: it ignores it).
    fn term_code(&self) -> Option<i32> {
        match &self.kind {
            Kind::Program(p) => p.on_sigterm(),
            Kind::Shell(sh) => sh.serving.then_some(0),
        }
    }
}
