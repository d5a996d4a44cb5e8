//! The page, its script and its style, and what installs it as an app (its manifest, its
//! service worker, its icon), embedded in the binary: the app needs nothing but this
//! process.

use axum::http::header;
use axum::response::IntoResponse;

/// The page.
pub const INDEX_HTML: &str = include_str!("assets/index.html");
/// Its script.
pub const APP_JS: &str = include_str!("assets/app.js");
/// Its style.
pub const STYLE_CSS: &str = include_str!("assets/style.css");
/// The web app manifest: what a browser installs the page as.
pub const MANIFEST: &str = include_str!("assets/manifest.webmanifest");
/// The service worker: keeps the page's files for the installed app, never an answer of
/// the API. Served from the root, so that its scope is the whole site.
pub const SERVICE_WORKER_JS: &str = include_str!("assets/sw.js");
/// The app's icon.
pub const ICON_SVG: &str = include_str!("assets/icon.svg");

pub(super) async fn index() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX_HTML)
}

pub(super) async fn script() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], APP_JS)
}

pub(super) async fn style() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE_CSS)
}

pub(super) async fn manifest() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/manifest+json")], MANIFEST)
}

pub(super) async fn service_worker() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], SERVICE_WORKER_JS)
}

pub(super) async fn icon() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "image/svg+xml")], ICON_SVG)
}
