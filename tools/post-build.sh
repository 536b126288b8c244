#!/usr/bin/env bash
# Trunk post-build hook (the only one: Trunk runs hooks of one stage in parallel, and these steps build on each
# other). In the staging folder, after Trunk wrote index.html:
#  0. split-page.mjs: the page's wasm cut into the module every visit loads and those fetched on demand (each
#     widget, presentation mode), from cargo's build, with the glue and integrity to match;
#  1. minify-js.mjs: the page's wasm-bindgen glue minified (2 kB less on every first visit);
#     bundle-css.mjs: the stylesheets as one file (one request before the first paint instead of six);
#     version-workers.mjs: the web workers' files named after a hash of their content, which the page is told, so a
#     page never loads a worker of another build;
#  2. harden-page.mjs: the wasm is fetched with its integrity hash, and a Content-Security-Policy <meta> allows
#     exactly this build's inline loader script by its sha256;
#  3. goodput-pages (the crate in src/pages/): every page written as complete HTML from that index.html — the
#     home page, each lesson (with a <base> back to the site root, so a deep link reloads on any static host), a
#     404 page, and the widgets' no-JavaScript pictures. It is built natively with the test profile, whose
#     compiled dependencies `make test-native` shares (at the top, where every member is a default
#     member, as there: cargo resolves the same features and reuses them);
#  4. service-worker.mjs: sw.js, which precaches the build for offline use.
set -euo pipefail
site="${TRUNK_STAGING_DIR:-${1:?usage: post-build.sh SITE_DIR}}"
cd "$(dirname "$0")/.."
node tools/split-page.mjs "$site"
node tools/minify-js.mjs "$site"
node tools/bundle-css.mjs "$site"
node tools/version-workers.mjs "$site"
node tools/harden-page.mjs "$site"
cargo run --quiet --profile test --bin goodput-pages -- "$site"
node tools/service-worker.mjs "$site"
