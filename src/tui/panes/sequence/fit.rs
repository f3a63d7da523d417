//! Fitting text into the diagram's cells: widths, cut labels, short column
//! headers and the arrows' text.

use std::borrow::Cow;

use ratatui::text::Span;

use crate::tui::wrap::path_tail;
pub(super) use crate::tui::wrap::truncate;
use podflow_engine::trace::Actor;

/// Display width of a string (double-width aware).
pub(super) fn width(s: &str) -> usize {
    Span::raw(s).width()
}

/// A label cut to `max` columns. A label that ends in a path or an image
/// (`POST /api/…/pods`, `txn put /registry/…`, `pull docker.io/…`) keeps its
/// verb and the path's end (`PATCH …/nginx/status`); any other keeps its
/// start (`404 pods "ng…`).
pub(super) fn fit_label(label: &str, max: usize) -> String {
    if width(label) <= max {
        return label.to_owned();
    }
    if let Some((verb, path)) = label.rsplit_once(' ')
        && path.contains('/')
        && !verb.is_empty()
        && !verb.contains('/')
    {
        let keep = max.saturating_sub(width(verb) + 2);
        if keep >= 4 {
            return format!("{verb} …{}", path_tail(path, keep));
        }
    }
    truncate(label, max)
}

/// `node-3` → `n3`, `worker-12` → `w12`; other names as they are.
fn short_node(node: &str) -> Cow<'_, str> {
    match node.rsplit_once('-') {
        Some((prefix, digits))
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            let first = prefix.chars().next().map(String::from).unwrap_or_default();
            Cow::Owned(format!("{first}{digits}"))
        }
        _ => Cow::Borrowed(node),
    }
}

/// The header of a column `max` cells wide: the full name when it fits,
/// else the first shorter form that does, else the shortest cut to fit.
pub fn header(name: &str, max: usize) -> String {
    // A node's merged lifeline (`node/node-3`): the node's name.
    let node_lane = name.strip_prefix("node/");
    let candidates: Vec<String> = match node_lane.map_or_else(|| Actor::parse(name), |_| None) {
        None if let Some(node) = node_lane => vec![node.into(), short_node(node).into_owned()],
        Some(Actor::Kubectl) => vec![name.into(), "kctl".into()],
        Some(Actor::ApiServer) => vec![name.into(), "apiserver".into(), "api".into()],
        Some(Actor::ControllerManager) => vec![
            name.into(),
            "controller-manager".into(),
            "ctrl-mgr".into(),
            "kcm".into(),
        ],
        Some(Actor::Scheduler) => vec![name.into(), "scheduler".into(), "sched".into()],
        Some(Actor::Registry) => vec![name.into(), "reg".into()],
        Some(Actor::Etcd) | None => vec![name.into()],
        // `kubectl/v1.33.1`: the product alone when the version does not fit.
        Some(Actor::Client(_)) => {
            let product = name.split_once('/').map_or(name, |(p, _)| p);
            vec![name.into(), product.into()]
        }
        Some(
            actor @ (Actor::Kubelet(_)
            | Actor::Containerd(_)
            | Actor::Cni(_)
            | Actor::Csi(_)
            | Actor::KubeProxy(_)),
        ) => {
            let role = actor.role();
            let short = match actor {
                Actor::Kubelet(_) => "klet",
                Actor::Containerd(_) => "ctrd",
                Actor::KubeProxy(_) => "kp",
                _ => role,
            };
            let node = short_node(actor.node().unwrap_or_default());
            vec![
                name.into(),
                format!("{role}/{node}"),
                format!("{short}/{node}"),
                role.into(),
                short.into(),
            ]
        }
    };
    candidates
        .iter()
        .find(|c| width(c) <= max)
        .cloned()
        .unwrap_or_else(|| {
            let last = candidates.last().map_or(name, String::as_str);
            last.chars().take(max).collect()
        })
}

/// The text of an arrow `cells` wide pointing right (or left), the label
/// inside it, cut to fit.
pub(super) fn arrow_text(label: &str, cells: usize, right: bool, dashed: bool) -> String {
    let dash = if dashed { "┄" } else { "─" };
    if cells == 0 {
        return String::new();
    }
    let head = if right { "▶" } else { "◀" };
    // One dash either side of the label, and the head.
    let room = cells.saturating_sub(3);
    let label = if room == 0 {
        String::new()
    } else {
        fit_label(label, room)
    };
    let body_width = cells - 1;
    let mut body = String::new();
    if !label.is_empty() {
        body.push_str(dash);
        body.push_str(&label);
    }
    let used = width(&body);
    body.push_str(&dash.repeat(body_width.saturating_sub(used)));
    if right {
        body + head
    } else {
        format!("{head}{body}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_shorten_to_fit() {
        let cases = [
            ("kube-apiserver", 20, "kube-apiserver"),
            ("kube-apiserver", 9, "apiserver"),
            ("kube-apiserver", 5, "api"),
            ("kube-scheduler", 9, "scheduler"),
            ("kube-scheduler", 6, "sched"),
            ("kube-controller-manager", 10, "ctrl-mgr"),
            ("kubelet/node-1", 14, "kubelet/node-1"),
            ("kubelet/node-1", 10, "kubelet/n1"),
            ("kubelet/node-1", 7, "klet/n1"),
            ("containerd/node-12", 13, "ctrd/n12"),
            ("cni/node-3", 6, "cni/n3"),
            ("registry", 4, "reg"),
            ("kubectl", 2, "kc"),
            ("etcd", 1, "e"),
            ("node/node-3", 9, "node-3"),
            ("node/node-3", 5, "n3"),
        ];
        for (name, max, want) in cases {
            assert_eq!(header(name, max), want, "{name} in {max}");
        }
    }

    #[test]
    fn arrows_point_both_ways_and_cut_their_labels() {
        let cases = [
            ("POST /api", 12, true, false, "─POST /api─▶"),
            ("POST /api/v1/namespaces", 12, true, false, "─POST /ap…─▶"),
            (
                "POST /api/v1/namespaces/default/pods",
                22,
                true,
                false,
                "─POST …/default/pods─▶",
            ),
            ("201 Created", 14, false, true, "◀┄201 Created┄"),
            ("x", 2, true, false, "─▶"),
            ("x", 1, false, false, "◀"),
            ("x", 0, true, false, ""),
        ];
        for (label, cells, right, dashed, want) in cases {
            let text = arrow_text(label, cells, right, dashed);
            assert_eq!(text, want, "{label} in {cells}");
            assert_eq!(width(&text), cells);
        }
    }

    #[test]
    fn labels_keep_the_verb_and_the_end_of_the_path() {
        let cases = [
            (
                "POST /api/v1/namespaces/default/pods",
                40,
                "POST /api/v1/namespaces/default/pods",
            ),
            (
                "POST /api/v1/namespaces/default/pods",
                20,
                "POST …/default/pods",
            ),
            (
                "PATCH /api/v1/namespaces/default/pods/nginx/status",
                20,
                "PATCH …/nginx/status",
            ),
            ("GET /api/v1/namespaces/default/pods/nginx", 9, "GET …ginx"),
            ("404 pods \"nginx\" not found", 10, "404 pods …"),
            ("RunPodSandbox", 5, "RunP…"),
            (
                "txn put /registry/pods/default/nginx",
                24,
                "txn put …/default/nginx",
            ),
            ("pull docker.io/library/nginx:1.27", 20, "pull …/nginx:1.27"),
            ("watch ADDED pods/default/nginx", 24, "watch ADDED …/nginx"),
            ("watch ADDED pods/default/nginx", 1, "…"),
        ];
        for (label, max, want) in cases {
            assert_eq!(fit_label(label, max), want, "{label} in {max}");
        }
    }
}
