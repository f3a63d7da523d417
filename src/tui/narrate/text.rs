//! Small readers of the texts records carry: quoted values, API paths, klog lines.

/// The first `"…"` value after `after` in `text` (Go-quoted: `\"` and `\\` unescaped).
pub fn quoted_after(text: &str, after: &str) -> Option<String> {
    let start = text.find(after)? + after.len();
    first_quoted(&text[start..])
}

/// The first `"…"` value in `text`, unescaped.
pub fn first_quoted(text: &str) -> Option<String> {
    let start = text.find('"')? + 1;
    let mut out = String::new();
    let mut chars = text[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '"' => return Some(out),
            c => out.push(c),
        }
    }
    None
}

/// The value of `key=` in a klog line: quoted (`key="v"`) or bare (`key=v`).
pub fn klog_field(line: &str, key: &str) -> Option<String> {
    let pattern = format!(" {key}=");
    let start = line.find(&pattern)? + pattern.len();
    let rest = &line[start..];
    if rest.starts_with('"') {
        first_quoted(rest)
    } else {
        Some(rest.split(' ').next().unwrap_or_default().to_owned())
    }
}

/// The message of a klog line: `I1130 … kubelet.go:2407] "SyncLoop ADD" …` → `SyncLoop ADD`.
pub fn klog_message(line: &str) -> Option<String> {
    let (_, rest) = line.split_once("] ")?;
    if rest.starts_with('"') {
        first_quoted(rest)
    } else {
        Some(rest.to_owned())
    }
}

/// A resource path as the API server reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiPath {
    pub namespace: Option<String>,
    /// Plural resource: `pods`.
    pub resource: String,
    pub name: Option<String>,
    pub subresource: Option<String>,
    pub watch: bool,
}

impl ApiPath {
    /// `pods/nginx`, `pods/nginx/status`, or `pods` for a collection.
    pub fn target(&self) -> String {
        let mut out = self.resource.clone();
        if let Some(name) = &self.name {
            out.push('/');
            out.push_str(name);
        }
        if let Some(sub) = &self.subresource {
            out.push('/');
            out.push_str(sub);
        }
        out
    }
}

/// Reads `/api/v1/namespaces/NS/pods/NAME/SUB?watch=true` (or `/apis/GROUP/VERSION/…`).
pub fn api_path(path: &str) -> ApiPath {
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let rest: &[&str] = match parts.as_slice() {
        ["api", _version, rest @ ..] | ["apis", _, _version, rest @ ..] => rest,
        other => other,
    };
    let (namespace, rest) = match rest {
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => (Some((*ns).to_owned()), rest),
        rest => (None, rest),
    };
    ApiPath {
        namespace,
        resource: rest.first().map(|s| (*s).to_owned()).unwrap_or_default(),
        name: rest.get(1).map(|s| (*s).to_owned()),
        subresource: rest.get(2).map(|s| (*s).to_owned()),
        watch: query
            .split('&')
            .any(|q| q == "watch=true" || q == "watch=1"),
    }
}

/// The container a `fieldPath` names: `spec.containers{nginx}` → `nginx`.
pub fn container_of(field_path: Option<&str>) -> Option<&str> {
    let path = field_path?;
    let start = path.find('{')? + 1;
    let end = path[start..].find('}')? + start;
    Some(&path[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quoted_values_paths_and_klog() {
        assert_eq!(
            quoted_after(r#"user "jane" groups [a]"#, "user").as_deref(),
            Some("jane")
        );
        assert_eq!(first_quoted(r#"x "a\"b" y"#).as_deref(), Some("a\"b"));
        assert_eq!(first_quoted(r#"x "open"#), None);
        let line = r#"I1130 02:20:30.008000    2147 kubelet.go:2407] "SyncLoop ADD" source="api" pods=["default/nginx"]"#;
        assert_eq!(klog_message(line).as_deref(), Some("SyncLoop ADD"));
        assert_eq!(klog_field(line, "source").as_deref(), Some("api"));
        assert_eq!(
            klog_field(line, "pods").as_deref(),
            Some(r#"["default/nginx"]"#)
        );
        let p = api_path("/api/v1/namespaces/default/pods/nginx/binding");
        assert_eq!(p.namespace.as_deref(), Some("default"));
        assert_eq!(p.target(), "pods/nginx/binding");
        let w = api_path("/apis/apps/v1/namespaces/dev/deployments?watch=true");
        assert_eq!((w.resource.as_str(), w.watch), ("deployments", true));
        assert_eq!(api_path("/api/v1/nodes/node-1").target(), "nodes/node-1");
        assert_eq!(api_path("").target(), "");
        assert_eq!(container_of(Some("spec.containers{nginx}")), Some("nginx"));
        assert_eq!(container_of(None), None);
    }
}
