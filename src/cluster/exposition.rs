//! The model's state as a vLLM `/metrics` page: the metric names a current server (vLLM 0.13) exports, vLLM's own
//! bucket bounds, and the text format it serves, so the learner, the reader and any Prometheus tooling see what they
//! would scrape from a real server.
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

use super::admission::{HTTP_REQUESTS_METRIC, REJECTIONS_METRIC};
use super::metrics::escape_label_value;
use super::vllm::{
    E2E_METRIC, ITL_METRIC, KV_CACHE_METRIC, LEGACY_TPOT_METRIC, PREEMPTIONS_METRIC,
    REQUEST_TPOT_METRIC, RUNNING_METRIC, TTFT_METRIC, WAITING_METRIC,
};
use crate::model::{RejectedByReason, RejectionReason, RequestTrace, RunSummary};
use std::fmt::Write;

/// vLLM's bucket bounds for `vllm:time_to_first_token_seconds` (`vllm/v1/metrics/loggers.py`).
pub const TTFT_BUCKETS: [f64; 22] = [
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
];
/// vLLM's bucket bounds for `vllm:inter_token_latency_seconds` and `vllm:request_time_per_output_token_seconds`
/// (and the older `vllm:time_per_output_token_seconds`): the same list for all three.
pub const TPOT_BUCKETS: [f64; 19] = [
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0,
];
/// vLLM's bucket bounds for `vllm:e2e_request_latency_seconds` (and its queue, prefill and decode time histograms).
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

/// What a simulated vLLM server exports at the moment of a scrape: the requests it has observed so far and its
/// state now. Build one with [`SimulatedScrape::end_of_run`] (or by hand, for a scrape part-way through a run or for
/// a server whose traffic is made up of several runs), adjust what you need, and [`render`](Self::render) it.
#[derive(Clone, Debug)]
pub struct SimulatedScrape<'a> {
    /// The `model_name` label (escaped as the format requires); `engine` is always `"0"`.
    pub model_name: &'a str,
    /// The requests observed so far, each counted once in every histogram.
    pub traces: &'a [RequestTrace],
    /// Requests in the running batch now.
    pub running: f64,
    /// Requests waiting now.
    pub waiting: f64,
    /// KV-cache usage now, 0–1, exported as `vllm:kv_cache_usage_perc`. `None` (a scenario without a KV budget, or
    /// the textbook queue) leaves the gauge off the page rather than inventing a figure.
    pub kv_cache_usage: Option<f64>,
    /// Preemptions so far, exported as `vllm:num_preemptions_total`.
    pub preemptions: u64,
    /// Requests turned away so far by the queue caps, by reason: exported as `vllm:admission_rejections_total` and
    /// as the API server's `http_requests_total` 5xx answers (beside a 2xx answer for every traced request). `None`
    /// (a server without a cap) leaves both off the page.
    pub rejected: Option<RejectedByReason>,
    /// Also export the older `vllm:time_per_output_token_seconds`, as a vLLM 0.12 server does when started with
    /// `--show-hidden-metrics-for-version=0.11` (vLLM 0.13 removed it).
    pub show_hidden_metrics: bool,
    /// A `#` comment for the top of the page, saying what was simulated.
    pub comment: Option<String>,
}

impl<'a> SimulatedScrape<'a> {
    /// The scrape at the end of a run: every request in `traces` (the measured requests, as
    /// [`crate::model::run_traced`] returns them), and the running and waiting gauges of the run's last occupancy
    /// sample (the state a scrape would see now), with its KV-cache usage, and the run's preemptions (those of the
    /// measured window: the run's warm-up is not part of the server's history here either). This is the one place
    /// that turns a [`RunSummary`] into server state.
    pub fn end_of_run(
        summary: &RunSummary,
        traces: &'a [RequestTrace],
        model_name: &'a str,
    ) -> Self {
        let last = summary.occupancy.last();
        let (running, waiting) =
            last.map_or((0.0, 0.0), |s| (f64::from(s.running), f64::from(s.waiting)));
        let preemptions = summary.kv_cache.as_ref().map_or(0, |kv| kv.preemptions);
        let rejected = summary.admission.map(|a| a.rejected_by_reason);
        let turned_away = rejected
            .map(|r| format!(", {} turned away", r.total()))
            .unwrap_or_default();
        Self {
            model_name,
            traces,
            running,
            waiting,
            kv_cache_usage: last.and_then(|s| s.kv_usage),
            preemptions,
            rejected,
            show_hidden_metrics: false,
            comment: Some(format!(
                "Simulated by goodput: offered load {:.2}, {} measured requests over {:.0} s, {preemptions} preemptions{turned_away}.",
                summary.offered_load, summary.measured, summary.duration
            )),
        }
    }

    /// The page, in the order and format vLLM's Python client writes it.
    ///
    /// The histograms are filled from the traces with vLLM's bucket bounds: TTFT and end-to-end latency once per
    /// request; per-request TPOT once per request as its mean gap between output tokens (0 for a single token, as
    /// vLLM does); ITL once per gap between output tokens. The model traces a request's first and last token, not
    /// every engine step, so each gap is taken to be the request's mean gap: ITL's count and sum are exact, but its
    /// spread is narrower than a real server's, whose steps vary as prefills join the batch.
    pub fn render(&self) -> String {
        let mut ttft = Filling::new(&TTFT_BUCKETS);
        let mut itl = Filling::new(&TPOT_BUCKETS);
        let mut request_tpot = Filling::new(&TPOT_BUCKETS);
        let mut e2e = Filling::new(&E2E_BUCKETS);
        let (mut prompt_tokens, mut generation_tokens) = (0.0, 0.0);
        for trace in self.traces {
            ttft.observe(trace.first_token - trace.arrival, 1.0);
            e2e.observe(trace.finish - trace.arrival, 1.0);
            let gaps = f64::from(trace.output_tokens.saturating_sub(1));
            let mean_gap = if gaps > 0.0 {
                (trace.finish - trace.first_token) / gaps
            } else {
                0.0
            };
            request_tpot.observe(mean_gap, 1.0);
            itl.observe(mean_gap, gaps);
            prompt_tokens += f64::from(trace.prompt_tokens);
            generation_tokens += f64::from(trace.output_tokens);
        }
        let mut page = Page {
            text: String::new(),
            labels: format!(
                "model_name=\"{}\",engine=\"0\"",
                escape_label_value(self.model_name)
            ),
        };
        if let Some(comment) = &self.comment {
            for line in comment.lines() {
                let _ = writeln!(page.text, "# {line}");
            }
        }
        if let Some(rejected) = &self.rejected {
            self.render_rejections(&mut page.text, rejected);
        }
        page.gauge(
            RUNNING_METRIC,
            "Number of requests in model execution batches.",
            self.running,
        );
        page.gauge(
            WAITING_METRIC,
            "Number of requests waiting to be processed.",
            self.waiting,
        );
        if let Some(usage) = self.kv_cache_usage {
            page.gauge(
                KV_CACHE_METRIC,
                "KV-cache usage. 1 means 100 percent usage.",
                usage,
            );
        }
        page.counter(
            PREEMPTIONS_METRIC,
            "Cumulative number of preemption from the engine.",
            self.preemptions as f64,
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
        page.counter(
            "vllm:request_success_total",
            "Count of successfully processed requests.",
            self.traces.len() as f64,
        );
        page.histogram(
            TTFT_METRIC,
            "Histogram of time to first token in seconds.",
            &ttft,
        );
        if self.show_hidden_metrics {
            // vLLM 0.11 and 0.12 observe the same per-step gaps into both names.
            page.histogram(
                LEGACY_TPOT_METRIC,
                "Histogram of time per output token in seconds.DEPRECATED: Use vllm:inter_token_latency_seconds instead.",
                &itl,
            );
        }
        page.histogram(
            ITL_METRIC,
            "Histogram of inter-token latency in seconds.",
            &itl,
        );
        page.histogram(
            REQUEST_TPOT_METRIC,
            "Histogram of time_per_output_token_seconds per request.",
            &request_tpot,
        );
        page.histogram(
            E2E_METRIC,
            "Histogram of e2e request latency in seconds.",
            &e2e,
        );
        page.text
    }
}

impl SimulatedScrape<'_> {
    /// The API server's answers (first on a vLLM page) and vLLM's rejection counter, which has a `model_name` label
    /// but no `engine` one: refusals happen in the front end, before any engine sees the request.
    fn render_rejections(&self, text: &mut String, rejected: &RejectedByReason) {
        let model = escape_label_value(self.model_name);
        let total = rejected.total();
        let _ = writeln!(
            text,
            "# HELP {HTTP_REQUESTS_METRIC} Total number of requests by method, status and handler.\n\
             # TYPE {HTTP_REQUESTS_METRIC} counter"
        );
        for (status, count) in [("2xx", self.traces.len() as f64), ("5xx", total as f64)] {
            let _ = writeln!(
                text,
                "{HTTP_REQUESTS_METRIC}{{handler=\"/v1/chat/completions\",method=\"POST\",status=\"{status}\"}} {}",
                value_text(count)
            );
        }
        let _ = writeln!(
            text,
            "# HELP {REJECTIONS_METRIC} Number of requests rejected by admission control.\n\
             # TYPE {REJECTIONS_METRIC} counter"
        );
        for reason in RejectionReason::ALL {
            let count = rejected.by(reason);
            let _ = writeln!(
                text,
                "{REJECTIONS_METRIC}{{model_name=\"{model}\",reason=\"{}\"}} {}",
                reason.label(),
                value_text(count as f64)
            );
        }
    }
}

/// Renders a run as the `/metrics` page a vLLM server would serve at the end of it: [`SimulatedScrape::end_of_run`].
pub fn render_vllm_metrics(
    summary: &RunSummary,
    traces: &[RequestTrace],
    model_name: &str,
) -> String {
    SimulatedScrape::end_of_run(summary, traces, model_name).render()
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
