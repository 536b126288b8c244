#!/usr/bin/env bash
# Trunk post-build hook: write a copy of index.html for every deep link, so a reload of
# https://host/any/sub/path/lessons/<slug>/ works on a static host with no rewrite rules.
# Each copy gets a <base> pointing back at the site root: its relative asset URLs resolve there, and
# the app reads its router base from document.baseURI (src/app.rs).
set -euo pipefail
site="${TRUNK_STAGING_DIR:-${1:?usage: route-pages.sh SITE_DIR}}"
cd "$(dirname "$0")/.."

# Lesson slugs come from each lesson's front matter line `slug = "..."` (see lessons/README.md).
for lesson in lessons/*.md; do
  [ "$(basename "$lesson")" = README.md ] && continue
  slug=$(sed -n 's/^slug *= *"\([a-z0-9-]*\)" *$/\1/p' "$lesson" | head -n 1)
  if [ -z "$slug" ]; then
    echo "route-pages: $lesson has no 'slug = \"...\"' line in its front matter" >&2
    exit 1
  fi
  mkdir -p "$site/lessons/$slug"
  sed 's|<head>|<head><base href="../../">|' "$site/index.html" > "$site/lessons/$slug/index.html"
done
