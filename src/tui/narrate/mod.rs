//! The narrator: what one trace record means and why it happens, in English
//! or Chinese. [`narrate`] is a pure function of one record, so the narration
//! pane, lessons and exports can all reuse (or override) it.
//!
//! The explanations follow the Kubernetes documentation and sources named in
//! each submodule: the API server's request path (authentication,
//! authorization, admission, validation, etcd), the scheduler's framework
//! (filter, score, select, bind), and the kubelet's sync loop (sandbox, pull,
//! container, PLEG, status), and kube-proxy's rules.

mod apiserver;
mod controllers;
mod messages;
mod node;
mod notices;
mod proxy;
mod restarts;
mod scheduler;
pub(crate) mod text;

use super::lang::Lang;
use podflow_engine::trace::{Actor, Record, Stage, StageName, TraceRecord};

/// What one record means: a short headline and one to three sentences that teach why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Narration {
    pub headline: String,
    pub body: Vec<String>,
}

impl Narration {
    /// A narration with this headline and body.
    pub fn new(headline: String, body: Vec<String>) -> Narration {
        Narration { headline, body }
    }
}

/// Picks the English or the Chinese text, both already formatted.
pub(crate) fn tr(lang: Lang, en: String, zh: String) -> String {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

/// The narration of a stage, by the component that runs it.
fn stage(s: &Stage, lang: Lang) -> Narration {
    use StageName as S;
    match s.stage {
        S::Decode
        | S::Authentication
        | S::Authorization
        | S::Admission
        | S::Validation
        | S::Persist
        | S::Compact => apiserver::stage(s, lang),
        // Both the scheduler and the controller manager have a work queue.
        S::Queue if s.component == Actor::ControllerManager => controllers::stage(s, lang),
        S::Queue
        | S::PreFilter
        | S::Filter
        | S::PostFilter
        | S::PreScore
        | S::Score
        | S::Select
        | S::Reserve
        | S::Permit
        | S::PreBind
        | S::Bind => scheduler::stage(s, lang),
        S::Informer | S::Sync => controllers::stage(s, lang),
        S::Sandbox
        | S::Network
        | S::Volume
        | S::Pull
        | S::Container
        | S::Probe
        | S::Status
        | S::Fault => node::stage(s, lang),
        S::SyncProxyRules | S::Connect => proxy::stage(s, lang),
    }
}

/// Narrates one record in `lang`: every record kind and every stage name the
/// engine emits has its words (a new [`StageName`] does not compile until
/// [`stage`] gives it some).
pub fn narrate(record: &TraceRecord, lang: Lang) -> Narration {
    match &record.body {
        Record::Message {
            from, to, label, ..
        } => messages::message(from, to, label, lang),
        Record::Stage(s) => stage(s, lang),
        Record::Response {
            to, code, message, ..
        } => messages::response(to, *code, message, lang),
        Record::Watch(watch) => notices::watch(watch, lang),
        Record::Event(event) => notices::event(event, lang),
        Record::Log {
            component,
            node: _,
            line,
        } => {
            if *component == Actor::Kubectl {
                notices::kubectl_output(line, lang)
            } else if matches!(component, Actor::Kubelet(_)) {
                node::kubelet_log(component, line, lang)
            } else {
                Narration::new(
                    tr(
                        lang,
                        format!("{component} writes a log line"),
                        format!("{component} 输出一行日志"),
                    ),
                    vec![line.clone()],
                )
            }
        }
        Record::Final { objects } => Narration::new(
            tr(lang, "The run is over".into(), "模拟结束".into()),
            vec![tr(
                lang,
                format!(
                    "Nothing is left to do: the cluster has settled, with {} objects in etcd.",
                    objects.len()
                ),
                format!(
                    "已没有待处理的工作：集群进入稳定状态，etcd 中共有 {} 个对象。",
                    objects.len()
                ),
            )],
        ),
    }
}

#[cfg(test)]
mod tests;
