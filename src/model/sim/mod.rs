//! The discrete-event simulator: the textbook M/M/c queue ([`textbook`]) and LLM replicas with continuous batching
//! ([`llm`]), both open or closed loop, sharing one recorder of statistics and one summary format.
//!
//! **Random streams.** Each source of randomness (inter-arrival gaps, service demand, prompt and output lengths, think
//! times, the initial state) draws from its own xoshiro256++ stream derived from the seed, and arrival gaps are drawn
//! with unit mean (exponential, or gamma for another coefficient of variation) and scaled by `1/λ`. Request *k*
//! therefore gets the same service demand at every load and arrivals only move closer together as load rises: common
//! random numbers, so curves over load are smooth.
//!
//! **Warm-up.** Statistics cover requests `warm_up .. warm_up + customers` in arrival order, and time averages run
//! from the arrival of request `warm_up` to the end of the run. The open-loop textbook queue needs no warm-up: it
//! starts in its exact steady state (the number present drawn from the M/M/c stationary law, residual services
//! exponential by memorylessness). The other modes start empty with all closed-loop users thinking.
//!
//! **Instability.** In open loop at ρ ≥ 1 the run stops at the arrival of the last measured request (it never waits
//! for a queue that cannot drain), flags [`Stability::Unstable`] with the queue's growth rate, and reports no
//! steady-state figures.

pub mod llm;
mod recorder;
pub mod textbook;

pub(crate) use recorder::{Recorder, Sample};

use super::scenario::{Arrivals, Scenario, ScenarioError, ServiceKind, POISSON_CV};
use super::stats::{Bin, ConfidenceInterval, LatencyStats, OccupancySample};
use rand::{Rng, SeedableRng};
use rand_distr::{Exp1, Gamma};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Whether the run reached a steady state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Stability {
    /// The queue is stable; steady-state figures are reported.
    Stable,
    /// Open loop at or beyond saturation: the queue grows without bound and no steady state exists.
    Unstable {
        /// How fast the waiting queue grew over the run (requests per time unit).
        waiting_growth_rate: f64,
        /// Requests waiting when the run stopped.
        waiting_at_end: u32,
        /// Requests that arrived while measuring.
        arrived: u64,
        /// Requests that completed while measuring.
        completed: u64,
    },
}

/// Little's Law check over the measured window: time-averaged number in system against throughput × mean latency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LittleCheck {
    /// Time-averaged number of requests in the system `L`.
    pub time_averaged_in_system: f64,
    /// Throughput × mean end-to-end latency `X·W`.
    pub throughput_times_latency: f64,
    /// `|L − X·W| / L`.
    pub relative_error: f64,
}

/// 95% confidence intervals (batch means) of the headline latency: sojourn for the textbook queue, TTFT for LLM.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencyIntervals {
    /// Mean.
    pub mean: ConfidenceInterval,
    /// Median.
    pub p50: ConfidenceInterval,
    /// 99th percentile.
    pub p99: ConfidenceInterval,
}

/// Steady-state figures of a stable run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    /// Completed requests per time unit (per second in the LLM mode).
    pub throughput: f64,
    /// Measured arrival rate; in closed loop this is the users' real rate, lower than offered once queues form.
    pub effective_arrival_rate: f64,
    /// Output tokens per second (LLM mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens_per_second: Option<f64>,
    /// Rate of requests meeting both SLO thresholds (≤ throughput).
    pub goodput: f64,
    /// Share of measured requests meeting both SLO thresholds, in percent.
    pub slo_attainment: f64,
    /// Textbook: wait in queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<LatencyStats>,
    /// Textbook: sojourn (wait plus service).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sojourn: Option<LatencyStats>,
    /// LLM: time to first token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft: Option<LatencyStats>,
    /// LLM: time per output token, over requests with at least two output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpot: Option<LatencyStats>,
    /// LLM: end-to-end latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2e: Option<LatencyStats>,
    /// Time-averaged number in system (running plus waiting).
    pub in_system_mean: f64,
    /// Time-averaged running count (`num_requests_running`).
    pub running_mean: f64,
    /// Time-averaged waiting count (`num_requests_waiting`).
    pub waiting_mean: f64,
    /// Little's Law check.
    pub little: LittleCheck,
    /// Confidence intervals of the headline latency; `None` until the run has enough batches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intervals: Option<LatencyIntervals>,
    /// Histogram of the headline latency for a distribution chart.
    pub distribution: Vec<Bin>,
    /// Largest running batch seen on any replica (LLM mode), never above `max_num_seqs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_batch: Option<u32>,
}

/// Which kind of service a run simulated (serialised as `"textbook"` or `"llm"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServiceMode {
    /// The textbook M/M/c queue: wait and sojourn.
    Textbook,
    /// LLM replicas: TTFT, TPOT and end-to-end latency.
    Llm,
}

/// The KV cache over the measured window, for a fleet with a KV budget: vLLM's `kv_cache_usage_perc` and
/// `num_preemptions_total`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct KvUsage {
    /// Blocks of one replica's cache (16 tokens each).
    pub blocks_per_replica: u64,
    /// Time-averaged share of the fleet's blocks in use, 0–1.
    pub mean_usage: f64,
    /// Largest share in use at any moment, 0–1.
    pub peak_usage: f64,
    /// Running sequences preempted (freed, sent back to the front of the queue, recomputed later).
    pub preemptions: u64,
    /// Preemptions per time unit (per second in the LLM mode).
    pub preemption_rate: f64,
}

/// Which queue cap turned a request away: the `reason` label of vLLM's `vllm:admission_rejections_total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectionReason {
    /// `--max-num-queued-reqs`: the requests in flight (waiting + running) were at the cap.
    MaxNumQueuedReqs,
    /// `--max-num-queued-tokens`: the prompt tokens still to prefill, with this one's, would pass the cap.
    MaxNumQueuedTokens,
}

impl RejectionReason {
    /// Both reasons, in the order vLLM checks them.
    pub const ALL: [RejectionReason; 2] = [
        RejectionReason::MaxNumQueuedReqs,
        RejectionReason::MaxNumQueuedTokens,
    ];

    /// The label value: the flag's name in snake case, `max_num_queued_reqs` or `max_num_queued_tokens`.
    pub fn label(self) -> &'static str {
        match self {
            RejectionReason::MaxNumQueuedReqs => "max_num_queued_reqs",
            RejectionReason::MaxNumQueuedTokens => "max_num_queued_tokens",
        }
    }
}

/// Measured requests turned away by each cap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RejectedByReason {
    /// By `--max-num-queued-reqs`.
    pub max_num_queued_reqs: u64,
    /// By `--max-num-queued-tokens`.
    pub max_num_queued_tokens: u64,
}

impl RejectedByReason {
    /// Turned away by the cap `reason`.
    pub fn by(&self, reason: RejectionReason) -> u64 {
        match reason {
            RejectionReason::MaxNumQueuedReqs => self.max_num_queued_reqs,
            RejectionReason::MaxNumQueuedTokens => self.max_num_queued_tokens,
        }
    }

    /// Turned away by either cap.
    pub fn total(&self) -> u64 {
        self.max_num_queued_reqs + self.max_num_queued_tokens
    }
}

/// What the queue caps of a fleet turned away over the measured requests (present when the fleet has a cap, even if
/// it turned nobody away). A turned-away request is a failure for goodput and SLO attainment and has no latency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rejections {
    /// Measured requests turned away at arrival (vLLM answers them HTTP 503).
    pub rejected: u64,
    /// The share of measured requests turned away, 0–1: the error rate the clients see.
    pub rejection_rate: f64,
    /// Requests turned away per time unit (per second) over the measured window.
    pub rejected_per_second: f64,
    /// The same count by the cap that fired.
    pub rejected_by_reason: RejectedByReason,
}

/// What one run reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Textbook queue or LLM replicas.
    pub service: ServiceMode,
    /// Offered load ρ (closed loop: the users' unqueued rate over saturation throughput).
    pub offered_load: f64,
    /// Open-loop arrival rate λ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_rate: Option<f64>,
    /// Closed-loop population.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub users: Option<u32>,
    /// Saturation throughput of the fleet (requests per time unit).
    pub saturation_throughput: f64,
    /// Requests measured so far.
    pub measured: u64,
    /// Length of the measured window (time units, seconds in the LLM mode).
    pub duration: f64,
    /// Stable or not.
    pub stability: Stability,
    /// Sampled running and waiting counts (and KV usage) over the measured window.
    pub occupancy: Vec<OccupancySample>,
    /// KV usage and preemptions, for LLM replicas with a KV budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_cache: Option<KvUsage>,
    /// Requests turned away, for LLM replicas with a queue cap (`rejected`, `rejection_rate`, … beside the other
    /// figures in JSON).
    #[serde(flatten)]
    pub admission: Option<Rejections>,
    /// Steady-state figures, present only when stable.
    #[serde(flatten)]
    pub steady: Option<SteadyState>,
    /// With no steady state (open loop at or past saturation): the same figures over what the finite run measured,
    /// the measured requests that finished before the last of them arrived. The ones still waiting would have waited
    /// longer, and a longer run waits longer still, so its latencies are floors and its goodput a ceiling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finite_run: Option<SteadyState>,
}

impl RunSummary {
    /// Whether the run simulated LLM replicas.
    pub fn is_llm(&self) -> bool {
        self.service == ServiceMode::Llm
    }

    /// The headline latency: sojourn (textbook) or TTFT (LLM), when stable.
    pub fn headline(&self) -> Option<&LatencyStats> {
        let s = self.steady.as_ref()?;
        s.sojourn.as_ref().or(s.ttft.as_ref())
    }
}

/// The life of one measured request, for scatter plots and for checking the simulator request by request.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestTrace {
    /// Arrival order (0-based, warm-up included).
    pub index: u64,
    /// Arrival time.
    pub arrival: f64,
    /// First token (LLM) or start of service (textbook).
    pub first_token: f64,
    /// Completion time.
    pub finish: f64,
    /// Prompt tokens (0 in the textbook mode).
    pub prompt_tokens: u32,
    /// Output tokens (0 in the textbook mode).
    pub output_tokens: u32,
    /// The LLM replica that served it (0 in the textbook mode, whose servers share one queue).
    #[serde(default)]
    pub replica: u32,
}

/// A random stream: xoshiro256++ (Blackman & Vigna) from the rust-random project's `rand_xoshiro`. It needs only
/// 64-bit adds, shifts and rotations, so it runs as fast in wasm32 as natively (a 128-bit-multiply generator such as
/// PCG64 costs wasm several times more), and its quality is ample for simulation.
pub(crate) type Stream = Xoshiro256PlusPlus;

/// An independent random stream for one purpose, derived from the run's seed: the generator seeded from `seed`
/// (through SplitMix64, as `seed_from_u64` does), then advanced by `purpose` long jumps of 2¹⁹² steps each, so the
/// streams of one run never overlap.
pub(crate) fn stream(seed: u64, purpose: u64) -> Stream {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for _ in 0..purpose {
        rng.long_jump();
    }
    rng
}

/// Open-loop gaps between arrivals: unit-mean draws scaled by the mean gap `1/λ`. Poisson draws one unit
/// exponential per gap (so CV = 1 gives exactly the runs it always gave); another CV draws a gamma of shape `1/CV²`
/// (rand_distr's Marsaglia–Tsang), and CV = 0 spaces arrivals evenly. A draw never depends on the load: common random
/// numbers.
#[derive(Clone, Debug)]
pub(crate) struct Gaps {
    mean_gap: f64,
    shape: GapShape,
}

#[derive(Clone, Debug)]
enum GapShape {
    Poisson,
    Even,
    Gamma(Gamma<f64>),
}

impl Gaps {
    pub(crate) fn new(mean_gap: f64, cv: f64) -> Self {
        let shape = if cv == POISSON_CV {
            GapShape::Poisson
        } else if cv == 0.0 {
            GapShape::Even
        } else {
            let k = 1.0 / (cv * cv);
            // Validated: 0 < cv ≤ MAX_ARRIVAL_CV, so the shape and scale are finite and positive.
            Gamma::new(k, 1.0 / k).map_or(GapShape::Poisson, GapShape::Gamma)
        };
        Self { mean_gap, shape }
    }

    /// The mean gap `1/λ`.
    pub fn mean_gap(&self) -> f64 {
        self.mean_gap
    }

    /// The gap before the next arrival.
    #[inline(always)]
    pub fn next(&self, rng: &mut Stream) -> f64 {
        let unit = match &self.shape {
            GapShape::Poisson => rng.sample::<f64, _>(Exp1),
            GapShape::Even => 1.0,
            GapShape::Gamma(gamma) => rng.sample(gamma),
        };
        self.mean_gap * unit
    }
}

/// How a run's arrivals are driven; the same for both engines.
pub(crate) struct ArrivalPlan {
    /// Open loop: the gaps between arrivals.
    pub gaps: Gaps,
    /// Closed loop: mean think time.
    pub think_time: f64,
    /// Rough request rate, to size the occupancy series.
    pub expected_rate: f64,
    /// Open loop at ρ ≥ 1.
    pub unstable: bool,
    /// Closed loop: when each thinking user sends next (all users start thinking).
    pub sends: BinaryHeap<Reverse<Time>>,
    /// The think-time stream.
    pub think: Stream,
}

impl ArrivalPlan {
    pub fn new(scenario: &Scenario, seed: u64, think_stream: u64) -> Self {
        let mut think = stream(seed, think_stream);
        let mut sends = BinaryHeap::new();
        let (gaps, think_time, expected_rate, unstable) = match scenario.arrivals {
            Arrivals::Open { offered_load, cv } => {
                let rate = offered_load * scenario.saturation_throughput();
                (Gaps::new(1.0 / rate, cv), 0.0, rate, offered_load >= 1.0)
            }
            Arrivals::Closed { users, think_time } => {
                for _ in 0..users {
                    sends.push(Reverse(Time(think_time * think.sample::<f64, _>(Exp1))));
                }
                let rate = f64::from(users) / (think_time + scenario.unloaded_response_time());
                (
                    Gaps::new(0.0, POISSON_CV),
                    think_time,
                    rate.min(scenario.saturation_throughput()),
                    false,
                )
            }
        };
        Self {
            gaps,
            think_time,
            expected_rate,
            unstable,
            sends,
            think,
        }
    }
}

/// A simulation in progress, of either kind.
pub(crate) enum Engine {
    Textbook(Box<textbook::TextbookSim>),
    Llm(Box<llm::LlmSim>),
}

impl Engine {
    pub fn new(scenario: &Scenario, seed: u64) -> Result<Self, ScenarioError> {
        scenario.validate()?;
        let requests = (scenario.customers + scenario.warm_up) as f64;
        let sending = crate::budget::sending_of(scenario);
        crate::budget::check_mean(scenario, requests, sending, "requests")?;
        Ok(match &scenario.service {
            ServiceKind::Textbook(_) => {
                Engine::Textbook(Box::new(textbook::TextbookSim::new(scenario, seed)))
            }
            ServiceKind::Llm(_) => Engine::Llm(Box::new(llm::LlmSim::new(scenario, seed))),
        })
    }

    /// Runs until `target` requests are measured (or, when unstable, until the last of them arrives).
    pub fn advance_to(&mut self, target: u64) {
        match self {
            Engine::Textbook(e) => e.advance_to(target),
            Engine::Llm(e) => e.advance_to(target),
        }
    }

    pub fn summary(&self) -> RunSummary {
        match self {
            Engine::Textbook(e) => e.summary(),
            Engine::Llm(e) => e.summary(),
        }
    }

    pub fn recorder_mut(&mut self) -> &mut Recorder {
        match self {
            Engine::Textbook(e) => &mut e.rec,
            Engine::Llm(e) => &mut e.rec,
        }
    }

    pub fn recorder(&self) -> &Recorder {
        match self {
            Engine::Textbook(e) => &e.rec,
            Engine::Llm(e) => &e.rec,
        }
    }
}

/// Simulates `scenario` with `seed` and summarises it. Deterministic: the same scenario and seed give bit-identical
/// results on every platform.
pub fn run(scenario: &Scenario, seed: u64) -> Result<RunSummary, ScenarioError> {
    let mut engine = Engine::new(scenario, seed)?;
    engine.advance_to(scenario.customers);
    Ok(engine.summary())
}

/// Like [`run`], and also returns the traces of the first `limit` measured requests (in completion order).
pub fn run_traced(
    scenario: &Scenario,
    seed: u64,
    limit: usize,
) -> Result<(RunSummary, Vec<RequestTrace>), ScenarioError> {
    let mut engine = Engine::new(scenario, seed)?;
    engine.recorder_mut().trace_limit = limit;
    engine.advance_to(scenario.customers);
    let traces = std::mem::take(&mut engine.recorder_mut().traces);
    Ok((engine.summary(), traces))
}

/// A time-ordered `f64` key for binary heaps (min-heap through `Reverse`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Time(pub f64);

impl Eq for Time {}

impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Time {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
