//! Any bytes as a manifest file: `parse_manifests` returns, never panics or hangs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = podflow_scenario::parse_manifests("fuzz.yaml", data);
});
