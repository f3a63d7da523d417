//! `--format jsonl`: one JSON object a line (CONTRACT.md).

use std::io::{self, Write};

use crate::engine::trace::TraceRecord;

/// The head of the `final` record's line, up to its objects (the fields in
/// the order `TraceRecord` serializes them).
fn final_head(seq: u64, t_ms: u64) -> String {
    format!(r#"{{"seq":{seq},"t_ms":{t_ms},"kind":"final","objects":["#)
}

/// Writes each record as one line of JSON.
pub fn write(out: &mut impl Write, records: &[TraceRecord]) -> io::Result<()> {
    for record in records {
        writeln!(out, "{}", record.to_json_line())?;
    }
    Ok(())
}

/// Writes the `final` record's line object by object, as [`write`] would
/// write [`Engine::final_record`](crate::engine::engine::Engine::final_record),
/// without holding every object's JSON at once.
pub fn write_final(
    out: &mut impl Write,
    seq: u64,
    t_ms: u64,
    objects: impl Iterator<Item = serde_json::Value>,
) -> io::Result<()> {
    out.write_all(final_head(seq, t_ms).as_bytes())?;
    for (i, object) in objects.enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, &object)?;
    }
    out.write_all(b"]}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{NGINX_POD, SetupArgs, build_setup};
    use crate::engine::engine::{Engine, Until};

    fn nginx() -> Engine {
        let args = SetupArgs {
            embedded: vec![NGINX_POD],
            seed: 1,
            ..SetupArgs::default()
        };
        let mut engine = Engine::new(build_setup(&args).expect("setup"));
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
