//! Finite experiments, as a benchmark runs them: a list of requests (arrival time, prompt and output length) sent to
//! an empty fleet, run until the last one finishes, at any rate — above capacity too, where no steady state exists
//! but a finite run still ends. The list comes from a trace ([`replay`]) or is drawn from the scenario's arrival
//! process and length distributions at a given rate ([`bench_requests`]), like `vllm bench serve --request-rate R
//! --num-prompts N`.
//!
//! The report uses `vllm bench serve`'s definitions (see [`BenchSummary`]): TTFT; TPOT per request, `(E2E − TTFT) /
//! (output − 1)` over requests with two or more output tokens; ITL, every gap between consecutive tokens of a request
//! (a decode step's length, or a preempted request's stall until its recompute yields the next token); E2E; the
//! duration from the first arrival to the last completion, and throughput = requests ÷ duration, the drain included.
//! Percentiles interpolate linearly between order statistics, as numpy's do.

use super::bench_stats::stats;
pub use super::bench_stats::BenchStats;
use super::itl::Itl;
use super::{LlmSim, RequestTrace};
use crate::budget;
use crate::scenario::{
    Arrivals, LengthDist, Scenario, ScenarioError, ServiceKind, Slo, MAX_TOKENS,
};
use crate::sim::{stream, Gaps};
use serde::{Deserialize, Serialize};

/// One request of a finite run: when it is sent and how long it is.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceRequest {
    /// When the client sends it, seconds from the start of the run.
    pub arrival_s: f64,
    /// Prompt tokens.
    pub prompt_tokens: u32,
    /// Output tokens (at least 1).
    pub output_tokens: u32,
}

/// The figures a benchmark's result and the model's repeat of it are compared on, seconds (throughput in requests
/// per second): what the calibration's check and the lab's measured points show.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BenchFigures {
    /// Median TTFT.
    pub ttft_p50: f64,
    /// 99th-percentile TTFT (`None` when the input does not say).
    pub ttft_p99: Option<f64>,
    /// Median TPOT.
    pub tpot_p50: f64,
    /// Completed requests ÷ duration.
    pub throughput: f64,
}

impl BenchFigures {
    /// A simulated run's figures.
    pub fn of(summary: &BenchSummary) -> BenchFigures {
        BenchFigures {
            ttft_p50: summary.ttft.p50,
            ttft_p99: Some(summary.ttft.p99),
            tpot_p50: summary.tpot.p50,
            throughput: summary.throughput,
        }
    }
}

/// What a finite run reports, in `vllm bench serve`'s terms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchSummary {
    /// Requests sent: all of them complete, but for those a queue cap turned away ([`failed`](Self::failed)).
    pub requests: u64,
    /// Requests turned away by a queue cap (`max_num_queued_reqs`, `max_num_queued_tokens`), which a client sees as
    /// HTTP 503s and `vllm bench serve` counts as `failed`; they fail every SLO. 0 without a cap.
    #[serde(default)]
    pub failed: u64,
    /// The request rate asked for, requests per second (`None` for a trace).
    pub request_rate: Option<f64>,
    /// The fleet's analytic saturation throughput, requests per second, for scale.
    pub saturation_throughput: f64,
    /// Seconds from the first arrival to the last completion.
    pub duration: f64,
    /// Completed requests ÷ duration (the drain included, as vLLM's `request_throughput`).
    pub throughput: f64,
    /// Output tokens ÷ duration.
    pub output_throughput: f64,
    /// Prompt tokens of all requests.
    pub total_input_tokens: u64,
    /// Output tokens of all requests.
    pub total_output_tokens: u64,
    /// Requests meeting every SLO (TTFT, and TPOT when it has one) ÷ duration.
    pub goodput: f64,
    /// Share of the requests sent that completed and met every SLO, percent.
    pub slo_attainment: f64,
    /// The SLO goodput counts against.
    pub slo: Slo,
    /// Time to first token.
    pub ttft: BenchStats,
    /// Time per output token, per request.
    pub tpot: BenchStats,
    /// Inter-token latency, over every gap between consecutive tokens.
    pub itl: BenchStats,
    /// End-to-end latency.
    pub e2e: BenchStats,
    /// Most requests running (admitted) across the fleet at once.
    pub peak_running: u32,
    /// Most requests waiting at once.
    pub peak_waiting: u32,
    /// Sequences preempted for KV-cache room.
    pub preemptions: u64,
    /// Prefill tokens computed again after preemptions (less than the preempted context when the prefix cache still
    /// held some of it).
    pub recomputed_tokens: u64,
}

/// What the simulator records for a finite run: per request only the three latencies its percentiles need (24
/// bytes; the recorder keeps whole traces only when asked), the inter-token gaps in bounded memory.
#[derive(Debug, Default)]
pub(crate) struct ReplayState {
    /// The requests, in arrival order.
    pub requests: Vec<TraceRequest>,
    /// Inter-token gaps: a decode step of `d` sequences gives `d` gaps of its length.
    pub itl: Itl,
    pub peak_running: u32,
    pub peak_waiting: u32,
    /// TTFT, end-to-end latency and (with two or more output tokens) TPOT of every completed request.
    ttft: Vec<f64>,
    e2e: Vec<f64>,
    tpot: Vec<f64>,
    /// Completed requests that met every SLO.
    good: u64,
    /// Prompt and output tokens of the completed requests.
    input: u64,
    output: u64,
    /// The last completion.
    end: f64,
    /// What a replica driven from outside (a fleet's stepper) hands back: every finished request and every first
    /// token, until taken; `None` (nothing kept) in ordinary finite runs.
    pub log: Option<Box<ReplicaLog>>,
}

/// What a stepped replica hands back until taken.
#[derive(Debug, Default)]
pub struct ReplicaLog {
    /// Finished requests, in completion order (`arrival` is when the request was sent).
    pub finished: Vec<RequestTrace>,
    /// First tokens: when each came out, and the request's TTFT.
    pub first_tokens: Vec<(f64, f64)>,
}

impl ReplayState {
    /// The state of a run of `requests`, nothing recorded yet.
    pub fn new(requests: Vec<TraceRequest>) -> Self {
        // Reserved whole (pages are only committed as they fill), so the largest run never holds a list twice
        // while it doubles.
        let n = requests.len();
        Self {
            requests,
            ttft: Vec::with_capacity(n),
            e2e: Vec::with_capacity(n),
            tpot: Vec::with_capacity(n),
            ..Self::default()
        }
    }

    /// A request completed, as its trace tells: its latencies as `vllm bench serve` takes them.
    pub fn finished(&mut self, t: &RequestTrace, slo: &Slo) {
        let first = t.first_token - t.arrival;
        let total = t.finish - t.arrival;
        self.ttft.push(first);
        self.e2e.push(total);
        let per_token =
            (t.output_tokens > 1).then(|| (total - first) / f64::from(t.output_tokens - 1));
        if let Some(x) = per_token {
            self.tpot.push(x);
        }
        if first <= slo.ttft && per_token.is_none_or(|x| x <= slo.tpot) {
            self.good += 1;
        }
        self.input += u64::from(t.prompt_tokens);
        self.output += u64::from(t.output_tokens);
        self.end = self.end.max(t.finish);
        if let Some(log) = self.log.as_deref_mut() {
            log.finished.push(*t);
        }
    }
}

/// Largest finite run accepted, requests.
pub const MAX_BENCH_REQUESTS: u64 = 10_000_000;

/// `n` requests at `rate` per second drawn the way a steady-state run draws them (the scenario's gap CV, Poisson by
/// default, and its length distributions, from the seed's streams), the first sent at 0 as `vllm bench serve` sends
/// it.
pub fn bench_requests(
    scenario: &Scenario,
    rate: f64,
    n: u64,
    seed: u64,
) -> Result<Vec<TraceRequest>, ScenarioError> {
    scenario.validate()?;
    let ServiceKind::Llm(fleet) = &scenario.service else {
        return Err(problem(
            "service",
            "a finite run needs LLM replicas (the textbook queue has no tokens)",
        ));
    };
    if !(rate.is_finite() && rate > 0.0) {
        return Err(problem("rate", "must be a finite number above 0"));
    }
    if !(1..=MAX_BENCH_REQUESTS).contains(&n) {
        return Err(problem(
            "requests",
            &format!("must be between 1 and {MAX_BENCH_REQUESTS}"),
        ));
    }
    let span = n as f64 / rate;
    if span > scenario.longest_span() {
        return Err(problem("rate", &too_long(scenario, span)));
    }
    let cv = match scenario.arrivals {
        Arrivals::Open { cv, .. } => cv,
        Arrivals::Closed { .. } => crate::scenario::POISSON_CV,
    };
    let gaps = Gaps::new(1.0 / rate, cv);
    let mut rng_arrivals = stream(seed, super::ARRIVALS);
    let mut lengths = Lengths::new(fleet, seed);
    let mut t = 0.0;
    Ok((0..n)
        .map(|i| {
            if i > 0 {
                t += gaps.next(&mut rng_arrivals);
            }
            let (prompt_tokens, output_tokens) = lengths.draw();
            TraceRequest {
                arrival_s: t,
                prompt_tokens,
                output_tokens,
            }
        })
        .collect())
}

/// Prompt and output lengths drawn from a fleet's distributions, each from its own stream of the seed, as every run
/// draws them.
pub struct Lengths {
    prompts: super::LengthSampler,
    outputs: super::LengthSampler,
    rng_prompts: crate::sim::Stream,
    rng_outputs: crate::sim::Stream,
    /// The longest sequence a replica's KV cache holds, tokens.
    capacity: u32,
}

impl Lengths {
    /// The draws of `fleet`'s lengths from `seed`.
    pub fn new(fleet: &crate::scenario::LlmFleet, seed: u64) -> Self {
        Self {
            prompts: super::LengthSampler::new(&fleet.prompt_tokens),
            outputs: super::LengthSampler::new(&fleet.output_tokens),
            rng_prompts: stream(seed, super::PROMPTS),
            rng_outputs: stream(seed, super::OUTPUTS),
            // As in a steady-state run, no sequence outgrows the cache: a geometric tail is cut there (as at vLLM's
            // max_model_len).
            capacity: fleet
                .kv_cache
                .tokens()
                .map_or(MAX_TOKENS, |c| c.min(u64::from(MAX_TOKENS)) as u32),
        }
    }

    /// The next request's prompt and output tokens.
    pub fn draw(&mut self) -> (u32, u32) {
        let prompt = self
            .prompts
            .sample(&mut self.rng_prompts)
            .min(self.capacity);
        let output = self
            .outputs
            .sample(&mut self.rng_outputs)
            .min(self.capacity + 1 - prompt);
        (prompt, output)
    }
}

/// Why a run spanning `span` seconds is refused: the clock could not resolve its steps.
fn too_long(scenario: &Scenario, span: f64) -> String {
    format!(
        "spreads the requests over about {span:.3e} s, longer than the {:.3e} s in which the simulation's clock \
         resolves a {:.3e} s step",
        scenario.longest_span(),
        scenario.shortest_time()
    )
}

/// Refuses a run of `requests` whose work is over the budget ([`budget`]): their own lengths, sent at
/// `request_rate` or, for a trace, at its own mean rate.
fn check_work(
    scenario: &Scenario,
    requests: &[TraceRequest],
    request_rate: Option<f64>,
) -> Result<(), ScenarioError> {
    let ServiceKind::Llm(fleet) = &scenario.service else {
        return Ok(());
    };
    let n = requests.len() as f64;
    let steps: f64 = requests
        .iter()
        .map(|r| budget::request_steps(fleet, r.prompt_tokens, r.output_tokens))
        .sum();
    let span = requests.last().map_or(0.0, |r| r.arrival_s);
    let sending = match request_rate {
        Some(rate) => budget::Sending::Rate(rate),
        None if span > 0.0 => budget::Sending::Rate(n / span),
        None => budget::Sending::Burst,
    };
    let work = budget::work(scenario, n, steps, sending);
    if work <= budget::MAX_WORK {
        return Ok(());
    }
    let cause = budget::requests_of(n, &with_lengths_of(scenario, requests));
    Err(budget::too_much("requests", &cause, work))
}

/// `scenario` with the lengths of `requests` (their means as fixed lengths), so that a refusal of a trace quotes the
/// trace's lengths, not the scenario's.
fn with_lengths_of(scenario: &Scenario, requests: &[TraceRequest]) -> Scenario {
    let mut s = scenario.clone();
    if let ServiceKind::Llm(fleet) = &mut s.service {
        let n = requests.len().max(1) as f64;
        let mean = |f: fn(&TraceRequest) -> u32| {
            (requests.iter().map(|r| f64::from(f(r))).sum::<f64>() / n).round() as u32
        };
        fleet.prompt_tokens = LengthDist::Fixed {
            tokens: mean(|r| r.prompt_tokens),
        };
        fleet.output_tokens = LengthDist::Fixed {
            tokens: mean(|r| r.output_tokens),
        };
    }
    s
}

fn problem(field: &str, problem: &str) -> ScenarioError {
    ScenarioError {
        field: field.to_owned(),
        problem: problem.to_owned(),
    }
}

/// Checks a list of requests against the scenario's fleet: ascending arrivals from 0, lengths the fleet can hold.
/// The error's field is `requests[i]` (0-based), so a trace reader can name the line.
pub fn check_requests(scenario: &Scenario, requests: &[TraceRequest]) -> Result<(), ScenarioError> {
    scenario.validate()?;
    let ServiceKind::Llm(fleet) = &scenario.service else {
        return Err(problem(
            "service",
            "a finite run needs LLM replicas (the textbook queue has no tokens)",
        ));
    };
    if requests.is_empty() {
        return Err(problem("requests", "there are none"));
    }
    if requests.len() as u64 > MAX_BENCH_REQUESTS {
        return Err(problem(
            "requests",
            &format!("more than {MAX_BENCH_REQUESTS}"),
        ));
    }
    let capacity = fleet.kv_cache.tokens().unwrap_or(u64::MAX);
    let mut previous = 0.0;
    for (i, r) in requests.iter().enumerate() {
        let field = format!("requests[{i}]");
        if !(r.arrival_s.is_finite() && r.arrival_s >= previous) {
            return Err(problem(
                &format!("{field}.arrival_s"),
                &format!(
                    "must be a finite time, no earlier than the request before ({previous} s)"
                ),
            ));
        }
        previous = r.arrival_s;
        if !(1..=MAX_TOKENS).contains(&r.prompt_tokens) {
            return Err(problem(
                &format!("{field}.prompt_tokens"),
                &format!("must be between 1 and {MAX_TOKENS}"),
            ));
        }
        if !(1..=MAX_TOKENS).contains(&r.output_tokens) {
            return Err(problem(
                &format!("{field}.output_tokens"),
                &format!("must be between 1 and {MAX_TOKENS}"),
            ));
        }
        let longest = u64::from(r.prompt_tokens) + u64::from(r.output_tokens) - 1;
        if longest > capacity {
            return Err(problem(
                &field,
                &format!(
                    "needs {longest} tokens of KV cache, more than a replica holds ({capacity}); vLLM would refuse \
                     it as longer than max_model_len"
                ),
            ));
        }
    }
    let span = requests[requests.len() - 1].arrival_s;
    if span > scenario.longest_span() {
        return Err(problem("requests", &too_long(scenario, span)));
    }
    Ok(())
}

/// Runs `requests` (arrival times from 0, ascending) through the scenario's fleet, empty at the start, until the
/// last one finishes; reports as `vllm bench serve` does. The scenario's arrivals, `customers` and `warm_up` are not
/// used; its fleet and SLO are. `request_rate` is only reported.
pub fn replay(
    scenario: &Scenario,
    requests: &[TraceRequest],
    request_rate: Option<f64>,
) -> Result<BenchSummary, ScenarioError> {
    replay_owned(scenario, requests.to_vec(), request_rate)
}

/// [`replay`] taking the list, so the largest run does not hold it twice. Memory: the list (16 bytes a request),
/// 24 bytes a request for the percentiles, what is in flight (about 100 bytes a request waiting or running), and
/// the inter-token gaps' bounded record ([`itl`](super::itl)).
pub fn replay_owned(
    scenario: &Scenario,
    requests: Vec<TraceRequest>,
    request_rate: Option<f64>,
) -> Result<BenchSummary, ScenarioError> {
    run_replay(scenario, requests, request_rate, false).map(|(summary, _)| summary)
}

/// Like [`replay`], and also returns every request's life (in completion order; `arrival` is when the client sent
/// it).
pub fn replay_traced(
    scenario: &Scenario,
    requests: &[TraceRequest],
    request_rate: Option<f64>,
) -> Result<(BenchSummary, Vec<RequestTrace>), ScenarioError> {
    run_replay(scenario, requests.to_vec(), request_rate, true)
}

fn run_replay(
    scenario: &Scenario,
    requests: Vec<TraceRequest>,
    request_rate: Option<f64>,
    traced: bool,
) -> Result<(BenchSummary, Vec<RequestTrace>), ScenarioError> {
    check_requests(scenario, &requests)?;
    check_work(scenario, &requests, request_rate)?;
    let n = requests.len() as u64;
    let mut s = scenario.clone();
    s.customers = n;
    s.warm_up = 0;
    // Only sizes the occupancy series: the trace's own rate, as an offered load within the accepted range.
    let span = requests[requests.len() - 1].arrival_s;
    let rate = if span > 0.0 { n as f64 / span } else { 1.0 };
    let cv = match s.arrivals {
        Arrivals::Open { cv, .. } => cv,
        Arrivals::Closed { .. } => crate::scenario::POISSON_CV,
    };
    let sat = s.saturation_throughput();
    s.arrivals = Arrivals::Open {
        offered_load: (rate / sat).clamp(1e-6, crate::scenario::MAX_OFFERED_LOAD),
        cv,
    };
    let mut sim = LlmSim::replaying(&s, requests, traced);
    sim.advance_to(n);
    let traces = std::mem::take(&mut sim.rec.traces);
    let mut state = sim
        .replay
        .take()
        .expect("a replaying simulation keeps its state");
    let summary = summarise(&s, &mut state, request_rate, &sim);
    Ok((summary, traces))
}

fn summarise(
    scenario: &Scenario,
    state: &mut ReplayState,
    request_rate: Option<f64>,
    sim: &LlmSim,
) -> BenchSummary {
    let n = state.ttft.len() as u64;
    let failed = sim.rec.rejected_total();
    let sent = n + failed;
    let start = state.requests.first().map_or(0.0, |r| r.arrival_s);
    let end = state.end.max(start);
    let duration = end - start;
    let per_second = |x: f64| if duration > 0.0 { x / duration } else { 0.0 };
    BenchSummary {
        requests: sent,
        failed,
        request_rate,
        saturation_throughput: scenario.saturation_throughput(),
        duration,
        throughput: per_second(n as f64),
        output_throughput: per_second(state.output as f64),
        total_input_tokens: state.input,
        total_output_tokens: state.output,
        goodput: per_second(state.good as f64),
        slo_attainment: if sent > 0 {
            100.0 * state.good as f64 / sent as f64
        } else {
            0.0
        },
        slo: scenario.slo.clone(),
        ttft: stats(&mut state.ttft),
        tpot: stats(&mut state.tpot),
        itl: state.itl.stats(),
        e2e: stats(&mut state.e2e),
        peak_running: state.peak_running,
        peak_waiting: state.peak_waiting,
        preemptions: sim.rec.occupancy.preemptions(),
        recomputed_tokens: sim.prefill_computed.saturating_sub(state.input),
    }
}

/// Requests a capacity measurement sends per slot of the fleet (at least [`MIN_CAPACITY_REQUESTS`] in all).
const CAPACITY_REQUESTS_PER_SLOT: u64 = 50;
/// Fewest requests a capacity measurement sends.
const MIN_CAPACITY_REQUESTS: u64 = 4000;

/// The requests [`measured_saturation_throughput`] sends to `fleet`: enough to fill every slot several times.
pub fn capacity_requests(fleet: &crate::scenario::LlmFleet) -> u64 {
    let slots = u64::from(fleet.max_num_seqs) * u64::from(fleet.replicas);
    (slots * CAPACITY_REQUESTS_PER_SLOT).clamp(MIN_CAPACITY_REQUESTS, MAX_BENCH_REQUESTS)
}

/// The fleet's saturation throughput as the simulation measures it, requests per second: a burst of requests (the
/// scenario's lengths, from `seed`) all sent at once, and the completion rate between the 20th and the 80th
/// percentile of completions, while the fleet is full and the queue still long. Unlike
/// [`Scenario::saturation_throughput`], which takes a full batch of mean-sized requests, it includes what the KV
/// cache really allows — admission waiting for a prompt's blocks, preemptions and their recompute — and the compute
/// term of the step time, so an offered rate below it is one the fleet can keep up with.
pub fn measured_saturation_throughput(
    scenario: &Scenario,
    seed: u64,
) -> Result<f64, ScenarioError> {
    let ServiceKind::Llm(fleet) = &scenario.service else {
        return Ok(scenario.saturation_throughput());
    };
    // What the fleet can serve does not depend on what a queue cap turns away: the burst is measured uncapped.
    let mut uncapped = scenario.clone();
    if let ServiceKind::Llm(fleet) = &mut uncapped.service {
        fleet.max_num_queued_reqs = None;
        fleet.max_num_queued_tokens = None;
    }
    let scenario = &uncapped;
    let n = capacity_requests(fleet);
    // The burst must fill every slot of every replica several times over: the fleet's size sets the work.
    let steps = n as f64 * budget::mean_request_steps(fleet);
    let work = budget::work(scenario, n as f64, steps, budget::Sending::Burst);
    if work > budget::MAX_WORK {
        let cause = format!(
            "{} replicas × {} sequences each: measuring that fleet's capacity with {}",
            fleet.replicas,
            fleet.max_num_seqs,
            budget::requests_of(n as f64, scenario)
        );
        return Err(budget::too_much("replicas", &cause, work));
    }
    // A burst: every arrival at 0 (a rate so high the gaps vanish).
    let mut requests = bench_requests(scenario, 1.0, n, seed)?;
    for r in &mut requests {
        r.arrival_s = 0.0;
    }
    let (_, traces) = replay_traced(scenario, &requests, None)?;
    let mut finishes: Vec<f64> = traces.iter().map(|t| t.finish).collect();
    finishes.sort_unstable_by(f64::total_cmp);
    let (a, b) = ((n / 5) as usize, (4 * n / 5) as usize);
    Ok((b - a) as f64 / (finishes[b] - finishes[a]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_as_numpy_and_weights_expand() {
        let mut v = vec![4.0, 1.0, 3.0, 2.0];
        let s = stats(&mut v);
        assert_eq!(s.p50, 2.5);
        assert!((s.p90 - 3.7).abs() < 1e-12);
        assert_eq!(s.mean, 2.5);
        let mut w = Itl::default();
        for (v, c) in [(3.0, 1), (1.0, 2), (2.0, 0), (4.0, 1)] {
            w.record(v, c);
        }
        let mut expanded = vec![1.0, 1.0, 3.0, 4.0];
        assert_eq!(w.stats(), stats(&mut expanded));
    }
}
