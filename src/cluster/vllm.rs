//! Reading a vLLM `/metrics` page the way the lesson does: find the signals per model and engine, estimate latency
//! percentiles from the histogram buckets, compare them with the SLOs, and say where the server sits against the knee.
//!
//! Current servers (vLLM 0.13 and later) and older ones name some signals differently; each signal is read from the
//! newest name on the page and carries the name it came from ([`Named`]). A page counts since the server started
//! ([`Span::SinceStart`]); [`super::window`] turns two scrapes into the window between them.
//!
//! ```
//! use goodput::cluster::{metrics, vllm};
//! let page = "\
//! vllm:num_requests_running{model_name=\"m\"} 40\n\
//! vllm:num_requests_waiting{model_name=\"m\"} 0\n";
//! let servers = vllm::find_signals(&metrics::parse(page).unwrap());
//! assert_eq!(servers[0].waiting, Some(0.0));
//! ```

use super::admission::{self, PrefixCache, Refusals, ScopedSamples, REJECTIONS_METRIC};
use super::metrics::{Exposition, MetricKind};
use crate::charts::format::{format_ms, format_number, format_percent};
use std::collections::HashMap;

/// TTFT histogram, from the request's arrival at the frontend to its first token.
pub const TTFT_METRIC: &str = "vllm:time_to_first_token_seconds";
/// Per-request TPOT (vLLM 0.11 and later): one observation per finished request, its mean gap between output tokens.
pub const REQUEST_TPOT_METRIC: &str = "vllm:request_time_per_output_token_seconds";
/// The older TPOT histogram: one observation per output token, as ITL is now. Deprecated in 0.11, hidden in 0.12
/// (`--show-hidden-metrics-for-version=0.11` brings it back), removed in 0.13.
pub const LEGACY_TPOT_METRIC: &str = "vllm:time_per_output_token_seconds";
/// Inter-token latency: one observation per request per engine step that gave it tokens.
pub const ITL_METRIC: &str = "vllm:inter_token_latency_seconds";
/// Time each request spent waiting for its first schedule.
pub const QUEUE_METRIC: &str = "vllm:request_queue_time_seconds";
/// End-to-end latency of each finished request.
pub const E2E_METRIC: &str = "vllm:e2e_request_latency_seconds";
/// Live concurrency gauge: requests in the running batch.
pub const RUNNING_METRIC: &str = "vllm:num_requests_running";
/// Queue gauge: requests admitted to the server but waiting for a batch slot.
pub const WAITING_METRIC: &str = "vllm:num_requests_waiting";
/// KV-cache usage gauge, a fraction (1 = full).
pub const KV_CACHE_METRIC: &str = "vllm:kv_cache_usage_perc";
/// The older name of the KV-cache gauge (before vLLM 0.9 renamed it).
pub const LEGACY_KV_CACHE_METRIC: &str = "vllm:gpu_cache_usage_perc";
/// Preemptions counter: running requests evicted because the KV cache was full; each recomputes its prefill later.
pub const PREEMPTIONS_METRIC: &str = "vllm:num_preemptions_total";

/// The latency histograms the reader knows, in the order reports show them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Latency {
    /// Time to first token.
    Ttft,
    /// Time per output token, one figure per request.
    Tpot,
    /// Inter-token latency, one figure per engine step.
    Itl,
    /// Time in the waiting queue.
    Queue,
    /// End-to-end latency.
    E2e,
}

impl Latency {
    /// Every latency, in report order.
    pub const ALL: [Latency; 5] = [Self::Ttft, Self::Tpot, Self::Itl, Self::Queue, Self::E2e];

    /// The metric names that carry it, newest first: a page with several is read from the first it has.
    pub fn metrics(self) -> &'static [&'static str] {
        match self {
            Self::Ttft => &[TTFT_METRIC],
            Self::Tpot => &[REQUEST_TPOT_METRIC, LEGACY_TPOT_METRIC],
            Self::Itl => &[ITL_METRIC],
            Self::Queue => &[QUEUE_METRIC],
            Self::E2e => &[E2E_METRIC],
        }
    }

    /// Short name for tables: `TTFT`, `TPOT`, `ITL`, `queue`, `e2e`.
    pub fn short_name(self) -> &'static str {
        match self {
            Self::Ttft => "TTFT",
            Self::Tpot => "TPOT",
            Self::Itl => "ITL",
            Self::Queue => "queue",
            Self::E2e => "e2e",
        }
    }

    /// What it measures, in words.
    pub fn long_name(self) -> &'static str {
        match self {
            Self::Ttft => "time to first token",
            Self::Tpot => "time per output token, per request",
            Self::Itl => "inter-token latency, per engine step",
            Self::Queue => "time waiting in the queue",
            Self::E2e => "end-to-end latency",
        }
    }

    /// The key in `goodput-sim metrics --json`: `ttft`, `tpot`, `itl`, `queue`, `e2e`.
    pub fn key(self) -> &'static str {
        match self {
            Self::Ttft => "ttft",
            Self::Tpot => "tpot",
            Self::Itl => "itl",
            Self::Queue => "queue",
            Self::E2e => "e2e",
        }
    }

    /// The latency a histogram name carries, and its rank among that latency's names (0 = newest).
    fn of_metric(name: &str) -> Option<(Latency, usize)> {
        Self::ALL.into_iter().find_map(|latency| {
            latency
                .metrics()
                .iter()
                .position(|metric| *metric == name)
                .map(|rank| (latency, rank))
        })
    }
}

/// One sentence on why ITL and TPOT differ, for reports that show both.
pub const ITL_VS_TPOT: &str = "ITL counts every engine step, so a long prefill sharing a step shows up in its tail; \
TPOT is one figure per request (its mean gap between tokens), which is what a per-request TPOT SLO is about.";

/// A signal read off a page, with the metric name it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Named<T> {
    /// The metric name on the page, e.g. [`REQUEST_TPOT_METRIC`].
    pub metric: &'static str,
    /// What it says.
    pub value: T,
}

/// What a label set's histograms and counters cover.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Span {
    /// One scrape: everything since the server started. The gauges are the present; the rest is history.
    #[default]
    SinceStart,
    /// The differences between two scrapes of the same server: what happened in between.
    Window {
        /// Seconds between the scrapes, when known.
        seconds: Option<f64>,
    },
    /// The server restarted between two scrapes, so the later page counts only since the restart.
    Restarted {
        /// What gave the restart away, e.g. "vllm:time_to_first_token_seconds_count fell from 1200 to 35".
        evidence: String,
    },
}

impl Span {
    /// "since the server started", "in the window", "since the restart": how counts on this span are qualified.
    pub fn qualifier(&self) -> &'static str {
        match self {
            Self::SinceStart => "since the server started",
            Self::Window { .. } => "in the window",
            Self::Restarted { .. } => "since the restart",
        }
    }

    /// A line for reports: what the figures cover and how many requests they count.
    pub fn describe(&self, requests: Option<f64>) -> String {
        let count = |requests: Option<f64>| {
            requests.map_or("no request count on the page".to_owned(), requests_text)
        };
        match self {
            Self::SinceStart => format!(
                "since the server started: {} (one scrape shows the history; a later scrape shows the present)",
                count(requests)
            ),
            Self::Window { seconds: Some(s) } => {
                let rate = requests
                    .filter(|_| *s > 0.0)
                    .map(|n| format!(", {} requests/s", format_number(n / s)))
                    .unwrap_or_default();
                format!(
                    "window between the two scrapes: {} in {}{rate}",
                    count(requests),
                    format_ms(*s)
                )
            }
            Self::Window { seconds: None } => format!(
                "window between the two scrapes: {} (length unknown)",
                count(requests)
            ),
            Self::Restarted { evidence } => format!(
                "the server restarted between the scrapes ({evidence}), so these figures count since the restart: {}",
                count(requests)
            ),
        }
    }
}

/// One cumulative bucket: `cumulative` observations were `≤ upper_bound`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    /// The `le` bound (the last bucket's is `+Inf`).
    pub upper_bound: f64,
    /// Observations at or below the bound.
    pub cumulative: f64,
}

/// One histogram series (one label set) with its buckets in rising order.
#[derive(Clone, Debug, PartialEq)]
pub struct HistogramSeries {
    /// Buckets in rising order of bound, ending with `+Inf` (the parser guarantees it).
    pub buckets: Vec<Bucket>,
    /// `_sum`, when the page has it and it is finite.
    pub sum: Option<f64>,
}

/// A percentile estimated from histogram buckets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QuantileEstimate {
    /// An estimate in seconds, interpolated within its bucket.
    Seconds(f64),
    /// The rank falls in the `+Inf` bucket: all we know is that it lies above the last finite bound (seconds).
    AboveLastBound(f64),
    /// The histogram has no observations (none yet, or none in the window).
    NoObservations,
}

impl QuantileEstimate {
    /// The estimate as text: `"412 ms"`, `"above the last finite bound 80 s"` or `"no requests"`.
    pub fn describe(&self) -> String {
        match self {
            Self::Seconds(s) => format_ms(*s),
            Self::AboveLastBound(bound) => {
                format!("above the last finite bound {}", format_ms(*bound))
            }
            Self::NoObservations => "no requests".to_owned(),
        }
    }

    /// A lower bound on the true value usable for SLO comparison (`None` without observations).
    pub fn at_least(&self) -> Option<f64> {
        match self {
            Self::Seconds(s) | Self::AboveLastBound(s) => Some(*s),
            Self::NoObservations => None,
        }
    }
}

impl HistogramSeries {
    /// Total observations (the `+Inf` bucket).
    pub fn count(&self) -> f64 {
        self.buckets.last().map_or(0.0, |b| b.cumulative)
    }

    /// Mean from `_sum ÷ _count`, when both are known and the count is positive.
    pub fn mean(&self) -> Option<f64> {
        let count = self.count();
        self.sum
            .filter(|sum| count > 0.0 && sum.is_finite())
            .map(|sum| sum / count)
    }

    /// Estimates quantile `q` (0 < q < 1) the way Prometheus's `histogram_quantile` does: find the first bucket whose
    /// cumulative count reaches rank `q × count`, then interpolate **linearly within that bucket**, assuming its
    /// observations are spread evenly between the previous bound (0 for the first bucket) and its own bound. So the
    /// answer is an estimate whose error is at most the bucket's width. A rank that lands in the `+Inf` bucket gives
    /// [`QuantileEstimate::AboveLastBound`] rather than a made-up number. `q` outside (0, 1) is clamped.
    pub fn quantile(&self, q: f64) -> QuantileEstimate {
        let count = self.count();
        if count.is_nan() || count <= 0.0 || !count.is_finite() {
            return QuantileEstimate::NoObservations;
        }
        let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
        let rank = q * count;
        let mut lower_bound = 0.0;
        let mut lower_count = 0.0;
        for (index, bucket) in self.buckets.iter().enumerate() {
            if bucket.cumulative >= rank && bucket.cumulative > lower_count {
                if bucket.upper_bound == f64::INFINITY {
                    return QuantileEstimate::AboveLastBound(lower_bound);
                }
                if index == 0 && bucket.upper_bound <= 0.0 {
                    return QuantileEstimate::Seconds(bucket.upper_bound);
                }
                let within = (rank - lower_count) / (bucket.cumulative - lower_count);
                let estimate = lower_bound + (bucket.upper_bound - lower_bound) * within;
                return QuantileEstimate::Seconds(estimate);
            }
            lower_bound = bucket.upper_bound;
            lower_count = bucket.cumulative;
        }
        QuantileEstimate::AboveLastBound(lower_bound)
    }

    /// p50, p95 and p99.
    pub fn percentiles(&self) -> Percentiles {
        Percentiles {
            p50: self.quantile(0.50),
            p95: self.quantile(0.95),
            p99: self.quantile(0.99),
        }
    }
}

/// The three percentiles the lesson reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Percentiles {
    /// Median.
    pub p50: QuantileEstimate,
    /// 95th percentile (the TPOT SLO's).
    pub p95: QuantileEstimate,
    /// 99th percentile (the TTFT SLO's).
    pub p99: QuantileEstimate,
}

/// The signals of one vLLM label set (one model on one engine).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerSignals {
    /// The label set shared by the signals, sorted by name (e.g. `engine="0"`, `model_name="…"`).
    pub labels: Vec<(String, String)>,
    /// What the histograms and the preemptions counter cover: since the start, or a window between two scrapes.
    pub span: Span,
    /// Time to first token ([`TTFT_METRIC`]).
    pub ttft: Option<Named<HistogramSeries>>,
    /// Per-request TPOT ([`REQUEST_TPOT_METRIC`], else the older per-token [`LEGACY_TPOT_METRIC`]).
    pub tpot: Option<Named<HistogramSeries>>,
    /// Inter-token latency ([`ITL_METRIC`]).
    pub itl: Option<Named<HistogramSeries>>,
    /// Queue time ([`QUEUE_METRIC`]).
    pub queue: Option<Named<HistogramSeries>>,
    /// End-to-end latency ([`E2E_METRIC`]).
    pub e2e: Option<Named<HistogramSeries>>,
    /// [`RUNNING_METRIC`] (ignored when not finite).
    pub running: Option<f64>,
    /// [`WAITING_METRIC`] (ignored when not finite).
    pub waiting: Option<f64>,
    /// KV-cache usage, 0–1 ([`KV_CACHE_METRIC`], else [`LEGACY_KV_CACHE_METRIC`]).
    pub kv_cache_usage: Option<Named<f64>>,
    /// Preemptions ([`PREEMPTIONS_METRIC`]) over the span.
    pub preemptions: Option<f64>,
    /// Requests turned away over the span (vLLM's queue caps, or the API server's 5xx answers), when the page counts
    /// them: see [`super::admission`].
    pub refusals: Option<Refusals>,
    /// `vllm:num_requests_waiting_by_reason` by reason, when the page has it.
    pub waiting_by_reason: Vec<(String, f64)>,
    /// The prefix cache's hits and queries over the span, when the page has both counters.
    pub prefix_cache: Option<PrefixCache>,
}

impl ServerSignals {
    /// The `model_name` label, if present.
    pub fn model_name(&self) -> Option<&str> {
        self.labels
            .iter()
            .find(|(name, _)| name == "model_name")
            .map(|(_, value)| value.as_str())
    }

    /// The label set as text, `model_name="m", engine="0"`, for headings.
    pub fn describe_labels(&self) -> String {
        if self.labels.is_empty() {
            return "(no labels)".to_owned();
        }
        self.labels
            .iter()
            .map(|(name, value)| format!("{name}=\"{value}\""))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The histogram of one latency, if the page has it.
    pub fn histogram(&self, latency: Latency) -> Option<&Named<HistogramSeries>> {
        match latency {
            Latency::Ttft => self.ttft.as_ref(),
            Latency::Tpot => self.tpot.as_ref(),
            Latency::Itl => self.itl.as_ref(),
            Latency::Queue => self.queue.as_ref(),
            Latency::E2e => self.e2e.as_ref(),
        }
    }

    /// The histogram slot of one latency, for building a label set.
    pub fn histogram_mut(&mut self, latency: Latency) -> &mut Option<Named<HistogramSeries>> {
        match latency {
            Latency::Ttft => &mut self.ttft,
            Latency::Tpot => &mut self.tpot,
            Latency::Itl => &mut self.itl,
            Latency::Queue => &mut self.queue,
            Latency::E2e => &mut self.e2e,
        }
    }

    /// The requests the span counts: TTFT observations (requests that got their first token), else finished
    /// requests (end-to-end, or per-request TPOT observations). `None` when the page has none of those histograms.
    pub fn requests(&self) -> Option<f64> {
        self.ttft
            .as_ref()
            .or(self.e2e.as_ref())
            .or(self
                .tpot
                .as_ref()
                .filter(|t| t.metric == REQUEST_TPOT_METRIC))
            .map(|h| h.value.count())
    }

    /// Whether any signal was found (a label set with none is not a vLLM server's).
    fn has_any(&self) -> bool {
        Latency::ALL.iter().any(|&l| self.histogram(l).is_some())
            || self.running.is_some()
            || self.waiting.is_some()
            || self.kv_cache_usage.is_some()
            || self.preemptions.is_some()
            || self.refusals.is_some()
    }
}

/// Keeps `candidate` in `slot` unless the slot already holds a newer name (a lower rank in [`Latency::metrics`]).
fn keep_newest<T>(
    slot: &mut Option<Named<T>>,
    candidate: Named<T>,
    rank_of: impl Fn(&str) -> usize,
) {
    if slot
        .as_ref()
        .is_none_or(|held| rank_of(candidate.metric) < rank_of(held.metric))
    {
        *slot = Some(candidate);
    }
}

/// Finds the vLLM signals on a page, one [`ServerSignals`] per label set, in page order.
///
/// Histogram series are keyed by their labels without `le`; gauges and counters by all their labels. Label sets
/// that carry none of the signals do not appear, so an empty result means "this is not a vLLM page". Everything else
/// on a page (`python_*`, `process_*`, `http_*`, `_created` series, other `vllm:` metrics) is left alone.
pub fn find_signals(page: &Exposition) -> Vec<ServerSignals> {
    let mut servers: Vec<ServerSignals> = Vec::new();
    // Label set → index in `servers`: a page can list thousands of label sets, so no linear search.
    let mut index_of: HashMap<Vec<(String, String)>, usize> = HashMap::new();
    fn slot<'a>(
        servers: &'a mut Vec<ServerSignals>,
        index_of: &mut HashMap<Vec<(String, String)>, usize>,
        labels: Vec<(String, String)>,
    ) -> &'a mut ServerSignals {
        let index = *index_of.entry(labels).or_insert_with_key(|labels| {
            servers.push(ServerSignals {
                labels: labels.clone(),
                ..ServerSignals::default()
            });
            servers.len() - 1
        });
        &mut servers[index]
    }
    let kv_rank = |metric: &str| usize::from(metric != KV_CACHE_METRIC);
    let mut scoped = ScopedSamples::default();
    for family in &page.families {
        if family.kind == MetricKind::Histogram {
            let Some((latency, _)) = Latency::of_metric(&family.name) else {
                continue;
            };
            let metric = latency
                .metrics()
                .iter()
                .copied()
                .find(|m| *m == family.name)
                .unwrap_or_default();
            let rank_of = |name: &str| {
                latency
                    .metrics()
                    .iter()
                    .position(|m| *m == name)
                    .unwrap_or(usize::MAX)
            };
            for (labels, histogram) in histogram_series(family) {
                let server = slot(&mut servers, &mut index_of, labels);
                keep_newest(
                    server.histogram_mut(latency),
                    Named {
                        metric,
                        value: histogram,
                    },
                    rank_of,
                );
            }
            continue;
        }
        for sample in &family.samples {
            let Some(value) = Some(sample.value).filter(|v| v.is_finite()) else {
                continue;
            };
            if scoped.take(sample) {
                continue;
            }
            let name = sample.name.as_str();
            let known = [
                RUNNING_METRIC,
                WAITING_METRIC,
                KV_CACHE_METRIC,
                LEGACY_KV_CACHE_METRIC,
                PREEMPTIONS_METRIC,
            ];
            let Some(&metric) = known.iter().find(|m| **m == name) else {
                continue;
            };
            let server = slot(
                &mut servers,
                &mut index_of,
                sorted_labels(&sample.labels, None),
            );
            match metric {
                RUNNING_METRIC => server.running = Some(value),
                WAITING_METRIC => server.waiting = Some(value),
                PREEMPTIONS_METRIC => server.preemptions = Some(value),
                _ => keep_newest(&mut server.kv_cache_usage, Named { metric, value }, kv_rank),
            }
        }
    }
    servers.retain(ServerSignals::has_any);
    scoped.attach(&mut servers);
    admission::settle(&mut servers);
    servers
}

/// The series of one histogram family, keyed by their labels without `le`, in page order.
fn histogram_series(
    family: &super::metrics::Family,
) -> Vec<(Vec<(String, String)>, HistogramSeries)> {
    let bucket_name = format!("{}_bucket", family.name);
    let sum_name = format!("{}_sum", family.name);
    let mut series: Vec<(Vec<(String, String)>, HistogramSeries)> = Vec::new();
    let mut series_index: HashMap<Vec<(String, String)>, usize> = HashMap::new();
    for sample in &family.samples {
        let is_bucket = sample.name == bucket_name;
        if !is_bucket && sample.name != sum_name {
            continue;
        }
        let labels = sorted_labels(&sample.labels, Some("le"));
        let index = *series_index.entry(labels).or_insert_with_key(|labels| {
            series.push((
                labels.clone(),
                HistogramSeries {
                    buckets: Vec::new(),
                    sum: None,
                },
            ));
            series.len() - 1
        });
        let histogram = &mut series[index].1;
        if is_bucket {
            let upper_bound = sample
                .label("le")
                .and_then(|le| le.parse::<f64>().ok())
                .unwrap_or(f64::INFINITY);
            histogram.buckets.push(Bucket {
                upper_bound,
                cumulative: sample.value,
            });
        } else if sample.value.is_finite() {
            histogram.sum = Some(sample.value);
        }
    }
    series.retain(|(_, histogram)| !histogram.buckets.is_empty());
    series
}

fn sorted_labels(labels: &[(String, String)], without: Option<&str>) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> = labels
        .iter()
        .filter(|(name, _)| Some(name.as_str()) != without)
        .cloned()
        .collect();
    kept.sort();
    kept
}

/// A count as text: whole numbers without decimals (`20000`), others as [`format_number`] writes them.
pub fn format_count(count: f64) -> String {
    if count.is_finite() && count.fract() == 0.0 && count.abs() < 1e15 {
        format!("{count:.0}")
    } else {
        format_number(count)
    }
}

/// `1 request`, `3 requests`, `2.5 requests`.
fn plural(count: f64, noun: &str) -> String {
    let s = if count == 1.0 { "" } else { "s" };
    format!("{} {noun}{s}", format_count(count))
}

fn requests_text(count: f64) -> String {
    plural(count, "request")
}

/// The two latency SLOs the lesson uses: p99 TTFT and p95 TPOT, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SloTargets {
    /// p99 time to first token must stay at or below this (seconds).
    pub ttft_p99: f64,
    /// p95 time per output token must stay at or below this (seconds).
    pub tpot_p95: f64,
}

impl SloTargets {
    /// The course's SLOs: p99 TTFT ≤ 500 ms, p95 TPOT ≤ 40 ms.
    pub const COURSE: SloTargets = SloTargets {
        ttft_p99: 0.5,
        tpot_p95: 0.04,
    };
}

/// Where the server sits against the knee of the latency curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KneeVerdict {
    /// No queue (at most [`WAITING_NOISE`] waiting), both SLOs met with room to spare, and room in the KV cache.
    BelowTheKnee,
    /// A small queue (more than [`WAITING_NOISE`]), an SLO within [`NEAR_SLO_FRACTION`] of its limit, a KV cache at
    /// least [`KV_FULL_FRACTION`] full, or preemptions in the window: more load will make the tail explode.
    AtTheKnee,
    /// A queue large relative to the running batch, an SLO broken, or a full KV cache that preempted in the window.
    PastTheKnee,
    /// The page lacks the signals to judge (no waiting gauge, no KV gauge and no histogram with observations).
    NotEnoughData,
}

impl KneeVerdict {
    /// The verdict in the lesson's words.
    pub fn describe(&self) -> &'static str {
        match self {
            Self::BelowTheKnee => "below the knee",
            Self::AtTheKnee => "at the knee",
            Self::PastTheKnee => "past the knee",
            Self::NotEnoughData => "not enough data for a verdict",
        }
    }

    /// The verdict as `goodput-sim metrics --json` writes it: `below_the_knee`, `at_the_knee`, `past_the_knee`,
    /// `not_enough_data`.
    pub fn key(&self) -> &'static str {
        match self {
            Self::BelowTheKnee => "below_the_knee",
            Self::AtTheKnee => "at_the_knee",
            Self::PastTheKnee => "past_the_knee",
            Self::NotEnoughData => "not_enough_data",
        }
    }
}

/// An SLO estimate above this fraction of its limit counts as "near the limit": at the knee.
pub const NEAR_SLO_FRACTION: f64 = 0.8;
/// A waiting count up to this is "≈ 0": a request caught between its arrival and the next scheduler step, which a
/// scrape sees now and then even at light load.
pub const WAITING_NOISE: f64 = 1.0;
/// A waiting queue larger than this fraction of the running batch counts as "large": past the knee.
pub const LARGE_QUEUE_FRACTION: f64 = 0.25;
/// KV-cache usage from which the cache counts as full: the next long prompt or a few more decode steps have no
/// blocks, and vLLM preempts the most recently scheduled request.
pub const KV_FULL_FRACTION: f64 = 0.9;

/// The verdict for one label set, with the reasons behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    /// Below, at or past the knee.
    pub verdict: KneeVerdict,
    /// One sentence per finding, in the order they were checked, e.g. "p99 TTFT ≈ 1.2 s breaks the 500 ms SLO".
    pub reasons: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Severity {
    Fine,
    Near,
    Broken,
}

/// Collects findings: the worst severity so far, whether anything could be judged, and the reasons.
#[derive(Default)]
struct Findings {
    worst: Option<Severity>,
    reasons: Vec<String>,
}

impl Findings {
    fn judged(&mut self, severity: Severity, reason: String) {
        self.worst = self.worst.max(Some(severity));
        self.reasons.push(reason);
    }

    fn noted(&mut self, reason: String) {
        self.reasons.push(reason);
    }
}

/// Judges one label set against the SLOs. The rule, checked in this order:
/// - **refusals**: past the knee if the server turned requests away over the span (vLLM's queue caps, counted by
///   `vllm:admission_rejections_total`, or 5xx answers in `http_requests_total`), whatever its queue and latencies:
///   a capped queue holds `num_requests_waiting` at the cap and keeps the admitted requests' latencies bounded, so
///   neither shows the overload. On one scrape this means "at some time since the start";
/// - **the queue**: past the knee if `waiting > LARGE_QUEUE_FRACTION × running` (or requests wait while nothing
///   runs); at the knee if more than [`WAITING_NOISE`] requests wait;
/// - **the SLOs**: past the knee if p99 TTFT or p95 TPOT is above its limit (a percentile above the histogram's last
///   finite bound counts as above when that bound is at or over the limit), at the knee above [`NEAR_SLO_FRACTION`]
///   of it. Without a per-request TPOT histogram, the TPOT SLO is judged on p95 ITL, a per-step stand-in (and says so);
/// - **the KV cache**: past the knee if it is at least [`KV_FULL_FRACTION`] full and preempted requests in the
///   window (a memory knee of its own, even with a short queue); at the knee if it is that full, or preempted in the
///   window while less full now;
/// - below the knee when everything judged is fine; **not enough data** when nothing could be judged.
///
/// The gauges are snapshots. Histograms and the preemptions counter cover the label set's [`Span`]: on one scrape
/// that is the server's whole history, so preemptions since the start are reported but not judged.
pub fn assess(server: &ServerSignals, slo: &SloTargets) -> Assessment {
    let mut findings = Findings::default();
    let refused = judge_refusals(server, &mut findings);
    judge_queue(server, &mut findings);
    note_queue(server, refused, &mut findings);
    match &server.ttft {
        Some(ttft) => judge_latency(
            "p99 TTFT",
            &ttft.value,
            0.99,
            slo.ttft_p99,
            None,
            &mut findings,
        ),
        None => findings.noted(format!("no {TTFT_METRIC} histogram on the page")),
    }
    match (&server.tpot, &server.itl) {
        (Some(tpot), _) => {
            let note = (tpot.metric == LEGACY_TPOT_METRIC).then_some(
                "from the older vllm:time_per_output_token_seconds, which counts every token as ITL does now",
            );
            judge_latency("p95 TPOT", &tpot.value, 0.95, slo.tpot_p95, note, &mut findings);
        }
        (None, Some(itl)) => judge_latency(
            "p95 ITL",
            &itl.value,
            0.95,
            slo.tpot_p95,
            Some("no per-request TPOT histogram on the page, so the TPOT SLO is judged on ITL, a per-step figure standing in for the per-request one"),
            &mut findings,
        ),
        (None, None) => findings.noted(format!(
            "no TPOT histogram on the page ({REQUEST_TPOT_METRIC}, or the older {LEGACY_TPOT_METRIC})"
        )),
    }
    judge_memory(server, &mut findings);
    note_prefix_cache(server, &mut findings);
    let verdict = match findings.worst {
        None => KneeVerdict::NotEnoughData,
        Some(Severity::Fine) => KneeVerdict::BelowTheKnee,
        Some(Severity::Near) => KneeVerdict::AtTheKnee,
        Some(Severity::Broken) => KneeVerdict::PastTheKnee,
    };
    Assessment {
        verdict,
        reasons: findings.reasons,
    }
}

/// Judges what the server turned away; returns whether it turned any away.
fn judge_refusals(server: &ServerSignals, findings: &mut Findings) -> bool {
    let Some(refusals) = &server.refusals else {
        return false;
    };
    let span = server.span.qualifier();
    if refusals.refused <= 0.0 {
        findings.noted(format!(
            "no requests turned away {span} ({})",
            refusals.metric
        ));
        return false;
    }
    let how_many = match (refusals.arrivals(), refusals.share_of_arrivals()) {
        (Some(arrivals), Some(share)) => format!(
            "{} of {} arriving requests ({})",
            format_count(refusals.refused),
            format_count(arrivals),
            format_percent(share)
        ),
        _ => requests_text(refusals.refused),
    };
    let source = if refusals.metric == REJECTIONS_METRIC {
        let fired: Vec<_> = refusals
            .by_reason
            .iter()
            .filter(|(_, count)| *count > 0.0)
            .cloned()
            .collect();
        format!("{REJECTIONS_METRIC}: {}", admission::reason_counts(&fired))
    } else {
        "5xx answers in http_requests_total: vLLM answers 503 to a request over --max-num-queued-reqs or \
         --max-num-queued-tokens, and any 5xx is a request not served"
            .to_owned()
    };
    let shared = if refusals.label_sets > 1 {
        format!(
            "; the counter covers {} label sets, so the share is of their arrivals together",
            refusals.label_sets
        )
    } else {
        String::new()
    };
    let when = match server.span {
        Span::SinceStart => {
            ": past the knee at least at times (a later scrape shows whether it still is)"
        }
        _ => ": past the knee — it sheds the load it cannot serve instead of queueing it",
    };
    let verb = if refusals.metric == REJECTIONS_METRIC {
        "turned away"
    } else {
        "refused or failed"
    };
    findings.judged(
        Severity::Broken,
        format!("{verb} {how_many} {span} ({source}{shared}){when}"),
    );
    true
}

/// What the waiting gauge means beside refusals, and why requests wait, when the page says.
fn note_queue(server: &ServerSignals, refused: bool, findings: &mut Findings) {
    if refused {
        if let Some(waiting) = server.waiting {
            findings.noted(format!(
                "with requests turned away, the queue is held at its cap: num_requests_waiting ({}) no longer \
                 measures the overload and is not the signal to autoscale on; the rejections and p99 TTFT are (and \
                 running + waiting understates the demand)",
                format_count(waiting)
            ));
        }
    }
    if !server.waiting_by_reason.is_empty() && server.waiting.is_some_and(|w| w > WAITING_NOISE) {
        findings.noted(format!(
            "waiting by reason ({}): {}",
            admission::WAITING_BY_REASON_METRIC,
            admission::reason_counts(&server.waiting_by_reason)
        ));
    }
}

/// The prefix cache's hit rate where it explains something: beside preemptions, whose recompute it can spare.
fn note_prefix_cache(server: &ServerSignals, findings: &mut Findings) {
    let Some(rate) = server.prefix_cache.and_then(|p| p.hit_rate()) else {
        return;
    };
    if server.preemptions.is_some_and(|p| p > 0.0) {
        findings.noted(format!(
            "prefix cache hit rate {} {}: a preempted request recomputes only the part of its prompt the cache no \
             longer holds",
            format_percent(rate),
            server.span.qualifier()
        ));
    }
}

fn judge_queue(server: &ServerSignals, findings: &mut Findings) {
    let Some(waiting) = server.waiting else {
        findings.noted(format!("no {WAITING_METRIC} gauge on the page"));
        return;
    };
    let running = server.running.unwrap_or(0.0);
    let (waiting_text, running_text) = (requests_text(waiting), format_count(running));
    if waiting <= WAITING_NOISE {
        findings.judged(
            Severity::Fine,
            format!("{waiting_text} waiting ({running_text} running): no queue"),
        );
    } else if running <= 0.0 || waiting > LARGE_QUEUE_FRACTION * running {
        findings.judged(
            Severity::Broken,
            format!("{waiting_text} waiting against {running_text} running: the queue is large, so it is growing"),
        );
    } else {
        findings.judged(
            Severity::Near,
            format!(
                "{waiting_text} waiting against {running_text} running: a small queue has formed"
            ),
        );
    }
}

/// Judges quantile `q` of `histogram` against `limit`; `note` says where the figure comes from when that matters.
fn judge_latency(
    name: &str,
    histogram: &HistogramSeries,
    q: f64,
    limit: f64,
    note: Option<&str>,
    findings: &mut Findings,
) {
    let estimate = histogram.quantile(q);
    let note = note.map(|n| format!(" ({n})")).unwrap_or_default();
    match judge_slo(estimate, limit) {
        None => findings.noted(format!("{name}: no requests{note}")),
        Some((severity, verb)) => findings.judged(
            severity,
            format!(
                "{name} ≈ {} {verb} the {} SLO{note}",
                estimate.describe(),
                format_ms(limit)
            ),
        ),
    }
}

fn judge_memory(server: &ServerSignals, findings: &mut Findings) {
    let kv = server.kv_cache_usage.as_ref().map(|k| k.value);
    let full = kv.is_some_and(|usage| usage >= KV_FULL_FRACTION);
    let usage = |usage: f64| format!("KV cache {} full", format_percent(usage));
    let windowed = matches!(server.span, Span::Window { .. });
    match (server.preemptions, windowed) {
        (Some(preempted), true) if preempted > 0.0 => {
            let count = plural(preempted, "preemption");
            if full {
                findings.judged(
                    Severity::Broken,
                    format!(
                        "{} and {count} in the window: past the memory knee, even with a short queue (a preempted request goes back to the queue and recomputes its prefill)",
                        usage(kv.unwrap_or(1.0))
                    ),
                );
            } else {
                let now = kv
                    .map(|k| format!(" ({} now)", usage(k)))
                    .unwrap_or_default();
                findings.judged(
                    Severity::Near,
                    format!("{count} in the window: the KV cache ran full at times{now}"),
                );
            }
            return;
        }
        (Some(_), true) => findings.noted("no preemptions in the window".to_owned()),
        (Some(preempted), false) if preempted > 0.0 => findings.noted(format!(
            "{} {} (one count cannot say when; compare two scrapes)",
            plural(preempted, "preemption"),
            server.span.qualifier()
        )),
        (Some(_), false) => findings.noted(format!("no preemptions {}", server.span.qualifier())),
        (None, _) => {}
    }
    match kv {
        Some(usage_now) if full => findings.judged(
            Severity::Near,
            format!(
                "{}: a little more load and vLLM starts preempting requests",
                usage(usage_now)
            ),
        ),
        Some(usage_now) => findings.judged(
            Severity::Fine,
            format!("{}: room for more sequences", usage(usage_now)),
        ),
        None => {}
    }
}

/// How a percentile estimate compares with its SLO limit (`None` without observations).
fn judge_slo(estimate: QuantileEstimate, limit: f64) -> Option<(Severity, &'static str)> {
    let at_least = estimate.at_least()?;
    let above_bound = matches!(estimate, QuantileEstimate::AboveLastBound(_));
    Some(if at_least > limit || (above_bound && at_least >= limit) {
        (Severity::Broken, "breaks")
    } else if above_bound || at_least > NEAR_SLO_FRACTION * limit {
        (Severity::Near, "is near")
    } else {
        (Severity::Fine, "meets")
    })
}
