//! Small helpers for writing the drills' manifests as YAML text a person
//! would write (the student reads and edits them with `e`).

/// `text` with every line indented by `n` spaces (empty lines stay empty).
pub fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}\n")
            }
        })
        .collect()
}

/// A YAML double-quoted string (JSON's quoting is YAML's).
pub fn quote(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indents_and_quotes() {
        assert_eq!(indent("a:\n  b: 1\n", 4), "    a:\n      b: 1\n");
        assert_eq!(quote("say \"hi\""), "\"say \\\"hi\\\"\"");
    }
}
