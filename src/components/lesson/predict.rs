//! A predict-then-reveal step, basic version: commit a guess, press Reveal, read the explanation. (The full
//! experience, with saved answers and scoring, builds on the same typed data.)

use crate::lesson::{Axis, PredictAnswer, PredictStep as PredictStepData};
use leptos::prelude::*;

/// The question, a way to commit a guess that fits the step's type, and the reveal.
#[component]
pub fn PredictStep(step: &'static PredictStepData) -> impl IntoView {
    let revealed = RwSignal::new(false);
    // The learner's guess as typed or picked: an option index, a number, or free text.
    let guess = RwSignal::new(String::new());
    let title_id = format!("{}-title", step.id);
    let labelled_by = title_id.clone();
    view! {
        <section class="lesson-predict" id=step.id.as_str() aria-labelledby=labelled_by>
            <p class="lesson-label">"Predict, then reveal"</p>
            <h3 id=title_id>{step.title.as_str()}</h3>
            <div class="predict-question" inner_html=step.question.as_str()></div>
            <GuessInput step guess revealed/>
            <button
                type="button"
                class="predict-reveal"
                data-present-reveal=""
                disabled=move || revealed.get()
                on:click=move |_| revealed.set(true)
            >
                "Reveal"
            </button>
            <Show when=move || revealed.get()>
                <div class="predict-outcome" role="status">
                    <Outcome answer=&step.answer guess=guess.get_untracked()/>
                    <div class="predict-explanation" inner_html=step.reveal.as_str()></div>
                </div>
            </Show>
        </section>
    }
}

/// Where the learner commits: radio buttons, a number field, or a text box.
#[component]
fn GuessInput(
    step: &'static PredictStepData,
    guess: RwSignal<String>,
    revealed: RwSignal<bool>,
) -> impl IntoView {
    let locked = move || revealed.get();
    match &step.answer {
        PredictAnswer::MultipleChoice { options } => {
            let choices = options.iter().enumerate().map(|(index, option)| {
                view! {
                    <label class="predict-choice">
                        <input
                            type="radio"
                            name=step.id.as_str()
                            value=index.to_string()
                            disabled=locked
                            on:change=move |_| guess.set(index.to_string())
                        />
                        <span inner_html=option.label.as_str()></span>
                    </label>
                }
            });
            view! {
                <fieldset class="predict-choices">
                    <legend>"Your prediction"</legend>
                    {choices.collect_view()}
                </fieldset>
            }
            .into_any()
        }
        PredictAnswer::NumericEstimate { unit, .. } => view! {
            <label class="predict-number">
                "Your estimate "
                <input type="number" step="any" inputmode="decimal" disabled=locked
                    on:input=move |event| guess.set(event_target_value(&event))/>
                " " {unit.as_str()}
            </label>
        }
        .into_any(),
        PredictAnswer::ChartPrediction { .. } | PredictAnswer::Recall => view! {
            <label class="predict-text">
                "Your prediction, in a sentence or a sketch on paper"
                <textarea rows="2" disabled=locked on:input=move |event| guess.set(event_target_value(&event))></textarea>
            </label>
        }
        .into_any(),
    }
}

/// How the guess compares with the answer.
#[component]
fn Outcome(answer: &'static PredictAnswer, guess: String) -> impl IntoView {
    match answer {
        PredictAnswer::MultipleChoice { options } => {
            let picked = guess.parse::<usize>().ok();
            let rows = options.iter().enumerate().map(move |(index, option)| {
                let verdict = match (option.correct, picked == Some(index)) {
                    (true, true) => "Right — your pick",
                    (true, false) => "The answer",
                    (false, true) => "Your pick",
                    (false, false) => "",
                };
                view! {
                    <li class:predict-correct=option.correct class:predict-picked=picked == Some(index)>
                        <strong>{verdict}</strong> " " <span inner_html=option.label.as_str()></span>
                        <span class="predict-why" inner_html=option.explanation.as_str()></span>
                    </li>
                }
            });
            view! { <ul class="predict-options">{rows.collect_view()}</ul> }.into_any()
        }
        PredictAnswer::NumericEstimate {
            answer,
            tolerance,
            unit,
        } => {
            let verdict = match guess.trim().parse::<f64>() {
                Ok(value) if tolerance.accepts(*answer, value) => {
                    format!("{value} {unit}: close enough.")
                }
                Ok(value) => format!("{value} {unit}: off by more than the tolerance."),
                Err(_) => "No estimate committed.".to_string(),
            };
            view! { <p><strong>{format!("Answer: {answer} {unit}. ")}</strong>{verdict}</p> }
                .into_any()
        }
        PredictAnswer::ChartPrediction { x, y, curve } => {
            view! { <CurveSketch x y curve/> }.into_any()
        }
        PredictAnswer::Recall => {
            view! { <p>"Compare your answer with the explanation below."</p> }.into_any()
        }
    }
}

/// The true curve of a chart prediction as a small SVG, scaled into a 100 × 60 box.
#[component]
fn CurveSketch(x: &'static Axis, y: &'static Axis, curve: &'static [[f64; 2]]) -> impl IntoView {
    let scale =
        |value: f64, axis: &Axis| ((value - axis.min) / (axis.max - axis.min)).clamp(0.0, 1.0);
    let points = curve
        .iter()
        .map(|[px, py]| {
            format!(
                "{:.1},{:.1}",
                100.0 * scale(*px, x),
                60.0 - 60.0 * scale(*py, y)
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    let description = format!(
        "The true curve: {} ({}) against {} ({})",
        y.label, y.unit, x.label, x.unit
    );
    view! {
        <figure class="predict-curve">
            <svg viewBox="-2 -2 104 64" role="img" aria-label=description.clone()>
                <polyline class="predict-curve-axes" points="0,0 0,60 100,60"></polyline>
                <polyline class="predict-curve-line" points=points></polyline>
            </svg>
            <figcaption>{description}</figcaption>
        </figure>
    }
}
