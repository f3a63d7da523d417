//! `--only KIND/NAME`: one object's story out of a run's trace, for a
//! diagram of that object alone. Kept: the API requests that name it (in
//! their path, or in the etcd key their handling writes) with their
//! handling and answer; the watch events about it; the scheduler's and the
//! kubelet's stages about it (a Pod's) and the node's calls that lead to
//! them (CRI, CNI, the registry); the Events about it; kubectl's output.

use crate::trace::{Actor, Outcome, Record, TraceRecord};
use podflow_model::Kind;

/// The object a story is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub kind: &'static Kind,
    pub namespace: Option<String>,
    pub name: String,
}

impl Target {
    /// `pod/nginx`, `deploy/web` (in `namespace`, or `default`), or
    /// `pod/dev/web` (in `dev`).
    pub fn parse(text: &str, namespace: Option<&str>) -> Result<Target, String> {
        let parts: Vec<&str> = text.split('/').collect();
        let (kind, namespace, name) = match parts.as_slice() {
            [kind, name] if !kind.is_empty() && !name.is_empty() => (*kind, namespace, *name),
            [kind, ns, name] if [kind, ns, name].iter().all(|p| !p.is_empty()) => {
                (*kind, Some(*ns), *name)
            }
            _ => {
                return Err(format!(
                    "--only {text}: want KIND/NAME or KIND/NAMESPACE/NAME, such as pod/nginx"
                ));
            }
        };
        let kind = Kind::lookup(kind)
            .ok_or_else(|| format!("--only {text}: podflow serves no kind {kind:?}"))?;
        Ok(Target {
            kind,
            namespace: kind
                .namespaced
                .then(|| namespace.unwrap_or("default").to_owned()),
            name: name.to_owned(),
        })
    }

    /// The object's etcd key tail and URL tail: `pods/default/nginx`,
    /// `namespaces/default/pods/nginx`.
    fn tails(&self) -> (String, String) {
        let (resource, name) = (self.kind.resource, &self.name);
        match &self.namespace {
            Some(ns) => (
                format!("/{resource}/{ns}/{name}"),
                format!("/namespaces/{ns}/{resource}/{name}"),
            ),
            None => (format!("/{resource}/{name}"), format!("/{resource}/{name}")),
        }
    }

    /// `ns/name`, as stages and watch summaries name a Pod.
    fn reference(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{ns}/{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Whether `text` ends with `tail` or has it followed by `/` or a space.
fn names(text: &str, tail: &str) -> bool {
    text.match_indices(tail).any(|(at, _)| {
        matches!(
            text[at + tail.len()..].chars().next(),
            None | Some('/' | ' ' | '?')
        )
    })
}

/// The API server's and etcd's part in handling a request.
fn is_handling(body: &Record) -> bool {
    match body {
        Record::Stage(s) => matches!(s.component, Actor::ApiServer | Actor::Etcd),
        Record::Message {
            from: Actor::ApiServer,
            to: Actor::Etcd,
            ..
        } => true,
        _ => false,
    }
}

/// The records of `records` that tell the target's story, in order.
pub fn only(records: &[TraceRecord], target: &Target) -> Vec<TraceRecord> {
    let (key_tail, url_tail) = target.tails();
    let reference = target.reference();
    let mut keep = vec![false; records.len()];
    // The requests sent and not yet answered: (id, arrow, names the target).
    let mut open: Vec<(u64, usize, bool)> = Vec::new();
    // The API server handles one request at a time: its records since its
    // last answer (or a request's parking in admission) are the handling of
    // the request it answers next.
    let (mut handling_from, mut handling_names) = (0, false);
    // A node's calls waiting for the kubelet's next stage to say whose they were.
    let mut calls: Vec<(String, usize)> = Vec::new();
    for (i, record) in records.iter().enumerate() {
        match &record.body {
            Record::Message {
                to: Actor::ApiServer,
                label,
                request: Some(id),
                ..
            } => open.push((id.get(), i, names(label, &url_tail))),
            Record::Message {
                from: Actor::ApiServer,
                to: Actor::Etcd,
                label,
                ..
            } => handling_names |= names(label, &key_tail),
            Record::Message { from, to, .. } => {
                if let Some(node) = from.node().or_else(|| to.node()) {
                    calls.push((node.to_owned(), i));
                }
            }
            Record::Response { request, .. } => {
                if let Some(at) = open.iter().position(|(id, ..)| *id == request.get()) {
                    let (_, arrow, named) = open.remove(at);
                    if named || handling_names {
                        keep[arrow] = true;
                        keep[i] = true;
                        for j in handling_from.max(arrow + 1)..i {
                            keep[j] |= is_handling(&records[j].body);
                        }
                    }
                }
                (handling_from, handling_names) = (i + 1, false);
            }
            // A request parked in admission: its handling so far ends here
            // with no answer (it goes on later, up to its answer), and the
            // stage names the object it creates.
            Record::Stage(stage)
                if stage.component == Actor::ApiServer && stage.outcome == Outcome::Waiting =>
            {
                if stage.extra().pod.as_deref() == Some(reference.as_str()) {
                    for j in handling_from..=i {
                        keep[j] |= is_handling(&records[j].body);
                    }
                }
                (handling_from, handling_names) = (i + 1, false);
            }
            Record::Watch(watch) => {
                keep[i] = watch.resource == target.kind.resource
                    && watch.name == target.name
                    && watch.namespace == target.namespace;
            }
            Record::Stage(stage) => {
                let about = stage.extra().pod.as_deref() == Some(reference.as_str());
                keep[i] = about && !matches!(stage.component, Actor::ApiServer | Actor::Etcd);
                if let Some(node) = stage.component.node() {
                    // The calls on this node since its last stage were this Pod's, or not.
                    calls.retain(|(n, j)| {
                        if n == node {
                            keep[*j] = about;
                            false
                        } else {
                            true
                        }
                    });
                }
            }
            Record::Event(event) => {
                keep[i] = event.object.name == target.name
                    && event.object.namespace == target.namespace
                    && event.object.kind == target.kind.kind;
            }
            Record::Log {
                component: Actor::Kubectl,
                ..
            } => keep[i] = true,
            Record::Log { .. } | Record::Final { .. } => {}
        }
    }
    records
        .iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(r, _)| r.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::timeline;

    fn story(commands: &[&str], only_of: &str) -> Vec<TraceRecord> {
        let mut t = timeline(commands, None);
        t.finish();
        only(
            t.records(),
            &Target::parse(only_of, None).expect("a target"),
        )
    }

    fn labels(records: &[TraceRecord]) -> Vec<String> {
        records
            .iter()
            .filter_map(|r| match &r.body {
                Record::Message { label, .. } => Some(label.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn one_pods_story_leaves_the_others_out() {
        let fixture = crate::testing::fixture("missing-image-pod.yaml");
        let apply = format!("apply -f {fixture}");
        let nginx = story(&[&apply], "pod/nginx");
        let missing = story(&[&apply], "pod/missing");
        let said = labels(&nginx);
        assert!(
            said.contains(&"POST /api/v1/namespaces/default/pods".to_owned()),
            "{said:?}"
        );
        assert!(said.contains(&"txn put /registry/pods/default/nginx".to_owned()));
        assert!(
            said.contains(&"RunPodSandbox".to_owned()),
            "the node's calls: {said:?}"
        );
        assert!(!said.iter().any(|l| l.contains("missing")), "{said:?}");
        assert!(
            !said.iter().any(|l| l.contains("/leases/")),
            "no heartbeats"
        );
        let other = labels(&missing);
        assert!(other.contains(&"txn put /registry/pods/default/missing".to_owned()));
        assert!(
            !other.iter().any(|l| l.contains("/pods/default/nginx")),
            "{other:?}"
        );
        assert!(missing.iter().any(|r| matches!(&r.body,
            Record::Event(e) if e.reason == "Failed" && e.object.name == "missing")));
    }

    /// A Pod created with its namespace parks in `ServiceAccount` admission
    /// until `default` exists: both parts of its handling are its story, the
    /// serviceaccount controller's create in between is not.
    #[test]
    fn a_parked_create_keeps_both_parts_of_its_handling() {
        let fixture = crate::testing::fixture("namespace-and-pod.yaml");
        let told = story(&[&format!("create -f {fixture}")], "pod/web/nginx");
        let admission: Vec<(String, String)> = told
            .iter()
            .filter_map(|r| match &r.body {
                Record::Stage(s) if s.plugin.as_deref() == Some("ServiceAccount") => Some((
                    s.outcome.to_string(),
                    s.phase.as_deref().unwrap_or_default().to_owned(),
                )),
                _ => None,
            })
            .collect();
        let want = [
            ("waiting", "mutating"),
            ("mutate", "mutating"),
            ("allow", "validating"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(o, p)| ((*o).to_owned(), (*p).to_owned()))
            .collect();
        assert_eq!(admission, want);
        let said = labels(&told);
        assert!(
            !said.iter().any(|l| l.contains("serviceaccounts")),
            "{said:?}"
        );
    }

    #[test]
    fn a_target_is_kind_slash_name() {
        let pod = Target::parse("po/web", Some("dev")).unwrap();
        assert_eq!(
            (pod.kind.kind, pod.namespace.as_deref()),
            ("Pod", Some("dev"))
        );
        let node = Target::parse("node/node-1", Some("dev")).unwrap();
        assert_eq!(node.namespace, None);
        assert!(Target::parse("nginx", None).is_err());
        let web = Target::parse("pod/dev/web", None).unwrap();
        assert_eq!(
            (web.namespace.as_deref(), web.name.as_str()),
            (Some("dev"), "web")
        );
        assert!(Target::parse("gizmo/x", None).is_err());
    }
}
