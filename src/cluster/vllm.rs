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

use super::admission::{self, PrefixCache, Refusals, ScopedSamples};
use super::metrics::{Exposition, MetricKind};
pub use crate::charts::format::format_count;
use crate::charts::format::{format_latency, format_number};
use std::collections::HashMap;

mod histogram;
mod verdict;

pub use histogram::{Bucket, HistogramSeries, Percentiles, QuantileEstimate};
pub use verdict::{
    assess, Assessment, KneeVerdict, SloTargets, KV_FULL_FRACTION, LARGE_QUEUE_FRACTION,
    NEAR_SLO_FRACTION, WAITING_NOISE,
};

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
                    format_latency(*s)
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
            .map(|(name, value)| format!("{name}=\"{}\"", crate::printable::one_line(value)))
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
    attach(&scoped, &mut servers);
    settle(&mut servers);
    servers
}

/// Attaches the page's scoped counters to the label sets they cover; a rejection counter that covers none of them is
/// a label set of its own.
fn attach(scoped: &ScopedSamples, servers: &mut Vec<ServerSignals>) {
    let own = scoped.uncovered(servers.iter().map(|s| &s.labels));
    servers.extend(own.into_iter().map(|labels| ServerSignals {
        labels,
        ..ServerSignals::default()
    }));
    for server in servers.iter_mut() {
        let admission = scoped.for_labels(&server.labels);
        server.refusals = admission.refusals;
        server.waiting_by_reason = admission.waiting_by_reason;
        server.prefix_cache = admission.prefix_cache;
    }
}

/// Counts, for each label set's refusals, the label sets its counter covers and the requests they admitted (see
/// [`admission::settle`]). Run on a page's label sets, and again on a window's.
pub(super) fn settle(servers: &mut [ServerSignals]) {
    admission::settle(
        servers
            .iter_mut()
            .map(|s| {
                let requests = s.requests();
                (&s.labels, requests, &mut s.refusals)
            })
            .collect(),
    );
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
    kept.sort_unstable();
    kept
}

/// `1 request`, `3 requests`, `2.5 requests`.
fn plural(count: f64, noun: &str) -> String {
    let s = if count == 1.0 { "" } else { "s" };
    format!("{} {noun}{s}", format_count(count))
}

fn requests_text(count: f64) -> String {
    plural(count, "request")
}
