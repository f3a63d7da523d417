//! `kubectl get -o jsonpath=TEMPLATE`: kubectl's `JSONPath` templates
//! (`client-go/util/jsonpath`, `parser.go` and `jsonpath.go`), the part the
//! docs' tasks use: text, `{.field.path}`, `['quoted key']`, `[n]` (negative
//! from the end), `[*]`, `.*`, filters `[?(@.type=="Ready")]` with `==` and
//! `!=`, quoted literals (`{"\n"}`), and `{range …}…{end}`.
//!
//! As `kubectl get` runs it, missing keys print nothing; a string result
//! prints as it is, a map or list as compact JSON with its keys sorted, and
//! the results of one action are separated by spaces (`PrintResults`).

use serde_json::Value;

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    nodes: Vec<Node>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Text(String),
    Path(Vec<Step>),
    Range(Vec<Step>, Vec<Node>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Field(String),
    AllFields,
    Index(i64),
    AllItems,
    Filter {
        path: Vec<Step>,
        equal: bool,
        literal: Value,
    },
}

/// Reads `text`; the error is kubectl's (`error parsing jsonpath …`).
pub fn parse(text: &str) -> Result<Template, String> {
    let error = |why: &str| format!("error: error parsing jsonpath {text}, {why}");
    let mut stack: Vec<(Vec<Step>, Vec<Node>)> = Vec::new();
    let mut nodes = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let Some(open) = rest.find('{') else {
            nodes.push(Node::Text(rest.to_owned()));
            break;
        };
        if open > 0 {
            nodes.push(Node::Text(rest[..open].to_owned()));
        }
        let after = &rest[open + 1..];
        let close = action_end(after).ok_or_else(|| error("unclosed action"))?;
        let action = after[..close].trim();
        rest = &after[close + 1..];
        if let Some(path) = action.strip_prefix("range ") {
            stack.push((steps(path.trim()).map_err(|e| error(&e))?, nodes));
            nodes = Vec::new();
        } else if action == "end" {
            let (path, outer) = stack.pop().ok_or_else(|| error("not in range"))?;
            let body = std::mem::replace(&mut nodes, outer);
            nodes.push(Node::Range(path, body));
        } else if let Some(literal) = quoted(action) {
            nodes.push(Node::Text(literal));
        } else {
            nodes.push(Node::Path(steps(action).map_err(|e| error(&e))?));
        }
    }
    if !stack.is_empty() {
        return Err(error("unclosed range"));
    }
    Ok(Template { nodes })
}

/// Where the action opened before `text` closes, skipping quoted `}`.
fn action_end(text: &str) -> Option<usize> {
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '}') => return Some(i),
            _ => {}
        }
    }
    None
}

/// A quoted literal (`"\n"`, `'\t'`), its escapes read.
fn quoted(action: &str) -> Option<String> {
    let inner = action
        .strip_prefix('"')
        .and_then(|a| a.strip_suffix('"'))
        .or_else(|| action.strip_prefix('\'').and_then(|a| a.strip_suffix('\'')))?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    Some(out)
}

/// The steps of a path such as `.items[*].metadata.name` (`@` or `$` may lead).
fn steps(path: &str) -> Result<Vec<Step>, String> {
    let path = path.strip_prefix(['$', '@']).unwrap_or(path);
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            if after.starts_with('.') {
                return Err("recursive descent (..) is not supported by podflow".to_owned());
            }
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let name = &after[..end];
            match name {
                "" => {}
                "*" => out.push(Step::AllFields),
                _ => out.push(Step::Field(name.to_owned())),
            }
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let close = bracket_end(after).ok_or("unterminated array")?;
            out.push(bracket(after[..close].trim())?);
            rest = &after[close + 1..];
        } else {
            return Err(format!("unrecognized character in action: {rest}"));
        }
    }
    Ok(out)
}

fn bracket_end(text: &str) -> Option<usize> {
    let mut depth = 0;
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '(') => depth += 1,
            (None, ')') => depth -= 1,
            (None, ']') if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// What is between `[` and `]`.
fn bracket(inner: &str) -> Result<Step, String> {
    if inner == "*" {
        return Ok(Step::AllItems);
    }
    if let Some(key) = quoted(inner) {
        return Ok(Step::Field(key));
    }
    if let Some(filter) = inner.strip_prefix("?(").and_then(|f| f.strip_suffix(')')) {
        let (left, right, equal) = match (filter.split_once("=="), filter.split_once("!=")) {
            (Some((l, r)), _) => (l, r, true),
            (None, Some((l, r))) => (l, r, false),
            _ => return Err(format!("podflow's filters compare with == or !=: {filter}")),
        };
        let literal = match quoted(right.trim()) {
            Some(s) => Value::String(s),
            None => serde_json::from_str(right.trim())
                .map_err(|_| format!("unrecognized literal in filter: {}", right.trim()))?,
        };
        return Ok(Step::Filter {
            path: steps(left.trim())?,
            equal,
            literal,
        });
    }
    inner
        .parse()
        .map(Step::Index)
        .map_err(|_| format!("invalid array index {inner}"))
}

impl Template {
    /// The text the template makes of `data`.
    pub fn execute(&self, data: &Value) -> String {
        let mut out = String::new();
        run(&self.nodes, data, &mut out);
        out
    }
}

fn run(nodes: &[Node], data: &Value, out: &mut String) {
    for node in nodes {
        match node {
            Node::Text(text) => out.push_str(text),
            Node::Path(path) => {
                let results = walk(path, data);
                for (i, value) in results.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    match value {
                        Value::String(s) => out.push_str(s),
                        other => out.push_str(&go_json(other)),
                    }
                }
            }
            // Each result of the path in turn (`FindResults`): `.items[*]`
            // ranges over the items, `.items` runs once, on the list.
            Node::Range(path, body) => {
                for value in walk(path, data) {
                    run(body, value, out);
                }
            }
        }
    }
}

/// `json.Marshal`'s text: compact, and HTML's `<`, `>` and `&` escaped.
fn go_json(value: &Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// The values `path` reaches from `data`; missing keys reach nothing.
fn walk<'a>(path: &[Step], data: &'a Value) -> Vec<&'a Value> {
    let mut current = vec![data];
    for step in path {
        current = current
            .into_iter()
            .flat_map(|value| -> Vec<&'a Value> {
                match (step, value) {
                    (Step::Field(name), Value::Object(map)) => map.get(name).into_iter().collect(),
                    (Step::AllFields, Value::Object(map)) => map.values().collect(),
                    (Step::AllFields | Step::AllItems, Value::Array(items)) => {
                        items.iter().collect()
                    }
                    (Step::Index(i), Value::Array(items)) => {
                        let len = i64::try_from(items.len()).unwrap_or(i64::MAX);
                        let at = if *i < 0 { len + i } else { *i };
                        usize::try_from(at)
                            .ok()
                            .and_then(|at| items.get(at))
                            .into_iter()
                            .collect()
                    }
                    (
                        Step::Filter {
                            path,
                            equal,
                            literal,
                        },
                        Value::Array(items),
                    ) => items
                        .iter()
                        .filter(|item| {
                            let found = walk(path, item);
                            found.contains(&literal) == *equal
                        })
                        .collect(),
                    _ => Vec::new(),
                }
            })
            .collect();
    }
    current
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod() -> Value {
        json!({
            "metadata": {"name": "test-pod", "labels": {"app": "web"}},
            "spec": {"schedulingGates": [{"name": "example.com/foo"}, {"name": "example.com/bar"}],
                     "containers": [{"name": "a", "image": "nginx"}, {"name": "b", "image": "redis"}]},
            "status": {"conditions": [{"type": "PodScheduled", "status": "False"},
                                      {"type": "Ready", "status": "True"}]}
        })
    }

    /// Templates from the docs' tasks and `jsonpath_test.go`'s kinds of case.
    #[test]
    fn templates_as_kubectl_prints_them() {
        let cases = [
            // "Pod Scheduling Readiness".
            (
                "{.spec.schedulingGates}",
                r#"[{"name":"example.com/foo"},{"name":"example.com/bar"}]"#,
            ),
            ("{.metadata.name}", "test-pod"),
            ("{.spec.containers[*].image}", "nginx redis"),
            ("{.spec.containers[-1].name}", "b"),
            ("{.spec.containers[0]['name']}", "a"),
            ("{.metadata.labels}", r#"{"app":"web"}"#),
            ("{.status.conditions[?(@.type==\"Ready\")].status}", "True"),
            (
                "{.status.conditions[?(@.type!=\"Ready\")].type}",
                "PodScheduled",
            ),
            ("name: {.metadata.name}{\"\\n\"}", "name: test-pod\n"),
            (
                "{range .spec.containers[*]}{.name}={.image}{'\\n'}{end}",
                "a=nginx\nb=redis\n",
            ),
            ("{.spec.missing}", ""),
            ("{.spec.containers[?(@.name==\"<&>\")]}", ""),
            ("{.metadata.*}", r#"{"app":"web"} test-pod"#),
        ];
        for (template, want) in cases {
            let parsed = parse(template).unwrap_or_else(|e| panic!("{template}: {e}"));
            assert_eq!(parsed.execute(&pod()), want, "{template}");
        }
    }

    #[test]
    fn bad_templates_are_refused_as_kubectl_refuses_them() {
        assert_eq!(
            parse("{.metadata.name").unwrap_err(),
            "error: error parsing jsonpath {.metadata.name, unclosed action"
        );
        assert!(
            parse("{range .items[*]}{.x}")
                .unwrap_err()
                .ends_with("unclosed range")
        );
        assert!(parse("{end}").unwrap_err().ends_with("not in range"));
    }
}
