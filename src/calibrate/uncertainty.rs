//! How sure the calibration is: the fit's coefficients are uncertain (their covariance, from the residuals), and that
//! uncertainty is carried to what an operator plans with — the measured capacity and the knee (the load at which p99
//! TTFT is twice what it is at light load). A capped number of coefficient draws from the fit's normal approximation
//! are each turned into a scenario; the capacity is measured on every one, the knee on the central fit and on the
//! draws of lowest and highest capacity. When every input is light load, the report also says how far the
//! prediction reaches beyond what was measured.

use super::check::simulate_bench;
use super::fit::{FIXED, FRONTEND, PER_CONTEXT_TOKEN, PER_TOKEN};
use crate::model::measured_saturation_throughput;
use crate::model::scenario::{Scenario, ServiceKind};
use crate::model::your_server::{Band, BandPoint};
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

/// Coefficient draws at most: each costs one capacity measurement (a simulated burst).
pub const MAX_DRAWS: usize = 12;

/// Requests of each simulated run that locates the knee.
pub(crate) const KNEE_REQUESTS: u64 = 1_000;

/// The loads (fractions of the capacity) the knee is looked for at; the first is the light load it is measured from.
pub(crate) const KNEE_LOADS: [f64; 10] = [0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0];

/// The loads (fractions of the central capacity) the TTFT band is worked out at: the knee's, short of saturation.
pub(crate) const BAND_LOADS: [f64; 9] = [0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95];

pub use crate::model::your_server::Range;

/// The calibration's uncertainty, carried to capacity and knee.
#[derive(Clone, Debug, PartialEq)]
pub struct Uncertainty {
    /// Coefficient draws used.
    pub draws: usize,
    /// The measured capacity, requests per second.
    pub capacity: Range,
    /// The knee, requests per second (`None` when the model shows none below its capacity).
    pub knee: Option<Range>,
    /// The highest rate an input was measured at, requests per second, when any says.
    pub highest_measured: Option<f64>,
}

impl Uncertainty {
    /// Whether every input is light load: the highest measured rate below half the knee's low end (or the
    /// capacity's, without a knee), so the knee itself is an extrapolation.
    pub fn extrapolates(&self) -> bool {
        let reference = self.knee.map_or(self.capacity.low, |k| k.low);
        self.highest_measured.is_none_or(|r| r < 0.5 * reference)
    }
}

/// `scenario` with the step-time coefficients `theta` (in [`super::fit::COEFFICIENTS`]' order).
pub fn with_coefficients(scenario: &Scenario, theta: &[f64; 4]) -> Scenario {
    let mut out = scenario.clone();
    if let ServiceKind::Llm(fleet) = &mut out.service {
        fleet.iteration.fixed = theta[FIXED];
        fleet.iteration.per_context_token = theta[PER_CONTEXT_TOKEN];
        if let Some(compute) = &mut fleet.iteration.compute {
            compute.per_token = theta[PER_TOKEN];
        }
        fleet.frontend_overhead = theta[FRONTEND];
    }
    out
}

/// Lower-triangular `L` with `L Lᵀ = covariance` (Cholesky), pivots too small to matter skipped: a coefficient not
/// fitted has a zero row and column, and stays put.
fn cholesky(covariance: &[[f64; 4]; 4]) -> [[f64; 4]; 4] {
    let mut l = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..=i {
            let sum: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                let pivot = covariance[i][i] - sum;
                l[i][i] = if pivot > 0.0 { pivot.sqrt() } else { 0.0 };
            } else if l[j][j] > 0.0 {
                l[i][j] = (covariance[i][j] - sum) / l[j][j];
            }
        }
    }
    l
}

/// `draws` coefficient vectors from `N(theta, covariance)`, each coefficient kept at 0 or above, from a fixed seed.
fn draw(theta: &[f64; 4], covariance: &[[f64; 4]; 4], draws: usize) -> Vec<[f64; 4]> {
    let l = cholesky(covariance);
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0x6b6e_6565);
    (0..draws)
        .map(|_| {
            let z: [f64; 4] = std::array::from_fn(|_| StandardNormal.sample(&mut rng));
            std::array::from_fn(|i| {
                let shift: f64 = (0..=i).map(|k| l[i][k] * z[k]).sum();
                (theta[i] + shift).max(0.0)
            })
        })
        .collect()
}

/// The knee of `scenario` whose capacity is `capacity`: the lowest rate at which its p99 TTFT (Poisson arrivals, the
/// same requests at every load) is twice the one at a tenth of the capacity, interpolated between the loads tried.
pub fn knee(scenario: &Scenario, capacity: f64) -> Option<f64> {
    let p99 = |load: f64| -> Option<f64> {
        let summary = simulate_bench(scenario, Some(load * capacity), KNEE_REQUESTS, 1).ok()?;
        Some(summary.ttft.p99)
    };
    let light = p99(KNEE_LOADS[0])?;
    let mut previous = (KNEE_LOADS[0], light);
    for &load in &KNEE_LOADS[1..] {
        let value = p99(load)?;
        if value >= 2.0 * light {
            let (l0, v0) = previous;
            let at = l0 + (load - l0) * ((2.0 * light - v0) / (value - v0)).clamp(0.0, 1.0);
            return Some(at * capacity);
        }
        previous = (load, value);
    }
    None
}

/// The uncertainty of `scenario`, fitted with `theta` and `covariance`; `highest_measured` is the highest rate an
/// input ran at. `None` when the central scenario's capacity cannot be measured.
pub fn estimate(
    scenario: &Scenario,
    theta: &[f64; 4],
    covariance: &[[f64; 4]; 4],
    highest_measured: Option<f64>,
) -> Option<Uncertainty> {
    spread(scenario, theta, covariance, highest_measured).map(|(uncertainty, _)| uncertainty)
}

/// [`estimate`] with the TTFT curves' range: at each of [`BAND_LOADS`] (of the central capacity), the lowest and
/// highest p50 and p99 of the central fit and the draws of lowest and highest capacity (a slower server is slower at
/// every rate, so those two bound the draws between them), each a simulated benchmark of the scenario's arrivals.
pub fn band(
    scenario: &Scenario,
    theta: &[f64; 4],
    covariance: &[[f64; 4]; 4],
    highest_measured: Option<f64>,
) -> Option<(Uncertainty, Band)> {
    let (u, [slow, fast]) = spread(scenario, theta, covariance, highest_measured)?;
    let points = BAND_LOADS
        .iter()
        .map(|load| {
            let rate = load * u.capacity.central;
            let figures: Vec<(f64, f64)> = [scenario, &slow, &fast]
                .iter()
                .filter_map(|s| simulate_bench(s, Some(rate), KNEE_REQUESTS, 1).ok())
                .map(|summary| (summary.ttft.p50, summary.ttft.p99))
                .filter(|(p50, p99)| p50.is_finite() && p99.is_finite())
                .collect();
            let range = |pick: fn(&(f64, f64)) -> f64| {
                let values = figures.iter().map(pick);
                (
                    values.clone().fold(f64::INFINITY, f64::min),
                    values.fold(f64::NEG_INFINITY, f64::max),
                )
            };
            (!figures.is_empty()).then(|| BandPoint {
                rate,
                p50: range(|f| f.0),
                p99: range(|f| f.1),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let band = Band {
        capacity: u.capacity,
        knee: u.knee,
        highest_measured: u.highest_measured,
        points,
    };
    Some((u, band))
}

/// The uncertainty, and the scenarios of the draws of lowest and highest capacity.
fn spread(
    scenario: &Scenario,
    theta: &[f64; 4],
    covariance: &[[f64; 4]; 4],
    highest_measured: Option<f64>,
) -> Option<(Uncertainty, [Scenario; 2])> {
    let central = measured_saturation_throughput(scenario, 1).ok()?;
    let mut capacities: Vec<(f64, Scenario)> = draw(theta, covariance, MAX_DRAWS)
        .iter()
        .filter(|t| t[FIXED] > 0.0)
        .map(|t| with_coefficients(scenario, t))
        .filter_map(|s| Some((measured_saturation_throughput(&s, 1).ok()?, s)))
        .filter(|(c, _)| c.is_finite() && *c > 0.0)
        .collect();
    capacities.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (low, high) = match (capacities.first(), capacities.last()) {
        (Some(low), Some(high)) => (low, high),
        _ => return None,
    };
    let capacity = Range {
        low: low.0.min(central),
        central,
        high: high.0.max(central),
    };
    let knee = knee(scenario, central).map(|k| {
        let (a, b) = (
            knee(&low.1, low.0).unwrap_or(k),
            knee(&high.1, high.0).unwrap_or(k),
        );
        Range {
            low: a.min(b).min(k),
            central: k,
            high: a.max(b).max(k),
        }
    });
    let extremes = [low.1.clone(), high.1.clone()];
    Some((
        Uncertainty {
            draws: capacities.len(),
            capacity,
            knee,
            highest_measured,
        },
        extremes,
    ))
}
