//! What the batch timeline shows: one replica's iterations, its slots' runs and the followed request, as plain data
//! the lab fills from the simulation.

use crate::model::{IterationModel, StepCost};

/// Slot rows drawn at most; a larger batch draws its remaining slots as one summary row.
pub const MAX_ROWS: u32 = 64;

/// What a sequence (or the followed request) was doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activity {
    /// In the waiting queue, not in the batch (the followed request only).
    Waiting,
    /// Prefilling a chunk of its prompt.
    Prefill,
    /// Recomputing its prompt and earlier output after a preemption.
    Recompute,
    /// In the batch mid-prefill, but the token budget ran out before its turn.
    Stalled,
    /// Decoding one token per iteration.
    Decode,
    /// Preempted at the start of the iteration.
    Preempted,
}

impl Activity {
    /// How the table and the summary name it.
    pub fn label(self) -> &'static str {
        match self {
            Activity::Waiting => "waiting",
            Activity::Prefill => "prefill",
            Activity::Recompute => "recompute",
            Activity::Stalled => "no budget",
            Activity::Decode => "decode",
            Activity::Preempted => "preempted",
        }
    }
}

/// One slot's sequence doing one thing over consecutive iterations: what a row of the timeline is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlotRun {
    /// The slot (row), from 0.
    pub slot: u32,
    /// The request, by arrival index.
    pub request: u64,
    /// What it did.
    pub activity: Activity,
    /// Start of its first iteration, seconds of the run.
    pub start_s: f64,
    /// End of its last iteration.
    pub end_s: f64,
    /// Prefill: tokens over the run; decode: tokens generated.
    pub tokens: u64,
}

/// One iteration of the replica.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimelineStep {
    /// The replica's iteration number.
    pub number: u64,
    /// Start, seconds of the run.
    pub start_s: f64,
    /// End.
    pub end_s: f64,
    /// Prompt (and recompute) tokens prefilled.
    pub prefill_tokens: u64,
    /// Sequences decoding.
    pub decode_seqs: u64,
    /// Context tokens the decoding sequences attended.
    pub context_tokens: u64,
    /// Sequences in the batch.
    pub busy_slots: u32,
    /// Requests waiting in the fleet's queue.
    pub waiting: u32,
    /// Share of the replica's KV cache in use, with a KV budget.
    pub kv_usage: Option<f64>,
    /// Sequences preempted for it.
    pub preempted: u32,
    /// What the followed request did in it (`None` before it arrived or after it finished), with its tokens.
    pub followed: Option<(Activity, u64)>,
}

/// One stretch of the followed request's bar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BarSegment {
    /// What it was doing (a prefill phase is split into its chunks and the iterations it got no budget in).
    pub activity: Activity,
    /// Start, seconds of the run.
    pub start_s: f64,
    /// End.
    pub end_s: f64,
    /// Tokens prefilled or generated in it.
    pub tokens: u64,
}

/// Why the followed request waited before its first token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WaitReason {
    /// It hardly waited.
    #[default]
    None,
    /// Every slot was busy for most of its wait.
    Slot,
    /// The KV cache was full for most of its wait.
    KvCache,
    /// Slots were free, but the prompts ahead of it took the token budget.
    EarlierPrompts,
}

/// The request the timeline follows, as one bar.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FollowedBar {
    /// Arrival index.
    pub request: u64,
    /// Its slot in the window (the last it held), if it was in the batch there.
    pub slot: Option<u32>,
    /// Prompt tokens.
    pub prompt_tokens: u32,
    /// Output tokens.
    pub output_tokens: u32,
    /// Arrival, seconds of the run.
    pub arrival_s: f64,
    /// First token.
    pub first_token_s: Option<f64>,
    /// Last token.
    pub finish_s: Option<f64>,
    /// Its life, in order and without gaps.
    pub segments: Vec<BarSegment>,
    /// Prefill chunks (every prefill and recompute).
    pub chunks: u32,
    /// Times it was preempted.
    pub preemptions: u32,
    /// Time spent waiting before its first token.
    pub wait_s: f64,
    /// Why it waited.
    pub wait_reason: WaitReason,
    /// The longest iteration it waited through for one token, seconds.
    pub longest_step_s: f64,
    /// Whether it is the request the timeline picked from the slow tail (rather than one the reader chose).
    pub from_the_tail: bool,
}

impl FollowedBar {
    /// Time to first token.
    pub fn ttft_s(&self) -> Option<f64> {
        Some(self.first_token_s? - self.arrival_s)
    }

    /// Mean time per output token after the first.
    pub fn tpot_s(&self) -> Option<f64> {
        let (first, last) = (self.first_token_s?, self.finish_s?);
        (self.output_tokens > 1).then(|| (last - first) / f64::from(self.output_tokens - 1))
    }

    /// End-to-end latency.
    pub fn e2e_s(&self) -> Option<f64> {
        Some(self.finish_s? - self.arrival_s)
    }
}

/// Everything the batch timeline shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchTimeline {
    /// Offered load, fraction.
    pub offered_load: f64,
    /// `--enable-chunked-prefill`.
    pub chunked_prefill: bool,
    /// `--max-num-batched-tokens`.
    pub token_budget: u32,
    /// `--max-num-seqs`: the slots.
    pub max_num_seqs: u32,
    /// The window, seconds of the run.
    pub window: (f64, f64),
    /// The iterations in order.
    pub steps: Vec<TimelineStep>,
    /// The slots' cells, merged along each row.
    pub runs: Vec<SlotRun>,
    /// The request followed.
    pub followed: Option<FollowedBar>,
    /// Where every iteration's length comes from: the model's own step time.
    pub iteration_model: IterationModel,
    /// The replica's KV cache, blocks (with a KV budget).
    pub kv_blocks: Option<u64>,
    /// The window was cut short to keep the trace bounded.
    pub truncated: bool,
    /// Why there is nothing to show (the textbook queue, a scenario that cannot run), if so.
    pub note: Option<String>,
}

impl BatchTimeline {
    /// Slot rows drawn (the slots beyond are summarised in one more row).
    pub fn rows(&self) -> u32 {
        self.max_num_seqs.min(MAX_ROWS)
    }

    /// Whether some slots are summarised in a last row.
    pub fn has_overflow(&self) -> bool {
        self.max_num_seqs > MAX_ROWS
    }

    /// Share of iterations in which every slot was busy.
    pub fn slots_full_share(&self) -> f64 {
        let full = self
            .steps
            .iter()
            .filter(|s| s.busy_slots >= self.max_num_seqs)
            .count();
        full as f64 / self.steps.len().max(1) as f64
    }

    /// Mean busy slots per iteration.
    pub fn mean_busy_slots(&self) -> f64 {
        let total: u64 = self.steps.iter().map(|s| u64::from(s.busy_slots)).sum();
        total as f64 / self.steps.len().max(1) as f64
    }

    /// The longest queue seen.
    pub fn max_waiting(&self) -> u32 {
        self.steps.iter().map(|s| s.waiting).max().unwrap_or(0)
    }

    /// An iteration's length by part, by the model that set it.
    pub fn step_cost(&self, step: &TimelineStep) -> StepCost {
        self.iteration_model
            .cost(step.prefill_tokens, step.decode_seqs, step.context_tokens)
    }

    /// The longest iteration.
    pub fn longest_step(&self) -> Option<&TimelineStep> {
        self.steps
            .iter()
            .max_by(|a, b| (a.end_s - a.start_s).total_cmp(&(b.end_s - b.start_s)))
    }

    /// The request drawn at `time` (seconds of the run) in the row at `fraction` of the slots band's height (0 at
    /// its top): what a click on the timeline picks.
    pub fn request_at(&self, fraction: f64, time: f64) -> Option<u64> {
        let rows = self.rows() + u32::from(self.has_overflow());
        if !(0.0..1.0).contains(&fraction) {
            return None;
        }
        let slot = (fraction * f64::from(rows)).floor() as u32;
        self.runs
            .iter()
            .find(|r| r.slot == slot && r.start_s <= time && time < r.end_s)
            .map(|r| r.request)
    }

    /// The requests in the window (in the batch in some iteration), in arrival order.
    pub fn requests(&self) -> Vec<u64> {
        let mut requests: Vec<u64> = self.runs.iter().map(|r| r.request).collect();
        requests.sort_unstable();
        requests.dedup();
        requests
    }

    pub(super) fn x_span(&self) -> (f64, f64) {
        let (from, until) = self.window;
        if until > from {
            (from, until)
        } else {
            (from, from + 1.0)
        }
    }
}
