//! One LLM replica driven from outside, request by request: what a fleet's router feeds. It is the replica model
//! itself (the same scheduler, step times, KV cache and queue caps as every other run), run as a finite run whose
//! request list grows while it runs; the caller advances its clock, reads the gauges a vLLM server exports, and takes
//! back the requests that finished and the first tokens that came out.
//!
//! Between two events a replica's state is constant, so the stepper integrates its gauges exactly: the time its
//! batch had work (what a GPU-utilisation dashboard shows), the requests waiting, the KV blocks in use, and the
//! requests in the system (sent and not finished, the `L` of Little's Law).

pub use super::replay::ReplicaLog;
use super::replay::{ReplayState, TraceRequest};
use super::LlmSim;
use crate::scenario::{Arrivals, Scenario, ScenarioError, ServiceKind};

/// Running time integrals of a replica's gauges (seconds × requests, seconds × blocks, seconds).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GaugeAreas {
    /// Seconds during which the replica ran an iteration.
    pub busy: f64,
    /// ∫ requests waiting dt.
    pub waiting: f64,
    /// ∫ requests running (admitted to the batch) dt.
    pub running: f64,
    /// ∫ KV-cache usage (0–1) dt.
    pub kv_usage: f64,
    /// ∫ requests in the system (sent, not finished) dt.
    pub in_system: f64,
}

/// One replica of a scenario, fed requests one at a time.
pub struct ReplicaStepper {
    sim: LlmSim,
    /// The clock: everything up to it has happened.
    now: f64,
    areas: GaugeAreas,
    /// KV blocks of the replica (`None` without a KV budget).
    kv_blocks: Option<u64>,
    /// Requests sent and not finished.
    in_system: u64,
    /// Finished requests already taken from the log.
    taken: u64,
}

impl ReplicaStepper {
    /// One replica of `scenario`'s fleet (its replica count is ignored), empty, at time 0.
    pub fn new(scenario: &Scenario) -> Result<Self, ScenarioError> {
        scenario.validate()?;
        let mut one = scenario.clone();
        let ServiceKind::Llm(fleet) = &mut one.service else {
            return Err(ScenarioError {
                field: "service".to_owned(),
                problem: "a fleet needs LLM replicas (the textbook queue has no tokens)".to_owned(),
            });
        };
        fleet.replicas = 1;
        let kv_blocks = fleet.kv_cache.blocks();
        // The request list grows as the caller sends: measure everything, from the first request on.
        one.customers = u64::MAX;
        one.warm_up = 0;
        one.arrivals = Arrivals::poisson(0.5);
        let mut sim = LlmSim::replaying(&one, Vec::new(), false);
        let mut state = sim.replay.take().unwrap_or_default();
        state.log = Some(Box::default());
        sim.replay = Some(state);
        Ok(Self {
            sim,
            now: 0.0,
            areas: GaugeAreas::default(),
            kv_blocks,
            in_system: 0,
            taken: 0,
        })
    }

    fn state(&mut self) -> &mut ReplayState {
        self.sim
            .replay
            .as_deref_mut()
            .expect("a stepped replica keeps its replay state")
    }

    /// Sends a request at `at` (no earlier than the clock or the previous send) with the given lengths, which must
    /// fit the replica's KV cache ([`super::replay::check_requests`] says which do).
    pub fn send(&mut self, at: f64, prompt_tokens: u32, output_tokens: u32) {
        debug_assert!(at >= self.now, "a request is sent at or after the clock");
        let overhead = self.sim.overhead;
        let next_index = self.sim.next_index as usize;
        let requests = &mut self.state().requests;
        requests.push(TraceRequest {
            arrival_s: at,
            prompt_tokens,
            output_tokens,
        });
        if next_index == requests.len() - 1 {
            self.sim.next_arrival = at + overhead;
        }
        self.in_system += 1;
    }

    /// Runs the replica up to time `t` (every event at or before it).
    pub fn advance(&mut self, t: f64) {
        loop {
            let t_iteration = self.sim.replicas[0].busy_until;
            let t_arrival = self.sim.next_arrival;
            let next = t_iteration.min(t_arrival);
            if next > t || next.is_infinite() {
                break;
            }
            self.integrate(next);
            if t_iteration <= t_arrival {
                self.sim.end_iteration(0, next);
            } else {
                self.sim.arrive(next);
            }
            self.count_in_system();
        }
        if t.is_finite() {
            self.integrate(t);
        }
    }

    /// Requests sent, less those finished or turned away by a queue cap.
    fn count_in_system(&mut self) {
        let rejected = self.sim.rec.rejected_total();
        let taken = self.taken;
        let state = self.state();
        let finished = taken
            + state
                .log
                .as_ref()
                .map_or(0, |log| log.finished.len() as u64);
        self.in_system = state.requests.len() as u64 - finished - rejected;
    }

    /// Requests a queue cap turned away so far.
    pub fn rejected(&self) -> u64 {
        self.sim.rec.rejected_total()
    }

    /// Adds the state held since the clock up to `t`, then moves the clock there.
    fn integrate(&mut self, t: f64) {
        let dt = t - self.now;
        if dt > 0.0 {
            let busy = self.sim.replicas[0].busy_until.is_finite();
            self.areas.busy += if busy { dt } else { 0.0 };
            self.areas.waiting += self.sim.queue.len() as f64 * dt;
            self.areas.running += f64::from(self.sim.admitted_total) * dt;
            self.areas.kv_usage += self.kv_usage() * dt;
            self.areas.in_system += self.in_system as f64 * dt;
            self.now = t;
        }
    }

    /// The clock.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// The gauges' integrals from time 0 to the clock.
    pub fn areas(&self) -> GaugeAreas {
        self.areas
    }

    /// `vllm:num_requests_waiting` now.
    pub fn waiting(&self) -> u64 {
        self.sim.queue.len() as u64
    }

    /// `vllm:num_requests_running` now.
    pub fn running(&self) -> u64 {
        u64::from(self.sim.admitted_total)
    }

    /// Requests sent and not yet finished (what a router counts as outstanding).
    pub fn in_system(&self) -> u64 {
        self.in_system
    }

    /// `vllm:kv_cache_usage_perc` now, 0–1 (0 without a KV budget).
    pub fn kv_usage(&self) -> f64 {
        self.kv_blocks
            .map_or(0.0, |b| self.sim.kv_used as f64 / b as f64)
    }

    /// When the request that has waited longest for its first token reached the queue, if any waits.
    pub fn oldest_waiting_since(&self) -> Option<f64> {
        let overhead = self.sim.overhead;
        self.sim
            .queue
            .iter()
            .map(|&id| self.sim.requests[id as usize])
            .filter(|r| r.generated == 0)
            .map(|r| r.arrival - overhead)
            .next()
    }

    /// Takes the requests finished and the first tokens produced since the last call.
    pub fn take_log(&mut self) -> ReplicaLog {
        let log = self
            .state()
            .log
            .as_deref_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        self.taken += log.finished.len() as u64;
        log
    }
}
