//! The model's state as a vLLM `/metrics` page: the same metric names, bucket bounds and text format a real server
//! serves, so the learner sees exactly what they would scrape.
//!
//! ```
//! use goodput::cluster::{exposition::render_vllm_metrics, metrics, vllm};
//! use goodput::model::{run_traced, Scenario};
//! let mut scenario = Scenario::course_preset().with_offered_load(0.5);
//! scenario.customers = 2_000;
//! scenario.warm_up = 200;
//! let (summary, traces) = run_traced(&scenario, 7, usize::MAX).unwrap();
//! let page = render_vllm_metrics(&summary, &traces, "course-27b");
//! let servers = vllm::find_signals(&metrics::parse(&page).unwrap());
//! assert_eq!(servers[0].model_name(), Some("course-27b"));
//! ```

use super::metrics::escape_label_value;
use super::vllm::{RUNNING_METRIC, TPOT_METRIC, TTFT_METRIC, WAITING_METRIC};
use crate::model::{RequestTrace, RunSummary};
use std::fmt::Write;

/// vLLM's bucket bounds for `vllm:time_to_first_token_seconds`.
pub const TTFT_BUCKETS: [f64; 22] = [
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
];
/// vLLM's bucket bounds for `vllm:time_per_output_token_seconds`.
pub const TPOT_BUCKETS: [f64; 19] = [
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0,
];
/// vLLM's bucket bounds for `vllm:e2e_request_latency_seconds`.
pub const E2E_BUCKETS: [f64; 21] = [
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
    480.0, 960.0, 1920.0, 7680.0,
];

/// A histogram being filled: counts per bound (not yet cumulative) plus the overflow.
struct Filling<'a> {
    bounds: &'a [f64],
    counts: Vec<f64>,
    overflow: f64,
    sum: f64,
}

impl<'a> Filling<'a> {
    fn new(bounds: &'a [f64]) -> Self {
        Self {
            bounds,
            counts: vec![0.0; bounds.len()],
            overflow: 0.0,
            sum: 0.0,
        }
    }

    fn observe(&mut self, value: f64, weight: f64) {
        if !value.is_finite() || !weight.is_finite() || weight <= 0.0 {
            return;
        }
        match self.bounds.iter().position(|&bound| value <= bound) {
            Some(index) => self.counts[index] += weight,
            None => self.overflow += weight,
        }
        self.sum += value * weight;
    }
}

/// Formats a sample value the way Python's `prometheus_client` (which vLLM uses) does: `15.0`, `0.001`, `+Inf`.
fn value_text(value: f64) -> String {
    if value == f64::INFINITY {
        "+Inf".to_owned()
    } else if value == f64::NEG_INFINITY {
        "-Inf".to_owned()
    } else if value.is_nan() {
        "NaN".to_owned()
    } else if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.1}")
    } else {
        format!("{value}")
    }
}

struct Page {
    text: String,
    labels: String,
}

impl Page {
    fn header(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.text, "# HELP {name} {help}");
        let _ = writeln!(self.text, "# TYPE {name} {kind}");
    }

    fn gauge(&mut self, name: &str, help: &str, value: f64) {
        self.header(name, "gauge", help);
        let _ = writeln!(self.text, "{name}{{{}}} {}", self.labels, value_text(value));
    }

    fn counter(&mut self, name: &str, help: &str, value: f64) {
        self.header(name, "counter", help);
        let _ = writeln!(self.text, "{name}{{{}}} {}", self.labels, value_text(value));
    }

    fn histogram(&mut self, name: &str, help: &str, filling: &Filling<'_>) {
        self.header(name, "histogram", help);
        let mut cumulative = 0.0;
        for (bound, count) in filling.bounds.iter().zip(&filling.counts) {
            cumulative += count;
            let _ = writeln!(
                self.text,
                "{name}_bucket{{{},le=\"{}\"}} {}",
                self.labels,
                value_text(*bound),
                value_text(cumulative)
            );
        }
        cumulative += filling.overflow;
        let _ = writeln!(
            self.text,
            "{name}_bucket{{{},le=\"+Inf\"}} {}",
            self.labels,
            value_text(cumulative)
        );
        let _ = writeln!(
            self.text,
            "{name}_count{{{}}} {}",
            self.labels,
            value_text(cumulative)
        );
        let _ = writeln!(
            self.text,
            "{name}_sum{{{}}} {}",
            self.labels,
            value_text(filling.sum)
        );
    }
}

/// Renders a run as the `/metrics` page a vLLM server would serve at the end of it.
///
/// Histograms (TTFT, TPOT, end-to-end) are filled from `traces` — the measured requests, as
/// [`crate::model::run_traced`] returns them — with vLLM's own bucket bounds; vLLM observes TPOT once per output
/// token, so each request's mean TPOT is counted once for each of its output tokens after the first. The running and
/// waiting gauges are the last occupancy sample of the run (the state a scrape would see now), and the token and
/// request counters total the traces. Labels are `model_name` (escaped as the format requires) and `engine="0"`.
pub fn render_vllm_metrics(
    summary: &RunSummary,
    traces: &[RequestTrace],
    model_name: &str,
) -> String {
    let mut ttft = Filling::new(&TTFT_BUCKETS);
    let mut tpot = Filling::new(&TPOT_BUCKETS);
    let mut e2e = Filling::new(&E2E_BUCKETS);
    let (mut prompt_tokens, mut generation_tokens) = (0.0, 0.0);
    for trace in traces {
        ttft.observe(trace.first_token - trace.arrival, 1.0);
        e2e.observe(trace.finish - trace.arrival, 1.0);
        if trace.output_tokens >= 2 {
            let intervals = f64::from(trace.output_tokens - 1);
            tpot.observe((trace.finish - trace.first_token) / intervals, intervals);
        }
        prompt_tokens += f64::from(trace.prompt_tokens);
        generation_tokens += f64::from(trace.output_tokens);
    }
    let (running, waiting) = summary
        .occupancy
        .last()
        .map_or((0.0, 0.0), |s| (f64::from(s.running), f64::from(s.waiting)));
    let mut page = Page {
        text: String::new(),
        labels: format!(
            "model_name=\"{}\",engine=\"0\"",
            escape_label_value(model_name)
        ),
    };
    let _ = writeln!(
        page.text,
        "# Simulated by goodput: offered load {:.2}, {} measured requests over {:.0} s.",
        summary.offered_load, summary.measured, summary.duration
    );
    page.gauge(
        RUNNING_METRIC,
        "Number of requests in model execution batches.",
        running,
    );
    page.gauge(
        WAITING_METRIC,
        "Number of requests waiting to be processed.",
        waiting,
    );
    page.counter(
        "vllm:request_success_total",
        "Count of successfully processed requests.",
        traces.len() as f64,
    );
    page.counter(
        "vllm:prompt_tokens_total",
        "Number of prefill tokens processed.",
        prompt_tokens,
    );
    page.counter(
        "vllm:generation_tokens_total",
        "Number of generation tokens processed.",
        generation_tokens,
    );
    page.histogram(
        TTFT_METRIC,
        "Histogram of time to first token in seconds.",
        &ttft,
    );
    page.histogram(
        TPOT_METRIC,
        "Histogram of time per output token in seconds.",
        &tpot,
    );
    page.histogram(
        "vllm:e2e_request_latency_seconds",
        "Histogram of end to end request latency in seconds.",
        &e2e,
    );
    page.text
}

/// A page of at least `min_bytes` in vLLM's shape, for benchmarks and tests of the parser's speed: a running gauge
/// and a TTFT histogram (vLLM's bucket bounds, `_count`, `_sum`) for as many models as it takes, with escaped quotes
/// in every `model_name`.
pub fn synthetic_page(min_bytes: usize) -> String {
    let mut gauges = format!(
        "# HELP {RUNNING_METRIC} Number of requests in model execution batches.\n# TYPE {RUNNING_METRIC} gauge\n"
    );
    let mut histograms = format!("# TYPE {TTFT_METRIC} histogram\n");
    let mut model = 0;
    while gauges.len() + histograms.len() < min_bytes {
        let labels = format!("model_name=\"org/model-{model} \\\"v2\\\"\",engine=\"0\"");
        let _ = writeln!(gauges, "{RUNNING_METRIC}{{{labels}}} {model}.0");
        for (index, bound) in TTFT_BUCKETS.iter().enumerate() {
            let _ = writeln!(
                histograms,
                "{TTFT_METRIC}_bucket{{{labels},le=\"{bound}\"}} {}.0",
                index * 10
            );
        }
        let total = TTFT_BUCKETS.len() * 10;
        let _ = writeln!(
            histograms,
            "{TTFT_METRIC}_bucket{{{labels},le=\"+Inf\"}} {total}.0"
        );
        let _ = writeln!(histograms, "{TTFT_METRIC}_count{{{labels}}} {total}.0");
        let _ = writeln!(histograms, "{TTFT_METRIC}_sum{{{labels}}} 1.2345e2");
        model += 1;
    }
    gauges + &histograms
}
