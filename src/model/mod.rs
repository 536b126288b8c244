//! The queue model: why latency explodes near full load.
//!
//! Two kinds of service, each open or closed loop:
//! - the textbook **M/M/c** queue, with exact references in [`analytic`] (Erlang C, exact MVA);
//! - **LLM replicas with continuous batching** (vLLM-like: `max_num_seqs`, `max_num_batched_tokens`, chunked
//!   prefill), reporting `ttft`, `tpot`, end-to-end latency, throughput and `goodput`.
//!
//! Each LLM replica may have a KV-cache budget, with vLLM's admission and preemption, and queue caps
//! (`max_num_queued_reqs`, `max_num_queued_tokens`) that turn arrivals away past them; open-loop arrivals may be
//! burstier or smoother than Poisson (gamma gaps). [`trace_batch`] records what one replica's scheduler put in each
//! iteration of a run, and one request's whole life, for the batch timeline. [`settings`] turns a preset and the changes a person asks for
//! into a [`Scenario`], the same way for the command line and the page.
//!
//! Pure Rust, no web types, deterministic given a seed; every input and output is `serde` serialisable.
//!
//! ```
//! use goodput_model::{run, sweep, Scenario, default_load_points};
//! let scenario = Scenario::course_preset();
//! let summary = run(&scenario, 7).unwrap();
//! let ttft = summary.steady.as_ref().unwrap().ttft.unwrap();
//! assert!(ttft.p50 <= ttft.p99);
//! let curve = sweep(&Scenario::textbook_preset(), &default_load_points(), 7).unwrap();
//! assert_eq!(curve.len(), 16);
//! ```
//!
//! Times: the LLM mode works in seconds; the textbook mode in abstract time units (mean service 1 by default).

pub mod analytic;
pub mod budget;
pub mod fleet;
pub mod handoff;
pub mod hardware;
pub mod presets;
pub mod progressive;
pub mod scenario;
pub mod settings;
pub mod sim;
pub mod stats;
pub mod sweep;
pub mod your_server;

pub use analytic::{erlang_c, exact_reference, mva, ErlangC, ExactReference, Mva};
pub use progressive::{Estimate, ProgressiveRun, SlicedSweep};
pub use scenario::{
    Arrivals, ComputeTime, GpuMemory, IterationModel, KvCache, LengthDist, LlmFleet, Scenario,
    ScenarioError, ServiceKind, Slo, StepCost, TextbookService, KV_BLOCK_TOKENS, MAX_ARRIVAL_CV,
    MAX_OFFERED_LOAD, POISSON_CV,
};
pub use settings::{LoopKind, Preset, ScenarioSettings};
pub use sim::llm::batch::{
    trace_batch, BatchTrace, Cell, Chunk, EndAfterFollow, FollowedRequest, IterationRecord, Phase,
    PhaseKind, TraceSpec, Work, MAX_CELLS, MAX_ITERATIONS,
};
pub use sim::llm::replay::{
    bench_requests, capacity_requests, check_requests, measured_saturation_throughput, replay,
    replay_owned, replay_traced, BenchFigures, BenchStats, BenchSummary, TraceRequest,
    MAX_BENCH_REQUESTS,
};
pub use sim::{
    run, run_traced, KvUsage, LatencyIntervals, LittleCheck, RejectedByReason, RejectionReason,
    Rejections, RequestTrace, RunSummary, ServiceMode, Stability, SteadyState,
};
pub use stats::{Bin, ConfidenceInterval, LatencyStats, OccupancySample};
pub use sweep::{default_load_points, load_points, sweep, SweepPoint, MAX_SWEEP_POINTS};
