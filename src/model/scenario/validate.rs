//! Checking a scenario before it runs: every field within its accepted range, the KV cache able to hold the longest
//! sequence, and errors that name the field and what is wrong with it.

use super::{
    Arrivals, IterationModel, KvCache, LengthDist, LlmFleet, Scenario, ServiceKind,
    KV_BLOCK_TOKENS, MAX_EMPIRICAL_LENGTHS,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// An invalid scenario, naming the offending field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioError {
    /// Path of the field, e.g. `service.servers`.
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid {}: {}", self.field, self.problem)
    }
}

impl std::error::Error for ScenarioError {}

/// Largest accepted number of servers or replicas.
pub const MAX_SERVERS: u32 = 4096;
/// Largest accepted number of closed-loop users.
pub const MAX_USERS: u32 = 1_000_000;
/// Largest accepted run length (measured plus warm-up requests).
pub const MAX_CUSTOMERS: u64 = 1_000_000_000;
/// Largest accepted prompt or output length.
pub const MAX_TOKENS: u32 = 10_000_000;
/// Largest accepted open-loop offered load (beyond 1 an uncapped queue only grows; a capped one sheds the excess).
pub const MAX_OFFERED_LOAD: f64 = 10.0;
/// Largest accepted coefficient of variation of open-loop gaps (burstiness 0.01).
pub const MAX_ARRIVAL_CV: f64 = 10.0;
/// Longest accepted fixed time (a step's fixed cost, the front end's overhead), seconds: an hour, far beyond any
/// real server, and short enough that the simulation's clock stays fine-grained.
pub const MAX_STEP_SECONDS: f64 = 3600.0;
/// Largest accepted cost per token or sequence of a step, seconds.
pub const MAX_COST_PER_TOKEN: f64 = 1.0;
/// Longest accepted mean think time (closed loop) or textbook mean service time: about 11.6 days.
pub const MAX_MEAN_TIME: f64 = 1e6;
/// The finest the simulation's clock must resolve, as a share of the shortest time it simulates (a step's fixed
/// cost, a mean service): a run longer than `2⁵² ×` this share × that time would add steps too short for the clock
/// to see, and report latencies of 0.
const CLOCK_RESOLUTION: f64 = 1e-4;

fn err(field: &str, problem: &str) -> ScenarioError {
    ScenarioError {
        field: field.to_string(),
        problem: problem.to_string(),
    }
}

fn positive(field: &str, x: f64) -> Result<(), ScenarioError> {
    // `is_normal`: a subnormal is above 0 in name only (its reciprocal is infinite).
    if x.is_finite() && x > 0.0 && x.is_normal() {
        Ok(())
    } else {
        Err(err(field, "must be a finite number above 0"))
    }
}

fn non_negative(field: &str, x: f64) -> Result<(), ScenarioError> {
    if x.is_finite() && x >= 0.0 {
        Ok(())
    } else {
        Err(err(field, "must be a finite number, 0 or more"))
    }
}

/// The shortest time above 0 a scenario may hold, seconds (time units): a nanosecond. Shorter is no server's time,
/// and far shorter (a subnormal such as `1e-320`) makes rates that overflow to infinity and figures that print blank.
pub const MIN_TIME: f64 = 1e-9;
/// The smallest cost per token or sequence above 0, seconds: well below any hardware's, and far above the
/// subnormals whose products lose every digit.
pub const MIN_COST: f64 = 1e-15;

/// A finite number in `[lo, hi]` (`lo` itself excluded when `open`): a time of at least [`MIN_TIME`] when `open`,
/// and 0 or at least [`MIN_COST`] otherwise.
fn time_in(field: &str, x: f64, hi: f64, open: bool) -> Result<(), ScenarioError> {
    let above = if open {
        x >= MIN_TIME
    } else {
        x == 0.0 || x >= MIN_COST
    };
    if x.is_finite() && above && x <= hi {
        Ok(())
    } else if x.is_finite() && x > 0.0 && !above {
        let least = if open { MIN_TIME } else { MIN_COST };
        Err(err(
            field,
            &format!("is {x:e}, too short to be a time any server takes (the least accepted is {least:e})"),
        ))
    } else {
        let lo = if open { "above 0" } else { "0 or more" };
        Err(err(field, &format!("must be a number {lo}, at most {hi}")))
    }
}

fn in_range<T: PartialOrd + fmt::Display>(
    field: &str,
    x: T,
    lo: T,
    hi: T,
) -> Result<(), ScenarioError> {
    if x >= lo && x <= hi {
        Ok(())
    } else {
        Err(ScenarioError {
            field: field.to_string(),
            problem: format!("must be between {lo} and {hi}"),
        })
    }
}

impl LengthDist {
    fn validate(&self, field: &str) -> Result<(), ScenarioError> {
        match *self {
            LengthDist::Fixed { tokens } => {
                in_range(&format!("{field}.fixed.tokens"), tokens, 1, MAX_TOKENS)
            }
            LengthDist::Uniform { min, max } => {
                in_range(&format!("{field}.uniform.min"), min, 1, MAX_TOKENS)?;
                in_range(&format!("{field}.uniform.max"), max, min, MAX_TOKENS)
            }
            LengthDist::Geometric { mean, max } => {
                if !(mean.is_finite() && (1.0..=f64::from(MAX_TOKENS)).contains(&mean)) {
                    return Err(err(
                        &format!("{field}.geometric.mean"),
                        "must be a finite number between 1 and 10000000",
                    ));
                }
                match max {
                    Some(max) => in_range(&format!("{field}.geometric.max"), max, 1, MAX_TOKENS),
                    None => Ok(()),
                }
            }
            LengthDist::Empirical { ref tokens } => {
                let field = format!("{field}.empirical.tokens");
                if tokens.is_empty() || tokens.len() > MAX_EMPIRICAL_LENGTHS {
                    return Err(err(
                        &field,
                        &format!("must list between 1 and {MAX_EMPIRICAL_LENGTHS} lengths"),
                    ));
                }
                for (i, &t) in tokens.iter().enumerate() {
                    in_range(&format!("{field}[{i}]"), t, 1, MAX_TOKENS)?;
                }
                Ok(())
            }
        }
    }
}

/// Largest accepted `max_num_queued_reqs` per replica.
pub const MAX_QUEUED_REQS: u32 = 1_000_000;

/// Largest accepted KV budget given directly, tokens per replica.
pub const MAX_KV_TOKENS: u64 = 1 << 40;

impl Scenario {
    /// Checks every field; the simulator and the analytic formulas accept any scenario that passes.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        match &self.service {
            ServiceKind::Textbook(t) => {
                in_range("service.textbook.servers", t.servers, 1, MAX_SERVERS)?;
                time_in(
                    "service.textbook.mean_service",
                    t.mean_service,
                    MAX_MEAN_TIME,
                    true,
                )?;
            }
            ServiceKind::Llm(f) => {
                in_range("service.llm.replicas", f.replicas, 1, MAX_SERVERS)?;
                in_range("service.llm.max_num_seqs", f.max_num_seqs, 1, 65_536)?;
                in_range(
                    "service.llm.max_num_batched_tokens",
                    f.max_num_batched_tokens,
                    f.max_num_seqs,
                    MAX_TOKENS,
                )?;
                f.iteration.validate()?;
                time_in(
                    "service.llm.frontend_overhead",
                    f.frontend_overhead,
                    MAX_STEP_SECONDS,
                    false,
                )?;
                f.prompt_tokens.validate("service.llm.prompt_tokens")?;
                f.output_tokens.validate("service.llm.output_tokens")?;
                f.validate_kv_cache()?;
                if let Some(n) = f.max_num_queued_reqs {
                    in_range("service.llm.max_num_queued_reqs", n, 1, MAX_QUEUED_REQS)?;
                }
                if let Some(t) = f.max_num_queued_tokens {
                    in_range("service.llm.max_num_queued_tokens", t, 1, MAX_KV_TOKENS)?;
                }
            }
        }
        match self.arrivals {
            Arrivals::Open { offered_load, cv } => {
                positive("arrivals.open.offered_load", offered_load)?;
                in_range(
                    "arrivals.open.offered_load",
                    offered_load,
                    0.0,
                    MAX_OFFERED_LOAD,
                )?;
                non_negative("arrivals.open.cv", cv)?;
                in_range("arrivals.open.cv", cv, 0.0, MAX_ARRIVAL_CV)?;
            }
            Arrivals::Closed { users, think_time } => {
                in_range("arrivals.closed.users", users, 1, MAX_USERS)?;
                time_in(
                    "arrivals.closed.think_time",
                    think_time,
                    MAX_MEAN_TIME,
                    false,
                )?;
            }
        }
        positive("slo.ttft", self.slo.ttft)?;
        positive("slo.tpot", self.slo.tpot)?;
        in_range("requests", self.customers, 1, MAX_CUSTOMERS)?;
        if self.warm_up > MAX_CUSTOMERS - self.customers {
            // Neither number alone is at fault, so the run as a whole is named.
            return Err(err(
                "run",
                &format!(
                    "would measure {} requests after {} warm-up requests, {} in all, more than the {MAX_CUSTOMERS} a \
                     run takes",
                    self.customers,
                    self.warm_up,
                    self.customers + self.warm_up
                ),
            ));
        }
        self.validate_clock()
    }

    /// The shortest time the simulation must resolve: a step's fixed cost, or the textbook mean service.
    pub fn shortest_time(&self) -> f64 {
        match &self.service {
            ServiceKind::Textbook(t) => t.mean_service,
            ServiceKind::Llm(f) => f.iteration.fixed,
        }
    }

    /// The longest simulated span, seconds (time units), whose clock still resolves [`shortest_time`]
    /// (Self::shortest_time) finely enough.
    pub fn longest_span(&self) -> f64 {
        self.shortest_time() * CLOCK_RESOLUTION / f64::EPSILON
    }

    /// Refuses a run whose simulated span (its requests at its arrival rate) the clock could not resolve: its
    /// latencies would come out as 0 (or, past the largest `f64`, it would never end).
    fn validate_clock(&self) -> Result<(), ScenarioError> {
        let rate = match self.arrivals {
            Arrivals::Open { offered_load, .. } => offered_load * self.saturation_throughput(),
            Arrivals::Closed { users, think_time } => (f64::from(users)
                / (think_time + self.unloaded_response_time()))
            .min(self.saturation_throughput()),
        };
        let span = (self.customers + self.warm_up) as f64 / rate;
        let longest = self.longest_span();
        if span.is_finite() && span <= longest {
            return Ok(());
        }
        let cure = match self.arrivals {
            Arrivals::Open { .. } => "fewer requests or a higher load",
            Arrivals::Closed { .. } => "fewer requests, more users or a shorter think time",
        };
        Err(err(
            "run",
            &format!(
                "would last about {span:.3e} s of simulated time, longer than the {longest:.3e} s in which the \
                 clock resolves a {:.3e} s step (its latencies would read 0); take {cure}",
                self.shortest_time()
            ),
        ))
    }
}

impl IterationModel {
    fn validate(&self) -> Result<(), ScenarioError> {
        let field = |name: &str| format!("service.llm.iteration.{name}");
        time_in(&field("fixed"), self.fixed, MAX_STEP_SECONDS, true)?;
        for (name, x) in [
            ("per_prefill_token", self.per_prefill_token),
            ("per_decode_seq", self.per_decode_seq),
            ("per_context_token", self.per_context_token),
        ] {
            time_in(&field(name), x, MAX_COST_PER_TOKEN, false)?;
        }
        if let Some(c) = &self.compute {
            time_in(&field("compute.fixed"), c.fixed, MAX_STEP_SECONDS, false)?;
            time_in(
                &field("compute.per_token"),
                c.per_token,
                MAX_COST_PER_TOKEN,
                false,
            )?;
        }
        Ok(())
    }
}

impl LlmFleet {
    fn validate_kv_cache(&self) -> Result<(), ScenarioError> {
        match &self.kv_cache {
            KvCache::Unlimited => return Ok(()),
            KvCache::Tokens(tokens) => {
                in_range(
                    "service.llm.kv_cache.tokens",
                    *tokens,
                    KV_BLOCK_TOKENS,
                    MAX_KV_TOKENS,
                )?;
            }
            KvCache::Memory(m) => {
                let field = |name: &str| format!("service.llm.kv_cache.memory.{name}");
                in_range(&field("gpus"), m.gpus, 1, 1024)?;
                positive(&field("gpu_memory_gib"), m.gpu_memory_gib)?;
                positive(&field("gpu_memory_utilization"), m.gpu_memory_utilization)?;
                in_range(
                    &field("gpu_memory_utilization"),
                    m.gpu_memory_utilization,
                    0.0,
                    1.0,
                )?;
                non_negative(&field("weights_gib"), m.weights_gib)?;
                non_negative(&field("overhead_gib"), m.overhead_gib)?;
                in_range(&field("layers"), m.layers, 1, 100_000)?;
                in_range(&field("kv_heads"), m.kv_heads, 1, 100_000)?;
                in_range(&field("head_dim"), m.head_dim, 1, 100_000)?;
                in_range(&field("kv_value_bytes"), m.kv_value_bytes, 1, 8)?;
                if m.tokens() == 0 {
                    return Err(ScenarioError {
                        field: "service.llm.kv_cache".to_owned(),
                        problem: format!(
                            "leaves no memory for the KV cache: of the {:.1} GiB vLLM may use per GPU, the weights \
                             and overhead take {:.1} GiB",
                            m.gpu_memory_gib * m.gpu_memory_utilization,
                            m.weights_gib / f64::from(m.gpus) + m.overhead_gib
                        ),
                    });
                }
            }
        }
        let capacity = self.kv_cache.tokens().unwrap_or(u64::MAX);
        // The longest sequence it must hold at once: its prompt and every output token but the last (whose KV is
        // never written). A geometric length has no longest: its tail is cut at the capacity instead.
        let longest = match (self.prompt_tokens.max(), self.output_tokens.max()) {
            (Some(p), Some(o)) => Some((u64::from(p) + u64::from(o) - 1, "sequence")),
            (Some(p), None) => Some((u64::from(p), "prompt")),
            (None, _) => None,
        };
        match longest {
            Some((longest, what)) if longest > capacity => Err(ScenarioError {
                field: "service.llm.kv_cache".to_owned(),
                problem: format!(
                    "holds {capacity} tokens per replica, fewer than the longest {what} ({longest} tokens)"
                ),
            }),
            _ => Ok(()),
        }
    }
}
