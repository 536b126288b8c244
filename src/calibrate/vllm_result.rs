//! `vllm bench serve --save-result` files (and `benchmarks/benchmark_serving.py`'s before it) of every version since
//! 0.5: any `--percentile-metrics` (vLLM writes no `*_e2el_ms` key by default, so a missing E2E is derived), with or
//! without `--save-detailed`'s lists, `"inf"` rates, `--max-concurrency` runs, the `"request_goodput:"` key of
//! 0.6.4–0.9.1, `start_times` (0.15+), several results in one file (`--append-result`), and Python's `NaN` and
//! `Infinity` tokens, which `json.dump` writes. Every value a figure rests on is checked, and a refusal names the
//! file and the key.

use super::bench_result::{BenchResult, Life};
use serde_json::{Map, Value};

/// The metrics `--percentile-metrics` selects from, whose `mean_`, `median_`, `std_` and `pNN_` keys are times in
/// milliseconds.
const METRICS: [&str; 6] = [
    "ttft",
    "tpot",
    "itl",
    "e2el",
    "client_queue_time",
    "e2el_including_client_queue",
];

/// Whether `object` looks like a result: every era writes these two.
pub fn is_result(object: &Map<String, Value>) -> bool {
    object.contains_key("request_throughput") && object.contains_key("completed")
}

/// A number, or a string holding one (vLLM writes an unlimited rate as `"inf"`; [`python_tokens`] turns `NaN`
/// and `Infinity` into strings).
pub fn number(object: &Map<String, Value>, key: &str) -> Option<f64> {
    as_number(object.get(key)?)
}

fn as_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The value as the file wrote it, short enough for a one-line message.
pub(super) fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 24 {
        format!("{}…", text.chars().take(24).collect::<String>())
    } else {
        text
    }
}

/// Python's `json.dump` writes `NaN`, `Infinity` and `-Infinity` bare, which JSON does not allow: this quotes them
/// (outside strings only), so the file parses and the values are judged by the key they sit under.
pub fn python_tokens(text: &str) -> Option<String> {
    const TOKENS: [&str; 3] = ["-Infinity", "Infinity", "NaN"];
    if !text.contains("NaN") && !text.contains("Infinity") {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 16);
    let (mut in_string, mut escaped, mut changed) = (false, false, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if let Some(token) = TOKENS.iter().find(|t| rest.starts_with(**t)) {
            out.push('"');
            out.push_str(token);
            out.push('"');
            rest = &rest[token.len()..];
            changed = true;
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    changed.then_some(out)
}

/// A time key (`mean_ttft_ms`, `p99.9_itl_ms`, …): its metric, and whether it is a mean or a median.
fn time_key(key: &str) -> Option<(&'static str, bool)> {
    let body = key.strip_suffix("_ms")?;
    let (stat, metric) = body.split_once('_')?;
    let metric = METRICS.iter().find(|m| **m == metric)?;
    let central = stat == "mean" || stat == "median";
    let percentile = stat
        .strip_prefix('p')
        .is_some_and(|p| p.parse::<f64>().is_ok_and(|p| (0.0..=100.0).contains(&p)));
    (central || stat == "std" || percentile).then_some((metric, central))
}

/// The shortest non-zero time a result may show, milliseconds: a microsecond, far below a network round trip or a
/// GPU step. Below it (a subnormal number, say) the fit would find a server doing billions of requests a second.
const SHORTEST_TIME_MS: f64 = 1e-3;

/// Most requests a result may say completed: a thousand a second for thirty years.
const MOST_COMPLETED: f64 = 1e12;

/// Refuses a time that is not a finite number of 0 ms or more, one above 0 but shorter than [`SHORTEST_TIME_MS`],
/// and a mean or median TTFT, TPOT or E2E of 0 ms (no request is served in no time; a TPOT of 0 is what one-token
/// outputs give, which show no decode step).
fn check_times(name: &str, object: &Map<String, Value>) -> Result<(), String> {
    for (key, value) in object {
        let Some((metric, central)) = time_key(key) else {
            continue;
        };
        if value.is_null() {
            continue;
        }
        let ms = as_number(value)
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                format!(
                "{name}: \"{key}\" is {}, not a time (a finite number of milliseconds, 0 or more)",
                shown(value)
            )
            })?;
        if ms > 0.0 && ms < SHORTEST_TIME_MS {
            return Err(format!(
                "{name}: \"{key}\" is {ms:e} ms, shorter than any server answers in (a microsecond): not a \
                 measured time"
            ));
        }
        if ms == 0.0 && central && metric != "itl" && metric != "client_queue_time" {
            return Err(format!(
                "{name}: \"{key}\" is 0, which no served request shows (a TPOT of 0 means every output was one \
                 token long: run with longer outputs)"
            ));
        }
    }
    Ok(())
}

/// A required count or duration: a finite number, 0 or more.
fn required(name: &str, object: &Map<String, Value>, key: &str) -> Result<f64, String> {
    let value = object.get(key).ok_or_else(|| {
        format!(
            "{name}: a vllm bench serve result needs \"{key}\", a number, which this file lacks"
        )
    })?;
    as_number(value)
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| {
            format!(
                "{name}: \"{key}\" is {}, not a finite number of 0 or more",
                shown(value)
            )
        })
}

fn ms(object: &Map<String, Value>, key: &str) -> Option<f64> {
    number(object, key).map(|v| v / 1000.0)
}

/// Reads one result object.
pub fn read(name: &str, object: &Map<String, Value>) -> Result<BenchResult, String> {
    check_times(name, object)?;
    let completed = required(name, object, "completed")?;
    if completed < 1.0 {
        return Err(format!(
            "{name}: no request completed, so it shows no latencies"
        ));
    }
    if completed > MOST_COMPLETED || completed.fract() != 0.0 {
        return Err(format!(
            "{name}: \"completed\" is {completed:e}, not a count of requests a benchmark can have served (a whole \
             number up to {MOST_COMPLETED:e})"
        ));
    }
    let duration = required(name, object, "duration")?;
    let request_throughput = required(name, object, "request_throughput")?;
    if duration == 0.0 || request_throughput == 0.0 {
        return Err(format!(
            "{name}: \"duration\" and \"request_throughput\" must be above 0"
        ));
    }
    // vLLM writes request_throughput = completed / duration: figures that disagree were not measured together.
    let implied = request_throughput * duration;
    if (implied - completed).abs() > 0.01 * completed + 1.0 {
        return Err(format!(
            "{name}: \"completed\" ({completed}) disagrees with \"request_throughput\" × \"duration\" ({implied:.1}), \
             which vllm bench serve writes as completed ÷ duration: the figures were not measured together"
        ));
    }
    let request_rate = rate(name, object)?;
    let max_concurrency = concurrency(name, object)?;
    let total_input = required(name, object, "total_input_tokens")?;
    let total_output = required(name, object, "total_output_tokens")?;
    let lives = detailed(name, object)?;
    let mut derived = Vec::new();
    let figures = Figures::read(
        name,
        object,
        lives.as_deref(),
        total_output / completed,
        &mut derived,
    )?;
    Ok(BenchResult {
        kind: "vllm bench serve result".to_owned(),
        request_rate,
        max_concurrency,
        completed: completed as u64,
        duration,
        request_throughput,
        mean_prompt: total_input / completed,
        mean_output: total_output / completed,
        ttft_mean: figures.ttft_mean,
        ttft_median: figures.ttft_median,
        ttft_p99: ms(object, "p99_ttft_ms"),
        tpot_mean: figures.tpot_mean,
        tpot_median: figures.tpot_median,
        e2el_mean: figures.e2el_mean,
        derived,
        goodput: goodput(object),
        lives,
        burstiness: number(object, "burstiness").filter(|b| *b > 0.0),
    })
}

/// `request_rate`: a number, or `"inf"` (all sent at once, or as fast as `--max-concurrency` lets them).
fn rate(name: &str, object: &Map<String, Value>) -> Result<Option<f64>, String> {
    let Some(value) = object.get("request_rate").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    match as_number(value) {
        Some(r) if r.is_infinite() && r > 0.0 => Ok(None),
        Some(r) if r.is_finite() && r > 0.0 => Ok(Some(r)),
        _ => Err(format!(
            "{name}: \"request_rate\" is {}, neither a rate above 0 nor \"inf\"",
            shown(value)
        )),
    }
}

/// `max_concurrency` (from vLLM 0.6.4; `null` when not limited).
fn concurrency(name: &str, object: &Map<String, Value>) -> Result<Option<u32>, String> {
    let Some(value) = object.get("max_concurrency").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    value
        .as_u64()
        .filter(|c| (1..=u64::from(u32::MAX)).contains(c))
        .map(|c| Some(c as u32))
        .ok_or_else(|| {
            format!(
                "{name}: \"max_concurrency\" is {}, not a whole number of at least 1",
                shown(value)
            )
        })
}

/// Good requests per second, under either spelling (`"request_goodput:"` until vLLM 0.9.1).
fn goodput(object: &Map<String, Value>) -> Option<f64> {
    ["request_goodput", "request_goodput:"]
        .iter()
        .find_map(|key| number(object, key))
        .filter(|g| g.is_finite() && *g >= 0.0)
}

/// The central figures, seconds: from the file's keys, else from its per-request lists, else derived.
struct Figures {
    ttft_mean: f64,
    ttft_median: f64,
    tpot_mean: f64,
    tpot_median: f64,
    e2el_mean: f64,
}

impl Figures {
    fn read(
        name: &str,
        object: &Map<String, Value>,
        lives: Option<&[Life]>,
        mean_output: f64,
        derived: &mut Vec<String>,
    ) -> Result<Figures, String> {
        let per_request = PerRequest::of(lives.unwrap_or(&[]));
        let missing = |metric: &str| {
            format!(
                "{name}: shows no {metric} (no \"mean_{}_ms\" nor per-request lists): run vllm bench serve with \
                 --percentile-metrics ttft,tpot,itl (the default) or --save-detailed",
                metric.to_lowercase()
            )
        };
        let ttft_mean = ms(object, "mean_ttft_ms")
            .or(per_request.ttft_mean)
            .ok_or_else(|| missing("TTFT"))?;
        let ttft_median = ms(object, "median_ttft_ms")
            .or(per_request.ttft_median)
            .unwrap_or(ttft_mean);
        let e2el_file = ms(object, "mean_e2el_ms")
            .or(per_request.e2el_mean)
            .or(latencies_mean(name, object)?);
        let tpot_file = ms(object, "mean_tpot_ms").or(per_request.tpot_mean);
        let (tpot_mean, e2el_mean) = match (tpot_file, e2el_file) {
            (Some(tpot), Some(e2el)) => (tpot, e2el),
            (Some(tpot), None) => {
                derived.push(
                    "mean E2E derived as mean TTFT + mean TPOT × (mean output − 1): no mean_e2el_ms \
                     (vLLM's default --percentile-metrics write none)"
                        .to_owned(),
                );
                (tpot, ttft_mean + tpot * (mean_output - 1.0).max(0.0))
            }
            (None, Some(e2el)) if mean_output > 1.0 && e2el > ttft_mean => {
                derived.push(
                    "mean TPOT derived as (mean E2E − mean TTFT) ÷ (mean output − 1): no mean_tpot_ms"
                        .to_owned(),
                );
                ((e2el - ttft_mean) / (mean_output - 1.0), e2el)
            }
            _ => return Err(missing("TPOT")),
        };
        let tpot_median = ms(object, "median_tpot_ms")
            .or(per_request.tpot_median)
            .unwrap_or(tpot_mean);
        Ok(Figures {
            ttft_mean,
            ttft_median,
            tpot_mean,
            tpot_median,
            e2el_mean,
        })
    }
}

/// Means and medians of a detailed result's requests, for files whose `--percentile-metrics` left a figure out.
#[derive(Default)]
pub(super) struct PerRequest {
    pub ttft_mean: Option<f64>,
    pub ttft_median: Option<f64>,
    pub tpot_mean: Option<f64>,
    pub tpot_median: Option<f64>,
    pub e2el_mean: Option<f64>,
}

impl PerRequest {
    /// The figures of `lives` (TPOT as vLLM takes it: (E2E − TTFT) ÷ (output − 1), of outputs over one token).
    pub fn of(lives: &[Life]) -> PerRequest {
        let ttft: Vec<f64> = lives.iter().filter_map(|l| l.ttft).collect();
        let e2e: Vec<f64> = lives.iter().filter_map(|l| l.e2e).collect();
        let tpot: Vec<f64> = lives
            .iter()
            .filter(|l| l.output > 1)
            .filter_map(|l| Some((l.e2e? - l.ttft?) / f64::from(l.output - 1)))
            .collect();
        PerRequest {
            ttft_mean: mean(&ttft),
            ttft_median: median(ttft),
            tpot_mean: mean(&tpot),
            tpot_median: median(tpot),
            e2el_mean: mean(&e2e),
        }
    }
}

/// The mean of `latencies` (vLLM 0.33+ keeps it without `--save-detailed`; seconds, 0 for a failed request).
fn latencies_mean(name: &str, object: &Map<String, Value>) -> Result<Option<f64>, String> {
    let Some(list) = object.get("latencies").and_then(Value::as_array) else {
        return Ok(None);
    };
    let mut served = Vec::with_capacity(list.len());
    for (i, value) in list.iter().enumerate() {
        match as_number(value) {
            Some(t) if t.is_finite() && t > 0.0 => served.push(t),
            Some(0.0) => {}
            _ => {
                return Err(format!(
                    "{name}: latencies[{i}] is {}, not a time in seconds",
                    shown(value)
                ))
            }
        }
    }
    Ok(mean(&served))
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}

/// `--save-detailed`'s lists, paired up per request; requests that failed (TTFT 0, no output) are left out. With
/// `start_times` (vLLM 0.15+), each request's send time from the first send.
fn detailed(name: &str, object: &Map<String, Value>) -> Result<Option<Vec<Life>>, String> {
    let list = |key: &str| object.get(key).and_then(Value::as_array);
    let (Some(inputs), Some(outputs), Some(ttfts)) =
        (list("input_lens"), list("output_lens"), list("ttfts"))
    else {
        return Ok(None);
    };
    if inputs.len() != outputs.len() || inputs.len() != ttfts.len() {
        return Err(format!(
            "{name}: input_lens, output_lens and ttfts must list the same requests ({}, {} and {} entries)",
            inputs.len(),
            outputs.len(),
            ttfts.len()
        ));
    }
    let starts = send_times(name, list("start_times"), inputs.len())?;
    let itls = list("itls");
    let mut lives = Vec::with_capacity(inputs.len());
    for i in 0..inputs.len() {
        let tokens = |v: &Value, what: &str| {
            v.as_u64()
                .filter(|&t| t <= u64::from(crate::model::scenario::MAX_TOKENS))
                .map(|t| t as u32)
                .ok_or_else(|| format!("{name}: {what}[{i}] is {}, not a token count", shown(v)))
        };
        let prompt = tokens(&inputs[i], "input_lens")?;
        let output = tokens(&outputs[i], "output_lens")?;
        let ttft = as_number(&ttfts[i])
            .filter(|t| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| {
                format!(
                    "{name}: ttfts[{i}] is {}, not a time in seconds",
                    shown(&ttfts[i])
                )
            })?;
        if prompt == 0 || output == 0 || ttft == 0.0 {
            continue;
        }
        let e2e = match itls.and_then(|l| l.get(i)).and_then(Value::as_array) {
            Some(gaps) => {
                let sum: Option<f64> = gaps
                    .iter()
                    .map(|g| as_number(g).filter(|g| g.is_finite() && *g >= 0.0))
                    .sum();
                Some(
                    ttft + sum.ok_or_else(|| {
                        format!("{name}: itls[{i}] holds a value that is not a gap in seconds")
                    })?,
                )
            }
            None => None,
        };
        lives.push(Life {
            arrival: starts.as_ref().map(|s| s[i]),
            prompt,
            output,
            ttft: Some(ttft),
            e2e,
        });
    }
    if lives.iter().all(|l| l.arrival.is_some()) {
        lives.sort_by(|a, b| {
            a.arrival
                .unwrap_or(0.0)
                .total_cmp(&b.arrival.unwrap_or(0.0))
        });
    }
    Ok(Some(lives))
}

/// `start_times` as seconds from the first send (they are `time.perf_counter()` readings, with no meaningful
/// origin); `None` when the file has none.
fn send_times(name: &str, list: Option<&Vec<Value>>, n: usize) -> Result<Option<Vec<f64>>, String> {
    let Some(list) = list else { return Ok(None) };
    if list.len() != n {
        return Err(format!(
            "{name}: start_times lists {} requests, input_lens {n}",
            list.len()
        ));
    }
    let times = list
        .iter()
        .enumerate()
        .map(|(i, v)| {
            as_number(v)
                .filter(|t| t.is_finite())
                .ok_or_else(|| format!("{name}: start_times[{i}] is {}, not a time", shown(v)))
        })
        .collect::<Result<Vec<f64>, String>>()?;
    let first = times.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(Some(times.into_iter().map(|t| t - first).collect()))
}
