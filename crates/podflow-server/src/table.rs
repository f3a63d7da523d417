//! `meta.k8s.io/v1` Tables: what the API server answers `kubectl get` when
//! it asks for `application/json;as=Table;v=v1;g=meta.k8s.io`. The columns
//! and cells are `kubectl get`'s, from the engine's printers
//! (`pkg/printers/internalversion/printers.go`); `-o wide` columns have
//! priority 1; each row carries the object's metadata as a
//! `PartialObjectMetadata` (or the whole object with `includeObject=Object`).

use std::sync::Arc;

use serde_json::{Value, json};

use podflow_engine::clock::SimTime;
use podflow_engine::kubectl_printers;
use podflow_model::{Kind, Object};

/// The media type kubectl asks Tables by.
pub const TABLE_MEDIA_TYPE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

/// Whether an `Accept` header asks for a Table.
pub fn wants_table(accept: &str) -> bool {
    accept
        .split(',')
        .next()
        .is_some_and(|first| first.contains("as=Table") && first.contains("g=meta.k8s.io"))
}

/// What each row carries (`includeObject`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Include {
    None,
    #[default]
    Metadata,
    Object,
}

impl Include {
    /// The `includeObject` query parameter's value.
    pub fn parse(value: Option<&str>) -> Include {
        match value {
            Some("None") => Include::None,
            Some("Object") => Include::Object,
            _ => Include::Metadata,
        }
    }
}

/// A Table of `objects` of `kind` at `now`, at resourceVersion `revision`.
pub fn table(
    kind: &Kind,
    objects: &[Arc<Object>],
    now: SimTime,
    revision: Option<u64>,
    include: Include,
) -> Value {
    let (header, rows) = kubectl_printers::header_and_rows(kind.kind, objects, now);
    let mut columns: Vec<Value> = header.iter().map(|h| column(h, 0)).collect();
    let wide = kubectl_printers::wide::header(kind.kind);
    columns.extend(wide.iter().map(|h| column(h, 1)));
    let rows: Vec<Value> = objects
        .iter()
        .zip(rows)
        .map(|(object, mut cells)| {
            cells.extend(kubectl_printers::wide::cells(object));
            let mut row = json!({ "cells": cells });
            if let Some(carried) = carried(object, include) {
                row["object"] = carried;
            }
            row
        })
        .collect();
    let mut metadata = json!({});
    if let Some(revision) = revision {
        metadata["resourceVersion"] = json!(revision.to_string());
    }
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata,
        "columnDefinitions": columns,
        "rows": rows,
    })
}

fn carried(object: &Object, include: Include) -> Option<Value> {
    match include {
        Include::None => None,
        Include::Object => Some(object.to_json()),
        Include::Metadata => Some(json!({
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": serde_json::to_value(object.metadata()).unwrap_or_default(),
        })),
    }
}

/// A column definition; its name is the header as the API server spells
/// it (`Nominated Node`), which kubectl prints in capitals.
fn column(header: &str, priority: u8) -> Value {
    let format = if header == "NAME" { "name" } else { "" };
    json!({
        "name": title(header),
        "type": "string",
        "format": format,
        "description": "",
        "priority": priority,
    })
}

/// `NOMINATED NODE` → `Nominated Node`, `CLUSTER-IP` → `Cluster-IP`.
fn title(header: &str) -> String {
    const KEPT: [&str; 5] = ["IP", "IPS", "OS", "CIDR", "PORT(S)"];
    let mut out = String::with_capacity(header.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if KEPT.contains(&word.as_str()) {
            out.push_str(word);
        } else {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                out.push(first);
                out.extend(chars.flat_map(char::to_lowercase));
            }
        }
        word.clear();
    };
    for c in header.chars() {
        if c == ' ' || c == '-' {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_spelled_as_the_api_server_spells_them() {
        assert_eq!(title("NAME"), "Name");
        assert_eq!(title("NOMINATED NODE"), "Nominated Node");
        assert_eq!(title("CLUSTER-IP"), "Cluster-IP");
        assert_eq!(title("PORT(S)"), "PORT(S)");
    }

    #[test]
    fn kubectl_asks_tables_with_its_accept_header() {
        assert!(wants_table(
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
        ));
        assert!(!wants_table("application/json"));
    }

    #[test]
    fn a_pod_row_has_kubectls_cells_and_the_wide_ones() {
        let mut engine = podflow_engine::testing::nginx_engine();
        engine.run_until(podflow_engine::engine::Until::Idle);
        let pods = engine
            .store()
            .list(&podflow_engine::store::WatchFilter::all(
                podflow_model::kinds::kind_of("Pod"),
            ));
        let node = pods[0]
            .as_pod()
            .and_then(|p| p.spec.as_ref()?.node_name.clone())
            .unwrap();
        let t = table(
            podflow_model::kinds::kind_of("Pod"),
            &pods,
            SimTime(60_000),
            Some(7),
            Include::Metadata,
        );
        let names: Vec<&str> = t["columnDefinitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "Name",
                "Ready",
                "Status",
                "Restarts",
                "Age",
                "IP",
                "Node",
                "Nominated Node",
                "Readiness Gates"
            ]
        );
        assert_eq!(t["metadata"]["resourceVersion"], "7");
        assert_eq!(t["rows"][0]["cells"][0], "nginx");
        assert_eq!(t["rows"][0]["cells"][6], node.as_str());
        assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    }
}
