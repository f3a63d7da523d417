//! The shell's semantics, one table at a time: (script, output lines, final state at 1 hour).

use super::State;
use super::tests::{FakeWorld, exited, secs, start, strings};
use crate::kubelet::dns::{Dns, NodeNet, Services};

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
        ("printf '%%\\n' a b", &["%"], exited(0, "Completed")),
        (
            "rm -r /root; cd; echo $?",
            &["sh: cd: can't cd to : No such file or directory", "2"],
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

/// Runs `script` in `image` on a node whose network is `net`, with no Services.
fn run_on(net: &NodeNet, image: &str, script: &str) -> (State, Vec<String>) {
    let services = Services::new();
    let world = Dns::new(&services, "default", net);
    let mut p = start(image, &["sh", "-c", script], &[], &[], &world);
    let state = p.advance(secs(3600), &world);
    (state, p.output().to_vec())
}

/// A cluster with internet access: `CoreDNS` forwards a public name to the
/// node's resolver (kubeadm's Corefile, `forward . /etc/resolv.conf`). The
/// Kubernetes docs' "Configure Pod Initialization" init container fetches
/// `http://info.cern.ch`; "Debugging DNS Resolution" runs `nslookup`.
/// Special-use names (RFC 6761) fail as busybox and curl say; cut off
/// (`Simulation` `internet: false`), `CoreDNS` answers `SERVFAIL`.
#[test]
fn public_names_resolve_through_coredns() {
    let net = NodeNet::default();
    let ip = podflow_scenario::public_address("kubernetes.io");
    let ok = exited(0, "Completed");
    let cases: [(&str, &str, State, Vec<String>); 7] = [
        (
            "busybox:1.36",
            "wget -q -O- http://info.cern.ch && echo fetched",
            ok.clone(),
            strings(&["fetched"]),
        ),
        (
            "busybox:1.36",
            "nslookup kubernetes.io",
            ok.clone(),
            strings(&[
                "Server:\t\t10.96.0.10",
                "Address:\t10.96.0.10:53",
                "",
                "Non-authoritative answer:",
                "Name:\tkubernetes.io",
                &format!("Address: {ip}"),
                "",
            ]),
        ),
        (
            "busybox:1.28",
            "nslookup kubernetes.io",
            ok.clone(),
            strings(&[
                "Server:    10.96.0.10",
                "Address 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local",
                "",
                "Name:      kubernetes.io",
                &format!("Address 1: {ip}"),
            ]),
        ),
        (
            "busybox:1.36",
            "wget -q http://nothere.example",
            exited(1, "Error"),
            strings(&["wget: bad address 'nothere.example'"]),
        ),
        (
            "busybox:1.36",
            "nslookup registry.invalid",
            exited(1, "Error"),
            strings(&[
                "Server:\t\t10.96.0.10",
                "Address:\t10.96.0.10:53",
                "",
                "** server can't find registry.invalid: NXDOMAIN",
                "",
                "** server can't find registry.invalid: NXDOMAIN",
                "",
            ]),
        ),
        (
            "busybox:1.28",
            "nslookup a.test",
            exited(1, "Error"),
            strings(&[
                "Server:    10.96.0.10",
                "Address 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local",
                "",
                "nslookup: can't resolve 'a.test'",
            ]),
        ),
        (
            "busybox:1.36",
            "curl -sS http://a.test/",
            exited(6, "Error"),
            strings(&["curl: (6) Could not resolve host: a.test"]),
        ),
    ];
    for (image, script, state, lines) in &cases {
        assert_eq!(
            &run_on(&net, image, script),
            &(state.clone(), lines.clone()),
            "{image} {script}"
        );
    }
}

/// The same cluster cut off (`Simulation` `internet: false`): `CoreDNS`'s
/// forward reaches no upstream and answers `SERVFAIL`.
#[test]
fn a_cluster_without_internet_cannot_resolve_public_names() {
    let net = NodeNet {
        offline: true,
        ..NodeNet::default()
    };
    for (image, script, state, lines) in [
        (
            "busybox:1.36",
            "wget -q http://info.cern.ch",
            exited(1, "Error"),
            strings(&["wget: bad address 'info.cern.ch'"]),
        ),
        (
            "busybox:1.36",
            "nslookup kubernetes.io",
            exited(1, "Error"),
            strings(&[
                "Server:\t\t10.96.0.10",
                "Address:\t10.96.0.10:53",
                "",
                "** server can't find kubernetes.io: SERVFAIL",
                "",
                "** server can't find kubernetes.io: SERVFAIL",
                "",
            ]),
        ),
        (
            "busybox:1.36",
            "curl -sS https://kubernetes.io/",
            exited(6, "Error"),
            strings(&["curl: (6) Could not resolve host: kubernetes.io"]),
        ),
    ] {
        assert_eq!(
            run_on(&net, image, script),
            (state, lines),
            "offline: {image} {script}"
        );
    }
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
