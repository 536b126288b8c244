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
//! **KV cache** ([`KvCache`]). With a budget, a replica's cache is a number of 16-token blocks, and its scheduler
//! follows vLLM's V1 scheduler (`vllm/v1/core/sched/scheduler.py`): running sequences are served first, in admission
//! order. Every decoding sequence writes one more token's KV per iteration and so needs a new block every 16 tokens; a
//! continuing prefill needs the blocks of its next chunk. When a running sequence needs blocks and too few are free,
//! the most recently admitted sequence is **preempted** — its blocks freed, its request put back at the *front* of
//! the waiting queue — until the need fits. A waiting request is admitted only when the blocks of its prompt (or of
//! its first chunk) are free, and no request is admitted in an iteration that preempted one. A preempted request
//! keeps its output so far and, once readmitted, recomputes its prefill over the prompt *and* those tokens, then
//! decodes on; its TTFT stays the time of its first token, its end-to-end latency (and TPOT) include the stall.
//!
//! A decoding sequence is never touched between joining and leaving: the replica keeps its finishing iteration in a
//! heap, the batch's total context as one counter, and its decoding sequences' KV lengths by their phase within a
//! block, so the blocks a decode step needs are one lookup. An iteration costs O(1) plus the requests that join or
//! leave in it (a preemption, rare, scans the batch).
//!
//! **Queue caps** ([`admission`]). With `max_num_queued_reqs` or `max_num_queued_tokens` set, an arrival is checked
//! before it joins the queue, as vLLM's front end does, and one over a cap is turned away at once: it is counted, its
//! prompt and output lengths are drawn all the same (common random numbers), and it never runs. Open loop, the run
//! then has a steady state at any load; closed loop, the user thinks again as after an answer.
//!
//! [`IterationModel::duration`]: crate::scenario::IterationModel::duration
//! [`KvCache`]: crate::scenario::KvCache

use super::{stream, ArrivalPlan, Gaps, Recorder, RequestTrace, RunSummary, Sample, Stream};
use crate::scenario::{
    Arrivals, IterationModel, LlmFleet, Scenario, ServiceKind, KV_BLOCK_TOKENS, MAX_TOKENS,
};
use admission::AdmissionControl;
use kv::{blocks_for, cached_prefix, preempt_newest, KvBlocks};
use request::{LengthSampler, Request};
mod admission;
pub mod batch;
pub(crate) mod bench_stats;
mod itl;
mod kv;
pub mod replay;
mod request;
pub mod stepper;

use rand::Rng;
use rand_distr::Exp1;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const ARRIVALS: u64 = 11;
const PROMPTS: u64 = 12;
const OUTPUTS: u64 = 13;
const THINK: u64 = 14;

#[derive(Debug)]
struct Replica {
    /// Admitted sequences still prefilling, in admission order (always admitted after every decoding sequence).
    prefilling: VecDeque<u32>,
    /// Decoding sequences by the iteration that yields their last token.
    decoding: BinaryHeap<Reverse<(u64, u32)>>,
    /// Total context tokens of the decoding sequences.
    context: u64,
    /// The KV cache.
    kv: KvBlocks,
    /// Iterations completed that decoded (the clock of the decoding sequences' tokens and KV).
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

/// What a replica's scheduler decided for one iteration: the observable content of a step.
#[derive(Clone, Copy, Debug, Default)]
struct Plan {
    /// Sequences decoding one token each.
    decoding: u64,
    /// Prompt (and recompute) tokens prefilled.
    prefill_tokens: u64,
    /// Sequences whose prefill completes with this iteration.
    completing: usize,
    /// Sequences preempted to make room.
    preempted: u32,
}

/// Gives every decoding sequence of `rep` its token in iteration `n` and the KV blocks it needs, preempting the
/// newest sequences while too few blocks are free.
fn reserve_decodes(
    rep: &mut Replica,
    requests: &mut [Request],
    queue: &mut VecDeque<u32>,
    rec: &mut Recorder,
    plan: &mut Plan,
    n: u64,
    t: f64,
) {
    let mut need = rep.kv.decode_blocks(n);
    while need > rep.kv.free() {
        let Some(needed_a_block) = preempt_newest(rep, requests, queue, n, t) else {
            break;
        };
        record_preemption(rec, t);
        plan.preempted += 1;
        need -= u64::from(needed_a_block);
    }
    rep.kv.used += need;
    rep.kv.head += need;
    plan.decoding = rep.decoding.len() as u64;
}

fn record_preemption(rec: &mut Recorder, t: f64) {
    rec.occupancy.advance(t);
    rec.occupancy.preempted();
}

/// A fleet simulation in progress.
pub(crate) struct LlmSim {
    scenario: Scenario,
    pub(super) rec: Recorder,
    fleet: LlmFleet,
    iteration: IterationModel,
    prompts: LengthSampler,
    outputs: LengthSampler,
    gaps: Gaps,
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
    /// Admissions so far (the stamp of the next one).
    admissions: u64,
    /// The longest sequence a replica's KV cache holds, tokens (`None` without a budget).
    kv_capacity: Option<u64>,
    /// KV blocks held across the fleet.
    kv_used: u64,
    /// What a batch timeline records of this run; `None` (nothing recorded, nothing paid) in ordinary runs.
    observer: Option<Box<batch::BatchObserver>>,
    /// A finite run's requests and its extra records ([`replay`]); `None` in steady-state runs.
    replay: Option<Box<replay::ReplayState>>,
    /// Prefill tokens computed so far (prompts, and recomputes after preemptions).
    prefill_computed: u64,
    /// The front end's time before the scheduler sees a request ([`LlmFleet::frontend_overhead`]): requests reach
    /// the queue this long after they are sent.
    overhead: f64,
    /// The queue caps checked at arrival.
    admission: AdmissionControl,
}

impl LlmSim {
    pub fn new(scenario: &Scenario, seed: u64) -> Self {
        let ServiceKind::Llm(fleet) = &scenario.service else {
            unreachable!("checked by Engine::new")
        };
        let plan = ArrivalPlan::new(scenario, seed, THINK);
        let kv_blocks = fleet.kv_cache.blocks();
        let replica = || Replica {
            prefilling: VecDeque::with_capacity(fleet.max_num_seqs.min(1024) as usize),
            decoding: BinaryHeap::with_capacity(fleet.max_num_seqs.min(1024) as usize),
            context: 0,
            kv: KvBlocks {
                total: kv_blocks.unwrap_or(u64::MAX),
                used: 0,
                phase: [0; KV_BLOCK_TOKENS as usize],
                head: 0,
                tail: kv_blocks.unwrap_or(0),
            },
            iterations: 0,
            busy_until: f64::INFINITY,
            decoding_in_iteration: 0,
            completing: 0,
        };
        let mut rng_arrivals = stream(seed, ARRIVALS);
        let next_arrival = if scenario.is_open() {
            plan.gaps.next(&mut rng_arrivals)
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
            gaps: plan.gaps,
            think_time: plan.think_time,
            // A capped queue sheds what it cannot serve: stable at any load.
            unstable: plan.unstable && !fleet.has_queue_cap(),
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
            admissions: 0,
            kv_capacity: fleet.kv_cache.tokens(),
            kv_used: 0,
            observer: None,
            replay: None,
            prefill_computed: 0,
            overhead: fleet.frontend_overhead,
            admission: AdmissionControl::new(fleet),
        }
    }

    /// A finite run of `requests` (checked by [`replay::check_requests`]) on an empty fleet: arrivals and lengths
    /// come from the list; the recorder keeps every request's trace when `traced`.
    fn replaying(scenario: &Scenario, requests: Vec<replay::TraceRequest>, traced: bool) -> Self {
        let mut sim = Self::new(scenario, 0);
        sim.next_arrival = requests
            .first()
            .map_or(f64::INFINITY, |r| r.arrival_s + sim.overhead);
        sim.unstable = false;
        sim.rec.trace_limit = if traced { requests.len() } else { 0 };
        // Past capacity every request may wait at once: room for all, committed only as it fills.
        sim.requests.reserve_exact(requests.len());
        sim.queue.reserve_exact(requests.len());
        sim.replay = Some(Box::new(replay::ReplayState::new(requests)));
        sim
    }

    pub fn summary(&self) -> RunSummary {
        self.rec.summary(&self.scenario, self.unstable)
    }

    #[inline]
    fn set_occupancy(&mut self, t: f64) {
        if let Some(replay) = self.replay.as_deref_mut() {
            replay.peak_running = replay.peak_running.max(self.admitted_total);
            replay.peak_waiting = replay.peak_waiting.max(self.queue.len() as u32);
        }
        self.rec.occupancy.set(
            t,
            self.admitted_total,
            self.queue.len() as u32,
            self.kv_used,
        );
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
            Arrivals::Open { .. } => self.next_arrival = t + self.gaps.next(&mut self.rng_arrivals),
            Arrivals::Closed { .. } => {
                self.sends.pop();
            }
        }
        let (mut prompt, mut output) = match self.replay.as_deref() {
            Some(replay) => {
                let r = replay.requests[index as usize];
                self.next_arrival = replay
                    .requests
                    .get(index as usize + 1)
                    .map_or(f64::INFINITY, |next| next.arrival_s + self.overhead);
                (r.prompt_tokens, r.output_tokens)
            }
            None => (
                self.prompts.sample(&mut self.rng_prompts),
                self.outputs.sample(&mut self.rng_outputs),
            ),
        };
        if let Some(capacity) = self.kv_capacity {
            // No sequence outgrows the cache (validation guarantees it for bounded lengths; a geometric tail is cut).
            let capacity = capacity.min(u64::from(MAX_TOKENS)) as u32;
            prompt = prompt.min(capacity);
            output = output.min(capacity + 1 - prompt);
        }
        let in_flight = u64::from(self.admitted_total) + self.queue.len() as u64;
        if let Some(reason) = self.admission.check(in_flight, prompt) {
            self.rec.rejection(index, reason);
            if let Arrivals::Closed { .. } = self.scenario.arrivals {
                self.think_again(t);
            }
            return;
        }
        let req = Request {
            index,
            arrival: t,
            prompt,
            output,
            generated: 0,
            prefill_left: prompt,
            first_token: 0.0,
            last_token: 0.0,
            decode_from: 0,
            admitted: 0,
            cache_top: 0,
            cache_blocks: 0,
            replica: 0,
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
        if let Some(observer) = self.observer.as_deref_mut() {
            observer.arrived(index, id, t);
        }
        // The request waits in the fleet queue (vLLM's `waiting`) until a scheduler gives it budget. An idle replica
        // schedules at once; a busy one takes it, first come first served, when its current iteration ends.
        self.queue.push_back(id);
        self.wake_idle_replica(t);
        self.set_occupancy(t);
    }

    /// Starts the first idle replica, if any, on the waiting queue.
    fn wake_idle_replica(&mut self, t: f64) {
        if let Some(r) = self
            .replicas
            .iter()
            .position(|r| r.busy_until.is_infinite())
        {
            self.start_iteration(r, t);
        }
    }

    /// Schedules replica `r`'s next iteration starting at `t`, or leaves it idle when it has nothing to do.
    fn start_iteration(&mut self, r: usize, t: f64) {
        let held = self.replicas[r].kv.used;
        if let Some(observer) = self.observer.as_deref_mut() {
            observer.before_plan(&self.replicas[r], &self.requests);
        }
        let plan = self.plan_iteration(r, t);
        let rep = &mut self.replicas[r];
        self.kv_used = self.kv_used - held + rep.kv.used;
        if plan.decoding == 0 && plan.prefill_tokens == 0 {
            debug_assert!(
                rep.admitted() == 0,
                "a replica with sequences always has work"
            );
            rep.busy_until = f64::INFINITY;
            return;
        }
        rep.decoding_in_iteration = plan.decoding;
        rep.completing = plan.completing;
        // Attention reads the decoding sequences' KV only in a step they decode in.
        let context = if plan.decoding > 0 { rep.context } else { 0 };
        let duration = self
            .iteration
            .duration(plan.prefill_tokens, plan.decoding, context);
        rep.busy_until = t + duration;
        self.prefill_computed += plan.prefill_tokens;
        if let Some(replay) = self.replay.as_deref_mut() {
            if plan.decoding > 0 {
                // Each decoding sequence's previous token came at this iteration's start.
                replay.itl.record(duration, plan.decoding);
            }
        }
        self.rec.peak_batch = self.rec.peak_batch.max(rep.admitted() as u32);
        if let Some(observer) = self.observer.as_deref_mut() {
            observer.iteration(batch::Step {
                replica: r,
                start: t,
                plan: &plan,
                rep: &self.replicas[r],
                requests: &self.requests,
                queue: &self.queue,
            });
        }
        if plan.preempted > 0 {
            // The preempted requests wait at the head of the fleet queue: another replica may be idle.
            self.wake_idle_replica(t);
        }
    }

    /// Replica `r`'s scheduler for its next iteration, as vLLM's: the decodes first (with the blocks they need,
    /// preempting if short), then the continuing prefills in admission order, then admissions from the head of the
    /// waiting queue while there is a free slot, token budget and room in the KV cache. With
    /// [`LlmFleet::prefill_first`] (V0, unchunked) the admissions come first and take the whole budget; a step that
    /// admitted any runs only them, and the decodes wait for a step with no prompt to start.
    fn plan_iteration(&mut self, r: usize, t: f64) -> Plan {
        let Self {
            replicas,
            requests,
            queue,
            fleet,
            rec,
            admissions,
            admitted_total,
            ..
        } = self;
        let rep = &mut replicas[r];
        let n = rep.iterations + 1;
        let mut plan = Plan::default();
        let decodes_wait = fleet.prefill_first && !fleet.chunked_prefill && !queue.is_empty();
        // 1. Every decoding sequence decodes one token; those starting a block need it now.
        if !decodes_wait {
            reserve_decodes(rep, requests, queue, rec, &mut plan, n, t);
        }
        let mut preempt =
            |rep: &mut Replica, requests: &mut [Request], queue: &mut VecDeque<u32>| {
                let victim = preempt_newest(rep, requests, queue, n, t);
                if victim.is_some() {
                    record_preemption(rec, t);
                }
                victim
            };
        // 2. The remaining token budget goes to prefills, first come first served.
        let chunked = fleet.chunked_prefill;
        let prefix_caching = fleet.prefix_caching;
        let shared_prefix = u64::from(fleet.shared_prefix_tokens);
        let cap = fleet.max_num_seqs as usize;
        let mut left = u64::from(fleet.max_num_batched_tokens).saturating_sub(plan.decoding);
        let mut i = 0;
        while left > 0 {
            let (id, continuing) = if i < rep.prefilling.len() {
                (rep.prefilling[i], true)
            } else if plan.preempted == 0 && rep.admitted() < cap {
                let Some(&head) = queue.front() else {
                    break;
                };
                (head, false)
            } else {
                break;
            };
            let req = &requests[id as usize];
            // A readmitted request finds what the cache still holds of its context: those tokens are not recomputed.
            let hit = if continuing || !prefix_caching {
                0
            } else {
                cached_prefix(req, &rep.kv, r).max(shared_prefix.min(req.prefill_total() - 1))
            };
            let need = u64::from(req.prefill_left) - hit;
            let take = if chunked {
                need.min(left)
            } else if need <= left || plan.prefill_tokens == 0 {
                // Unchunked, a prompt rides whole; one longer than the budget runs alone.
                need
            } else {
                break;
            };
            let done = req.prefilled() + hit;
            // New blocks, and the cached ones it takes back out of the free queue.
            let blocks = blocks_for(done + take) - blocks_for(done);
            let reused = blocks_for(done) - blocks_for(req.prefilled());
            if blocks + reused > rep.kv.free() {
                if !continuing {
                    // A waiting request needs the blocks of its first chunk; without them it and everyone behind it
                    // keep waiting (first come first served).
                    break;
                }
                // A continuing prefill preempts newer sequences until its chunk fits; if it is the newest, it waits.
                let mut preempted_itself = false;
                while blocks > rep.kv.free() {
                    preempted_itself = rep.prefilling.back() == Some(&id);
                    if preempt(rep, requests, queue).is_none() {
                        break;
                    }
                    plan.preempted += 1;
                    if preempted_itself {
                        break;
                    }
                }
                if preempted_itself {
                    break;
                }
            }
            if !continuing {
                queue.pop_front();
                requests[id as usize].admitted = *admissions;
                requests[id as usize].replica = r as u32;
                *admissions += 1;
                rep.prefilling.push_back(id);
                *admitted_total += 1;
            }
            rep.kv.used += blocks + reused;
            rep.kv.head += blocks;
            let req = &mut requests[id as usize];
            req.prefill_left -= (take + hit) as u32;
            req.cache_blocks = 0;
            plan.prefill_tokens += take;
            left = left.saturating_sub(take);
            if req.prefill_left == 0 {
                plan.completing += 1;
            }
            i += 1;
        }
        if decodes_wait && plan.prefill_tokens == 0 {
            // No prompt could start (no slot or no room in the cache): the decodes run after all.
            reserve_decodes(rep, requests, queue, rec, &mut plan, n, t);
        }
        *admitted_total -= plan.preempted;
        plan
    }

    fn end_iteration(&mut self, r: usize, t: f64) {
        let rep = &mut self.replicas[r];
        let held = rep.kv.used;
        // The clock counts steps that decoded (a decoding sequence's tokens and KV are read off it), so a step of
        // prefills alone (V0's, with the decodes waiting) moves no decoding sequence on.
        if rep.decoding_in_iteration > 0 {
            rep.iterations += 1;
        }
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
            rep.kv.phase[req.phase()] -= 1;
            let freed = blocks_for(req.kv_tokens_in(k));
            rep.kv.used -= freed;
            rep.kv.tail += freed;
            let tpot = (t - req.first_token) / f64::from(req.output - 1);
            self.finish(id, req, t, Some(tpot));
        }
        // Sequences whose prefill completed: a token now (the first, unless a recompute), decoding from the next
        // iteration on.
        for _ in 0..std::mem::take(&mut self.replicas[r].completing) {
            let rep = &mut self.replicas[r];
            let id = rep
                .prefilling
                .pop_front()
                .expect("completing sequences are at the front");
            let req = &mut self.requests[id as usize];
            if req.generated == 0 {
                req.first_token = t;
                self.admission.first_token(req.prompt);
                if let Some(log) = self
                    .replay
                    .as_deref_mut()
                    .and_then(|r| r.log.as_deref_mut())
                {
                    log.first_tokens
                        .push((t, t - (req.arrival - self.overhead)));
                }
            } else if let Some(replay) = self.replay.as_deref_mut() {
                // A recompute yields the token after the preempted ones: one gap, the whole stall.
                replay.itl.record(t - req.last_token, 1);
            }
            req.decode_from = k;
            if req.generated + 1 >= req.output {
                let req = *req;
                let freed = blocks_for(req.prefill_total());
                rep.kv.used -= freed;
                rep.kv.tail += freed;
                let tpot =
                    (req.output > 1).then(|| (t - req.first_token) / f64::from(req.output - 1));
                self.finish(id, req, t, tpot);
            } else {
                let last = k + u64::from(req.output - req.generated) - 1;
                rep.decoding.push(Reverse((last, id)));
                rep.context += req.prefill_total() + 1;
                rep.kv.phase[req.phase()] += 1;
            }
        }
        self.kv_used -= held - self.replicas[r].kv.used;
        self.start_iteration(r, t);
        self.set_occupancy(t);
    }

    fn finish(&mut self, id: u32, req: Request, t: f64, tpot: Option<f64>) {
        self.admitted_total -= 1;
        self.free_slots.push(id);
        self.rec.completion(req.output);
        // The request was sent `overhead` before it reached the queue.
        let sent = req.arrival - self.overhead;
        let trace = RequestTrace {
            index: req.index,
            arrival: sent,
            first_token: req.first_token,
            finish: t,
            prompt_tokens: req.prompt,
            output_tokens: req.output,
            replica: req.replica,
        };
        let sample = Sample {
            first: req.first_token - sent,
            tpot,
            total: t - sent,
            trace,
        };
        if let Some(replay) = self.replay.as_deref_mut() {
            replay.finished(&trace, &self.scenario.slo);
        }
        self.rec.sample(req.index, sample);
        if let Arrivals::Closed { .. } = self.scenario.arrivals {
            self.think_again(t);
        }
    }

    /// A closed-loop user got its answer (or a refusal) at `t`: it thinks, then sends again, and the request reaches
    /// the queue after the front end's overhead.
    fn think_again(&mut self, t: f64) {
        let z = self.think_time * self.rng_think.sample::<f64, _>(Exp1);
        self.sends.push(Reverse(super::Time(t + z + self.overhead)));
    }
}
