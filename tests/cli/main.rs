//! The `podflow` binary as a user runs it: its commands and their output,
//! bad and hostile input refused with file, line and column, recordings,
//! lessons, the README's gallery, the terminal restored after a crash or a
//! signal, and the fuzz corpora replayed.

mod attach;
mod bad_input;
mod cli;
mod drill;
mod fuzz_corpus;
mod gallery;
mod hostile_input;
mod lessons;
mod record;
mod terminal_restore;
