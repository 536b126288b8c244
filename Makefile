# goodput — every task the README mentions. Each target installs what it needs first (tools/ensure-tools.sh).
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
export PATH := $(HOME)/.cargo/bin:$(CURDIR)/node_modules/.bin:$(PATH)

.PHONY: serve dist test lint test-native test-browser

## serve: build and serve the course with live reload at http://127.0.0.1:8080/
serve:
	tools/ensure-tools.sh
	trunk serve

## dist: the release site in dist/, which works when copied under any sub-path
dist:
	tools/ensure-tools.sh
	trunk build --release

## test: everything CI runs: lints, native tests, the release build, browser tests in Chromium
test:
	tools/ensure-tools.sh --browser
	$(MAKE) --no-print-directory lint test-native dist test-browser

lint:
	cargo fmt --check
	cargo clippy --all-targets --quiet -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --lib --bins --quiet -- -D warnings

test-native:
	cargo test --quiet

# The release build in dist/, served under /course/ by the tests themselves.
test-browser:
	npm test
