//! The asciicast v2 writer (<https://docs.asciinema.org/manual/asciicast/v2/>):
//! a header line, then one JSON array a line, `[time, code, data]`, with
//! `"o"` for output and `"m"` for a marker. Times are simulated
//! milliseconds written as seconds (at most three decimals), so the same
//! recording is always the same bytes; the header has no `timestamp`.

use serde::Serialize;
use serde_json::json;

/// The header line, its fields in the order asciinema writes them.
#[derive(Serialize)]
struct Header<'a> {
    version: u8,
    width: u16,
    height: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    env: Env,
}

/// The header's `env`.
#[derive(Serialize)]
struct Env {
    #[serde(rename = "TERM")]
    term: &'static str,
}

/// A cast being written.
#[derive(Debug, Clone)]
pub struct Cast {
    out: String,
    /// The time of the last event, in milliseconds: events never go back.
    last_ms: u64,
}

impl Cast {
    /// A cast of a `width`×`height` terminal, with an optional title.
    pub fn new(width: u16, height: u16, title: Option<&str>) -> Cast {
        let header = Header {
            version: 2,
            width,
            height,
            title,
            env: Env {
                term: "xterm-256color",
            },
        };
        let header = serde_json::to_string(&header).expect("a cast header always serializes");
        Cast {
            out: format!("{header}\n"),
            last_ms: 0,
        }
    }

    /// Terminal output at `ms`.
    pub fn output(&mut self, ms: u64, data: &str) {
        self.event(ms, "o", data);
    }

    /// A marker (a chapter of the player's progress bar) at `ms`.
    pub fn marker(&mut self, ms: u64, label: &str) {
        self.event(ms, "m", label);
    }

    fn event(&mut self, ms: u64, code: &str, data: &str) {
        let ms = ms.max(self.last_ms);
        self.last_ms = ms;
        let line = json!([Seconds(ms), code, data]);
        self.out.push_str(&line.to_string());
        self.out.push('\n');
    }

    /// The time of the last event, in milliseconds.
    pub fn last_ms(&self) -> u64 {
        self.last_ms
    }

    /// The file's text.
    pub fn finish(self) -> String {
        self.out
    }
}

/// Milliseconds as a JSON number of seconds.
struct Seconds(u64);

impl serde::Serialize for Seconds {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Exact to the millisecond: whole seconds plus thousandths (no float drift
        // accumulates, since the time is kept in integer milliseconds).
        #[allow(clippy::cast_precision_loss)]
        let seconds = self.0 as f64 / 1000.0;
        serializer.serialize_f64(seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_then_events_one_a_line() {
        let mut cast = Cast::new(80, 24, Some("a \"title\""));
        cast.marker(0, "1 narrate");
        cast.output(1250, "\x1b[1;1Hhi");
        cast.output(1000, "late");
        assert_eq!(
            cast.finish(),
            concat!(
                "{\"version\":2,\"width\":80,\"height\":24,\"title\":\"a \\\"title\\\"\",\"env\":{\"TERM\":\"xterm-256color\"}}\n",
                "[0.0,\"m\",\"1 narrate\"]\n",
                "[1.25,\"o\",\"\\u001b[1;1Hhi\"]\n",
                "[1.25,\"o\",\"late\"]\n",
            )
        );
    }
}
