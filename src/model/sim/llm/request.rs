//! A request's life in the fleet (its lengths, its prefill and decode progress, where its KV was left), and the
//! sampler that draws its token counts.

use super::super::Stream;
use crate::scenario::{LengthDist, KV_BLOCK_TOKENS, MAX_TOKENS};
use rand::Rng;
use rand_distr::Exp1;

/// Draws token counts from a [`LengthDist`].
#[derive(Clone, Debug)]
pub(super) struct LengthSampler {
    dist: LengthDist,
    /// Geometric: `1 / −ln(1 − 1/mean)`, so `1 + ⌊E · this⌋` with `E ~ Exp(1)` is geometric with that mean.
    scale: f64,
    /// Geometric: the longest length (its cut, or the largest accepted).
    cap: f64,
}

impl LengthSampler {
    pub(super) fn new(dist: &LengthDist) -> Self {
        let (scale, cap) = match *dist {
            LengthDist::Geometric { mean, max } => (
                if mean > 1.0 {
                    1.0 / -(1.0 - 1.0 / mean).ln()
                } else {
                    0.0
                },
                f64::from(max.unwrap_or(MAX_TOKENS).min(MAX_TOKENS)),
            ),
            _ => (0.0, f64::from(MAX_TOKENS)),
        };
        Self {
            dist: dist.clone(),
            scale,
            cap,
        }
    }

    #[inline]
    pub(super) fn sample(&self, rng: &mut Stream) -> u32 {
        match &self.dist {
            LengthDist::Fixed { tokens } => *tokens,
            LengthDist::Uniform { min, max } => rng.random_range(*min..=*max),
            LengthDist::Geometric { .. } => {
                let e: f64 = rng.sample(Exp1);
                (1.0 + (e * self.scale).floor()).min(self.cap) as u32
            }
            LengthDist::Empirical { tokens } => tokens[rng.random_range(0..tokens.len())],
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Request {
    pub(super) index: u64,
    pub(super) arrival: f64,
    pub(super) prompt: u32,
    pub(super) output: u32,
    /// Output tokens generated before the current prefill: 0, or what a preempted sequence had (its recompute covers
    /// them).
    pub(super) generated: u32,
    /// Prefill tokens still to compute in the current prefill.
    pub(super) prefill_left: u32,
    /// Time of the first token (kept through preemptions).
    pub(super) first_token: f64,
    /// Time of the latest token before a preemption (for the stall's inter-token gap).
    pub(super) last_token: f64,
    /// The replica iteration that completed the current prefill; the sequence decodes from the next one on.
    pub(super) decode_from: u64,
    /// Admission stamp: the highest is the most recently admitted.
    pub(super) admitted: u64,
    /// After a preemption: one past the free-queue position of its first block ([`KvBlocks::tail`]); its prefix
    /// blocks are still cached while the replica's `head` has not passed them.
    pub(super) cache_top: u64,
    /// After a preemption: the whole blocks it left in the cache (0: none to find).
    pub(super) cache_blocks: u32,
    /// The replica that admitted it (last, if it was preempted and readmitted).
    pub(super) replica: u32,
}

impl Request {
    /// Tokens the current prefill covers: the prompt and any tokens generated before a preemption.
    #[inline(always)]
    pub(super) fn prefill_total(&self) -> u64 {
        u64::from(self.prompt) + u64::from(self.generated)
    }

    /// Tokens of the current prefill already computed (their KV is cached).
    #[inline(always)]
    pub(super) fn prefilled(&self) -> u64 {
        self.prefill_total() - u64::from(self.prefill_left)
    }

    /// A decoding sequence's KV tokens in replica iteration `n` (> `decode_from`): the prefill plus one per decode.
    #[inline(always)]
    pub(super) fn kv_tokens_in(&self, n: u64) -> u64 {
        self.prefill_total() + (n - self.decode_from)
    }

    /// Which [`KvBlocks::phase`] group a decoding sequence belongs to.
    #[inline(always)]
    pub(super) fn phase(&self) -> usize {
        let blk = KV_BLOCK_TOKENS;
        ((self.prefill_total() % blk + blk - self.decode_from % blk) % blk) as usize
    }
}
