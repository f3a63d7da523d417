//! The decoder's tests: hand-encoded bodies as kubectl would send them
//! (`kinds`), bodies it must skip in part or refuse (`robustness`), the
//! special JSON forms (`special`), the tables' own consistency (`tables`),
//! and bodies captured from the real kubectl (`captures`).

mod captures;
mod encoder;
mod kinds;
mod robustness;
mod special;
mod tables;
