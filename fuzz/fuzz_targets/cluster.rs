//! Any bytes as a cluster file: `parse_cluster` returns, never panics or hangs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = podflow_scenario::parse_cluster("fuzz.yaml", data);
});
