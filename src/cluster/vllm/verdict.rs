//! The knee verdict: a server's signals against the SLOs and its own capacity, as below, at or past the knee, with
//! the reasons a reader can check.

use super::{
    format_count, plural, requests_text, HistogramSeries, QuantileEstimate, ServerSignals, Span,
    LEGACY_TPOT_METRIC, REQUEST_TPOT_METRIC, TTFT_METRIC, WAITING_METRIC,
};
use crate::charts::format::{format_latency, format_percent};
use crate::cluster::admission::{self, REJECTIONS_METRIC};
use crate::model::Slo;

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
        ttft_p99: Slo::COURSE.ttft,
        tpot_p95: Slo::COURSE.tpot,
    };
}

/// Where the server sits against the knee of the latency curve.
///
/// The course reads the knee three ways, each fit for where it is used: the lesson's (the load where throughput
/// flattens and latency bends upward), the predict step's rule of thumb ([`ChartTarget::Knee`]: the load where p99
/// TTFT has doubled from its light-load value), and this verdict, which judges a live server from one scrape or a
/// window, where no load curve is at hand: its queue, its latencies against the SLOs and its KV cache.
///
/// [`ChartTarget::Knee`]: crate::lesson::ChartTarget::Knee
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
                format_latency(limit)
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
