//! The Kubernetes documentation's example Pods, run as the pages say they
//! behave, plus the shell's semantics one table at a time.

use std::cell::RefCell;

use super::*;
use podflow_scenario::image_catalog;

/// A cluster with the Services the test puts in it.
#[derive(Default)]
pub(super) struct FakeWorld {
    services: RefCell<Vec<(String, String)>>,
}

impl FakeWorld {
    pub(super) fn add(&self, name: &str, ip: &str) {
        self.services
            .borrow_mut()
            .push((name.to_string(), ip.to_string()));
    }
}

impl World for FakeWorld {
    fn lookup(&self, name: &str) -> Answer {
        let short = name.split('.').next().unwrap_or(name);
        let services = self.services.borrow();
        services
            .iter()
            .find(|(n, _)| n == short)
            .map_or(Answer::NoSuchName, |(_, ip)| Answer::Cluster(ip.clone()))
    }

    fn http_get(&self, url: &str) -> Option<u16> {
        let host = url
            .trim_start_matches("http://")
            .split(['/', ':'])
            .next()
            .unwrap_or("");
        self.lookup(host)
            .address()
            .map(|_| if url.ends_with("/missing") { 404 } else { 200 })
    }
}

pub(super) fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(ToString::to_string).collect()
}

const NS_FILE: &str = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

pub(super) fn start(
    image: &str,
    command: &[&str],
    args: &[&str],
    env: &[(&str, &str)],
    world: &dyn World,
) -> Process {
    start_limited(image, command, args, env, None, world)
}

fn start_limited(
    image: &str,
    command: &[&str],
    args: &[&str],
    env: &[(&str, &str)],
    limit: Option<u64>,
    world: &dyn World,
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
        dirs: Vec::new(),
        memory_limit_bytes: limit,
    };
    Process::start(launch, SimTime::ZERO, world)
}

pub(super) fn secs(s: u64) -> SimTime {
    SimTime(s * 1000)
}

pub(super) fn exited(code: i32, reason: &'static str) -> State {
    State::Exited { code, reason }
}

/// "Attach Handlers to Container Lifecycle Events": lifecycle-events.yaml's postStart exec in nginx,
/// and a script that ends by starting the image's server.
#[test]
fn lifecycle_and_scripted_server_examples() {
    let world = FakeWorld::default();
    let mut nginx = start("nginx", &[], &[], &[], &world);
    let hook = strings(&[
        "/bin/sh",
        "-c",
        "echo Hello from the postStart handler > /usr/share/message",
    ]);
    assert_eq!(nginx.exec(&hook, secs(1), &world).code, 0);
    let cat = nginx.exec(&strings(&["cat", "/usr/share/message"]), secs(2), &world);
    assert_eq!(cat.output, "Hello from the postStart handler\n");
    let script = "echo hi > /usr/share/nginx/html/index.html && nginx -g 'daemon off;'";
    let mut scripted = start("nginx", &["sh", "-c", script], &[], &[], &world);
    assert_eq!(scripted.advance(secs(60), &world), State::Running);
    assert_eq!(scripted.http_get(80, "/", secs(60)), Some(200));
    assert_eq!(
        scripted.stop(Signal::Term, secs(61), &world),
        exited(0, "Completed")
    );
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
    // The labels file has no final newline: the next `echo -en '\n\n'` ends its last line.
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

/// "Expose Pod Information to Containers Through Files" (dapi-volume.yaml) and
/// "Determine the Reason for Pod Failure" (termination.yaml).
#[test]
fn downward_api_and_termination_message_examples() {
    let world = FakeWorld::default();
    let catalog = image_catalog();
    let script = "while true; do if [[ -e /etc/podinfo/labels ]]; then echo -en '\\n\\n'; cat /etc/podinfo/labels; fi; if [[ -e /etc/podinfo/annotations ]]; then echo -en '\\n\\n'; cat /etc/podinfo/annotations; fi; sleep 5; done;";
    let command = strings(&["sh", "-c"]);
    let args = strings(&[script]);
    let launch = Launch {
        image: catalog.lookup("registry.k8s.io/busybox"),
        command: &command,
        args: &args,
        env: vec![],
        files: vec![(
            "/etc/podinfo/labels".into(),
            "cluster=\"test-cluster1\"\nrack=\"rack-22\"".into(),
        )],
        dirs: Vec::new(),
        memory_limit_bytes: None,
    };
    let mut p = Process::start(launch, SimTime::ZERO, &world);
    // The labels file has no final newline: the next `echo -en '\n\n'` ends its last line.
    assert_eq!(p.advance(secs(7), &world), State::Running);
    assert_eq!(
        p.output(),
        [
            "",
            "",
            "cluster=\"test-cluster1\"",
            "rack=\"rack-22\"",
            "",
            "cluster=\"test-cluster1\""
        ]
    );
    let mut t = start(
        "debian",
        &["/bin/sh"],
        &[
            "-c",
            "sleep 10 && echo Sleep expired > /dev/termination-log",
        ],
        &[],
        &world,
    );
    assert_eq!(t.next_wakeup(), Some(secs(10)));
    assert_eq!(t.advance(secs(10), &world), exited(0, "Completed"));
    assert_eq!(t.file("/dev/termination-log"), Some("Sleep expired\n"));
}
