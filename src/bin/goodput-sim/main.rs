//! `goodput-sim`: the queue model from the command line, for slides, benchmarks and outside checks.
//!
//! ```text
//! goodput-sim run --preset textbook --replicas 4 --load 0.95 --requests 1000000 --seed 7 --json
//! goodput-sim run --preset textbook --replicas 4 --users 16 --think 4 --json
//! goodput-sim run --preset course --load 0.97 --closed --json
//! goodput-sim sweep --preset course --from 0.85 --to 1.0 --step 0.01 --csv
//! goodput-sim run --preset distserve --load 0.95 --arrival-cv 2 --json
//! goodput-sim run --preset distserve --rate 3 --requests 200 --seeds 10 --json
//! goodput-sim run --scenario my.json --trace requests.jsonl --json
//! goodput-sim scenario --preset distserve > my.json; goodput-sim run --scenario my.json
//! goodput-sim bench [--json]
//! goodput-sim fleet --traffic 0:5,1320:100 --seconds 1800 --scale-on waiting --json
//! goodput-sim metrics tests/fixtures/metrics/healthy.prom
//! curl -s localhost:8000/metrics | goodput-sim metrics -
//! goodput-sim metrics --json earlier.prom later.prom
//! goodput-sim calibrate --max-num-seqs 64 rate-1.json rate-2.json > my-server.json
//! ```
//!
//! Modules: [`cli`] (the subcommands), [`calibrate`] (a scenario fitted to a server's measurements), [`scenario_args`] (the flags that make a scenario), [`finite`] (finite runs
//! at a rate or of a trace, like `vllm bench serve`), [`fleet`] (a fleet through a day, routed and autoscaled), [`trace`] (reading traces), [`input`] (files and standard
//! input), [`output`] (table, CSV and JSON), [`bench`] (the model's speed, for BENCHMARKS.md). The
//! `metrics` subcommand is `goodput::cluster::report`, which the probe script and tests share.

#[cfg(any(not(target_arch = "wasm32"), target_os = "wasi"))]
mod bench;
#[cfg(not(target_arch = "wasm32"))]
mod calibrate;
#[cfg(not(target_arch = "wasm32"))]
mod cli;
#[cfg(not(target_arch = "wasm32"))]
mod finite;
#[cfg(not(target_arch = "wasm32"))]
mod fleet;
#[cfg(not(target_arch = "wasm32"))]
mod input;
#[cfg(not(target_arch = "wasm32"))]
mod output;
#[cfg(not(target_arch = "wasm32"))]
mod scenario_args;
#[cfg(not(target_arch = "wasm32"))]
mod trace;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::main());
}

/// Under WASI the binary runs the benchmark (used to compare wasm against native: `bench`, or `bench --json`); in the
/// browser build it is inert.
#[cfg(target_arch = "wasm32")]
fn main() {
    #[cfg(target_os = "wasi")]
    {
        let json = std::env::args().any(|a| a == "--json");
        print!(
            "{}",
            bench::render(&bench::measure(bench::Size::Full), "wasm32-wasip1", json)
        );
    }
}
