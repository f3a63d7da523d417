//! The `podflow` binary: parse the command line, set up logging to a file
//! when `PODFLOW_LOG` asks for it (never the screen), run.

use std::process::ExitCode;

/// The engine makes and drops many small objects (records, status patches,
/// watch events); mimalloc serves them about a third faster than glibc's
/// allocator (`cargo bench --bench end_to_end`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    if podflow::memory::is_batch_run(std::env::args_os()) {
        podflow::memory::for_batch_run();
    } else {
        podflow::memory::no_huge_pages();
    }
    podflow::cli::main()
}
