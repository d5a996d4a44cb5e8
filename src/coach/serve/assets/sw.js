"use strict";
// The app's service worker: keeps the page's own files, and the solver that runs in the
// browser where the page has one (yz.wasm, from scripts/build-web), so that the installed
// app reopens and advises without the network; answers of a yz server (api/) always come
// from it, never from a cache. Paths are relative: the app may live in any folder.

const CACHE = "yz-assets-v2";
const ASSETS = ["./", "app.js", "style.css", "icon.svg", "manifest.webmanifest"];
// Only a page from scripts/build-web has these (yz serve answers from the server).
const SOLVER = ["worker.js", "yz.wasm"];
const KEPT = ASSETS.concat(SOLVER).map((path) => new URL(path, self.registration.scope).pathname);

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll(ASSETS).then(() => Promise.all(SOLVER.map((path) => cache.add(path).catch(() => {})))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
    .then(() => self.clients.claim()));
});

// The page's files: from the network when it answers (so a new yz's page shows at once),
// else from the cache; API requests are left to the network.
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin || !KEPT.includes(url.pathname)) return;
  event.respondWith(fetch(event.request)
    .then((response) => {
      const copy = response.clone();
      if (response.ok) caches.open(CACHE).then((cache) => cache.put(event.request, copy));
      return response;
    })
    .catch(() => caches.match(event.request, { ignoreSearch: true })));
});
