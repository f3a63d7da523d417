//! `get` of several kinds or objects (`get deploy,rs,po`, `get pod/a
//! deploy/b`): one GET or LIST after another, then printed as `get.go`'s
//! `Run` prints them: with `kind/name` names when more than one kind came
//! back (`multipleGVKsRequested`), each kind's table with its own header,
//! a blank line between tables (`separatorWriterWrapper`), and the errors
//! after.

use std::sync::Arc;

use super::{Cx, GetOptions, InFlight, Kind, Kubectl, Object, Output, Response, Verb, error_lines};
use super::{get_output, type_name};
use crate::kubectl_printers::{self, TableOptions};
use crate::store::selector::parse_labels;

/// What a `get` of several targets has gathered so far.
#[derive(Debug, Clone)]
pub(super) struct Gathering {
    targets: Vec<(&'static Kind, Option<String>)>,
    /// The index of the target asked now.
    at: usize,
    namespace: Option<String>,
    options: GetOptions,
    /// Each answered target's kind and objects.
    found: Vec<(&'static Kind, Vec<Arc<Object>>)>,
    errors: Vec<String>,
}

impl Kubectl {
    pub(super) fn start_get_many(
        &mut self,
        targets: Vec<(&'static Kind, Option<String>)>,
        namespace: Option<String>,
        options: GetOptions,
        cx: &mut Cx<'_>,
    ) {
        let gathering = Gathering {
            targets,
            at: 0,
            namespace,
            options,
            found: Vec::new(),
            errors: Vec::new(),
        };
        self.get_next_target(gathering, cx);
    }

    fn get_next_target(&mut self, g: Gathering, cx: &mut Cx<'_>) {
        let Some((kind, name)) = g.targets.get(g.at).cloned() else {
            return Self::print_gathered(&g, cx);
        };
        let verb = if name.is_some() {
            Verb::Get
        } else {
            Verb::List
        };
        let namespace = g
            .namespace
            .clone()
            .filter(|_| kind.namespaced && !(g.options.all_namespaces && name.is_none()));
        let mut req = self.request(verb, kind, namespace, name.as_deref().unwrap_or_default());
        if let Some(selector) = &g.options.selector {
            req.selector.labels = parse_labels(selector).unwrap_or_default();
        }
        self.send(req, InFlight::GetMany(Box::new(g)), cx);
    }

    pub(super) fn get_many_answered(
        &mut self,
        mut g: Gathering,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let kind = g.targets[g.at].0;
        g.at += 1;
        if response.code >= 300 {
            g.errors.extend(error_lines(response, ""));
        } else {
            let objects = match &response.object {
                Some(o) => vec![Arc::clone(o)],
                None => response.items.clone(),
            };
            match g.found.last_mut() {
                // Consecutive answers of one kind share a table.
                Some((last, objects_so_far)) if std::ptr::eq(*last, kind) => {
                    objects_so_far.extend(objects);
                }
                _ => g.found.push((kind, objects)),
            }
        }
        self.get_next_target(g, cx);
    }

    fn print_gathered(g: &Gathering, cx: &mut Cx<'_>) {
        let lines = gathered_lines(g, cx.now);
        let nothing = lines.is_empty();
        Self::print_all(cx, lines);
        if nothing && g.errors.is_empty() && g.options.output.human_readable() {
            let all_namespaced =
                !g.options.all_namespaces && g.targets.iter().all(|(k, _)| k.namespaced);
            let line = match (&g.namespace, all_namespaced) {
                (Some(ns), true) => format!("No resources found in {ns} namespace."),
                _ => "No resources found".to_owned(),
            };
            Self::print(cx, line);
        }
        Self::print_all(cx, g.errors.clone());
    }
}

fn gathered_lines(g: &Gathering, now: crate::clock::SimTime) -> Vec<String> {
    let all: Vec<Arc<Object>> = g
        .found
        .iter()
        .flat_map(|(_, o)| o.iter().cloned())
        .collect();
    match g.options.output {
        Output::Table | Output::Wide => {
            let with_kind = g.found.iter().any(|(k, _)| !std::ptr::eq(*k, g.found[0].0));
            let mut lines = Vec::new();
            for (_, objects) in g.found.iter().filter(|(_, o)| !o.is_empty()) {
                if !lines.is_empty() {
                    lines.push(String::new());
                }
                let columns = TableOptions {
                    wide: g.options.output == Output::Wide,
                    namespace: g.options.all_namespaces,
                    labels: g.options.show_labels,
                    kind: with_kind,
                };
                lines.extend(kubectl_printers::table_with(objects, now, columns));
            }
            lines
        }
        Output::Name => all
            .iter()
            .map(|o| format!("{}/{}", type_name(o.kind()), o.name()))
            .collect(),
        Output::Yaml | Output::Json | Output::JsonPath(_) => {
            let single = all.len() == 1 && g.targets.len() == 1 && g.targets[0].1.is_some();
            get_output::lines(&all, single, &g.options, now)
        }
    }
}
