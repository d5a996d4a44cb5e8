//! The page, its script and its style, embedded in the binary: the app needs nothing but
//! this process.

use axum::http::header;
use axum::response::IntoResponse;

/// The page.
pub const INDEX_HTML: &str = include_str!("assets/index.html");
/// Its script.
pub const APP_JS: &str = include_str!("assets/app.js");
/// Its style.
pub const STYLE_CSS: &str = include_str!("assets/style.css");

pub(super) async fn index() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX_HTML)
}

pub(super) async fn script() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], APP_JS)
}

pub(super) async fn style() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE_CSS)
}
