//! "Your server": the scenario calibrated from the learner's own benchmark or scrapes (`crate::calibrate`), which
//! the knee lab runs as [`Preset::Yours`](super::Preset::Yours), with the runs it was calibrated from to draw over
//! its curves.
//!
//! The page holds at most one, here rather than in the lab's settings: the settings travel (in the URL, to the
//! presentation windows), and a scenario with its measured lengths is too big for either. A link or another window
//! says `preset=yours`; each window reads its own from the browser's storage.

use super::{BenchFigures, Scenario};
use std::cell::RefCell;
use std::rc::Rc;

/// A calibrated server.
#[derive(Clone, Debug, PartialEq)]
pub struct YourServer {
    /// The calibrated scenario (an LLM fleet).
    pub scenario: Scenario,
    /// The benchmark runs it was calibrated from that have a rate: what each measured, and the model's repeat of
    /// the same run.
    pub measured: Vec<MeasuredRun>,
    /// The fleet's capacity as the simulation measures it ([`super::measured_saturation_throughput`]) over the
    /// one [`Scenario::saturation_throughput`] works out from a full batch of mean-sized requests. The lab's load is
    /// a share of the measured capacity, so for the learner's own server (often prefill-heavy, where the compute term
    /// the formula leaves out matters) 100% is where the server really saturates; the ratio carries over to the
    /// flags the learner changes in the lab.
    pub capacity_ratio: f64,
}

/// One benchmark run of the learner's server beside the calibrated model's repeat of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeasuredRun {
    /// The rate it was sent at, requests per second.
    pub rate: f64,
    /// What the server did.
    pub measured: BenchFigures,
    /// What the model does with the same requests at the same rate.
    pub model: BenchFigures,
}

/// [`YourServer::capacity_ratio`] for `scenario`: 1 when the simulation cannot measure it.
pub fn capacity_ratio(scenario: &Scenario) -> f64 {
    let formula = scenario.saturation_throughput();
    super::measured_saturation_throughput(scenario, 1)
        .ok()
        .map(|measured| measured / formula)
        .filter(|ratio| ratio.is_finite() && *ratio > 0.0)
        .unwrap_or(1.0)
}

thread_local! {
    static CURRENT: RefCell<Option<Rc<YourServer>>> = const { RefCell::new(None) };
}

/// The calibrated server the page holds, if any.
pub fn current() -> Option<Rc<YourServer>> {
    CURRENT.with_borrow(Clone::clone)
}

/// Holds `server` from now on (`None` forgets it).
pub fn set(server: Option<YourServer>) {
    CURRENT.set(server.map(Rc::new));
}
