//! The diagram read back as Mermaid's sequence grammar reads it
//! (mermaid-js `packages/mermaid/src/diagrams/sequence/parser/sequenceDiagram.jison`:
//! a message's text is `[^#\n;]+`, so `;` and `#` may appear only as entity
//! codes): every line is a declaration, an arrow between declared
//! participants or a note over one; no raw `;`, `#`, `<` or `>` in a text.

use crate::trace::Actor;

use super::*;
use crate::testing::{nginx_timeline, timeline};

fn diagram(records: &[TraceRecord]) -> String {
    let mut out = Vec::new();
    write(&mut out, records).expect("writing to memory");
    String::from_utf8(out).expect("the diagram is UTF-8")
}

/// Whether a message or note text reads as Mermaid text: only entity codes
/// carry `#` and `;`, and nothing is HTML.
fn text_is_safe(text: &str) -> bool {
    let mut rest = text;
    while let Some(i) = rest.find(['#', ';']) {
        let code = &rest[i..];
        let Some(end) = code.find(';') else {
            return false;
        };
        let digits = &code[1..end];
        if !code.starts_with('#')
            || digits.is_empty()
            || !digits.chars().all(|c| c.is_ascii_digit())
        {
            return false;
        }
        rest = &code[end + 1..];
    }
    !text.contains(['<', '>', '\n'])
}

/// Checks the diagram's structure; returns the declared participants' names.
fn check(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("sequenceDiagram"));
    let mut ids: Vec<String> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for line in lines {
        let line = line.trim();
        assert_eq!(line, line.trim_end(), "no trailing space");
        if let Some(decl) = line.strip_prefix("participant ") {
            let (id, name) = decl.split_once(" as ").unwrap_or((decl, decl));
            assert!(
                id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "{line}"
            );
            assert!(text_is_safe(name), "{line}");
            ids.push(id.to_owned());
            names.push(name.to_owned());
            continue;
        }
        if let Some(note) = line.strip_prefix("Note over ") {
            let (who, text) = note.split_once(": ").expect("a note has text");
            assert!(ids.iter().any(|i| i == who), "{who} undeclared: {line}");
            assert!(text_is_safe(text), "{line}");
            continue;
        }
        let (arrow, text) = line.split_once(": ").expect("an arrow has text");
        let (from, to) = arrow
            .split_once("-->>")
            .or_else(|| arrow.split_once("->>"))
            .unwrap_or_else(|| panic!("not an arrow: {line}"));
        for end in [from, to] {
            assert!(ids.iter().any(|i| i == end), "{end} undeclared: {line}");
        }
        assert!(text_is_safe(text), "{line}");
    }
    names
}

#[test]
fn participants_come_in_the_seeds_order() {
    let t = timeline(
        &[&format!(
            "apply -f {}",
            crate::testing::fixture("web-deployment.yaml")
        )],
        None,
    );
    let names = check(&diagram(t.records()));
    let order: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !n.contains('/') || n.starts_with("kubelet/"))
        .collect();
    let first_kubelet = order.iter().position(|n| n.starts_with("kubelet/"));
    assert_eq!(
        &order[..5],
        [
            "kubectl",
            "kube-apiserver",
            "etcd",
            "kube-controller-manager",
            "kube-scheduler"
        ],
        "{names:?}"
    );
    assert_eq!(first_kubelet, Some(5), "{names:?}");
    assert_eq!(names.last().map(String::as_str), Some("registry"));
    // Each node's parts stay together: kubelet, containerd, cni.
    let node = names.iter().position(|n| n == "kubelet/node-3");
    if let Some(i) = node {
        assert_eq!(names[i + 1], "containerd/node-3", "{names:?}");
    }
}

#[test]
fn the_nginx_story_is_a_valid_diagram() {
    let text = diagram(nginx_timeline().records());
    let names = check(&text);
    assert_eq!(names[..3], ["kubectl", "kube-apiserver", "etcd"]);
    assert!(text.contains("    kubectl->>apiserver: POST /api/v1/namespaces/default/pods\n"));
    assert!(text.contains("    apiserver-->>kubectl: 201 Created\n"));
    assert!(text.contains("    Note over apiserver: admission ServiceAccount: mutate\n"));
    insta::assert_snapshot!("nginx_mermaid", text);
}

#[test]
fn text_is_escaped_as_mermaid_requires() {
    let table = [
        ("plain text", "plain text"),
        ("a; b", "a#59; b"),
        ("issue #12", "issue #35;12"),
        ("<none>", "#60;none#62;"),
        ("50% & more", "50#37; #38; more"),
        ("two\nlines", "two lines"),
        ("容器 nginx", "容器 nginx"),
    ];
    for (text, want) in table {
        assert_eq!(escape(text), want, "{text}");
        assert!(text_is_safe(&escape(text)), "{text}");
    }
    let record = |seq, body| TraceRecord { seq, t_ms: 0, body };
    let records = [
        record(
            0,
            Record::message(Actor::Kubectl, Actor::ApiServer, "set a; b #1 <x>"),
        ),
        record(
            1,
            Record::Response {
                to: Actor::Kubectl,
                code: 422,
                message: "Pod \"x\" is invalid: spec.containers[0].image: Required value; <none>"
                    .into(),
                request: crate::component::RequestId::MIN,
            },
        ),
    ];
    let text = diagram(&records);
    check(&text);
    assert!(
        text.contains("kubectl->>apiserver: set a#59; b #35;1 #60;x#62;\n"),
        "{text}"
    );
    assert!(text.contains("Required value#59; #60;none#62;\n"), "{text}");
}

/// The summary diagram: seed 003's kind of size and shape.
fn summary(records: &[TraceRecord]) -> String {
    let mut out = Vec::new();
    summary::write(&mut out, records).expect("writing to memory");
    String::from_utf8(out).expect("the diagram is UTF-8")
}

#[test]
fn a_summary_of_a_deployment_fits_mermaids_default_size() {
    let mut t = timeline(
        &[&format!(
            "apply -f {}",
            crate::testing::fixture("web-deployment.yaml")
        )],
        None,
    );
    t.finish();
    let full = diagram(t.records());
    let text = summary(t.records());
    check(&text);
    // Mermaid's `maxTextSize` default is 50,000 characters.
    assert!(text.len() < 50_000, "{} characters", text.len());
    assert!(
        text.len() * 2 < full.len(),
        "{} of {}",
        text.len(),
        full.len()
    );
    // One note for a request's checks, its answer, and the watch deliveries.
    assert!(text.contains(
        "    Note over apiserver: authentication → authorization → mutating admission → validation → validating admission (mutated by ServiceAccount, Priority, DefaultTolerationSeconds)\n"
    ), "{text}");
    assert!(
        text.contains("    apiserver-->>kubectl: 201 Created\n"),
        "{text}"
    );
    assert!(
        text.contains("    apiserver-->>scheduler: watch ADDED pods/default/web-"),
        "{text}"
    );
    assert!(
        text.contains("    Note over scheduler: select: selected: "),
        "{text}"
    );
    assert!(!text.contains("filter TaintToleration"), "{text}");
}

#[test]
fn a_summary_names_what_refused_a_request() {
    // jane may not create Pods in dev (tests/fixtures/rbac-cluster.yaml).
    let args = crate::setup::SetupArgs {
        cluster: Some(crate::testing::fixture("rbac-cluster.yaml")),
        steps: vec![format!(
            "create -f {}",
            crate::testing::fixture("dev-pod.yaml")
        )],
        token: Some("jane-token".into()),
        seed: 1,
        ..crate::setup::SetupArgs::default()
    };
    let mut t = crate::timeline::Timeline::new(crate::engine::Engine::new(
        crate::setup::build_setup(&args).expect("the setup builds"),
    ));
    t.finish();
    let text = summary(t.records());
    check(&text);
    assert!(
        text.contains("    Note over apiserver: authorization RBAC: deny: "),
        "{text}"
    );
    assert!(text.contains("    apiserver-->>kubectl: 403 "), "{text}");
}
