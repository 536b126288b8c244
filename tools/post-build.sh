#!/usr/bin/env bash
# Trunk post-build hook (the only one: Trunk runs hooks of one stage in parallel, and these steps build on each
# other). In the staging folder, after Trunk wrote index.html:
#  1. harden-page.mjs: the wasm is fetched with its integrity hash, and a Content-Security-Policy <meta> allows
#     exactly this build's inline loader script by its sha256;
#  2. route-pages.sh: a copy of index.html for every lesson's deep link (same policy, since it copies the page);
#  3. service-worker.mjs: sw.js, which precaches every file of the build for offline use.
set -euo pipefail
site="${TRUNK_STAGING_DIR:-${1:?usage: post-build.sh SITE_DIR}}"
cd "$(dirname "$0")/.."
node tools/harden-page.mjs "$site"
bash tools/route-pages.sh "$site"
node tools/service-worker.mjs "$site"
