//! The files `calibrate` reads, recognised by their content: a `vllm bench serve --save-result` JSON (summary only,
//! or with `--save-detailed`'s per-request lists), a per-request trace (JSON lines or CSV, as `run --trace` reads it,
//! optionally with `first_token_s` and `last_token_s`), or a vLLM `/metrics` page. Every error is one line naming
//! the file and what is missing.

use crate::cluster::metrics::{self, Exposition};
use serde::Deserialize;
use serde_json::{Map, Value};

/// One file as handed over: its name (for messages) and its text.
#[derive(Clone, Debug)]
pub struct InputFile {
    /// How messages name the file (its path, or what the page calls it).
    pub name: String,
    /// Its content.
    pub text: String,
}

/// One request's life as a file shows it, in seconds on the file's own clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Life {
    /// When it was sent (`None` in a result file, which keeps no send times).
    pub arrival: Option<f64>,
    /// Prompt tokens.
    pub prompt: u32,
    /// Output tokens.
    pub output: u32,
    /// Time to first token, when known.
    pub ttft: Option<f64>,
    /// Time from sending to the last token, when known.
    pub e2e: Option<f64>,
}

/// One `vllm bench serve` run, as its result file reports it (times in seconds).
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// The rate asked for, requests per second; `None` for `"inf"` (everything sent at once).
    pub request_rate: Option<f64>,
    /// Requests that completed.
    pub completed: u64,
    /// Seconds from the first request to the last completion.
    pub duration: f64,
    /// Completed requests ÷ duration.
    pub request_throughput: f64,
    /// Mean prompt and output tokens per completed request.
    pub mean_prompt: f64,
    /// Mean output tokens per completed request.
    pub mean_output: f64,
    /// TTFT mean, median and p99 (p99 only when the run saved it).
    pub ttft_mean: f64,
    /// Median TTFT.
    pub ttft_median: f64,
    /// 99th-percentile TTFT, when saved.
    pub ttft_p99: Option<f64>,
    /// TPOT mean and median.
    pub tpot_mean: f64,
    /// Median TPOT.
    pub tpot_median: f64,
    /// Mean end-to-end latency.
    pub e2el_mean: f64,
    /// Per-request lengths and latencies, with `--save-detailed`.
    pub lives: Option<Vec<Life>>,
    /// `--burstiness` B, the gamma shape of the gaps (1: Poisson), when saved.
    pub burstiness: Option<f64>,
}

/// What a file turned out to be.
#[derive(Clone, Debug)]
pub enum Parsed {
    /// A benchmark result.
    Bench(BenchResult),
    /// A per-request trace, in arrival order, arrivals from 0.
    Trace(Vec<Life>),
    /// A `/metrics` page.
    Metrics(Exposition),
}

/// Largest file accepted: 64 MB (a detailed result of 10 000 requests is a few MB).
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// Recognises and parses one file; the error is one line naming it.
pub fn parse(file: &InputFile) -> Result<Parsed, String> {
    let name = &file.name;
    if file.text.len() > MAX_INPUT_BYTES {
        return Err(format!("{name}: larger than {} MB", MAX_INPUT_BYTES >> 20));
    }
    let text = file.text.trim_start_matches('\u{feff}');
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.is_empty() {
        return Err(format!("{name}: the file is empty"));
    }
    let trimmed = first.trim_start();
    if trimmed.starts_with('#') || trimmed.starts_with("vllm:") {
        return metrics::parse(text)
            .map(Parsed::Metrics)
            .map_err(|e| format!("{name}: not a readable /metrics page: {e}"));
    }
    if trimmed.starts_with('{') {
        // One JSON object over the whole file is a result; one object a line is a trace.
        if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(text) {
            if object.contains_key("arrival_s") {
                return trace_json_lines(name, text).map(Parsed::Trace);
            }
            return bench_result(name, &object).map(Parsed::Bench);
        }
        return trace_json_lines(name, text).map(Parsed::Trace);
    }
    if trimmed.contains("arrival_s") {
        return trace_csv(name, text).map(Parsed::Trace);
    }
    Err(format!(
        "{name}: not a vllm bench serve result (JSON), a request trace (JSON lines or CSV with arrival_s) or a \
         /metrics page"
    ))
}

fn number(object: &Map<String, Value>, key: &str) -> Option<f64> {
    match object.get(key)? {
        Value::Number(n) => n.as_f64(),
        // vLLM writes an unlimited rate as the string "inf".
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn required(name: &str, object: &Map<String, Value>, key: &str) -> Result<f64, String> {
    let value = number(object, key).ok_or_else(|| {
        format!(
            "{name}: a vllm bench serve result needs \"{key}\", a number, which this file lacks"
        )
    })?;
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(format!(
            "{name}: \"{key}\" must be a finite number, 0 or more"
        ))
    }
}

fn ms(name: &str, object: &Map<String, Value>, key: &str) -> Result<f64, String> {
    required(name, object, key).map(|v| v / 1000.0)
}

fn bench_result(name: &str, object: &Map<String, Value>) -> Result<BenchResult, String> {
    if !object.contains_key("request_throughput") {
        return Err(format!(
            "{name}: a JSON object, but not a vllm bench serve result (no \"request_throughput\")"
        ));
    }
    let completed = required(name, object, "completed")?;
    if completed < 1.0 {
        return Err(format!(
            "{name}: no request completed, so it shows no latencies"
        ));
    }
    let request_rate = number(object, "request_rate").filter(|r| r.is_finite() && *r > 0.0);
    let total_input = required(name, object, "total_input_tokens")?;
    let total_output = required(name, object, "total_output_tokens")?;
    let lives = detailed(name, object)?;
    Ok(BenchResult {
        request_rate,
        completed: completed as u64,
        duration: required(name, object, "duration")?,
        request_throughput: required(name, object, "request_throughput")?,
        mean_prompt: total_input / completed,
        mean_output: total_output / completed,
        ttft_mean: ms(name, object, "mean_ttft_ms")?,
        ttft_median: ms(name, object, "median_ttft_ms")?,
        ttft_p99: number(object, "p99_ttft_ms").map(|v| v / 1000.0),
        tpot_mean: ms(name, object, "mean_tpot_ms")?,
        tpot_median: ms(name, object, "median_tpot_ms")?,
        e2el_mean: ms(name, object, "mean_e2el_ms")?,
        lives,
        burstiness: number(object, "burstiness").filter(|b| b.is_finite() && *b > 0.0),
    })
}

/// `--save-detailed`'s lists, paired up per request; requests that failed (TTFT 0, no output) are left out.
fn detailed(name: &str, object: &Map<String, Value>) -> Result<Option<Vec<Life>>, String> {
    let list = |key: &str| object.get(key).and_then(Value::as_array);
    let (Some(inputs), Some(outputs), Some(ttfts)) =
        (list("input_lens"), list("output_lens"), list("ttfts"))
    else {
        return Ok(None);
    };
    let itls = list("itls");
    if inputs.len() != outputs.len() || inputs.len() != ttfts.len() {
        return Err(format!(
            "{name}: input_lens, output_lens and ttfts must list the same requests ({}, {} and {} entries)",
            inputs.len(),
            outputs.len(),
            ttfts.len()
        ));
    }
    let mut lives = Vec::with_capacity(inputs.len());
    for i in 0..inputs.len() {
        let tokens = |v: &Value, what: &str| {
            v.as_u64()
                .filter(|&t| t <= u64::from(crate::model::scenario::MAX_TOKENS))
                .map(|t| t as u32)
                .ok_or_else(|| format!("{name}: {what}[{i}] is not a token count"))
        };
        let prompt = tokens(&inputs[i], "input_lens")?;
        let output = tokens(&outputs[i], "output_lens")?;
        let ttft = ttfts[i]
            .as_f64()
            .filter(|t| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| format!("{name}: ttfts[{i}] is not a time in seconds"))?;
        if prompt == 0 || output == 0 || ttft == 0.0 {
            continue;
        }
        let e2e = match itls.and_then(|l| l.get(i)).and_then(Value::as_array) {
            Some(gaps) => {
                let sum: Option<f64> = gaps.iter().map(Value::as_f64).sum();
                Some(ttft + sum.ok_or_else(|| format!("{name}: itls[{i}] holds a non-number"))?)
            }
            None => None,
        };
        lives.push(Life {
            arrival: None,
            prompt,
            output,
            ttft: Some(ttft),
            e2e,
        });
    }
    Ok(Some(lives))
}

/// One line of a trace; the times are on the trace's clock, like `arrival_s`.
#[derive(Deserialize)]
struct TraceLine {
    arrival_s: f64,
    prompt_tokens: u32,
    output_tokens: u32,
    #[serde(default)]
    first_token_s: Option<f64>,
    #[serde(default)]
    last_token_s: Option<f64>,
}

fn trace_json_lines(name: &str, text: &str) -> Result<Vec<Life>, String> {
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: TraceLine =
            serde_json::from_str(line).map_err(|e| format!("{name} line {}: {e}", i + 1))?;
        lines.push((i + 1, parsed));
    }
    lives_of(name, lines)
}

fn trace_csv(name: &str, text: &str) -> Result<Vec<Life>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| format!("{name} line 1: {e}"))?
        .clone();
    for column in ["arrival_s", "prompt_tokens", "output_tokens"] {
        if !headers.iter().any(|h| h == column) {
            return Err(format!(
                "{name} line 1: the CSV header has no {column} column"
            ));
        }
    }
    let mut lines = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = record
            .as_ref()
            .ok()
            .and_then(|r| r.position())
            .map_or(i + 2, |p| p.line() as usize);
        let record = record.map_err(|e| format!("{name} line {line}: {e}"))?;
        let parsed: TraceLine = record
            .deserialize(Some(&headers))
            .map_err(|e| format!("{name} line {line}: {e}"))?;
        lines.push((line, parsed));
    }
    lives_of(name, lines)
}

/// Checks the lines (finite, ordered, first token before the last) and shifts them so the first arrives at 0.
fn lives_of(name: &str, lines: Vec<(usize, TraceLine)>) -> Result<Vec<Life>, String> {
    let Some(start) = lines.first().map(|(_, l)| l.arrival_s) else {
        return Err(format!("{name}: no requests in the trace"));
    };
    let mut previous = f64::NEG_INFINITY;
    let mut lives = Vec::with_capacity(lines.len());
    for (number, l) in lines {
        let at = |problem: &str| format!("{name} line {number}: {problem}");
        if !l.arrival_s.is_finite() || l.arrival_s < previous {
            return Err(at(
                "arrival_s must be a finite time, no earlier than the line above",
            ));
        }
        previous = l.arrival_s;
        if l.prompt_tokens == 0 || l.output_tokens == 0 {
            return Err(at("prompt_tokens and output_tokens must be at least 1"));
        }
        let ttft = l.first_token_s.map(|t| t - l.arrival_s);
        let e2e = l.last_token_s.map(|t| t - l.arrival_s);
        if ttft.is_some_and(|t| !(t.is_finite() && t > 0.0)) {
            return Err(at("first_token_s must be a finite time after arrival_s"));
        }
        if let (Some(first), Some(last)) = (ttft, e2e) {
            if !(last.is_finite() && last >= first) {
                return Err(at(
                    "last_token_s must be a finite time, no earlier than first_token_s",
                ));
            }
        }
        lives.push(Life {
            arrival: Some(l.arrival_s - start),
            prompt: l.prompt_tokens,
            output: l.output_tokens,
            ttft,
            e2e,
        });
    }
    Ok(lives)
}
