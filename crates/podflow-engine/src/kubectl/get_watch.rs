//! `get -w`: after the list's table, kubectl watches from the list's
//! resourceVersion and prints each change as one more row of the same table,
//! without the header (`pkg/cmd/get/get.go`, `watch`: the printer is reused
//! for every event; a deletion prints the object's last row too). The watch
//! stays open until the next command, as Ctrl-C ends kubectl's.

use std::sync::Arc;

use super::{Cx, InFlight, Kubectl, get_output};
use crate::apiserver::handler::Response;
use crate::apiserver::request::Verb;
use crate::command::{GetOptions, Output};
use crate::store::WatchEvent;
use crate::store::selector::parse_labels;
use podflow_model::Kind;

/// A `get -w` watch: what it prints each change as.
#[derive(Debug, Clone, PartialEq)]
pub struct Watching {
    kind: &'static Kind,
    options: GetOptions,
}

impl Kubectl {
    /// The watch after the list, from the list's revision.
    pub(super) fn start_watch(
        &mut self,
        kind: &'static Kind,
        namespace: Option<String>,
        options: GetOptions,
        revision: u64,
        cx: &mut Cx<'_>,
    ) {
        let mut req = self.request(Verb::Watch, kind, namespace, "");
        req.resource_version = Some(revision);
        if let Some(selector) = &options.selector {
            req.selector.labels = parse_labels(selector).unwrap_or_default();
        }
        self.send(
            req,
            InFlight::Watch(Box::new(Watching { kind, options })),
            cx,
        );
    }

    /// The watch is open (or refused, said as kubectl says it).
    pub(super) fn watch_answered(
        &mut self,
        watching: Watching,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        if response.code >= 300 {
            return Self::print_all(cx, super::error_lines(response, ""));
        }
        self.watching = Some(Box::new(watching));
    }

    /// A change the watch delivered: its row.
    pub fn on_watch(&mut self, event: &WatchEvent, cx: &mut Cx<'_>) {
        let Some(watching) = &self.watching else {
            return;
        };
        if event.object.kind() != watching.kind {
            return;
        }
        let lines = get_output::lines(
            &[Arc::clone(&event.object)],
            false,
            &watching.options,
            cx.now,
        );
        let rows = match watching.options.output {
            // The header was printed with the list.
            Output::Table | Output::Wide => lines.into_iter().skip(1).collect(),
            Output::Name | Output::Yaml | Output::Json | Output::JsonPath(_) => lines,
        };
        Self::print_all(cx, rows);
    }
}
