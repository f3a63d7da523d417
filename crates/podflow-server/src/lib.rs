//! `podflow serve`: the mini-cluster as a Kubernetes API server over HTTPS.
//! Each HTTP request becomes an engine request from a client named by its
//! user agent; the engine's answer becomes the HTTP response. The engine
//! stays pure: sockets, TLS, the wall clock and JSON on the wire live here.

pub mod api;
pub mod discovery;
pub mod driver;
pub mod engine_request;
pub mod kubeconfig;
pub mod listener;
pub mod logs;
pub mod openapi;
pub mod pki;
pub mod protobuf;
pub mod query;
pub mod route;
pub mod served;
pub mod session;
pub mod table;
pub mod watch_stream;

pub use listener::{Listen, Options, Running, listen, start};

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("making the certificates: {0}")]
    Certificates(String),
    #[error("listening on {address}: {source}")]
    Listen {
        address: String,
        source: std::io::Error,
    },
    #[error("writing the kubeconfig {path}: {source}")]
    Kubeconfig {
        path: String,
        source: std::io::Error,
    },
}
