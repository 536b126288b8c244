//! `ChartCanvas`: one chart of the knee lab on a `<canvas>`, crisp at any devicePixelRatio, redrawn on resize, on a
//! change of devicePixelRatio (zoom, another screen) and whenever its data or theme change, with its summary as the
//! canvas's `aria-label`, its data table one keyboard press away in a `<details>`, and PNG/SVG downloads for slides.
//!
//! ```ignore
//! view! { <ChartCanvas chart=canvas_chart(Memo::new(move |_| latency.get())) theme=theme /> }
//! ```

use crate::components::canvas_backend::{use_canvas_geometry, KeptBase};
use leptos::html;
use leptos::prelude::*;
use leptos_use_element_visibility::use_element_visibility;

use super::download::{save, save_text};
use super::perf;
use crate::charts::{chart_svg, AnyChart, Chart, ChartStyle, ChartTheme, DataTable, PlotRect};
use crate::components::theme::use_chart_projection;
use crate::views::data_table::folded_table;

/// A chart of one kind as a [`ChartCanvas`] takes it. The memo of its own data keeps a canvas from redrawing when an
/// update left that chart as it was; this one copies the data once a change, so the canvas's drawing, label and
/// table read it without copying it again.
pub fn canvas_chart<C: Chart + Clone + PartialEq + 'static>(chart: Memo<C>) -> Memo<AnyChart> {
    Memo::new(move |_| AnyChart::new(chart.get()))
}

/// A chart on a canvas, with its accessible label, data table and download buttons.
///
/// The canvas's CSS size comes from the stylesheet (class `chart-canvas`, no inline style, for the CSP); its backing
/// store is set to CSS size × `devicePixelRatio` and the [`ChartStyle`] is scaled to match, because plotters-canvas
/// draws in backing-store pixels and knows nothing about DPR.
#[component]
pub fn ChartCanvas(
    /// The chart and its data.
    #[prop(into)]
    chart: Signal<AnyChart>,
    /// The page theme.
    #[prop(into)]
    theme: Signal<ChartTheme>,
    /// Caption shown above the chart (and the `<details>` summary names it too).
    #[prop(into)]
    caption: String,
    /// Called with where a click landed in the chart's plot, as fractions of its width and height from its top left
    /// corner (a click outside the plot is ignored). Charts with a keyboard twin of this pick only: the batch
    /// timeline's request picker.
    #[prop(optional)]
    on_pick: Option<Callback<(f64, f64)>>,
    /// Called with where the pointer is across the plot (0 at its left edge, 1 at its right, clamped) when it is
    /// pressed on the chart and while it drags: a chart prediction's marker, whose keyboard twin is its slider.
    #[prop(optional)]
    on_drag: Option<Callback<f64>>,
    /// The caption is the chart's only title: the canvas leaves its own out and gives the room to the plot (the SVG
    /// download keeps it, since a file travels without its caption).
    #[prop(optional)]
    caption_only: bool,
) -> impl IntoView {
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let geometry = use_canvas_geometry(canvas_ref);

    // Charts scrolled out of view are not drawn: a slider move then costs only the charts the learner can see, and
    // an off-screen chart catches up when it scrolls in.
    let visible = use_element_visibility(canvas_ref);
    // Larger type and lines on a projected screen (1 on the lesson page).
    let projection = use_chart_projection();
    // Where the last drawing put the plot, CSS px, for clicks.
    let plot = StoredValue::new(None::<PlotRect>);
    // A chart against load keeps its curves while the load slider moves (see `KeptBase`).
    let base = StoredValue::new_local(KeptBase::default());

    // Redraw whenever the size, the pixel ratio, the data, the theme or the projection change.
    Effect::new(move |_| {
        if !visible.get() {
            return;
        }
        let geometry = geometry.get();
        let spec = chart.get();
        let theme = theme.get();
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let (width, height) = geometry.css_size;
        let projection = ChartStyle::fit_projection(projection.get(), width, height);
        let style = ChartStyle::new(theme, 1.0).with_projection(projection);
        let style = if caption_only {
            style.untitled()
        } else {
            style
        };
        let started = perf::now();
        // The kept base lives as long as the canvas; `None` would mean it was disposed of with it.
        let drawn = base.try_update_value(|base| base.draw(canvas, geometry, &spec, style));
        match drawn {
            Some(Ok(drawn)) => plot.set_value(drawn),
            Some(Err(error)) => {
                web_sys::console::error_1(&format!("chart {}: {error}", spec.file_stem()).into())
            }
            None => {}
        }
        perf::measure(
            &format!("chart:draw:{}", spec.file_stem()),
            started,
            perf::now(),
        );
    });

    let label = Signal::derive(move || chart.with(|chart| chart.summary()));
    // The table is built only while its <details> is open: closed, it would be rebuilt on every slider move for no one.
    let table_open = RwSignal::new(false);
    let table = Memo::new(move |_| {
        if table_open.get() {
            chart.with(|chart| chart.table())
        } else {
            DataTable::default()
        }
    });

    let download_png = move |_| {
        let Some(canvas) = canvas_ref.get_untracked() else {
            return;
        };
        let canvas: web_sys::HtmlCanvasElement = canvas;
        if let Ok(url) = canvas.to_data_url_with_type("image/png") {
            save(
                &url,
                &format!("{}.png", chart.with_untracked(|chart| chart.file_stem())),
            );
        }
    };
    let download_svg = move |_| {
        let (width, height) = geometry.get_untracked().css_size;
        let spec = chart.get_untracked();
        // The SVG is drawn at CSS size and scale 1: it is a vector, so slides scale it without blur.
        let style = ChartStyle::new(theme.get_untracked(), 1.0);
        let size = (
            width.max(640.0).round() as u32,
            height.max(320.0).round() as u32,
        );
        let saved = chart_svg(&spec, &style, size.0, size.1)
            .and_then(|svg| save_text(&svg, "image/svg+xml", &format!("{}.svg", spec.file_stem())));
        if let Err(error) = saved {
            web_sys::console::error_1(&format!("chart svg: {error}").into());
        }
    };

    let on_click = move |event: web_sys::MouseEvent| {
        let (Some(pick), Some(plot)) = (on_pick, plot.get_value()) else {
            return;
        };
        let across = (f64::from(event.offset_x()) - plot.left) / plot.width();
        let down = (f64::from(event.offset_y()) - plot.top) / plot.height();
        if (0.0..1.0).contains(&across) && (0.0..1.0).contains(&down) {
            pick.run((across, down));
        }
    };
    let dragging = StoredValue::new(false);
    let drag_to = move |event: &web_sys::PointerEvent| {
        if let (Some(drag), Some(plot)) = (on_drag, plot.get_value()) {
            let across = (f64::from(event.offset_x()) - plot.left) / plot.width();
            if across.is_finite() {
                drag.run(across.clamp(0.0, 1.0));
            }
        }
    };
    let on_down = move |event: web_sys::PointerEvent| {
        if on_drag.is_none() {
            return;
        }
        if let Some(canvas) = canvas_ref.get_untracked() {
            let _ = canvas.set_pointer_capture(event.pointer_id());
        }
        dragging.set_value(true);
        drag_to(&event);
    };
    let on_move = move |event: web_sys::PointerEvent| {
        if dragging.get_value() {
            drag_to(&event);
        }
    };
    let stop = move |_| dragging.set_value(false);
    view! {
        <figure class="chart">
            <figcaption>{caption.clone()}</figcaption>
            <canvas node_ref=canvas_ref class="chart-canvas" class:chart-canvas-pickable=on_pick.is_some()
                class:chart-canvas-draggable=on_drag.is_some()
                role="img" aria-label=label on:click=on_click
                on:pointerdown=on_down on:pointermove=on_move on:pointerup=stop on:pointercancel=stop></canvas>
            <div class="chart-actions">
                <button type="button" on:click=download_png>"Download PNG"</button>
                <button type="button" on:click=download_svg>"Download SVG"</button>
            </div>
            {folded_table(&caption, table, table_open)}
        </figure>
    }
}
