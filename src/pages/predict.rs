//! A predict step on the static page: the question and its options as text, and the answer folded away in a
//! closed `<details>` ("Show the answer") that a reader opens only after committing to a guess in their head. The
//! wasm replaces it with the live step (commit, reveal, outcome, tally) and reads the step back from it.
//!
//! A chart prediction's answer is the simulation's: the course scenario swept over the step's loads at build time,
//! with the same seed the page uses, so the folded answer and the live reveal agree.

use super::pictures::{self, Picture};
use super::PagesError;
use crate::charts::format::format_percent;
use crate::charts::ChartSpec;
use crate::html_writer::HtmlWriter;
use crate::lesson::island_markup::{self as islands, IslandKind};
use crate::lesson::judge::{
    choice_prompt, curve_points, locate, numeric_answer_text, prediction_chart_data,
    prediction_scenario, prediction_sweep, target_phrase,
};
use crate::lesson::{PredictAnswer, PredictStep};

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
        &ChartSpec::Prediction(chart),
        &format!("Where {} really is", target_phrase(*target)),
    )?;
    Ok(Some(SimulatedAnswer {
        actual: locate(*target, &points, prediction_scenario().slo.ttft),
        picture,
    }))
}

/// The step's island.
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
    let is_recall = step.answer == PredictAnswer::Recall;
    let title_id = format!("{}-title", step.id);
    m.element("div", &attributes, |m| {
        m.element(
            "section",
            &[
                ("class", "lesson-predict"),
                ("id", &step.id),
                ("aria-labelledby", &title_id),
            ],
            |m| {
                m.text_element(
                    "p",
                    &[("class", "lesson-label")],
                    if is_recall {
                        "Recall: cover the screen, say it, then check"
                    } else {
                        "Predict, then reveal"
                    },
                );
                m.text_element("h3", &[("id", &title_id), ("tabindex", "-1")], &step.title);
                m.html_element("div", &[("class", islands::QUESTION_CLASS)], &step.question);
                write_question_part(m, step);
                // Where the live step has its commit and reveal buttons and their hint: the folded answer, and a
                // hint for each case, so the step keeps its height when the live one replaces it.
                m.element("p", &[("class", "predict-hint")], |m| {
                    m.text_element(
                        "span",
                        &[("class", "no-js-only")],
                        "Make your guess, then open the answer.",
                    );
                    m.text_element(
                        "span",
                        &[("class", "js-only")],
                        "Reveal unlocks once you commit a guess.",
                    );
                });
                m.element(
                    "details",
                    &[("class", "predict-answer"), (islands::OPENABLE_ANSWER, "")],
                    |m| {
                        m.text_element(
                            "summary",
                            &[(islands::LIVE_FOCUS, ".predict-outcome")],
                            "Show the answer",
                        );
                        write_answer(m, step, simulated);
                        m.html_element(
                            "div",
                            &[("class", islands::EXPLANATION_CLASS)],
                            &step.reveal,
                        );
                    },
                );
                // The live step's class tally (for instructors), folded: it only works live.
                m.element("details", &[("class", "predict-tally needs-js")], |m| {
                    m.text_element("summary", &[], "Class tally (for instructors)");
                });
            },
        );
    });
}

/// What the learner answers with, as text: the options, the unit, or where the marker goes.
fn write_question_part(m: &mut HtmlWriter, step: &PredictStep) {
    match &step.answer {
        PredictAnswer::MultipleChoice { options } => {
            let several = options.iter().filter(|o| o.correct).count() > 1;
            m.text_element(
                "p",
                &[("class", "predict-static-prompt")],
                choice_prompt(several),
            );
            m.element("ol", &[("class", "predict-static-options")], |m| {
                for option in options {
                    m.element("li", &[], |m| {
                        m.html_element(
                            "span",
                            &[("class", islands::OPTION_LABEL_CLASS)],
                            &option.label,
                        );
                    });
                }
            });
        }
        PredictAnswer::NumericEstimate { unit, .. } => {
            m.text_element(
                "p",
                &[("class", "predict-static-prompt")],
                &format!("Your estimate, in {unit}."),
            );
        }
        PredictAnswer::ChartPrediction { loads, .. } => {
            m.text_element(
                "p",
                &[("class", "predict-static-prompt")],
                &format!(
                    "Your prediction: a load between {} and {}. (With JavaScript you place a marker on the chart and the simulation draws the real curve over it.)",
                    format_percent(loads.from),
                    format_percent(loads.to)
                ),
            );
            // The live step's chart and marker go here.
            m.element(
                "div",
                &[
                    ("class", "predict-chart-room js-only"),
                    ("aria-hidden", "true"),
                ],
                |_| {},
            );
        }
        PredictAnswer::Recall => {
            m.text_element(
                "p",
                &[("class", "predict-recall-help")],
                "Cover the screen, say your answer out loud (or to a neighbour), then open the answer.",
            );
        }
    }
}

/// The right answer, inside the folded `<details>`.
fn write_answer(m: &mut HtmlWriter, step: &PredictStep, simulated: Option<&SimulatedAnswer>) {
    match &step.answer {
        PredictAnswer::MultipleChoice { options } => {
            m.element("ul", &[("class", "predict-options")], |m| {
                for (index, option) in options.iter().enumerate() {
                    let class = if option.correct {
                        "predict-correct"
                    } else {
                        ""
                    };
                    m.element("li", &[("class", class)], |m| {
                        m.text_element(
                            "strong",
                            &[("class", "predict-tag")],
                            if option.correct {
                                "Right answer"
                            } else {
                                "Not this one"
                            },
                        );
                        m.text(" ");
                        m.html_element("span", &[("class", "predict-answer-label")], &option.label);
                        if let Some(explanation) = &option.explanation {
                            m.text(" ");
                            let index = index.to_string();
                            m.html_element(
                                "span",
                                &[
                                    ("class", islands::OPTION_WHY_CLASS),
                                    (islands::OPTION_INDEX, &index),
                                ],
                                explanation,
                            );
                        }
                    });
                }
            });
        }
        PredictAnswer::NumericEstimate {
            answer,
            tolerance,
            unit,
        } => {
            let (answer, within) = numeric_answer_text(*answer, *tolerance, unit);
            m.element("p", &[("class", "predict-numbers")], |m| {
                m.text_element("strong", &[], &answer);
                m.text(&within);
            });
        }
        PredictAnswer::ChartPrediction { target, .. } => {
            if let Some(simulated) = simulated {
                let sentence = match simulated.actual {
                    Some(load) => format!(
                        "The simulation puts {} at {} load.",
                        target_phrase(*target),
                        format_percent(load)
                    ),
                    None => format!(
                        "The simulated curve does not reach {} within these loads.",
                        target_phrase(*target)
                    ),
                };
                m.element("p", &[("class", "predict-numbers")], |m| {
                    m.text_element("strong", &[], &sentence);
                });
                pictures::write_figure(m, &simulated.picture);
            }
        }
        PredictAnswer::Recall => {}
    }
}
