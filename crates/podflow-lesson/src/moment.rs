//! The moments a narration step runs to (`until:`): `pod NAME scheduled`,
//! `pod NAME Running` (any phase), `phase Running` (the first Pod to reach
//! it), a stage name of the trace (`bind`, `pull`, `admission`, …),
//! `response 403` (the API server answers kubectl with that code), `event
//! FailedScheduling` (the next `core/v1` Event with that reason), `created
//! replicasets` (the write of a new object of that resource), a simulated
//! duration (`30s`, `2m`) or `idle`.

use podflow_engine::clock::parse_duration;
use podflow_engine::store::{Held, Store};
use podflow_engine::timeline::Timeline;
use podflow_engine::trace::Record;
use podflow_engine::trace::{Actor, StageName};

/// The stage names of the trace (docs/trace-format.md) a moment may name.
pub const STAGES: [StageName; 23] = [
    StageName::Authentication,
    StageName::Authorization,
    StageName::Admission,
    StageName::Validation,
    StageName::Persist,
    StageName::Queue,
    StageName::PreFilter,
    StageName::Filter,
    StageName::PostFilter,
    StageName::Score,
    StageName::Select,
    StageName::Reserve,
    StageName::Bind,
    StageName::Sandbox,
    StageName::Network,
    StageName::Volume,
    StageName::Pull,
    StageName::Container,
    StageName::Probe,
    StageName::Status,
    StageName::Compact,
    StageName::SyncProxyRules,
    StageName::Connect,
];

/// The phases of a Pod (`core/v1` `PodPhase`).
pub const PHASES: [&str; 5] = ["Pending", "Running", "Succeeded", "Failed", "Unknown"];

/// A moment of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moment {
    /// `pod [NS/]NAME scheduled`: the Pod has a node.
    Scheduled { namespace: String, name: String },
    /// `pod [NS/]NAME PHASE`, or `phase PHASE` for any Pod (`pod` is `None`).
    Phase {
        pod: Option<(String, String)>,
        phase: String,
    },
    /// A stage record of this name.
    Stage(StageName),
    /// A response to kubectl with this status code.
    Response(u16),
    /// A `core/v1` Event with this reason (`FailedScheduling`, `BackOff`).
    Event(String),
    /// The write of an object of this resource (`replicasets`, `pods`) that
    /// was not in the store when the step started.
    Created(String),
    /// This many simulated milliseconds after the step starts.
    After(u64),
    /// The end of the run.
    Idle,
}

/// `NS/NAME` or `NAME` (in `default`).
pub fn pod_ref(word: &str) -> (String, String) {
    match word.split_once('/') {
        Some((ns, name)) => (ns.to_owned(), name.to_owned()),
        None => ("default".to_owned(), word.to_owned()),
    }
}

/// Reads a moment; the error says what moments there are.
pub fn parse(text: &str) -> Result<Moment, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let moment = match words.as_slice() {
        ["idle"] => Some(Moment::Idle),
        ["pod", pod, "scheduled"] => {
            let (namespace, name) = pod_ref(pod);
            Some(Moment::Scheduled { namespace, name })
        }
        ["pod", pod, phase] if PHASES.contains(phase) => Some(Moment::Phase {
            pod: Some(pod_ref(pod)),
            phase: (*phase).to_owned(),
        }),
        ["phase", phase] if PHASES.contains(phase) => Some(Moment::Phase {
            pod: None,
            phase: (*phase).to_owned(),
        }),
        ["response", code] => code.parse().ok().map(Moment::Response),
        ["event", reason] => Some(Moment::Event((*reason).to_owned())),
        ["created", resource] if is_resource(resource) => {
            Some(Moment::Created((*resource).to_owned()))
        }
        [stage] if StageName::parse(stage).is_some_and(|s| STAGES.contains(&s)) => {
            StageName::parse(stage).map(Moment::Stage)
        }
        [duration] => parse_duration(duration).map(Moment::After),
        _ => None,
    };
    moment.ok_or_else(|| {
        format!(
            "unknown moment {text:?}: want `pod NAME scheduled`, `pod NAME PHASE`, `phase PHASE`, `response CODE`, `event REASON`, `created RESOURCE` (plural, as in `replicasets`), a stage ({}), a duration such as 30s, or idle",
            STAGES.map(StageName::as_str).join(", ")
        )
    })
}

/// A resource's plural name as the API path and etcd spell it: lowercase
/// letters, ending in `s` (`replicasets`, `pods`, `endpoints`).
fn is_resource(word: &str) -> bool {
    word.ends_with('s') && word.chars().all(|c| c.is_ascii_lowercase())
}

/// The keys of every object of `resource` in `store`.
fn keys_of<O: Held>(store: &Store<O>, resource: &str) -> Vec<String> {
    store
        .range(&format!("/registry/{resource}/"))
        .map(|(k, _)| k.to_owned())
        .collect()
}

/// The phase of Pod `ns/name` in `store`, `None` when it does not exist.
fn phase_of<O: Held>(store: &Store<O>, namespace: &str, name: &str) -> Option<String> {
    let object = store.object(&format!("/registry/pods/{namespace}/{name}"))?;
    let pod = object.as_pod()?;
    Some(
        pod.status
            .as_ref()
            .and_then(|s| s.phase.clone())
            .unwrap_or_else(|| "Pending".to_owned()),
    )
}

fn scheduled<O: Held>(store: &Store<O>, namespace: &str, name: &str) -> bool {
    store
        .object(&format!("/registry/pods/{namespace}/{name}"))
        .is_some_and(|o| {
            o.as_pod()
                .and_then(|p| p.spec.as_ref())
                .is_some_and(|s| s.node_name.is_some())
        })
}

/// Every Pod in `phase`, as `/registry/pods/NS/NAME` keys.
fn pods_in_phase<O: Held>(store: &Store<O>, phase: &str) -> Vec<String> {
    store
        .range("/registry/pods/")
        .filter(|(_, e)| {
            e.object.load().as_pod().is_some_and(|p| {
                p.status
                    .as_ref()
                    .and_then(|s| s.phase.as_deref())
                    .unwrap_or("Pending")
                    == phase
            })
        })
        .map(|(k, _)| k.to_owned())
        .collect()
}

/// Whether `moment` holds in `store` (for the moments that are states).
fn state_holds<O: Held>(moment: &Moment, store: &Store<O>, before: &[String]) -> bool {
    match moment {
        Moment::Scheduled { namespace, name } => scheduled(store, namespace, name),
        Moment::Phase {
            pod: Some((namespace, name)),
            phase,
        } => phase_of(store, namespace, name).as_deref() == Some(phase.as_str()),
        Moment::Phase { pod: None, phase } => pods_in_phase(store, phase)
            .iter()
            .any(|k| !before.contains(k)),
        _ => false,
    }
}

/// The first record at or after `from` where `moment` is reached; `None`
/// when the run ends first. A state already true at `from` is reached there.
pub fn find(moment: &Moment, timeline: &Timeline, from: usize) -> Option<usize> {
    let records = timeline.records();
    if records.is_empty() {
        return None;
    }
    let from = from.min(records.len() - 1);
    let start = timeline.view(from);
    match moment {
        Moment::Idle => Some(records.len() - 1),
        Moment::After(ms) => {
            let at = start.now.0 + ms;
            Some(
                (from..records.len())
                    .find(|&i| records[i].t_ms >= at)
                    .unwrap_or(records.len() - 1),
            )
        }
        Moment::Stage(name) => (from..records.len())
            .find(|&i| matches!(&records[i].body, Record::Stage(s) if s.stage == *name)),
        Moment::Response(code) => (from..records.len()).find(|&i| {
            matches!(&records[i].body, Record::Response { to, code: c, .. } if *to == Actor::Kubectl && c == code)
        }),
        Moment::Event(reason) => (from..records.len())
            .find(|&i| matches!(&records[i].body, Record::Event(e) if &e.reason == reason)),
        Moment::Created(resource) => {
            let before = keys_of(&start.store, resource);
            (from..records.len()).find(|&i| {
                matches!(&records[i].body, Record::Stage(s) if s.component == Actor::Etcd)
                    && keys_of(&timeline.view(i).store, resource)
                        .iter()
                        .any(|k| !before.contains(k))
            })
        }
        Moment::Scheduled { .. } | Moment::Phase { .. } => {
            let before = match moment {
                Moment::Phase { pod: None, phase } => pods_in_phase(&start.store, phase),
                _ => Vec::new(),
            };
            if state_holds(moment, &start.store, &before) {
                return Some(from);
            }
            // The store changes only at etcd's records.
            (from..records.len()).find(|&i| {
                matches!(&records[i].body, Record::Stage(s) if s.component == Actor::Etcd)
                    && state_holds(moment, &timeline.view(i).store, &before)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_engine::testing::{find as find_text, nginx_timeline};

    fn line_of(t: &Timeline, i: usize) -> String {
        podflow_engine::export::text::line(&t.records()[i])
    }

    #[test]
    fn parses_every_form_and_refuses_the_rest() {
        let ok = [
            (
                "pod nginx scheduled",
                Moment::Scheduled {
                    namespace: "default".into(),
                    name: "nginx".into(),
                },
            ),
            (
                "pod dev/web Running",
                Moment::Phase {
                    pod: Some(("dev".into(), "web".into())),
                    phase: "Running".into(),
                },
            ),
            (
                "phase Running",
                Moment::Phase {
                    pod: None,
                    phase: "Running".into(),
                },
            ),
            ("bind", Moment::Stage(StageName::Bind)),
            ("response 403", Moment::Response(403)),
            ("event Pulled", Moment::Event("Pulled".into())),
            ("created replicasets", Moment::Created("replicasets".into())),
            ("30s", Moment::After(30_000)),
            ("idle", Moment::Idle),
        ];
        for (text, want) in ok {
            assert_eq!(parse(text), Ok(want), "{text}");
        }
        for bad in [
            "pod nginx",
            "phase Sleeping",
            "dance",
            "response x",
            "created ReplicaSet",
            "",
        ] {
            assert!(
                parse(bad).unwrap_err().starts_with("unknown moment"),
                "{bad}"
            );
        }
    }

    #[test]
    fn finds_the_moments_of_the_nginx_story() {
        let t = nginx_timeline();
        let bind = find(&Moment::Stage(StageName::Bind), &t, 0).unwrap();
        assert!(matches!(&t.records()[bind].body, Record::Stage(s) if s.stage == StageName::Bind));
        assert!(bind > find_text(&t, "kubectl | pod/nginx created"));
        let scheduled = find(&parse("pod nginx scheduled").unwrap(), &t, 0).unwrap();
        assert!(
            scheduled > bind,
            "the binding is written after the bind stage"
        );
        let running = find(&parse("phase Running").unwrap(), &t, 0).unwrap();
        assert!(running > scheduled);
        assert_eq!(
            find(&parse("pod nginx Running").unwrap(), &t, 0),
            Some(running)
        );
        assert_eq!(find(&parse("response 403").unwrap(), &t, 0), None);
        let pulled = find(&parse("event Pulled").unwrap(), &t, 0).unwrap();
        assert!(matches!(&t.records()[pulled].body, Record::Event(e) if e.reason == "Pulled"));
        assert!(pulled > scheduled && pulled < running);
        assert_eq!(find(&parse("event FailedScheduling").unwrap(), &t, 0), None);
        // The Pod's first write creates it; no ReplicaSet is ever created.
        let created = find(&parse("created pods").unwrap(), &t, 0).unwrap();
        assert!(line_of(&t, created).contains("wrote /registry/pods/default/nginx"));
        assert!(created < scheduled);
        assert_eq!(find(&parse("created pods").unwrap(), &t, created + 1), None);
        assert_eq!(find(&parse("created replicasets").unwrap(), &t, 0), None);
        // Already true at the start: reached at once.
        assert_eq!(
            find(&parse("pod nginx Running").unwrap(), &t, running),
            Some(running)
        );
        assert_eq!(find(&Moment::Idle, &t, 0), Some(t.len() - 1));
    }
}
