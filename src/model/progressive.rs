//! Progressive runs: advance one simulation in slices, so a page can show a first answer within a frame budget and
//! refine it while the user watches, without blocking.
//!
//! ```
//! use goodput_model::{ProgressiveRun, Scenario};
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

/// Progressive runs at several points (offered loads, usually) advanced a slice at a time, in passes: each pass takes
/// every point to the pass's request count before the next pass starts, so a whole curve appears rough and sharpens
/// together; the last pass is each scenario's full run. With no intermediate passes the points complete one by one.
/// Every final estimate equals [`run`](super::run) of its scenario with the same seed.
pub struct SlicedSweep {
    loads: Vec<f64>,
    runs: Vec<ProgressiveRun>,
    estimates: Vec<Option<Estimate>>,
    targets: Vec<u64>,
    pass: usize,
    point: usize,
}

impl SlicedSweep {
    /// Prepares the sweep of `points` (a load and its scenario), each run with `seed` (common random numbers: smooth
    /// curves), in the intermediate `passes` (measured requests per point, rising; those at or past a scenario's full
    /// run are dropped) and then a full pass. Nothing is simulated yet.
    pub fn new(
        points: impl IntoIterator<Item = (f64, Scenario)>,
        seed: u64,
        passes: &[u64],
    ) -> Result<Self, ScenarioError> {
        let (loads, scenarios): (Vec<f64>, Vec<Scenario>) = points.into_iter().unzip();
        let runs = scenarios
            .iter()
            .map(|scenario| ProgressiveRun::new(scenario, seed))
            .collect::<Result<Vec<_>, _>>()?;
        let full = scenarios.iter().map(|s| s.customers).min().unwrap_or(0);
        let mut targets: Vec<u64> = passes.iter().copied().filter(|&t| t < full).collect();
        targets.push(u64::MAX);
        Ok(SlicedSweep {
            loads,
            estimates: vec![None; runs.len()],
            runs,
            targets,
            pass: 0,
            point: 0,
        })
    }

    /// Simulates at most `budget` more requests (of the current point's share of the current pass) and returns
    /// whether a pass finished with this slice — the moment worth redrawing for.
    pub fn step(&mut self, budget: u64) -> bool {
        let Some(&target) = self.targets.get(self.pass) else {
            return false;
        };
        let Some(run) = self.runs.get_mut(self.point) else {
            return false;
        };
        let missing = target.saturating_sub(run.advanced_to());
        let estimate = run.advance(missing.min(budget.max(1)));
        let reached = run.advanced_to() >= target || estimate.done;
        self.estimates[self.point] = Some(estimate);
        if !reached {
            return false;
        }
        self.point += 1;
        if self.point < self.runs.len() {
            return false;
        }
        self.point = 0;
        self.pass += 1;
        true
    }

    /// Passes finished so far (0 until every point has a first estimate).
    pub fn passes_done(&self) -> usize {
        self.pass
    }

    /// Whether every point has its full run.
    pub fn is_done(&self) -> bool {
        self.pass >= self.targets.len()
    }

    /// The loads and their latest estimates (`None` before a point's first slice).
    pub fn points(&self) -> impl Iterator<Item = (f64, Option<&Estimate>)> {
        self.loads
            .iter()
            .copied()
            .zip(self.estimates.iter().map(Option::as_ref))
    }

    /// The points whose full run is complete, with their final estimates, in order.
    pub fn finished(&self) -> impl Iterator<Item = (f64, &Estimate)> {
        self.points()
            .filter_map(|(load, estimate)| Some((load, estimate.filter(|e| e.done)?)))
    }
}
