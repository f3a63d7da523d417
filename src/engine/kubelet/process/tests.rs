//! The Kubernetes documentation's example Pods, run as the pages say they
//! behave, plus the shell's semantics one table at a time.

use std::cell::RefCell;

use super::*;
use crate::scenario::image_catalog;

/// A cluster with the Services the test puts in it.
#[derive(Default)]
struct FakeWorld {
    services: RefCell<Vec<(String, String)>>,
}

impl FakeWorld {
    fn add(&self, name: &str, ip: &str) {
        self.services
            .borrow_mut()
            .push((name.to_string(), ip.to_string()));
    }
}

impl World for FakeWorld {
    fn lookup(&self, name: &str) -> Option<String> {
        let short = name.split('.').next().unwrap_or(name);
        let services = self.services.borrow();
        services
            .iter()
            .find(|(n, _)| n == short)
            .map(|(_, ip)| ip.clone())
    }

    fn http_get(&self, url: &str) -> Option<u16> {
        let host = url
            .trim_start_matches("http://")
            .split(['/', ':'])
            .next()
            .unwrap_or("");
        self.lookup(host)
            .map(|_| if url.ends_with("/missing") { 404 } else { 200 })
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(ToString::to_string).collect()
}

const NS_FILE: &str = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

fn start(
    image: &str,
    command: &[&str],
    args: &[&str],
    env: &[(&str, &str)],
    world: &FakeWorld,
) -> Process {
    start_limited(image, command, args, env, None, world)
}

fn start_limited(
    image: &str,
    command: &[&str],
    args: &[&str],
    env: &[(&str, &str)],
    limit: Option<u64>,
    world: &FakeWorld,
) -> Process {
    let catalog = image_catalog();
    let (command, args) = (strings(command), strings(args));
    let launch = Launch {
        image: catalog.lookup(image),
        command: &command,
        args: &args,
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect(),
        files: vec![(NS_FILE.to_string(), "default".to_string())],
        memory_limit_bytes: limit,
    };
    Process::start(launch, SimTime::ZERO, world)
}

fn secs(s: u64) -> SimTime {
    SimTime(s * 1000)
}

fn exited(code: i32, reason: &'static str) -> State {
    State::Exited { code, reason }
}

/// "Configure Liveness, Readiness and Startup Probes": exec-liveness.yaml.
#[test]
fn exec_liveness_example() {
    let world = FakeWorld::default();
    let mut p = start(
        "busybox:1.27.2",
        &[],
        &[
            "/bin/sh",
            "-c",
            "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600",
        ],
        &[],
        &world,
    );
    let probe = strings(&["cat", "/tmp/healthy"]);
    assert_eq!(p.next_wakeup(), Some(secs(30)));
    for (t, code, output) in [
        (5, 0, ""),
        (29, 0, ""),
        (
            30,
            1,
            "cat: can't open '/tmp/healthy': No such file or directory\n",
        ),
        (
            35,
            1,
            "cat: can't open '/tmp/healthy': No such file or directory\n",
        ),
    ] {
        let result = p.exec(&probe, secs(t), &world);
        assert_eq!(
            (result.code, result.output.as_str()),
            (code, output),
            "at {t}s"
        );
    }
    assert_eq!(p.next_wakeup(), Some(secs(630)));
    assert_eq!(p.advance(secs(630), &world), exited(0, "Completed"));
}

/// "Configure Liveness, Readiness and Startup Probes": http-liveness.yaml and tcp-liveness-readiness.yaml.
#[test]
fn http_and_tcp_liveness_examples() {
    let world = FakeWorld::default();
    let agnhost = start(
        "registry.k8s.io/e2e-test-images/agnhost:2.40",
        &[],
        &["liveness"],
        &[],
        &world,
    );
    assert_eq!(agnhost.http_get(8080, "/healthz", secs(3)), Some(200));
    assert_eq!(agnhost.http_get(8080, "/healthz", secs(10)), Some(200));
    assert_eq!(agnhost.http_get(8080, "/healthz", secs(11)), Some(500));
    assert_eq!(agnhost.next_wakeup(), None);
    let goproxy = start("registry.k8s.io/goproxy:0.1", &[], &[], &[], &world);
    assert!(goproxy.tcp_open(8080, secs(15)));
    assert!(!goproxy.tcp_open(8081, secs(15)));
    let nginx = start("nginx", &[], &[], &[], &world);
    assert_eq!(nginx.http_get(80, "/", secs(1)), Some(200));
    assert_eq!(nginx.state(), &State::Running);
}

/// "Init Containers": myapp.yaml waits with `until nslookup` for its Services (busybox:1.28).
#[test]
fn init_containers_example() {
    let world = FakeWorld::default();
    let script = "until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for myservice; sleep 2; done";
    let mut p = start("busybox:1.28", &["sh", "-c", script], &[], &[], &world);
    assert_eq!(p.next_wakeup(), Some(secs(2)));
    assert_eq!(p.advance(secs(6), &world), State::Running);
    assert_eq!(
        p.output()[..6],
        strings(&[
            "Server:    10.96.0.10",
            "Address 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local",
            "",
            "nslookup: can't resolve 'myservice.default.svc.cluster.local'",
            "waiting for myservice",
            "Server:    10.96.0.10",
        ])
    );
    world.add("myservice", "10.96.7.7");
    assert_eq!(p.advance(secs(7), &world), State::Running);
    assert_eq!(p.advance(secs(8), &world), exited(0, "Completed"));
    assert_eq!(p.finished_at(), Some(secs(8)));
    assert_eq!(
        p.output()[p.output().len() - 2..],
        strings(&[
            "Name:      myservice.default.svc.cluster.local",
            "Address 1: 10.96.7.7 myservice.default.svc.cluster.local",
        ])
    );
    let mut app = start(
        "busybox:1.28",
        &["sh", "-c", "echo The app is running! && sleep 3600"],
        &[],
        &[],
        &world,
    );
    assert_eq!(app.output(), ["The app is running!"]);
    assert_eq!(app.advance(secs(3599), &world), State::Running);
    assert_eq!(app.advance(secs(3600), &world), exited(0, "Completed"));
}

/// "Define a Command and Arguments for a Container": commands.yaml, the `$(MESSAGE)` env example and the loop.
#[test]
fn command_and_arguments_examples() {
    let world = FakeWorld::default();
    let env = [
        ("HOSTNAME", "command-demo"),
        ("KUBERNETES_PORT", "tcp://10.3.240.1:443"),
    ];
    let p = start(
        "debian",
        &["printenv"],
        &["HOSTNAME", "KUBERNETES_PORT"],
        &env,
        &world,
    );
    assert_eq!(p.output(), ["command-demo", "tcp://10.3.240.1:443"]);
    assert_eq!(p.state(), &exited(0, "Completed"));
    let p = start(
        "debian",
        &["/bin/echo"],
        &["$(MESSAGE)"],
        &[("MESSAGE", "hello world")],
        &world,
    );
    assert_eq!(p.output(), ["hello world"]);
    let mut p = start(
        "debian",
        &["/bin/sh"],
        &["-c", "while true; do echo hello; sleep 10;done"],
        &[],
        &world,
    );
    assert_eq!(p.advance(secs(35), &world), State::Running);
    assert_eq!(p.output(), ["hello", "hello", "hello", "hello"]);
    assert_eq!(p.output_times(), [secs(0), secs(10), secs(20), secs(30)]);
}

/// "Assign Memory Resources to Containers": memory-request-limit.yaml (150M under a 200Mi limit)
/// and memory-request-limit-2.yaml (250M over a 100Mi limit: `OOMKilled`).
#[test]
fn memory_examples() {
    let world = FakeWorld::default();
    let mib = 1 << 20;
    let mut fits = start_limited(
        "polinux/stress",
        &["stress"],
        &["--vm", "1", "--vm-bytes", "150M", "--vm-hang", "1"],
        &[],
        Some(200 * mib),
        &world,
    );
    assert_eq!(
        fits.output(),
        ["stress: info: [1] dispatching hogs: 0 cpu, 0 io, 1 vm, 0 hdd"]
    );
    assert_eq!(fits.advance(secs(60), &world), State::Running);
    assert!(fits.memory_bytes() > 150 * mib && fits.memory_bytes() < 200 * mib);
    let mut over = start_limited(
        "polinux/stress",
        &["stress"],
        &["--vm", "1", "--vm-bytes", "250M", "--vm-hang", "1"],
        &[],
        Some(100 * mib),
        &world,
    );
    assert_eq!(over.state(), &State::Running);
    let wake = over.next_wakeup().unwrap();
    assert_eq!(over.advance(wake, &world), exited(137, "OOMKilled"));
    let mut vish = start_limited(
        "vish/stress",
        &[],
        &[
            "-mem-total",
            "150Mi",
            "-mem-alloc-size",
            "10Mi",
            "-mem-alloc-sleep",
            "1s",
        ],
        &[],
        Some(100 * mib),
        &world,
    );
    assert_eq!(vish.advance(secs(8), &world), State::Running);
    assert_eq!(vish.advance(secs(20), &world), exited(137, "OOMKilled"));
    assert_eq!(vish.finished_at(), Some(secs(9)));
    let cpu = start("vish/stress", &[], &["-cpus", "2"], &[], &world);
    assert_eq!(cpu.cpu_millis(), 2000);
}

/// SIGTERM to PID 1: `sh`/`sleep` ignore it (SIGKILL after the grace period), servers exit 0.
#[test]
fn signals() {
    let world = FakeWorld::default();
    let mut sleeper = start("busybox", &["sleep", "3600"], &[], &[], &world);
    assert_eq!(sleeper.stop(Signal::Term, secs(1), &world), State::Running);
    assert_eq!(
        sleeper.stop(Signal::Kill, secs(31), &world),
        exited(137, "Error")
    );
    let mut nginx = start("nginx", &[], &[], &[], &world);
    assert_eq!(
        nginx.stop(Signal::Term, secs(1), &world),
        exited(0, "Completed")
    );
    assert!(!nginx.tcp_open(80, secs(2)));
    let mut agnhost = start(
        "registry.k8s.io/e2e-test-images/agnhost:2.40",
        &[],
        &["liveness"],
        &[],
        &world,
    );
    assert_eq!(
        agnhost.stop(Signal::Term, secs(1), &world),
        exited(2, "Error")
    );
}

/// Images without a command, and programs an image does not have.
#[test]
fn image_defaults() {
    let world = FakeWorld::default();
    assert_eq!(
        start("busybox", &[], &[], &[], &world).state(),
        &exited(0, "Completed")
    );
    assert_eq!(
        start("registry.k8s.io/pause:3.10", &[], &[], &[], &world).state(),
        &State::Running
    );
    let missing = start("busybox", &["/app/server"], &[], &[], &world);
    assert_eq!(missing.state(), &exited(128, "StartError"));
    assert!(
        missing
            .message()
            .unwrap()
            .contains("exec: \"/app/server\": executable file not found in $PATH")
    );
    let unknown = start("example.com/app:v1", &["/app/server"], &[], &[], &world);
    assert_eq!(unknown.state(), &State::Running);
}

/// Scripts: (script, output lines, final state) at 1 hour.
#[test]
fn shell_scripts() {
    check_scripts(&[
        ("exit 3", &[], exited(3, "Error")),
        (
            "false || echo recovered",
            &["recovered"],
            exited(0, "Completed"),
        ),
        ("true && false", &[], exited(1, "Error")),
        (
            "nosuch; echo $?",
            &["sh: nosuch: not found", "127"],
            exited(0, "Completed"),
        ),
        (
            "X=1; echo \"${X} ${Y:-none} $((X+41))\" '$X'",
            &["1 none 42 $X"],
            exited(0, "Completed"),
        ),
        (
            "for i in a b 'c d'; do echo $i; done",
            &["a", "b", "c d"],
            exited(0, "Completed"),
        ),
        (
            "i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo $i",
            &["3"],
            exited(0, "Completed"),
        ),
        (
            "if [ -f /nope ]; then echo yes; elif [ -n x ]; then echo elif; else echo no; fi",
            &["elif"],
            exited(0, "Completed"),
        ),
        (
            "echo hi > /tmp/f; echo there >> /tmp/f; cat /tmp/f",
            &["hi", "there"],
            exited(0, "Completed"),
        ),
        (
            "mkdir -p /data/x && touch /data/x/y && ls /data/x",
            &["y"],
            exited(0, "Completed"),
        ),
        ("echo -n a; echo b", &["ab"], exited(0, "Completed")),
        (
            "echo $(echo inner | grep inn)",
            &["inner"],
            exited(0, "Completed"),
        ),
        ("sh -c 'exit 4'; echo $?", &["4"], exited(0, "Completed")),
        (
            "cat /missing 2>/dev/null || echo gone",
            &["gone"],
            exited(0, "Completed"),
        ),
        ("while true; do :; done", &[], State::Running),
        ("sleep infinity", &[], State::Running),
        (
            "echo unterminated 'quote",
            &["sh: syntax error: unexpected end of file"],
            exited(2, "Error"),
        ),
        ("[ a = b ]", &[], exited(1, "Error")),
        ("test 3 -ge 2 -a ! -z x", &[], exited(0, "Completed")),
        (
            "for i in $(seq 1 3); do printf '%s-' $i; done; echo",
            &["1-2-3-"],
            exited(0, "Completed"),
        ),
        ("echo $HOME", &["/root"], exited(0, "Completed")),
        (
            "if true; then",
            &["sh: syntax error: unexpected end of file (expecting \"fi\")"],
            exited(2, "Error"),
        ),
    ]);
}

fn check_scripts(cases: &[(&str, &[&str], State)]) {
    let world = FakeWorld::default();
    world.add("web", "10.96.0.20");
    let env = [("HOSTNAME", "pod-a"), ("HOME", "/root")];
    for (script, lines, state) in cases {
        let mut p = start("busybox", &["sh", "-c", script], &[], &env, &world);
        assert_eq!(&p.advance(secs(3600), &world), state, "{script}");
        assert_eq!(p.output(), strings(lines), "{script}");
    }
}

/// The network and system tools: (script, output lines, final state).
#[test]
fn shell_tools() {
    check_scripts(&[
        (
            "wget -q -O- http://web && echo ok",
            &["ok"],
            exited(0, "Completed"),
        ),
        (
            "wget -q http://nothere",
            &["wget: bad address 'nothere'"],
            exited(1, "Error"),
        ),
        (
            "wget -q http://web/missing",
            &["wget: server returned error: HTTP/1.1 404 Not Found"],
            exited(1, "Error"),
        ),
        ("curl -s http://web:8080/", &[], exited(0, "Completed")),
        (
            "curl http://nothere",
            &["curl: (6) Could not resolve host: nothere"],
            exited(6, "Error"),
        ),
        (
            "date; hostname",
            &["Mon Nov 30 02:20:30 UTC 2026", "pod-a"],
            exited(0, "Completed"),
        ),
    ]);
}

/// A loop that never sleeps is busy, never a hang.
#[test]
fn busy_loops_stop_at_the_budget() {
    let world = FakeWorld::default();
    let mut p = start(
        "busybox",
        &[
            "sh",
            "-c",
            "until nslookup db >/dev/null; do :; done; echo found",
        ],
        &[],
        &[],
        &world,
    );
    assert!(p.is_busy());
    assert_eq!(p.next_wakeup(), None);
    world.add("db", "10.96.0.9");
    assert_eq!(p.advance(secs(1), &world), exited(0, "Completed"));
    assert_eq!(p.output(), ["found"]);
}
