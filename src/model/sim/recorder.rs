//! The recorder both engines share: each measured request's statistics as it finishes or is turned away, the time
//! averages of the measured window, and the run's summary at the end.

use super::{
    KvUsage, LatencyIntervals, LittleCheck, RejectedByReason, RejectionReason, Rejections,
    RequestTrace, RunSummary, ServiceMode, Stability, SteadyState,
};
use crate::scenario::{Arrivals, Scenario, ServiceKind, Slo};
use crate::stats::{BatchMeans, FineHistogram, Occupancy};

/// One finished request as the recorder sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    /// Wait (textbook) or TTFT (LLM).
    pub first: f64,
    /// TPOT, for LLM requests with two or more output tokens.
    pub tpot: Option<f64>,
    /// Sojourn / end-to-end latency.
    pub total: f64,
    /// The request itself.
    pub trace: RequestTrace,
}

/// How a request ended: served (with its statistics), or turned away at arrival.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    Served(Sample),
    Rejected(RejectionReason),
}

/// Collects statistics of measured requests and the time averages; shared by both engines.
pub(crate) struct Recorder {
    llm: bool,
    slo: Slo,
    warm_up: u64,
    target: u64,
    measured: u64,
    /// Outcomes of requests beyond the current target, kept until the target grows (progressive runs).
    pending: Vec<(u64, Outcome)>,
    first: FineHistogram,
    tpot: FineHistogram,
    total: FineHistogram,
    batches: BatchMeans,
    good: u64,
    /// Whether the fleet has a queue cap (and so reports [`Rejections`]).
    capped: bool,
    /// Measured requests turned away, by the cap that fired.
    rejected: RejectedByReason,
    /// Requests turned away in the measured window (by time, like the arrivals).
    rejected_in_window: u64,
    completions_in_window: u64,
    tokens_in_window: u64,
    arrivals_in_window: u64,
    pub occupancy: Occupancy,
    pub peak_batch: u32,
    /// Traces of the first measured requests, up to `trace_limit`.
    pub traces: Vec<RequestTrace>,
    pub trace_limit: usize,
}

impl Recorder {
    pub fn new(scenario: &Scenario, target: u64, expected_rate: f64) -> Self {
        let llm = matches!(scenario.service, ServiceKind::Llm(_));
        let kv_total = match &scenario.service {
            ServiceKind::Llm(fleet) => fleet
                .kv_cache
                .blocks()
                .map(|b| b * u64::from(fleet.replicas)),
            ServiceKind::Textbook(_) => None,
        };
        Self {
            llm,
            slo: scenario.slo.clone(),
            warm_up: scenario.warm_up,
            target,
            measured: 0,
            pending: Vec::new(),
            first: FineHistogram::new(),
            tpot: FineHistogram::new(),
            total: FineHistogram::new(),
            batches: BatchMeans::new((target / 20).clamp(1, 1 << 20)),
            good: 0,
            capped: match &scenario.service {
                ServiceKind::Llm(fleet) => fleet.has_queue_cap(),
                ServiceKind::Textbook(_) => false,
            },
            rejected: RejectedByReason::default(),
            rejected_in_window: 0,
            completions_in_window: 0,
            tokens_in_window: 0,
            arrivals_in_window: 0,
            occupancy: Occupancy::new(scenario.customers as f64 / expected_rate, kv_total),
            peak_batch: 0,
            traces: Vec::new(),
            trace_limit: 0,
        }
    }

    /// Index one past the last measured request.
    pub fn end_index(&self) -> u64 {
        self.warm_up + self.target
    }

    /// Requests measured so far.
    pub fn measured(&self) -> u64 {
        self.measured
    }

    /// Whether every measured request has been recorded.
    pub fn done(&self) -> bool {
        self.measured >= self.target
    }

    /// Raises the target to `target` measured requests, taking in any completions already seen.
    pub fn set_target(&mut self, target: u64) {
        self.target = target;
        let end = self.end_index();
        let pending = std::mem::take(&mut self.pending);
        for (index, outcome) in pending {
            if index < end {
                match outcome {
                    Outcome::Served(s) => self.add(s),
                    Outcome::Rejected(reason) => self.add_rejection(reason),
                }
            } else {
                self.pending.push((index, outcome));
            }
        }
    }

    /// A request with arrival `index` arrived at `t`.
    #[inline]
    pub fn arrival(&mut self, index: u64, t: f64) {
        if index == self.warm_up {
            self.occupancy.start(t);
        }
        if self.occupancy.started() {
            self.arrivals_in_window += 1;
        }
    }

    /// Any request finished at `t` with `output_tokens` tokens (counts toward throughput).
    #[inline]
    pub fn completion(&mut self, output_tokens: u32) {
        if self.occupancy.started() {
            self.completions_in_window += 1;
            self.tokens_in_window += u64::from(output_tokens);
        }
    }

    /// Statistics of request `index`, recorded if it is measured.
    #[inline]
    pub fn sample(&mut self, index: u64, s: Sample) {
        if index < self.warm_up {
            return;
        }
        if index >= self.end_index() {
            self.pending.push((index, Outcome::Served(s)));
            return;
        }
        self.add(s);
    }

    /// Request `index` was turned away at arrival by the cap `reason`: counted if it is measured (and in the
    /// window's rate whenever measuring has started).
    pub fn rejection(&mut self, index: u64, reason: RejectionReason) {
        if self.occupancy.started() {
            self.rejected_in_window += 1;
        }
        if index < self.warm_up {
            return;
        }
        if index >= self.end_index() {
            self.pending.push((index, Outcome::Rejected(reason)));
            return;
        }
        self.add_rejection(reason);
    }

    /// A measured request turned away: it counts, with no latency.
    fn add_rejection(&mut self, reason: RejectionReason) {
        self.measured += 1;
        *match reason {
            RejectionReason::MaxNumQueuedReqs => &mut self.rejected.max_num_queued_reqs,
            RejectionReason::MaxNumQueuedTokens => &mut self.rejected.max_num_queued_tokens,
        } += 1;
    }

    fn add(&mut self, s: Sample) {
        self.measured += 1;
        if self.traces.len() < self.trace_limit {
            self.traces.push(s.trace);
        }
        self.first.record(s.first);
        self.total.record(s.total);
        if let Some(t) = s.tpot {
            self.tpot.record(t);
        }
        self.batches
            .record(if self.llm { s.first } else { s.total });
        let tpot_ok = s.tpot.is_none_or(|t| t <= self.slo.tpot);
        if s.first <= self.slo.ttft && tpot_ok {
            self.good += 1;
        }
    }

    /// The summary of everything recorded so far.
    pub fn summary(&self, scenario: &Scenario, unstable: bool) -> RunSummary {
        let duration = self.occupancy.duration();
        let stability = if unstable {
            let (now, at_start) = self.occupancy.waiting_now_and_at_start();
            let growth = if duration > 0.0 {
                (f64::from(now) - f64::from(at_start)) / duration
            } else {
                0.0
            };
            Stability::Unstable {
                waiting_growth_rate: growth,
                waiting_at_end: now,
                arrived: self.arrivals_in_window,
                completed: self.completions_in_window,
            }
        } else {
            Stability::Stable
        };
        let measured = self.measured > 0 && duration > 0.0;
        let steady = (!unstable && measured).then(|| self.steady_state(duration));
        let finite_run = (unstable && measured).then(|| self.steady_state(duration));
        let users = match scenario.arrivals {
            Arrivals::Closed { users, .. } => Some(users),
            Arrivals::Open { .. } => None,
        };
        let kv_cache = self.occupancy.kv_usage().map(|(mean_usage, peak_usage)| {
            let preemptions = self.occupancy.preemptions();
            let blocks = match &scenario.service {
                ServiceKind::Llm(fleet) => fleet.kv_cache.blocks().unwrap_or(0),
                ServiceKind::Textbook(_) => 0,
            };
            KvUsage {
                blocks_per_replica: blocks,
                mean_usage,
                peak_usage,
                preemptions,
                preemption_rate: if duration > 0.0 {
                    preemptions as f64 / duration
                } else {
                    0.0
                },
            }
        });
        RunSummary {
            service: if self.llm {
                ServiceMode::Llm
            } else {
                ServiceMode::Textbook
            },
            offered_load: scenario.offered_load(),
            arrival_rate: scenario.arrival_rate(),
            users,
            saturation_throughput: scenario.saturation_throughput(),
            measured: self.measured,
            duration,
            stability,
            occupancy: self.occupancy.series().to_vec(),
            kv_cache,
            admission: self.capped.then(|| self.rejections(duration)),
            steady,
            finite_run,
        }
    }

    /// Measured requests turned away, all reasons.
    pub fn rejected_total(&self) -> u64 {
        self.rejected.total()
    }

    fn rejections(&self, duration: f64) -> Rejections {
        let rejected = self.rejected_total();
        Rejections {
            rejected,
            rejection_rate: if self.measured > 0 {
                rejected as f64 / self.measured as f64
            } else {
                0.0
            },
            rejected_per_second: if duration > 0.0 {
                self.rejected_in_window as f64 / duration
            } else {
                0.0
            },
            rejected_by_reason: self.rejected,
        }
    }

    fn steady_state(&self, duration: f64) -> SteadyState {
        let throughput = self.completions_in_window as f64 / duration;
        // A turned-away request fails both SLOs: it counts in the attainment's denominator. Goodput is the served
        // rate times the share of served requests that met both, which is the rate of good requests.
        let served = self.measured - self.rejected_total();
        let attainment = self.good as f64 / self.measured as f64;
        let good_share_of_served = if served > 0 {
            self.good as f64 / served as f64
        } else {
            0.0
        };
        let (running_mean, waiting_mean) = self.occupancy.means();
        let in_system = running_mean + waiting_mean;
        let xw = throughput * self.total.mean();
        let little = LittleCheck {
            time_averaged_in_system: in_system,
            throughput_times_latency: xw,
            relative_error: if in_system > 0.0 {
                (in_system - xw).abs() / in_system
            } else {
                0.0
            },
        };
        let headline = if self.llm { &self.first } else { &self.total };
        let hs = headline.latency_stats();
        let intervals = self
            .batches
            .intervals(hs.mean, hs.p50, hs.p99)
            .map(|[mean, p50, p99]| LatencyIntervals { mean, p50, p99 });
        let (first, total) = (self.first.latency_stats(), self.total.latency_stats());
        SteadyState {
            throughput,
            effective_arrival_rate: self.arrivals_in_window as f64 / duration,
            output_tokens_per_second: self.llm.then(|| self.tokens_in_window as f64 / duration),
            goodput: throughput * good_share_of_served,
            slo_attainment: 100.0 * attainment,
            wait: (!self.llm).then_some(first),
            sojourn: (!self.llm).then_some(total),
            ttft: self.llm.then_some(first),
            tpot: self.llm.then(|| self.tpot.latency_stats()),
            e2e: self.llm.then_some(total),
            in_system_mean: in_system,
            running_mean,
            waiting_mean,
            little,
            intervals,
            distribution: headline.bins(),
            peak_batch: self.llm.then_some(self.peak_batch),
        }
    }
}
