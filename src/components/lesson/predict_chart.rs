//! The guess of a chart prediction: a marker on the offered-load axis, moved by the labelled slider under the chart
//! (keyboard) or by pressing and dragging on the chart (pointer). After Reveal the real curve is drawn over it. The
//! chart is a [`ChartCanvas`] like the lab's: the same scaling on a projector and at any devicePixelRatio, no drawing
//! while off screen, and the same keyboard-scrollable data table.
//!
//! The chart and the model run that draws the real curve are code of their own ([`chart_parts`], behind a split
//! point like the widgets', `crate::components::on_demand`), fetched when a chart prediction nears the viewport:
//! the other predict steps need none of it.

use crate::components::chart_canvas::{canvas_chart, ChartCanvas};
use crate::components::sliced_sweep::{use_sliced_sweep, Publish, RunState};
use crate::components::theme::use_chart_theme;
use crate::lesson::judge::{
    curve_points, prediction_chart_data, prediction_sweep, target_phrase, CurvePoint,
};
use crate::lesson::progress::Guess;
use crate::lesson::{snap_marker, ChartTarget, LoadRange, MARKER_STEP};
use leptos::prelude::*;

/// What a chart prediction's step gives its chart.
pub struct ChartArgs {
    pub step_id: &'static str,
    pub target: ChartTarget,
    pub loads: LoadRange,
    pub guess: RwSignal<Option<Guess>>,
    pub locked: Signal<bool>,
    pub revealed: Signal<bool>,
}

/// What a chart prediction adds to its step: the real curve, and the chart with its marker slider.
pub struct ChartParts {
    /// The real curve, computed point by point once `revealed`; empty before.
    pub curve: Signal<Vec<CurvePoint>>,
    /// The chart of the guess (and, after Reveal, of the curve), with the slider that moves the marker.
    pub guess_view: AnyView,
}

/// The chart parts of a step, behind the page's `predict_chart` split point (`crate::components::on_demand`).
pub fn chart_parts(args: ChartArgs) -> ChartParts {
    let ChartArgs {
        step_id,
        target,
        loads,
        guess,
        locked,
        revealed,
    } = args;
    let curve = true_curve(loads, revealed);
    let guess_view = view! { <ChartGuess step_id target loads guess locked curve/> }.into_any();
    ChartParts { curve, guess_view }
}

/// A chart prediction's true curve while `revealed`: computed in slices, point by point, each point final once shown.
fn true_curve(loads: LoadRange, revealed: Signal<bool>) -> Signal<Vec<CurvePoint>> {
    let (points, state) = use_sliced_sweep(
        move || revealed.get().then_some(loads),
        |loads| prediction_sweep(*loads),
        curve_points,
        Publish::EveryFinishedPoint,
        None,
    );
    Memo::new(move |_| match state.get() {
        // Not with the course's fixed scenario; still, show a curve with no values rather than spin.
        RunState::Invalid(_) => loads
            .points()
            .into_iter()
            .map(CurvePoint::missing)
            .collect(),
        _ => points.get().unwrap_or_default(),
    })
    .into()
}

/// The marker's load from a guess.
fn marker(guess: &Option<Guess>) -> Option<f64> {
    match guess {
        Some(Guess::Load(load)) => Some(*load),
        _ => None,
    }
}

/// The chart, the slider and, once the curve exists, its data table.
#[component]
fn ChartGuess(
    step_id: &'static str,
    target: ChartTarget,
    loads: LoadRange,
    guess: RwSignal<Option<Guess>>,
    #[prop(into)] locked: Signal<bool>,
    curve: Signal<Vec<CurvePoint>>,
) -> impl IntoView {
    let chart = canvas_chart(Memo::new(move |_| {
        curve.with(|points| prediction_chart_data(target, loads, points, marker(&guess.get())))
    }));
    let theme = use_chart_theme();
    let on_drag = Callback::new(move |across: f64| {
        if !locked.get_untracked() {
            guess.set(Some(Guess::Load(loads.marker_at(across))));
        }
    });

    let what = target_phrase(target);
    let slider_id = format!("{step_id}-marker");
    let label_for = slider_id.clone();
    let slider_value = move || {
        let load = marker(&guess.get()).unwrap_or((loads.from + loads.to) / 2.0);
        format!("{}", (load * 1000.0).round() / 10.0)
    };
    let marker_text = move || match marker(&guess.get()) {
        Some(load) => format!(
            "Your marker: {} load.",
            crate::charts::format::format_percent(load)
        ),
        None => "No marker yet: move the slider or drag on the chart.".to_owned(),
    };
    view! {
        <div class="predict-chart" class:predict-chart-locked=move || locked.get()>
            <ChartCanvas chart theme caption=format!("Where is {what}?") on_drag caption_only=true/>
            <label class="predict-marker" for=label_for>
                {format!("Offered load where you expect {what}")}
                <input
                    id=slider_id
                    type="range"
                    min=format!("{}", loads.from * 100.0)
                    max=format!("{}", loads.to * 100.0)
                    step=format!("{}", MARKER_STEP * 100.0)
                    prop:value=slider_value
                    aria-valuetext=marker_text
                    disabled=move || locked.get()
                    on:input=move |event| {
                        if let Ok(percent) = event_target_value(&event).parse::<f64>() {
                            guess.set(Some(Guess::Load(snap_marker(percent / 100.0))));
                        }
                    }
                />
            </label>
            <p class="predict-marker-text">{marker_text}</p>
        </div>
    }
}
