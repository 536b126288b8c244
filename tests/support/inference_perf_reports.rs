//! inference-perf's lifecycle reports of the synthetic server's runs, written field for field as inference-perf's
//! `summarize_requests` writes them (kubernetes-sigs/inference-perf, `inference_perf/reportgen/base.py`; line numbers
//! at commit 7de5ef2ed6f7934e0ecbc8297e593f79e68430c0), in three releases' layouts. Keys come out sorted (Python
//! keeps insertion order; a JSON reader sees no difference) and indented by two, as `LocalStorageClient.save_report`
//! writes them (`inference_perf/client/filestorage/local.py` line 41, `json.dumps(..., indent=2)`).
//!
//! Each request streams its tokens at equal gaps from its first token to its last (the model gives those two times),
//! so its TPOT and inter-token gaps are the model's; schedule delays are a few tenths of a millisecond, as a load
//! generator that keeps up shows.

#![allow(dead_code)]

use super::synthetic_server::simulated;
use goodput_model::RequestTrace;
use serde_json::{json, Map, Value};

/// Which release's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// 788190a (July 2025) to 8741b33 (August 2025): percentiles p10, p50, p90; `schedule_accuracy`.
    Summer2025,
    /// aa3fd7f (September 2025) to 7ebc8bb (April 2026), the layout of the KubeCon NA 2025 demo results: eleven
    /// percentiles with `median`; `schedule_delay`; `prompt_len`; no `benchmark_time_seconds`.
    Autumn2025,
    /// 7de5ef2 (August 2026): `benchmark_time_seconds`, media sections, `prompt_tokens` and `output_tokens` with
    /// totals, `token_count_mismatches`, `failures.by_label`.
    Current,
}

/// How a stage sent its requests (`load_summary`, `summarize_requests` lines 477–497).
#[derive(Clone, Copy, Debug)]
pub enum Load {
    /// A `constant` or `poisson` stage at this rate.
    Rate(f64),
    /// A `concurrent` stage of this many clients, which inference-perf runs with `requested_rate` set to its
    /// number of requests (`inference_perf/main.py` lines 141–149).
    Concurrency(u32),
    /// The summary of a whole run: no rate.
    Summary,
}

/// numpy's `percentile` with its default linear interpolation.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let position = p / 100.0 * (sorted.len() - 1) as f64;
    let (below, above) = (position.floor() as usize, position.ceil() as usize);
    sorted[below] + (sorted[above] - sorted[below]) * (position - below as f64)
}

/// `summarize` (lines 168–179): `None` (JSON `null`) for no values.
fn summarize(values: &[f64], layout: Layout) -> Value {
    if values.is_empty() {
        return Value::Null;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut out = Map::new();
    out.insert(
        "mean".into(),
        json!(values.iter().sum::<f64>() / values.len() as f64),
    );
    out.insert("min".into(), json!(sorted[0]));
    out.insert("max".into(), json!(sorted[sorted.len() - 1]));
    let (percentiles, fifty): (&[f64], &str) = match layout {
        Layout::Summer2025 => (&[10.0, 50.0, 90.0], "p50"),
        // The default `percentiles` of `RequestLifecycleMetricsReportConfig` (config/reportgen/config.py line 29).
        _ => (
            &[
                0.1, 1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9,
            ],
            "median",
        ),
    };
    for &p in percentiles {
        let key = if p == 50.0 {
            fifty.to_owned()
        } else {
            format!("p{p}")
        };
        out.insert(key, json!(percentile(&sorted, p)));
    }
    Value::Object(out)
}

/// One request as inference-perf sees it: sent at `arrival` (and scheduled a little before), tokens streamed at
/// equal gaps from its first token to its last.
struct Sent<'a> {
    life: &'a RequestTrace,
    scheduled: f64,
}

impl Sent<'_> {
    fn latency(&self) -> f64 {
        self.life.finish - self.life.arrival
    }
    fn ttft(&self) -> f64 {
        self.life.first_token - self.life.arrival
    }
    /// `(last − first token) ÷ (tokens − 1)` (lines 574–581); `None` for one token.
    fn tpot(&self) -> Option<f64> {
        (self.life.output_tokens > 1).then(|| {
            (self.life.finish - self.life.first_token) / f64::from(self.life.output_tokens - 1)
        })
    }
}

/// The report of `lives` (every request succeeded) under `load`, as `layout` writes it.
pub fn report(lives: &[RequestTrace], load: Load, layout: Layout) -> String {
    let sent: Vec<Sent> = lives
        .iter()
        .enumerate()
        .map(|(i, life)| Sent {
            life,
            scheduled: life.arrival - 1e-4 * (i % 7) as f64,
        })
        .collect();
    let s = |values: Vec<f64>| summarize(&values, layout);
    let n = sent.len() as f64;
    let first_send = sent
        .iter()
        .map(|r| r.life.arrival)
        .fold(f64::INFINITY, f64::min);
    let last_send = sent
        .iter()
        .map(|r| r.life.arrival)
        .fold(f64::NEG_INFINITY, f64::max);
    let last_end = sent
        .iter()
        .map(|r| r.life.finish)
        .fold(f64::NEG_INFINITY, f64::max);
    // Lines 475–478.
    let total_time = last_end - first_send;
    let send_duration = last_send - first_send;
    let prompts: Vec<f64> = sent
        .iter()
        .map(|r| f64::from(r.life.prompt_tokens))
        .collect();
    let outputs: Vec<f64> = sent
        .iter()
        .map(|r| f64::from(r.life.output_tokens))
        .collect();
    let (prompt_total, output_total) = (prompts.iter().sum::<f64>(), outputs.iter().sum::<f64>());

    let delay_key = if layout == Layout::Summer2025 {
        "schedule_accuracy"
    } else {
        "schedule_delay"
    };
    let mut load_summary = Map::new();
    load_summary.insert("count".into(), json!(sent.len()));
    load_summary.insert(
        delay_key.into(),
        s(sent.iter().map(|r| r.life.arrival - r.scheduled).collect()),
    );
    let stage_rate = match load {
        Load::Rate(rate) => Some(rate),
        Load::Concurrency(_) => Some(n),
        Load::Summary => None,
    };
    if let Some(rate) = stage_rate {
        load_summary.insert("send_duration".into(), json!(send_duration));
        load_summary.insert("requested_rate".into(), json!(rate));
        load_summary.insert("achieved_rate".into(), json!(n / send_duration));
    }
    if let Load::Concurrency(users) = load {
        load_summary.insert("concurrency".into(), json!(users));
    }

    // Lines 637–645.
    let latency = json!({
        "request_latency": s(sent.iter().map(Sent::latency).collect()),
        "normalized_time_per_output_token":
            s(sent.iter().map(|r| r.latency() / f64::from(r.life.output_tokens)).collect()),
        "time_per_output_token": s(sent.iter().filter_map(Sent::tpot).collect()),
        "time_to_first_token": s(sent.iter().map(Sent::ttft).collect()),
        "inter_token_latency": s(sent
            .iter()
            .flat_map(|r| vec![r.tpot().unwrap_or(0.0); r.life.output_tokens as usize - 1])
            .collect()),
    });
    // Lines 646–672.
    let mut throughput = json!({
        "input_tokens_per_sec": prompt_total / total_time,
        "output_tokens_per_sec": output_total / total_time,
        "total_tokens_per_sec": (prompt_total + output_total) / total_time,
        "requests_per_sec": n / total_time,
    });
    let mut successes = json!({
        "count": sent.len(),
        "latency": latency,
    });
    let mut failures = json!({ "count": 0, "request_latency": null });
    match layout {
        Layout::Summer2025 | Layout::Autumn2025 => {
            successes["prompt_len"] = s(prompts.clone());
            successes["output_len"] = s(outputs.clone());
            failures["prompt_len"] = Value::Null;
        }
        Layout::Current => {
            for media in ["images_per_sec", "videos_per_sec", "audios_per_sec"] {
                throughput[media] = json!(0.0);
            }
            let none = vec![0.0; sent.len()];
            // A text request's JSON body: its prompt, some four bytes a token, and the API's fields.
            successes["request_size_bytes"] = s(prompts.iter().map(|p| 4.0 * p + 180.0).collect());
            successes["image"] = json!({"count": s(none.clone()), "pixels": null, "bytes": null, "aspect_ratio": null});
            successes["video"] = json!({"count": s(none.clone()), "frames": null, "pixels": null, "bytes": null,
                "aspect_ratio": null});
            successes["audio"] = json!({"count": s(none), "seconds": null, "bytes": null});
            // `summarize_prompt_token_usage` (lines 216–245) and `summarize_output_token_usage` (lines 248–275).
            let mut prompt_tokens =
                json!({"total": prompt_total, "cached": 0.0, "uncached": prompt_total});
            extend(&mut prompt_tokens, s(prompts.clone()));
            let mut output_tokens = json!({"total": output_total});
            extend(&mut output_tokens, s(outputs.clone()));
            successes["prompt_tokens"] = prompt_tokens;
            successes["output_len"] = s(outputs);
            successes["output_tokens"] = output_tokens;
            successes["token_count_mismatches"] = json!(0);
            failures["prompt_tokens"] = json!({"total": 0.0, "cached": 0.0, "uncached": 0.0});
            failures["by_label"] = json!({});
        }
    }
    successes["throughput"] = throughput;
    let mut report = json!({
        "load_summary": load_summary,
        "successes": successes,
        "failures": failures,
    });
    if layout == Layout::Current {
        // `ResponsesSummary.benchmark_time_seconds` (line 295), the same span as `total_time`.
        report["benchmark_time_seconds"] = json!(total_time);
    }
    serde_json::to_string_pretty(&report).unwrap()
}

fn extend(object: &mut Value, more: Value) {
    if let (Some(object), Value::Object(more)) = (object.as_object_mut(), more) {
        object.extend(more);
    }
}

/// The synthetic server's stage of `n` requests at `rate` from `seed`, as `layout` writes it.
pub fn stage(rate: f64, n: u64, seed: u64, layout: Layout) -> String {
    report(&simulated(rate, n, seed).1, Load::Rate(rate), layout)
}
