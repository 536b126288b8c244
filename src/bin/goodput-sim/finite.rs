//! Finite experiments, as `vllm bench serve` runs them: `run --rate R --requests N` sends N requests at R per second
//! (the scenario's arrival process) to an empty fleet and waits for the last; `run --trace FILE` replays a trace.
//! `--seeds K` repeats a rate run over K seeds and reports the spread.

use super::output::OutputArgs;
use super::scenario_args::{whole, ScenarioArgs};
use super::trace::read_trace;
use clap::Args;
use goodput::model::{bench_requests, replay_owned, BenchStats, BenchSummary, Scenario};
use serde_json::json;

/// The flags of a finite run.
#[derive(Args)]
pub struct FiniteArgs {
    /// Finite run, like `vllm bench serve --request-rate`: send --requests N requests at this many per second
    /// (Poisson, or gamma gaps with --arrival-cv / --burstiness) to an empty fleet and run until the last finishes,
    /// at any rate, above capacity too. Reports vLLM bench's figures: ttft, tpot ((e2e − ttft) / (output − 1) per
    /// request), itl and e2e as mean/p50/p90/p99 in seconds, duration (first arrival to last completion),
    /// throughput (requests ÷ duration), goodput (requests meeting every SLO ÷ duration), peak_running and
    /// peak_waiting. With --rate, --requests is the number of requests sent, all measured (no warm-up), at most
    /// 10 000 000: the largest run needs about 1.3 GB of memory (measured: 0.4 GB at 3 req/s on distserve, 1.25 GB
    /// with all ten million waiting at once), and a rate so low that the run would outlast the clock's resolution
    /// is refused.
    #[arg(long, value_name = "REQ_PER_S", allow_negative_numbers = true, conflicts_with_all = ["load", "warm_up", "closed", "users", "think", "trace"])]
    pub rate: Option<f64>,
    /// Finite run of a trace: one request per line, as JSON lines or CSV with a header, fields arrival_s (seconds;
    /// absolute timestamps are shifted so the first is 0), prompt_tokens and output_tokens (- reads standard input).
    /// The trace sets the arrivals and lengths; the scenario sets the fleet and the SLO. Reports as --rate does.
    #[arg(long, value_name = "TRACE", conflicts_with_all = ["load", "warm_up", "closed", "users", "think", "requests"])]
    pub trace: Option<String>,
    /// With --rate: repeat the run over this many seeds (--seed, --seed + 1, …) and report each run and the spread
    /// (min, mean, max, standard deviation of every figure), so a short run's noise is visible.
    #[arg(long, value_name = "K", default_value_t = 1, requires = "rate", allow_negative_numbers = true, value_parser = whole::<u64>)]
    pub seeds: u64,
}

/// Largest --seeds.
const MAX_SEEDS: u64 = 10_000;

impl FiniteArgs {
    /// Whether these flags ask for a finite run.
    pub fn wanted(&self) -> bool {
        self.rate.is_some() || self.trace.is_some()
    }
}

/// Runs the finite experiment(s) and prints them.
pub fn run(
    args: &FiniteArgs,
    scenario_args: &ScenarioArgs,
    seed: u64,
    output: &OutputArgs,
) -> Result<(), String> {
    let scenario = scenario_args.scenario()?;
    let runs: Vec<(Option<u64>, BenchSummary)> = if let Some(trace) = &args.trace {
        let requests = read_trace(trace, &scenario)?;
        let summary =
            replay_owned(&scenario, requests, None).map_err(|e| match e.field.as_str() {
                // The trace's requests, not a --requests nobody typed.
                "requests" => format!("{}: {}", super::input::display_name(trace), e.problem),
                _ => explain(&e),
            })?;
        vec![(None, summary)]
    } else {
        let rate = args.rate.expect("a finite run has --rate or --trace");
        if !(rate.is_finite() && rate > 0.0) {
            return Err("--rate must be a number of requests per second above 0".to_owned());
        }
        let Some(n) = scenario_args.requests() else {
            return Err("--rate needs --requests N, the number of requests to send".to_owned());
        };
        if !(1..=MAX_SEEDS).contains(&args.seeds) {
            return Err(format!("--seeds must be between 1 and {MAX_SEEDS}"));
        }
        (0..args.seeds)
            .map(|k| {
                let seed = seed.wrapping_add(k);
                let requests = bench_requests(&scenario, rate, n, seed).map_err(|e| explain(&e))?;
                let summary =
                    replay_owned(&scenario, requests, Some(rate)).map_err(|e| explain(&e))?;
                Ok((Some(seed), summary))
            })
            .collect::<Result<_, String>>()?
    };
    print(&scenario, &runs, output);
    Ok(())
}

fn explain(e: &goodput::model::ScenarioError) -> String {
    match e.field.as_str() {
        "rate" => format!("--rate {}", e.problem),
        "requests" => format!("--requests {}", e.problem),
        "service" => format!(
            "a finite run {}",
            e.problem.trim_start_matches("a finite run ")
        ),
        _ => e.to_string(),
    }
}

/// The figures of one run, by name, for the table and CSV (and the spread).
fn figures(s: &BenchSummary) -> Vec<(String, f64)> {
    let mut c = vec![
        ("requests".to_owned(), s.requests as f64),
        ("failed".to_owned(), s.failed as f64),
        ("duration".to_owned(), s.duration),
        ("throughput".to_owned(), s.throughput),
        ("output_throughput".to_owned(), s.output_throughput),
        ("goodput".to_owned(), s.goodput),
        ("slo_attainment_percent".to_owned(), s.slo_attainment),
    ];
    let stats: [(&str, &BenchStats); 4] = [
        ("ttft", &s.ttft),
        ("tpot", &s.tpot),
        ("itl", &s.itl),
        ("e2e", &s.e2e),
    ];
    for (name, st) in stats {
        for (q, v) in [
            ("mean", st.mean),
            ("p50", st.p50),
            ("p90", st.p90),
            ("p99", st.p99),
        ] {
            c.push((format!("{name}_{q}"), v));
        }
    }
    c.push(("peak_running".to_owned(), f64::from(s.peak_running)));
    c.push(("peak_waiting".to_owned(), f64::from(s.peak_waiting)));
    c.push(("preemptions".to_owned(), s.preemptions as f64));
    c.push(("recomputed_tokens".to_owned(), s.recomputed_tokens as f64));
    c
}

fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.6}")
    }
}

/// min, mean, max and standard deviation (n − 1) of each figure over the runs.
fn spread(runs: &[(Option<u64>, BenchSummary)]) -> Vec<(String, [f64; 4])> {
    let all: Vec<Vec<(String, f64)>> = runs.iter().map(|(_, s)| figures(s)).collect();
    let n = all.len() as f64;
    all[0]
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            let values: Vec<f64> = all.iter().map(|f| f[i].1).collect();
            let mean = values.iter().sum::<f64>() / n;
            let var = if all.len() > 1 {
                values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
            } else {
                0.0
            };
            let min = values.iter().copied().fold(f64::INFINITY, f64::min);
            let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (name.clone(), [min, mean, max, var.sqrt()])
        })
        .collect()
}

fn print(scenario: &Scenario, runs: &[(Option<u64>, BenchSummary)], output: &OutputArgs) {
    let offered = |s: &BenchSummary| s.request_rate.map(|r| r / s.saturation_throughput);
    if output.json {
        let one = |seed: Option<u64>, s: &BenchSummary| {
            let mut v = serde_json::to_value(s).expect("summaries serialise");
            let map = v.as_object_mut().expect("an object");
            map.insert(
                "mode".into(),
                json!(if s.request_rate.is_some() {
                    "rate"
                } else {
                    "trace"
                }),
            );
            map.insert("seed".into(), json!(seed));
            map.insert("offered_load".into(), json!(offered(s)));
            v
        };
        let value = match runs {
            [(seed, s)] => one(*seed, s),
            _ => {
                let spread: serde_json::Map<String, serde_json::Value> = spread(runs)
                    .into_iter()
                    .map(|(name, [min, mean, max, std])| {
                        (
                            name,
                            json!({"min": min, "mean": mean, "max": max, "std": std}),
                        )
                    })
                    .collect();
                json!({
                    "runs": runs.iter().map(|(seed, s)| one(*seed, s)).collect::<Vec<_>>(),
                    "spread": spread,
                })
            }
        };
        println!("{value}");
        return;
    }
    if output.csv {
        let mut header = vec!["seed".to_owned()];
        header.extend(figures(&runs[0].1).into_iter().map(|(n, _)| n));
        println!("{}", header.join(","));
        for (seed, s) in runs {
            let mut row = vec![seed.map_or(String::new(), |s| s.to_string())];
            row.extend(figures(s).into_iter().map(|(_, v)| number(v)));
            println!("{}", row.join(","));
        }
        return;
    }
    let s = &runs[0].1;
    let what = match (s.request_rate, offered(s)) {
        (Some(rate), Some(rho)) => format!(
            "{} requests at {rate} req/s ({:.0}% of the analytic capacity, {:.3} req/s)",
            s.requests,
            100.0 * rho,
            s.saturation_throughput
        ),
        _ => format!("{} requests from the trace", s.requests),
    };
    let seeds = if runs.len() > 1 {
        format!(", {} seeds", runs.len())
    } else {
        String::new()
    };
    println!(
        "finite run: {what}{seeds}; SLO ttft {} s, tpot {} s; times in seconds",
        scenario.slo.ttft, scenario.slo.tpot
    );
    if runs.len() == 1 {
        for (k, v) in figures(s) {
            println!("{k:>26}  {}", number(v));
        }
    } else {
        println!(
            "{:>26}  {:>12}  {:>12}  {:>12}  {:>12}",
            "", "mean", "min", "max", "std"
        );
        for (k, [min, mean, max, std]) in spread(runs) {
            println!(
                "{k:>26}  {:>12}  {:>12}  {:>12}  {:>12}",
                number(mean),
                number(min),
                number(max),
                number(std)
            );
        }
    }
}
