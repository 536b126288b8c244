//! What the lab shows from a sweep: the four charts' data and the readouts beside them, all for the settings the
//! learner chose. Every figure on the page comes from here, so the charts, their accessible tables and the readouts
//! cannot disagree.

mod lines;

pub use lines::{ReadoutKey, ReadoutLine};

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
    ServiceMode, Stability, SteadyState,
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
    /// The learner's own server's capacity and knee as ranges, and how far they extrapolate, in words.
    pub your_server_ranges: Option<String>,
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
    /// No steady state: the latencies, the SLO verdict and goodput are what the finite run measured (of the requests
    /// that finished), and a longer run would raise the latencies and lower goodput.
    pub growing: bool,
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
    window_stats(summary.steady.as_ref()?, metric)
}

/// The stats of `metric` over a run's measured window, steady or not.
fn window_stats(window: &SteadyState, metric: LatencyMetric) -> Option<&LatencyStats> {
    match metric {
        LatencyMetric::Ttft => window.ttft.as_ref().or(window.wait.as_ref()),
        LatencyMetric::Tpot => window.tpot.as_ref(),
        LatencyMetric::EndToEnd => window.e2e.as_ref().or(window.sojourn.as_ref()),
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
                scale: settings.scale,
                measured: measured_latency(&runs, metric),
                fit_band: super::band::fit_band(settings).filter(|_| metric == LatencyMetric::Ttft),
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
            your_server_ranges: super::band::ranges_text(settings),
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
    // Past saturation there is no steady state: show what the finite run measured, as the figures do.
    let summary = current.map(|e| &e.summary);
    let growing = summary.is_some_and(|s| s.steady.is_none() && s.finite_run.is_some());
    let window = summary.and_then(|s| s.steady.as_ref().or(s.finite_run.as_ref()));
    let stats = window.and_then(|w| window_stats(w, metric));
    LatencyDistribution {
        metric,
        bins: window
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
        growing,
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
    // With no steady state the headline figures are what the finite run measured, marked as still growing.
    let (window, growing) = match (steady, summary.finite_run.as_ref()) {
        (None, Some(finite)) => (Some(finite), true),
        (steady, _) => (steady, false),
    };
    let stats = window.and_then(|w| window_stats(w, metric));
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
        growing,
        slo_attainment: window.map(|s| s.slo_attainment / 100.0),
        throughput: steady.map(|s| s.throughput),
        goodput: window.map(|s| s.goodput),
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
