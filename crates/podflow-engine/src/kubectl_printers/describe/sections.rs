//! What kubectl's describers share (`pkg/describe/describe.go`): the
//! `PrefixWriter` over `text/tabwriter` that aligns every `Name:\tvalue`
//! block, the labels, annotations, taints and tolerations blocks, the Events
//! table (`DescribeEvents`), and the times and selectors they print.

use std::collections::BTreeMap;
use std::fmt::{Display, Write as _};
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Event, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, MicroTime, ObjectMeta, Time};

use super::super::age;
use crate::clock::SimTime;
use podflow_model::Object;
use podflow_model::quantity::ParsedQuantity;

/// `LEVEL_0`..`LEVEL_3`: each level indents two more spaces.
pub const LEVEL_0: usize = 0;
pub const LEVEL_1: usize = 1;
pub const LEVEL_2: usize = 2;
pub const LEVEL_3: usize = 3;

/// The annotation `printAnnotationsMultiline` never shows (`skipAnnotations`).
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// An annotation longer than this is folded and cut (`maxAnnotationLen`).
const MAX_ANNOTATION_LEN: usize = 140;

/// Go's zero `time.Time` in RFC 1123 with a numeric zone, what kubectl prints
/// for a timestamp the object lacks.
const ZERO_TIME: &str = "Mon, 01 Jan 0001 00:00:00 +0000";

/// kubectl's `PrefixWriter` writing into a `tabwriter` (`tabbedString`:
/// minwidth 0, tabwidth 8, padding 2, spaces): text goes in with `\t` between
/// cells, and [`Writer::finish`] aligns it.
#[derive(Debug, Default)]
pub struct Writer {
    text: String,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// `Write(level, ...)`: `text` after two spaces per level.
    pub fn write(&mut self, level: usize, text: &str) {
        for _ in 0..level {
            self.text.push_str("  ");
        }
        self.text.push_str(text);
    }

    /// `text` and the end of its line.
    pub fn line(&mut self, level: usize, text: &str) {
        self.write(level, text);
        self.text.push('\n');
    }

    /// `Write(level, "Name:\t%s\n", value)`.
    pub fn field(&mut self, level: usize, name: &str, value: impl Display) {
        self.line(level, &format!("{name}:\t{value}"));
    }

    /// The lines the tabwriter prints once flushed.
    pub fn finish(self) -> Vec<String> {
        align(&self.text)
    }
}

/// One cell of a tabwriter line.
struct Cell<'a> {
    text: &'a str,
    /// Its width in runes, as `text/tabwriter` counts it.
    width: usize,
}

/// `text/tabwriter` (flags 0, padding 2): each run of consecutive lines that
/// have a tab-terminated cell in a column is a column block, padded to its
/// widest cell plus two; a line with fewer cells ends the block. The text
/// after a line's last tab belongs to no column.
fn align(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    let lines: Vec<Vec<Cell>> = body
        .split('\n')
        .map(|line| {
            line.split('\t')
                .map(|text| Cell {
                    text,
                    width: text.chars().count(),
                })
                .collect()
        })
        .collect();
    let mut out = Vec::with_capacity(lines.len());
    format_block(&lines, &mut Vec::new(), 0, lines.len(), &mut out);
    out
}

/// `(*Writer).format`: the column blocks of `widths.len()` within `lines[start..end]`.
fn format_block(
    lines: &[Vec<Cell>],
    widths: &mut Vec<usize>,
    start: usize,
    end: usize,
    out: &mut Vec<String>,
) {
    let column = widths.len();
    let has_column = |line: &Vec<Cell>| column + 1 < line.len();
    let mut written = start;
    let mut this = start;
    while this < end {
        if !has_column(&lines[this]) {
            this += 1;
            continue;
        }
        write_lines(lines, widths, written, this, out);
        let block = this;
        let mut width = 0;
        while this < end && has_column(&lines[this]) {
            width = width.max(lines[this][column].width + 2);
            this += 1;
        }
        widths.push(width);
        format_block(lines, widths, block, this, out);
        widths.pop();
        written = this;
    }
    write_lines(lines, widths, written, end, out);
}

/// `(*Writer).writeLines`: each cell padded to its column's width.
fn write_lines(
    lines: &[Vec<Cell>],
    widths: &[usize],
    start: usize,
    end: usize,
    out: &mut Vec<String>,
) {
    for line in &lines[start..end] {
        let mut text = String::new();
        for (j, cell) in line.iter().enumerate() {
            text.push_str(cell.text);
            if let Some(width) = widths.get(j) {
                text.extend(std::iter::repeat_n(' ', width.saturating_sub(cell.width)));
            }
        }
        out.push(text);
    }
}

/// `printLabelsMultiline`: `Title:\tk=v`, each further label under the first, sorted.
pub fn labels(w: &mut Writer, title: &str, labels: Option<&BTreeMap<String, String>>) {
    w.write(LEVEL_0, &format!("{title}:\t"));
    let Some(labels) = labels.filter(|l| !l.is_empty()) else {
        w.line(LEVEL_0, "<none>");
        return;
    };
    for (i, (key, value)) in labels.iter().enumerate() {
        if i != 0 {
            w.write(LEVEL_0, "\t");
        }
        w.line(LEVEL_0, &format!("{key}={value}"));
    }
}

/// `printAnnotationsMultiline`: as [`labels`] with `k: v`, without
/// `last-applied-configuration`; a long or multi-line value goes on lines of
/// its own, each cut at 138 bytes.
pub fn annotations(w: &mut Writer, title: &str, annotations: Option<&BTreeMap<String, String>>) {
    w.write(LEVEL_0, &format!("{title}:\t"));
    let shown: Vec<(&String, &String)> = annotations
        .into_iter()
        .flatten()
        .filter(|(key, _)| key.as_str() != LAST_APPLIED)
        .collect();
    if shown.is_empty() {
        w.line(LEVEL_0, "<none>");
        return;
    }
    for (i, (key, value)) in shown.into_iter().enumerate() {
        if i != 0 {
            w.write(LEVEL_0, "\t");
        }
        let value = value.strip_suffix('\n').unwrap_or(value);
        if value.len() + key.len() + 2 > MAX_ANNOTATION_LEN || value.contains('\n') {
            w.line(LEVEL_0, &format!("{key}:"));
            for part in value.split('\n') {
                w.line(
                    LEVEL_0,
                    &format!("\t  {}", shorten(part, MAX_ANNOTATION_LEN - 2)),
                );
            }
        } else {
            w.line(LEVEL_0, &format!("{key}: {value}"));
        }
    }
}

/// `shorten`: the first `max` bytes and `...` (cut back to a character boundary).
fn shorten(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// `printNodeTaintsMultiline`: sorted by effect then key, `Taint.ToString()` each.
pub fn taints(w: &mut Writer, title: &str, taints: &[Taint]) {
    w.write(LEVEL_0, &format!("{title}:\t"));
    if taints.is_empty() {
        w.line(LEVEL_0, "<none>");
        return;
    }
    let mut sorted: Vec<&Taint> = taints.iter().collect();
    sorted.sort_by_key(|t| format!("{},{}", t.effect, t.key));
    for (i, taint) in sorted.into_iter().enumerate() {
        if i != 0 {
            w.write(LEVEL_0, "\t");
        }
        let value = taint.value.as_deref().unwrap_or_default();
        let text = match (taint.effect.is_empty(), value.is_empty()) {
            (true, true) => taint.key.clone(),
            (true, false) => format!("{}={value}:", taint.key),
            (false, true) => format!("{}:{}", taint.key, taint.effect),
            (false, false) => format!("{}={value}:{}", taint.key, taint.effect),
        };
        w.line(LEVEL_0, &text);
    }
}

/// `printPodTolerationsMultiline`: sorted by key,
/// `key=value:Effect op=Exists for 300s`.
pub fn tolerations(w: &mut Writer, title: &str, tolerations: &[Toleration]) {
    w.write(LEVEL_0, &format!("{title}:\t"));
    if tolerations.is_empty() {
        w.line(LEVEL_0, "<none>");
        return;
    }
    let mut sorted: Vec<&Toleration> = tolerations.iter().collect();
    sorted.sort_by(|a, b| a.key.as_deref().cmp(&b.key.as_deref()));
    for (i, toleration) in sorted.into_iter().enumerate() {
        if i != 0 {
            w.write(LEVEL_0, "\t");
        }
        let key = toleration.key.as_deref().unwrap_or_default();
        let value = toleration.value.as_deref().unwrap_or_default();
        let effect = toleration.effect.as_deref().unwrap_or_default();
        let mut text = key.to_owned();
        if !value.is_empty() {
            text.push('=');
            text.push_str(value);
        }
        if !effect.is_empty() {
            text.push(':');
            text.push_str(effect);
        }
        if toleration.operator.as_deref() == Some("Exists") && value.is_empty() {
            if key.is_empty() && effect.is_empty() {
                text.push_str("op=Exists");
            } else {
                text.push_str(" op=Exists");
            }
        }
        if let Some(seconds) = toleration.toleration_seconds {
            let _ = write!(text, " for {seconds}s");
        }
        w.line(LEVEL_0, &text);
    }
}

/// `DescribeEvents`: `Events:\t<none>`, or the table (Type, Reason, Age, From,
/// Message) oldest `lastTimestamp` first; a repeated Event's Age reads
/// `10s (x4 over 2m)`.
pub fn events(w: &mut Writer, events: &[Arc<Object>], now: SimTime) {
    let mut events: Vec<&Event> = events.iter().filter_map(|o| o.get::<Event>()).collect();
    if events.is_empty() {
        w.field(LEVEL_0, "Events", "<none>");
        return;
    }
    // Go's sort.Sort leaves ties in place for up to 12 events, as a stable sort does.
    events.sort_by_key(|e| e.last_timestamp.as_ref().map(|t| t.0));
    w.line(LEVEL_0, "Events:");
    w.line(LEVEL_1, "Type\tReason\tAge\tFrom\tMessage");
    w.line(LEVEL_1, "----\t------\t----\t----\t-------");
    for event in events {
        let first = match &event.event_time {
            Some(t) => since_micro(Some(t), now),
            None => age(event.first_timestamp.as_ref(), now),
        };
        let count = event.count.unwrap_or(0);
        let interval = match &event.series {
            Some(series) => format!(
                "{} (x{} over {first})",
                since_micro(series.last_observed_time.as_ref(), now),
                series.count.unwrap_or(0)
            ),
            None if count > 1 => format!(
                "{} (x{count} over {first})",
                age(event.last_timestamp.as_ref(), now)
            ),
            None => first,
        };
        let source = event
            .source
            .as_ref()
            .and_then(|s| s.component.as_deref())
            .filter(|c| !c.is_empty())
            .or(event.reporting_component.as_deref())
            .unwrap_or_default();
        let mut message = event
            .message
            .as_deref()
            .unwrap_or_default()
            .trim()
            .to_owned();
        if let Some(path) = event
            .involved_object
            .field_path
            .as_deref()
            .filter(|p| !p.is_empty())
        {
            message = format!("{path}: {message}");
        }
        w.line(
            LEVEL_1,
            &format!(
                "{}\t{}\t{interval}\t{source}\t{message}",
                event.type_.as_deref().unwrap_or_default(),
                event.reason.as_deref().unwrap_or_default(),
            ),
        );
    }
}

/// `translateMicroTimestampSince`: the age of a `MicroTime`, `<unknown>` without one.
fn since_micro(time: Option<&MicroTime>, now: SimTime) -> String {
    let Some(time) = time else {
        return "<unknown>".into();
    };
    let (seconds, nanos) = now.unix();
    let now_ms = seconds * 1000 + i64::from(nanos / 1_000_000);
    // `int(d.Seconds())` truncates toward zero, as integer division does.
    super::super::human_duration((now_ms - time.0.as_millisecond()) / 1000)
}

/// `Time.Format(time.RFC1123Z)` in UTC: `Mon, 30 Nov 2026 02:20:31 +0000`;
/// Go's zero time for a timestamp the object lacks.
pub fn rfc1123z(time: Option<&Time>) -> String {
    time.map_or_else(
        || ZERO_TIME.to_owned(),
        |t| t.0.strftime("%a, %d %b %Y %H:%M:%S +0000").to_string(),
    )
}

/// [`rfc1123z`] of a `MicroTime` (a Lease's times).
pub fn rfc1123z_micro(time: Option<&MicroTime>) -> String {
    rfc1123z(time.map(|t| Time(t.0)).as_ref())
}

/// `printBool`: `True` or `False`.
pub fn print_bool(value: bool) -> &'static str {
    if value { "True" } else { "False" }
}

/// `stringOrNone`.
pub fn or_none(value: &str) -> &str {
    if value.is_empty() { "<none>" } else { value }
}

/// `Quantity.String()`: the canonical form (`500m`, `128Mi`).
pub fn quantity(q: &Quantity) -> String {
    ParsedQuantity::parse(&q.0).map_or_else(|_| q.0.clone(), |p| p.to_string())
}

/// `labels.FormatLabels`: `k=v,k2=v2` sorted, `<none>` when empty.
pub fn format_labels(labels: Option<&BTreeMap<String, String>>) -> String {
    let joined = labels
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    if joined.is_empty() {
        "<none>".into()
    } else {
        joined
    }
}

/// `LabelSelectorAsSelector(s).String()`: the requirements sorted by key,
/// set values sorted (`app=web,tier in (a,b),!canary`); empty for a nil or
/// empty selector.
pub fn selector_string(selector: Option<&LabelSelector>) -> String {
    let Some(selector) = selector else {
        return String::new();
    };
    let mut requirements: Vec<(String, String)> = selector
        .match_labels
        .iter()
        .flatten()
        .map(|(k, v)| (k.clone(), format!("{k}={v}")))
        .collect();
    for expression in selector.match_expressions.iter().flatten() {
        let mut values = expression.values.clone().unwrap_or_default();
        values.sort();
        let values = values.join(",");
        let key = &expression.key;
        let text = match expression.operator.as_str() {
            "In" => format!("{key} in ({values})"),
            "NotIn" => format!("{key} notin ({values})"),
            "Exists" => key.clone(),
            "DoesNotExist" => format!("!{key}"),
            other => format!("{key} {other} ({values})"),
        };
        requirements.push((key.clone(), text));
    }
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    requirements
        .into_iter()
        .map(|(_, text)| text)
        .collect::<Vec<_>>()
        .join(",")
}

/// `metav1.FormatLabelSelector`: [`selector_string`], `<none>` when empty.
pub fn format_label_selector(selector: Option<&LabelSelector>) -> String {
    let text = selector_string(selector);
    if text.is_empty() {
        "<none>".into()
    } else {
        text
    }
}

/// `printController`: `Kind/name` of the controller owner, if any.
pub fn controlled_by(meta: &ObjectMeta) -> Option<String> {
    controller_ref(meta).map(|r| format!("{}/{}", r.kind, r.name))
}

/// `metav1.GetControllerOf`.
pub fn controller_ref(
    meta: &ObjectMeta,
) -> Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference> {
    meta.owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
}

/// `metav1.IsControlledBy(object, owner)`: the controller's UID is the owner's.
pub fn is_controlled_by(object: &ObjectMeta, owner: &ObjectMeta) -> bool {
    controller_ref(object).is_some_and(|r| r.uid == owner.uid.clone().unwrap_or_default())
}

/// The `Conditions:` table of workloads (`Type  Status  Reason`).
pub fn conditions_with_reason<'a>(
    w: &mut Writer,
    conditions: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>,
) {
    let conditions: Vec<_> = conditions.into_iter().collect();
    if conditions.is_empty() {
        return;
    }
    w.line(LEVEL_0, "Conditions:");
    w.line(LEVEL_1, "Type\tStatus\tReason");
    w.line(LEVEL_1, "----\t------\t------");
    for (kind, status, reason) in conditions {
        w.line(LEVEL_1, &format!("{kind} \t{status}\t{reason}"));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::clock::EPOCH_UNIX_SECONDS;

    fn aligned(text: &str) -> Vec<String> {
        let mut w = Writer::new();
        w.write(LEVEL_0, text);
        w.finish()
    }

    #[test]
    fn tabwriter_pads_each_column_block_to_its_widest_cell_plus_two() {
        // text/tabwriter with tabbedString's settings.
        assert_eq!(
            aligned(
                "Name:\tweb\nService Account:\tdefault\nIPs:\n  IP:\t10.0.0.1\nControlled By:\tReplicaSet/web\n"
            ),
            [
                "Name:             web",
                "Service Account:  default",
                "IPs:",
                "  IP:           10.0.0.1",
                "Controlled By:  ReplicaSet/web",
            ]
        );
    }

    #[test]
    fn tabwriter_nests_columns_and_keeps_trailing_text() {
        // One block while every line has a cell in the column; the second
        // column's block starts where the lines have one.
        assert_eq!(
            aligned("  Type\tStatus\n  Ready \tTrue \nx\ta\tb\nlonger\tc\td\n"),
            [
                "  Type    Status",
                "  Ready   True ",
                "x         a  b",
                "longer    c  d",
            ]
        );
        // An empty column (kubectl's `Name\t\tCPU Requests`) is two spaces wide.
        assert_eq!(aligned("a\t\tb\nccc\t\td\n"), ["a      b", "ccc    d"]);
    }

    #[test]
    fn labels_and_annotations_multiline() {
        let mut w = Writer::new();
        let map = |v: serde_json::Value| serde_json::from_value::<BTreeMap<String, String>>(v).ok();
        labels(
            &mut w,
            "Labels",
            map(json!({"app": "web", "pod-template-hash": "69c6f74b8b"})).as_ref(),
        );
        annotations(
            &mut w,
            "Annotations",
            map(json!({LAST_APPLIED: "{}", "note": "a\nb", "x": "y"})).as_ref(),
        );
        labels(&mut w, "Node-Selectors", None);
        assert_eq!(
            w.finish(),
            [
                "Labels:          app=web",
                "                 pod-template-hash=69c6f74b8b",
                "Annotations:     note:",
                "                   a",
                "                   b",
                "                 x: y",
                "Node-Selectors:  <none>",
            ]
        );
    }

    #[test]
    fn long_annotations_are_folded_and_cut() {
        let mut w = Writer::new();
        let long = "v".repeat(200);
        let map = BTreeMap::from([("k".to_owned(), long)]);
        annotations(&mut w, "Annotations", Some(&map));
        let lines = w.finish();
        assert_eq!(lines[0], "Annotations:  k:");
        assert_eq!(lines[1], format!("                {}...", "v".repeat(138)));
    }

    #[test]
    fn tolerations_as_print_pod_tolerations_multiline() {
        let tolerations: Vec<Toleration> = serde_json::from_value(json!([
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
            {"operator": "Exists"},
        ]))
        .unwrap();
        let mut w = Writer::new();
        self::tolerations(&mut w, "Tolerations", &tolerations);
        assert_eq!(
            w.finish(),
            [
                "Tolerations:  op=Exists",
                "              dedicated=gpu:NoSchedule",
                "              node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
                "              node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
            ]
        );
    }

    #[test]
    fn taints_sorted_by_effect_then_key() {
        let taints: Vec<Taint> = serde_json::from_value(json!([
            {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"},
            {"key": "dedicated", "value": "gpu", "effect": "NoExecute"},
        ]))
        .unwrap();
        let mut w = Writer::new();
        self::taints(&mut w, "Taints", &taints);
        self::taints(&mut w, "None", &[]);
        assert_eq!(
            w.finish(),
            [
                "Taints:  dedicated=gpu:NoExecute",
                "         node.kubernetes.io/unreachable:NoSchedule",
                "None:    <none>",
            ]
        );
    }

    /// A `metav1.Time` `secs` seconds after the simulation's epoch.
    fn at(secs: i64) -> String {
        k8s_openapi::jiff::Timestamp::from_second(EPOCH_UNIX_SECONDS + secs)
            .unwrap()
            .to_string()
    }

    fn event(value: serde_json::Value) -> Arc<Object> {
        Arc::new(Object::Event(serde_json::from_value(value).unwrap()))
    }

    #[test]
    fn describe_events_table() {
        // DescribeEvents: sorted by lastTimestamp, series as `(xN over M)`,
        // the field path before the message, the reporting controller when
        // the source is empty.
        let now = SimTime(300_000);
        let events = [
            event(
                json!({"metadata": {"name": "b"}, "involvedObject": {"fieldPath": "spec.containers{web}"},
                "type": "Warning", "reason": "BackOff", "message": "Back-off restarting failed container\n",
                "source": {"component": "kubelet"}, "count": 4,
                "firstTimestamp": at(180), "lastTimestamp": at(290)}),
            ),
            event(json!({"metadata": {"name": "a"}, "involvedObject": {},
                "type": "Normal", "reason": "Scheduled", "message": "Successfully assigned default/web to node-1",
                "reportingComponent": "default-scheduler",
                "firstTimestamp": at(60), "lastTimestamp": at(60)})),
        ];
        let mut w = Writer::new();
        self::events(&mut w, &events, now);
        assert_eq!(
            w.finish(),
            [
                "Events:",
                "  Type     Reason     Age               From               Message",
                "  ----     ------     ----              ----               -------",
                "  Normal   Scheduled  4m                default-scheduler  Successfully assigned default/web to node-1",
                "  Warning  BackOff    10s (x4 over 2m)  kubelet            spec.containers{web}: Back-off restarting failed container",
            ]
        );
        let mut w = Writer::new();
        self::events(&mut w, &[], now);
        assert_eq!(w.finish(), ["Events:  <none>"]);
    }

    #[test]
    fn times_and_selectors() {
        let t: Time = serde_json::from_value(json!("2026-11-30T02:20:31Z")).unwrap();
        assert_eq!(rfc1123z(Some(&t)), "Mon, 30 Nov 2026 02:20:31 +0000");
        assert_eq!(rfc1123z(None), "Mon, 01 Jan 0001 00:00:00 +0000");
        let selector: LabelSelector = serde_json::from_value(json!({
            "matchLabels": {"tier": "web", "app": "shop"},
            "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]},
                                 {"key": "canary", "operator": "DoesNotExist"}]
        }))
        .unwrap();
        assert_eq!(
            selector_string(Some(&selector)),
            "app=shop,!canary,env in (dev,prod),tier=web"
        );
        assert_eq!(
            format_label_selector(Some(&LabelSelector::default())),
            "<none>"
        );
        assert_eq!(format_labels(None), "<none>");
    }
}
