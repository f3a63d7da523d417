//! Floats that have no finite value, resolved as kubectl's YAML reader resolves them.
//!
//! go-yaml (`resolve.go`, as vendored by `sigs.k8s.io/yaml`) takes a plain scalar as a
//! float only when `strconv.ParseFloat` succeeds: `1e400` overflows, so it stays the
//! string `"1e400"` (which a Quantity then parses). `.inf` and `.nan` are floats, and
//! `sigs.k8s.io/yaml` cannot turn them into JSON: `json.Marshal` refuses them with
//! `json: unsupported value: +Inf` (`encoding/json`'s `UnsupportedValueError`).

use super::tree::{Node, NodeValue, ParseError};

/// Replaces every [`NodeValue::NonFinite`] under `node` by the string it was
/// written as, or refuses a `.inf` / `.nan` as kubectl does.
pub(crate) fn resolve(text: &str, node: &mut Node) -> Result<(), ParseError> {
    let mut lines: Option<Vec<&str>> = None;
    walk(text, &mut lines, node)
}

fn walk<'t>(
    text: &'t str,
    lines: &mut Option<Vec<&'t str>>,
    node: &mut Node,
) -> Result<(), ParseError> {
    match &mut node.value {
        NodeValue::Seq(items) => items.iter_mut().try_for_each(|n| walk(text, lines, n)),
        NodeValue::Map(entries) => entries
            .iter_mut()
            .try_for_each(|(_, n)| walk(text, lines, n)),
        NodeValue::NonFinite => {
            let lines = lines.get_or_insert_with(|| text.lines().collect());
            let raw = scalar_at(lines, node.line, node.column, 0);
            let special = raw.trim_start_matches(['+', '-']).starts_with('.');
            if special || raw.is_empty() {
                let shown = if raw.to_ascii_lowercase().contains("nan") {
                    "NaN"
                } else if raw.starts_with('-') {
                    "-Inf"
                } else {
                    "+Inf"
                };
                return Err(ParseError {
                    problem: format!(
                        "error converting YAML to JSON: json: unsupported value: {shown}"
                    ),
                    line: node.line,
                    column: node.column,
                    json: true,
                });
            }
            node.value = NodeValue::String(raw);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The plain scalar written at `line`:`column` (1-based, in characters), past
/// any anchor (`&a`) or tag (`!!float`) in front of it.
fn scalar_at(lines: &[&str], line: usize, column: usize, depth: usize) -> String {
    let Some(text) = lines.get(line.saturating_sub(1)) else {
        return String::new();
    };
    let mut rest: String = text.chars().skip(column.saturating_sub(1)).collect();
    while rest.starts_with(['&', '!']) {
        rest = rest
            .split_once(char::is_whitespace)
            .map_or(String::new(), |(_, after)| after.trim_start().to_owned());
    }
    let scalar: String = rest
        .chars()
        .take_while(|c| !matches!(c, ',' | ']' | '}' | '#') && !c.is_whitespace())
        .collect();
    match scalar.strip_prefix('*') {
        // Text that only looks like an alias (inside a quoted string) cannot chain for long.
        Some(alias) if depth < 4 => anchored(lines, line, alias, depth).unwrap_or_default(),
        Some(_) => String::new(),
        None => scalar,
    }
}

/// The scalar behind alias `*name` used on `line`: the nearest `&name` above it.
fn anchored(lines: &[&str], line: usize, name: &str, depth: usize) -> Option<String> {
    let anchor = format!("&{name}");
    (0..line.min(lines.len())).rev().find_map(|i| {
        let at = lines[i].rfind(&anchor)?;
        let after = &lines[i][at + anchor.len()..];
        if !after.starts_with(char::is_whitespace) {
            return None;
        }
        let column = lines[i][..at].chars().count() + 1;
        Some(scalar_at(lines, i + 1, column, depth + 1)).filter(|s| !s.starts_with('*'))
    })
}

#[cfg(test)]
mod tests {
    use super::super::tree::parse_yaml;

    #[test]
    fn overflowing_floats_stay_strings_and_infinities_are_refused() {
        let nodes = parse_yaml("a: 1e400\nb: [-1e999, 2]\nc: &x 1e500\nd: *x\n").unwrap();
        assert_eq!(
            nodes[0].to_json(),
            serde_json::json!({"a": "1e400", "b": ["-1e999", 2], "c": "1e500", "d": "1e500"})
        );
        let cases = [
            ("a: .inf\n", (1, 4), "+Inf"),
            ("a: {b: -.Inf}\n", (1, 8), "-Inf"),
            ("a:\n- .nan\n", (2, 3), "NaN"),
        ];
        for (text, (line, column), shown) in cases {
            let e = parse_yaml(text).unwrap_err();
            assert_eq!(
                (e.line, e.column, e.problem.as_str(), e.json),
                (
                    line,
                    column,
                    format!("error converting YAML to JSON: json: unsupported value: {shown}")
                        .as_str(),
                    true
                ),
                "{text}"
            );
        }
    }
}
