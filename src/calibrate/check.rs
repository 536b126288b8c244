//! The calibrated model run against each input's own experiment: a result file's rate and request count (or
//! everything at once for `"inf"`), a trace's arrivals and lengths, and the figures `vllm bench serve` reports
//! compared with the measured ones. A closed-loop run is run again as the model's closed loop.

use super::inputs::{BenchResult, Life, Parsed};
use crate::model::scenario::MAX_USERS;
pub use crate::model::BenchFigures;
use crate::model::{bench_requests, replay, run, Arrivals, BenchSummary, Scenario, TraceRequest};

/// Largest run simulated for a check: a result of more requests is checked on its first this many draws.
pub const MAX_CHECK_REQUESTS: u64 = 2_000;

/// The model's [`BenchFigures`] as a measurement gives them: the model's crate defines the figures, the readers here
/// fill them.
pub trait Measured: Sized {
    /// A result file's figures.
    fn of_result(bench: &BenchResult) -> Self;
    /// A timed trace's figures (percentiles as numpy's); `None` without token times.
    fn of_trace(lives: &[Life]) -> Option<Self>;
}

impl Measured for BenchFigures {
    /// A result file's figures.
    fn of_result(bench: &BenchResult) -> BenchFigures {
        BenchFigures {
            ttft_p50: bench.ttft_median,
            ttft_p99: bench.ttft_p99,
            tpot_p50: bench.tpot_median,
            throughput: bench.request_throughput,
        }
    }

    /// A timed trace's figures (percentiles as numpy's); `None` without token times.
    fn of_trace(lives: &[Life]) -> Option<BenchFigures> {
        let mut ttft: Vec<f64> = lives.iter().filter_map(|l| l.ttft).collect();
        let mut tpot: Vec<f64> = lives
            .iter()
            .filter(|l| l.output > 1)
            .filter_map(|l| Some((l.e2e? - l.ttft?) / f64::from(l.output - 1)))
            .collect();
        if ttft.len() < lives.len() || tpot.is_empty() {
            return None;
        }
        let end = lives
            .iter()
            .filter_map(|l| Some(l.arrival? + l.e2e?))
            .fold(0.0, f64::max);
        ttft.sort_by(f64::total_cmp);
        tpot.sort_by(f64::total_cmp);
        Some(BenchFigures {
            ttft_p50: percentile(&ttft, 0.5),
            ttft_p99: Some(percentile(&ttft, 0.99)),
            tpot_p50: percentile(&tpot, 0.5),
            throughput: lives.len() as f64 / end,
        })
    }
}

/// numpy's linear interpolation between order statistics of a sorted, non-empty list.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// One input run again in the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// What the input measured.
    pub measured: BenchFigures,
    /// What the model gives for the same experiment.
    pub model: BenchFigures,
    /// Whether the model ran the input's own arrivals (a trace, a result with send times), so that its throughput
    /// is comparable; a result of a few hundred requests sent at random times gives a throughput that another
    /// draw of the same rate misses by several per cent.
    pub same_arrivals: bool,
}

/// How far the model's repeat of an input may miss each figure before the fit is said not to reproduce it (the
/// accuracy targets of issue 40): TTFT p50 30%, TTFT p99 50%, TPOT 20%, throughput 10%.
pub const TOLERANCES: [(&str, f64); 4] = [
    ("TTFT p50", 0.3),
    ("TTFT p99", 0.5),
    ("TPOT p50", 0.2),
    ("throughput", 0.1),
];

/// The most the ranges are widened by when the fit misses its own inputs: ten times the fitted spread.
pub const MAX_WIDENING: f64 = 10.0;

impl Check {
    /// Each figure's relative miss beside its tolerance (throughput only when the arrivals were the input's own).
    fn misses(&self) -> Vec<(&'static str, f64, f64)> {
        let (m, p) = (&self.measured, &self.model);
        let pairs = [
            Some((m.ttft_p50, p.ttft_p50)),
            m.ttft_p99.zip(p.ttft_p99),
            Some((m.tpot_p50, p.tpot_p50)),
            self.same_arrivals.then_some((m.throughput, p.throughput)),
        ];
        TOLERANCES
            .iter()
            .zip(pairs)
            .filter_map(|(&(name, tolerance), pair)| {
                let (measured, model) = pair?;
                let error = (model - measured) / measured;
                error.is_finite().then_some((name, error, tolerance))
            })
            .collect()
    }
}

/// The figures of an input its repeat in the model misses by more than [`TOLERANCES`], in words.
pub fn misses(summary: &super::InputSummary) -> Vec<String> {
    let Some(check) = &summary.check else {
        return Vec::new();
    };
    check
        .misses()
        .into_iter()
        .filter(|(_, error, tolerance)| error.abs() > *tolerance)
        .map(|(name, error, tolerance)| {
            format!(
                "{}: {name} {:+.0}% (tolerance ±{:.0}%)",
                summary.name,
                error * 100.0,
                tolerance * 100.0
            )
        })
        .collect()
}

/// The input's worst miss as a multiple of its tolerance (1 when every figure is within it, or it has no check).
pub fn worst_miss(summary: &super::InputSummary) -> f64 {
    summary.check.as_ref().map_or(1.0, |check| {
        check
            .misses()
            .into_iter()
            .map(|(_, error, tolerance)| error.abs() / tolerance)
            .fold(1.0, f64::max)
    })
}

/// The model's run of a benchmark at `rate` (`None`: all sent at once) of `n` requests, from `seed`.
pub fn simulate_bench(
    scenario: &Scenario,
    rate: Option<f64>,
    n: u64,
    seed: u64,
) -> Result<BenchSummary, String> {
    let n = n.clamp(1, MAX_CHECK_REQUESTS);
    // All at once is the limit of a very high rate: draw lengths as a rate run does, then send them together.
    let mut requests =
        bench_requests(scenario, rate.unwrap_or(1.0), n, seed).map_err(|e| e.to_string())?;
    if rate.is_none() {
        for r in &mut requests {
            r.arrival_s = 0.0;
        }
    }
    replay(scenario, &requests, rate).map_err(|e| e.to_string())
}

/// A trace's requests as the model replays them (a life without a send time is sent at 0).
pub fn requests_of(lives: &[Life]) -> Vec<TraceRequest> {
    lives
        .iter()
        .map(|l| TraceRequest {
            arrival_s: l.arrival.unwrap_or(0.0),
            prompt_tokens: l.prompt,
            output_tokens: l.output,
        })
        .collect()
}

/// Checks one input against the scenario; `None` for an input with no experiment to repeat (scrapes, an untimed
/// trace).
pub fn check(scenario: &Scenario, input: &Parsed) -> Option<Check> {
    match input {
        Parsed::Bench(bench) => {
            if let Some(users) = bench.closed_loop_users() {
                return Some(Check {
                    measured: BenchFigures::of_result(bench),
                    model: closed_loop_figures(scenario, users, bench.completed, 1)?,
                    same_arrivals: false,
                });
            }
            let summary = simulate_bench(scenario, bench.request_rate, bench.completed, 1).ok()?;
            Some(Check {
                measured: BenchFigures::of_result(bench),
                model: BenchFigures::of(&summary),
                same_arrivals: false,
            })
        }
        Parsed::Trace(lives) => {
            let measured = BenchFigures::of_trace(lives)?;
            let summary = replay(scenario, &requests_of(lives), None).ok()?;
            Some(Check {
                measured,
                model: BenchFigures::of(&summary),
                same_arrivals: true,
            })
        }
        Parsed::Metrics(_) => None,
    }
}

/// The model's figures for `users` clients sending `n` requests back to back, from `seed`; `None` when the model
/// cannot run it. A closed-loop benchmark (`vllm bench serve --max-concurrency C` with no rate, or GuideLLM's
/// synchronous, concurrent and throughput benchmarks) keeps C requests in flight, each client sending its next the
/// moment the last one ends: replayed as an open-loop burst it would queue every request at once, so it is run as
/// the model's closed loop of C users with no think time, the same experiment.
fn closed_loop_figures(scenario: &Scenario, users: u32, n: u64, seed: u64) -> Option<BenchFigures> {
    let mut s = scenario.clone();
    s.customers = n.clamp(1, MAX_CHECK_REQUESTS);
    s.warm_up = 0;
    s.arrivals = Arrivals::Closed {
        users: users.clamp(1, MAX_USERS).min(s.customers as u32),
        think_time: 0.0,
    };
    let steady = run(&s, seed).ok()?.steady?;
    let (ttft, tpot) = (steady.ttft?, steady.tpot?);
    Some(BenchFigures {
        ttft_p50: ttft.p50,
        ttft_p99: Some(ttft.p99),
        tpot_p50: tpot.p50,
        throughput: steady.throughput,
    })
}
