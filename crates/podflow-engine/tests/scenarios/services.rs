//! Services through kube-proxy (`pkg/proxy/iptables/proxier.go`): every
//! node's kube-proxy syncs its rules when a Service's `EndpointSlice` follows
//! its Pods' readiness; a Service without endpoints gets the filter table's
//! REJECT; a container's `wget` to a Service's name is DNAT-ed to an endpoint
//! through its own node's rules, or refused.

use crate::common::{REPO, apply, final_object, kubectl_output, run};
use podflow_engine::trace::{Actor, Outcome, Record, Stage, StageName, TraceRecord};

fn proxy_stages(records: &[TraceRecord], stage: StageName) -> Vec<&Stage> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Record::Stage(s) if s.stage == stage && matches!(s.component, Actor::KubeProxy(_)) => {
                Some(&**s)
            }
            _ => None,
        })
        .collect()
}

fn steps() -> Vec<String> {
    vec![
        apply("web-service.yaml"),
        apply("myapp-services.yaml"),
        "run client --image=busybox:1.36 -- sleep 3600".into(),
        "wait 20s".into(),
        "exec client -- wget -q -O- http://web".into(),
        "exec client -- wget -q -O- http://web.default.svc.cluster.local".into(),
        "exec client -- wget -q -O- http://myservice".into(),
        "exec client -- sh -c 'curl -sS http://myservice; echo $?'".into(),
    ]
}

#[test]
fn every_node_syncs_the_rules_and_services_without_endpoints_are_rejected() {
    let steps = steps();
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    let records = run(None, &steps, |_| {});
    let syncs = proxy_stages(&records, StageName::SyncProxyRules);
    let web_ip = final_object(&records, "Service", "web")["spec"]["clusterIP"]
        .as_str()
        .expect("a ClusterIP")
        .to_owned();
    let empty_ip = final_object(&records, "Service", "myservice")["spec"]["clusterIP"]
        .as_str()
        .expect("a ClusterIP")
        .to_owned();
    // Each node's last sync has web's two ready endpoints, and myservice's REJECT.
    let nodes: std::collections::BTreeSet<String> = syncs
        .iter()
        .filter_map(|s| s.component.node().map(str::to_owned))
        .collect();
    // The default cluster's four nodes, the control plane's too.
    assert_eq!(nodes.len(), 4, "{nodes:?}");
    for node in &nodes {
        let last = syncs
            .iter()
            .rev()
            .find(|s| s.component.node() == Some(node.as_str()))
            .expect("a sync");
        let rules = last.extra().rules.clone().expect("the rules");
        let web_jumps: Vec<&String> = rules
            .iter()
            .filter(|l| l.starts_with("-A KUBE-SVC-") && l.contains("\"default/web:http -> "))
            .collect();
        assert_eq!(web_jumps.len(), 2, "{rules:#?}");
        assert!(
            web_jumps[0].contains("-m statistic --mode random --probability 0.5000000000"),
            "{rules:#?}"
        );
        assert!(
            rules.contains(&format!(
                "-A KUBE-SERVICES -m comment --comment \"default/myservice has no endpoints\" -m tcp -p tcp -d {empty_ip} --dport 80 -j REJECT"
            )),
            "{rules:#?}"
        );
        assert!(
            rules
                .iter()
                .any(|l| l.contains(&format!("-d {web_ip} --dport 80 -j KUBE-SVC-"))),
            "{rules:#?}"
        );
    }
    // Syncs on one node are at least minSyncPeriod (1 s) apart.
    for node in &nodes {
        let times: Vec<u64> = records
            .iter()
            .filter(|r| matches!(&r.body, Record::Stage(s) if s.stage == StageName::SyncProxyRules && s.component.node() == Some(node.as_str())))
            .map(|r| r.t_ms)
            .collect();
        assert!(times.windows(2).all(|w| w[1] - w[0] >= 1000), "{times:?}");
    }
    // The client's wget: twice DNATed, round-robin over web's endpoints; refused for myservice.
    let out = kubectl_output(&records);
    assert_eq!(
        out[out.len() - 4..],
        [
            format!("wget: can't connect to remote host ({empty_ip}): Connection refused"),
            "command terminated with exit code 1".to_owned(),
            "curl: (7) Failed to connect to myservice port 80 after 0 ms: Couldn't connect to server".to_owned(),
            "7".to_owned(),
        ],
        "{out:#?}"
    );
    let connects = proxy_stages(&records, StageName::Connect);
    let outcomes: Vec<Outcome> = connects.iter().map(|s| s.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Dnat,
            Outcome::Dnat,
            Outcome::Reject,
            Outcome::Reject
        ]
    );
    let first = connects[0].detail.to_string();
    let second = connects[1].detail.to_string();
    assert!(first.contains("endpoint 1 of 2"), "{first}");
    assert!(second.contains("endpoint 2 of 2"), "{second}");
    let client = final_object(&records, "Pod", "client");
    let node = client["spec"]["nodeName"].as_str().expect("bound");
    assert_eq!(connects[0].component.node(), Some(node));
}

/// Scaled to zero, web's slice empties and every node's rules reject it.
#[test]
fn a_service_whose_pods_go_is_rejected_after_the_next_sync() {
    let records = run(
        None,
        &[
            &apply("web-service.yaml"),
            "run client --image=busybox:1.36 -- sleep 3600",
            "wait 20s",
            "scale deployment web --replicas=0",
            "wait 60s",
            "exec client -- wget -q -O- http://web",
        ],
        |_| {},
    );
    let out = kubectl_output(&records);
    let web_ip = final_object(&records, "Service", "web")["spec"]["clusterIP"]
        .as_str()
        .expect("a ClusterIP")
        .to_owned();
    assert_eq!(
        out[out.len() - 2..],
        [
            format!("wget: can't connect to remote host ({web_ip}): Connection refused"),
            "command terminated with exit code 1".to_owned(),
        ],
        "{out:#?}"
    );
    let _ = REPO;
}
