//! The page, its script and its style, and what installs it as an app (its manifest, its
//! service worker, its icon), embedded in the binary: the app needs nothing but this
//! process.

/// One embedded file: where it is served, as what, and its contents.
pub struct Asset {
    /// Its path on the server.
    pub path: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its contents.
    pub body: &'static str,
}

/// Every file the page needs. The service worker (`sw.js`, served from the root so that its
/// scope is the whole site) keeps these for the installed app, never an answer of the API.
pub const ASSETS: [Asset; 6] = [
    Asset { path: "/", content_type: "text/html; charset=utf-8", body: include_str!("assets/index.html") },
    Asset { path: "/app.js", content_type: "text/javascript; charset=utf-8", body: include_str!("assets/app.js") },
    Asset { path: "/style.css", content_type: "text/css; charset=utf-8", body: include_str!("assets/style.css") },
    Asset {
        path: "/manifest.webmanifest",
        content_type: "application/manifest+json",
        body: include_str!("assets/manifest.webmanifest"),
    },
    Asset { path: "/sw.js", content_type: "text/javascript; charset=utf-8", body: include_str!("assets/sw.js") },
    Asset { path: "/icon.svg", content_type: "image/svg+xml", body: include_str!("assets/icon.svg") },
];
