//! Reading a vLLM `/metrics` page the way the lesson does: find the four signals per model, estimate latency
//! percentiles from the histogram buckets, compare them with the SLOs, and say where the server sits against the knee.
//!
//! ```
//! use goodput::cluster::{metrics, vllm};
//! let page = "\
//! vllm:num_requests_running{model_name=\"m\"} 40\n\
//! vllm:num_requests_waiting{model_name=\"m\"} 0\n";
//! let servers = vllm::find_signals(&metrics::parse(page).unwrap());
//! assert_eq!(servers[0].waiting, Some(0.0));
//! ```

use super::metrics::{Exposition, MetricKind};
use crate::charts::format::{format_ms, format_number};
use std::collections::HashMap;

/// TTFT histogram name.
pub const TTFT_METRIC: &str = "vllm:time_to_first_token_seconds";
/// TPOT (inter-token latency) histogram name.
pub const TPOT_METRIC: &str = "vllm:time_per_output_token_seconds";
/// Live concurrency gauge: requests in the running batch.
pub const RUNNING_METRIC: &str = "vllm:num_requests_running";
/// Queue gauge: requests admitted to the server but waiting for a batch slot.
pub const WAITING_METRIC: &str = "vllm:num_requests_waiting";

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
    /// The histogram has no observations yet.
    NoObservations,
}

impl QuantileEstimate {
    /// The estimate as text: `"412 ms"`, `"above 80 s"` or `"no requests yet"`.
    pub fn describe(&self) -> String {
        match self {
            Self::Seconds(s) => format_ms(*s),
            Self::AboveLastBound(bound) => {
                format!("above the last finite bound {}", format_ms(*bound))
            }
            Self::NoObservations => "no requests yet".to_owned(),
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

/// The four signals of one vLLM label set (one model on one engine).
#[derive(Clone, Debug, PartialEq)]
pub struct ServerSignals {
    /// The label set shared by the signals, sorted by name (e.g. `engine="0"`, `model_name="…"`).
    pub labels: Vec<(String, String)>,
    /// `vllm:time_to_first_token_seconds`.
    pub ttft: Option<HistogramSeries>,
    /// `vllm:time_per_output_token_seconds`.
    pub tpot: Option<HistogramSeries>,
    /// `vllm:num_requests_running` (ignored when not finite).
    pub running: Option<f64>,
    /// `vllm:num_requests_waiting` (ignored when not finite).
    pub waiting: Option<f64>,
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
}

/// Finds the vLLM signals on a page, one [`ServerSignals`] per label set, in page order.
///
/// Histogram series are keyed by their labels without `le`; gauges by all their labels. Label sets that carry none
/// of the four signals do not appear, so an empty result means "this is not a vLLM page".
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
                ttft: None,
                tpot: None,
                running: None,
                waiting: None,
            });
            servers.len() - 1
        });
        &mut servers[index]
    }
    for family in &page.families {
        let gauge = match family.name.as_str() {
            RUNNING_METRIC => Some(true),
            WAITING_METRIC => Some(false),
            _ => None,
        };
        if let Some(is_running) = gauge {
            for sample in family.samples.iter().filter(|s| s.name == family.name) {
                let value = Some(sample.value).filter(|v| v.is_finite());
                let server = slot(
                    &mut servers,
                    &mut index_of,
                    sorted_labels(&sample.labels, None),
                );
                if is_running {
                    server.running = value;
                } else {
                    server.waiting = value;
                }
            }
            continue;
        }
        let is_ttft = family.name == TTFT_METRIC;
        if (!is_ttft && family.name != TPOT_METRIC) || family.kind != MetricKind::Histogram {
            continue;
        }
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
        for (labels, histogram) in series {
            if histogram.buckets.is_empty() {
                continue;
            }
            let server = slot(&mut servers, &mut index_of, labels);
            if is_ttft {
                server.ttft = Some(histogram);
            } else {
                server.tpot = Some(histogram);
            }
        }
    }
    servers
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
    /// No queue (at most [`WAITING_NOISE`] waiting) and both SLOs met with room to spare.
    BelowTheKnee,
    /// A small queue (more than [`WAITING_NOISE`]), or an SLO within [`NEAR_SLO_FRACTION`] of its limit: more load will make the tail explode.
    AtTheKnee,
    /// A queue large relative to the running batch, or an SLO broken: the queue is growing.
    PastTheKnee,
    /// The page lacks the signals to judge (no waiting gauge and no histogram with observations).
    NotEnoughData,
}

impl KneeVerdict {
    /// The verdict in the lesson's words.
    pub fn describe(&self) -> &'static str {
        match self {
            Self::BelowTheKnee => "below the knee",
            Self::AtTheKnee => "at the knee",
            Self::PastTheKnee => "past the knee (queue growing)",
            Self::NotEnoughData => "not enough data for a verdict",
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

/// The verdict for one label set, with the figures and reasons behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    /// Below, at or past the knee.
    pub verdict: KneeVerdict,
    /// TTFT percentiles, if the page has the histogram.
    pub ttft: Option<Percentiles>,
    /// TPOT percentiles, if the page has the histogram.
    pub tpot: Option<Percentiles>,
    /// One sentence per finding, in the order they were checked, e.g. "p99 TTFT ≈ 1.2 s breaks the 500 ms SLO".
    pub reasons: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Severity {
    Fine,
    Near,
    Broken,
}

/// Judges one label set against the SLOs. The rule, checked in this order:
/// - **past the knee** if `waiting > LARGE_QUEUE_FRACTION × running` (or requests wait while nothing runs), or an
///   SLO percentile is above its limit (a percentile above the histogram's last finite bound counts as above when
///   that bound is at or over the limit);
/// - **at the knee** if more than [`WAITING_NOISE`] requests wait, or an SLO percentile is above `NEAR_SLO_FRACTION` of its limit;
/// - **below the knee** otherwise — no queue and both SLOs met with room to spare;
/// - **not enough data** when the page has no waiting gauge and no histogram with observations.
///
/// The waiting gauge is a snapshot; percentiles come from histograms that count since the server started, so a page
/// scraped once shows the server's history, not only its present (compare two scrapes for the present).
pub fn assess(server: &ServerSignals, slo: &SloTargets) -> Assessment {
    let mut reasons = Vec::new();
    let mut worst = Severity::Fine;
    let mut judged = false;
    if let Some(waiting) = server.waiting {
        judged = true;
        let running = server.running.unwrap_or(0.0);
        let severity = if waiting <= WAITING_NOISE {
            reasons.push(format!(
                "{} requests waiting ({} running): no queue",
                format_number(waiting),
                format_number(running)
            ));
            Severity::Fine
        } else if running <= 0.0 || waiting > LARGE_QUEUE_FRACTION * running {
            reasons.push(format!(
                "{} requests waiting against {} running: the queue is large, so it is growing",
                format_number(waiting),
                format_number(running)
            ));
            Severity::Broken
        } else {
            reasons.push(format!(
                "{} requests waiting against {} running: a small queue has formed",
                format_number(waiting),
                format_number(running)
            ));
            Severity::Near
        };
        worst = worst.max(severity);
    } else {
        reasons.push("no vllm:num_requests_waiting gauge on the page".to_owned());
    }
    let ttft = server.ttft.as_ref().map(HistogramSeries::percentiles);
    let tpot = server.tpot.as_ref().map(HistogramSeries::percentiles);
    let checks = [
        ("p99 TTFT", ttft.map(|p| p.p99), slo.ttft_p99, TTFT_METRIC),
        ("p95 TPOT", tpot.map(|p| p.p95), slo.tpot_p95, TPOT_METRIC),
    ];
    for (name, estimate, limit, metric) in checks {
        match estimate {
            None => reasons.push(format!("no {metric} histogram on the page")),
            Some(estimate) => match judge_slo(estimate, limit) {
                None => reasons.push(format!("{name}: no requests yet")),
                Some((severity, verb)) => {
                    judged = true;
                    worst = worst.max(severity);
                    reasons.push(format!(
                        "{name} ≈ {} {verb} the {} SLO",
                        estimate.describe(),
                        format_ms(limit)
                    ));
                }
            },
        }
    }
    let verdict = if !judged {
        KneeVerdict::NotEnoughData
    } else {
        match worst {
            Severity::Fine => KneeVerdict::BelowTheKnee,
            Severity::Near => KneeVerdict::AtTheKnee,
            Severity::Broken => KneeVerdict::PastTheKnee,
        }
    };
    Assessment {
        verdict,
        ttft,
        tpot,
        reasons,
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
