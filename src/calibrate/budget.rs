//! The calibration's simulations counted before any runs: the model's repeat of each input, and the capacity and
//! knee searches of the fit and of its uncertainty draws (the band's benchmarks included). Together they must fit
//! the model's work budget ([`crate::model::budget`]); if they would not, the calibration is refused at once, naming
//! what made the work large (the fleet's size, or the inputs' request lengths), instead of running for hours.

use super::check::{requests_of, MAX_CHECK_REQUESTS};
use super::inputs::Parsed;
use super::uncertainty::{BAND_LOADS, KNEE_LOADS, KNEE_REQUESTS, MAX_DRAWS};
use super::CalibrateError;
use crate::model::budget::{
    mean_request_steps, request_steps, requests_of as described, work, Sending, MAX_WORK,
};
use crate::model::{capacity_requests, Scenario, ServiceKind};

/// Refuses the calibration of `scenario` (fitted from `inputs`, named `names`) when its simulations would take more
/// than the work budget.
pub fn check(scenario: &Scenario, inputs: &[&Parsed], names: &str) -> Result<(), CalibrateError> {
    let ServiceKind::Llm(fleet) = &scenario.service else {
        return Ok(());
    };
    let per_request = mean_request_steps(fleet);
    let of_mean = |n: f64, sending: Sending| work(scenario, n, n * per_request, sending);
    // The fit and each draw measure a capacity; the fit and the two extreme draws search a knee; the band runs the
    // fit and the two extremes at each of its loads; `your_server` measures the fit's capacity once more.
    let capacity =
        (MAX_DRAWS as f64 + 2.0) * of_mean(capacity_requests(fleet) as f64, Sending::Burst);
    let searched = (3 * KNEE_LOADS.len() + 3 * BAND_LOADS.len()) as f64 * KNEE_REQUESTS as f64;
    // At half the capacity: fewer requests run at once below it, more above.
    let searches = of_mean(
        searched,
        Sending::Rate(0.5 * scenario.saturation_throughput()),
    );
    let mut repeated = 0.0;
    let mut repeats = 0.0;
    for input in inputs {
        match input {
            Parsed::Bench(bench) => {
                let n = bench.completed.clamp(1, MAX_CHECK_REQUESTS) as f64;
                repeated += n;
                repeats += of_mean(n, bench.request_rate.map_or(Sending::Burst, Sending::Rate));
            }
            Parsed::Trace(lives) => {
                let requests = requests_of(lives);
                let n = requests.len() as f64;
                let span = requests.iter().map(|r| r.arrival_s).fold(0.0, f64::max);
                let steps: f64 = requests
                    .iter()
                    .map(|r| request_steps(fleet, r.prompt_tokens, r.output_tokens))
                    .sum();
                let sending = if span > 0.0 {
                    Sending::Rate(n / span)
                } else {
                    Sending::Burst
                };
                repeated += n;
                repeats += work(scenario, n, steps, sending);
            }
            Parsed::Metrics(_) => {}
        }
    }
    let total = capacity + searches + repeats;
    if total <= MAX_WORK {
        return Ok(());
    }
    // The fleet's size is at fault when the same inputs on one replica of vLLM's default batch would fit.
    let mut default_fleet = fleet.clone();
    default_fleet.replicas = 1;
    default_fleet.max_num_seqs = super::DEFAULT_MAX_NUM_SEQS;
    let fleet_share = capacity_requests(fleet) as f64 / capacity_requests(&default_fleet) as f64;
    let problem = if total / fleet_share.max(1.0) <= MAX_WORK {
        format!(
            "--replicas {} × --max-num-seqs {}: measuring that fleet's capacity {} times, with {} each,",
            fleet.replicas,
            fleet.max_num_seqs,
            MAX_DRAWS + 2,
            described(capacity_requests(fleet) as f64, scenario)
        )
    } else {
        format!(
            "{names}: measuring the capacity, repeating the requests measured and checking the fit, {},",
            described(capacity_requests(fleet) as f64 * (MAX_DRAWS as f64 + 2.0) + repeated + searched, scenario)
        )
    };
    Err(CalibrateError::TooMuchWork(format!(
        "too much work to simulate: {problem} would take about {total:.1e} iterations, more than the {MAX_WORK:.0e} \
         a run may take (about a minute and a half); calibrate from shorter requests or a smaller fleet"
    )))
}
