//! Process-wide memory settings, made first by the binary and the benches.

/// Turns transparent huge pages off for this process (Linux; elsewhere there
/// is nothing to do). mimalloc asks for them on its arenas, and where the
/// kernel's THP `defrag` setting is `madvise` (a common default) a fault on
/// such an arena compacts memory to find 2 MiB at once: that stalled frames
/// of a 10,000-replica run for up to 20 ms, and computing its timeline took
/// 11.3 s instead of 6.8 s (`cargo bench --bench seek`). Failing to turn them
/// off changes nothing else, so the error is ignored.
pub fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn huge_pages_are_off_afterwards() {
        super::no_huge_pages();
        assert_eq!(
            rustix::thread::transparent_huge_pages_are_disabled().ok(),
            Some(true)
        );
    }
}
