//! The textbook M/M/c queue, FCFS, open or closed loop.
//!
//! With one FCFS queue in front of `c` servers, an arrival's start of service is known the moment it arrives: the
//! later of its arrival and the earliest time a server frees up (the Kiefer–Wolfowitz recursion). So each arrival
//! costs one draw of service demand and three heap operations: the servers' free times, the departures still ahead
//! (for the number in system and its time series), and in closed loop the users' next send times.

use super::{stream, ArrivalPlan, Gaps, Recorder, RequestTrace, RunSummary, Sample, Stream, Time};
use crate::analytic::erlang_c;
use crate::scenario::{Arrivals, Scenario, ServiceKind, POISSON_CV};
use rand::Rng;
use rand_distr::Exp1;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const ARRIVALS: u64 = 1;
const SERVICE: u64 = 2;
const THINK: u64 = 3;
const INITIAL: u64 = 4;

/// A textbook simulation in progress.
pub(crate) struct TextbookSim {
    scenario: Scenario,
    pub(super) rec: Recorder,
    servers: u32,
    mean_service: f64,
    /// Open loop: the gaps between arrivals.
    gaps: Gaps,
    think_time: f64,
    unstable: bool,
    arrivals: Stream,
    service: Stream,
    think: Stream,
    next_index: u64,
    next_arrival: f64,
    /// Closed loop: when each thinking user sends next.
    sends: BinaryHeap<Reverse<Time>>,
    /// When each server next becomes free.
    free: BinaryHeap<Reverse<Time>>,
    /// Departure times of everyone in the system.
    departures: BinaryHeap<Reverse<Time>>,
}

impl TextbookSim {
    pub fn new(scenario: &Scenario, seed: u64) -> Self {
        let ServiceKind::Textbook(t) = &scenario.service else {
            unreachable!("checked by Engine::new")
        };
        let (servers, mean_service) = (t.servers, t.mean_service);
        let plan = ArrivalPlan::new(scenario, seed, THINK);
        let mut sim = Self {
            scenario: scenario.clone(),
            rec: Recorder::new(scenario, scenario.customers, plan.expected_rate),
            servers,
            mean_service,
            gaps: plan.gaps,
            think_time: plan.think_time,
            unstable: plan.unstable,
            arrivals: stream(seed, ARRIVALS),
            service: stream(seed, SERVICE),
            think: plan.think,
            next_index: 0,
            next_arrival: 0.0,
            sends: plan.sends,
            free: (0..servers).map(|_| Reverse(Time(0.0))).collect(),
            departures: BinaryHeap::new(),
        };
        if scenario.is_open() {
            sim.next_arrival = sim.gaps.next(&mut sim.arrivals);
            // The M/M/c stationary law holds for Poisson arrivals only; other gaps start empty (and need a warm-up).
            let poisson =
                matches!(scenario.arrivals, Arrivals::Open { cv, .. } if cv == POISSON_CV);
            if !sim.unstable && poisson {
                sim.start_in_steady_state(seed);
            }
        }
        sim
    }

    /// Fills the system with a number of customers drawn from the M/M/c stationary law (by inversion, so a higher
    /// load never draws fewer), those in service with exponential residual service.
    fn start_in_steady_state(&mut self, seed: u64) {
        let mu = 1.0 / self.mean_service;
        let lambda = 1.0 / self.gaps.mean_gap();
        let Some(e) = erlang_c(self.servers, lambda, mu) else {
            return;
        };
        let mut rng = stream(seed, INITIAL);
        let u: f64 = rng.random();
        let mut cumulative = 0.0;
        let mut present = 0usize;
        let chunk = 1024;
        'outer: loop {
            // P(n) for n past c is geometric; compute in chunks so a very long tail costs nothing up front.
            let probs = e.stationary_probabilities(present + chunk);
            for p in &probs[present..] {
                cumulative += p;
                if cumulative >= u || present >= 10_000_000 {
                    break 'outer;
                }
                present += 1;
            }
            if cumulative >= 1.0 - 1e-15 {
                break;
            }
        }
        for _ in 0..present {
            let s = self.mean_service * rng.sample::<f64, _>(Exp1);
            let mut top = self.free.peek_mut().expect("at least one server");
            let depart = top.0 .0 + s;
            top.0 = Time(depart);
            drop(top);
            self.departures.push(Reverse(Time(depart)));
        }
        self.set_occupancy(0.0);
    }

    #[inline]
    fn set_occupancy(&mut self, t: f64) {
        let n = self.departures.len() as u32;
        let running = n.min(self.servers);
        self.rec.occupancy.set(t, running, n - running, 0);
    }

    pub fn advance_to(&mut self, target: u64) {
        self.rec.set_target(target);
        let end = self.rec.end_index();
        while self.next_index < end {
            let t = match self.scenario.arrivals {
                Arrivals::Open { .. } => self.next_arrival,
                Arrivals::Closed { .. } => self.sends.peek().map_or(f64::INFINITY, |r| r.0 .0),
            };
            while let Some(&Reverse(Time(d))) = self.departures.peek() {
                if d > t {
                    break;
                }
                self.departures.pop();
                self.rec.completion(0);
                self.set_occupancy(d);
            }
            let index = self.next_index;
            self.next_index += 1;
            self.rec.arrival(index, t);
            let s = self.mean_service * self.service.sample::<f64, _>(Exp1);
            let mut top = self.free.peek_mut().expect("at least one server");
            let start = top.0 .0.max(t);
            let depart = start + s;
            top.0 = Time(depart);
            drop(top);
            self.departures.push(Reverse(Time(depart)));
            self.set_occupancy(t);
            let trace = RequestTrace {
                index,
                arrival: t,
                first_token: start,
                finish: depart,
                prompt_tokens: 0,
                output_tokens: 0,
                replica: 0,
            };
            self.rec.sample(
                index,
                Sample {
                    first: start - t,
                    tpot: None,
                    total: depart - t,
                    trace,
                },
            );
            match self.scenario.arrivals {
                Arrivals::Open { .. } => {
                    self.next_arrival = t + self.gaps.next(&mut self.arrivals);
                }
                Arrivals::Closed { .. } => {
                    let z = self.think_time * self.think.sample::<f64, _>(Exp1);
                    let mut top = self.sends.peek_mut().expect("a user sent this request");
                    top.0 = Time(depart + z);
                }
            }
        }
    }

    pub fn summary(&self) -> RunSummary {
        self.rec.summary(&self.scenario, self.unstable)
    }
}
