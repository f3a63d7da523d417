//! The listening socket: TLS on every connection (HTTP/2 or HTTP/1.1 by
//! ALPN), the client certificate read into the connection's user, each
//! request handed to [`crate::api::handle`]; and the driver task that owns
//! the engine.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_rustls::TlsAcceptor;

use crate::ServeError;
use crate::api::{self, Peer, Shared};
use crate::driver::{Call, Census, Driver, Speed, TraceSink};
use crate::kubeconfig::{self, TokenUser};
use crate::pki::{self, Pki};
use crate::session::{Header, SessionSink};
use podflow_engine::apiserver::request::UserInfo;
use podflow_engine::engine::Engine;

/// The admin's identity in the kubeconfig, as `kubeadm init` issues it.
pub const ADMIN: (&str, &str) = ("kubernetes-admin", "kubeadm:cluster-admins");

/// How long a client has to finish its TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How many requests may wait for the engine at once.
const CALL_QUEUE: usize = 4096;

/// How many requests one HTTP/2 connection may have open at once, watches
/// included: kube-apiserver's `--http2-max-streams-per-connection` default
/// (`staging/src/k8s.io/apiserver/pkg/server/options/recommended.go`).
const HTTP2_MAX_STREAMS: u32 = 1000;

/// Where to listen, and who the kubeconfig names.
pub struct Listen {
    /// The address to listen on (`127.0.0.1`).
    pub address: String,
    /// The port; 0 picks a free one.
    pub port: u16,
    /// The token users, for the kubeconfig's contexts.
    pub users: Vec<TokenUser>,
    /// Whether requests are kept for a session file (`--save-session`).
    pub recording: bool,
}

/// What to serve headless, and where.
pub struct Options {
    pub listen: Listen,
    /// The cluster, before its first step.
    pub engine: Engine,
    pub speed: Speed,
    /// Where the trace goes.
    pub sink: Option<TraceSink>,
    /// Where the session goes (`--save-session`), after its header.
    pub session: Option<(Header, SessionSink)>,
}

/// A server that is serving.
pub struct Running {
    /// Where it listens.
    pub address: SocketAddr,
    /// A kubeconfig that reaches it (YAML).
    pub kubeconfig: String,
    calls: mpsc::Sender<Call>,
    stop: watch::Sender<bool>,
    accept: tokio::task::JoinHandle<()>,
}

impl Running {
    /// `https://127.0.0.1:6443`.
    pub fn url(&self) -> String {
        format!("https://{}", self.address)
    }

    /// What the server holds open now: requests waiting, watch streams.
    /// `None` once the engine's task has ended.
    pub async fn census(&self) -> Option<Census> {
        let (reply, answer) = oneshot::channel();
        self.calls.send(Call::Census(reply)).await.ok()?;
        answer.await.ok()
    }

    /// Stops accepting connections and waits for the accept loop to end.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.accept.await;
    }
}

/// Makes the certificates, binds the socket and starts serving, with a
/// task of its own driving the engine.
pub async fn start(options: Options) -> Result<Running, ServeError> {
    let (running, calls) = listen(options.listen).await?;
    let mut driver = Driver::new(options.engine, options.speed, options.sink);
    if let Some((header, sink)) = options.session {
        driver = driver.saving_session(header, sink);
    }
    tokio::spawn(driver.run(calls));
    Ok(running)
}

/// Makes the certificates, binds the socket and starts serving; the
/// requests come out of the receiver for the caller's switchboard (the TUI's).
pub async fn listen(options: Listen) -> Result<(Running, mpsc::Receiver<Call>), ServeError> {
    let hosts = vec![
        "127.0.0.1".to_owned(),
        "localhost".to_owned(),
        options.address.clone(),
    ];
    let pki = Pki::new(&hosts)?;
    let tls = TlsAcceptor::from(pki.server_config()?);
    let bind = format!("{}:{}", options.address, options.port);
    let listener = TcpListener::bind(&bind)
        .await
        .map_err(|source| ServeError::Listen {
            address: bind.clone(),
            source,
        })?;
    let address = listener.local_addr().map_err(|source| ServeError::Listen {
        address: bind,
        source,
    })?;
    let admin = pki.client(ADMIN.0, &[ADMIN.1])?;
    let server_url = format!("https://{address}");
    let kubeconfig = kubeconfig::render(&server_url, &pki.ca_pem(), &admin, &options.users);

    let (calls, receive) = mpsc::channel(CALL_QUEUE);
    let shared = Arc::new(Shared {
        calls: calls.clone(),
        recording: options.recording,
    });
    let (stop, stopped) = watch::channel(false);
    let accept = tokio::spawn(accept_loop(listener, tls, shared, stopped));
    let running = Running {
        address,
        kubeconfig,
        calls,
        stop,
        accept,
    };
    Ok((running, receive))
}

async fn accept_loop(
    listener: TcpListener,
    tls: TlsAcceptor,
    shared: Arc<Shared>,
    mut stopped: watch::Receiver<bool>,
) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopped.changed() => return,
        };
        let Ok((socket, _)) = accepted else {
            continue;
        };
        let tls = tls.clone();
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let Ok(Ok(stream)) = tokio::time::timeout(HANDSHAKE_TIMEOUT, tls.accept(socket)).await
            else {
                return;
            };
            let certificate = stream
                .get_ref()
                .1
                .peer_certificates()
                .and_then(|chain| chain.first())
                .and_then(|der| pki::certificate_user(der))
                .map(|(name, groups)| UserInfo { name, groups });
            let peer = Arc::new(Peer { certificate });
            let service = hyper::service::service_fn(move |request| {
                let shared = Arc::clone(&shared);
                let peer = Arc::clone(&peer);
                async move {
                    Ok::<_, std::convert::Infallible>(api::handle(shared, peer, request).await)
                }
            });
            let mut builder = auto::Builder::new(TokioExecutor::new());
            builder.http2().max_concurrent_streams(HTTP2_MAX_STREAMS);
            let _ = builder
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
