//! A predict step on the static page: the island's wrapper around the folded step ([`FoldedPredict`]: the question
//! and its options as text, the answer folded away in a closed `<details>`). The wasm replaces it with the live step
//! (commit, reveal, outcome, tally) and reads the step back from it.
//!
//! A chart prediction's answer is the simulation's: the course scenario swept over the step's loads at build time,
//! with the same seed the page uses, so the folded answer and the live reveal agree.

use super::pictures::{self, Picture};
use super::PagesError;
use goodput::html_writer::HtmlWriter;
use goodput::lesson::island_markup::{self as islands, IslandKind};
use goodput::lesson::judge::{
    curve_points, locate, prediction_chart_data, prediction_scenario, prediction_sweep,
    target_phrase,
};
use goodput::lesson::{Html, PredictAnswer, PredictStep};
use goodput::views::predict::{FoldedPredict, SimulatedCurve};
use leptos::prelude::*;

/// What the folded answer of a chart prediction shows: where the target really is, and the real curve.
#[derive(Debug)]
pub struct SimulatedAnswer {
    /// The load at which the target is reached, if the curve gets there in the range.
    pub actual: Option<f64>,
    /// The real curve, as a picture.
    pub picture: Picture,
}

/// Simulates a chart prediction's curve for its folded answer; `None` for other steps.
pub fn simulate(step: &PredictStep, stem: &str) -> Result<Option<SimulatedAnswer>, PagesError> {
    let PredictAnswer::ChartPrediction { target, loads, .. } = &step.answer else {
        return Ok(None);
    };
    let mut sweep = prediction_sweep(*loads)
        .map_err(|error| PagesError::Picture(format!("{}: {error}", step.id)))?;
    while !sweep.is_done() {
        sweep.step(u64::MAX);
    }
    let points = curve_points(&sweep);
    let chart = prediction_chart_data(*target, *loads, &points, None);
    let picture = pictures::draw(
        stem,
        &chart,
        &format!("Where {} really is", target_phrase(*target)),
    )?;
    Ok(Some(SimulatedAnswer {
        actual: locate(*target, &points, prediction_scenario().slo.ttft),
        picture,
    }))
}

/// The step's island: the wrapper with the data the wasm reads back, around the folded step.
pub fn write_step(
    m: &mut HtmlWriter,
    step: &PredictStep,
    simulated: Option<&SimulatedAnswer>,
    screen: &[(&str, &str)],
) {
    let mut attributes: Vec<(&str, String)> =
        screen.iter().map(|(k, v)| (*k, (*v).to_owned())).collect();
    attributes.extend([
        (islands::ISLAND, IslandKind::Predict.as_str().to_owned()),
        ("class", "island island-predict".to_owned()),
        (islands::STEP_ID, step.id.clone()),
    ]);
    attributes.extend(islands::answer_attributes(&step.answer));
    let attributes: Vec<(&str, &str)> = attributes.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let simulated = simulated.map(|simulated| {
        let mut figure = HtmlWriter::new();
        pictures::write_figure_contents(&mut figure, &simulated.picture);
        SimulatedCurve {
            actual: simulated.actual,
            figure: Html(figure.finish()),
        }
    });
    let step = step.clone();
    let folded = view! { <FoldedPredict step simulated/> }.to_html();
    m.element("div", &attributes, |m| {
        m.trusted(&folded);
    });
}
