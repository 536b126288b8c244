//! "Your server": the scenario calibrated from the learner's own benchmark or scrapes (`goodput_calibrate`), which
//! the knee lab runs as [`Preset::Yours`](super::Preset::Yours), with the runs it was calibrated from to draw over
//! its curves.
//!
//! The lab's settings carry it as a [`HeldServer`], which never travels: the settings go into the URL and to the
//! presentation windows, and a scenario with its measured lengths is too big for either. A link or another window
//! says `preset=yours`; each window reads its own from the browser's storage and puts it in its settings.

use super::{BenchFigures, Scenario};
use std::sync::Arc;

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
    /// How sure the fit is: its capacity, knee and TTFT curves as ranges (`None` for a scenario file, or a fit
    /// that left no residual to measure its uncertainty by).
    pub band: Option<Band>,
}

/// A figure and its range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// The lowest of the draws.
    pub low: f64,
    /// The central fit's.
    pub central: f64,
    /// The highest of the draws.
    pub high: f64,
}

/// A calibrated server's figures as the uncertainty of its fitted coefficients allows (`goodput_calibrate::uncertainty`
/// works it out in the worker): rates in requests per second, times in seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    /// The measured capacity.
    pub capacity: Range,
    /// The knee, the rate at which p99 TTFT is twice its light-load value (`None`: none below the capacity).
    pub knee: Option<Range>,
    /// The highest rate an input was measured at, when any says.
    pub highest_measured: Option<f64>,
    /// The TTFT curves' range, ordered by rate.
    pub points: Vec<BandPoint>,
}

/// The TTFT range at one rate: the lowest and highest p50 and p99 over the central fit and its extreme draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BandPoint {
    /// Requests per second.
    pub rate: f64,
    /// p50 TTFT, lowest and highest.
    pub p50: (f64, f64),
    /// p99 TTFT, lowest and highest.
    pub p99: (f64, f64),
}

impl Band {
    /// Whether every input is light load: the highest measured rate below half the knee's low end (or the
    /// capacity's, without a knee), so the knee itself is an extrapolation.
    pub fn extrapolates(&self) -> bool {
        let reference = self.knee.map_or(self.capacity.low, |k| k.low);
        self.highest_measured.is_none_or(|r| r < 0.5 * reference)
    }
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

/// A calibrated server held by the lab's settings, shared: comparing settings that hold the same one costs nothing.
#[derive(Clone, Debug)]
pub struct HeldServer(pub Arc<YourServer>);

impl HeldServer {
    /// Holds `server`.
    pub fn new(server: YourServer) -> HeldServer {
        HeldServer(Arc::new(server))
    }

    /// The same server without its band: what the lab's simulation depends on (the band arrives after it).
    pub fn without_band(&self) -> HeldServer {
        match self.0.band {
            None => self.clone(),
            Some(_) => HeldServer::new(YourServer {
                band: None,
                ..(*self.0).clone()
            }),
        }
    }
}

impl PartialEq for HeldServer {
    fn eq(&self, other: &HeldServer) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl std::ops::Deref for HeldServer {
    type Target = YourServer;
    fn deref(&self) -> &YourServer {
        &self.0
    }
}
