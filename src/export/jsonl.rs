//! `--format jsonl`: one JSON object a line (CONTRACT.md).

use std::io::{self, Write};

use crate::engine::trace::TraceRecord;

/// Writes each record as one line of JSON.
pub fn write(out: &mut impl Write, records: &[TraceRecord]) -> io::Result<()> {
    for record in records {
        writeln!(out, "{}", record.to_json_line())?;
    }
    Ok(())
}
