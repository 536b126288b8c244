//! A predict-then-reveal step: the learner commits a guess (or says "show me anyway", which is recorded), reveals
//! the answer, and sees what they guessed, whether it was right and why; "Try again" starts the step over.
//!
//! Every piece of state an audience should see is a [`synced_signal`] under `predict/<step-id>/…`: the guess and the
//! step's [`PredictPhase`]; the step's record in the lesson's progress follows from them. Keyboard: every control is
//! a native input or button; committing moves focus to Reveal, revealing moves it to the outcome, and a live region
//! says the result.

use super::predict_chart::ChartArgs;
use super::progress_store::use_progress;
use super::tally::ClassTally;
use crate::components::on_demand::points;
use crate::components::sync::synced_signal;
use crate::lesson::island_markup::OPTION_LABEL_CLASS;
use crate::lesson::judge::{
    choice_prompt, distance_sentence, judge, locate, numeric_answer_text, prediction_scenario,
};
use crate::lesson::predict_phase::PredictPhase;
use crate::lesson::progress::Guess;
use crate::lesson::{PredictAnswer, PredictStep as PredictStepData};
use crate::presentation::sync::keys;
use crate::views::predict::{predict_heading, reveal_hint};
use leptos::html;
use leptos::prelude::*;

/// One step: question, guess, commit, reveal, outcome, tally.
#[component]
pub fn PredictStep(
    step: &'static PredictStepData,
    /// The reader opened "Show the answer" on the pre-rendered step before this copy came to life: the answer stays
    /// shown, recorded as shown without a guess (as "Show me anyway" is).
    #[prop(optional)]
    answer_opened: bool,
) -> impl IntoView {
    let progress = use_progress();
    let id: &'static str = step.id.as_str();
    let saved = progress.step(id);
    let is_recall = step.answer == PredictAnswer::Recall;
    let key = |part: &str| keys::predict(id, part);
    let guess = synced_signal(key("guess"), saved.guess.clone());
    let phase = synced_signal(key("phase"), PredictPhase::from_record(&saved, is_recall));
    if answer_opened && phase.get_untracked().is_open() {
        phase.update(|p| *p = p.show_anyway());
    }
    let retries = RwSignal::new(saved.retries);
    // A memo: the outcome below is built when this turns true, not again at each change of phase.
    let revealed = Memo::new(move |_| phase.get().is_revealed());
    let committed = Signal::derive(move || phase.get().is_committed());

    let locked = Signal::derive(move || !phase.get().is_open());

    let chart = match &step.answer {
        PredictAnswer::ChartPrediction { target, loads, .. } => Some((*target, *loads)),
        _ => None,
    };
    // A chart prediction's chart, and its real curve computed after Reveal by each window for itself (code fetched
    // before this step mounts: `components::mount`).
    let chart_parts = chart.and_then(|(target, loads)| {
        (points()?.chart_parts)(ChartArgs {
            step_id: id,
            target,
            loads,
            guess,
            locked,
            revealed: revealed.into(),
        })
    });
    let curve = chart_parts
        .as_ref()
        .map_or_else(|| Signal::derive(Vec::new), |parts| parts.curve);
    let chart_view = chart_parts.map(|parts| parts.guess_view);
    let curve_done = Memo::new(move |_| match chart {
        Some((_, loads)) => curve.with(|c| !c.is_empty() && c.len() >= loads.points().len()),
        None => true,
    });
    let actual = Memo::new(move |_| match chart {
        Some((target, _)) if curve_done.get() => {
            curve.with(|c| locate(target, c, prediction_scenario().slo.ttft))
        }
        _ => None,
    });
    let correct = Memo::new(move |_| match phase.get() {
        PredictPhase::Revealed { .. } if !curve_done.get() => None,
        PredictPhase::Revealed { self_grade } if is_recall => self_grade,
        PredictPhase::Revealed { .. } => guess
            .get()
            .and_then(|g| judge(&step.answer, &g, actual.get())),
        _ => None,
    });
    Effect::new(move |_| {
        let record = phase
            .get()
            .record(guess.get(), correct.get(), retries.get());
        progress.record(id, record);
    });
    let title_ref = NodeRef::<html::H3>::new();
    let reveal_ref = NodeRef::<html::Button>::new();
    let outcome_ref = NodeRef::<html::Div>::new();
    let clear = move || {
        guess.set(None);
        phase.update(|p| *p = p.start_over());
    };
    // "Reset my progress" at the top of the lesson clears every step.
    Effect::new(move |previous: Option<u32>| {
        let resets = progress.resets();
        if previous.is_some_and(|p| p != resets) {
            clear();
            retries.set(0);
        }
        resets
    });
    let commit = move |_| {
        phase.update(|p| *p = p.commit());
        request_animation_frame(move || {
            if let Some(button) = reveal_ref.get_untracked() {
                let _ = button.focus();
            }
        });
    };
    let reveal = move |anyway: bool| {
        phase.update(|p| *p = if anyway { p.show_anyway() } else { p.reveal() });
        request_animation_frame(move || {
            if let Some(outcome) = outcome_ref.get_untracked() {
                let _ = outcome.focus();
            }
        });
    };
    let try_again = move |_| {
        clear();
        retries.update(|n| *n += 1);
        request_animation_frame(move || {
            if let Some(title) = title_ref.get_untracked() {
                let _ = title.focus();
            }
        });
    };
    let announcement = move || {
        let phase = phase.get();
        let mut text = match (phase, correct.get()) {
            (PredictPhase::Guessing, _) => return String::new(),
            (PredictPhase::Committed, _) => {
                return "Guess committed. Reveal is now available.".to_owned()
            }
            _ if !curve_done.get() => return "Computing the real curve…".to_owned(),
            (PredictPhase::ShownAnyway, _) => "Answer shown without a guess.".to_owned(),
            (_, Some(true)) => "Right.".to_owned(),
            (_, Some(false)) => "Not right this time.".to_owned(),
            (_, None) if is_recall => {
                "Compare with the answer below, then mark whether you had it.".to_owned()
            }
            (_, None) => "Not scored.".to_owned(),
        };
        if let PredictAnswer::ChartPrediction { tolerance, .. } = &step.answer {
            let marker = match guess.get() {
                Some(Guess::Load(load)) if phase.is_committed() => Some(load),
                _ => None,
            };
            text = format!(
                "{text} {}",
                distance_sentence(marker, actual.get(), *tolerance)
            );
        }
        text
    };

    let title_id = format!("{id}-title");
    let labelled_by = title_id.clone();
    let hint_id = format!("{id}-reveal-hint");
    let described_by = hint_id.clone();
    view! {
        <section class="lesson-predict" id=id aria-labelledby=labelled_by>
            {predict_heading(title_id, is_recall, step.title.clone(), step.question.clone(), title_ref)}
            {guess_input(step, guess, locked, chart_view)}
            <div class="predict-actions">
                <button type="button" class="predict-commit"
                    disabled=move || locked.get() || (guess.with(Option::is_none) && !is_recall)
                    on:click=commit>
                    {move || match (committed.get(), is_recall) {
                        (true, _) => "Committed",
                        (false, true) => "I've said my answer",
                        (false, false) => "Commit my guess",
                    }}
                </button>
                <button type="button" class="predict-reveal" node_ref=reveal_ref data-present-reveal=""
                    disabled=move || phase.get() != PredictPhase::Committed
                    aria-describedby=described_by
                    on:click=move |_| reveal(false)>
                    "Reveal"
                </button>
                {move || (!locked.get()).then(|| view! {
                    <button type="button" class="predict-anyway" data-present-reveal="" on:click=move |_| reveal(true)>"Show me anyway"</button>
                })}
            </div>
            {reveal_hint(Some(hint_id), is_recall, locked)}
            <p class="predict-announce" role="status">{announcement}</p>
            {move || revealed.get().then(|| view! {
                <div class="predict-outcome" node_ref=outcome_ref tabindex="-1" aria-label=format!("Outcome: {}", step.title)>
                    {outcome(step, guess, phase, correct, curve_done)}
                    <div class="predict-explanation" inner_html=step.reveal.as_str()></div>
                    <button type="button" class="predict-again" on:click=try_again>"Try again"</button>
                </div>
            })}
            <ClassTally step_id=id answer=&step.answer/>
        </section>
    }
}

/// Where the learner commits: radio buttons or checkboxes, a number field, the chart marker (`chart_view`), or
/// nothing (recall).
fn guess_input(
    step: &'static PredictStepData,
    guess: RwSignal<Option<Guess>>,
    locked: Signal<bool>,
    chart_view: Option<AnyView>,
) -> impl IntoView {
    let id: &'static str = step.id.as_str();
    match &step.answer {
        PredictAnswer::MultipleChoice { options } => {
            let several = options.iter().filter(|o| o.correct).count() > 1;
            let picked = move |i: usize| matches!(guess.get(), Some(Guess::Choices(ref c)) if c.contains(&i));
            let choices = options.iter().enumerate().map(|(index, option)| {
                let toggle = move |_| {
                    let mut chosen = match guess.get_untracked() {
                        Some(Guess::Choices(c)) if several => c,
                        _ => Vec::new(),
                    };
                    if several && chosen.contains(&index) {
                        chosen.retain(|&c| c != index);
                    } else {
                        chosen.push(index);
                        chosen.sort_unstable();
                    }
                    guess.set((!chosen.is_empty()).then_some(Guess::Choices(chosen)));
                };
                view! {
                    <label class="predict-choice">
                        <input
                            type=if several { "checkbox" } else { "radio" }
                            name=id
                            value=index.to_string()
                            prop:checked=move || picked(index)
                            disabled=move || locked.get()
                            on:change=toggle
                        />
                        <span class=OPTION_LABEL_CLASS inner_html=option.label.as_str()></span>
                    </label>
                }
            });
            view! {
                <fieldset class="predict-choices">
                    <legend>{choice_prompt(several)}</legend>
                    {choices.collect_view()}
                </fieldset>
            }
            .into_any()
        }
        PredictAnswer::NumericEstimate { unit, .. } => {
            let text = RwSignal::new(match guess.get_untracked() {
                Some(Guess::Number(value)) => value.to_string(),
                _ => String::new(),
            });
            // A reset or "Try again" empties the field too.
            Effect::new(move |_| {
                if guess.with(Option::is_none) && text.with_untracked(|t| t.trim().parse::<f64>().is_ok()) {
                    text.set(String::new());
                }
            });
            let input_id = format!("{id}-estimate");
            let label_for = input_id.clone();
            let invalid = move || {
                let t = text.get();
                !t.trim().is_empty() && !t.trim().parse::<f64>().is_ok_and(f64::is_finite)
            };
            view! {
                <div class="predict-number">
                    <label for=label_for>{format!("Your estimate ({unit})")}</label>
                    <input id=input_id type="text" inputmode="decimal" autocomplete="off"
                        prop:value=move || text.get()
                        aria-invalid=move || invalid().to_string()
                        disabled=move || locked.get()
                        on:input=move |event| {
                            let value = event_target_value(&event);
                            guess.set(value.trim().parse::<f64>().ok().filter(|v| v.is_finite()).map(Guess::Number));
                            text.set(value);
                        }/>
                    <p class="predict-invalid">{move || invalid().then_some("Type a number, e.g. 4.5.")}</p>
                </div>
            }
            .into_any()
        }
        PredictAnswer::ChartPrediction { .. } => chart_view.unwrap_or_else(|| ().into_any()),
        PredictAnswer::Recall => view! {
            <p class="predict-recall-help">"Cover the screen, say your answer out loud (or to a neighbour), then press the button."</p>
        }
        .into_any(),
    }
}

/// What the learner guessed, whether it was right, and the per-option or per-number detail.
fn outcome(
    step: &'static PredictStepData,
    guess: RwSignal<Option<Guess>>,
    phase: RwSignal<PredictPhase>,
    correct: Memo<Option<bool>>,
    curve_done: Memo<bool>,
) -> impl IntoView {
    let committed = move || phase.get().is_committed();
    let verdict = move || match (phase.get(), correct.get()) {
        (PredictPhase::ShownAnyway, _) => ("predict-verdict-anyway", "Shown without a guess"),
        (_, Some(true)) => ("predict-verdict-right", "Right"),
        (_, Some(false)) => ("predict-verdict-wrong", "Not right"),
        (_, None) if !curve_done.get() => ("predict-verdict-pending", "Computing…"),
        _ => ("predict-verdict-open", "Not scored"),
    };
    let detail = match &step.answer {
        PredictAnswer::MultipleChoice { options } => {
            let rows = options.iter().enumerate().map(move |(index, option)| {
                let picked = move || committed() && matches!(guess.get(), Some(Guess::Choices(ref c)) if c.contains(&index));
                let tag = move || match (option.correct, picked()) {
                    (true, true) => "Right answer · your pick",
                    (true, false) => "Right answer",
                    (false, true) => "Your pick · wrong",
                    (false, false) => "",
                };
                let why = option.explanation.as_ref().map(|e| view! { <span class="predict-why" inner_html=e.as_str()></span> });
                view! {
                    <li class:predict-correct=option.correct class:predict-picked=picked>
                        <strong class="predict-tag">{tag}</strong>
                        <span class="predict-option-label" inner_html=option.label.as_str()></span>
                        {why}
                    </li>
                }
            });
            view! { <ul class="predict-options">{rows.collect_view()}</ul> }.into_any()
        }
        PredictAnswer::NumericEstimate { answer, tolerance, unit } => {
            let yours = move || match (committed(), guess.get()) {
                (true, Some(Guess::Number(value))) => format!("Your estimate: {value} {unit}."),
                _ => "You gave no estimate.".to_owned(),
            };
            let (answer, within) = numeric_answer_text(*answer, *tolerance, unit);
            view! {
                <p class="predict-numbers">
                    {yours} " "
                    <strong>{answer}</strong>
                    {within}
                </p>
            }
            .into_any()
        }
        PredictAnswer::ChartPrediction { .. } => view! {
            <p class="predict-numbers">"The real curve is drawn over your marker on the chart above; its numbers are in the data table under it."</p>
        }
        .into_any(),
        PredictAnswer::Recall => view! {
            <div class="predict-self-grade" role="group" aria-label="Did you have it?">
                <span>"Did you have it? "</span>
                <button type="button" aria-pressed=move || (phase.get().self_grade() == Some(true)).to_string()
                    disabled=move || !committed()
                    on:click=move |_| phase.update(|p| *p = p.grade(true))>"I had it"</button>
                <button type="button" aria-pressed=move || (phase.get().self_grade() == Some(false)).to_string()
                    disabled=move || !committed()
                    on:click=move |_| phase.update(|p| *p = p.grade(false))>"I missed something"</button>
            </div>
        }
        .into_any(),
    };
    view! {
        <p class=move || format!("predict-verdict {}", verdict().0)>{move || verdict().1}</p>
        {detail}
    }
}
