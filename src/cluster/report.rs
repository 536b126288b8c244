//! `goodput-sim metrics PAGE [LATER_PAGE]`: the signals of one scrape (since the server started) or of the window
//! between two, per label set, with the knee verdict, as text for a person or JSON for a script. The command line
//! only parses its flags and prints what [`run`] returns.
//!
//! ```
//! use goodput::cluster::report::{render, Options, Source};
//! let page = Source::text("page.prom", "vllm:num_requests_running 3\nvllm:num_requests_waiting 0\n");
//! let options = Options::new(500.0, 40.0, None, true).unwrap();
//! let json: serde_json::Value = serde_json::from_str(&render(&page, None, &options).unwrap()).unwrap();
//! assert_eq!(json["label_sets"][0]["waiting"], 0.0);
//! assert_eq!(json["label_sets"][0]["ttft"]["p99"], serde_json::Value::Null);
//! ```

use super::admission::reason_counts;
use super::metrics::MAX_INPUT_BYTES;
use super::reading::{read, Reading, Scrape};
use super::vllm::{
    format_count, Assessment, Latency, QuantileEstimate, ServerSignals, SloTargets, Span,
    ITL_VS_TPOT,
};
use super::window::seconds_between_timestamps;
use crate::charts::format::{format_latency, format_percent};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Read;

/// A page to read: its name for messages and its text. (Not when it was written: a file's modification time says
/// when it was copied, not when the server was scraped, so a window's length never comes from it.)
#[derive(Clone, Debug)]
pub struct Source {
    /// The path, or "standard input".
    pub name: String,
    /// The page.
    pub text: String,
}

impl Source {
    /// A page already in memory.
    pub fn text(name: &str, text: &str) -> Self {
        Self {
            name: name.to_owned(),
            text: text.to_owned(),
        }
    }

    /// Reads `path` (or standard input for `-`), refusing more than [`MAX_INPUT_BYTES`] and text that is not UTF-8.
    pub fn read(path: &str) -> Result<Self, String> {
        let limit = MAX_INPUT_BYTES as u64 + 1;
        let mut bytes = Vec::new();
        let stdin = path == "-";
        let name = if stdin { "standard input" } else { path }.to_owned();
        let cannot = |e: std::io::Error| format!("cannot read {name}: {e}");
        if stdin {
            std::io::stdin()
                .take(limit)
                .read_to_end(&mut bytes)
                .map_err(cannot)?;
        } else {
            let file = std::fs::File::open(path).map_err(cannot)?;
            file.take(limit).read_to_end(&mut bytes).map_err(cannot)?;
        }
        if bytes.len() > MAX_INPUT_BYTES {
            return Err(format!(
                "{name} is larger than the {} MB limit (a vLLM /metrics page is usually under 100 kB)",
                MAX_INPUT_BYTES / (1024 * 1024)
            ));
        }
        let text = String::from_utf8(bytes).map_err(|_| format!("{name} is not UTF-8 text"))?;
        Ok(Self { name, text })
    }
}

/// How to judge and print.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// The SLOs the verdict uses.
    pub slo: SloTargets,
    /// Seconds between the two scrapes, when the caller knows (the probe measures it).
    pub seconds: Option<f64>,
    /// JSON instead of text.
    pub json: bool,
}

impl Options {
    /// Checks the flags: SLOs in positive milliseconds, a positive number of seconds.
    pub fn new(
        slo_ttft_ms: f64,
        slo_tpot_ms: f64,
        seconds: Option<f64>,
        json: bool,
    ) -> Result<Self, String> {
        for (flag, value) in [
            ("--slo-ttft-ms", slo_ttft_ms),
            ("--slo-tpot-ms", slo_tpot_ms),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!(
                    "{flag} must be a positive number of milliseconds, the latency an answer may take \
                     (got {value})"
                ));
            }
        }
        if seconds.is_some_and(|s| !(s.is_finite() && s > 0.0)) {
            return Err(format!(
                "--seconds must be a positive number of seconds, the time between the two scrapes (got {})",
                seconds.unwrap_or_default()
            ));
        }
        Ok(Self {
            slo: SloTargets {
                ttft_p99: slo_ttft_ms / 1e3,
                tpot_p95: slo_tpot_ms / 1e3,
            },
            seconds,
            json,
        })
    }
}

/// Reads the pages at `page` and `later` (paths, or `-` for standard input) and renders the report.
pub fn run(page: &str, later: Option<&str>, options: &Options) -> Result<String, String> {
    if page == "-" && later == Some("-") {
        return Err("only one of the two pages can come from standard input".to_owned());
    }
    let first = Source::read(page)?;
    let second = later.map(Source::read).transpose()?;
    render(&first, second.as_ref(), options)
}

/// Where the window's length came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum LengthFrom {
    /// `--seconds`.
    Flag,
    /// The samples' timestamps.
    Timestamps,
    /// Nowhere: unknown.
    Unknown,
}

impl LengthFrom {
    fn describe(self, seconds: Option<f64>) -> String {
        let apart = seconds
            .map(|s| format!(", {} apart", format_latency(s)))
            .unwrap_or_default();
        match self {
            Self::Flag => format!("{apart} (--seconds)"),
            Self::Timestamps => format!("{apart} (from the samples' timestamps)"),
            Self::Unknown => " (their distance in time is unknown; --seconds sets it)".to_owned(),
        }
    }
}

/// A report, ready to print as text or JSON.
struct Report {
    names: Vec<String>,
    window: Option<(LengthFrom, Option<f64>)>,
    reading: Reading,
    slo: SloTargets,
}

/// Reads `page` alone (since the server started), or the window from `page` to `later`, and renders it as the
/// options say. Fails with one line naming the page when a page does not parse or has no vLLM metrics.
pub fn render(page: &Source, later: Option<&Source>, options: &Options) -> Result<String, String> {
    let first = read_page(page)?;
    let report = match later {
        None => Report {
            names: vec![page.name.clone()],
            window: None,
            reading: read(&first, None, None, &options.slo),
            slo: options.slo,
        },
        Some(later_source) => {
            let second = read_page(later_source)?;
            let (from, seconds) = match (
                options.seconds,
                seconds_between_timestamps(first.page(), second.page()),
            ) {
                (Some(s), _) => (LengthFrom::Flag, Some(s)),
                (None, Some(s)) => (LengthFrom::Timestamps, Some(s)),
                (None, None) => (LengthFrom::Unknown, None),
            };
            Report {
                names: vec![page.name.clone(), later_source.name.clone()],
                window: Some((from, seconds)),
                reading: read(&first, Some(&second), seconds, &options.slo),
                slo: options.slo,
            }
        }
    };
    Ok(if options.json {
        report.json()
    } else {
        report.text()
    })
}

fn read_page(source: &Source) -> Result<Scrape, String> {
    Scrape::read(&source.text).map_err(|problem| problem.about(&source.name))
}

impl Report {
    fn text(&self) -> String {
        let mut out = String::new();
        if let Some((from, seconds)) = self.window {
            out.push_str(&format!(
                "Window from {} to {}{}\n",
                self.names[0],
                self.names[1],
                from.describe(seconds)
            ));
        }
        for reading in &self.reading.servers {
            let (server, assessment) = (&reading.signals, &reading.assessment);
            out.push_str(&server.describe_labels());
            out.push('\n');
            out.push_str(&format!("  {}\n", server.span.describe(server.requests())));
            for latency in Latency::ALL {
                out.push_str(&latency_line(server, latency));
            }
            let gauge = |value: Option<f64>| value.map_or("—".to_owned(), format_count);
            let kv = server
                .kv_cache_usage
                .as_ref()
                .map_or("not on the page".to_owned(), |kv| {
                    if kv.metric == super::vllm::KV_CACHE_METRIC {
                        format_percent(kv.value)
                    } else {
                        format!("{} ({})", format_percent(kv.value), kv.metric)
                    }
                });
            let preemptions = server
                .preemptions
                .map_or("not on the page".to_owned(), |p| {
                    format!("{} {}", format_count(p), server.span.qualifier())
                });
            let by_reason = if server.waiting_by_reason.is_empty() {
                String::new()
            } else {
                format!(" ({})", reason_counts(&server.waiting_by_reason))
            };
            let prefix = server
                .prefix_cache
                .and_then(|p| p.hit_rate())
                .map(|rate| format!("   prefix-cache hits {}", format_percent(rate)))
                .unwrap_or_default();
            out.push_str(&format!(
                "  running {}   waiting {}{by_reason}   KV cache {kv}   preemptions {preemptions}{prefix}\n",
                gauge(server.running),
                gauge(server.waiting)
            ));
            if let Some(refused) = refusals_text(server) {
                out.push_str(&format!("  turned away {refused}\n"));
            }
            out.push_str(&format!(
                "  verdict: {} — SLOs p99 TTFT ≤ {}, p95 TPOT ≤ {}\n",
                assessment.verdict.describe(),
                format_latency(self.slo.ttft_p99),
                format_latency(self.slo.tpot_p95)
            ));
            for reason in &assessment.reasons {
                out.push_str(&format!("    - {reason}\n"));
            }
        }
        for labels in self.reading.gone_labels() {
            out.push_str(&format!(
                "{labels}: only on the earlier page (it no longer reports)\n"
            ));
        }
        out.push_str("Percentiles are estimates from the histogram buckets: linear interpolation within the bucket that holds the rank, as Prometheus's histogram_quantile does.\n");
        if self.reading.servers.iter().any(|s| s.signals.itl.is_some()) {
            out.push_str(ITL_VS_TPOT);
            out.push('\n');
        }
        if self.window.is_none() {
            out.push_str("One scrape counts since the server started; for the present, give a later scrape too: goodput-sim metrics EARLIER LATER.\n");
        }
        out
    }

    fn json(&self) -> String {
        let report = JsonReport {
            pages: self.names.clone(),
            window_seconds: self.window.and_then(|(_, s)| s),
            window_seconds_from: self.window.map(|(from, _)| from),
            slo: JsonSlo {
                ttft_p99: self.slo.ttft_p99,
                tpot_p95: self.slo.tpot_p95,
            },
            label_sets: self
                .reading
                .servers
                .iter()
                .map(|server| JsonLabelSet::new(&server.signals, &server.assessment))
                .collect(),
            gone: self
                .reading
                .gone
                .iter()
                .map(|labels| labels.iter().cloned().collect())
                .collect(),
        };
        serde_json::to_string(&report).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// What the label set turned away, for "turned away …": the count, its share of arrivals, the reasons and the 5xx
/// answers, e.g. `900 of 1500 arriving (60%) in the window (vllm:admission_rejections_total; by reason: …)`.
pub fn refusals_text(server: &ServerSignals) -> Option<String> {
    let refusals = server.refusals.as_ref()?;
    let share = refusals
        .share_of_arrivals()
        .zip(refusals.arrivals())
        .map(|(share, arrivals)| {
            format!(
                " of {} arriving ({})",
                format_count(arrivals),
                format_percent(share)
            )
        })
        .unwrap_or_default();
    let mut detail = Vec::new();
    if !refusals.by_reason.is_empty() {
        detail.push(format!("by reason: {}", reason_counts(&refusals.by_reason)));
    }
    if let Some(http) = refusals.http_5xx {
        detail.push(format!("HTTP 5xx answers: {}", format_count(http)));
    }
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!("; {}", detail.join("; "))
    };
    Some(format!(
        "{}{share} {} ({}{detail})",
        format_count(refusals.refused),
        server.span.qualifier(),
        refusals.metric
    ))
}

fn latency_line(server: &ServerSignals, latency: Latency) -> String {
    let name = latency.short_name();
    match server.histogram(latency) {
        Some(histogram) => {
            let p = histogram.value.percentiles();
            format!(
                "  {name:<5} p50 ≈ {}   p95 ≈ {}   p99 ≈ {}   ({})\n",
                p.p50.describe(),
                p.p95.describe(),
                p.p99.describe(),
                histogram.metric
            )
        }
        // Queue time and end-to-end latency are extras: shown where the page has them.
        None if matches!(latency, Latency::Queue | Latency::E2e) => String::new(),
        None => format!(
            "  {name:<5} no histogram on the page ({})\n",
            latency.metrics().join(" or ")
        ),
    }
}

/// `goodput-sim metrics --json`, documented in its `--help`.
#[derive(Serialize)]
struct JsonReport {
    pages: Vec<String>,
    window_seconds: Option<f64>,
    window_seconds_from: Option<LengthFrom>,
    slo: JsonSlo,
    label_sets: Vec<JsonLabelSet>,
    gone: Vec<BTreeMap<String, String>>,
}

#[derive(Serialize)]
struct JsonSlo {
    ttft_p99: f64,
    tpot_p95: f64,
}

#[derive(Serialize)]
struct JsonLabelSet {
    labels: BTreeMap<String, String>,
    span: &'static str,
    restart: Option<String>,
    requests: Option<f64>,
    seconds: Option<f64>,
    ttft: JsonLatency,
    tpot: JsonLatency,
    itl: JsonLatency,
    queue: JsonLatency,
    e2e: JsonLatency,
    running: Option<f64>,
    waiting: Option<f64>,
    kv_cache_usage: Option<f64>,
    kv_cache_metric: Option<&'static str>,
    preemptions: Option<f64>,
    rejections: Option<JsonRejections>,
    waiting_by_reason: Option<BTreeMap<String, f64>>,
    prefix_cache_hit_rate: Option<f64>,
    verdict: &'static str,
    reasons: Vec<String>,
}

/// What a label set turned away over its span.
#[derive(Serialize)]
struct JsonRejections {
    /// `vllm:admission_rejections_total`, or `http_requests_total` (its 5xx answers).
    metric: &'static str,
    count: f64,
    /// count ÷ (count + requests admitted by the label sets the counter covers); null when those are unknown.
    share_of_arrivals: Option<f64>,
    by_reason: BTreeMap<String, f64>,
    http_5xx: Option<f64>,
    /// The labels the counter carries (it covers every label set with them), and how many label sets that is.
    scope: BTreeMap<String, String>,
    label_sets: usize,
}

impl JsonLabelSet {
    fn new(server: &ServerSignals, assessment: &Assessment) -> Self {
        let (span, restart, seconds) = match &server.span {
            Span::SinceStart => ("since_start", None, None),
            Span::Window { seconds } => ("window", None, *seconds),
            Span::Restarted { evidence } => ("since_restart", Some(evidence.clone()), None),
        };
        let latency = |latency| JsonLatency::new(server, latency);
        Self {
            labels: server.labels.iter().cloned().collect(),
            span,
            restart,
            requests: server.requests(),
            seconds,
            ttft: latency(Latency::Ttft),
            tpot: latency(Latency::Tpot),
            itl: latency(Latency::Itl),
            queue: latency(Latency::Queue),
            e2e: latency(Latency::E2e),
            running: server.running,
            waiting: server.waiting,
            kv_cache_usage: server.kv_cache_usage.as_ref().map(|kv| kv.value),
            kv_cache_metric: server.kv_cache_usage.as_ref().map(|kv| kv.metric),
            preemptions: server.preemptions,
            rejections: server.refusals.as_ref().map(|r| JsonRejections {
                metric: r.metric,
                count: r.refused,
                share_of_arrivals: r.share_of_arrivals(),
                by_reason: r.by_reason.iter().cloned().collect(),
                http_5xx: r.http_5xx,
                scope: r.scope.iter().cloned().collect(),
                label_sets: r.label_sets,
            }),
            waiting_by_reason: (!server.waiting_by_reason.is_empty())
                .then(|| server.waiting_by_reason.iter().cloned().collect()),
            prefix_cache_hit_rate: server.prefix_cache.and_then(|p| p.hit_rate()),
            verdict: assessment.verdict.key(),
            reasons: assessment.reasons.clone(),
        }
    }
}

#[derive(Serialize)]
struct JsonLatency {
    metric: Option<&'static str>,
    count: Option<f64>,
    p50: Option<f64>,
    p95: Option<f64>,
    p99: Option<f64>,
    /// Percentiles whose rank fell in the `+Inf` bucket: their figure is the last finite bound, a lower bound.
    lower_bounds: Vec<&'static str>,
}

impl JsonLatency {
    fn new(server: &ServerSignals, latency: Latency) -> Self {
        let Some(histogram) = server.histogram(latency) else {
            return Self {
                metric: None,
                count: None,
                p50: None,
                p95: None,
                p99: None,
                lower_bounds: Vec::new(),
            };
        };
        let p = histogram.value.percentiles();
        let mut lower_bounds = Vec::new();
        let mut figure = |name: &'static str, estimate: QuantileEstimate| {
            if matches!(estimate, QuantileEstimate::AboveLastBound(_)) {
                lower_bounds.push(name);
            }
            estimate.at_least()
        };
        Self {
            metric: Some(histogram.metric),
            count: Some(histogram.value.count()),
            p50: figure("p50", p.p50),
            p95: figure("p95", p.p95),
            p99: figure("p99", p.p99),
            lower_bounds,
        }
    }
}
