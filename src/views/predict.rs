//! A predict-then-reveal step. Its two copies share their heading ([`predict_heading`]: label, title, question), the
//! hint under the buttons ([`reveal_hint`]) and the class tally's summary ([`tally_summary`]). The pre-rendered step
//! ([`FoldedPredict`]) shows the question and its options as text, and folds the answer in a closed `<details>`
//! ("Show the answer") that a reader opens only after committing to a guess in their head; the live step
//! (`crate::components::lesson::predict`) adds the commit, the reveal, the outcome and the tally, and reads the step
//! back from the pre-rendered one, so the wasm links only the shared parts.

use crate::charts::format::format_percent;
use crate::lesson::island_markup::{
    EXPLANATION_CLASS, OPTION_LABEL_CLASS, OPTION_WHY_CLASS, QUESTION_CLASS, TITLE_CLASS,
};
use crate::lesson::judge::{choice_prompt, numeric_answer_text, target_phrase};
use crate::lesson::{ChartTarget, Html, PredictAnswer, PredictStep};
use leptos::html;
use leptos::prelude::*;

// The parts both copies share are view functions, not `#[component]`s: the wasm erases each component's view type
// (`erase_components`, see .cargo/config.toml), which costs bytes a component, while a function's view becomes part
// of its caller's.

/// The step's label, its title and its question. The title names the step's section (`title_id`) and takes the
/// focus when the live step starts over (`title_ref`).
pub fn predict_heading(
    title_id: String,
    recall: bool,
    title: String,
    question: Html,
    title_ref: NodeRef<html::H3>,
) -> impl IntoView {
    view! {
        <p class="lesson-label">
            {if recall { "Recall: cover the screen, say it, then check" } else { "Predict, then reveal" }}
        </p>
        <h3 class=TITLE_CLASS id=title_id node_ref=title_ref tabindex="-1">{title}</h3>
        <div class=QUESTION_CLASS inner_html=question.0></div>
    }
}

/// Under the step's buttons: what Reveal waits for, until the step is `locked` (committed or revealed); `id` is what
/// the live Reveal button is described by. It needs JavaScript: the pre-rendered step says what to do without it
/// beside it.
pub fn reveal_hint(id: Option<String>, recall: bool, locked: Signal<bool>) -> impl IntoView {
    view! {
        <p class="predict-hint js-only" id=id>
            {move || if locked.get() {
                ""
            } else if recall {
                "Say it first, then reveal."
            } else {
                "Reveal unlocks once you commit a guess."
            }}
        </p>
    }
}

/// The class tally's summary; the tally itself (for instructors) works only live.
pub fn tally_summary() -> impl IntoView {
    view! { <summary>"Class tally (for instructors)"</summary> }
}

/// A chart prediction's answer as the build simulates it: where the target really is, and the real curve.
#[derive(Clone, Debug, PartialEq)]
pub struct SimulatedCurve {
    /// The load at which the target is reached, if the curve gets there in the step's range.
    pub actual: Option<f64>,
    /// The curve's picture: the contents of its `<figure>` (caption, picture, folded data table), written by the
    /// page build.
    pub figure: Html,
}

/// The pre-rendered step: the question and what the learner answers with, as text; the answer folded away; the
/// live step's tally, folded and marked as needing JavaScript. `simulated` is a chart prediction's answer.
#[component]
pub fn FoldedPredict(step: PredictStep, simulated: Option<SimulatedCurve>) -> impl IntoView {
    let PredictStep {
        id,
        title,
        question,
        answer,
        reveal,
    } = step;
    let recall = answer == PredictAnswer::Recall;
    let title_id = format!("{id}-title");
    let labelled_by = title_id.clone();
    let question_part = question_part(&answer);
    let folded_answer = folded_answer(&answer, simulated, reveal);
    view! {
        <section class="lesson-predict" id=id aria-labelledby=labelled_by>
            {predict_heading(title_id, recall, title, question, NodeRef::new())}
            {question_part}
            // Where the live step has its buttons and their hint: a hint with JavaScript and one without, so the step
            // keeps its height when the live one replaces it.
            <p class="predict-hint no-js-only">"Make your guess, then open the answer."</p>
            {reveal_hint(None, recall, Signal::stored(false))}
            <details class="predict-answer" data-openable-answer="">
                <summary data-live-focus=".predict-outcome">"Show the answer"</summary>
                {folded_answer}
            </details>
            <details class="predict-tally needs-js">{tally_summary()}</details>
        </section>
    }
}

/// What the learner answers with, as text: the options, the unit, or where the marker goes.
fn question_part(answer: &PredictAnswer) -> AnyView {
    match answer {
        PredictAnswer::MultipleChoice { options } => {
            let several = options.iter().filter(|o| o.correct).count() > 1;
            let options = options
                .iter()
                .map(|option| {
                    view! { <li><span class=OPTION_LABEL_CLASS inner_html=option.label.0.clone()></span></li> }
                })
                .collect_view();
            view! {
                <p class="predict-static-prompt">{choice_prompt(several)}</p>
                <ol class="predict-static-options">{options}</ol>
            }
            .into_any()
        }
        PredictAnswer::NumericEstimate { unit, .. } => view! {
            <p class="predict-static-prompt">{format!("Your estimate, in {unit}.")}</p>
        }
        .into_any(),
        PredictAnswer::ChartPrediction { loads, .. } => {
            let prompt = format!(
                "Your prediction: a load between {} and {}. (With JavaScript you place a marker on the chart and the simulation draws the real curve over it.)",
                format_percent(loads.from),
                format_percent(loads.to)
            );
            view! {
                <p class="predict-static-prompt">{prompt}</p>
                // The live step's chart and marker go here.
                <div class="predict-chart-room js-only" aria-hidden="true"></div>
            }
            .into_any()
        }
        PredictAnswer::Recall => view! {
            <p class="predict-recall-help">
                "Cover the screen, say your answer out loud (or to a neighbour), then open the answer."
            </p>
        }
        .into_any(),
    }
}

/// The right answer and the explanation, inside the folded `<details>`.
fn folded_answer(
    answer: &PredictAnswer,
    simulated: Option<SimulatedCurve>,
    explanation: Html,
) -> AnyView {
    let explanation = view! { <div class=EXPLANATION_CLASS inner_html=explanation.0></div> };
    match answer {
        PredictAnswer::MultipleChoice { options } => {
            let rows = options
                .iter()
                .enumerate()
                .map(|(index, option)| {
                    let why = option.explanation.as_ref().map(|why| {
                        view! {
                            " "
                            <span class=OPTION_WHY_CLASS data-option=index.to_string() inner_html=why.0.clone()></span>
                        }
                    });
                    view! {
                        <li class:predict-correct=option.correct>
                            <strong class="predict-tag">
                                {if option.correct { "Right answer" } else { "Not this one" }}
                            </strong>
                            " "
                            <span class="predict-answer-label" inner_html=option.label.0.clone()></span>
                            {why}
                        </li>
                    }
                })
                .collect_view();
            view! { <ul class="predict-options">{rows}</ul> {explanation} }.into_any()
        }
        PredictAnswer::NumericEstimate {
            answer,
            tolerance,
            unit,
        } => {
            let (answer, within) = numeric_answer_text(*answer, *tolerance, unit);
            view! { <p class="predict-numbers"><strong>{answer}</strong>{within}</p> {explanation} }
                .into_any()
        }
        PredictAnswer::ChartPrediction { target, .. } => {
            let simulated = simulated.map(|simulated| {
                view! {
                    <p class="predict-numbers"><strong>{simulation_sentence(*target, simulated.actual)}</strong></p>
                    <figure class="chart chart-static" inner_html=simulated.figure.0></figure>
                }
            });
            view! { {simulated} {explanation} }.into_any()
        }
        PredictAnswer::Recall => explanation.into_any(),
    }
}

/// Where the simulation puts a chart prediction's target.
fn simulation_sentence(target: ChartTarget, actual: Option<f64>) -> String {
    match actual {
        Some(load) => format!(
            "The simulation puts {} at {} load.",
            target_phrase(target),
            format_percent(load)
        ),
        None => format!(
            "The simulated curve does not reach {} within these loads.",
            target_phrase(target)
        ),
    }
}
