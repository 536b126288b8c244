//! A budget on a simulation's total work, worked out from its inputs before it starts, so that no input within each
//! number's own limit (a 10-million-token output, a 4096-replica fleet, a week of traffic) can keep a run busy for
//! hours: every run either fits the budget or is refused at once, in one sentence that says which input made it
//! too large.
//!
//! The simulator's time goes to two things: each request (its arrival, admission, completion and figures, about 15
//! iterations' worth) and each iteration of a replica's batch (one step, whatever the batch holds). A request needs
//! its output tokens plus its prompt's chunks in steps of its own; how many of those share an iteration depends on
//! how many requests run at once, which the arrival rate sets (Little's law with the shortest possible step): at
//! least one, at most `max_num_seqs`. Long requests sent one after another (a trace of sequential requests) are
//! the worst case, one iteration per token. The unit, one iteration or one textbook customer, is about 0.1 µs on one
//! core of the development machine (BENCHMARKS.md, "Work budget"), so [`MAX_WORK`] is about a minute and a half.

use super::scenario::{LlmFleet, Scenario, ScenarioError, ServiceKind};

/// The most work one simulation may take, in iterations (about a minute and a half on one core).
pub const MAX_WORK: f64 = 1e9;
/// What one request costs beside its iterations, in iterations.
const REQUEST_WORK: f64 = 15.0;

/// The sequence steps one request of `prompt_tokens` and `output_tokens` needs on `fleet`: its output tokens and
/// its prompt's prefill chunks.
pub fn request_steps(fleet: &LlmFleet, prompt_tokens: u32, output_tokens: u32) -> f64 {
    f64::from(output_tokens) + prefill_chunks(fleet, f64::from(prompt_tokens))
}

/// The mean sequence steps of one request of `fleet`.
pub fn mean_request_steps(fleet: &LlmFleet) -> f64 {
    fleet.output_tokens.mean() + prefill_chunks(fleet, fleet.prompt_tokens.mean())
}

/// Iterations a prompt's prefill spans: one, or with chunked prefill one per token budget.
fn prefill_chunks(fleet: &LlmFleet, prompt_tokens: f64) -> f64 {
    if fleet.chunked_prefill {
        (prompt_tokens / f64::from(fleet.max_num_batched_tokens.max(1)))
            .ceil()
            .max(1.0)
    } else {
        1.0
    }
}

/// How requests reach the fleet, for how many share an iteration.
#[derive(Clone, Copy, Debug)]
pub enum Sending {
    /// At this rate, requests per second.
    Rate(f64),
    /// All at once (a burst, or a queue that never empties).
    Burst,
    /// This many users, each sending again when answered.
    Users(f64),
}

/// The work of `requests` requests needing `steps` sequence steps in all, sent to `scenario`'s fleet as `sending`.
pub fn work(scenario: &Scenario, requests: f64, steps: f64, sending: Sending) -> f64 {
    let ServiceKind::Llm(fleet) = &scenario.service else {
        return requests;
    };
    let replicas = f64::from(fleet.replicas.max(1));
    let slots = f64::from(fleet.max_num_seqs.max(1));
    let per_request = steps / requests.max(1.0);
    let at_once = match sending {
        Sending::Burst => slots,
        Sending::Users(users) => users / replicas,
        // Little's law with every step as short as its fixed cost: no more run at once than this.
        Sending::Rate(rate) => rate / replicas * per_request * fleet.iteration.fixed,
    };
    requests * REQUEST_WORK + steps / at_once.min(requests).clamp(1.0, slots)
}

/// How a run of a steady state sends its requests.
pub fn sending_of(scenario: &Scenario) -> Sending {
    match scenario.arrivals {
        super::Arrivals::Open { offered_load, .. } if offered_load >= 1.0 => Sending::Burst,
        super::Arrivals::Open { .. } => {
            Sending::Rate(scenario.arrival_rate().unwrap_or(f64::INFINITY))
        }
        super::Arrivals::Closed { users, .. } => Sending::Users(f64::from(users)),
    }
}

/// `requests` requests of `scenario`'s lengths, as a refusal names them.
pub fn requests_of(requests: f64, scenario: &Scenario) -> String {
    let lengths = match &scenario.service {
        ServiceKind::Llm(fleet) => format!(
            " of {} prompt and {} output tokens on average",
            round(fleet.prompt_tokens.mean()),
            round(fleet.output_tokens.mean())
        ),
        ServiceKind::Textbook(_) => String::new(),
    };
    format!("{} requests{lengths}", round(requests))
}

/// The refusal of `work`, about `field`: `cause` says what made it (`"1000 requests of …"`).
pub fn too_much(field: &str, cause: &str, work: f64) -> ScenarioError {
    ScenarioError {
        field: field.to_owned(),
        problem: format!(
            "makes too much work to simulate: {cause} would take about {work:.1e} iterations, more than the \
             {MAX_WORK:.0e} a run may take (about a minute and a half)"
        ),
    }
}

/// `Ok` when `requests` requests of `scenario`'s mean lengths, sent as `sending`, fit the budget; else the refusal,
/// about `field`.
pub fn check_mean(
    scenario: &Scenario,
    requests: f64,
    sending: Sending,
    field: &str,
) -> Result<(), ScenarioError> {
    let steps = match &scenario.service {
        ServiceKind::Llm(fleet) => requests * mean_request_steps(fleet),
        ServiceKind::Textbook(_) => requests,
    };
    let work = work(scenario, requests, steps, sending);
    if work <= MAX_WORK {
        Ok(())
    } else {
        Err(too_much(field, &requests_of(requests, scenario), work))
    }
}

fn round(x: f64) -> String {
    if x >= 1e6 {
        format!("{x:.2e}")
    } else {
        format!("{x:.0}")
    }
}
