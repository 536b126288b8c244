//! What to simulate: the service (textbook M/M/c or LLM replicas, with their KV cache), the arrivals (open or closed
//! loop, Poisson or burstier), the SLO and the run length. A [`Scenario`] is a plain serialisable value: the JSON of a
//! `goodput-sim --scenario` file.

use serde::{Deserialize, Serialize};

mod validate;

pub use validate::{
    ScenarioError, MAX_ARRIVAL_CV, MAX_CUSTOMERS, MAX_KV_TOKENS, MAX_OFFERED_LOAD, MAX_QUEUED_REQS,
    MAX_SERVERS, MAX_TOKENS, MAX_USERS,
};

/// Everything a run needs besides the seed. In JSON (a scenario file), each choice is an object named after it —
/// `{"service": {"llm": {…}}, "arrivals": {"open": {…}}, …}` — and an unknown field is an error, so a typo is
/// never silently ignored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Who serves the requests.
    pub service: ServiceKind,
    /// How requests arrive.
    pub arrivals: Arrivals,
    /// Per-request latency thresholds that define goodput.
    pub slo: Slo,
    /// Number of requests measured (after the warm-up). Written `requests` in a scenario file, as the CLI's
    /// `--requests` says; `customers`, the queueing-theory word it was first written in, is still read.
    #[serde(rename = "requests", alias = "customers")]
    pub customers: u64,
    /// Number of requests discarded before measuring starts, so that statistics do not carry the empty-system start.
    /// (The open-loop textbook queue starts in its exact steady state, so it needs none.)
    pub warm_up: u64,
}

/// The service stations.
// A scenario is built once per run and never held in bulk: boxing the fleet would cost every match for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ServiceKind {
    /// The textbook M/M/c queue: `servers` identical servers, exponential service, one FCFS queue.
    Textbook(TextbookService),
    /// A fleet of LLM inference replicas doing continuous (iteration-level) batching.
    Llm(LlmFleet),
}

/// The textbook M/M/c station, in abstract time units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextbookService {
    /// Number of servers `c`.
    pub servers: u32,
    /// Mean service time `1/μ` (1 time unit by default).
    pub mean_service: f64,
}

/// A fleet of identical vLLM-like replicas. Times are in seconds.
///
/// **Routing.** The fleet keeps one FCFS waiting queue and replicas pull from it: an arriving request joins the queue,
/// an idle replica (the lowest-indexed) schedules it at once, and otherwise each replica takes requests from the head
/// of the queue at the start of every iteration while it has a free slot and token budget — so a request goes to the
/// first replica with room, and it counts as waiting, as in vLLM, until a scheduler admits it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmFleet {
    /// Number of replicas (data-parallel copies of the model), each with its own batch.
    pub replicas: u32,
    /// vLLM `--max-num-seqs`: the most sequences one replica keeps in its running batch.
    pub max_num_seqs: u32,
    /// vLLM `--max-num-batched-tokens`: the most tokens (one per decoding sequence plus prefill tokens) in one
    /// iteration.
    pub max_num_batched_tokens: u32,
    /// vLLM `--enable-chunked-prefill`: split long prompts across iterations so no iteration exceeds the token budget.
    /// Off, a whole prompt rides in one iteration (a prompt longer than the budget runs alone) and stalls the decodes
    /// that share it.
    pub chunked_prefill: bool,
    /// vLLM's V0 scheduler without chunked prefill (vLLM before V1, or `VLLM_USE_V1=0`): a step that can start
    /// prompts runs only them, and the running sequences wait a step for every batch of prompts started. Off (V1,
    /// and V0 with chunked prefill): every step decodes every running sequence and prefills with the budget left.
    #[serde(default, skip_serializing_if = "is_false")]
    pub prefill_first: bool,
    /// How long one iteration takes.
    pub iteration: IterationModel,
    /// Prompt length distribution (tokens).
    pub prompt_tokens: LengthDist,
    /// Output length distribution (tokens, at least 1; geometric keeps the service memoryless).
    pub output_tokens: LengthDist,
    /// The KV-cache budget of one replica. A scenario file without it has no KV limit.
    #[serde(default)]
    pub kv_cache: KvCache,
    /// vLLM's `--enable-prefix-caching` (on by default in V1) as it matters here: a preempted sequence's freed blocks
    /// stay in the cache until reused, so on readmission to the same replica the prefix still there is a cache hit
    /// and only the rest is recomputed. Off, a preempted sequence recomputes its whole context.
    #[serde(default = "enabled", skip_serializing_if = "is_enabled")]
    pub prefix_caching: bool,
    /// Seconds the server's front end adds to every request before the scheduler sees it (HTTP, tokenisation):
    /// part of TTFT and end-to-end latency, not of TPOT.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub frontend_overhead: f64,
    /// vLLM `--max-num-queued-reqs`, per replica: the most requests in flight (waiting + running). An arrival that
    /// finds that many is turned away at once (HTTP 503) instead of queueing. Absent (the default): no cap, and the
    /// queue grows without bound past saturation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_num_queued_reqs: Option<u32>,
    /// vLLM `--max-num-queued-tokens`, per replica: the most prompt tokens of requests in their prefill phase
    /// (admitted, first token not yet out). An arrival whose prompt would take them past it is turned away at once.
    /// vLLM suggests about target TTFT × prefill throughput (Little's Law on the prefill queue). Absent: no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_num_queued_tokens: Option<u64>,
    /// Leading tokens every prompt shares with the others (a system prompt, a few-shot preamble): with prefix
    /// caching on they stay cached once computed, so each prefill computes only the rest (at least one token, as
    /// vLLM recomputes the last token of a full hit). Their KV blocks are counted per sequence, as if not shared: a
    /// little more KV than vLLM holds. 0 (the default): no shared prefix.
    #[serde(default, skip_serializing_if = "is_zero_tokens")]
    pub shared_prefix_tokens: u32,
}

fn is_zero_tokens(x: &u32) -> bool {
    *x == 0
}

fn enabled() -> bool {
    true
}

fn is_enabled(on: &bool) -> bool {
    *on
}

fn is_false(on: &bool) -> bool {
    !*on
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// Tokens per KV-cache block (vLLM's default `--block-size`): a sequence holds whole blocks.
pub const KV_BLOCK_TOKENS: u64 = 16;

/// How much KV cache one replica has, in tokens (allocated in blocks of [`KV_BLOCK_TOKENS`]).
///
/// A waiting request is admitted only when the blocks of its prompt (or of its first chunk) are free; every decode
/// step may need one more block; when a running sequence needs one and none is free, the most recently admitted
/// sequence is preempted and later recomputes its prefill — vLLM's V1 scheduler. A sequence never grows past what
/// the replica holds (vLLM refuses a `max_model_len` its cache cannot hold): a longer output stops there.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum KvCache {
    /// No KV limit: only `max_num_seqs` and the token budget bound the batch.
    #[default]
    Unlimited,
    /// Given directly: the tokens one replica's cache holds (rounded down to whole blocks).
    Tokens(u64),
    /// Derived from GPU memory the way vLLM sizes its cache at start-up.
    Memory(GpuMemory),
}

/// What sizes the KV cache of one replica: vLLM takes `--gpu-memory-utilization` of each GPU's memory, subtracts
/// the weights and what its profiling run needs besides (activations at the token budget, CUDA graphs,
/// communication buffers), and fills the rest with KV blocks. A token's KV is `2 × layers × KV heads × head size ×
/// bytes per value` (keys and values), split across the GPUs by tensor parallelism.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuMemory {
    /// GPUs one replica spans (`--tensor-parallel-size`).
    pub gpus: u32,
    /// Memory of one GPU, GiB.
    pub gpu_memory_gib: f64,
    /// vLLM `--gpu-memory-utilization` (default 0.9): the share of each GPU's memory vLLM may use.
    pub gpu_memory_utilization: f64,
    /// The model's weights, GiB, all GPUs together (tensor parallelism splits them evenly).
    pub weights_gib: f64,
    /// Per GPU, besides weights and KV: activations, CUDA graphs, buffers, GiB (vLLM's start-up log reports the
    /// KV memory left, the figure to copy from a real server).
    pub overhead_gib: f64,
    /// Transformer layers.
    pub layers: u32,
    /// Key/value heads (fewer than attention heads under grouped-query attention).
    pub kv_heads: u32,
    /// Size of one head.
    pub head_dim: u32,
    /// Bytes per cached value: 2 for FP16/BF16, 1 for an FP8 cache.
    pub kv_value_bytes: u32,
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

impl GpuMemory {
    /// KV bytes of one token, over all GPUs: `2 × layers × KV heads × head size × bytes per value`.
    pub fn kv_bytes_per_token(&self) -> f64 {
        2.0 * f64::from(self.layers)
            * f64::from(self.kv_heads)
            * f64::from(self.head_dim)
            * f64::from(self.kv_value_bytes)
    }

    /// KV-cache memory left on each GPU, GiB: utilisation × memory − weights ÷ GPUs − overhead.
    pub fn kv_gib_per_gpu(&self) -> f64 {
        self.gpu_memory_gib * self.gpu_memory_utilization
            - self.weights_gib / f64::from(self.gpus)
            - self.overhead_gib
    }

    /// Tokens the replica's cache holds, in whole blocks (0 when nothing is left for it).
    pub fn tokens(&self) -> u64 {
        // Tensor parallelism splits the KV heads; with fewer heads than GPUs each GPU keeps a copy of one.
        let heads_per_gpu = (f64::from(self.kv_heads) / f64::from(self.gpus.max(1))).max(1.0);
        let per_gpu_token =
            self.kv_bytes_per_token() / f64::from(self.kv_heads.max(1)) * heads_per_gpu;
        let tokens = (self.kv_gib_per_gpu() * GIB / per_gpu_token).floor();
        if tokens.is_finite() && tokens > 0.0 {
            (tokens as u64) / KV_BLOCK_TOKENS * KV_BLOCK_TOKENS
        } else {
            0
        }
    }
}

impl KvCache {
    /// The blocks of one replica's cache; `None` when unlimited.
    pub fn blocks(&self) -> Option<u64> {
        match self {
            KvCache::Unlimited => None,
            KvCache::Tokens(tokens) => Some(tokens / KV_BLOCK_TOKENS),
            KvCache::Memory(memory) => Some(memory.tokens() / KV_BLOCK_TOKENS),
        }
    }

    /// The tokens one replica's cache holds, in whole blocks; `None` when unlimited.
    pub fn tokens(&self) -> Option<u64> {
        self.blocks().map(|b| b * KV_BLOCK_TOKENS)
    }
}

/// Iteration-time model, in seconds: the linear
/// `fixed + per_prefill_token · prefill tokens + per_decode_seq · decoding sequences + per_context_token · context
/// tokens of the decoding sequences`. With a [`compute`](Self::compute) term, the matrix products take the larger
/// of their memory time (the linear terms but the context's: the weights read) and their compute time — a GPU step
/// is memory-bound at small batches and compute-bound at large ones — and attention's read of the KV cache adds
/// to that, whichever the bound: it is a kernel of its own, after the products. The default (every cost zero) is what an empty timeline carries; `validate`
/// refuses it in a scenario.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IterationModel {
    /// Cost of any iteration (weight loading, kernel launches, scheduling), seconds.
    pub fixed: f64,
    /// Cost per prompt token prefilled in the iteration, seconds.
    pub per_prefill_token: f64,
    /// Cost per sequence decoding one token in the iteration, seconds.
    pub per_decode_seq: f64,
    /// Cost per context token attended by the decoding sequences (KV-cache reads), seconds.
    pub per_context_token: f64,
    /// The compute-bound regime, when given: the matrix products last the larger of the linear time above (but
    /// the context's) and this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute: Option<ComputeTime>,
}

/// The compute time of an iteration: `fixed + per_token · (prefill tokens + decoding sequences)`, every token the
/// step processes costing the same matrix multiplications.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputeTime {
    /// Cost of any iteration in the compute-bound regime, seconds (0 when left out).
    #[serde(default)]
    pub fixed: f64,
    /// Cost per token processed (prefilled or decoded), seconds.
    pub per_token: f64,
}

impl IterationModel {
    /// Duration of an iteration with the given content.
    #[inline]
    pub fn duration(&self, prefill_tokens: u64, decode_seqs: u64, context_tokens: u64) -> f64 {
        self.mean_duration(
            prefill_tokens as f64,
            decode_seqs as f64,
            context_tokens as f64,
        )
    }

    /// [`duration`](Self::duration) for fractional (mean) contents, as the analytic formulas use it.
    #[inline]
    pub fn mean_duration(&self, prefill_tokens: f64, decode_seqs: f64, context_tokens: f64) -> f64 {
        let linear = self.fixed
            + self.per_prefill_token * prefill_tokens
            + self.per_decode_seq * decode_seqs;
        let matmuls = match &self.compute {
            None => linear,
            Some(c) => linear.max(c.fixed + c.per_token * (prefill_tokens + decode_seqs)),
        };
        matmuls + self.per_context_token * context_tokens
    }

    /// The shortest time a prompt of `prompt_tokens` can take to prefill: one iteration holding only it. Every TTFT
    /// is at least this long.
    pub fn prefill_time(&self, prompt_tokens: u32) -> f64 {
        self.duration(u64::from(prompt_tokens), 0, 0)
    }

    /// An iteration's [`duration`](Self::duration) split into what each part of its content costs, in the regime
    /// that sets it (the larger of memory and compute): the parts add up to the duration.
    pub fn cost(&self, prefill_tokens: u64, decode_seqs: u64, context_tokens: u64) -> StepCost {
        let (p, d) = (prefill_tokens as f64, decode_seqs as f64);
        let memory = StepCost {
            compute_bound: false,
            fixed: self.fixed,
            prefill: self.per_prefill_token * p,
            decode: self.per_decode_seq * d,
            context: self.per_context_token * context_tokens as f64,
        };
        match &self.compute {
            Some(c) if c.fixed + c.per_token * (p + d) > memory.total() - memory.context => {
                StepCost {
                    compute_bound: true,
                    fixed: c.fixed,
                    prefill: c.per_token * p,
                    decode: c.per_token * d,
                    context: memory.context,
                }
            }
            _ => memory,
        }
    }
}

/// An iteration's length by part, seconds (from [`IterationModel::cost`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepCost {
    /// The compute term set the length; otherwise the memory (linear) term did.
    pub compute_bound: bool,
    /// Any iteration's cost in that regime.
    pub fixed: f64,
    /// The prompt tokens prefilled.
    pub prefill: f64,
    /// The decoding sequences.
    pub decode: f64,
    /// The context they attend (its KV read, in either regime).
    pub context: f64,
}

impl StepCost {
    /// The iteration's length.
    pub fn total(&self) -> f64 {
        self.fixed + self.prefill + self.decode + self.context
    }
}

/// A distribution of token counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LengthDist {
    /// Always `tokens`.
    Fixed {
        /// The length.
        tokens: u32,
    },
    /// Uniform on the integers `min..=max`.
    Uniform {
        /// Smallest length.
        min: u32,
        /// Largest length.
        max: u32,
    },
    /// Geometric on `1, 2, …` with the given mean (memoryless: every token is the last with probability 1/mean),
    /// cut at `max` when given, as a request's `max_tokens` cuts its output.
    Geometric {
        /// Mean length before the cut, at least 1.
        mean: f64,
        /// The longest length: longer draws become `max` (no cut when left out).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<u32>,
    },
    /// Drawn uniformly from a list of observed lengths (each entry equally likely), e.g. a dataset's prompt lengths.
    Empirical {
        /// The observed token counts.
        tokens: Vec<u32>,
    },
}

/// Largest accepted list of an empirical length distribution.
pub const MAX_EMPIRICAL_LENGTHS: usize = 1_000_000;

/// Geometric on `1, 2, …` with mean `mean`, cut at `cap`: `(E[min(G, cap)], E[min(G, cap)²])`.
fn capped_geometric_moments(mean: f64, cap: u32) -> (f64, f64) {
    let q = 1.0 - 1.0 / mean;
    if q <= 0.0 {
        return (1.0, 1.0);
    }
    let m = f64::from(cap);
    let qm = q.powf(m);
    // E[X] = Σ_{k<cap} q^k; E[X²] = Σ_{k=1..cap} (2k − 1) q^(k−1).
    let first = (1.0 - qm) / (1.0 - q);
    let sum_k = (1.0 - (m + 1.0) * qm + m * qm * q) / ((1.0 - q) * (1.0 - q));
    (first, 2.0 * sum_k - first)
}

impl LengthDist {
    /// The longest length it draws; `None` for an uncut geometric, which has no bound.
    pub fn max(&self) -> Option<u32> {
        match *self {
            LengthDist::Fixed { tokens } => Some(tokens),
            LengthDist::Uniform { max, .. } => Some(max),
            LengthDist::Geometric { max, .. } => max,
            LengthDist::Empirical { ref tokens } => tokens.iter().copied().max(),
        }
    }

    /// Mean length.
    pub fn mean(&self) -> f64 {
        match *self {
            LengthDist::Fixed { tokens } => f64::from(tokens),
            LengthDist::Uniform { min, max } => (f64::from(min) + f64::from(max)) / 2.0,
            LengthDist::Geometric { mean, max: None } => mean,
            LengthDist::Geometric {
                mean,
                max: Some(cap),
            } => capped_geometric_moments(mean, cap).0,
            LengthDist::Empirical { ref tokens } => {
                tokens.iter().map(|&t| f64::from(t)).sum::<f64>() / tokens.len().max(1) as f64
            }
        }
    }

    /// Second moment `E[L²]`.
    pub fn second_moment(&self) -> f64 {
        match *self {
            LengthDist::Geometric {
                mean,
                max: Some(cap),
            } => capped_geometric_moments(mean, cap).1,
            LengthDist::Empirical { ref tokens } => {
                tokens.iter().map(|&t| f64::from(t).powi(2)).sum::<f64>()
                    / tokens.len().max(1) as f64
            }
            LengthDist::Fixed { tokens } => f64::from(tokens).powi(2),
            LengthDist::Uniform { min, max } => {
                let (a, b) = (f64::from(min), f64::from(max));
                let n = b - a + 1.0;
                let var = (n * n - 1.0) / 12.0;
                var + ((a + b) / 2.0).powi(2)
            }
            // Geometric on 1.. with success probability p = 1/m: Var = (1−p)/p².
            LengthDist::Geometric { mean, max: None } => mean * mean * (2.0 - 1.0 / mean),
        }
    }
}

/// How requests arrive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Arrivals {
    /// Open loop: arrivals at `offered_load` × the fleet's saturation throughput, with gamma-distributed gaps of
    /// coefficient of variation `cv` (1: Poisson). They keep coming whatever the server does, which is what exposes
    /// the knee. At `offered_load ≥ 1` the queue grows without bound, unless the replicas cap it
    /// ([`LlmFleet::max_num_queued_reqs`], [`LlmFleet::max_num_queued_tokens`]) and turn the excess away.
    Open {
        /// Offered load ρ = arrival rate ÷ saturation throughput.
        offered_load: f64,
        /// Coefficient of variation of the gaps between arrivals (standard deviation ÷ mean): 1 is Poisson, below 1
        /// smoother (0: evenly spaced), above 1 burstier. vLLM's `bench serve --burstiness B` is `cv = 1/√B`.
        #[serde(default = "poisson_cv")]
        cv: f64,
    },
    /// Closed loop: `users` each send a request, wait for the response, think for an exponential `think_time`, and
    /// send the next. Like a fixed-concurrency load generator, they slow down when the server does.
    Closed {
        /// Number of users N.
        users: u32,
        /// Mean think time Z (time units or seconds).
        think_time: f64,
    },
}

/// The gaps' coefficient of variation of Poisson arrivals.
pub const POISSON_CV: f64 = 1.0;

fn poisson_cv() -> f64 {
    POISSON_CV
}

impl Arrivals {
    /// Open-loop Poisson arrivals at offered load `offered_load`.
    pub fn poisson(offered_load: f64) -> Arrivals {
        Arrivals::Open {
            offered_load,
            cv: POISSON_CV,
        }
    }

    /// vLLM's burstiness factor `B = 1/CV²` (gamma shape) as a coefficient of variation.
    pub fn cv_from_burstiness(burstiness: f64) -> f64 {
        1.0 / burstiness.sqrt()
    }
}

/// Per-request latency thresholds. A request is *good* when it meets both; goodput is the rate of good requests.
///
/// In the textbook mode there is no first token: `ttft` is applied to the wait (the time until service starts, the
/// counterpart of queueing before the first token) and `tpot` does not apply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slo {
    /// Time-to-first-token threshold.
    pub ttft: f64,
    /// Time-per-output-token threshold (mean gap between a request's later tokens).
    pub tpot: f64,
}

impl Slo {
    /// The course's SLOs, p99 TTFT ≤ 500 ms and p95 TPOT ≤ 40 ms: where the lesson, the lab, the metrics reader, a
    /// calibrated server and the command line start (a `const` for the cluster's targets; [`Slo::default`] is it).
    pub const COURSE: Slo = Slo {
        ttft: 0.5,
        tpot: 0.04,
    };
}

impl Default for Slo {
    fn default() -> Self {
        Slo::COURSE
    }
}

impl Scenario {
    /// The fleet's saturation throughput (requests per time unit): `c·μ` for M/M/c; for LLM replicas see
    /// [`LlmFleet::saturation_throughput`].
    pub fn saturation_throughput(&self) -> f64 {
        match &self.service {
            ServiceKind::Textbook(t) => f64::from(t.servers) / t.mean_service,
            ServiceKind::Llm(f) => f.saturation_throughput(),
        }
    }

    /// Mean response time of a request alone in the system (no queueing, no batching partners).
    pub fn unloaded_response_time(&self) -> f64 {
        match &self.service {
            ServiceKind::Textbook(t) => t.mean_service,
            ServiceKind::Llm(f) => f.unloaded_response_time(),
        }
    }

    /// Open-loop arrival rate λ = ρ × saturation throughput; `None` in closed loop.
    pub fn arrival_rate(&self) -> Option<f64> {
        match self.arrivals {
            Arrivals::Open { offered_load, .. } => {
                Some(offered_load * self.saturation_throughput())
            }
            Arrivals::Closed { .. } => None,
        }
    }

    /// The offered load ρ. In closed loop: the request rate the users would send if nothing ever queued,
    /// `N / (Z + R₀)`, divided by the saturation throughput.
    pub fn offered_load(&self) -> f64 {
        match self.arrivals {
            Arrivals::Open { offered_load, .. } => offered_load,
            Arrivals::Closed { users, think_time } => {
                f64::from(users)
                    / (think_time + self.unloaded_response_time())
                    / self.saturation_throughput()
            }
        }
    }

    /// The same scenario at offered load `rho`. In closed loop this sets the number of users whose unqueued request
    /// rate equals ρ × saturation throughput (at least 1), keeping the think time.
    pub fn with_offered_load(&self, rho: f64) -> Scenario {
        let mut s = self.clone();
        match &mut s.arrivals {
            Arrivals::Open { offered_load, .. } => *offered_load = rho,
            Arrivals::Closed { users, think_time } => {
                let n = rho
                    * self.saturation_throughput()
                    * (*think_time + self.unloaded_response_time());
                *users = if n.is_finite() {
                    n.round().clamp(1.0, f64::from(MAX_USERS)) as u32
                } else {
                    1
                };
            }
        }
        s
    }

    /// Whether arrivals are open loop.
    pub fn is_open(&self) -> bool {
        matches!(self.arrivals, Arrivals::Open { .. })
    }
}

impl LlmFleet {
    /// Whether a queue cap is set (`max_num_queued_reqs` or `max_num_queued_tokens`): the fleet sheds load instead
    /// of queueing it without bound.
    pub fn has_queue_cap(&self) -> bool {
        self.max_num_queued_reqs.is_some() || self.max_num_queued_tokens.is_some()
    }

    /// Mean KV tokens a busy slot holds, averaged over the iterations of its requests: the prompt, the tokens
    /// generated so far (`E[O(O−1)]/(2·E[O])` on average), and half a block of rounding.
    pub fn kv_tokens_per_slot(&self) -> f64 {
        let (p, o) = (self.prompt_tokens.mean(), self.output_tokens.mean());
        let o2 = self.output_tokens.second_moment();
        p + (o2 - o) / (2.0 * o) + (KV_BLOCK_TOKENS - 1) as f64 / 2.0
    }

    /// Effective batch at saturation: `max_num_seqs`, unless the token budget or the KV cache binds first. A request
    /// holds its slot for about `E[O]` iterations (one that prefills it and yields the first token, `O−1` decodes),
    /// so a full batch carries `B·(E[O]−1)/E[O]` decode tokens and `B·E[P]/E[O]` prefill tokens per iteration, and
    /// holds `B` × [`kv_tokens_per_slot`](Self::kv_tokens_per_slot) KV tokens.
    pub fn saturation_batch(&self) -> f64 {
        let (p, o) = (self.prompt_tokens.mean(), self.output_tokens.mean());
        let per_slot_tokens = (o - 1.0 + p) / o;
        let kv_batch = self
            .kv_cache
            .tokens()
            .map_or(f64::INFINITY, |t| t as f64 / self.kv_tokens_per_slot());
        f64::from(self.max_num_seqs)
            .min(f64::from(self.max_num_batched_tokens) / per_slot_tokens)
            .min(kv_batch)
            .max(1.0)
    }

    /// Saturation throughput of the fleet (requests/s), derived from the iteration model at full batch.
    ///
    /// With `B` = [`saturation_batch`](Self::saturation_batch) slots always occupied, each slot cycles through
    /// `E[O]` iterations per request, so one replica completes `B / (E[O] · t_full)` requests per second, where
    /// `t_full` is the mean iteration time at full batch: the fixed cost, `B·E[P]/E[O]` prefill tokens,
    /// `B·(E[O]−1)/E[O]` decoding sequences, and their context `B·(E[P]·E[O−1] + E[(O−1)·O]/2)/E[O]` tokens
    /// (prompt plus tokens so far, averaged over a sequence's decode iterations). It assumes a prompt fits in one
    /// iteration's budget, which holds for every preset. Under V0's scheduler ([`LlmFleet::prefill_first`]) the
    /// prompts run in steps of their own, which the decodes wait for (see [`slot_time`](Self::slot_time)).
    pub fn saturation_throughput(&self) -> f64 {
        let b = self.saturation_batch();
        f64::from(self.replicas) * b / self.slot_time(b)
    }

    /// How long a request holds its slot with `b` slots busy: `E[O]` iterations of the mix
    /// [`saturation_throughput`](Self::saturation_throughput) describes. Under V0's scheduler an iteration is a
    /// decode step and, `min(1, b/E[O])` times on average, a step of the `b·E[P]/E[O]` prompt tokens it admits.
    fn slot_time(&self, b: f64) -> f64 {
        let (p, o) = (self.prompt_tokens.mean(), self.output_tokens.mean());
        let o2 = self.output_tokens.second_moment();
        let context = b * (p * (o - 1.0) + (o2 - o) / 2.0) / o;
        let (prefill, decoding) = (b * p / o, b * (o - 1.0) / o);
        let iteration = if self.prefill_first && !self.chunked_prefill {
            let prefill_steps = (b / o).min(1.0);
            let prompts_step = if prefill_steps > 0.0 {
                self.iteration
                    .mean_duration(prefill / prefill_steps, 0.0, 0.0)
            } else {
                0.0
            };
            self.iteration.mean_duration(0.0, decoding, context) + prefill_steps * prompts_step
        } else {
            self.iteration.mean_duration(prefill, decoding, context)
        };
        o * iteration
    }

    /// Requests in one replica's batch at `share` (0–1) of its saturation throughput, by Little's Law: `L = λW` with
    /// `λ = share × ` the replica's saturation throughput and `W` the time a request holds its slot, `E[O]`
    /// iterations of the batch it runs in. The batch `b` solving `b = λ·E[O]·t(b)` (found by bisection) is below
    /// `share ×` the full batch, since a smaller batch iterates faster.
    pub fn batch_at(&self, share: f64) -> f64 {
        let full = self.saturation_batch();
        let share = share.clamp(0.0, 1.0);
        let rate = share * full / self.slot_time(full);
        let excess = |b: f64| b - rate * self.slot_time(b);
        let (mut low, mut high) = (0.0, full);
        for _ in 0..60 {
            let mid = (low + high) / 2.0;
            if excess(mid) < 0.0 {
                low = mid;
            } else {
                high = mid;
            }
        }
        (low + high) / 2.0
    }

    /// Mean response time of a request alone on a replica: the front end, one prefill iteration, then `O−1` decode
    /// iterations of a batch of one (with a compute term, each at the mean context).
    pub fn unloaded_response_time(&self) -> f64 {
        let (p, o) = (self.prompt_tokens.mean(), self.output_tokens.mean());
        let o2 = self.output_tokens.second_moment();
        let it = &self.iteration;
        let prefill = it.mean_duration(p, 0.0, 0.0);
        let decode_iterations = o - 1.0;
        let context = p * (o - 1.0) + (o2 - o) / 2.0;
        let decode = match it.compute {
            None => {
                decode_iterations * (it.fixed + it.per_decode_seq) + it.per_context_token * context
            }
            Some(_) if decode_iterations > 0.0 => {
                decode_iterations * it.mean_duration(0.0, 1.0, context / decode_iterations)
            }
            Some(_) => 0.0,
        };
        self.frontend_overhead + prefill + decode
    }
}
