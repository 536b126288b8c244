//! inference-perf's lifecycle reports (kubernetes-sigs/inference-perf, `inference_perf/reportgen/base.py`,
//! `summarize_requests`): `stage_N_lifecycle_metrics.json`, one stage of a run at one rate (or one concurrency), and
//! `summary_lifecycle_metrics.json`, every stage of the run together. Times are seconds. Every release since the
//! report gained its `latency` section (mid-2025) is read: `p50` before `median`, `prompt_len` before
//! `prompt_tokens`, with or without `benchmark_time_seconds`, `p99` or `concurrency`.
//!
//! inference-perf's `time_per_output_token` is vLLM's TPOT ((last − first token) ÷ (tokens − 1), per request), and
//! its `time_to_first_token` is measured on streamed requests only. A summary names no rate: it is read as one run at
//! its mean rate, and left out by the calibration when the stage files of its run are given with it.

use super::bench_result::BenchResult;
use super::vllm_result::shown;
use serde_json::{Map, Value};

/// Whether `object` looks like an inference-perf report (lifecycle or Prometheus): its three sections.
pub fn is_report(object: &Map<String, Value>) -> bool {
    ["load_summary", "successes", "failures"]
        .iter()
        .all(|key| object.get(*key).is_some_and(Value::is_object))
}

/// Whether the report is a run's summary, which mixes every stage of the run: a stage's `load_summary` holds the
/// rate asked for (or its concurrency), a summary's does not.
pub fn is_summary(object: &Map<String, Value>) -> bool {
    object
        .get("load_summary")
        .and_then(|load| load.get("requested_rate"))
        .is_none_or(Value::is_null)
}

/// Reads one lifecycle report; the error is one line naming the file and the field.
pub fn read(name: &str, object: &Map<String, Value>) -> Result<BenchResult, String> {
    let report = Report { name, object };
    if report.is_prometheus() {
        return Err(format!(
            "{name}: inference-perf's Prometheus report (the server's own metrics over a stage), not a lifecycle \
             report: give the stage_N_lifecycle_metrics.json files, which time every request"
        ));
    }
    let completed = report.count("successes/count")?;
    if completed == 0 {
        return Err(format!(
            "{name}: successes.count is 0: no request succeeded, so it shows no latencies"
        ));
    }
    let n = completed as f64;
    let requests_per_sec = report.positive("successes/throughput/requests_per_sec")?;
    let duration = match report.get("benchmark_time_seconds") {
        Some(_) => report.positive("benchmark_time_seconds")?,
        // Before `benchmark_time_seconds` (spring 2026), `requests_per_sec` is successes ÷ the same span.
        None => n / requests_per_sec,
    };
    let mut derived = Vec::new();
    let (request_rate, max_concurrency) = report.load(duration, &mut derived)?;
    let ttft = "successes/latency/time_to_first_token";
    let tpot = "successes/latency/time_per_output_token";
    report.streamed(ttft)?;
    report.streamed(tpot)?;
    let ttft_mean = report.positive(&format!("{ttft}/mean"))?;
    let tpot_mean = report.positive(&format!("{tpot}/mean"))?;
    Ok(BenchResult {
        kind: if is_summary(object) {
            "inference-perf summary (every stage of the run)".to_owned()
        } else {
            "inference-perf stage".to_owned()
        },
        request_rate,
        max_concurrency,
        completed,
        duration,
        request_throughput: requests_per_sec,
        mean_prompt: report.mean_length(
            &["successes/prompt_len", "successes/prompt_tokens"],
            "input_tokens_per_sec",
            requests_per_sec,
        )?,
        mean_output: report.mean_length(
            &["successes/output_tokens", "successes/output_len"],
            "output_tokens_per_sec",
            requests_per_sec,
        )?,
        ttft_mean,
        ttft_median: report.median(ttft)?.unwrap_or(ttft_mean),
        ttft_p99: report.optional(&format!("{ttft}/p99"))?,
        tpot_mean,
        tpot_median: report.median(tpot)?.unwrap_or(tpot_mean),
        e2el_mean: report.positive("successes/latency/request_latency/mean")?,
        derived,
        goodput: report.optional("successes/goodput_metrics/request_goodput")?,
        lives: None,
        burstiness: None,
    })
}

/// A report and its file's name, for messages.
struct Report<'a> {
    name: &'a str,
    object: &'a Map<String, Value>,
}

impl Report<'_> {
    /// The value at a `/`-separated path (`successes/count`); `null` is absent, as inference-perf writes a
    /// distribution it had no values for.
    fn get(&self, path: &str) -> Option<&Value> {
        let mut parts = path.split('/');
        let mut value = self.object.get(parts.next()?)?;
        for part in parts {
            value = value.get(part)?;
        }
        (!value.is_null()).then_some(value)
    }

    /// The field as the message names it: `successes.latency.time_to_first_token.mean`.
    fn field(path: &str) -> String {
        path.replace('/', ".")
    }

    fn missing(&self, path: &str) -> String {
        format!(
            "{}: an inference-perf report needs {}, which this file lacks",
            self.name,
            Self::field(path)
        )
    }

    fn not_a(&self, path: &str, value: &Value, what: &str) -> String {
        format!(
            "{}: {} is {}, not {what}",
            self.name,
            Self::field(path),
            shown(value)
        )
    }

    /// A number above 0 that must be there.
    fn positive(&self, path: &str) -> Result<f64, String> {
        let value = self.get(path).ok_or_else(|| self.missing(path))?;
        value
            .as_f64()
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(|| self.not_a(path, value, "a finite number above 0"))
    }

    /// A number of 0 or more, when the file has it.
    fn optional(&self, path: &str) -> Result<Option<f64>, String> {
        self.get(path)
            .map(|value| {
                value
                    .as_f64()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| self.not_a(path, value, "a finite number of 0 or more"))
            })
            .transpose()
    }

    /// A whole count that must be there.
    fn count(&self, path: &str) -> Result<u64, String> {
        let value = self.get(path).ok_or_else(|| self.missing(path))?;
        value
            .as_u64()
            .ok_or_else(|| self.not_a(path, value, "a whole number of 0 or more"))
    }

    /// A distribution's median: `median`, or `p50` as reports before September 2025 wrote it.
    fn median(&self, distribution: &str) -> Result<Option<f64>, String> {
        for key in ["median", "p50"] {
            let path = format!("{distribution}/{key}");
            if self.get(&path).is_some() {
                return self.positive(&path).map(Some);
            }
        }
        Ok(None)
    }

    /// TTFT and TPOT exist only for streamed requests: a report of unstreamed ones writes `null`.
    fn streamed(&self, distribution: &str) -> Result<(), String> {
        match self.get(distribution) {
            Some(Value::Object(_)) => Ok(()),
            Some(other) => Err(self.not_a(distribution, other, "a distribution (mean, median, …)")),
            None if self.get("successes/latency").is_some() => Err(format!(
                "{}: {} is empty: inference-perf times the first token only of streamed requests, so run it with \
                 api.streaming: true",
                self.name,
                Self::field(distribution)
            )),
            None => Err(format!(
                "{}: no successes.latency section: reports of inference-perf before mid-2025 time no first token; \
                 run a later release",
                self.name
            )),
        }
    }

    /// A mean length in tokens: the first of `distributions` the file has, else its token rate ÷ its request rate
    /// (both are totals over the same span, so their ratio is the mean).
    fn mean_length(
        &self,
        distributions: &[&str],
        token_rate: &str,
        requests_per_sec: f64,
    ) -> Result<f64, String> {
        for distribution in distributions {
            let path = format!("{distribution}/mean");
            if self.get(&path).is_some() {
                return self.positive(&path);
            }
        }
        let path = format!("successes/throughput/{token_rate}");
        Ok(self.positive(&path)? / requests_per_sec)
    }

    /// A Prometheus report writes an empty `load_summary` and server-side figures under `successes`, with no
    /// `latency` section.
    fn is_prometheus(&self) -> bool {
        self.object
            .get("load_summary")
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty)
            && self.get("successes/latency").is_none()
    }

    /// How the requests were sent: at a rate, or by a fixed number of clients (a `concurrent` stage, whose
    /// `requested_rate` is only how fast its queue was filled); a summary at its mean rate.
    fn load(
        &self,
        duration: f64,
        derived: &mut Vec<String>,
    ) -> Result<(Option<f64>, Option<u32>), String> {
        if let Some(value) = self.get("load_summary/concurrency") {
            let users = value
                .as_u64()
                .filter(|c| (1..=u64::from(u32::MAX)).contains(c))
                .ok_or_else(|| {
                    self.not_a(
                        "load_summary/concurrency",
                        value,
                        "a whole number of at least 1",
                    )
                })?;
            return Ok((None, Some(users as u32)));
        }
        if is_summary(self.object) {
            let sent = self.count("load_summary/count")?.max(1) as f64;
            let rate = sent / duration;
            derived.push(format!(
                "rate {rate:.3}/s taken as the run's requests ÷ its length: a summary names no rate, and mixes \
                 every stage of its run (give the stage_N files for one rate each)"
            ));
            return Ok((Some(rate), None));
        }
        let asked = self.optional("load_summary/requested_rate")?.unwrap_or(0.0);
        let achieved = self.optional("load_summary/achieved_rate")?;
        match achieved {
            // A trace replay's stage asks for no rate (it writes 0): its requests came as the trace sent them.
            Some(sent) if asked == 0.0 && sent > 0.0 => {
                derived.push(format!(
                    "rate {sent:.3}/s as sent (load_summary.achieved_rate): the stage asked for none"
                ));
                Ok((Some(sent), None))
            }
            _ if asked == 0.0 => Err(format!(
                "{}: load_summary.requested_rate is 0 and achieved_rate is not a rate above 0",
                self.name
            )),
            // The load generator fell behind the schedule (its workers' concurrency limit): the stage's arrivals
            // came at the rate achieved.
            Some(sent) if sent > 0.0 && sent < 0.95 * asked => {
                derived.push(format!(
                    "rate {sent:.3}/s as sent (load_summary.achieved_rate), where {asked}/s was asked: the load \
                     generator fell behind"
                ));
                Ok((Some(sent), None))
            }
            _ => Ok((Some(asked), None)),
        }
    }
}
