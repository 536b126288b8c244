//! Sweeps over offered load with common random numbers: every load point runs with the same seed, so request *k*
//! has the same service demand (and prompt and output lengths) everywhere and its arrival only moves earlier as the
//! load rises. The curves come out smooth and monotone instead of jittering from point to point.

use super::analytic::{exact_reference, ExactReference};
use super::scenario::{Scenario, ScenarioError};
use super::sim::{run, RunSummary};
use serde::{Deserialize, Serialize};

/// One point of a load sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The offered load ρ asked for.
    pub offered_load: f64,
    /// The simulated run at that load.
    pub summary: RunSummary,
    /// The exact figures where a closed form exists (textbook mode, stable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<ExactReference>,
}

/// Most points a sweep runs: [`load_points`] stops there.
pub const MAX_SWEEP_POINTS: usize = 10_001;

/// Load points `from, from + step, …` up to and including `to` (within rounding), computed from an integer count so
/// no floating-point drift creeps in. Empty when the range or step is invalid.
pub fn load_points(from: f64, to: f64, step: f64) -> Vec<f64> {
    if !(from.is_finite() && to.is_finite() && step.is_finite() && step > 0.0 && to >= from) {
        return Vec::new();
    }
    let n = ((to - from) / step + 1e-9).floor() as usize;
    (0..=n.min(MAX_SWEEP_POINTS - 1))
        .map(|i| from + step * i as f64)
        .collect()
}

/// The course's default sweep: 85% to 100% in steps of 1% (16 points).
pub fn default_load_points() -> Vec<f64> {
    load_points(0.85, 1.0, 0.01)
}

/// Runs `scenario` at every load in `loads` (see [`Scenario::with_offered_load`]) with the same `seed`.
pub fn sweep(
    scenario: &Scenario,
    loads: &[f64],
    seed: u64,
) -> Result<Vec<SweepPoint>, ScenarioError> {
    loads
        .iter()
        .map(|&rho| {
            let s = scenario.with_offered_load(rho);
            Ok(SweepPoint {
                offered_load: rho,
                summary: run(&s, seed)?,
                exact: exact_reference(&s),
            })
        })
        .collect()
}
