//! Drawing the objects pane: the key list beside (or, when narrow, above) the
//! selected object's YAML.

use std::ops::Range;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::{Absent, Model, Shown};
use crate::tui::lang::Lang;
use crate::tui::panes::watch::filter_title;
use crate::tui::panes::{PaneCx, PaneId, block};
use crate::tui::wrap::wrap;

/// Inner widths from which the object goes beside the keys.
const SIDE_BY_SIDE: u16 = 90;

/// Draws the pane.
pub fn render(model: &Model, cx: &PaneCx<'_>, area: Rect, buf: &mut Buffer) {
    let block = block(PaneId::Objects, cx, &filter_title(&model.filter));
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.is_empty() {
        return;
    }
    if model.total == 0 && model.shown.is_none() {
        let text = if model.filter.is_empty() {
            cx.lang.pick("etcd holds no key", "etcd 中没有键")
        } else {
            cx.lang
                .pick("no key matches the filter", "没有匹配过滤条件的键")
        };
        Paragraph::new(Line::styled(text, cx.theme.dim)).render(inner, buf);
        return;
    }
    let widest = widest_row(model);
    if inner.width >= SIDE_BY_SIDE {
        let widest = u16::try_from(widest).unwrap_or(u16::MAX);
        let keys_width = widest.clamp(16, inner.width / 5 * 2);
        let keys = Rect::new(inner.x, inner.y, keys_width, inner.height);
        draw_rows(model, cx, usize::from(keys_width), keys, buf);
        for y in inner.top()..inner.bottom() {
            buf[(inner.x + keys_width, y)]
                .set_symbol("│")
                .set_style(cx.theme.border);
        }
        let object = Rect::new(
            inner.x + keys_width + 1,
            inner.y,
            inner.width - keys_width - 1,
            inner.height,
        );
        draw_object(model, cx, object, buf);
    } else {
        let wanted = u16::try_from(row_count(model)).unwrap_or(u16::MAX);
        let keys_height = wanted.min((inner.height / 2).max(1)).min(inner.height);
        let keys = Rect::new(inner.x, inner.y, inner.width, keys_height);
        let width = widest.min(usize::from(inner.width));
        draw_rows(model, cx, width, keys, buf);
        let rest = inner.height - keys_height;
        if rest == 0 {
            return;
        }
        let rule = Rect::new(inner.x, inner.y + keys_height, inner.width, 1);
        Paragraph::new(Line::styled(
            "─".repeat(usize::from(inner.width)),
            cx.theme.border,
        ))
        .render(rule, buf);
        let object = Rect::new(inner.x, rule.y + 1, inner.width, rest - 1);
        draw_object(model, cx, object, buf);
    }
}

/// The key list's lines at `width` columns: `* /registry/pods/default/nginx Running  62`,
/// dependents under their owners (`└ ReplicaSet web-7c5ddbdf54 3/3  64`),
/// statuses and revisions right-aligned, keys cut from the left
/// (`…/default/nginx`) when too long; then the "+N rbac objects" row.
/// Only the rows in `shown` are made.
fn key_rows<'a>(
    model: &Model,
    cx: &PaneCx<'_>,
    width: usize,
    shown: Range<usize>,
) -> Vec<Line<'a>> {
    let theme = cx.theme;
    let end = shown.end.min(model.keys.len());
    let mut rows: Vec<Line> = model.keys[shown.start.min(end)..end]
        .iter()
        .zip(shown.start..)
        .map(|(k, i)| {
            let mark = if k.changed {
                Span::styled("* ", theme.changed)
            } else {
                Span::raw("  ")
            };
            let revision = format!("  {}", k.mod_revision);
            let status = k
                .status
                .as_deref()
                .map(|st| format!(" {st}"))
                .unwrap_or_default();
            let room = width.saturating_sub(2 + revision.len() + status.chars().count());
            let guide = k.guide.chars().count();
            let label = if guide == 0 {
                cut_left(&k.label, room)
            } else {
                cut_label(&k.label, room.saturating_sub(guide))
            };
            let name = format!("{}{label}", k.guide);
            let pad = room.saturating_sub(name.chars().count());
            let status_style = match k.status.as_deref() {
                Some("Failed" | "Terminating") => theme.bad,
                Some(st) if st.ends_with("deleting") => theme.bad,
                _ => theme.dim,
            };
            let line = Line::from(vec![
                mark,
                Span::styled(k.guide.clone(), theme.border),
                Span::styled(label, theme.text),
                Span::raw(" ".repeat(pad)),
                Span::styled(status, status_style),
                Span::styled(revision, theme.dim),
            ]);
            if model.selected == Some(model.first + i) {
                line.patch_style(theme.active)
            } else {
                line
            }
        })
        .collect();
    if model.hidden_rbac > 0 && shown.contains(&model.keys.len()) {
        let text = match cx.lang {
            Lang::En => format!(
                "  +{} rbac objects (/clusterrole shows them)",
                model.hidden_rbac
            ),
            Lang::Zh => format!(
                "  +{} 个 RBAC 对象（/clusterrole 可显示）",
                model.hidden_rbac
            ),
        };
        rows.push(Line::styled(text, theme.dim));
    }
    rows
}

/// The widest key row's width, uncut.
fn widest_row(model: &Model) -> usize {
    model
        .keys
        .iter()
        .map(|k| {
            2 + k.guide.chars().count()
                + k.label.chars().count()
                + k.status.as_ref().map_or(0, |s| 1 + s.chars().count())
                + 2
                + k.mod_revision.to_string().len()
        })
        .max()
        .unwrap_or(0)
}

/// `key` cut to its last `room` characters behind a `…` (keys are ASCII paths).
fn cut_left(key: &str, room: usize) -> String {
    let count = key.chars().count();
    if count <= room {
        return key.to_owned();
    }
    if room == 0 {
        return String::new();
    }
    let tail: String = key.chars().skip(count - (room - 1)).collect();
    format!("…{tail}")
}

/// A dependent's `Kind name` cut to `room`: the kind kept, the name cut from
/// the left (`Pod …5854b-6cksn`); only the name's tail when even that is too long.
fn cut_label(label: &str, room: usize) -> String {
    if label.chars().count() <= room {
        return label.to_owned();
    }
    match label.split_once(' ') {
        Some((kind, name)) if kind.len() + 3 <= room => {
            format!("{kind} {}", cut_left(name, room - kind.len() - 1))
        }
        _ => cut_left(label, room),
    }
}

/// How many rows the key list has: the keys, and the "+N rbac objects" row.
fn row_count(model: &Model) -> usize {
    model.keys.len() + usize::from(model.hidden_rbac > 0)
}

/// Draws the rows that fit, the selected one in view.
fn draw_rows(model: &Model, cx: &PaneCx<'_>, width: usize, area: Rect, buf: &mut Buffer) {
    if area.is_empty() {
        return;
    }
    let height = usize::from(area.height);
    let at = model.selected.map_or(0, |s| s - model.first);
    // An owner tree reads from its root down: start at the selection's root
    // row when the selection still shows from there, else centre it.
    let root = model
        .keys
        .get(..=at)
        .and_then(|above| above.iter().rposition(|k| k.guide.is_empty()))
        .unwrap_or(at);
    let top = if at - root < height {
        root
    } else {
        at.saturating_sub(height.saturating_sub(1) / 2)
    };
    let top = top.min(row_count(model).saturating_sub(height));
    let shown = key_rows(model, cx, width, top..top + height);
    Paragraph::new(shown).render(area, buf);
}

/// Draws the selected object: a header naming it and what the step changed,
/// then its YAML, the first interesting change in view.
fn draw_object(model: &Model, cx: &PaneCx<'_>, area: Rect, buf: &mut Buffer) {
    if area.is_empty() {
        return;
    }
    let Some(shown) = &model.shown else {
        if let Some(absent) = &model.absent {
            let width = usize::from(area.width);
            Paragraph::new(absent_lines(absent, cx, width)).render(area, buf);
        }
        return;
    };
    let theme = cx.theme;
    let header = Rect::new(area.x, area.y, area.width, 1);
    Paragraph::new(header_line(shown, cx, usize::from(area.width))).render(header, buf);
    let height = usize::from(area.height - 1);
    if height == 0 {
        return;
    }
    let natural = shown.focus.map_or(0, |f| f.saturating_sub(height / 3));
    let top = natural
        .saturating_add(model.scroll)
        .min(shown.lines.len().saturating_sub(height));
    let lines: Vec<Line> = shown
        .lines
        .iter()
        .skip(top)
        .take(height)
        .map(|l| {
            let style = if l.changed { theme.changed } else { theme.text };
            Line::styled(l.text.clone(), style)
        })
        .collect();
    let body = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
    Paragraph::new(lines).render(body, buf);
}

/// Fewer characters than this are not cut from a key in the header to make
/// room for the note after the revision (only for the revision itself).
const HEADER_KEY_MIN: usize = 16;

/// `/registry/pods/default/nginx  rev 60 · changed: spec.nodeName, …`; in
/// `width` columns, the key is cut from the left (the key list above names
/// it whole) so that what the step did stays in sight, and the revision
/// whole however narrow (a cut `rev 101` would read `rev 10`).
fn header_line<'a>(shown: &Shown, cx: &PaneCx<'_>, width: usize) -> Line<'a> {
    let theme = cx.theme;
    let lang = cx.lang;
    let mut spans = vec![Span::styled(
        format!(" {} {}", lang.pick("rev", "版本"), shown.revision),
        theme.dim,
    )];
    if shown.deleted {
        spans.push(Span::styled(
            format!(" · {}", lang.pick("deleted at this step", "此步被删除")),
            theme.bad,
        ));
    } else if shown.created {
        spans.push(Span::styled(
            format!(" · {}", lang.pick("created at this step", "此步新建")),
            theme.ok,
        ));
    } else if !shown.changed_paths.is_empty() {
        spans.push(Span::styled(
            format!(
                " · {} {}",
                lang.pick("changed:", "改动:"),
                interesting_first(&shown.changed_paths).join(", ")
            ),
            theme.changed,
        ));
    }
    let tail: usize = spans.iter().map(Span::width).sum();
    let beside_revision = width.saturating_sub(spans[0].width());
    let room = width
        .saturating_sub(tail)
        .max(HEADER_KEY_MIN.min(beside_revision));
    spans.insert(0, Span::styled(cut_left(&shown.key, room), theme.component));
    Line::from(spans)
}

/// The story's object while etcd does not hold it: its key (cut from the
/// left), then what that means, wrapped to `width` columns.
fn absent_lines<'a>(absent: &Absent, cx: &PaneCx<'_>, width: usize) -> Vec<Line<'a>> {
    let lang = cx.lang;
    let text = if absent.deleted {
        lang.pick(
            "Deleted: etcd no longer holds this key. Its watchers were sent its last state.",
            "已删除:etcd 中已没有这个键。它的 watcher 收到了它的最后状态。",
        )
    } else {
        lang.pick(
            "Not in etcd yet: the API server writes an object to etcd only after \
             authentication, authorization, admission and validation let the request through.",
            "尚未写入 etcd:只有请求通过认证、鉴权、准入与校验后,API server 才把对象写入 etcd。",
        )
    };
    let mut lines = vec![Line::styled(
        cut_left(&absent.key, width),
        cx.theme.component,
    )];
    lines.extend(
        wrap(text, width)
            .into_iter()
            .map(|l| Line::styled(l, cx.theme.dim)),
    );
    lines
}

/// The changed paths with `metadata.resourceVersion` (every write changes it) last.
fn interesting_first(paths: &[String]) -> Vec<&str> {
    let (noise, mut out): (Vec<&str>, Vec<&str>) = paths
        .iter()
        .map(String::as_str)
        .partition(|p| *p == "metadata.resourceVersion");
    out.extend(noise);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_left_table() {
        let cases = [
            (
                "/registry/pods/default/nginx",
                40,
                "/registry/pods/default/nginx",
            ),
            ("/registry/pods/default/nginx", 10, "…ult/nginx"),
            ("/registry/pods/default/nginx", 1, "…"),
            ("/registry/pods/default/nginx", 0, ""),
        ];
        for (key, room, want) in cases {
            assert_eq!(cut_left(key, room), want, "{key} {room}");
        }
    }

    #[test]
    fn a_narrow_header_cuts_the_key_not_what_the_step_did() {
        let shown = Shown {
            key: "/registry/replicasets/default/web-69c6f74b8b".to_owned(),
            revision: 82,
            changed_paths: vec!["status.replicas".to_owned()],
            ..Shown::default()
        };
        let t = crate::tui::testing::nginx_timeline();
        let text = |width: usize| {
            crate::tui::testing::with_cx(&t, 0, &crate::tui::panes::PaneState::default(), |cx| {
                header_line(&shown, cx, width).to_string()
            })
        };
        assert_eq!(
            text(100),
            "/registry/replicasets/default/web-69c6f74b8b rev 82 · changed: status.replicas"
        );
        assert_eq!(
            text(52),
            "…lt/web-69c6f74b8b rev 82 · changed: status.replicas"
        );
        // Never fewer than 16 characters of the key: the note is cut instead.
        assert!(
            text(24).starts_with("…/web-69c6f74b8b rev 82"),
            "{}",
            text(24)
        );
        // Narrower, the key gives way to the revision, which stays whole.
        assert_eq!(text(20), "…b-69c6f74b8b rev 82 · changed: status.replicas");
        assert_eq!(text(7), " rev 82 · changed: status.replicas");
    }

    #[test]
    fn cut_label_keeps_the_kind() {
        let cases = [
            ("Pod web-66fd85854b-6cksn", 40, "Pod web-66fd85854b-6cksn"),
            ("Pod web-66fd85854b-6cksn", 16, "Pod …5854b-6cksn"),
            ("ReplicaSet web-66fd85854b", 12, "…-66fd85854b"),
        ];
        for (label, room, want) in cases {
            assert_eq!(cut_label(label, room), want, "{label} {room}");
        }
    }

    #[test]
    fn resource_version_goes_last() {
        let paths = [
            "metadata.resourceVersion".to_owned(),
            "spec.nodeName".to_owned(),
        ];
        assert_eq!(
            interesting_first(&paths),
            ["spec.nodeName", "metadata.resourceVersion"]
        );
    }
}
