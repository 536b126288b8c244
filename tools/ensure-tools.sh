#!/usr/bin/env bash
# Install what building (and, with --browser, testing) goodput needs — only what is missing, so it is
# safe to run every time. Everything comes from the package registries (crates.io, npm, Debian);
# nothing downloads a prebuilt binary or a browser of its own.
#
# First run on a fresh 2-core machine: ~25 min, almost all of it compiling Trunk and wasm-bindgen-cli
# from source (in parallel); later runs take seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

TRUNK_VERSION=0.21.14 # Trunk 0.22 needs a newer rustc than 1.95
# The post-build step that cuts the page's wasm into on-demand modules (tools/split-page.mjs): the splitter
# cargo-leptos 0.3 runs for Leptos's #[lazy], as a command.
WASM_SPLIT_VERSION=0.2.4
# wasm-bindgen-cli must be exactly the version of the wasm-bindgen crate pinned in Cargo.toml.
WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml)
# --browser: Chromium for the browser tests and the benchmark; --bench: the WASI target for the model's wasm bench,
# and twiggy for what is in the page's wasm.
want_browser=false
want_bench=false
for flag in "$@"; do
  case "$flag" in
    --browser) want_browser=true ;;
    --bench) want_bench=true ;;
    *) echo "ensure-tools: unknown flag $flag (known: --browser, --bench)" >&2; exit 2 ;;
  esac
done

say() { echo "ensure-tools: $*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if $want_bench && ! rustup target list --installed | grep -qx wasm32-wasip1; then
  say "adding the wasm32-wasip1 target (the model's speed in wasm, for make bench)"
  rustup target add wasm32-wasip1
fi

# The two slow installs run side by side; everything else happens while they compile.
installs=()
if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  say "compiling Trunk $TRUNK_VERSION from crates.io (about 18 min on 2 cores, once)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --quiet &
  installs+=($!)
fi
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  say "compiling wasm-bindgen-cli $WASM_BINDGEN_VERSION from crates.io (about 8 min on 2 cores, once)"
  # Not --locked: its lockfile pins a webpki-roots release that crates.io no longer serves.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force --quiet &
  installs+=($!)
fi

if ! cargo install --list | grep -qx "wasm_split_cli_support v$WASM_SPLIT_VERSION:"; then
  say "compiling wasm-split-cli $WASM_SPLIT_VERSION from crates.io (a few minutes, once)"
  cargo install wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary --locked --quiet &
  installs+=($!)
fi

if $want_bench && ! command -v twiggy >/dev/null; then
  say "compiling twiggy from crates.io (what is in the wasm, for make bench; a few minutes, once)"
  cargo install twiggy --quiet &
  installs+=($!)
fi

# npm packages: playwright-core and axe-core for the browser tests, binaryen for a current wasm-opt, lighthouse for
# make bench (it uses Debian's chromium through CHROME_PATH and never downloads a browser).
lock_stamp=node_modules/.goodput-lock.sha256
if ! sha256sum --status -c "$lock_stamp" 2>/dev/null; then
  say "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  sha256sum package-lock.json > "$lock_stamp"
fi

if $want_browser && ! { command -v chromium && command -v chromedriver; } >/dev/null; then
  say "installing Debian's chromium and chromium-driver"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-driver >/dev/null
fi

for pid in "${installs[@]}"; do
  wait "$pid" || { say "a cargo install failed (see above)"; exit 1; }
done
say "ready: $(trunk --version), $(wasm-bindgen --version), wasm-opt $(wasm-opt --version | cut -d' ' -f3), wasm-split-cli $WASM_SPLIT_VERSION"
