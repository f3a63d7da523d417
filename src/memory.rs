//! Process-wide memory settings, made first by the binary and the benches.
//!
//! Two kinds of run want different ones. The screen (`play`, `serve`,
//! `attach`, lessons) draws a frame every few milliseconds while the engine
//! computes, so it turns transparent huge pages off ([`no_huge_pages`]).
//! A batch `trace` draws nothing: it keeps them, and keeps the memory it
//! frees for its own reuse ([`for_batch_run`]), which at the envelope
//! (150,000 Pods, 3.9 GiB) is 12 % less user CPU (docs/performance.md);
//! its second thread frees what the engine gives up and faults in the
//! memory the engine takes next ([`freeing_thread`]). The screen also keeps
//! its run within the machine's memory ([`Budget`]).

use std::ffi::OsString;
use std::sync::Arc;

use podflow_engine::store::{Batch, Free};

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

/// mimalloc's option for how long the memory of emptied pages waits before
/// it goes back to the system (a second by default; `-1`: never).
const PURGE_DELAY: &str = "MIMALLOC_PURGE_DELAY";

/// Whether the command line runs `podflow trace`: a batch run, with no
/// frames to keep smooth.
pub fn is_batch_run(mut args: impl Iterator<Item = OsString>) -> bool {
    args.nth(1).is_some_and(|command| command == "trace")
}

/// Memory for a batch run: transparent huge pages stay on (a run of
/// 150,000 Pods touches 3.9 GiB, and with 4 KiB pages a read of a Pod that
/// misses the caches misses the TLB too: 11 s less user time there with
/// them), and mimalloc keeps the pages it empties instead of
/// handing them back after a second. Handed back, a page is split out of
/// its huge page and faulted in again when reused: 4.7 s more system time at
/// the envelope. mimalloc reads its options from the environment when the
/// process starts, and setting one from code takes `unsafe`, which the
/// workspace forbids; so the process runs itself again, once, with
/// `MIMALLOC_PURGE_DELAY=-1` set (the way Docker's `reexec` re-runs its
/// binary). When that cannot be done, or the variable is already set (by
/// the user, or by the first run), the run goes on as it is.
pub fn for_batch_run() {
    #[cfg(unix)]
    if std::env::var_os(PURGE_DELAY).is_none()
        && let Ok(binary) = std::env::current_exe()
    {
        use std::os::unix::process::CommandExt;
        let mut args = std::env::args_os();
        let mut again = std::process::Command::new(binary);
        if let Some(name) = args.next() {
            again.arg0(name);
        }
        // `exec` returns only when it failed; the run then goes on here.
        let _failed = again.args(args).env(PURGE_DELAY, "-1").exec();
    }
}

/// The screen's guard against a run larger than the machine: the screen
/// keeps every step of the run it computes (about 0.9 KB a step; the
/// envelope's 19 million steps would hold about 17 GB), so it stops
/// computing when the process holds more than [`BUDGET_SHARE`] of the
/// memory the machine had for it when it started, rather than be killed
/// for it with the terminal left raw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Kilobytes of resident memory the run may hold.
    pub limit_kb: u64,
}

/// The share of the memory available at the start that the screen's run
/// may hold: three quarters, the rest left to the machine.
const BUDGET_SHARE: (u64, u64) = (3, 4);

impl Budget {
    /// The budget on this machine: three quarters of its available memory
    /// plus what the process already holds (Linux's `/proc`; `None`
    /// elsewhere, where no guard is kept).
    pub fn of_this_machine() -> Option<Budget> {
        let available = available_kb(&std::fs::read_to_string("/proc/meminfo").ok()?)?;
        let held = Budget::held_kb().unwrap_or(0);
        Some(Budget {
            limit_kb: (available + held) / BUDGET_SHARE.1 * BUDGET_SHARE.0,
        })
    }

    /// Whether the process holds more than the budget now.
    pub fn exceeded(self) -> bool {
        Budget::held_kb().is_some_and(|held| held > self.limit_kb)
    }

    /// The process's resident memory, in kilobytes.
    fn held_kb() -> Option<u64> {
        resident_kb(&std::fs::read_to_string("/proc/self/status").ok()?)
    }
}

/// `MemAvailable` of `/proc/meminfo`, in kilobytes.
fn available_kb(meminfo: &str) -> Option<u64> {
    kilobytes_of(meminfo, "MemAvailable:")
}

/// `VmRSS` of `/proc/self/status`, in kilobytes.
fn resident_kb(status: &str) -> Option<u64> {
    kilobytes_of(status, "VmRSS:")
}

/// The value of the `field` line (`Field:   123 kB`).
fn kilobytes_of(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find_map(|line| line.strip_prefix(field))?;
    line.trim().strip_suffix("kB")?.trim().parse().ok()
}

/// How often the freeing thread looks for batches when it found none.
const FREEING_POLL: std::time::Duration = std::time::Duration::from_millis(2);

/// After how many empty looks the freeing thread faults in memory ahead
/// again ([`fault_in_ahead`]): every 20 ms, while the envelope's engine
/// takes new memory at about 65 MB a second (a 32 MiB chunk every half
/// second).
const LOOKS_PER_FAULT_IN: u32 = 10;

/// A second thread that frees what it is given: what the engine gives up in
/// a batch run (`Engine::free_given_up_with`: the old object versions leaving
/// etcd's watch history, the kept Events leaving their window), freed there
/// on the otherwise idle core.
/// Up to eight batches wait for it, so the memory waiting stays bounded.
/// It looks for batches every [`FREEING_POLL`] rather than sleeping until
/// one is sent: waking a sleeping thread is a system call on the engine's
/// thread for every batch (5 of 224 stack samples of the envelope), and
/// the looks cost only the otherwise idle core. Between looks it faults in
/// the memory the engine will take next ([`fault_in_ahead`]), when the run
/// keeps what it frees, and frees the batches sent meanwhile after each
/// huge page of it: a whole chunk's faults take 40 to 150 ms on this
/// machine, time in which the engine had filled the eight places and
/// waited (17 of 150 stack samples of the envelope in a slow sitting).
/// `None` when the thread cannot be started: the engine then frees them
/// itself.
pub fn freeing_thread() -> Option<Free> {
    use std::sync::mpsc::TryRecvError;
    let (to, batches) = std::sync::mpsc::sync_channel::<Batch>(8);
    let ahead = keeps_what_it_frees();
    std::thread::Builder::new()
        .name("podflow-free".into())
        .spawn(move || {
            let mut empty_looks: u32 = 0;
            loop {
                match batches.try_recv() {
                    Ok(batch) => drop(batch),
                    Err(TryRecvError::Empty) => {
                        if ahead && empty_looks.is_multiple_of(LOOKS_PER_FAULT_IN) {
                            fault_in_ahead(|| batches.try_iter().for_each(drop));
                        }
                        empty_looks = empty_looks.wrapping_add(1);
                        std::thread::sleep(FREEING_POLL);
                    }
                    Err(TryRecvError::Disconnected) => break,
                }
            }
        })
        .ok()?;
    // The thread is gone only if it panicked: a batch is then freed here.
    Some(Arc::new(move |batch| drop(to.send(batch))))
}

/// Whether mimalloc keeps the pages it empties ([`for_batch_run`] set it).
fn keeps_what_it_frees() -> bool {
    std::env::var_os(PURGE_DELAY).is_some_and(|delay| delay == "-1")
}

/// Just under one chunk of mimalloc's arena (512 slices of 64 KiB, 32 MiB),
/// room left for the page's header: the allocation takes a whole free chunk.
const AHEAD: usize = 31 << 20;

/// The size of a small page: one write in each faults all of it in.
const PAGE: usize = 4096;

/// The size of a huge page: the kernel faults in this much at once.
const HUGE_PAGE: usize = 2 << 20;

/// Faults in the memory the engine's thread takes next, here on the second
/// core. A batch run first touches 3.9 GiB, and each first touch of a page
/// is a fault the kernel answers by zeroing it (2 MiB for a huge page):
/// 4 to 9 s of system time on the engine's thread at the envelope
/// (docs/performance.md). mimalloc (v3) takes the memory of any thread's
/// new pages from the free chunks of its arena, searching from the arena's
/// start, and with purging off a freed range keeps its pages in memory. So
/// this takes the next free chunk, writes a byte to each of its pages and
/// frees it: the engine's next pages are taken there, already in memory.
/// Once faulted in, a pass costs 7,936 writes; the memory held ahead is one
/// chunk. `between` runs after each huge page's writes.
fn fault_in_ahead(mut between: impl FnMut()) {
    let mut block: Vec<u8> = Vec::with_capacity(AHEAD);
    for huge_page in block.spare_capacity_mut().chunks_mut(HUGE_PAGE) {
        for byte in huge_page.iter_mut().step_by(PAGE) {
            byte.write(1);
        }
        between();
    }
    // The writes must happen although the block is freed unread.
    std::hint::black_box(&mut block);
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn only_trace_is_a_batch_run() {
        let args = |line: &str| {
            line.split(' ')
                .map(super::OsString::from)
                .collect::<Vec<_>>()
                .into_iter()
        };
        assert!(super::is_batch_run(args("podflow trace -f pod.yaml")));
        assert!(!super::is_batch_run(args("podflow play -f pod.yaml")));
        assert!(!super::is_batch_run(args("podflow")));
    }

    #[test]
    fn the_freeing_thread_frees_each_batch_there() {
        /// Tells on which thread it is dropped.
        struct Telling(std::sync::mpsc::Sender<std::thread::ThreadId>);
        impl Drop for Telling {
            fn drop(&mut self) {
                let _ = self.0.send(std::thread::current().id());
            }
        }
        let (tell, told) = std::sync::mpsc::channel();
        let free = super::freeing_thread().expect("a thread");
        free(vec![
            Box::new(Telling(tell.clone())),
            Box::new(Telling(tell)),
        ]);
        let threads: Vec<_> = told.iter().collect();
        assert_eq!(threads.len(), 2);
        assert!(threads.iter().all(|t| *t != std::thread::current().id()));
    }

    #[test]
    fn faulting_in_ahead_stops_after_each_huge_page() {
        let mut stops = 0;
        super::fault_in_ahead(|| stops += 1);
        assert_eq!(stops, super::AHEAD.div_ceil(super::HUGE_PAGE));
        assert_eq!(stops, 16, "31 MiB: fifteen huge pages and a half");
    }

    #[test]
    fn the_budget_reads_the_kernels_kilobytes() {
        let meminfo = "MemTotal:       24683828 kB\nMemFree:         6301284 kB\nMemAvailable:   23051840 kB\n";
        assert_eq!(super::available_kb(meminfo), Some(23_051_840));
        let status = "Name:\tpodflow\nVmPeak:\t 1024 kB\nVmRSS:\t  3709656 kB\nThreads:\t2\n";
        assert_eq!(super::resident_kb(status), Some(3_709_656));
        assert_eq!(super::resident_kb("VmRSS: lots"), None);
        assert_eq!(super::available_kb(""), None);
        // Here, on Linux: a budget, not yet exceeded by the test itself.
        let budget = super::Budget::of_this_machine().expect("a budget on Linux");
        assert!(budget.limit_kb > 0 && !budget.exceeded());
        assert!(super::Budget { limit_kb: 1 }.exceeded());
    }

    #[test]
    fn huge_pages_are_off_afterwards() {
        super::no_huge_pages();
        assert_eq!(
            rustix::thread::transparent_huge_pages_are_disabled().ok(),
            Some(true)
        );
    }
}
