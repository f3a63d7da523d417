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
        if let Record::Final { objects } = &record.body {
            out.write_all(&lines)?;
            lines.clear();
            write_final(out, record, objects, FINAL_CHUNK)?;
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

/// The `final` line: its head, then the objects, serialized two chunks at
/// a time on two threads and written in order. For a large run the line is
/// hundreds of megabytes (424 MB for 150,000 Pods), each object read from
/// memory long out of the caches; the second core halves the wait.
fn write_final(
    out: &mut impl Write,
    record: &TraceRecord,
    objects: &[Arc<Object>],
    chunk: usize,
) -> io::Result<()> {
    out.write_all(&final_head(record))?;
    let mut chunks = objects.chunks(chunk);
    let mut first = true;
    while let Some(mine) = chunks.next() {
        let theirs = chunks.next();
        let (mine, theirs) = std::thread::scope(|scope| {
            let theirs = theirs.map(|chunk| scope.spawn(|| objects_json(chunk)));
            let mine = objects_json(mine);
            (mine, theirs.map(std::thread::ScopedJoinHandle::join))
        });
        for chunk in std::iter::once(Ok(mine)).chain(theirs) {
            let chunk =
                chunk.map_err(|_| io::Error::other("serializing the final line panicked"))??;
            if !first {
                out.write_all(b",")?;
            }
            first = false;
            out.write_all(&chunk)?;
        }
    }
    out.write_all(b"]}")
}

/// How many objects of the `final` line one thread serializes at a time.
const FINAL_CHUNK: usize = 2048;

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
fn objects_json(objects: &[Arc<Object>]) -> io::Result<Vec<u8>> {
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
        for chunk in [1, 2, 3, 7, objects.len() + 1] {
            let mut chunked = Vec::new();
            write_final(&mut chunked, &record, objects, chunk).unwrap();
            chunked.push(b'\n');
            assert_eq!(chunked, serde_line, "in chunks of {chunk}");
        }
        // k8s-openapi's order: `apiVersion` and `kind` lead even where a field
        // sorts before them (a StorageClass's `allowVolumeExpansion`).
        assert!(line.contains(
            r#"{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","allowVolumeExpansion""#
        ));
    }
}
