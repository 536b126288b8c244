//! Judging a committed guess against a predict step's answer, and finding a chart prediction's target on a simulated
//! curve. Pure functions: the page calls them, the native tests check them.

use super::progress::Guess;
use super::{ChartTarget, LoadRange, PredictAnswer, Tolerance};
use crate::charts::format::{format_latency, format_number, format_percent};
use crate::charts::{PredictionChart, PredictionMetric};
use crate::model::{run, RunSummary, Scenario, ScenarioError, SlicedSweep};

/// A chart target's threshold on goodput: DistServe's bar, 90% of requests within their SLOs.
pub const GOODPUT_SHARE_BAR: f64 = 0.9;

/// What a multiple choice asks for, as both copies of the step say it: one option, or every one that applies.
pub fn choice_prompt(several_right: bool) -> &'static str {
    if several_right {
        "Your prediction: pick every one that applies"
    } else {
        "Your prediction: pick one"
    }
}

/// A numeric estimate's answer in words, as both the static page and the live step print it: the answer
/// ("The answer: 4.5 replicas") and the tolerance after it (" (anything within ±0.45 replicas counts as right).").
pub fn numeric_answer_text(answer: f64, tolerance: Tolerance, unit: &str) -> (String, String) {
    (
        format!("The answer: {answer} {unit}"),
        format!(
            " (anything within ±{} {unit} counts as right).",
            plain_number(tolerance.allowance(answer))
        ),
    )
}

/// A number as an author would write it: at most six decimals, no trailing zeros (10% of 4.5 prints as 0.45, not as
/// 0.45000000000000007, and 0.5 as 0.5, not 0.50).
fn plain_number(value: f64) -> String {
    let text = format!("{value:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Whether `guess` is right for `answer`. `actual` is where a chart prediction's target really is (from
/// [`locate`]). `None` when the step cannot be scored automatically: a recall (the learner marks it), a chart whose
/// curve never reached its target, or a guess of the wrong shape.
pub fn judge(answer: &PredictAnswer, guess: &Guess, actual: Option<f64>) -> Option<bool> {
    match (answer, guess) {
        (PredictAnswer::MultipleChoice { options }, Guess::Choices(picked)) => {
            let mut picked = picked.clone();
            picked.sort_unstable();
            picked.dedup();
            let right: Vec<usize> = (0..options.len()).filter(|&i| options[i].correct).collect();
            Some(picked == right)
        }
        (
            PredictAnswer::NumericEstimate {
                answer, tolerance, ..
            },
            Guess::Number(value),
        ) => Some(tolerance.accepts(*answer, *value)),
        (PredictAnswer::ChartPrediction { tolerance, .. }, Guess::Load(load)) => {
            actual.map(|actual| (load - actual).abs() <= tolerance + 1e-9)
        }
        _ => None,
    }
}

/// One simulated load of a chart prediction: the two series a target can be read from. `None` where the run had no
/// steady state (an open-loop queue at or past saturation grows without bound).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    /// Offered load as a fraction of capacity.
    pub load: f64,
    /// p99 time to first token, seconds.
    pub p99_ttft_s: Option<f64>,
    /// Goodput divided by throughput.
    pub goodput_share: Option<f64>,
}

impl CurvePoint {
    /// A load the model could not simulate: no values.
    pub fn missing(load: f64) -> Self {
        CurvePoint {
            load,
            p99_ttft_s: None,
            goodput_share: None,
        }
    }
}

/// The curve a target is read from, and the level it must cross.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetLevel {
    /// The series, `(load, value)`.
    pub series: Vec<(f64, Option<f64>)>,
    /// The level whose crossing is the target.
    pub level: f64,
    /// True when the target is where the series rises above the level, false when it falls below it.
    pub rising: bool,
}

/// The series and the level of `target` on `points`, given the TTFT SLO in seconds. `None` for a knee when the
/// lightest load has no p99 to double.
pub fn target_level(
    target: ChartTarget,
    points: &[CurvePoint],
    slo_ttft_s: f64,
) -> Option<TargetLevel> {
    let p99 = || points.iter().map(|p| (p.load, p.p99_ttft_s)).collect();
    match target {
        ChartTarget::Knee => {
            let base = points.first()?.p99_ttft_s.filter(|v| *v > 0.0)?;
            Some(TargetLevel {
                series: p99(),
                level: 2.0 * base,
                rising: true,
            })
        }
        ChartTarget::SloCrossing => Some(TargetLevel {
            series: p99(),
            level: slo_ttft_s,
            rising: true,
        }),
        ChartTarget::GoodputBelow90 => Some(TargetLevel {
            series: points.iter().map(|p| (p.load, p.goodput_share)).collect(),
            level: GOODPUT_SHARE_BAR,
            rising: false,
        }),
    }
}

/// Where `target` really is on `points`: the first load at which the series crosses its level, interpolated
/// linearly between the two simulated loads around the crossing. A load without a steady state counts as crossed
/// (its queue, and so its tail, grows without bound). `None` when the curve never gets there within the range.
pub fn locate(target: ChartTarget, points: &[CurvePoint], slo_ttft_s: f64) -> Option<f64> {
    let TargetLevel {
        series,
        level,
        rising,
    } = target_level(target, points, slo_ttft_s)?;
    let beyond = |value: f64| {
        if rising {
            value >= level
        } else {
            value < level
        }
    };
    let mut previous: Option<(f64, f64)> = None;
    for (load, value) in series {
        match value.filter(|v| v.is_finite()) {
            None => return Some(load),
            Some(value) if beyond(value) => {
                return Some(match previous {
                    Some((x0, y0)) if value != y0 => x0 + (load - x0) * (level - y0) / (value - y0),
                    _ => load,
                });
            }
            Some(value) => previous = Some((load, value)),
        }
    }
    None
}

/// The sentence that compares a chart guess with the real load, e.g. "Your marker: 88% load. The real curve gets
/// there at 90.4% load: your marker is 2.4 points early, within the 2-point tolerance."
pub fn distance_sentence(guess: Option<f64>, actual: Option<f64>, tolerance: f64) -> String {
    let points = |fraction: f64| format_number(fraction * 100.0);
    let mut sentence = match guess {
        Some(guess) => format!("Your marker: {} load.", format_percent(guess)),
        None => "You placed no marker.".to_owned(),
    };
    match (guess, actual) {
        (_, None) => sentence += " The real curve does not get there within the simulated range, so this one is not scored.",
        (None, Some(actual)) => {
            sentence += &format!(" The real curve gets there at {} load.", format_percent(actual))
        }
        (Some(guess), Some(actual)) => {
            let off = guess - actual;
            let direction = if off.abs() < 0.0005 {
                "right on it".to_owned()
            } else if off < 0.0 {
                format!("{} points early", points(-off))
            } else {
                format!("{} points late", points(off))
            };
            let within = if off.abs() <= tolerance + 1e-9 { "within" } else { "outside" };
            sentence += &format!(
                " The real curve gets there at {} load: your marker is {direction}, {within} the {}-point tolerance.",
                format_percent(actual),
                points(tolerance)
            );
        }
    }
    sentence
}

/// The seed of every chart prediction's simulation: fixed, so every learner (and every presentation window) sees the
/// same curve.
pub const PREDICTION_SEED: u64 = 11;

/// The scenario chart predictions simulate: the course's replica (see [`Scenario::course_preset`]).
pub fn prediction_scenario() -> Scenario {
    Scenario::course_preset()
}

/// Simulates one load of a chart prediction in one go (the page computes the same points in slices, see
/// [`prediction_sweep`]).
pub fn simulate_load(load: f64) -> CurvePoint {
    let scenario = prediction_scenario().with_offered_load(load);
    match run(&scenario, PREDICTION_SEED) {
        Ok(summary) => curve_point(load, &summary),
        Err(_) => CurvePoint::missing(load),
    }
}

/// The point of a chart prediction's curve that a finished run gives.
fn curve_point(load: f64, summary: &RunSummary) -> CurvePoint {
    let steady = summary.steady.as_ref();
    CurvePoint {
        load,
        p99_ttft_s: steady.and_then(|s| s.ttft).map(|ttft| ttft.p99),
        goodput_share: steady
            .filter(|s| s.throughput > 0.0)
            .map(|s| s.goodput / s.throughput),
    }
}

/// A chart prediction's true curve as a sweep to advance a slice at a time, one load after another (no rough passes:
/// the revealed curve grows point by point, each point final), so the page never blocks the main thread for long.
pub fn prediction_sweep(loads: LoadRange) -> Result<SlicedSweep, ScenarioError> {
    let points = loads
        .points()
        .into_iter()
        .map(|load| (load, prediction_scenario().with_offered_load(load)));
    SlicedSweep::new(points, PREDICTION_SEED, &[])
}

/// The points of [`prediction_sweep`] computed so far; they equal [`simulate_load`]'s.
pub fn curve_points(sweep: &SlicedSweep) -> Vec<CurvePoint> {
    sweep
        .finished()
        .map(|(load, estimate)| curve_point(load, &estimate.summary))
        .collect()
}

/// The prediction chart for a chart step: its target, the curve computed so far, the marker and (once the curve is
/// complete) the real load.
pub fn prediction_chart_data(
    target: ChartTarget,
    loads: LoadRange,
    points: &[CurvePoint],
    guess: Option<f64>,
) -> PredictionChart {
    let slo = prediction_scenario().slo.ttft;
    let expected_points = loads.points().len();
    let metric = match target {
        ChartTarget::Knee | ChartTarget::SloCrossing => PredictionMetric::P99Ttft,
        ChartTarget::GoodputBelow90 => PredictionMetric::GoodputShare,
    };
    let level = target_level(target, points, slo).map(|level| {
        let tag = match target {
            ChartTarget::Knee => format!("2× = {}", format_latency(level.level)),
            ChartTarget::SloCrossing => format!("SLO {}", format_latency(level.level)),
            ChartTarget::GoodputBelow90 => format_percent(level.level),
        };
        (level.level, tag)
    });
    let complete = !points.is_empty() && points.len() >= expected_points;
    PredictionChart {
        metric,
        target: target_phrase(target).to_owned(),
        load_range: (loads.from, loads.to),
        points: points
            .iter()
            .map(|p| {
                let value = match metric {
                    PredictionMetric::P99Ttft => p.p99_ttft_s,
                    PredictionMetric::GoodputShare => p.goodput_share,
                };
                (p.load, value)
            })
            .collect(),
        expected_points,
        level,
        guess,
        actual: if complete {
            locate(target, points, slo)
        } else {
            None
        },
    }
}

/// How sentences name a target: "the knee", "the SLO crossing", "the 90% goodput line".
pub fn target_phrase(target: ChartTarget) -> &'static str {
    match target {
        ChartTarget::Knee => "the knee",
        ChartTarget::SloCrossing => "the SLO crossing",
        ChartTarget::GoodputBelow90 => "the 90% goodput line",
    }
}
