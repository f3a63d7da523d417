//! `--format jsonl`: one JSON object a line (docs/trace-format.md).

use std::io::{self, Write};

use crate::trace::TraceRecord;

/// Writes each record as one line of JSON.
pub fn write(out: &mut impl Write, records: &[TraceRecord]) -> io::Result<()> {
    for record in records {
        serde_json::to_writer(&mut *out, record)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

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
