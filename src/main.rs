//! The `podflow` binary: parse the command line, set up logging to a file
//! (never the screen), run.

use std::process::ExitCode;

fn main() -> ExitCode {
    podflow::cli::main()
}
