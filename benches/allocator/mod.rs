//! The allocator the `podflow` binary runs on (`src/main.rs`), so every bench
//! measures what users run (each bench's `main` also turns huge pages off
//! first, as the binary does: `podflow::memory::no_huge_pages`).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
