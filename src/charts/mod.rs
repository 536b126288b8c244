//! Charts of the knee lab, as pure drawing functions over a [`ChartArea`].
//!
//! Every chart draws on the one [`ChartBackend`], which hands its drawing to a [`Surface`]: the page's canvas, or an
//! SVG document ([`SvgSurface`]) for downloads, the static pages and the tests. A chart takes a plain data struct
//! defined here (the lab maps model results into it; nothing here depends on the model) and a [`ChartStyle`]. Beside each drawing function sit two pure functions for accessibility: a one-sentence
//! summary for the canvas's `aria-label`, and a [`DataTable`] the page shows as a keyboard-reachable `<table>`.
//!
//! Latencies are in **seconds** throughout, as vLLM exports them; they are printed with [`format::format_latency`].
//! Offered load is a fraction of capacity (ρ): `0.97` is 97%.

mod distribution;
pub mod fleet;
pub mod format;
mod frame;
mod latency;
mod prediction;
mod queue;
mod style;
pub mod surface;
mod throughput;
mod timeline;

pub use distribution::{
    distribution_summary, distribution_table, latency_distribution, LatencyBin, LatencyDistribution,
};
pub use frame::{Measured, PlotRect};
pub use latency::{
    latency_summary, latency_table, latency_vs_load, ExactCurve, FitBand, FitBandPoint,
    LatencyMetric, LatencyPoint, LatencyScale, LatencyVsLoad, MeasuredLatency, Percentile, Slo,
};
pub use prediction::{
    prediction_chart, prediction_summary, prediction_table, PredictionChart, PredictionMetric,
};
pub use queue::{queue_over_time, queue_summary, queue_table, QueueOverTime, QueueSample};
pub use style::{ChartStyle, ChartTheme, Palette};
pub use surface::{ChartArea, ChartBackend, ChartResult, Layer, Surface, SvgSurface};
pub use throughput::{
    throughput_summary, throughput_table, throughput_vs_goodput, ThroughputPoint,
    ThroughputVsGoodput,
};
pub use timeline::{
    batch_timeline, followed_sentence, followed_story, timeline_summary, timeline_table, Activity,
    BarSegment, BatchTimeline, FollowedBar, SlotRun, TimelineStep, WaitReason, MAX_ROWS,
};

/// The rows behind a chart, already formatted, for the `<table>` the page shows beside it: what a screen-reader user
/// (and the browser tests) read instead of the picture.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataTable {
    /// Column headings, units included (e.g. "p99 TTFT").
    pub header: Vec<String>,
    /// One row per data point; every row has as many cells as the header. Missing values are "—".
    pub rows: Vec<Vec<String>>,
}

/// One kind of chart with its data: what a canvas on the page is asked to show.
///
/// One value is drawn on the canvas, re-drawn into an SVG for download, and asked for its summary and table, all
/// from the same data so the picture, the `aria-label` and the table cannot drift apart. A widget holds its charts
/// as [`AnyChart`]s made from the kinds it draws, so its code (a module of its own on the page) carries those kinds'
/// drawing and no other's.
pub trait Chart: Send + Sync + std::any::Any {
    /// Draws the chart and returns where its plot lies (`None` when the area is too small for one).
    fn draw(&self, area: &ChartArea<'_>, style: &ChartStyle) -> ChartResult<Option<PlotRect>>;
    /// Whether the chart is drawn in two layers (see [`Layer`]) and its base is the one `earlier` drew: a canvas that
    /// drew `earlier` then paints only this chart's overlay, on the base it kept. Never, for a chart in one layer.
    fn same_base(&self, earlier: &dyn Chart) -> bool;
    /// The one-sentence `aria-label` of the chart.
    fn summary(&self) -> String;
    /// The chart's data table.
    fn table(&self) -> DataTable;
    /// A file name stem for downloads, e.g. "latency-vs-load".
    fn file_stem(&self) -> &'static str;
}

/// Each kind's [`Chart`]: its data type, its download's file stem, and its drawing, summary and table functions.
macro_rules! chart_kind {
    ($($data:ty: $stem:literal, $draw:ident, $summary:ident, $table:ident, $same_base:path;)*) => {$(
        impl Chart for $data {
            fn draw(&self, area: &ChartArea<'_>, style: &ChartStyle) -> ChartResult<Option<PlotRect>> {
                $draw(area, self, style)
            }
            fn same_base(&self, earlier: &dyn Chart) -> bool {
                (earlier as &dyn std::any::Any)
                    .downcast_ref::<$data>()
                    .is_some_and(|earlier| $same_base(self, earlier))
            }
            fn summary(&self) -> String {
                $summary(self)
            }
            fn table(&self) -> DataTable {
                $table(self)
            }
            fn file_stem(&self) -> &'static str {
                $stem
            }
        }
    )*};
}

chart_kind! {
    LatencyVsLoad: "latency-vs-load", latency_vs_load, latency_summary, latency_table, LatencyVsLoad::same_base_as;
    ThroughputVsGoodput: "throughput-vs-goodput", throughput_vs_goodput, throughput_summary, throughput_table,
        ThroughputVsGoodput::same_base_as;
    QueueOverTime: "queue-over-time", queue_over_time, queue_summary, queue_table, one_layer;
    LatencyDistribution: "latency-distribution", latency_distribution, distribution_summary, distribution_table,
        one_layer;
    PredictionChart: "prediction", prediction_chart, prediction_summary, prediction_table, one_layer;
    BatchTimeline: "batch-timeline", batch_timeline, timeline_summary, timeline_table, one_layer;
}

/// The `same_base` of a chart drawn in one layer: everything it shows moves when its data do.
fn one_layer<T>(_: &T, _: &T) -> bool {
    false
}

/// A chart of any kind, cheap to clone: what a canvas's signal holds.
#[derive(Clone)]
pub struct AnyChart(std::sync::Arc<dyn Chart>);

impl AnyChart {
    pub fn new(chart: impl Chart + 'static) -> Self {
        AnyChart(std::sync::Arc::new(chart))
    }
}

/// Two are equal when they hold the one chart: a new chart is a new value, made only when its data changed.
impl PartialEq for AnyChart {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Chart for AnyChart {
    fn draw(&self, area: &ChartArea<'_>, style: &ChartStyle) -> ChartResult<Option<PlotRect>> {
        self.0.draw(area, style)
    }
    fn same_base(&self, earlier: &dyn Chart) -> bool {
        // Compared as what each holds, so that two `AnyChart`s compare their charts.
        let earlier = (earlier as &dyn std::any::Any)
            .downcast_ref::<AnyChart>()
            .map_or(earlier, |any| &*any.0);
        self.0.same_base(earlier)
    }
    fn summary(&self) -> String {
        self.0.summary()
    }
    fn table(&self) -> DataTable {
        self.0.table()
    }
    fn file_stem(&self) -> &'static str {
        self.0.file_stem()
    }
}

/// Draws `chart` into an SVG document of `width`×`height` pixels, for the "Download SVG" button, the static pages'
/// pictures and slides. Text is the size it is on the canvas.
pub fn chart_svg(
    chart: &dyn Chart,
    style: &ChartStyle,
    width: u32,
    height: u32,
) -> Result<String, String> {
    chart_svg_layer(chart, style, (width, height), Layer::Whole)
}

/// [`chart_svg`] of one [`Layer`] of `chart`.
pub fn chart_svg_layer(
    chart: &dyn Chart,
    style: &ChartStyle,
    size: (u32, u32),
    layer: Layer,
) -> Result<String, String> {
    use plotters::prelude::IntoDrawingArea;
    let mut svg = String::new();
    {
        let root =
            ChartBackend::painting(SvgSurface::new(&mut svg, size), layer).into_drawing_area();
        chart.draw(&root, style).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}
