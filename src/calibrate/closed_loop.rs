//! A closed-loop benchmark run again in the model: `vllm bench serve --max-concurrency C` with no rate (`"inf"`),
//! or GuideLLM's synchronous, concurrent and throughput benchmarks, keep C requests in flight, each client sending
//! its next request the moment the last one ends. Replayed as an open-loop burst it would queue every request at
//! once; the model's closed loop of C users with no think time is the same experiment.

use super::check::MAX_CHECK_REQUESTS;
use crate::model::scenario::MAX_USERS;
use crate::model::{run, Arrivals, BenchFigures, Scenario};

/// The model's figures for `users` clients sending `n` requests back to back, from `seed`; `None` when the model
/// cannot run it.
pub fn figures(scenario: &Scenario, users: u32, n: u64, seed: u64) -> Option<BenchFigures> {
    let mut s = scenario.clone();
    s.customers = n.clamp(1, MAX_CHECK_REQUESTS);
    s.warm_up = 0;
    s.arrivals = Arrivals::Closed {
        users: users.clamp(1, MAX_USERS).min(s.customers as u32),
        think_time: 0.0,
    };
    let steady = run(&s, seed).ok()?.steady?;
    let (ttft, tpot) = (steady.ttft?, steady.tpot?);
    Some(BenchFigures {
        ttft_p50: ttft.p50,
        ttft_p99: Some(ttft.p99),
        tpot_p50: tpot.p50,
        throughput: steady.throughput,
    })
}
