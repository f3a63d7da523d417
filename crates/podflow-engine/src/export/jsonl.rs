//! `--format jsonl`: one JSON object a line (docs/trace-format.md).

use std::io::{self, Write};
use std::sync::Arc;

use super::json_line;
use crate::trace::{Record, TraceRecord};
use podflow_model::Object;

/// Writes each record as one line of JSON (the lines of a step put together
/// first, then written at once; the `final` line, hundreds of megabytes for
/// a large run, straight out).
pub fn write(out: &mut impl Write, records: &[TraceRecord]) -> io::Result<()> {
    let mut lines = Vec::with_capacity(records.len() * LINE_GUESS);
    for record in records {
        if let Record::Final { .. } = record.body {
            out.write_all(&lines)?;
            lines.clear();
            write_final(out, record, FINAL_CHUNK, &in_turn)?;
            out.write_all(b"\n")?;
            continue;
        }
        let start = lines.len();
        json_line::write(&mut lines, record);
        debug_assert_eq!(
            lines[start..],
            serde_json::to_vec(record).unwrap_or_default()[..],
            "a line differs from serde_json's"
        );
        lines.push(b'\n');
    }
    out.write_all(&lines)
}

/// Serializes a few chunks of the `final` line's objects, each to its
/// objects' JSON separated by commas, the results in the chunks' order:
/// [`in_turn`] one after the other; a program with a second core may
/// serialize them side by side (`podflow trace` does: `src/cli/trace.rs`).
pub type SerializeChunks<'a> = &'a dyn Fn(&[&[Arc<Object>]]) -> Vec<io::Result<Vec<u8>>>;

/// [`SerializeChunks`] one chunk after the other.
pub fn in_turn(chunks: &[&[Arc<Object>]]) -> Vec<io::Result<Vec<u8>>> {
    chunks.iter().map(|chunk| objects_json(chunk)).collect()
}

/// Writes the `final` record as its line (without the newline): its head,
/// then its objects, [`FINAL_CHUNKS_AT_ONCE`] chunks of `chunk` objects
/// serialized at a time by `serialize` and written in order. For a large
/// run the line is hundreds of megabytes (424 MB for 150,000 Pods), each
/// object read from memory long out of the caches.
pub fn write_final(
    out: &mut impl Write,
    record: &TraceRecord,
    chunk: usize,
    serialize: SerializeChunks<'_>,
) -> io::Result<()> {
    let Record::Final { objects } = &record.body else {
        return Ok(());
    };
    out.write_all(&final_head(record))?;
    let chunks: Vec<&[Arc<Object>]> = objects.chunks(chunk).collect();
    let mut first = true;
    for at_once in chunks.chunks(FINAL_CHUNKS_AT_ONCE) {
        for json in serialize(at_once) {
            if !first {
                out.write_all(b",")?;
            }
            first = false;
            out.write_all(&json?)?;
        }
    }
    out.write_all(b"]}")
}

/// How many objects of the `final` line make a chunk.
pub const FINAL_CHUNK: usize = 2048;

/// How many chunks [`write_final`] gives its serializer at once.
const FINAL_CHUNKS_AT_ONCE: usize = 2;

/// `{"seq":N,"t_ms":T,"kind":"final","objects":[`: the `final` record as
/// serde writes it, up to its first object.
fn final_head(record: &TraceRecord) -> Vec<u8> {
    let empty = TraceRecord {
        seq: record.seq,
        t_ms: record.t_ms,
        body: Record::Final {
            objects: Vec::new(),
        },
    };
    let mut head = serde_json::to_vec(&empty).unwrap_or_default();
    // `...,"objects":[]}` without its last two bytes.
    head.truncate(head.len().saturating_sub(2));
    head
}

/// `objects` as JSON, separated by commas.
pub fn objects_json(objects: &[Arc<Object>]) -> io::Result<Vec<u8>> {
    let mut json = Vec::with_capacity(objects.len() * OBJECT_GUESS);
    for (at, object) in objects.iter().enumerate() {
        if at > 0 {
            json.push(b',');
        }
        serde_json::to_writer(&mut json, &**object)?;
    }
    Ok(json)
}

/// About how long an object of the `final` line is (a running Pod: 2.8 KB).
const OBJECT_GUESS: usize = 3072;

/// About how long a line is (240 bytes on average in a large summary
/// trace; the buffer grows for longer ones).
const LINE_GUESS: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Until;
    use crate::testing::nginx_engine;

    #[test]
    fn the_final_line_writes_each_object_as_its_typed_form() {
        let mut engine = nginx_engine();
        engine.run_until(Until::Idle);
        let record = engine.final_record();
        let mut out = Vec::new();
        write(&mut out, std::slice::from_ref(&record)).unwrap();
        let line = String::from_utf8(out).unwrap();
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        let written = value["objects"].as_array().unwrap();
        let crate::trace::Record::Final { objects } = &record.body else {
            panic!("not the final record");
        };
        assert!(objects.len() > 10, "every object in the store");
        assert_eq!(written.len(), objects.len());
        for (json, object) in written.iter().zip(objects) {
            assert_eq!(*json, object.to_json());
        }
        let mut serde_line = serde_json::to_vec(&record).unwrap();
        serde_line.push(b'\n');
        assert_eq!(line.as_bytes(), serde_line, "the same bytes serde writes");
        // In chunks of one to more than all: the same line.
        crate::testing::assert_final_line_is_serdes(&in_turn);
        // k8s-openapi's order: `apiVersion` and `kind` lead even where a field
        // sorts before them (a StorageClass's `allowVolumeExpansion`).
        assert!(line.contains(
            r#"{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","allowVolumeExpansion""#
        ));
    }
}
