//! `yz serve`: the advisors, two-player advice, play for a target, play with feedback and
//! reviews of pasted records, as a web page on this machine.
//!
//! The page ([`assets`], embedded in the binary: nothing is fetched from elsewhere) calls a
//! JSON API whose answers are the CLI's `--json` answers, made by the same library calls:
//!
//! | route | answers as |
//! |---|---|
//! | `GET /`, `/app.js`, `/style.css` | the page, its script and style |
//! | `GET /manifest.webmanifest`, `/sw.js`, `/icon.svg` | what installs the page as an app |
//! | `GET /api/rules` | the rule sets and their boxes |
//! | `POST /api/solo/advise` | `yz --json solo advise` |
//! | `POST /api/solo/judge` | a decision's loss, as `yz review` counts it |
//! | `POST /api/solo/beat` | `yz --json solo beat` (computed once per rule set, then kept) |
//! | `POST /api/targets/advise` | `yz --json targets advise` |
//! | `POST /api/targets/curve` | P(final total ≥ t) for every t, from the target table |
//! | `POST /api/card/score` | a card after scoring dice in a box (the advisor's "Play the best choice") |
//! | `POST /api/play/turn` | the page's game after a turn: its record as the library writes it, and the card |
//! | `POST /api/card/view` | a card's boxes, their names, what dice would earn in each, its totals ([`crate::game::CardView`]) |
//! | `POST /api/duel/advise` | `yz --json duel advise`, with where the values come from and each card's points; from any position: EMP(1) where no exact values can be had ([`crate::coach::review::DuelTurn`]) |
//! | `POST /api/review` | `yz --json review` |
//! | `POST /api/history` | adds a reviewed game to the history in the data directory ([`crate::coach::history`], under a file lock: servers sharing the directory lose none), answers it |
//! | `GET /api/history` | the history, oldest first |
//!
//! A request that waits for a target table being built is answered 503 with the share
//! built so far, `{"error": …, "percent": P}`, and asks again. A build the memory or the
//! data directory's disk cannot hold ([`crate::targets::room`]) is refused up front, 507
//! with the figures; a build that failed (its child killed out of memory, a disk filled)
//! has its error answered, 507 or 500, for ten minutes without another build. The page
//! shows every error but the 503s as final, and asks no more.
//!
//! Limits: API requests worked on a few at a time, first come first served, while the
//! page and its files are answered at once (under a load that keeps every core busy, a
//! page still loads in milliseconds); work off the async threads at a lower priority than
//! they have, on at most 16 threads, and the memory a heavy request freed returned to the
//! system when it ends; bodies of at most [`MAX_BODY_BYTES`]; whole cards only (a table per rule set,
//! not one per subset of boxes); a two-player position is solved below only up to
//! [`ServeConfig::duel_positions`] positions, beyond which (and where no tables hold it)
//! EMP(1) estimates it; one heavy request (a two-player solve or estimate, a review or a best reply) at a time, admitted
//! or refused as busy before it takes a thread or builds a table, and holding its place
//! until its work ends (a client that hangs up cancels the work, which stops within about
//! a second: at its next turn, layer or analysed state); one target table
//! build at a time, in a child process (`yz targets solve`, [`ServeConfig::exe`]) at a lower
//! priority, so that running out of memory or disk ends the build and never the server,
//! requests told how far it is from the child's progress lines; each table read or
//! solved once whoever asks (concurrent first requests wait for the same one), off the
//! async threads, held in the server's own memory and checked against its file before
//! each use (a changed file is an error for that request, never a bus error); no solve
//! where the data directory cannot be written (507, naming it); request heads within
//! [`HEADER_TIMEOUT`] (kept-alive connections idle that long are closed), at most
//! as many connections as the hard open-file limit allows (at most [`MAX_CONNECTIONS`]);
//! every request ends within [`REQUEST_TIMEOUT`]; a
//! request must name the server by an address, `localhost` or a name it was given
//! ([`ServeConfig::host_names`]). Every input goes through the library's own checks, and a bad one is
//! answered 4xx with the CLI's message as `{"error": …}`. No request names a file.

mod api;
pub mod assets;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use tokio::net::TcpSocket;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::timeout::TimeoutLayer;

/// Largest request body: a game record at its largest and some room for the JSON around it.
pub const MAX_BODY_BYTES: usize = crate::coach::record::MAX_RECORD_BYTES + 4096;

/// Most positions a two-player request may solve below its position: about a second.
pub const SERVE_DUEL_POSITIONS: u64 = 20_000_000;

/// The longest a request may take (a target table's first solve is refused as busy long
/// before; this bounds a review of a long two-player game).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(300);

/// Most threads doing a request's work off the async threads at once (reading a table,
/// checking a position, a gated solve); more requests wait for one.
const MAX_BLOCKING_THREADS: usize = 16;

/// What the server reads and how much work it takes on.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// The data directory (tables read, and written when solved).
    pub data: PathBuf,
    /// Most positions solved below a two-player position per request.
    pub duel_positions: u64,
    /// Names the server answers to besides its IP addresses and `localhost` (a LAN name):
    /// a request's `Host` must be one of them.
    pub host_names: Vec<String>,
    /// The `yz` program that builds a target table, in a child process (`yz targets
    /// solve`): for `yz serve`, itself ([`std::env::current_exe`]).
    pub exe: PathBuf,
}

/// The web app's routes over `config`.
pub fn router(config: ServeConfig) -> Router {
    let state = Arc::new(api::App::new(config));
    let api = Router::new()
        .route("/api/solo/advise", post(api::solo_advise))
        .route("/api/solo/judge", post(api::solo_judge))
        .route("/api/solo/why", post(api::solo_why))
        .route("/api/solo/beat", post(api::solo_beat))
        .route("/api/targets/advise", post(api::targets_advise))
        .route("/api/targets/curve", post(api::targets_curve))
        .route("/api/card/score", post(api::card_score))
        .route("/api/play/turn", post(api::play_turn))
        .route("/api/card/view", post(api::card_view))
        .route("/api/duel/advise", post(api::duel_advise))
        .route("/api/review", post(api::review))
        .route("/api/history", get(api::history_list).post(api::history_add))
        .route_layer(axum::middleware::from_fn_with_state(Arc::clone(&state), api::take_turn));
    let files = assets::ASSETS.iter().fold(Router::new(), |router, asset| {
        let (content_type, body) = (asset.content_type, asset.body);
        router.route(asset.path, get(move || async move { ([(axum::http::header::CONTENT_TYPE, content_type)], body) }))
    });
    files
        .route("/api/rules", get(api::rules))
        .merge(api)
        .fallback(api::not_found)
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&state), api::check_host))
        .with_state(state)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn(api::refuse_large_bodies))
        .layer(TimeoutLayer::with_status_code(axum::http::StatusCode::SERVICE_UNAVAILABLE, REQUEST_TIMEOUT))
        .layer(CatchPanicLayer::custom(api::panic_response))
}

/// How long a client may take to send a request's head, and how long a kept-alive
/// connection may wait for its next request: a client that sends a header byte a second
/// holds a connection this long, not for good.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client may take to send a request's body once its head arrived.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(20);

/// Most connections served at once, whatever the file descriptors allow.
pub const MAX_CONNECTIONS: usize = 16_384;

/// Connections the kernel may hold for the server to accept (capped by the system's
/// `somaxconn`). The usual 128 overflows under a few hundred clients that connect for
/// each request, and each connection dropped then waits a second for its SYN to be sent
/// again.
const LISTEN_BACKLOG: u32 = 4096;

/// File descriptors kept for tables, logs and the listener beyond connections.
const SPARE_DESCRIPTORS: u64 = 64;

/// The connections this process can serve at once: its open-file limit raised to the
/// hard limit (the usual soft limit, 1,024, is what a thousand slow clients exhaust),
/// less [`SPARE_DESCRIPTORS`], at most [`MAX_CONNECTIONS`].
fn connection_cap() -> usize {
    let descriptors = crate::sys::raise_open_file_limit();
    (descriptors.saturating_sub(SPARE_DESCRIPTORS) as usize).clamp(16, MAX_CONNECTIONS)
}

/// Serves the app on `listener` until the process is stopped: HTTP/1.1 with
/// [`HEADER_TIMEOUT`] and as many connections as file descriptors allow (at most
/// [`MAX_CONNECTIONS`]; past that a new connection is closed at once, so that the server
/// still accepts). Every table is read into the server's own
/// memory ([`crate::store::hold_files_in_memory`]), so a table file truncated or rewritten
/// in place cannot stop it with a bus error.
pub async fn serve(listener: tokio::net::TcpListener, config: ServeConfig) -> std::io::Result<()> {
    crate::store::hold_files_in_memory();
    let app = router(config);
    let cap = connection_cap();
    tracing::info!(connections = cap, "most connections served at once");
    let open = Arc::new(tokio::sync::Semaphore::new(cap));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of file descriptors, say: wait for connections to end, keep serving.
                tracing::warn!(%error, "cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&open).try_acquire_owned() else {
            tracing::warn!(connections = cap, "too many connections: closing a new one");
            continue;
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let served = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
            if let Err(error) = served {
                tracing::debug!(%error, "connection ended");
            }
            drop(permit);
        });
    }
}

/// Binds `address`, calls `ready` with the address bound (port 0 picks a free one), and
/// serves until the process is stopped, on a runtime of its own.
pub fn run(address: SocketAddr, config: ServeConfig, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    // The solver's threads work at a lower priority than the async threads answering
    // requests ([`api::background_priority`]), as the blocking pool's do.
    let pool = rayon::ThreadPoolBuilder::new().start_handler(|_| api::background_priority()).build_global();
    if let Err(error) = pool {
        tracing::warn!(%error, "the solver's threads keep their priority");
    }
    let runtime =
        tokio::runtime::Builder::new_multi_thread().max_blocking_threads(MAX_BLOCKING_THREADS).enable_all().build()?;
    runtime.block_on(async {
        let socket = if address.is_ipv4() { TcpSocket::new_v4() } else { TcpSocket::new_v6() }?;
        socket.set_reuseaddr(true)?;
        socket.bind(address)?;
        let listener = socket.listen(LISTEN_BACKLOG)?;
        ready(listener.local_addr()?);
        serve(listener, config).await
    })
}
