//! Log lines in klog's text format, as the kubelet writes them:
//! `I1130 02:20:36.000000    2114 kubelet.go:2407] "SyncLoop ADD" source="api" pods=["default/nginx"]`.
//!
//! The `file:line` source locations are those of a recent kubelet; they move a
//! little between releases.

use crate::clock::{SimTime, padded};

/// The kubelet's process id in its log header (one per node, fixed).
pub fn pid_for(node: &str) -> u32 {
    2114 + node.bytes().map(u32::from).sum::<u32>() % 97
}

/// One klog line at `now`, severity `I`, from `location` (`kubelet.go:2407`).
pub fn info(
    now: SimTime,
    pid: u32,
    location: &str,
    message: &str,
    fields: &[(&str, String)],
) -> String {
    let pid = pid.to_string();
    let fields_len: usize = fields.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
    let mut line = String::with_capacity(48 + location.len() + message.len() + fields_len);
    line.push('I');
    line.push_str(&now.klog());
    line.push(' ');
    line.extend(std::iter::repeat_n(' ', 7usize.saturating_sub(pid.len())));
    line.push_str(&pid);
    line.push(' ');
    line.push_str(location);
    line.push_str("] \"");
    line.push_str(&escape(message));
    line.push('"');
    for (key, value) in fields {
        line.push(' ');
        line.push_str(key);
        line.push('=');
        line.push_str(value);
    }
    line
}

/// A string value as klog quotes it.
pub fn quoted(value: &str) -> String {
    ["\"", &escape(value), "\""].concat()
}

/// A list of pods as `klog.KObjSlice` prints it: `["default/nginx"]`.
pub fn pods(keys: &[&str]) -> String {
    let inner: Vec<String> = keys.iter().map(|k| quoted(k)).collect();
    format!("[{}]", inner.join(","))
}

/// A backslash before each backslash and quote (`str::replace` finds each
/// with a fast search; a pass char by char was slower).
fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(['\\', '"']) {
        text.replace('\\', "\\\\").replace('"', "\\\"").into()
    } else {
        text.into()
    }
}

/// A duration as Go's `time.Duration.String()` prints it: `1.44s`, `500ms`, `2m3s`.
pub fn go_duration(ms: u64) -> String {
    if ms == 0 {
        return "0s".into();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let minutes = ms / 60_000;
    let rest = ms % 60_000;
    let seconds = trim_fraction(rest / 1000, rest % 1000);
    if minutes == 0 {
        format!("{seconds}s")
    } else if minutes < 60 {
        format!("{minutes}m{seconds}s")
    } else {
        format!("{}h{}m{seconds}s", minutes / 60, minutes % 60)
    }
}

fn trim_fraction(whole: u64, millis: u64) -> String {
    if millis == 0 {
        whole.to_string()
    } else {
        let frac = format!("{millis:03}");
        format!("{whole}.{}", frac.trim_end_matches('0'))
    }
}

/// Seconds with a fraction, as Go's `%v` prints a `float64` of seconds: `2.31`.
pub fn seconds_float(ms: u64) -> String {
    trim_fraction(ms / 1000, ms % 1000)
}

/// A timestamp as Go's `time.Time.String()` prints it: `2026-11-30 02:20:30 +0000 UTC`,
/// with fractional seconds when there are any.
pub fn go_time(t: SimTime) -> String {
    let c = t.civil();
    let mut text = padded(&[
        (u32::try_from(c.year).unwrap_or_default(), 4, "-"),
        (c.month, 2, "-"),
        (c.day, 2, " "),
        (c.hour, 2, ":"),
        (c.minute, 2, ":"),
        (c.second, 2, ""),
    ]);
    if c.micros != 0 {
        text.push('.');
        text.push_str(padded(&[(c.micros, 6, "")]).trim_end_matches('0'));
    }
    text.push_str(" +0000 UTC");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn klog_line_shape() {
        let line = info(
            SimTime(6_000),
            2114,
            "kubelet.go:2407",
            "SyncLoop ADD",
            &[
                ("source", quoted("api")),
                ("pods", pods(&["default/nginx"])),
            ],
        );
        assert_eq!(
            line,
            r#"I1130 02:20:36.000000    2114 kubelet.go:2407] "SyncLoop ADD" source="api" pods=["default/nginx"]"#
        );
    }

    /// klog quotes a value as Go's `strconv.Quote` would for these: a
    /// backslash before each backslash and quote.
    #[test]
    fn quoted_values_escape_backslashes_and_quotes() {
        assert_eq!(quoted("plain"), "\"plain\"");
        assert_eq!(quoted(r#"a\b"c"#), r#""a\\b\"c""#);
        assert_eq!(
            quoted(r#"volume "kube-api-access-x""#),
            r#""volume \"kube-api-access-x\"""#
        );
    }

    #[test]
    fn go_durations() {
        assert_eq!(go_duration(1440), "1.44s");
        assert_eq!(go_duration(500), "500ms");
        assert_eq!(go_duration(123_000), "2m3s");
        assert_eq!(go_duration(2000), "2s");
        assert_eq!(seconds_float(2310), "2.31");
        assert_eq!(go_time(SimTime(0)), "2026-11-30 02:20:30 +0000 UTC");
        assert_eq!(go_time(SimTime(1250)), "2026-11-30 02:20:31.25 +0000 UTC");
    }
}
