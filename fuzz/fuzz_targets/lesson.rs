//! Any text as a lesson file: `Lesson::parse` returns, never panics or hangs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = podflow_lesson::Lesson::parse("fuzz.yaml", text, None);
    }
});
