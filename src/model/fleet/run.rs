//! The day's event loop: arrivals routed to ready replicas, a scrape every interval (the series point and the
//! autoscaler's decision), replicas becoming ready, and the drain after the last arrival.

use super::autoscaler::Hpa;
use super::{
    FleetDay, FleetSpec, FleetSummary, ReplicaTotals, Route, SeriesPoint, Signal, TTFT_WINDOW,
};
use crate::scenario::{Scenario, ScenarioError, ServiceKind, Slo};
use crate::sim::llm::bench_stats::stats;
use crate::sim::llm::replay::Lengths;
use crate::sim::llm::stepper::{GaugeAreas, ReplicaStepper};
use crate::sim::{stream, RequestTrace, Stream};
use rand::Rng;
use std::collections::VecDeque;

/// The stream the router's random picks draw from.
const ROUTER: u64 = 22;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Loading; serves from the given time.
    Starting(f64),
    Ready,
    /// Scaled away: takes no requests, finishes what it holds.
    Draining,
    /// Gone, at the given time.
    Retired(f64),
}

struct Member {
    replica: ReplicaStepper,
    phase: Phase,
    created: f64,
    ready_at: Option<f64>,
    /// The gauges' integrals at the previous scrape (or when it became ready).
    at_scrape: GaugeAreas,
    /// When `at_scrape` was taken.
    scraped: f64,
    served: u64,
    latency_sum: f64,
}

impl Member {
    fn serves(&self) -> bool {
        matches!(self.phase, Phase::Ready | Phase::Draining)
    }
}

/// What the day's requests came to, as they finish.
#[derive(Default)]
struct Tally {
    ttft: Vec<f64>,
    tpot: Vec<f64>,
    good: u64,
    finished: u64,
    /// This interval: TTFTs of its first tokens, requests finished and good.
    interval_ttft: Vec<f64>,
    interval_finished: u64,
    interval_good: u64,
    /// First tokens of the TTFT window: (time, TTFT).
    window: VecDeque<(f64, f64)>,
}

impl Tally {
    fn finished(&mut self, r: &RequestTrace, slo: &Slo) {
        let ttft = r.first_token - r.arrival;
        let tpot = (r.output_tokens > 1)
            .then(|| (r.finish - r.first_token) / f64::from(r.output_tokens - 1));
        self.ttft.push(ttft);
        if let Some(x) = tpot {
            self.tpot.push(x);
        }
        self.finished += 1;
        self.interval_finished += 1;
        if ttft <= slo.ttft && tpot.is_none_or(|x| x <= slo.tpot) {
            self.good += 1;
            self.interval_good += 1;
        }
    }

    fn first_token(&mut self, at: f64, ttft: f64) {
        self.interval_ttft.push(ttft);
        self.window.push_back((at, ttft));
    }

    /// p99 TTFT of the window ending at `t`.
    fn window_p99(&mut self, t: f64) -> Option<f64> {
        while self
            .window
            .front()
            .is_some_and(|&(at, _)| at < t - TTFT_WINDOW)
        {
            self.window.pop_front();
        }
        let mut values: Vec<f64> = self.window.iter().map(|&(_, x)| x).collect();
        (!values.is_empty()).then(|| stats(&mut values).p99)
    }
}

struct Fleet<'a> {
    scenario: &'a Scenario,
    spec: &'a FleetSpec,
    members: Vec<Member>,
    tally: Tally,
    hpa: Hpa,
    rng: Stream,
    next_turn: usize,
    scale_events: u32,
    breach: f64,
    longest_breach: f64,
    series: Vec<SeriesPoint>,
    /// Requests turned away by a queue cap, counted as they happen.
    rejected: u64,
    /// Requests routed since the last scrape.
    routed: u64,
}

/// Simulates the day: `scenario`'s replica (its replica count is ignored) as a fleet under `spec`.
pub fn simulate(scenario: &Scenario, spec: &FleetSpec) -> Result<FleetDay, ScenarioError> {
    spec.validate(scenario)
        .map_err(|(field, problem)| ScenarioError { field, problem })?;
    let ServiceKind::Llm(llm) = &scenario.service else {
        unreachable!("validated: an LLM fleet");
    };
    let mut lengths = Lengths::new(llm, spec.seed);
    let arrivals = spec.traffic.arrivals(spec.seconds, spec.seed);
    let mut fleet = Fleet {
        scenario,
        spec,
        members: Vec::new(),
        tally: Tally::default(),
        hpa: Hpa::new(
            spec.triggers.iter().map(|t| t.target).collect(),
            spec.min,
            spec.max,
            spec.stabilization,
        ),
        rng: stream(spec.seed, ROUTER),
        next_turn: 0,
        scale_events: 0,
        breach: 0.0,
        longest_breach: 0.0,
        series: Vec::new(),
        rejected: 0,
        routed: 0,
    };
    for _ in 0..spec.min {
        fleet.add(0.0, 0.0)?;
    }
    let mut next_arrival = 0;
    let mut scrape = spec.interval;
    loop {
        let t_arrival = arrivals.get(next_arrival).copied().unwrap_or(f64::INFINITY);
        let t_ready = fleet.next_ready();
        let t_scrape = if scrape <= spec.seconds {
            scrape
        } else {
            f64::INFINITY
        };
        let t = t_arrival.min(t_ready).min(t_scrape);
        if t.is_infinite() {
            break;
        }
        fleet.advance(t);
        if t_ready <= t {
            fleet.make_ready(t);
        } else if t_scrape <= t {
            fleet.scrape(t);
            scrape += spec.interval;
        } else {
            let (prompt, output) = lengths.draw();
            fleet.route(t, prompt, output);
            next_arrival += 1;
        }
    }
    fleet.advance(f64::INFINITY);
    Ok(fleet.day(arrivals.len() as u64))
}

impl Fleet<'_> {
    /// Adds a replica at `t` that serves from `t + delay`.
    fn add(&mut self, t: f64, delay: f64) -> Result<(), ScenarioError> {
        let replica = ReplicaStepper::new(self.scenario)?;
        let phase = if delay > 0.0 {
            Phase::Starting(t + delay)
        } else {
            Phase::Ready
        };
        self.members.push(Member {
            replica,
            phase,
            created: t,
            ready_at: (delay <= 0.0).then_some(t),
            at_scrape: GaugeAreas::default(),
            scraped: t,
            served: 0,
            latency_sum: 0.0,
        });
        Ok(())
    }

    fn next_ready(&self) -> f64 {
        self.members
            .iter()
            .filter_map(|m| match m.phase {
                Phase::Starting(at) => Some(at),
                _ => None,
            })
            .fold(f64::INFINITY, f64::min)
    }

    fn make_ready(&mut self, t: f64) {
        for m in &mut self.members {
            if matches!(m.phase, Phase::Starting(at) if at <= t) {
                m.phase = Phase::Ready;
                m.ready_at = Some(t);
                m.replica.advance(t);
                m.at_scrape = m.replica.areas();
                m.scraped = t;
            }
        }
    }

    /// Runs every serving replica to `t` and takes in what finished; a drained replica retires.
    fn advance(&mut self, t: f64) {
        let slo = &self.scenario.slo;
        for m in self.members.iter_mut().filter(|m| m.serves()) {
            m.replica.advance(t);
            let log = m.replica.take_log();
            for r in &log.finished {
                self.tally.finished(r, slo);
                m.served += 1;
                m.latency_sum += r.finish - r.arrival;
            }
            for &(at, ttft) in &log.first_tokens {
                self.tally.first_token(at, ttft);
            }
            if m.phase == Phase::Draining && m.replica.in_system() == 0 {
                m.phase = Phase::Retired(m.replica.now());
            }
        }
        self.rejected = self.members.iter().map(|m| m.replica.rejected()).sum();
    }

    /// Sends a request arriving at `t` to the replica the router picks.
    fn route(&mut self, t: f64, prompt: u32, output: u32) {
        let mut ready: Vec<usize> = (0..self.members.len())
            .filter(|&i| self.members[i].phase == Phase::Ready)
            .collect();
        if ready.is_empty() {
            // The autoscaler never removes the last ready replica (it drops starting ones first and keeps at
            // least one); should that change, the request still goes somewhere rather than nowhere.
            ready.extend(
                (0..self.members.len())
                    .filter(|&i| self.members[i].serves())
                    .take(1),
            );
        }
        if ready.is_empty() {
            return;
        }
        let load = |i: usize| self.members[i].replica.in_system();
        let pick = match self.spec.route {
            Route::RoundRobin => {
                self.next_turn = (self.next_turn + 1) % ready.len();
                ready[self.next_turn]
            }
            Route::ShortestQueue => {
                let fewest = ready.iter().map(|&i| load(i)).min().unwrap_or(0);
                let tied: Vec<usize> = ready
                    .iter()
                    .copied()
                    .filter(|&i| load(i) == fewest)
                    .collect();
                tied[self.rng.random_range(0..tied.len())]
            }
            Route::TwoChoices => {
                let a = ready[self.rng.random_range(0..ready.len())];
                let b = if ready.len() > 1 {
                    let other = self.rng.random_range(0..ready.len() - 1);
                    let other = ready.iter().copied().filter(|&i| i != a).nth(other);
                    other.unwrap_or(a)
                } else {
                    a
                };
                if load(b) < load(a) {
                    b
                } else {
                    a
                }
            }
        };
        self.routed += 1;
        self.members[pick].replica.send(t, prompt, output);
    }

    /// Counts of ready and starting replicas.
    fn counts(&self) -> (u32, u32) {
        let ready = self
            .members
            .iter()
            .filter(|m| m.phase == Phase::Ready)
            .count();
        let starting = self
            .members
            .iter()
            .filter(|m| matches!(m.phase, Phase::Starting(_)))
            .count();
        (ready as u32, starting as u32)
    }

    /// The end of an interval at `t`: the series point, then the autoscaler's decision.
    fn scrape(&mut self, t: f64) {
        let spec = self.spec;
        let (ready, starting) = self.counts();
        let mut sums = GaugeAreas::default();
        for m in self.members.iter_mut().filter(|m| m.phase == Phase::Ready) {
            let now = m.replica.areas();
            let span = t - m.scraped;
            if span > 0.0 {
                sums.busy += (now.busy - m.at_scrape.busy) / span;
                sums.waiting += (now.waiting - m.at_scrape.waiting) / span;
                sums.running += (now.running - m.at_scrape.running) / span;
                sums.kv_usage += (now.kv_usage - m.at_scrape.kv_usage) / span;
            }
            m.at_scrape = now;
            m.scraped = t;
        }
        let window_p99 = self.tally.window_p99(t);
        let per_current = |sum: f64| Some(sum / f64::from(ready + starting));
        let values: Vec<Option<f64>> = spec
            .triggers
            .iter()
            .map(|trigger| match trigger.signal {
                Signal::Utilization => per_current(sums.busy),
                Signal::Waiting => per_current(sums.waiting),
                Signal::Kv => per_current(sums.kv_usage),
                Signal::Running => per_current(sums.running),
                Signal::Inflight => per_current(sums.running + sums.waiting),
                Signal::Rate => per_current(self.routed as f64 / spec.interval),
                Signal::TtftP99 => window_p99,
            })
            .collect();
        self.routed = 0;
        self.track_breach(t);
        let per_ready = |sum: f64| {
            if ready > 0 {
                sum / f64::from(ready)
            } else {
                0.0
            }
        };
        let tally = &mut self.tally;
        let point = SeriesPoint {
            t,
            offered_rps: spec.traffic.mean_rate(t - spec.interval, t),
            replicas: ready,
            starting,
            waiting: per_ready(sums.waiting),
            running: per_ready(sums.running),
            utilization: per_ready(sums.busy),
            ttft_p99: window_p99,
            goodput: tally.interval_good as f64 / spec.interval,
            throughput: tally.interval_finished as f64 / spec.interval,
            signals: values.clone(),
        };
        tally.interval_ttft.clear();
        tally.interval_good = 0;
        tally.interval_finished = 0;
        let current = ready + starting;
        let desired = self.hpa.decide(t, current, &values);
        if desired != current {
            self.scale_events += 1;
            self.scale(t, current, desired);
        }
        let (ready, starting) = self.counts();
        self.series.push(SeriesPoint {
            replicas: ready,
            starting,
            ..point
        });
    }

    /// Whether the interval ending at `t` breached the TTFT SLO, and the longest run of such intervals.
    fn track_breach(&mut self, t: f64) {
        let slo = self.scenario.slo.ttft;
        let mut interval = std::mem::take(&mut self.tally.interval_ttft);
        let slow_first_tokens = !interval.is_empty() && stats(&mut interval).p99 > slo;
        let stuck = self
            .members
            .iter()
            .filter(|m| m.serves())
            .filter_map(|m| m.replica.oldest_waiting_since())
            .any(|since| t - since > slo);
        if slow_first_tokens || stuck {
            self.breach += self.spec.interval;
            self.longest_breach = self.longest_breach.max(self.breach);
        } else {
            self.breach = 0.0;
        }
    }

    /// Moves from `current` to `desired` replicas at `t`: new ones start loading; going down, replicas still
    /// starting go first (the newest first), then the ready ones holding the fewest requests, which drain.
    fn scale(&mut self, t: f64, current: u32, desired: u32) {
        if desired > current {
            for _ in current..desired {
                self.add(t, self.spec.start_up_delay)
                    .expect("the scenario was valid for the first replica");
            }
            return;
        }
        let mut remove = current - desired;
        for m in self.members.iter_mut().rev() {
            if remove == 0 {
                return;
            }
            if matches!(m.phase, Phase::Starting(_)) {
                m.phase = Phase::Retired(t);
                remove -= 1;
            }
        }
        while remove > 0 {
            let Some(m) = self
                .members
                .iter_mut()
                .filter(|m| m.phase == Phase::Ready)
                .min_by_key(|m| m.replica.in_system())
            else {
                return;
            };
            m.phase = if m.replica.in_system() == 0 {
                Phase::Retired(t)
            } else {
                Phase::Draining
            };
            remove -= 1;
        }
    }

    /// The day's summary, its series and each replica's totals; `sent` requests arrived.
    fn day(mut self, sent: u64) -> FleetDay {
        let seconds = self.spec.seconds;
        let replica_seconds = self
            .members
            .iter()
            .map(|m| {
                let end = match m.phase {
                    Phase::Retired(at) => at,
                    _ => seconds,
                };
                (end.min(seconds) - m.created).max(0.0)
            })
            .sum();
        let tally = &mut self.tally;
        let summary = FleetSummary {
            slo_attainment: if sent > 0 {
                100.0 * tally.good as f64 / sent as f64
            } else {
                100.0
            },
            goodput: tally.good as f64 / seconds,
            ttft_p99: stats(&mut tally.ttft).p99,
            tpot_p99: stats(&mut tally.tpot).p99,
            replica_seconds,
            longest_breach_s: self.longest_breach,
            scale_events: self.scale_events,
        };
        debug_assert_eq!(tally.finished + self.rejected, sent);
        let replicas = self
            .members
            .iter()
            .map(|m| ReplicaTotals {
                ready_at: m.ready_at,
                retired_at: match m.phase {
                    Phase::Retired(at) if m.ready_at.is_some() => Some(at),
                    _ => None,
                },
                served: m.served,
                in_system_area: m.replica.areas().in_system,
                latency_sum: m.latency_sum,
            })
            .collect();
        FleetDay {
            summary,
            series: self.series,
            replicas,
        }
    }
}
