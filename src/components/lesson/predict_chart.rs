//! The guess of a chart prediction: a marker on the offered-load axis, moved by the labelled slider under the chart
//! (keyboard) or by dragging on the chart (pointer). After Reveal the real curve is drawn over it; the data is in a
//! table below.

use crate::charts::{ChartSpec, ChartStyle, PlotRect};
use crate::components::canvas_backend::{draw_chart, use_canvas_geometry};
use crate::components::theme::use_chart_theme;
use crate::lesson::judge::{prediction_chart_data, target_phrase, CurvePoint};
use crate::lesson::progress::Guess;
use crate::lesson::{ChartTarget, LoadRange};
use leptos::html;
use leptos::prelude::*;

/// The marker's load from a guess.
fn marker(guess: &Option<Guess>) -> Option<f64> {
    match guess {
        Some(Guess::Load(load)) => Some(*load),
        _ => None,
    }
}

/// Loads snap to half a point, the slider's step.
fn snap(load: f64) -> f64 {
    (load * 200.0).round() / 200.0
}

/// The chart, the slider and, once the curve exists, its data table.
#[component]
pub fn ChartGuess(
    step_id: &'static str,
    target: ChartTarget,
    loads: LoadRange,
    guess: RwSignal<Option<Guess>>,
    #[prop(into)] locked: Signal<bool>,
    curve: Signal<Vec<CurvePoint>>,
) -> impl IntoView {
    let data = Memo::new(move |_| {
        curve.with(|points| prediction_chart_data(target, loads, points, marker(&guess.get())))
    });
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let geometry = use_canvas_geometry(canvas_ref);
    // Where the plot lies on the canvas, in CSS pixels, as the last drawing put it.
    let plot = StoredValue::new(None::<PlotRect>);
    let theme = use_chart_theme();
    Effect::new(move |_| {
        let geometry = geometry.get();
        let spec = ChartSpec::Prediction(data.get());
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        match draw_chart(canvas, geometry, &spec, ChartStyle::new(theme.get(), 1.0)) {
            Ok(drawn) => plot.set_value(drawn),
            Err(error) => web_sys::console::error_1(&format!("prediction chart: {error}").into()),
        }
    });

    let dragging = RwSignal::new(false);
    let place = move |x_css: f64| {
        if let Some(plot) = plot.get_value() {
            guess.set(Some(Guess::Load(snap(
                plot.x_value_at(x_css, (loads.from, loads.to)),
            ))));
        }
    };
    let on_down = move |event: web_sys::PointerEvent| {
        if locked.get_untracked() {
            return;
        }
        if let Some(canvas) = canvas_ref.get_untracked() {
            let _ = canvas.set_pointer_capture(event.pointer_id());
        }
        dragging.set(true);
        place(f64::from(event.offset_x()));
    };
    let on_move = move |event: web_sys::PointerEvent| {
        if dragging.get_untracked() && !locked.get_untracked() {
            place(f64::from(event.offset_x()));
        }
    };

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
    let table = Memo::new(move |_| data.with(|d| ChartSpec::Prediction(d.clone()).table()));
    view! {
        <div class="predict-chart">
            <canvas
                node_ref=canvas_ref
                class="chart-canvas prediction-canvas"
                class:prediction-canvas-locked=move || locked.get()
                role="img"
                aria-label=move || data.with(|d| ChartSpec::Prediction(d.clone()).summary())
                on:pointerdown=on_down
                on:pointermove=on_move
                on:pointerup=move |_| dragging.set(false)
                on:pointercancel=move |_| dragging.set(false)
            ></canvas>
            <label class="predict-marker" for=label_for>
                {format!("Offered load where you expect {what}")}
                <input
                    id=slider_id
                    type="range"
                    min=format!("{}", loads.from * 100.0)
                    max=format!("{}", loads.to * 100.0)
                    step="0.5"
                    prop:value=slider_value
                    aria-valuetext=marker_text
                    disabled=move || locked.get()
                    on:input=move |event| {
                        if let Ok(percent) = event_target_value(&event).parse::<f64>() {
                            guess.set(Some(Guess::Load(snap(percent / 100.0))));
                        }
                    }
                />
            </label>
            <p class="predict-marker-text">{marker_text}</p>
            <Show when=move || curve.with(|c| !c.is_empty())>
                <details class="chart-data">
                    <summary>{format!("Data table: the real curve for {what}")}</summary>
                    <table>
                        <thead>
                            <tr>{move || table.with(|t| t.header.iter().map(|h| view! { <th scope="col">{h.clone()}</th> }).collect_view())}</tr>
                        </thead>
                        <tbody>
                            {move || table.with(|t| t.rows.iter().map(|row| view! {
                                <tr>{row.iter().map(|cell| view! { <td>{cell.clone()}</td> }).collect_view()}</tr>
                            }).collect_view())}
                        </tbody>
                    </table>
                </details>
            </Show>
        </div>
    }
}
