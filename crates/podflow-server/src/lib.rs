//! `podflow serve`: the mini-cluster as a Kubernetes API server over HTTPS.
//! Each HTTP request becomes an engine request from a client named by its
//! user agent; the engine's answer becomes the HTTP response. The engine
//! stays pure: sockets, TLS, the wall clock and JSON on the wire live here.

pub mod discovery;
pub mod openapi;
