//! `--format jsonl`: one JSON object a line (docs/trace-format.md).

use std::io::{self, Write};

use super::json_line;
use crate::trace::{Record, TraceRecord};

/// Writes each record as one line of JSON (the lines of a step put together
/// first, then written at once; the `final` line, hundreds of megabytes for
/// a large run, straight out).
pub fn write(out: &mut impl Write, records: &[TraceRecord]) -> io::Result<()> {
    let mut lines = Vec::with_capacity(records.len() * LINE_GUESS);
    for record in records {
        if let Record::Final { .. } = record.body {
            out.write_all(&lines)?;
            lines.clear();
            serde_json::to_writer(&mut *out, record)?;
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
        // k8s-openapi's order: `apiVersion` and `kind` lead even where a field
        // sorts before them (a StorageClass's `allowVolumeExpansion`).
        assert!(line.contains(
            r#"{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","allowVolumeExpansion""#
        ));
    }
}
