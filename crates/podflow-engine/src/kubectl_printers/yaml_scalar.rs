//! How `kubectl get -o yaml` writes a string: kubectl encodes with
//! `sigs.k8s.io/yaml`, which is go-yaml v2, and go-yaml chooses each scalar's
//! style and breaks long lines as its emitter does:
//!
//! - `encode.go` (`stringv`): a string with a line break is a literal block
//!   (`|`); a string YAML would read back as something else (`"80"`,
//!   `"true"`, `""`, a timestamp, `"1:20"`) is double-quoted; any other is
//!   plain;
//! - `emitterc.go` (`yaml_emitter_analyze_scalar`,
//!   `yaml_emitter_select_scalar_style`): a plain string that would start an
//!   indicator (`: `, ` #`, a leading `- `, `*`, `'` …) or has leading or
//!   trailing spaces is single-quoted instead; one with characters YAML
//!   cannot show is double-quoted, with escapes;
//! - `yaml_emitter_write_plain_scalar` and its quoted siblings: past column
//!   80 (`best_width`) a value breaks at its next single space, continuing
//!   two columns in from its key.

use std::fmt::Write as _;

/// go-yaml's `best_width`: a value's line breaks at the first space past it.
const BEST_WIDTH: usize = 80;

/// How a string is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// `s` as a mapping key (or any place where it must stay on one line).
pub fn key(s: &str) -> String {
    let mut out = String::new();
    inline(&mut out, s, style(s), None);
    out
}

/// The lines of a value written after `head` (`  message:`, `  - `): the
/// first line is `head` and the value; long values continue on lines
/// indented `indent` columns.
pub fn value_lines(head: &str, s: &str, indent: usize) -> Vec<String> {
    let mut out = head.to_owned();
    match style(s) {
        Style::Literal => literal(out, s, indent),
        one_line => {
            space_after(&mut out);
            inline(&mut out, s, one_line, Some(Wrap { indent }));
            out.split('\n').map(str::to_owned).collect()
        }
    }
}

/// Where broken lines continue.
#[derive(Debug, Clone, Copy)]
struct Wrap {
    indent: usize,
}

fn space_after(out: &mut String) {
    if !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

/// The column the next character goes to.
fn column(out: &str) -> usize {
    out.rsplit('\n')
        .next()
        .map_or(0, |line| line.chars().count())
}

fn break_line(out: &mut String, wrap: Wrap) {
    out.push('\n');
    out.extend(std::iter::repeat_n(' ', wrap.indent));
}

/// `stringv`'s choice, then the emitter's demotions.
fn style(s: &str) -> Style {
    let analysis = analyze(s);
    let mut style = if s.contains('\n') {
        Style::Literal
    } else if resolves_to_a_string(s) {
        Style::Plain
    } else {
        Style::DoubleQuoted
    };
    if style == Style::Plain && !analysis.block_plain_allowed {
        style = Style::SingleQuoted;
    }
    if style == Style::SingleQuoted && !analysis.single_quoted_allowed {
        style = Style::DoubleQuoted;
    }
    if style == Style::Literal && !analysis.block_allowed {
        style = Style::DoubleQuoted;
    }
    style
}

/// What `yaml_emitter_analyze_scalar` finds out about a value (block context).
struct Analysis {
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let blank = |c: Option<&char>| c.is_none_or(|c| *c == ' ' || *c == '\t' || is_break(*c));
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break, mut line_breaks, mut special) =
        (false, false, false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = blank(chars.get(i + 1));
        let last = i + 1 == chars.len();
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_indicators = true,
                '?' | ':' | '-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_whitespace => block_indicators = true,
                '#' if preceded_by_whitespace => block_indicators = true,
                _ => {}
            }
        }
        if !printable(c) {
            special = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= last;
            break_space |= previous_break;
            (previous_space, previous_break) = (true, false);
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= last;
            space_break |= previous_space;
            (previous_space, previous_break) = (false, true);
        } else {
            (previous_space, previous_break) = (false, false);
        }
        preceded_by_whitespace = blank(Some(&c));
    }
    let mut analysis = Analysis {
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        analysis.block_plain_allowed = false;
    }
    if trailing_space {
        analysis.block_allowed = false;
    }
    if break_space {
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
    }
    if space_break || special {
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
        analysis.block_allowed = false;
    }
    if line_breaks || block_indicators {
        analysis.block_plain_allowed = false;
    }
    analysis
}

fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `is_printable` (the emitter writes Unicode as it is; a tab is not printable).
fn printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~')
        || (('\u{a0}'..='\u{d7ff}').contains(&c) || ('\u{e000}'..='\u{fffd}').contains(&c))
            && c != '\u{feff}'
        || ('\u{10000}'..='\u{10ffff}').contains(&c)
}

/// Whether go-yaml's `resolve` reads `s`, unquoted, back as a string (not a
/// null, bool, number, timestamp or merge key) — `resolve.go`'s table.
fn resolves_to_a_string(s: &str) -> bool {
    const NOT_STRINGS: [&str; 40] = [
        "", "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
        "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
        ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    if NOT_STRINGS.contains(&s) {
        return false;
    }
    let Some(first) = s.chars().next() else {
        return false;
    };
    if !(first.is_ascii_digit() || matches!(first, '+' | '-' | '.')) {
        return true;
    }
    let plain = s.replace('_', "");
    !(is_timestamp(s) || is_go_int(&plain) || is_yaml_float(&plain) || is_base60_float(s))
}

/// `strconv.ParseInt(s, 0, 64)` or `ParseUint` succeeds (ignoring range),
/// and go-yaml's own `0b` binary.
fn is_go_int(s: &str) -> bool {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let digits =
        |rest: &str, radix: u32| !rest.is_empty() && rest.chars().all(|c| c.is_digit(radix));
    if let Some(rest) = unsigned
        .strip_prefix("0x")
        .or_else(|| unsigned.strip_prefix("0X"))
    {
        digits(rest, 16)
    } else if let Some(rest) = unsigned
        .strip_prefix("0o")
        .or_else(|| unsigned.strip_prefix("0O"))
    {
        digits(rest, 8)
    } else if let Some(rest) = unsigned
        .strip_prefix("0b")
        .or_else(|| unsigned.strip_prefix("0B"))
    {
        digits(rest, 2)
    } else if unsigned.len() > 1 && unsigned.starts_with('0') {
        digits(unsigned, 8)
    } else {
        digits(unsigned, 10)
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` (`yamlStyleFloat`).
fn is_yaml_float(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(at) => (&s[..at], Some(&s[at + 1..])),
        None => (s, None),
    };
    let all_digits = |t: &str| t.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => !frac.is_empty() && all_digits(frac),
        Some((int, frac)) => !int.is_empty() && all_digits(int) && all_digits(frac),
        None => !mantissa.is_empty() && all_digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    mantissa_ok && exponent_ok
}

/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$` (`isBase60Float`).
fn is_base60_float(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
    if !fraction.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return false;
    }
    let mut parts = whole.split(':');
    let head = parts.next().unwrap_or_default();
    let sexagesimal: Vec<&str> = parts.collect();
    head.starts_with(|c: char| c.is_ascii_digit())
        && head.chars().all(|c| c.is_ascii_digit() || c == '_')
        && !sexagesimal.is_empty()
        && sexagesimal.iter().all(|p| {
            let b = p.as_bytes();
            match b {
                [d] => d.is_ascii_digit(),
                [t, d] => (b'0'..=b'5').contains(t) && d.is_ascii_digit(),
                _ => false,
            }
        })
}

/// `parseTimestamp`'s formats: `2006-1-2`, then optionally `T`, `t` or
/// spaces and a time.
fn is_timestamp(s: &str) -> bool {
    let mut parts = s.splitn(3, '-');
    let (Some(year), Some(month), Some(rest)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let day_len = rest.chars().take_while(char::is_ascii_digit).count();
    let digits = |t: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&t.len()) && t.chars().all(|c| c.is_ascii_digit())
    };
    if !(digits(year, 4..=4) && digits(month, 1..=2) && (1..=2).contains(&day_len)) {
        return false;
    }
    let time = &rest[day_len..];
    time.is_empty() || time.starts_with(['T', 't', ' ', '\t']) && time.contains(':')
}

/// Writes `s` in a one-line style (plain, `'…'` or `"…"`), breaking past
/// column 80 at a single space when `wrap` says where lines continue, as
/// `yaml_emitter_write_plain_scalar` and its two quoted siblings do: a
/// quoted value never breaks at its first or last character, and a double-
/// quoted one may break before a second space (marking it with `\`).
fn inline(out: &mut String, s: &str, style: Style, wrap: Option<Wrap>) {
    let quote = match style {
        Style::SingleQuoted => Some('\''),
        Style::DoubleQuoted | Style::Literal => Some('"'),
        Style::Plain => None,
    };
    out.extend(quote);
    let chars: Vec<char> = s.chars().collect();
    let mut spaces = false;
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let next_is_space = chars.get(i + 1) == Some(&' ');
            match wrap {
                Some(w)
                    if !spaces
                        && column(out) > BEST_WIDTH
                        && i != 0
                        && i + 1 != chars.len()
                        && (quote == Some('"') || !next_is_space) =>
                {
                    break_line(out, w);
                    if next_is_space {
                        out.push('\\');
                    }
                }
                _ => out.push(c),
            }
            spaces = true;
            continue;
        }
        spaces = false;
        match quote {
            None => out.push(c),
            Some('\'') => {
                if c == '\'' {
                    out.push('\'');
                }
                out.push(c);
            }
            Some(_) => escaped(out, c),
        }
    }
    out.extend(quote);
}

/// A character inside double quotes, escaped as `yaml_emitter_write_double_quoted_scalar` does.
fn escaped(out: &mut String, c: char) {
    match c {
        '\0' => out.push_str("\\0"),
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\u{b}' => out.push_str("\\v"),
        '\u{c}' => out.push_str("\\f"),
        '\r' => out.push_str("\\r"),
        '\u{1b}' => out.push_str("\\e"),
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\u{85}' => out.push_str("\\N"),
        '\u{a0}' => out.push_str("\\_"),
        '\u{2028}' => out.push_str("\\L"),
        '\u{2029}' => out.push_str("\\P"),
        c if printable(c) => out.push(c),
        c => {
            let code = u32::from(c);
            let _ = match code {
                0..=0xff => write!(out, "\\x{code:02X}"),
                0x100..=0xffff => write!(out, "\\u{code:04X}"),
                _ => write!(out, "\\U{code:08X}"),
            };
        }
    }
}

/// `|`, `|-` or `|+` (with an indentation hint when the text starts with a
/// space or a break), then each line of the text at `indent`.
fn literal(mut head: String, s: &str, indent: usize) -> Vec<String> {
    space_after(&mut head);
    head.push('|');
    if s.starts_with([' ', '\n']) {
        head.push('2');
    }
    let mut chars = s.chars().rev();
    match (chars.next(), chars.next()) {
        (Some(last), _) if !is_break(last) => head.push('-'),
        (Some(_), None) => head.push('+'),
        (Some(_), Some(before)) if is_break(before) => head.push('+'),
        _ => {}
    }
    let body = s.strip_suffix('\n').unwrap_or(s);
    let mut out = vec![head];
    out.extend(body.split('\n').map(|line| {
        if line.is_empty() {
            String::new()
        } else {
            format!("{:indent$}{line}", "")
        }
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How go-yaml v2 writes each string as a mapping value at column 0 (as
    /// `yaml.Marshal(map[string]string{"k": s})` does).
    #[test]
    fn styles_as_go_yaml_chooses_them() {
        let cases = [
            ("nginx", "k: nginx"),
            ("", "k: \"\""),
            ("true", "k: \"true\""),
            ("No", "k: \"No\""),
            ("on", "k: \"on\""),
            ("inf", "k: inf"),
            (".inf", "k: \".inf\""),
            ("80", "k: \"80\""),
            ("1.5", "k: \"1.5\""),
            ("1e3", "k: \"1e3\""),
            ("0x1F", "k: \"0x1F\""),
            ("1_000", "k: \"1_000\""),
            ("1:20", "k: \"1:20\""),
            ("100m", "k: 100m"),
            ("512Mi", "k: 512Mi"),
            ("10.244.3.2", "k: 10.244.3.2"),
            ("2026-11-30T02:20:30Z", "k: \"2026-11-30T02:20:30Z\""),
            ("2026-11-30", "k: \"2026-11-30\""),
            ("-g", "k: -g"),
            ("- g", "k: '- g'"),
            ("a #b", "k: 'a #b'"),
            ("a#b", "k: a#b"),
            ("a: b", "k: 'a: b'"),
            ("a:b", "k: a:b"),
            ("daemon off;", "k: daemon off;"),
            ("*", "k: '*'"),
            ("it's", "k: it's"),
            ("'x'", "k: '''x'''"),
            (" x", "k: ' x'"),
            ("tab\there", "k: \"tab\\there\""),
            (
                "docker.io/library/nginx:1.27",
                "k: docker.io/library/nginx:1.27",
            ),
            (
                "pods \"web\" is forbidden: x",
                "k: 'pods \"web\" is forbidden: x'",
            ),
            ("中文: 你好", "k: '中文: 你好'"),
        ];
        for (input, want) in cases {
            assert_eq!(value_lines("k:", input, 2).join("\n"), want, "{input:?}");
        }
    }

    /// Multi-line strings are literal blocks with go-yaml's chomping.
    #[test]
    fn line_breaks_make_literal_blocks() {
        assert_eq!(
            value_lines("  config:", "{\"a\":1}\n", 4),
            ["  config: |", "    {\"a\":1}"]
        );
        assert_eq!(value_lines("k:", "x\ny", 2), ["k: |-", "  x", "  y"]);
        assert_eq!(
            value_lines("k:", "x\n\ny\n\n", 2),
            ["k: |+", "  x", "", "  y", ""]
        );
        assert_eq!(value_lines("k:", " x\ny", 2), ["k: |2-", "   x", "  y"]);
        // A space before a break rules the block out: double quotes.
        assert_eq!(value_lines("k:", "x \ny", 2), ["k: \"x \\ny\""]);
    }

    /// Past column 80 a value breaks at its next space: the Deployment's
    /// `ReplicaFailure` message as kubernetes.io's quota task shows it.
    #[test]
    fn long_values_break_past_column_80() {
        let message = "unable to create pods: pods \"pod-quota-demo-1650323038-\" is forbidden: exceeded quota: pod-demo, requested: pods=1, used: pods=2, limited: pods=2";
        assert_eq!(
            value_lines("    message:", message, 6),
            [
                "    message: 'unable to create pods: pods \"pod-quota-demo-1650323038-\" is forbidden:",
                "      exceeded quota: pod-demo, requested: pods=1, used: pods=2, limited: pods=2'",
            ]
        );
        let plain = "0/3 nodes are available 3 Insufficient cpu and the rest of a long plain message goes on here";
        let lines = value_lines("  message:", plain, 4);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].chars().count() > BEST_WIDTH, "{lines:?}");
        assert!(lines[1].starts_with("    "), "{lines:?}");
        assert_eq!(
            lines.join("\n").replace("\n    ", " "),
            format!("  message: {plain}")
        );
    }

    #[test]
    fn keys_stay_on_one_line() {
        assert_eq!(key("app.kubernetes.io/name"), "app.kubernetes.io/name");
        assert_eq!(key("80"), "\"80\"");
        assert_eq!(key("a: b"), "'a: b'");
    }
}
