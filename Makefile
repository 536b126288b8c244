# goodput — every task the README mentions. Each target installs what it needs first (tools/ensure-tools.sh).
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
export PATH := $(HOME)/.cargo/bin:$(CURDIR)/node_modules/.bin:$(PATH)

.PHONY: serve dist test lint test-native test-browser fuzz bench

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
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	cargo clippy --workspace --target wasm32-unknown-unknown --lib --bins --quiet -- -D warnings

# Property tests draw their cases from a fixed seed here, so CI is reproducible; a plain `cargo test` (and `make fuzz`)
# draws new cases every run. A case that ever failed is kept in the .proptest-regressions file beside its test and
# rerun first.
test-native:
	PROPTEST_RNG_SEED=20261129 cargo test --workspace --quiet

# The release build in dist/, served under /course/ by the tests themselves.
test-browser:
	npm test

## fuzz: every parser of outside input (lesson compiler, metrics reader, URL state; result JSON, traces, scrape pairs,
## the stored server, the model's stream) under generated and mutated input, FUZZ_SECONDS per target (default 60);
## a failure prints the shrunk input (keep it as a test in tests/fuzz_parsers.rs or tests/fuzz_inputs.rs)
FUZZ_SECONDS ?= 60
fuzz:
	tools/ensure-tools.sh
	GOODPUT_FUZZ_SECONDS=$(FUZZ_SECONDS) cargo test --quiet --test fuzz_parsers --test fuzz_inputs -- --test-threads=2 --nocapture

## bench: builds the release site and measures it (model speed, page weight, load, Lighthouse, interaction) into
## BENCHMARKS.md; a benchmark, not a test: it never fails on a number
bench:
	tools/ensure-tools.sh --browser --bench
	$(MAKE) --no-print-directory dist
	node tools/bench.mjs
