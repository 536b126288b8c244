//! Inside the batch: what one replica's scheduler put in each iteration over a window of a run, slot by slot, and the
//! whole life of one request — the record a batch timeline draws.
//!
//! Recording is opt-in. An ordinary run has no observer and pays one `is_some` test per iteration and per arrival;
//! [`trace_batch`] attaches a [`BatchObserver`] to a run of its own, which sees every iteration as the scheduler
//! planned it (nothing is re-derived, so the record cannot disagree with the model) and stops the run as soon as the
//! window is over and the followed request has finished. The record is bounded whatever the window asks for: at most
//! [`MAX_ITERATIONS`] iterations and [`MAX_CELLS`] cells (past either the window is cut short and
//! [`BatchTrace::truncated`] says so), and the followed request keeps at most [`MAX_CHUNKS`] chunks and
//! [`MAX_PHASES`] phases.
//!
//! **Slots.** vLLM keeps no slot numbers: its running batch is a list. A timeline needs rows, so each sequence gets the
//! lowest free row when it is admitted (or when the window opens on it) and keeps it until it leaves the batch —
//! finished or preempted. A replica never holds more than `max_num_seqs` sequences, so rows never exceed it.

use super::{LlmSim, Plan, Replica, Request};
use crate::scenario::{IterationModel, Scenario, ScenarioError, ServiceKind};
use serde::Serialize;
use std::collections::VecDeque;

/// Most iterations a trace keeps.
pub const MAX_ITERATIONS: usize = 2_048;
/// Most cells (one sequence in one iteration) a trace keeps: about 3 MB.
pub const MAX_CELLS: usize = 1 << 17;
/// Most prefill chunks kept of the followed request (more are counted, not kept).
pub const MAX_CHUNKS: usize = 256;
/// Most phases kept of the followed request (each preemption adds two or three).
pub const MAX_PHASES: usize = 64;

/// What [`trace_batch`] records.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSpec {
    /// The replica whose iterations are recorded (0 for the first).
    pub replica: u32,
    /// Iterations starting at or after this time (seconds of the run) are recorded…
    pub from: f64,
    /// …and none starting at or after this one.
    pub until: f64,
    /// A request to follow through its whole life, on whichever replica serves it, by arrival index.
    pub follow: Option<u64>,
    /// With `follow`: close the window `linger` seconds after the followed request finishes, but not before
    /// `not_before` (and never after `until`). `None` keeps the window to `until`.
    pub end_after_follow: Option<EndAfterFollow>,
}

/// When a window that follows a request closes (see [`TraceSpec::end_after_follow`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EndAfterFollow {
    /// Seconds after the followed request's last token.
    pub linger: f64,
    /// The earliest the window may close.
    pub not_before: f64,
}

/// One replica's iterations over a window, and the followed request's life.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BatchTrace {
    /// The replica recorded.
    pub replica: u32,
    /// `--max-num-seqs`: slots per replica.
    pub max_num_seqs: u32,
    /// `--max-num-batched-tokens`: tokens per iteration.
    pub max_num_batched_tokens: u32,
    /// `--enable-chunked-prefill`.
    pub chunked_prefill: bool,
    /// The iteration-time model every iteration's length comes from.
    pub iteration_model: IterationModel,
    /// Blocks of the replica's KV cache (`None` without a budget).
    pub kv_blocks: Option<u64>,
    /// Start of the window, seconds of the run.
    pub from: f64,
    /// End of the window: no recorded iteration starts at or after it.
    pub until: f64,
    /// The iterations in order; their cells are `cells[first_cell..first_cell + cell_count]`.
    pub iterations: Vec<IterationRecord>,
    /// Every sequence of every recorded iteration.
    pub cells: Vec<Cell>,
    /// Whether the window was cut short at [`MAX_ITERATIONS`] or [`MAX_CELLS`].
    pub truncated: bool,
    /// The followed request, if one was asked for and it arrived during the run.
    pub followed: Option<FollowedRequest>,
}

impl BatchTrace {
    /// The cells of `iteration`.
    pub fn cells_of(&self, iteration: &IterationRecord) -> &[Cell] {
        let first = iteration.first_cell as usize;
        &self.cells[first..first + iteration.cell_count as usize]
    }
}

/// One iteration of the recorded replica, as its scheduler planned it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct IterationRecord {
    /// The replica's iteration number (1 for its first).
    pub number: u64,
    /// When it started, seconds of the run.
    pub start: f64,
    /// When it ended: `start` + [`IterationModel::duration`] of its content.
    pub end: f64,
    /// Prompt (and recompute) tokens prefilled.
    pub prefill_tokens: u64,
    /// Sequences that decoded one token each.
    pub decode_seqs: u64,
    /// Context tokens the decoding sequences attended.
    pub context_tokens: u64,
    /// Sequences in the running batch (`num_requests_running` of this replica).
    pub busy_slots: u32,
    /// Requests in the fleet's waiting queue once it was scheduled (`num_requests_waiting`).
    pub waiting: u32,
    /// KV blocks the replica held once it was scheduled.
    pub kv_blocks_used: u64,
    /// Sequences preempted to make room for it.
    pub preempted: u32,
    /// Index of its first cell in [`BatchTrace::cells`].
    pub first_cell: u32,
    /// Its cells: one per sequence in the batch, and one per sequence preempted.
    pub cell_count: u32,
}

impl IterationRecord {
    /// Its length, seconds.
    pub fn duration(&self) -> f64 {
        self.end - self.start
    }
}

/// One sequence in one iteration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Its row, below `max_num_seqs`.
    pub slot: u32,
    /// The request, by arrival index.
    pub request: u64,
    /// What it did.
    pub work: Work,
}

/// What a sequence did in an iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Work {
    /// Prefilled `tokens` of its prompt (or, when `recompute`, of its prompt and the tokens it had generated before
    /// being preempted). `completes`: the prefill ends here, and the iteration yields its first token (or, after a
    /// recompute, its next one).
    Prefill {
        /// Tokens of this chunk.
        tokens: u32,
        /// Whether this chunk ends the prefill.
        completes: bool,
        /// Whether it recomputes after a preemption.
        recompute: bool,
    },
    /// Admitted and mid-prefill, but older prompts took the token budget: it holds its slot and waits.
    Stalled,
    /// Decoded one token.
    Decode,
    /// Preempted at the start of this iteration: its KV blocks freed, it went back to the front of the queue.
    Preempted,
}

/// What a followed request was doing over a stretch of its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseKind {
    /// In the fleet's waiting queue: not admitted, or preempted and not yet readmitted.
    Waiting,
    /// Admitted, prefilling its prompt (in chunks when chunked prefill splits it).
    Prefill,
    /// Readmitted after a preemption, recomputing its prompt and the tokens it had generated.
    Recompute,
    /// Decoding, one token per iteration.
    Decode,
}

/// A stretch of a followed request's life. The phases of a request follow each other without gaps from its arrival
/// to its last token.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Phase {
    /// What it was doing.
    pub kind: PhaseKind,
    /// Start, seconds of the run.
    pub start: f64,
    /// End, seconds of the run.
    pub end: f64,
    /// Iterations (of any replica) that started during it.
    pub iterations: u32,
    /// Of those, the ones whose replica had every slot busy.
    pub iterations_with_slots_full: u32,
    /// Prefill and recompute: the chunks (iterations that gave it tokens).
    pub chunks: u32,
    /// Prefill and recompute: tokens computed; decode: tokens generated.
    pub tokens: u64,
    /// Decode: the longest iteration it waited through for one token, seconds.
    pub longest_step: f64,
}

impl Phase {
    /// Its length, seconds.
    pub fn duration(&self) -> f64 {
        self.end - self.start
    }
}

/// One prefill chunk of the followed request.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Chunk {
    /// The iteration's start, seconds of the run.
    pub start: f64,
    /// The iteration's end.
    pub end: f64,
    /// Tokens prefilled.
    pub tokens: u32,
    /// Whether it recomputed after a preemption.
    pub recompute: bool,
}

/// The whole life of one request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FollowedRequest {
    /// Arrival index.
    pub index: u64,
    /// Arrival, seconds of the run.
    pub arrival: f64,
    /// Prompt tokens.
    pub prompt_tokens: u32,
    /// Output tokens.
    pub output_tokens: u32,
    /// The replica that served it last.
    pub replica: Option<u32>,
    /// Its first token (TTFT = this − arrival), once it came.
    pub first_token: Option<f64>,
    /// Its last token, once it came.
    pub finish: Option<f64>,
    /// Its life in phases, in order, without gaps.
    pub phases: Vec<Phase>,
    /// Every prefill chunk (at most [`MAX_CHUNKS`]).
    pub chunks: Vec<Chunk>,
    /// Times it was preempted.
    pub preemptions: u32,
}

impl FollowedRequest {
    /// Prefill chunks over its life (the first prefill and any recompute), kept or not.
    pub fn chunk_count(&self) -> u32 {
        self.phases.iter().map(|p| p.chunks).sum()
    }

    /// Time to first token, once it came.
    pub fn ttft(&self) -> Option<f64> {
        Some(self.first_token? - self.arrival)
    }

    /// End-to-end latency, once it finished.
    pub fn e2e(&self) -> Option<f64> {
        Some(self.finish? - self.arrival)
    }
}

/// Runs `scenario` with `seed` — the very run [`crate::run`] makes — and records `spec`'s window and followed
/// request. The run stops once both are complete (or at its end).
pub fn trace_batch(
    scenario: &Scenario,
    seed: u64,
    spec: &TraceSpec,
) -> Result<BatchTrace, ScenarioError> {
    scenario.validate()?;
    let ServiceKind::Llm(fleet) = &scenario.service else {
        return Err(ScenarioError {
            field: "service".to_owned(),
            problem: "is the textbook queue, which has no batch to trace".to_owned(),
        });
    };
    if spec.replica >= fleet.replicas {
        return Err(ScenarioError {
            field: "service.llm.replicas".to_owned(),
            problem: format!(
                "is {}, so there is no replica {} to trace",
                fleet.replicas, spec.replica
            ),
        });
    }
    let mut sim = LlmSim::new(scenario, seed);
    sim.observer = Some(Box::new(BatchObserver::new(spec.clone(), scenario)));
    // A few hundred requests at a time, so the run stops soon after the trace is complete.
    const STEP: u64 = 256;
    let mut target = 0;
    loop {
        target = (target + STEP).min(scenario.customers);
        sim.advance_to(target);
        let done = sim.observer.as_ref().is_none_or(|o| o.done);
        if done || target >= scenario.customers {
            break;
        }
    }
    let observer = sim.observer.take().expect("attached above");
    Ok(observer.finish())
}

/// An iteration as the observer sees it, right after its replica's scheduler planned it.
pub(super) struct Step<'a> {
    pub replica: usize,
    pub start: f64,
    pub plan: &'a Plan,
    pub rep: &'a Replica,
    pub requests: &'a [Request],
    pub queue: &'a VecDeque<u32>,
}

impl Step<'_> {
    /// The sequences preempted for this iteration: the scheduler put them at the front of the queue, and admits
    /// nobody in an iteration that preempted.
    fn victims(&self) -> impl Iterator<Item = u32> + '_ {
        self.queue
            .iter()
            .take(self.plan.preempted as usize)
            .copied()
    }
}

/// Records a [`BatchTrace`] while a run goes on (see [`trace_batch`]).
pub(crate) struct BatchObserver {
    spec: TraceSpec,
    trace: BatchTrace,
    /// The planned replica's continuing prefills before its scheduler ran: `(id, prefill_left)`.
    before: Vec<(u32, u32)>,
    slots: Slots,
    follow: Option<Follow>,
    /// Where the window closes: `spec.until` until the followed request finishes.
    window_end: f64,
    /// Both the window and the followed request are complete: nothing more to record.
    done: bool,
    max_num_seqs: u32,
    /// Scratch: the batch's sequences in admission order, and their `(id, index)` keys.
    members: Vec<(u32, Work)>,
    keys: Vec<(u32, u64)>,
}

impl BatchObserver {
    fn new(spec: TraceSpec, scenario: &Scenario) -> Self {
        let ServiceKind::Llm(fleet) = &scenario.service else {
            unreachable!("checked by trace_batch")
        };
        let follow = spec.follow.map(Follow::new);
        BatchObserver {
            trace: BatchTrace {
                replica: spec.replica,
                max_num_seqs: fleet.max_num_seqs,
                max_num_batched_tokens: fleet.max_num_batched_tokens,
                chunked_prefill: fleet.chunked_prefill,
                iteration_model: fleet.iteration.clone(),
                kv_blocks: fleet.kv_cache.blocks(),
                from: spec.from,
                until: spec.until,
                iterations: Vec::new(),
                cells: Vec::new(),
                truncated: false,
                followed: None,
            },
            window_end: spec.until,
            spec,
            before: Vec::new(),
            slots: Slots::new(fleet.max_num_seqs),
            follow,
            done: false,
            max_num_seqs: fleet.max_num_seqs,
            members: Vec::new(),
            keys: Vec::new(),
        }
    }

    fn finish(mut self) -> BatchTrace {
        self.trace.until = self.window_end;
        self.trace.followed = self.follow.and_then(|f| f.arrived.then_some(f.record));
        self.trace
    }

    /// Request `index` arrived at `t` and sits in `requests[id]`.
    pub(super) fn arrived(&mut self, index: u64, id: u32, t: f64) {
        if let Some(follow) = self.follow.as_mut().filter(|f| f.record.index == index) {
            follow.arrive(id, t);
        }
    }

    /// Notes the planned replica's prefill progress before its scheduler runs.
    pub(super) fn before_plan(&mut self, rep: &Replica, requests: &[Request]) {
        if self.done {
            return;
        }
        self.before.clear();
        self.before.extend(
            rep.prefilling
                .iter()
                .map(|&id| (id, requests[id as usize].prefill_left)),
        );
    }

    /// Tokens the sequence `id` (prefilling in `step`) was given in it.
    fn chunk_tokens(&self, step: &Step<'_>, id: u32) -> u32 {
        let req = &step.requests[id as usize];
        let left_before = self
            .before
            .iter()
            .find(|(other, _)| *other == id)
            .map_or(req.prefill_total() as u32, |&(_, left)| left);
        left_before - req.prefill_left
    }

    /// One iteration, just planned.
    pub(super) fn iteration(&mut self, step: Step<'_>) {
        if self.done {
            return;
        }
        let number = step.rep.iterations + 1;
        let end = step.rep.busy_until;
        let slots_full = step.rep.admitted() as u32 >= self.max_num_seqs;
        if let Some(mut follow) = self.follow.take() {
            follow.step(self, &step, number, end, slots_full);
            if let (Some(finish), Some(after)) = (follow.record.finish, self.spec.end_after_follow)
            {
                self.window_end = (finish + after.linger)
                    .max(after.not_before)
                    .min(self.spec.until);
            }
            self.follow = Some(follow);
        }
        let recorded = step.replica as u32 == self.spec.replica;
        if recorded && step.start >= self.spec.from && step.start < self.window_end {
            self.record(&step, number, end);
        }
        let followed_done = self.follow.as_ref().is_none_or(Follow::finished);
        if step.start >= self.window_end && followed_done {
            self.done = true;
        }
    }

    fn record(&mut self, step: &Step<'_>, number: u64, end: f64) {
        let Step {
            rep,
            requests,
            plan,
            ..
        } = step;
        let cells_needed = rep.admitted() + plan.preempted as usize;
        if self.trace.iterations.len() >= MAX_ITERATIONS
            || self.trace.cells.len() + cells_needed > MAX_CELLS
        {
            self.trace.truncated = true;
            self.window_end = step.start;
            return;
        }
        // The batch in admission order (the order new rows are handed out in): the decoding sequences were all
        // admitted before the prefilling ones.
        let mut members = std::mem::take(&mut self.members);
        members.clear();
        let mut decoding: Vec<u32> = rep.decoding.iter().map(|entry| entry.0 .1).collect();
        decoding.sort_unstable_by_key(|&id| requests[id as usize].admitted);
        members.extend(decoding.into_iter().map(|id| (id, Work::Decode)));
        for &id in &rep.prefilling {
            let req = &requests[id as usize];
            let tokens = self.chunk_tokens(step, id);
            let work = if tokens == 0 {
                Work::Stalled
            } else {
                Work::Prefill {
                    tokens,
                    completes: req.prefill_left == 0,
                    recompute: req.generated > 0,
                }
            };
            members.push((id, work));
        }
        members.extend(step.victims().map(|id| (id, Work::Preempted)));
        let index_of = |id: u32| requests[id as usize].index;
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        keys.extend(members.iter().map(|&(id, _)| (id, index_of(id))));
        self.slots.assign(number, &keys);
        let first_cell = self.trace.cells.len() as u32;
        for (&(_, work), &(id, request)) in members.iter().zip(&keys) {
            let slot = self.slots.of(id, request).expect("assigned above");
            self.trace.cells.push(Cell {
                slot,
                request,
                work,
            });
        }
        // A preempted sequence leaves the batch now: its row is free for the next admission.
        for id in step.victims() {
            self.slots.release(id, index_of(id));
        }
        self.members = members;
        self.keys = keys;
        self.trace.iterations.push(IterationRecord {
            number,
            start: step.start,
            end,
            prefill_tokens: plan.prefill_tokens,
            decode_seqs: plan.decoding,
            context_tokens: rep.context,
            busy_slots: rep.admitted() as u32,
            waiting: step.queue.len() as u32,
            kv_blocks_used: rep.kv.used,
            preempted: plan.preempted,
            first_cell,
            cell_count: self.trace.cells.len() as u32 - first_cell,
        });
    }
}

/// Rows of the timeline: the lowest free row for each sequence that joins, kept until it leaves. Sequences are keyed
/// by their place in the simulator's request table (`id`), which a request keeps while it is in the batch; a row
/// also remembers its request's arrival index, since a finished request's place is reused by a later one.
struct Slots {
    /// Each row's request, by arrival index.
    holder: Vec<Option<u64>>,
    /// The iteration in which each row's holder was last seen.
    seen: Vec<u64>,
    /// The row of each place in the request table (`NO_ROW`: none).
    row_of_id: Vec<u32>,
}

const NO_ROW: u32 = u32::MAX;

impl Slots {
    fn new(max_num_seqs: u32) -> Self {
        let rows = max_num_seqs as usize;
        Slots {
            holder: vec![None; rows],
            seen: vec![0; rows],
            row_of_id: Vec::new(),
        }
    }

    /// The row of the sequence at `id` in the request table, whose arrival index is `index`.
    fn of(&self, id: u32, index: u64) -> Option<u32> {
        let row = *self.row_of_id.get(id as usize)?;
        (row != NO_ROW && self.holder[row as usize] == Some(index)).then_some(row)
    }

    /// Iteration `number` holds `batch` (`(id, index)` in admission order): rows of sequences that left are freed,
    /// then each newcomer takes the lowest free row.
    fn assign(&mut self, number: u64, batch: &[(u32, u64)]) {
        for &(id, index) in batch {
            if let Some(row) = self.of(id, index) {
                self.seen[row as usize] = number;
            }
        }
        for row in 0..self.holder.len() {
            if self.holder[row].is_some() && self.seen[row] != number {
                self.holder[row] = None;
            }
        }
        let mut free = 0;
        for &(id, index) in batch {
            if self.of(id, index).is_some() {
                continue;
            }
            // A replica never holds more than max_num_seqs sequences, so a row is always free.
            while free < self.holder.len() && self.holder[free].is_some() {
                free += 1;
            }
            if free < self.holder.len() {
                self.holder[free] = Some(index);
                self.seen[free] = number;
                if self.row_of_id.len() <= id as usize {
                    self.row_of_id.resize(id as usize + 1, NO_ROW);
                }
                self.row_of_id[id as usize] = free as u32;
            }
        }
    }

    fn release(&mut self, id: u32, index: u64) {
        if let Some(row) = self.of(id, index) {
            self.holder[row as usize] = None;
        }
    }
}

/// The followed request's life as it happens.
struct Follow {
    record: FollowedRequest,
    arrived: bool,
    /// Its slot in the simulator's request table, once it arrived.
    id: u32,
    /// The phase going on, not yet in `record.phases`.
    open: Option<Phase>,
    /// While it decodes: its replica and the replica iteration that yields its last token.
    decoding_on: Option<(usize, u64)>,
}

impl Follow {
    fn new(index: u64) -> Self {
        Follow {
            record: FollowedRequest {
                index,
                arrival: 0.0,
                prompt_tokens: 0,
                output_tokens: 0,
                replica: None,
                first_token: None,
                finish: None,
                phases: Vec::new(),
                chunks: Vec::new(),
                preemptions: 0,
            },
            arrived: false,
            id: 0,
            open: None,
            decoding_on: None,
        }
    }

    fn finished(&self) -> bool {
        self.record.finish.is_some()
    }

    fn arrive(&mut self, id: u32, t: f64) {
        self.arrived = true;
        self.id = id;
        self.record.arrival = t;
        self.open = Some(phase(PhaseKind::Waiting, t));
    }

    /// Closes the open phase at `t` and opens `next` there (none once it finished).
    fn switch(&mut self, t: f64, next: Option<PhaseKind>) {
        if let Some(mut done) = self.open.take() {
            done.end = t;
            if self.record.phases.len() < MAX_PHASES {
                self.record.phases.push(done);
            }
        }
        self.open = next.map(|kind| phase(kind, t));
    }

    fn step(
        &mut self,
        observer: &BatchObserver,
        step: &Step<'_>,
        number: u64,
        end: f64,
        slots_full: bool,
    ) {
        if !self.arrived || self.finished() {
            return;
        }
        let id = self.id;
        let req = &step.requests[id as usize];
        if step.victims().any(|victim| victim == id) {
            self.record.preemptions += 1;
            self.decoding_on = None;
            self.switch(step.start, Some(PhaseKind::Waiting));
        }
        if let Some((replica, last)) = self.decoding_on {
            if replica == step.replica {
                let open = self.open.as_mut().expect("decoding has an open phase");
                open.iterations += 1;
                open.tokens += 1;
                open.longest_step = open.longest_step.max(end - step.start);
                if number == last {
                    self.record.finish = Some(end);
                    self.decoding_on = None;
                    self.switch(end, None);
                }
            }
            return;
        }
        if !step.rep.prefilling.contains(&id) {
            // Still waiting (or preempted just now): this iteration runs without it.
            if let Some(open) = self.open.as_mut().filter(|p| p.kind == PhaseKind::Waiting) {
                open.iterations += 1;
                open.iterations_with_slots_full += u32::from(slots_full);
            }
            return;
        }
        let recompute = req.generated > 0;
        if self.open.is_some_and(|p| p.kind == PhaseKind::Waiting) {
            let kind = if recompute {
                PhaseKind::Recompute
            } else {
                PhaseKind::Prefill
            };
            self.record.prompt_tokens = req.prompt;
            self.record.output_tokens = req.output;
            self.record.replica = Some(step.replica as u32);
            self.switch(step.start, Some(kind));
        }
        let tokens = observer.chunk_tokens(step, id);
        let open = self.open.as_mut().expect("prefilling has an open phase");
        open.iterations += 1;
        if tokens > 0 {
            open.chunks += 1;
            open.tokens += u64::from(tokens);
            if self.record.chunks.len() < MAX_CHUNKS {
                self.record.chunks.push(Chunk {
                    start: step.start,
                    end,
                    tokens,
                    recompute,
                });
            }
        }
        if req.prefill_left > 0 {
            return;
        }
        // The prefill completes with this iteration: a token at its end.
        if !recompute {
            self.record.first_token = Some(end);
        }
        if req.generated + 1 >= req.output {
            self.record.finish = Some(end);
            self.switch(end, None);
        } else {
            let last = number + u64::from(req.output - req.generated) - 1;
            self.decoding_on = Some((step.replica, last));
            self.switch(end, Some(PhaseKind::Decode));
        }
    }
}

fn phase(kind: PhaseKind, start: f64) -> Phase {
    Phase {
        kind,
        start,
        end: start,
        iterations: 0,
        iterations_with_slots_full: 0,
        chunks: 0,
        tokens: 0,
        longest_step: 0.0,
    }
}
