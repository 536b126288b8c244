//! A replica's KV cache in blocks, as vLLM's V1 scheduler keeps it: the blocks its sequences hold, the free-block
//! queue whose untouched blocks are the prefix cache, and preempting the newest sequence when a block is short.

use super::request::Request;
use super::Replica;
use crate::scenario::KV_BLOCK_TOKENS;
use std::cmp::Reverse;
use std::collections::VecDeque;

/// Blocks that hold `tokens` tokens.
#[inline(always)]
pub(super) fn blocks_for(tokens: u64) -> u64 {
    tokens.div_ceil(KV_BLOCK_TOKENS)
}

/// One replica's KV cache, in blocks.
#[derive(Debug)]
pub(super) struct KvBlocks {
    /// Blocks of the cache (`u64::MAX` without a budget).
    pub(super) total: u64,
    /// Blocks held by the replica's sequences.
    pub(super) used: u64,
    /// Decoding sequences by `(KV tokens − iteration) mod 16`: in iteration `n` the group `(1 − n) mod 16` holds the
    /// sequences whose token starts a new block.
    pub(super) phase: [u32; KV_BLOCK_TOKENS as usize],
    /// The free-block queue as vLLM keeps it (least recently freed first), as two counters: blocks ever taken from
    /// its front (new allocations evict the oldest cached contents) ...
    pub(super) head: u64,
    /// ... and one past the position of the last block put at its back (initially every block is free: `total`).
    pub(super) tail: u64,
}

impl KvBlocks {
    #[inline(always)]
    pub(super) fn free(&self) -> u64 {
        self.total - self.used
    }

    /// The group whose sequences start a block in iteration `n`.
    #[inline(always)]
    pub(super) fn starting_block_in(n: u64) -> usize {
        ((1 + KV_BLOCK_TOKENS - n % KV_BLOCK_TOKENS) % KV_BLOCK_TOKENS) as usize
    }

    /// New blocks the decoding sequences need in iteration `n`.
    #[inline(always)]
    pub(super) fn decode_blocks(&self, n: u64) -> u64 {
        u64::from(self.phase[Self::starting_block_in(n)])
    }
}

/// Preempts `rep`'s most recently admitted sequence at the start of its iteration `n`: frees its blocks and puts its
/// request back at the front of the waiting `queue`, to recompute its prefill (prompt and the tokens it generated)
/// when readmitted. `t` is the iteration's start. Returns whether it was a decoding sequence that needed a new block
/// in `n`, or `None` when the replica has no sequence left.
pub(super) fn preempt_newest(
    rep: &mut Replica,
    requests: &mut [Request],
    queue: &mut VecDeque<u32>,
    n: u64,
    t: f64,
) -> Option<bool> {
    // Prefilling sequences were all admitted after the decoding ones.
    let (id, needed_a_block) = if let Some(id) = rep.prefilling.pop_back() {
        let req = &mut requests[id as usize];
        let cached = req.prefilled();
        leave_in_cache(&mut rep.kv, req, cached);
        req.prefill_left = req.prefill_total() as u32;
        (id, false)
    } else {
        let &Reverse((_, id)) = rep
            .decoding
            .iter()
            .max_by_key(|Reverse((_, id))| requests[*id as usize].admitted)?;
        rep.decoding.retain(|&Reverse((_, other))| other != id);
        let req = &mut requests[id as usize];
        let phase = req.phase();
        rep.kv.phase[phase] -= 1;
        let cached = req.kv_tokens_in(n) - 1;
        leave_in_cache(&mut rep.kv, req, cached);
        let generated = req.generated + (n - req.decode_from) as u32;
        rep.context -= u64::from(req.prompt) + u64::from(generated);
        req.generated = generated;
        req.prefill_left = req.prefill_total() as u32;
        // Its latest token came out of the previous iteration, which ended as this one starts.
        req.last_token = t;
        (id, phase == KvBlocks::starting_block_in(n))
    };
    queue.push_front(id);
    Some(needed_a_block)
}

/// Frees the blocks of a preempted sequence holding `tokens` tokens of KV, as vLLM does: put at the back of the free
/// queue, its last block first, so that new allocations evict its tail before its prefix; they keep their contents
/// (the prefix cache) until then.
pub(super) fn leave_in_cache(kv: &mut KvBlocks, req: &mut Request, tokens: u64) {
    let blocks = blocks_for(tokens);
    kv.used -= blocks;
    kv.tail += blocks;
    req.cache_top = kv.tail;
    // Only whole blocks are cached (a partial block has no hash).
    req.cache_blocks = (tokens / KV_BLOCK_TOKENS) as u32;
}

/// Tokens of a waiting request's context that replica `r`'s cache still holds: the whole blocks it left there when
/// preempted on `r` whose free-queue positions the allocations since have not reached, counted from its first block
/// (a prefix); at least one token is always computed, as vLLM recomputes the last token of a full hit.
#[inline]
pub(super) fn cached_prefix(req: &Request, kv: &KvBlocks, r: usize) -> u64 {
    if req.cache_blocks == 0 || req.replica as usize != r {
        return 0;
    }
    // Block i of the prefix sits at position cache_top − 1 − i and survives while head ≤ that position.
    let surviving = req.cache_top.saturating_sub(kv.head);
    let blocks = surviving.min(u64::from(req.cache_blocks));
    (blocks * KV_BLOCK_TOKENS).min(req.prefill_total() - 1)
}
