//! Admission control at arrival, as vLLM's front end applies `--max-num-queued-reqs` and `--max-num-queued-tokens`
//! (vllm-project/vllm PR #49445): before a request enters the engine, it is turned away with HTTP 503 when the
//! requests in flight (waiting + running) already reach the request cap, or when the prompt tokens of the requests
//! still in their prefill phase, with its own, would exceed the token cap. The request cap is checked first.
//!
//! The fleet keeps one waiting queue for all its replicas, so the per-replica caps add up: `replicas × N` requests
//! and `replicas × T` tokens for the fleet, which is what a load balancer spreading requests evenly over replicas
//! that each enforce `N` and `T` would admit at most.

use crate::scenario::LlmFleet;
use crate::sim::RejectionReason;

/// The caps of a fleet and the prompt tokens they watch.
#[derive(Clone, Debug)]
pub(crate) struct AdmissionControl {
    /// Most requests in flight over the fleet; `None`: no cap.
    max_in_flight: Option<u64>,
    /// Most prompt tokens in their prefill phase over the fleet; `None`: no cap.
    max_prefill_tokens: Option<u64>,
    /// Prompt tokens of the admitted requests that have not had their first token yet (waiting, or being prefilled);
    /// kept only under a token cap.
    prefill_tokens: u64,
}

impl AdmissionControl {
    pub fn new(fleet: &LlmFleet) -> Self {
        let replicas = u64::from(fleet.replicas);
        Self {
            max_in_flight: fleet.max_num_queued_reqs.map(|n| u64::from(n) * replicas),
            max_prefill_tokens: fleet.max_num_queued_tokens.map(|t| t * replicas),
            prefill_tokens: 0,
        }
    }

    /// Why a request with `prompt` tokens arriving while `in_flight` requests are waiting or running is turned away,
    /// or `None` when it is admitted (and then counted until its first token).
    #[inline]
    pub fn check(&mut self, in_flight: u64, prompt: u32) -> Option<RejectionReason> {
        if self.max_in_flight.is_some_and(|cap| in_flight >= cap) {
            return Some(RejectionReason::MaxNumQueuedReqs);
        }
        if let Some(cap) = self.max_prefill_tokens {
            let tokens = self.prefill_tokens + u64::from(prompt);
            if tokens > cap {
                return Some(RejectionReason::MaxNumQueuedTokens);
            }
            self.prefill_tokens = tokens;
        }
        None
    }

    /// An admitted request's first token came out: its prompt has left the prefill phase.
    #[inline]
    pub fn first_token(&mut self, prompt: u32) {
        if self.max_prefill_tokens.is_some() {
            self.prefill_tokens -= u64::from(prompt);
        }
    }
}
