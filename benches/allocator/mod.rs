//! The allocator the `podflow` binary runs on (`src/main.rs`), so every bench
//! measures what users run.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
