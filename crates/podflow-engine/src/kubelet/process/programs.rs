//! The programs of the image catalog that are not shell commands: servers
//! (listening on their ports), `pause`, agnhost's subcommands
//! (`test/images/agnhost/liveness/server.go`: `/healthz` answers 200 for the
//! first 10 s after start, then 500) and the two stress images
//! (`polinux/stress`: `--vm N --vm-bytes B` allocates at once;
//! `github.com/vishh/stress` `main.go`: `-mem-alloc-size` every
//! `-mem-alloc-sleep` until `-mem-total`), whose memory use the cgroup limit
//! ends with an OOM kill.

use crate::clock::parse_duration;

/// Resident memory of the small programs (approximate, what `kubectl top` shows).
pub const SHELL_MEMORY: u64 = 512 * 1024;
const PAUSE_MEMORY: u64 = 256 * 1024;
const SERVER_MEMORY: u64 = 4 * 1024 * 1024;
const AGNHOST_MEMORY: u64 = 8 * 1024 * 1024;
const STRESS_MEMORY: u64 = 1024 * 1024;
/// How long `stress --vm` takes to fill its buffer (it writes every page).
const STRESS_FILL_MS: u64 = 100;

/// A program the container runs that is not a shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// Listens on `ports` (any port with `any`); http 200 on any path, tcp open.
    Server { ports: Vec<u16>, any: bool },
    /// Runs until stopped.
    Pause,
    /// `agnhost liveness` (and the old `registry.k8s.io/liveness` `/server`).
    Liveness,
    /// `stress`.
    Stress(Stress),
}

/// What a stress program's arguments ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stress {
    /// vish/stress (Go): allocates step by step; polinux/stress (C): at once.
    pub stepwise: bool,
    /// Bytes to hold in the end.
    pub total: u64,
    /// Bytes per allocation, and the pause between allocations.
    pub step: u64,
    pub step_ms: u64,
    /// CPUs busied, in millicores.
    pub cpu_millis: u64,
    /// `--timeout`: exits 0 after this long.
    pub timeout_ms: Option<u64>,
    /// Workers of each kind, for polinux's first line.
    pub hogs: [u64; 4],
}

impl Program {
    /// Memory in use `elapsed` ms after start.
    pub fn memory(&self, elapsed: u64) -> u64 {
        match self {
            Program::Server { .. } => SERVER_MEMORY,
            Program::Pause => PAUSE_MEMORY,
            Program::Liveness => AGNHOST_MEMORY,
            Program::Stress(s) => STRESS_MEMORY + s.allocated(elapsed),
        }
    }

    /// When (ms after start) memory use next grows, after `elapsed`.
    pub fn next_growth(&self, elapsed: u64) -> Option<u64> {
        let Program::Stress(s) = self else {
            return None;
        };
        s.allocation_times().find(|&t| t > elapsed)
    }

    /// The first moment (ms after start) memory use exceeds `limit`.
    pub fn oom_at(&self, limit: u64) -> Option<u64> {
        match self {
            Program::Stress(s) => s
                .allocation_times()
                .find(|&t| STRESS_MEMORY + s.allocated(t) > limit),
            other => (other.memory(0) > limit).then_some(0),
        }
    }

    /// When (ms after start) the program exits by itself, with its status.
    pub fn exits_at(&self) -> Option<u64> {
        match self {
            Program::Stress(s) => s.timeout_ms,
            _ => None,
        }
    }

    /// The HTTP status a GET of `path` on `port` gets, `elapsed` ms after start.
    pub fn http(&self, port: u16, path: &str, elapsed: u64) -> Option<u16> {
        match self {
            Program::Server { ports, any } if *any || ports.contains(&port) => Some(200),
            Program::Liveness if port == 8080 => Some(match path.split('?').next() {
                Some("/healthz") if elapsed > 10_000 => 500,
                Some("/healthz" | "/started") => 200,
                _ => 404,
            }),
            _ => None,
        }
    }

    /// The status SIGTERM ends the program with; `None` when it ignores it
    /// (a PID 1 without a handler: the kernel drops the signal).
    pub fn on_sigterm(&self) -> Option<i32> {
        match self {
            // nginx, httpd, redis and pause catch SIGTERM and exit cleanly.
            Program::Server { .. } | Program::Pause => Some(0),
            // Go installs a SIGTERM handler that re-raises the signal with the
            // default action; PID 1 survives that, and the runtime exits 2.
            Program::Liveness => Some(2),
            Program::Stress(s) if s.stepwise => Some(2),
            Program::Stress(_) => None,
        }
    }

    /// CPU in use, in millicores.
    pub fn cpu_millis(&self) -> u64 {
        match self {
            Program::Stress(s) => s.cpu_millis,
            _ => 0,
        }
    }
}

impl Stress {
    /// Bytes allocated `elapsed` ms after start.
    fn allocated(&self, elapsed: u64) -> u64 {
        if self.stepwise {
            let steps = self.total.checked_div(self.step).unwrap_or(0);
            let done = (elapsed / self.step_ms.max(1) + 1).min(steps);
            done * self.step
        } else if elapsed >= STRESS_FILL_MS {
            self.total
        } else {
            0
        }
    }

    /// When (ms after start) each allocation happens.
    fn allocation_times(&self) -> Box<dyn Iterator<Item = u64> + '_> {
        if self.stepwise {
            let steps = self.total.checked_div(self.step).unwrap_or(0);
            Box::new((0..steps).map(|i| i * self.step_ms))
        } else if self.total > 0 {
            Box::new(std::iter::once(STRESS_FILL_MS))
        } else {
            Box::new(std::iter::empty())
        }
    }

    /// polinux/stress's first line.
    pub fn banner(&self) -> Option<String> {
        (!self.stepwise).then(|| {
            let [cpu, io, vm, hdd] = self.hogs;
            format!("stress: info: [1] dispatching hogs: {cpu} cpu, {io} io, {vm} vm, {hdd} hdd")
        })
    }
}

/// Reads polinux/stress's options (`--vm 1 --vm-bytes 150M --vm-hang 1 --cpu 2 --timeout 10s`).
pub fn polinux(args: &[String]) -> Stress {
    let mut s = Stress::default();
    let mut vm_bytes = 256 * 1024 * 1024;
    let mut iter = args.iter();
    while let Some(flag) = iter.next() {
        let value = match flag.as_str() {
            "--cpu" | "-c" | "--io" | "-i" | "--vm" | "-m" | "--hdd" | "-d" | "--vm-bytes"
            | "--timeout" | "-t" | "--vm-hang" | "--vm-stride" | "--hdd-bytes" | "--backoff" => {
                iter.next().cloned().unwrap_or_default()
            }
            _ => continue,
        };
        let count = value.parse::<u64>().unwrap_or(0);
        match flag.as_str() {
            "--cpu" | "-c" => s.hogs[0] = count,
            "--io" | "-i" => s.hogs[1] = count,
            "--vm" | "-m" => s.hogs[2] = count,
            "--hdd" | "-d" => s.hogs[3] = count,
            "--vm-bytes" => vm_bytes = stress_bytes(&value).unwrap_or(vm_bytes),
            "--timeout" | "-t" => s.timeout_ms = stress_seconds(&value).map(|secs| secs * 1000),
            _ => {}
        }
    }
    s.total = s.hogs[2].saturating_mul(vm_bytes);
    s.cpu_millis = s.hogs[0] * 1000;
    s
}

/// stress's byte counts: a number with `b`, `k`, `m` or `g` (powers of 1024).
fn stress_bytes(text: &str) -> Option<u64> {
    let (number, factor) = match text.chars().last()?.to_ascii_lowercase() {
        'b' => (&text[..text.len() - 1], 1),
        'k' => (&text[..text.len() - 1], 1 << 10),
        'm' => (&text[..text.len() - 1], 1 << 20),
        'g' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    number.parse::<u64>().ok()?.checked_mul(factor)
}

/// stress's durations: a number with `s`, `m`, `h`, `d` or `y`.
fn stress_seconds(text: &str) -> Option<u64> {
    let (number, factor) = match text.chars().last()? {
        's' => (&text[..text.len() - 1], 1),
        'm' => (&text[..text.len() - 1], 60),
        'h' => (&text[..text.len() - 1], 3600),
        'd' => (&text[..text.len() - 1], 86_400),
        'y' => (&text[..text.len() - 1], 31_536_000),
        _ => (text, 1),
    };
    number.parse::<u64>().ok()?.checked_mul(factor)
}

/// Reads vish/stress's Go flags (`-mem-total 150Mi -mem-alloc-size 10Mi -mem-alloc-sleep 1s -cpus 2`).
pub fn vish(args: &[String]) -> Stress {
    let mut s = Stress {
        stepwise: true,
        step: 4 * 1024,
        step_ms: 1,
        ..Stress::default()
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let flag = arg.trim_start_matches('-');
        let (name, value) = match flag.split_once('=') {
            Some((name, value)) => (name, value.to_string()),
            None => (flag, iter.next().cloned().unwrap_or_default()),
        };
        match name {
            "mem-total" => s.total = quantity(&value).unwrap_or(0),
            "mem-alloc-size" => s.step = quantity(&value).unwrap_or(s.step),
            "mem-alloc-sleep" => s.step_ms = parse_duration(&value).unwrap_or(s.step_ms),
            "cpus" => s.cpu_millis = value.parse::<u64>().unwrap_or(0) * 1000,
            _ => {}
        }
    }
    s
}

/// A Kubernetes quantity in bytes (`150Mi`, `1G`, `4096`).
fn quantity(text: &str) -> Option<u64> {
    const SUFFIXES: [(&str, u64); 8] = [
        ("Ki", 1 << 10),
        ("Mi", 1 << 20),
        ("Gi", 1 << 30),
        ("Ti", 1 << 40),
        ("k", 1_000),
        ("M", 1_000_000),
        ("G", 1_000_000_000),
        ("T", 1_000_000_000_000),
    ];
    for (suffix, factor) in SUFFIXES {
        if let Some(number) = text.strip_suffix(suffix) {
            return number.parse::<u64>().ok()?.checked_mul(factor);
        }
    }
    text.parse().ok()
}

/// agnhost's subcommands (`/agnhost liveness`, `netexec`, `pause`, …) and the
/// old liveness image's `/server`.
pub fn agnhost(argv: &[String]) -> Program {
    let name = argv
        .first()
        .map_or("", |a| a.rsplit('/').next().unwrap_or(a));
    let sub = if name == "server" {
        "liveness"
    } else {
        argv.get(1).map_or("", String::as_str)
    };
    let flag = |key: &str, default: u16| {
        argv.iter()
            .find_map(|a| a.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    match sub {
        "liveness" => Program::Liveness,
        "netexec" => Program::Server {
            ports: vec![flag("--http-port", 8080)],
            any: false,
        },
        "serve-hostname" => Program::Server {
            ports: vec![flag("--port", 9376)],
            any: false,
        },
        "test-webserver" => Program::Server {
            ports: vec![flag("--port", 80)],
            any: false,
        },
        _ => Program::Pause,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(text: &str) -> Vec<String> {
        text.split_whitespace().map(ToString::to_string).collect()
    }

    #[test]
    fn stress_uses_what_its_arguments_ask() {
        let mib = 1 << 20;
        let p = Program::Stress(polinux(&strings("--vm 1 --vm-bytes 150M --vm-hang 1")));
        assert_eq!(p.memory(0), STRESS_MEMORY);
        assert_eq!(p.memory(100), STRESS_MEMORY + 150 * mib);
        assert_eq!(p.oom_at(200 * mib), None);
        assert_eq!(p.oom_at(100 * mib), Some(100));
        let v = Program::Stress(vish(&strings(
            "-mem-total 150Mi -mem-alloc-size 10Mi -mem-alloc-sleep 1s",
        )));
        assert_eq!(v.memory(0), STRESS_MEMORY + 10 * mib);
        assert_eq!(v.memory(14_500), STRESS_MEMORY + 150 * mib);
        assert_eq!(v.next_growth(1000), Some(2000));
        assert_eq!(v.oom_at(100 * mib), Some(9000));
        assert_eq!(
            Program::Stress(vish(&strings("-cpus 2"))).cpu_millis(),
            2000
        );
    }

    /// `test/images/agnhost/liveness/server.go`: `duration.Seconds() > 10` is unhealthy.
    #[test]
    fn liveness_is_healthy_for_ten_seconds() {
        for (elapsed, path, port, code) in [
            (0, "/healthz", 8080, Some(200)),
            (10_000, "/healthz", 8080, Some(200)),
            (10_001, "/healthz", 8080, Some(500)),
            (20_000, "/started", 8080, Some(200)),
            (0, "/", 8080, Some(404)),
            (0, "/healthz", 80, None),
        ] {
            assert_eq!(
                Program::Liveness.http(port, path, elapsed),
                code,
                "{elapsed} {path}"
            );
        }
    }
}
