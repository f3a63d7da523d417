//! Any text as a cluster-language line: `command::parse` returns, never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(line) = std::str::from_utf8(data) {
        let _ = podflow_engine::command::parse(line);
    }
});
