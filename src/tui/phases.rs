//! Phases of the story for `]` and `[`: a new phase starts where the acting
//! component changes (kubectl, the API server with etcd, the scheduler, one
//! node's kubelet with its runtime, ...).

use std::borrow::Cow;

use podflow_engine::trace::{Actor, Record, TraceRecord};

/// Who acts in a record, as a phase sees it: etcd with the API server, a
/// node's actors as their node, an Event as its source.
pub fn actor(record: &TraceRecord) -> String {
    let component = component(record);
    match component.split_once('/') {
        Some(("kubelet" | "containerd" | "cni" | "csi" | "kube-proxy", node)) => {
            format!("node/{node}")
        }
        _ if component == "etcd" => "kube-apiserver".to_owned(),
        _ => component.into_owned(),
    }
}

/// The component a record is of, by its trace name (`kube-proxy/node-3`).
fn component(record: &TraceRecord) -> Cow<'_, str> {
    match &record.body {
        Record::Message { from, .. } => from.name(),
        Record::Stage(stage) => stage.component.name(),
        Record::Response { .. } | Record::Final { .. } => Actor::ApiServer.name(),
        Record::Watch(w) => w.watcher.name(),
        Record::Event(e) => match e.source.as_str() {
            "default-scheduler" => Actor::Scheduler.name(),
            other => Cow::Borrowed(other),
        },
        Record::Log { component, .. } => component.name(),
    }
}

/// What is happening at record `i`, named for the status bar: the request
/// being served (`kubectl → API server: POST pods`), the Pod being
/// scheduled (`scheduler: default/nginx`), a node's current stage
/// (`kubelet node-3: sandbox`), or the acting component and its record.
pub fn title(records: &[TraceRecord], i: usize) -> String {
    let Some(record) = records.get(i) else {
        return String::new();
    };
    let who = actor(record);
    // The request arrow the API server's records answer (or this arrow itself).
    let request = || {
        records[..=i]
            .iter()
            .rev()
            .take(64)
            .find_map(|r| match &r.body {
                Record::Message {
                    from,
                    to: Actor::ApiServer,
                    label,
                    request: Some(_),
                } => Some(request_title(from, label)),
                _ => None,
            })
    };
    if let Record::Message {
        from,
        to: Actor::ApiServer,
        label,
        request: Some(_),
    } = &record.body
    {
        return request_title(from, label);
    }
    if who == Actor::ApiServer.name()
        && let Some(title) = request()
    {
        return title;
    }
    // The latest stage of this component in its phase.
    let start = (0..=i)
        .rev()
        .find(|&j| starts_phase(records, j))
        .unwrap_or(0);
    let stage = records[start..=i].iter().rev().find_map(|r| match &r.body {
        Record::Stage(stage) => Some(stage),
        _ => None,
    });
    let what = match &record.body {
        Record::Watch(w) => format!("← {}", w.summary()),
        Record::Event(e) => format!("event {}", e.reason),
        Record::Message { to, label, .. } => format!("→ {}: {label}", to.name()),
        Record::Log {
            component: Actor::Kubectl,
            line,
            ..
        } => line.clone(),
        Record::Log { .. } => "log".to_owned(),
        _ => stage.map_or_else(String::new, |s| s.stage.as_str().to_owned()),
    };
    if let Some(node) = who.strip_prefix("node/") {
        // kube-proxy is its own agent; the rest of a node's work is the kubelet's.
        let agent = if component(record).starts_with("kube-proxy/") {
            "kube-proxy"
        } else {
            "kubelet"
        };
        return format!("{agent} {node}: {what}")
            .trim_end_matches(": ")
            .to_owned();
    }
    if who == Actor::Scheduler.name()
        && let Some(pod) = stage.and_then(|s| s.extra().pod.clone())
    {
        return format!("scheduler: {pod}");
    }
    if what.is_empty() {
        who
    } else {
        format!("{who}: {what}")
    }
}

/// `kubectl → API server: POST pods`, `kubelet/node-2 → API server: PUT leases/node-2`.
fn request_title(from: &Actor, label: &str) -> String {
    let (verb, path) = label.split_once(' ').unwrap_or((label, ""));
    let target = crate::tui::narrate::text::api_path(path).target();
    format!("{} → API server: {verb} {target}", from.name())
}

/// Whether record `i` starts a phase.
fn starts_phase(records: &[TraceRecord], i: usize) -> bool {
    i == 0 || actor(&records[i]) != actor(&records[i - 1])
}

/// The start of the next phase after `from`, if any.
pub fn next(records: &[TraceRecord], from: usize) -> Option<usize> {
    (from + 1..records.len()).find(|&i| starts_phase(records, i))
}

/// The start of the current phase, or of the one before when already at a start.
pub fn previous(records: &[TraceRecord], from: usize) -> usize {
    let from = from.min(records.len().saturating_sub(1));
    let mut i = from;
    while i > 0 && !starts_phase(records, i) {
        i -= 1;
    }
    if i == from && i > 0 {
        i -= 1;
        while i > 0 && !starts_phase(records, i) {
            i -= 1;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::testing::{find, nginx_timeline};
    use podflow_engine::trace::StageName;

    #[test]
    fn phases_follow_the_acting_component() {
        let t = nginx_timeline();
        let records = t.records();
        let post = find(&t, "kubectl → kube-apiserver: POST");
        let authn = post + 1;
        assert_eq!(
            next(records, post),
            Some(authn),
            "the API server takes over"
        );
        let answer = next(records, authn).expect("kubectl reads the answer");
        assert!(
            matches!(records[answer].body, Record::Log { .. }),
            "{:?}",
            records[answer].body
        );
        assert_eq!(previous(records, authn + 3), authn);
        assert_eq!(previous(records, authn), post);
        assert_eq!(previous(records, 0), 0);
        assert_eq!(next(records, records.len() - 1), None);
    }

    #[test]
    fn titles_name_the_request_the_pod_and_the_node_stage() {
        let t = nginx_timeline();
        let records = t.records();
        let post = find(&t, "kubectl → kube-apiserver: POST");
        assert_eq!(title(records, post), "kubectl → API server: POST pods");
        assert_eq!(
            title(records, post + 1),
            "kubectl → API server: POST pods",
            "the API server's stages name the request they serve"
        );
        let filter = find(&t, "filter");
        assert_eq!(title(records, filter), "scheduler: default/nginx");
        let sandbox = records
            .iter()
            .position(|r| matches!(&r.body, Record::Stage(s) if s.stage == StageName::Sandbox))
            .expect("a sandbox stage");
        assert!(
            title(records, sandbox).starts_with("kubelet node-"),
            "{}",
            title(records, sandbox)
        );
        assert!(title(records, sandbox).ends_with(": sandbox"));

        // kube-proxy is named as itself, not as its node's kubelet.
        let t = crate::tui::testing::timeline(&["apply -f tests/fixtures/web-service.yaml"], None);
        let records = t.records();
        let sync = find(&t, "sync-proxy-rules");
        assert!(
            title(records, sync).starts_with("kube-proxy "),
            "{}",
            title(records, sync)
        );
        assert!(title(records, sync).ends_with(": sync-proxy-rules"));
    }
}
