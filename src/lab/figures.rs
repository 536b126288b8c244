//! What the lab shows from a sweep: the four charts' data and the readouts beside them, all for the settings the
//! learner chose. Every figure on the page comes from here, so the charts, their accessible tables and the readouts
//! cannot disagree.

use super::settings::{LabSettings, LoopKind, Preset};
use super::sweep::{measured_runs, scenario_for};
use crate::charts::{
    ExactCurve, LatencyBin, LatencyDistribution, LatencyMetric, LatencyPoint, LatencyVsLoad,
    Measured, MeasuredLatency, Percentile, QueueOverTime, QueueSample, Slo, ThroughputPoint,
    ThroughputVsGoodput,
};
use crate::model::your_server::MeasuredRun;
use crate::model::{
    exact_reference, BenchFigures, Estimate, KvCache, LatencyStats, RunSummary, ServiceKind,
    ServiceMode, Stability,
};

/// The lab's picture at one moment: four charts and the readouts at the current load.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    /// Chart 1: latency percentiles against load.
    pub latency: LatencyVsLoad,
    /// Chart 2: throughput and goodput against load.
    pub throughput: ThroughputVsGoodput,
    /// Chart 3: running and waiting requests over time at the current load.
    pub queue: QueueOverTime,
    /// Chart 4: the latency distribution at the current load.
    pub distribution: LatencyDistribution,
    /// The numbers beside the charts.
    pub readouts: Readouts,
}

/// The figures at the current load, as numbers (the page formats them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Readouts {
    /// No estimate at this load yet (the first pass is still running).
    pub pending: bool,
    /// Whether the scenario has a KV-cache budget, so its KV readout will appear (its place is held while pending).
    pub has_kv_cache: bool,
    /// The fleet's queue cap (waiting + running, all replicas) when it sheds load, so the turned-away readout will
    /// appear (its place is held while pending).
    pub queue_cap: Option<u32>,
    /// Offered load, fraction.
    pub load: f64,
    /// Which latency `p50_s`/`p99_s` are of.
    pub metric: LatencyMetric,
    /// Median of the metric, seconds.
    pub p50_s: Option<f64>,
    /// 99th percentile of the metric, seconds.
    pub p99_s: Option<f64>,
    /// The SLO threshold on the metric, seconds (p99 TTFT or p95 TPOT; none on end-to-end latency).
    pub slo: Option<Slo>,
    /// The SLO percentile's value, seconds (p99 for TTFT, p95 for TPOT).
    pub slo_value_s: Option<f64>,
    /// Share of requests meeting both SLOs, fraction.
    pub slo_attainment: Option<f64>,
    /// Completed requests per second.
    pub throughput: Option<f64>,
    /// Requests per second meeting both SLOs.
    pub goodput: Option<f64>,
    /// Little's Law: time-averaged requests in the system `L`.
    pub little_l: Option<f64>,
    /// Little's Law: throughput × mean end-to-end latency `λ·W`.
    pub little_lambda_w: Option<f64>,
    /// Mean end-to-end latency, seconds.
    pub mean_latency_s: Option<f64>,
    /// Closed loop: the users.
    pub users: Option<u32>,
    /// Closed loop: the rate the users would send if nothing queued (offered load × saturation), requests/s.
    pub unqueued_rate: Option<f64>,
    /// The measured arrival rate (in closed loop lower than `unqueued_rate` once requests queue), requests/s.
    pub effective_arrival_rate: Option<f64>,
    /// Open loop at or past saturation: how fast the waiting queue grows, requests/s.
    pub queue_growth_rate: Option<f64>,
    /// Open loop at or past saturation: requests still waiting when the run stopped.
    pub waiting_at_end: Option<u32>,
    /// Time-averaged share of the KV cache in use, fraction (LLM presets).
    pub kv_usage_mean: Option<f64>,
    /// Largest share of the KV cache in use, fraction.
    pub kv_usage_peak: Option<f64>,
    /// Running sequences preempted because the KV cache was full.
    pub preemptions: Option<u64>,
    /// Preemptions per second.
    pub preemption_rate: Option<f64>,
    /// With a queue cap: the share of arriving requests turned away, fraction.
    pub turned_away_share: Option<f64>,
    /// With a queue cap: requests turned away per second.
    pub turned_away_rate: Option<f64>,
    /// Simulated time the measurement covered, seconds.
    pub duration_s: f64,
    /// Requests measured at this load so far.
    pub measured: u64,
    /// Relative half-width of the p99 confidence interval, when known.
    pub p99_relative_half_width: Option<f64>,
}

impl Readouts {
    /// p99 ÷ p50.
    pub fn tail_ratio(&self) -> Option<f64> {
        match (self.p50_s, self.p99_s) {
            (Some(p50), Some(p99)) if p50 > 0.0 => Some(p99 / p50),
            _ => None,
        }
    }

    /// goodput ÷ throughput.
    pub fn goodput_share(&self) -> Option<f64> {
        match (self.goodput, self.throughput) {
            (Some(good), Some(all)) if all > 0.0 => Some(good / all),
            _ => None,
        }
    }
}

/// The stats of `metric` in a run, or `None` where the mode has no such latency (TPOT in the textbook queue) or the
/// run has no steady state. In the textbook queue "TTFT" is the wait before service and end-to-end the sojourn.
fn metric_stats(summary: &RunSummary, metric: LatencyMetric) -> Option<&LatencyStats> {
    let steady = summary.steady.as_ref()?;
    match metric {
        LatencyMetric::Ttft => steady.ttft.as_ref().or(steady.wait.as_ref()),
        LatencyMetric::Tpot => steady.tpot.as_ref(),
        LatencyMetric::EndToEnd => steady.e2e.as_ref().or(steady.sojourn.as_ref()),
    }
}

/// The SLO drawn on the chart of `metric`: p99 TTFT or p95 TPOT, none on end-to-end latency.
fn metric_slo(settings: &LabSettings, metric: LatencyMetric) -> Option<Slo> {
    match metric {
        LatencyMetric::Ttft => Some(Slo {
            percentile: Percentile::P99,
            threshold_s: settings.slo_ttft_ms / 1000.0,
        }),
        LatencyMetric::Tpot if settings.preset != Preset::Textbook => Some(Slo {
            percentile: Percentile::P95,
            threshold_s: settings.slo_tpot_ms / 1000.0,
        }),
        _ => None,
    }
}

/// Whether the run's confidence interval is of `metric` (intervals are kept for the headline latency only: TTFT in
/// LLM mode, the sojourn in the textbook queue).
fn has_interval(summary: &RunSummary, metric: LatencyMetric) -> bool {
    match summary.service {
        ServiceMode::Textbook => metric == LatencyMetric::EndToEnd,
        ServiceMode::Llm => metric == LatencyMetric::Ttft,
    }
}

impl Figures {
    /// The lab's figures for `settings` from the sweep's `points` (load and latest estimate, ordered by load).
    pub fn new(settings: &LabSettings, points: &[(f64, Option<&Estimate>)]) -> Figures {
        let metric = settings.metric;
        let load = settings.load();
        let slo = metric_slo(settings, metric);
        let latency_points = points
            .iter()
            .map(|&(offered_load, estimate)| {
                let summary = estimate.map(|e| &e.summary);
                let stats = summary.and_then(|s| metric_stats(s, metric));
                let ci = summary
                    .filter(|s| has_interval(s, metric))
                    .and_then(|s| s.steady.as_ref()?.intervals)
                    .map(|i| (i.p99.low, i.p99.high));
                LatencyPoint {
                    offered_load,
                    p50_s: stats.map(|s| s.p50),
                    p95_s: stats.map(|s| s.p95),
                    p99_s: stats.map(|s| s.p99),
                    mean_s: stats.map(|s| s.mean),
                    p99_ci_s: ci,
                }
            })
            .collect();
        let exact_curve = exact_curve(settings, metric, points.iter().map(|p| p.0));
        let throughput_points = points
            .iter()
            .map(|&(offered_load, estimate)| {
                let steady = estimate.and_then(|e| e.summary.steady.as_ref());
                ThroughputPoint {
                    offered_load,
                    throughput: steady.map(|s| s.throughput),
                    goodput: steady.map(|s| s.goodput),
                    turned_away: estimate
                        .and_then(|e| e.summary.admission)
                        .map(|a| a.rejected_per_second),
                }
            })
            .collect();
        let current = points
            .iter()
            .min_by(|a, b| (a.0 - load).abs().total_cmp(&(b.0 - load).abs()))
            .and_then(|&(_, estimate)| estimate);
        let max_num_seqs = (settings.preset != Preset::Textbook).then_some(settings.max_num_seqs);
        let queue = QueueOverTime {
            samples: current
                .map(|e| {
                    e.summary
                        .occupancy
                        .iter()
                        .map(|o| QueueSample {
                            time_s: o.t,
                            running: o.running,
                            waiting: o.waiting,
                            kv_usage: o.kv_usage,
                            preemptions: o.preemptions,
                        })
                        .collect()
                })
                .unwrap_or_default(),
            max_num_seqs: max_num_seqs.map(|cap| cap * settings.replicas),
            offered_load: load,
        };
        let distribution = distribution(current, settings, load);
        let runs = measured_runs(settings);
        Figures {
            latency: LatencyVsLoad {
                metric,
                points: latency_points,
                exact: exact_curve,
                slo,
                current_load: load,
                measured: measured_latency(&runs, metric),
            },
            throughput: ThroughputVsGoodput {
                points: throughput_points,
                rate_unit: "req/s".to_owned(),
                current_load: load,
                measured: runs
                    .iter()
                    .map(|(load, run)| Measured {
                        offered_load: *load,
                        measured: run.measured.throughput,
                        model: run.model.throughput,
                    })
                    .collect(),
            },
            queue,
            distribution,
            readouts: readouts(settings, current, load),
        }
    }
}

/// The learner's server's measured latencies on the chart of `metric`: TTFT p50 and p99, TPOT p50 (what a
/// benchmark's result reports); none for end-to-end latency.
fn measured_latency(runs: &[(f64, MeasuredRun)], metric: LatencyMetric) -> MeasuredLatency {
    let each = |pick: fn(&BenchFigures) -> Option<f64>| -> Vec<Measured> {
        runs.iter()
            .filter_map(|(load, run)| {
                Some(Measured {
                    offered_load: *load,
                    measured: pick(&run.measured)?,
                    model: pick(&run.model)?,
                })
            })
            .collect()
    };
    match metric {
        LatencyMetric::Ttft => MeasuredLatency {
            p50: each(|f| Some(f.ttft_p50)),
            p99: each(|f| f.ttft_p99),
        },
        LatencyMetric::Tpot => MeasuredLatency {
            p50: each(|f| Some(f.tpot_p50)),
            p99: Vec::new(),
        },
        LatencyMetric::EndToEnd => MeasuredLatency::default(),
    }
}

/// Erlang C's exact p99 beside the simulation, textbook mode in open loop only.
fn exact_curve(
    settings: &LabSettings,
    metric: LatencyMetric,
    loads: impl Iterator<Item = f64>,
) -> Option<ExactCurve> {
    if settings.preset != Preset::Textbook || settings.loop_kind != LoopKind::Open {
        return None;
    }
    let pick = |load: f64| {
        let reference = exact_reference(&scenario_for(settings, load).ok()?)?;
        match metric {
            LatencyMetric::Ttft => reference.wait_p50_p99.map(|(_, p99)| p99),
            LatencyMetric::EndToEnd => reference.sojourn_p50_p99.map(|(_, p99)| p99),
            LatencyMetric::Tpot => None,
        }
    };
    let points: Vec<(f64, f64)> = loads.filter_map(|load| Some((load, pick(load)?))).collect();
    (!points.is_empty()).then(|| ExactCurve {
        label: "p99 exact (Erlang C)".to_owned(),
        points,
    })
}

/// The headline latency's histogram at the current load. The model keeps a histogram of its headline latency only
/// (TTFT, or the sojourn in the textbook queue), so the distribution chart always shows that one.
fn distribution(
    current: Option<&Estimate>,
    settings: &LabSettings,
    load: f64,
) -> LatencyDistribution {
    let textbook = settings.preset == Preset::Textbook;
    let metric = if textbook {
        LatencyMetric::EndToEnd
    } else {
        LatencyMetric::Ttft
    };
    let steady = current.and_then(|e| e.summary.steady.as_ref());
    let stats = current.and_then(|e| metric_stats(&e.summary, metric));
    LatencyDistribution {
        metric,
        bins: steady
            .map(|s| {
                s.distribution
                    .iter()
                    .map(|bin| LatencyBin {
                        low_s: bin.low,
                        high_s: bin.high,
                        count: bin.count,
                    })
                    .collect()
            })
            .unwrap_or_default(),
        p50_s: stats.map(|s| s.p50),
        p99_s: stats.map(|s| s.p99),
        slo: if textbook {
            None
        } else {
            metric_slo(settings, LatencyMetric::Ttft)
        },
        offered_load: load,
    }
}

/// The fleet's cap on waiting + running when the settings shed load: the per-replica cap times the replicas.
fn fleet_queue_cap(settings: &LabSettings) -> Option<u32> {
    settings
        .max_num_queued_reqs()
        .map(|n| n * settings.replicas)
}

fn readouts(settings: &LabSettings, current: Option<&Estimate>, load: f64) -> Readouts {
    let metric = settings.metric;
    let Some(estimate) = current else {
        let has_kv_cache = scenario_for(settings, load).is_ok_and(|scenario| {
            matches!(&scenario.service, ServiceKind::Llm(fleet) if fleet.kv_cache != KvCache::Unlimited)
        });
        return Readouts {
            pending: true,
            has_kv_cache,
            queue_cap: fleet_queue_cap(settings),
            load,
            metric,
            slo: metric_slo(settings, metric),
            ..Readouts::default()
        };
    };
    let summary = &estimate.summary;
    let steady = summary.steady.as_ref();
    let stats = metric_stats(summary, metric);
    let slo = metric_slo(settings, metric);
    let slo_value_s = slo.and_then(|slo| {
        let stats = stats?;
        Some(match slo.percentile {
            Percentile::P50 => stats.p50,
            Percentile::P95 => stats.p95,
            Percentile::P99 => stats.p99,
        })
    });
    let closed = settings.loop_kind == LoopKind::Closed;
    Readouts {
        pending: false,
        has_kv_cache: summary.kv_cache.is_some(),
        queue_cap: fleet_queue_cap(settings),
        load,
        metric,
        p50_s: stats.map(|s| s.p50),
        p99_s: stats.map(|s| s.p99),
        slo,
        slo_value_s,
        slo_attainment: steady.map(|s| s.slo_attainment / 100.0),
        throughput: steady.map(|s| s.throughput),
        goodput: steady.map(|s| s.goodput),
        little_l: steady.map(|s| s.little.time_averaged_in_system),
        little_lambda_w: steady.map(|s| s.little.throughput_times_latency),
        mean_latency_s: steady
            .and_then(|s| s.e2e.as_ref().or(s.sojourn.as_ref()))
            .map(|s| s.mean),
        users: summary.users.filter(|_| closed),
        unqueued_rate: closed.then_some(summary.offered_load * summary.saturation_throughput),
        effective_arrival_rate: steady.map(|s| s.effective_arrival_rate),
        queue_growth_rate: match summary.stability {
            Stability::Unstable {
                waiting_growth_rate,
                ..
            } => Some(waiting_growth_rate),
            Stability::Stable => None,
        },
        waiting_at_end: match summary.stability {
            Stability::Unstable { waiting_at_end, .. } => Some(waiting_at_end),
            Stability::Stable => None,
        },
        kv_usage_mean: summary.kv_cache.map(|k| k.mean_usage),
        kv_usage_peak: summary.kv_cache.map(|k| k.peak_usage),
        preemptions: summary.kv_cache.map(|k| k.preemptions),
        preemption_rate: summary.kv_cache.map(|k| k.preemption_rate),
        turned_away_share: summary.admission.map(|a| a.rejection_rate),
        turned_away_rate: summary.admission.map(|a| a.rejected_per_second),
        duration_s: summary.duration,
        measured: summary.measured,
        p99_relative_half_width: estimate.p99_relative_half_width,
    }
}

/// Which readout a line is: its stable name in the page (`data-readout`, for tests and styling) and where it sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadoutKey {
    Load,
    P50,
    P99,
    Ratio,
    Slo,
    Attainment,
    Throughput,
    Goodput,
    TurnedAway,
    Little,
    KvCache,
    Preemptions,
    Users,
    UnqueuedRate,
    EffectiveRate,
    WaitingAtEnd,
    Growth,
}

impl ReadoutKey {
    /// The name the page writes in `data-readout`, e.g. `p99`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReadoutKey::Load => "load",
            ReadoutKey::P50 => "p50",
            ReadoutKey::P99 => "p99",
            ReadoutKey::Ratio => "ratio",
            ReadoutKey::Slo => "slo",
            ReadoutKey::Attainment => "attainment",
            ReadoutKey::Throughput => "throughput",
            ReadoutKey::Goodput => "goodput",
            ReadoutKey::TurnedAway => "turned-away",
            ReadoutKey::Little => "little",
            ReadoutKey::KvCache => "kv-cache",
            ReadoutKey::Preemptions => "preemptions",
            ReadoutKey::Users => "users",
            ReadoutKey::UnqueuedRate => "unqueued-rate",
            ReadoutKey::EffectiveRate => "effective-rate",
            ReadoutKey::WaitingAtEnd => "waiting-at-end",
            ReadoutKey::Growth => "growth",
        }
    }

    /// Whether the full lab shows this readout beside its load slider, where the learner watches it while dragging:
    /// the few that carry the story (the tail against the median, the SLO, goodput, and with a queue cap what it
    /// turned away), or, with no steady state, the queue that grows instead. The rest are folded under the charts.
    pub fn beside_the_slider(self) -> bool {
        matches!(
            self,
            ReadoutKey::P50
                | ReadoutKey::P99
                | ReadoutKey::Ratio
                | ReadoutKey::Slo
                | ReadoutKey::Goodput
                | ReadoutKey::TurnedAway
                | ReadoutKey::WaitingAtEnd
                | ReadoutKey::Growth
        )
    }

    /// Whether the goodput-only chart shows this readout (it has no latency chart).
    pub fn in_goodput_chart(self) -> bool {
        matches!(
            self,
            ReadoutKey::Throughput
                | ReadoutKey::Goodput
                | ReadoutKey::Attainment
                | ReadoutKey::TurnedAway
        )
    }
}

/// One readout as the page prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadoutLine {
    /// Which readout it is.
    pub key: ReadoutKey,
    /// What it is, e.g. "p99 TTFT".
    pub label: String,
    /// The value with its unit, e.g. "1.5 s".
    pub value: String,
}

impl Readouts {
    /// The readouts as label/value lines, in the order the page shows them. Values that do not exist at this setting
    /// (no steady state, no SLO on the metric, open loop) are left out rather than shown as zero. Before the first
    /// estimate the headline lines hold a placeholder, so the layout does not jump (and a projected screen does not
    /// refit its type) when the numbers arrive.
    pub fn lines(&self) -> Vec<ReadoutLine> {
        use crate::charts::format::{format_latency, format_number, format_percent, format_ratio};
        use ReadoutKey as K;
        const HEADLINE: [ReadoutKey; 7] = [
            K::P50,
            K::P99,
            K::Ratio,
            K::Slo,
            K::Attainment,
            K::Throughput,
            K::Goodput,
        ];
        let metric = self.metric.label();
        let mut lines = Vec::new();
        let pending = self.pending;
        // Little's Law and the arrival rate are read from every steady run, the KV cache and its preemptions from
        // every run with a budget: their places are held too, so the readouts keep their rows.
        let held = |key: ReadoutKey| {
            HEADLINE.contains(&key)
                || matches!(key, K::Little | K::EffectiveRate)
                || (matches!(key, K::KvCache | K::Preemptions) && self.has_kv_cache)
                || (key == K::TurnedAway && self.queue_cap.is_some())
        };
        let mut push = |key: ReadoutKey, label: String, value: Option<String>| {
            let placeholder = || (pending && held(key)).then(|| placeholder(key).to_owned());
            if let Some(value) = value.or_else(placeholder) {
                lines.push(ReadoutLine { key, label, value });
            }
        };
        push(
            K::Load,
            "Offered load".into(),
            Some(format_percent(self.load)),
        );
        push(
            K::P50,
            format!("p50 {metric}"),
            self.p50_s.map(format_latency),
        );
        push(
            K::P99,
            format!("p99 {metric}"),
            self.p99_s.map(format_latency),
        );
        push(
            K::Ratio,
            "p99 ÷ p50".into(),
            self.tail_ratio().map(format_ratio),
        );
        if let Some(slo) = self.slo {
            let verdict = |value: f64| {
                if value > slo.threshold_s {
                    "missed"
                } else {
                    "met"
                }
            };
            push(
                K::Slo,
                format!(
                    "SLO: {} {metric} ≤ {}",
                    slo.percentile.label(),
                    format_latency(slo.threshold_s)
                ),
                self.slo_value_s
                    .map(|value| format!("{} ({})", verdict(value), format_latency(value))),
            );
        }
        push(
            K::Attainment,
            "Requests meeting both SLOs".into(),
            self.slo_attainment.map(format_percent),
        );
        push(
            K::Throughput,
            "Throughput".into(),
            self.throughput
                .map(|x| format!("{} req/s", format_number(x))),
        );
        push(
            K::Goodput,
            "Goodput".into(),
            self.goodput.map(|g| match self.goodput_share() {
                Some(share) => format!(
                    "{} req/s ({} of throughput)",
                    format_number(g),
                    format_percent(share)
                ),
                None => format!("{} req/s", format_number(g)),
            }),
        );
        push(
            K::TurnedAway,
            "Turned away (queue full)".into(),
            self.turned_away_share.map(|share| {
                let rate = self
                    .turned_away_rate
                    .map(|r| format!(" ({} req/s)", format_number(r)))
                    .unwrap_or_default();
                format!("{} of arrivals{rate}", format_percent(share))
            }),
        );
        push(
            K::Little,
            "Little's Law: L vs λ·W".into(),
            match (
                self.little_l,
                self.throughput,
                self.mean_latency_s,
                self.little_lambda_w,
            ) {
                (Some(l), Some(x), Some(w), Some(lw)) => Some(format!(
                    "{} in the system; {} req/s × {} = {}",
                    format_number(l),
                    format_number(x),
                    format_latency(w),
                    format_number(lw)
                )),
                _ => None,
            },
        );
        push(
            K::KvCache,
            "KV cache in use".into(),
            match (self.kv_usage_mean, self.kv_usage_peak) {
                (Some(mean), Some(peak)) => Some(format!(
                    "{} on average, {} at peak",
                    format_percent(mean),
                    format_percent(peak)
                )),
                _ => None,
            },
        );
        push(
            K::Preemptions,
            "Preemptions (KV cache full)".into(),
            match (self.preemptions, self.preemption_rate) {
                (Some(0), _) => Some("none".to_owned()),
                (Some(n), Some(rate)) => Some(format!("{n} ({} per second)", format_number(rate))),
                _ => None,
            },
        );
        push(
            K::Users,
            "Users (closed loop)".into(),
            self.users.map(|n| n.to_string()),
        );
        push(
            K::UnqueuedRate,
            "Rate they would send if nothing queued".into(),
            self.unqueued_rate
                .map(|x| format!("{} req/s", format_number(x))),
        );
        push(
            K::EffectiveRate,
            if self.users.is_some() {
                "Rate they actually send"
            } else {
                "Arrival rate"
            }
            .into(),
            self.effective_arrival_rate
                .map(|x| format!("{} req/s", format_number(x))),
        );
        push(
            K::WaitingAtEnd,
            "Still waiting at the end of the run".into(),
            self.waiting_at_end.map(|n| format!("{n} requests")),
        );
        push(
            K::Growth,
            "Waiting queue grows by".into(),
            self.queue_growth_rate
                .map(|x| format!("{} req/s, without bound", format_number(x))),
        );
        lines
    }

    /// Why the numbers look the way they do, in the lesson's terms: one sentence, and one more when the KV cache
    /// ran out.
    pub fn explanation(&self) -> String {
        let mut text = self.queue_explanation();
        if let Some(n) = self.preemptions.filter(|&n| n > 0) {
            text += &format!(
                " The KV cache filled up too: {n} running sequences were preempted, sent back to the front of the \
                 queue, and recomputed their prefill when readmitted — work the server does twice."
            );
        }
        text
    }

    fn queue_explanation(&self) -> String {
        use crate::charts::format::{format_latency, format_number, format_percent};
        if let (Some(cap), Some(share)) = (self.queue_cap, self.turned_away_share) {
            if share > 0.0 {
                let p99 = match (self.metric, self.p99_s) {
                    (LatencyMetric::Ttft, Some(p99)) => {
                        format!(" (p99 TTFT {})", format_latency(p99))
                    }
                    _ => String::new(),
                };
                return format!(
                    "The queue is capped at {cap} requests waiting or running, so the server sheds instead of \
                     queueing: it turns away {} of arrivals at once, and the wait for a first token stays bounded{p99}, \
                     at most the time to get through a full queue, however far the load goes. {} of requests meet both \
                     SLOs: a turned-away request counts as a miss, and an admitted one may still have waited behind a \
                     full queue.",
                    format_percent(share),
                    format_percent(self.slo_attainment.unwrap_or(0.0))
                );
            }
        }
        if let Some(growth) = self.queue_growth_rate {
            let waiting = self.waiting_at_end.unwrap_or(0);
            return format!(
                "At {} there is no slack left: every burst adds to the queue and nothing ever drains it. After {} of \
                 simulated time {waiting} requests were still waiting (growing by {} req/s on average), so no \
                 percentile settles: run it longer and p99 only gets worse.",
                format_percent(self.load),
                format_duration(self.duration_s),
                format_number(growth)
            );
        }
        if let (Some(users), Some(unqueued), Some(actual)) =
            (self.users, self.unqueued_rate, self.effective_arrival_rate)
        {
            return format!(
                "Closed loop: {users} users each wait for their answer before sending again, so when responses slow \
                 they send less ({} instead of {} req/s). The load backs off by itself and the queue cannot run away.",
                format_number(actual),
                format_number(unqueued)
            );
        }
        let attainment = self.slo_attainment.unwrap_or(1.0);
        match self.tail_ratio() {
            Some(ratio) if ratio < 4.0 && attainment < 0.5 => format!(
                "Open loop, well past the knee: even the median request queues (p50 {}), so p99 is only {ratio:.1}× \
                 the median — the whole distribution has moved up, and {} of requests meet both SLOs.",
                self.p50_s.map_or_else(String::new, format_latency),
                format_percent(attainment)
            ),
            Some(ratio) if ratio >= 4.0 => format!(
                "Open loop: arrivals keep coming whatever the server does, so bursts queue behind full batches. p99 \
                 is {ratio:.1}× the median: the tail has torn away from the typical request."
            ),
            Some(_) => "Open loop, below the knee: most requests find a free slot and wait only for their own \
                        prefill, so p99 stays close to the median."
                .to_owned(),
            None => "Waiting for the simulation…".to_owned(),
        }
    }
}

/// What a readout shows before the first estimate: the shape of its value with "…" for the numbers, so it wraps
/// as the value will and its row keeps its height when the numbers arrive.
fn placeholder(key: ReadoutKey) -> &'static str {
    match key {
        ReadoutKey::Slo => "… (…)",
        ReadoutKey::Throughput | ReadoutKey::EffectiveRate => "… req/s",
        ReadoutKey::Goodput => "… req/s (…% of throughput)",
        ReadoutKey::TurnedAway => "…% of arrivals (… req/s)",
        ReadoutKey::Little => "… in the system; … req/s × … s = …",
        ReadoutKey::KvCache => "…% on average, …% at peak",
        _ => "…",
    }
}

/// A simulated time span for sentences: "14 min", "52 s".
fn format_duration(seconds: f64) -> String {
    if seconds >= 120.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{seconds:.0} s")
    }
}
