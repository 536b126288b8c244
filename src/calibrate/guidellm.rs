//! GuideLLM's `benchmarks.json` (schema 1 of 0.5–0.6, `args` at the top; schema 2 of 0.7+, `config`): one result
//! per benchmark of the run. A request's `inter_token_latency_ms` is vLLM's TPOT ((last − first token) ÷ (tokens −
//! 1)); GuideLLM's own `time_per_output_token_ms` counts the first token in, so it is not used. The requests it kept
//! become per-request lives, with send times when it kept every successful one; the TPOT mean and median are then
//! taken per request, as vLLM takes them (GuideLLM's summary weighs each request by its tokens).

use super::bench_result::{BenchResult, Life};
use super::vllm_result::PerRequest;
use serde_json::{Map, Value};

/// Whether `object` looks like a GuideLLM report.
pub fn is_report(object: &Map<String, Value>) -> bool {
    object.get("benchmarks").is_some_and(Value::is_array)
        && (object.contains_key("metadata")
            || object.contains_key("args")
            || object.contains_key("config"))
}

/// Each benchmark of the report, named `name (benchmark k: what it ran)`.
pub fn read(name: &str, object: &Map<String, Value>) -> Result<Vec<(String, BenchResult)>, String> {
    let benchmarks = object
        .get("benchmarks")
        .and_then(Value::as_array)
        .filter(|b| !b.is_empty())
        .ok_or_else(|| format!("{name}: a GuideLLM report with no benchmarks"))?;
    if benchmarks.len() > super::MAX_RUNS {
        return Err(format!(
            "{name}: a GuideLLM report of {} benchmarks, more than the {} runs one calibration takes",
            benchmarks.len(),
            super::MAX_RUNS
        ));
    }
    let mut results = Vec::with_capacity(benchmarks.len());
    for (i, benchmark) in benchmarks.iter().enumerate() {
        let strategy = Strategy::of(benchmark);
        let label = format!("{name} (benchmark {}: {})", i + 1, strategy.describe());
        let result = read_benchmark(&label, benchmark, &strategy)?;
        results.push((label, result));
    }
    Ok(results)
}

/// How a benchmark sent its requests (`config.strategy`).
struct Strategy {
    kind: String,
    rate: Option<f64>,
    concurrency: Option<u32>,
}

impl Strategy {
    fn of(benchmark: &Value) -> Strategy {
        let s = benchmark
            .pointer("/config/strategy")
            .or_else(|| benchmark.pointer("/args/strategy"));
        let field = |key: &str| s.and_then(|s| s.get(key));
        let kind = field("type_")
            .or_else(|| field("type"))
            .and_then(Value::as_str)
            // Named in messages and the report on one line: escaped and cut short.
            .map_or_else(
                || "unknown".to_owned(),
                |k| crate::printable::excerpt(k, 40),
            );
        let count = |key: &str| {
            field(key)
                .and_then(Value::as_u64)
                .map(|c| c.clamp(1, u64::from(u32::MAX)) as u32)
        };
        let concurrency = match kind.as_str() {
            "synchronous" => Some(1),
            "concurrent" => count("streams"),
            _ => count("max_concurrency"),
        };
        let rate = match kind.as_str() {
            "constant" | "poisson" => field("rate")
                .and_then(Value::as_f64)
                .filter(|r| r.is_finite() && *r > 0.0),
            _ => None,
        };
        Strategy {
            kind,
            rate,
            concurrency,
        }
    }

    fn describe(&self) -> String {
        match (self.rate, self.concurrency) {
            (Some(rate), _) => format!("{} at {rate:.3}/s", self.kind),
            (None, Some(c)) => format!("{}, {c} at a time", self.kind),
            (None, None) => self.kind.clone(),
        }
    }

    /// `--burstiness` as vLLM writes it: evenly spaced sends are its infinity, Poisson its 1.
    fn burstiness(&self) -> Option<f64> {
        match self.kind.as_str() {
            "constant" => Some(f64::INFINITY),
            "poisson" => Some(1.0),
            _ => None,
        }
    }
}

/// One of a benchmark's distributions over its successful requests (`metrics.KEY.successful`).
fn successful<'a>(benchmark: &'a Value, key: &str) -> Option<&'a Value> {
    benchmark.pointer(&format!("/metrics/{key}/successful"))
}

fn stat(name: &str, benchmark: &Value, key: &str, what: &str, scale: f64) -> Result<f64, String> {
    let value = successful(benchmark, key)
        .and_then(|d| d.get(what))
        .ok_or_else(|| format!("{name}: a GuideLLM benchmark needs metrics.{key}.successful.{what}, which it lacks"))?;
    value
        .as_f64()
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(|v| v * scale)
        .ok_or_else(|| {
            format!("{name}: metrics.{key}.successful.{what} is {value}, not a number above 0")
        })
}

fn read_benchmark(
    name: &str,
    benchmark: &Value,
    strategy: &Strategy,
) -> Result<BenchResult, String> {
    let completed = benchmark
        .pointer("/metrics/request_totals/successful")
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("{name}: a GuideLLM benchmark needs metrics.request_totals.successful, which it lacks"))?;
    if completed == 0 {
        return Err(format!(
            "{name}: no request succeeded, so it shows no latencies"
        ));
    }
    let duration = duration(benchmark).ok_or_else(|| {
        format!("{name}: a GuideLLM benchmark needs its duration (or start_time and end_time)")
    })?;
    let ms = 1e-3;
    let ttft_p99 = successful(benchmark, "time_to_first_token_ms")
        .and_then(|d| d.pointer("/percentiles/p99"))
        .and_then(Value::as_f64)
        .filter(|v| v.is_finite() && *v >= 0.0)
        .map(|v| v * ms);
    let lives = lives(name, benchmark, completed)?;
    let complete = lives.len() as u64 == completed;
    let per_request = PerRequest::of(if complete { &lives } else { &[] });
    let tpot = |what: &str| stat(name, benchmark, "inter_token_latency_ms", what, ms);
    let tpot_mean = per_request.tpot_mean.map_or_else(|| tpot("mean"), Ok)?;
    let tpot_median = per_request.tpot_median.map_or_else(|| tpot("median"), Ok)?;
    Ok(BenchResult {
        kind: "GuideLLM benchmark".to_owned(),
        request_rate: strategy.rate,
        max_concurrency: strategy.concurrency,
        completed,
        duration,
        request_throughput: completed as f64 / duration,
        mean_prompt: stat(name, benchmark, "prompt_token_count", "mean", 1.0)?,
        mean_output: stat(name, benchmark, "output_token_count", "mean", 1.0)?,
        ttft_mean: stat(name, benchmark, "time_to_first_token_ms", "mean", ms)?,
        ttft_median: stat(name, benchmark, "time_to_first_token_ms", "median", ms)?,
        ttft_p99,
        tpot_mean,
        tpot_median,
        e2el_mean: stat(name, benchmark, "request_latency", "mean", 1.0)?,
        derived: Vec::new(),
        goodput: None,
        lives: Some(lives).filter(|l| !l.is_empty()),
        burstiness: strategy.burstiness(),
    })
}

/// The benchmark's length, seconds: its `duration`, else its end less its start.
fn duration(benchmark: &Value) -> Option<f64> {
    let field = |key: &str| benchmark.get(key).and_then(Value::as_f64);
    field("duration")
        .or_else(|| Some(field("end_time")? - field("start_time")?))
        .filter(|d| d.is_finite() && *d > 0.0)
}

/// The successful requests GuideLLM kept; with send times (from the first) when it kept all of them.
fn lives(name: &str, benchmark: &Value, completed: u64) -> Result<Vec<Life>, String> {
    let Some(requests) = benchmark
        .pointer("/requests/successful")
        .and_then(Value::as_array)
    else {
        return Ok(Vec::new());
    };
    let mut kept = Vec::with_capacity(requests.len());
    for (i, request) in requests.iter().enumerate() {
        let number = |key: &str| {
            request
                .get(key)
                .and_then(Value::as_f64)
                .filter(|v| v.is_finite())
        };
        let tokens = |key: &str| {
            request
                .get(key)
                .and_then(Value::as_u64)
                .filter(|t| (1..=u64::from(crate::model::scenario::MAX_TOKENS)).contains(t))
                .map(|t| t as u32)
        };
        let (Some(start), Some(ttft), Some(latency), Some(prompt), Some(output)) = (
            number("request_start_time"),
            number("time_to_first_token_ms"),
            number("request_latency"),
            tokens("prompt_tokens"),
            tokens("output_tokens"),
        ) else {
            continue;
        };
        let ttft = ttft / 1000.0;
        if !(ttft > 0.0 && latency >= ttft) {
            return Err(format!(
                "{name}: requests.successful[{i}] has a first token at {ttft} s and an end at {latency} s"
            ));
        }
        kept.push((start, prompt, output, ttft, latency));
    }
    let every_one = kept.len() as u64 == completed;
    kept.sort_by(|a, b| a.0.total_cmp(&b.0));
    let first = kept.first().map_or(0.0, |k| k.0);
    Ok(kept
        .into_iter()
        .map(|(start, prompt, output, ttft, latency)| Life {
            arrival: every_one.then_some(start - first),
            prompt,
            output,
            ttft: Some(ttft),
            e2e: Some(latency),
        })
        .collect())
}
