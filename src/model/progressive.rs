//! Progressive runs: advance one simulation in slices, so a page can show a first answer within a frame budget and
//! refine it while the user watches, without blocking.
//!
//! ```
//! use goodput::model::{ProgressiveRun, Scenario};
//! let mut run = ProgressiveRun::new(&Scenario::textbook_preset(), 7).unwrap();
//! let first = run.advance(5_000); // quick, rough
//! let better = run.advance(50_000); // the same run, longer
//! assert!(better.summary.measured > first.summary.measured);
//! ```

use super::scenario::{Scenario, ScenarioError};
use super::sim::{Engine, RunSummary};
use serde::{Deserialize, Serialize};

/// The estimate after a slice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Everything measured so far.
    pub summary: RunSummary,
    /// Relative half-width of the 95% confidence interval of the headline p99, when known: how much to trust it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_relative_half_width: Option<f64>,
    /// Whether the scenario's full `customers` have been simulated.
    pub done: bool,
}

/// A run that is advanced in slices; its final estimate equals [`run`](super::run) with the same scenario and seed.
pub struct ProgressiveRun {
    engine: Engine,
    total: u64,
    reached: u64,
}

impl ProgressiveRun {
    /// Prepares a run of `scenario` with `seed`.
    pub fn new(scenario: &Scenario, seed: u64) -> Result<Self, ScenarioError> {
        Ok(Self {
            engine: Engine::new(scenario, seed)?,
            total: scenario.customers,
            reached: 0,
        })
    }

    /// Simulates up to `budget_customers` more measured requests (never past the scenario's `customers`) and returns
    /// the estimate so far. The cost of a slice is roughly proportional to its budget.
    pub fn advance(&mut self, budget_customers: u64) -> Estimate {
        self.reached = self
            .reached
            .saturating_add(budget_customers.max(1))
            .min(self.total);
        self.engine.advance_to(self.reached);
        let summary = self.engine.summary();
        let p99_relative_half_width = summary
            .steady
            .as_ref()
            .and_then(|s| s.intervals)
            .map(|ci| ci.p99.relative_half_width());
        Estimate {
            summary,
            p99_relative_half_width,
            done: self.is_done(),
        }
    }

    /// Whether the scenario's full `customers` have been simulated.
    pub fn is_done(&self) -> bool {
        self.reached >= self.total
    }

    /// The measured-request count the run has been advanced to (what [`advance`](Self::advance) was asked for, capped
    /// at the scenario's `customers`); an unstable open-loop run may have measured fewer.
    pub fn advanced_to(&self) -> u64 {
        self.reached
    }

    /// Requests measured so far.
    pub fn measured(&self) -> u64 {
        self.engine.recorder().measured()
    }
}
