//! `--format jsonl`: one JSON object a line (CONTRACT.md).

use std::io::{self, Write};

use crate::engine::trace::TraceRecord;
use crate::model::Object;

/// Writes each record as one line of JSON.
pub fn write(out: &mut impl Write, records: &[TraceRecord]) -> io::Result<()> {
    for record in records {
        serde_json::to_writer(&mut *out, record)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes the `final` record's line object by object, as [`write`] would
/// write [`Engine::final_record`](crate::engine::engine::Engine::final_record),
/// without holding every object's JSON at once.
pub fn write_final<'a>(
    out: &mut impl Write,
    seq: u64,
    t_ms: u64,
    objects: impl Iterator<Item = &'a Object>,
) -> io::Result<()> {
    // The fields in the order `TraceRecord` serializes them.
    write!(
        out,
        r#"{{"seq":{seq},"t_ms":{t_ms},"kind":"final","objects":["#
    )?;
    for (i, object) in objects.enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        object.write_json(&mut *out)?;
    }
    out.write_all(b"]}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::engine::{Engine, Until};
    use crate::tui::testing::nginx_engine;

    fn nginx() -> Engine {
        let mut engine = nginx_engine();
        engine.run_until(Until::Idle);
        engine
    }

    #[test]
    fn the_streamed_final_line_is_the_final_record_written_whole() {
        let mut whole = Vec::new();
        write(&mut whole, &[nginx().final_record()]).unwrap();
        let mut streamed = Vec::new();
        let mut engine = nginx();
        let (seq, t_ms, objects) = engine.final_parts();
        write_final(&mut streamed, seq, t_ms, objects).unwrap();
        assert_eq!(String::from_utf8(streamed), String::from_utf8(whole));
    }
}
