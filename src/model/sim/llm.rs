//! LLM replicas with continuous (iteration-level) batching.
//!
//! Each replica runs iterations back to back while it has work. At the start of an iteration its scheduler fills the
//! token budget (`max_num_batched_tokens`) the way vLLM's does: first one decode token for every decoding sequence,
//! then the remaining budget goes to prefill **first come first served** — the oldest admitted prompt's next chunk
//! first, then newly admitted requests from the head of the fleet's waiting queue while the replica has a free slot
//! (`max_num_seqs`) and budget left. A request is admitted (joins `num_requests_running`) only when a scheduler gives
//! it budget; until then it stays in the waiting queue (`num_requests_waiting`). Prefill work is therefore served in
//! arrival order, not shared evenly among everyone admitted: at moderate load most requests find no prompt backlog
//! and their TTFT is about their own prefill, while the unlucky ones wait behind a burst — and once the slots fill,
//! they wait for a slot, which is where the M/M/c-like tail comes from. With chunked prefill a prompt takes whatever
//! budget is left and finishes in later iterations; without it a prompt is scheduled whole or waits (a prompt longer
//! than the budget runs alone). The iteration lasts [`IterationModel::duration`]. At its end every decoding sequence
//! has one more token, and a sequence whose prefill completed has its first token (its TTFT) and decodes from the
//! next iteration on. A request with `O` output tokens thus holds its slot for about `O` iterations.
//!
//! A decoding sequence is never touched between joining and leaving: the replica keeps its finishing iteration in a
//! heap and the batch's total context as one counter, so an iteration costs O(1) plus the requests that join or
//! leave in it.
//!
//! [`IterationModel::duration`]: crate::model::scenario::IterationModel::duration

use super::{stream, ArrivalPlan, Recorder, RequestTrace, RunSummary, Sample, Stream};
use crate::model::scenario::{
    Arrivals, IterationModel, LengthDist, LlmFleet, Scenario, ServiceKind, MAX_TOKENS,
};
use rand::Rng;
use rand_distr::Exp1;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const ARRIVALS: u64 = 11;
const PROMPTS: u64 = 12;
const OUTPUTS: u64 = 13;
const THINK: u64 = 14;

/// Draws token counts from a [`LengthDist`].
#[derive(Clone, Debug)]
struct LengthSampler {
    dist: LengthDist,
    /// Geometric: `1 / −ln(1 − 1/mean)`, so `1 + ⌊E · this⌋` with `E ~ Exp(1)` is geometric with that mean.
    scale: f64,
}

impl LengthSampler {
    fn new(dist: &LengthDist) -> Self {
        let scale = match *dist {
            LengthDist::Geometric { mean } if mean > 1.0 => 1.0 / -(1.0 - 1.0 / mean).ln(),
            _ => 0.0,
        };
        Self {
            dist: dist.clone(),
            scale,
        }
    }

    #[inline]
    fn sample(&self, rng: &mut Stream) -> u32 {
        match self.dist {
            LengthDist::Fixed { tokens } => tokens,
            LengthDist::Uniform { min, max } => rng.random_range(min..=max),
            LengthDist::Geometric { .. } => {
                let e: f64 = rng.sample(Exp1);
                (1.0 + (e * self.scale).floor()).min(f64::from(MAX_TOKENS)) as u32
            }
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Request {
    index: u64,
    arrival: f64,
    prompt: u32,
    output: u32,
    prefill_left: u32,
    first_token: f64,
}

#[derive(Debug)]
struct Replica {
    /// Admitted sequences still prefilling, in admission order.
    prefilling: VecDeque<u32>,
    /// Decoding sequences by the iteration that yields their last token.
    decoding: BinaryHeap<Reverse<(u64, u32)>>,
    /// Total context tokens of the decoding sequences.
    context: u64,
    /// Iterations completed.
    iterations: u64,
    /// End of the current iteration, or infinity when idle.
    busy_until: f64,
    /// Decoding sequences in the current iteration.
    decoding_in_iteration: u64,
    /// Sequences at the front of `prefilling` whose prefill completes with the current iteration.
    completing: usize,
}

impl Replica {
    fn admitted(&self) -> usize {
        self.prefilling.len() + self.decoding.len()
    }
}

/// A fleet simulation in progress.
pub(crate) struct LlmSim {
    scenario: Scenario,
    pub(super) rec: Recorder,
    fleet: LlmFleet,
    iteration: IterationModel,
    prompts: LengthSampler,
    outputs: LengthSampler,
    mean_gap: f64,
    think_time: f64,
    unstable: bool,
    rng_arrivals: Stream,
    rng_prompts: Stream,
    rng_outputs: Stream,
    rng_think: Stream,
    next_index: u64,
    next_arrival: f64,
    sends: BinaryHeap<Reverse<super::Time>>,
    requests: Vec<Request>,
    free_slots: Vec<u32>,
    queue: VecDeque<u32>,
    replicas: Vec<Replica>,
    admitted_total: u32,
}

impl LlmSim {
    pub fn new(scenario: &Scenario, seed: u64) -> Self {
        let ServiceKind::Llm(fleet) = &scenario.service else {
            unreachable!("checked by Engine::new")
        };
        let plan = ArrivalPlan::new(scenario, seed, THINK);
        let replica = || Replica {
            prefilling: VecDeque::with_capacity(fleet.max_num_seqs.min(1024) as usize),
            decoding: BinaryHeap::with_capacity(fleet.max_num_seqs.min(1024) as usize),
            context: 0,
            iterations: 0,
            busy_until: f64::INFINITY,
            decoding_in_iteration: 0,
            completing: 0,
        };
        let mut rng_arrivals = stream(seed, ARRIVALS);
        let next_arrival = if scenario.is_open() {
            plan.mean_gap * rng_arrivals.sample::<f64, _>(Exp1)
        } else {
            0.0
        };
        Self {
            scenario: scenario.clone(),
            rec: Recorder::new(scenario, scenario.customers, plan.expected_rate),
            fleet: fleet.clone(),
            iteration: fleet.iteration.clone(),
            prompts: LengthSampler::new(&fleet.prompt_tokens),
            outputs: LengthSampler::new(&fleet.output_tokens),
            mean_gap: plan.mean_gap,
            think_time: plan.think_time,
            unstable: plan.unstable,
            rng_arrivals,
            rng_prompts: stream(seed, PROMPTS),
            rng_outputs: stream(seed, OUTPUTS),
            rng_think: plan.think,
            next_index: 0,
            next_arrival,
            sends: plan.sends,
            requests: Vec::with_capacity(1024),
            free_slots: Vec::new(),
            queue: VecDeque::with_capacity(1024),
            replicas: (0..fleet.replicas).map(|_| replica()).collect(),
            admitted_total: 0,
        }
    }

    pub fn summary(&self) -> RunSummary {
        self.rec.summary(&self.scenario, self.unstable)
    }

    #[inline]
    fn set_occupancy(&mut self, t: f64) {
        self.rec
            .occupancy
            .set(t, self.admitted_total, self.queue.len() as u32);
    }

    pub fn advance_to(&mut self, target: u64) {
        self.rec.set_target(target);
        let end = self.rec.end_index();
        loop {
            let finished = if self.unstable {
                self.next_index >= end
            } else {
                self.rec.done()
            };
            if finished {
                break;
            }
            let t_arrival = match self.scenario.arrivals {
                Arrivals::Open { .. } => self.next_arrival,
                Arrivals::Closed { .. } => self.sends.peek().map_or(f64::INFINITY, |r| r.0 .0),
            };
            let (mut r, mut t_iter) = (0, f64::INFINITY);
            for (i, rep) in self.replicas.iter().enumerate() {
                if rep.busy_until < t_iter {
                    (r, t_iter) = (i, rep.busy_until);
                }
            }
            if t_iter <= t_arrival {
                self.end_iteration(r, t_iter);
            } else {
                self.arrive(t_arrival);
            }
        }
    }

    fn arrive(&mut self, t: f64) {
        let index = self.next_index;
        self.next_index += 1;
        self.rec.arrival(index, t);
        match self.scenario.arrivals {
            Arrivals::Open { .. } => {
                self.next_arrival = t + self.mean_gap * self.rng_arrivals.sample::<f64, _>(Exp1)
            }
            Arrivals::Closed { .. } => {
                self.sends.pop();
            }
        }
        let prompt = self.prompts.sample(&mut self.rng_prompts);
        let output = self.outputs.sample(&mut self.rng_outputs);
        let req = Request {
            index,
            arrival: t,
            prompt,
            output,
            prefill_left: prompt,
            first_token: 0.0,
        };
        let id = match self.free_slots.pop() {
            Some(id) => {
                self.requests[id as usize] = req;
                id
            }
            None => {
                self.requests.push(req);
                (self.requests.len() - 1) as u32
            }
        };
        // The request waits in the fleet queue (vLLM's `waiting`) until a scheduler gives it budget. An idle replica
        // schedules at once; a busy one takes it, first come first served, when its current iteration ends.
        self.queue.push_back(id);
        if let Some(r) = self
            .replicas
            .iter()
            .position(|r| r.busy_until.is_infinite())
        {
            self.start_iteration(r, t);
        }
        self.set_occupancy(t);
    }

    /// Schedules replica `r`'s next iteration starting at `t`, or leaves it idle when it has nothing to do.
    fn start_iteration(&mut self, r: usize, t: f64) {
        let chunked = self.fleet.chunked_prefill;
        let cap = self.fleet.max_num_seqs as usize;
        let rep = &mut self.replicas[r];
        let decoding = rep.decoding.len() as u64;
        let mut left = u64::from(self.fleet.max_num_batched_tokens).saturating_sub(decoding);
        let mut prefill = 0u64;
        let mut completing = 0usize;
        // Continue admitted prefills in order, then admit from the fleet queue.
        let mut i = 0;
        while left > 0 {
            let id = if i < rep.prefilling.len() {
                rep.prefilling[i]
            } else if rep.admitted() < cap {
                let Some(&head) = self.queue.front() else {
                    break;
                };
                let need = u64::from(self.requests[head as usize].prefill_left);
                if !chunked && need > left && prefill > 0 {
                    break;
                }
                self.queue.pop_front();
                rep.prefilling.push_back(head);
                self.admitted_total += 1;
                head
            } else {
                break;
            };
            let req = &mut self.requests[id as usize];
            let need = u64::from(req.prefill_left);
            let take = if chunked {
                need.min(left)
            } else if need <= left || prefill == 0 {
                need
            } else {
                break;
            };
            req.prefill_left -= take as u32;
            prefill += take;
            left = left.saturating_sub(take);
            if req.prefill_left == 0 {
                completing += 1;
            }
            i += 1;
        }
        let peak = rep.admitted() as u32;
        if decoding == 0 && prefill == 0 {
            rep.busy_until = f64::INFINITY;
            return;
        }
        rep.decoding_in_iteration = decoding;
        rep.completing = completing;
        rep.busy_until = t + self.iteration.duration(prefill, decoding, rep.context);
        self.rec.peak_batch = self.rec.peak_batch.max(peak);
    }

    fn end_iteration(&mut self, r: usize, t: f64) {
        let rep = &mut self.replicas[r];
        rep.iterations += 1;
        let k = rep.iterations;
        rep.context += rep.decoding_in_iteration;
        // Sequences whose last token came out of this iteration.
        loop {
            let rep = &mut self.replicas[r];
            let Some(&Reverse((finish, id))) = rep.decoding.peek() else {
                break;
            };
            if finish > k {
                break;
            }
            rep.decoding.pop();
            let req = self.requests[id as usize];
            rep.context -= u64::from(req.prompt) + u64::from(req.output);
            let tpot = (t - req.first_token) / f64::from(req.output - 1);
            self.finish(id, req, t, Some(tpot));
        }
        // Sequences whose prefill completed: first token now, decoding from the next iteration on.
        for _ in 0..std::mem::take(&mut self.replicas[r].completing) {
            let rep = &mut self.replicas[r];
            let id = rep
                .prefilling
                .pop_front()
                .expect("completing sequences are at the front");
            let req = &mut self.requests[id as usize];
            req.first_token = t;
            if req.output <= 1 {
                let req = *req;
                self.finish(id, req, t, None);
            } else {
                rep.decoding
                    .push(Reverse((k + u64::from(req.output) - 1, id)));
                rep.context += u64::from(req.prompt) + 1;
            }
        }
        self.start_iteration(r, t);
        self.set_occupancy(t);
    }

    fn finish(&mut self, id: u32, req: Request, t: f64, tpot: Option<f64>) {
        self.admitted_total -= 1;
        self.free_slots.push(id);
        self.rec.completion(req.output);
        let trace = RequestTrace {
            index: req.index,
            arrival: req.arrival,
            first_token: req.first_token,
            finish: t,
            prompt_tokens: req.prompt,
            output_tokens: req.output,
        };
        let sample = Sample {
            first: req.first_token - req.arrival,
            tpot,
            total: t - req.arrival,
            trace,
        };
        self.rec.sample(req.index, sample);
        if let Arrivals::Closed { .. } = self.scenario.arrivals {
            let z = self.think_time * self.rng_think.sample::<f64, _>(Exp1);
            self.sends.push(Reverse(super::Time(t + z)));
        }
    }
}
