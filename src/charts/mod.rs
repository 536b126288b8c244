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
pub use surface::{ChartArea, ChartBackend, ChartResult, Surface, SvgSurface};
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

/// Any one of the charts with its data: what a canvas on the page is asked to show.
///
/// One value is drawn on the canvas, re-drawn into an SVG for download, and asked for its summary and table, all
/// from the same data so the picture, the `aria-label` and the table cannot drift apart.
#[derive(Clone, Debug, PartialEq)]
pub enum ChartSpec {
    /// Chart 1, [`latency_vs_load`].
    LatencyVsLoad(LatencyVsLoad),
    /// Chart 2, [`throughput_vs_goodput`].
    ThroughputVsGoodput(ThroughputVsGoodput),
    /// Chart 3, [`queue_over_time`].
    QueueOverTime(QueueOverTime),
    /// Chart 4, [`latency_distribution`].
    LatencyDistribution(LatencyDistribution),
    /// A chart prediction's marker and real curve, [`prediction_chart`].
    Prediction(PredictionChart),
    /// Inside the batch: one replica's iterations over a few seconds, [`batch_timeline`].
    BatchTimeline(BatchTimeline),
}

impl ChartSpec {
    /// Draws the chart and returns where its plot lies (`None` when the area is too small for one).
    pub fn draw(&self, area: &ChartArea<'_>, style: &ChartStyle) -> ChartResult<Option<PlotRect>> {
        match self {
            ChartSpec::LatencyVsLoad(data) => latency_vs_load(area, data, style),
            ChartSpec::ThroughputVsGoodput(data) => throughput_vs_goodput(area, data, style),
            ChartSpec::QueueOverTime(data) => queue_over_time(area, data, style),
            ChartSpec::LatencyDistribution(data) => latency_distribution(area, data, style),
            ChartSpec::Prediction(data) => prediction_chart(area, data, style),
            ChartSpec::BatchTimeline(data) => batch_timeline(area, data, style),
        }
    }

    /// The one-sentence `aria-label` of the chart.
    pub fn summary(&self) -> String {
        match self {
            ChartSpec::LatencyVsLoad(data) => latency_summary(data),
            ChartSpec::ThroughputVsGoodput(data) => throughput_summary(data),
            ChartSpec::QueueOverTime(data) => queue_summary(data),
            ChartSpec::LatencyDistribution(data) => distribution_summary(data),
            ChartSpec::Prediction(data) => prediction_summary(data),
            ChartSpec::BatchTimeline(data) => timeline_summary(data),
        }
    }

    /// The chart's data table.
    pub fn table(&self) -> DataTable {
        match self {
            ChartSpec::LatencyVsLoad(data) => latency_table(data),
            ChartSpec::ThroughputVsGoodput(data) => throughput_table(data),
            ChartSpec::QueueOverTime(data) => queue_table(data),
            ChartSpec::LatencyDistribution(data) => distribution_table(data),
            ChartSpec::Prediction(data) => prediction_table(data),
            ChartSpec::BatchTimeline(data) => timeline_table(data),
        }
    }

    /// A file name stem for downloads, e.g. "latency-vs-load".
    pub fn file_stem(&self) -> &'static str {
        match self {
            ChartSpec::LatencyVsLoad(_) => "latency-vs-load",
            ChartSpec::ThroughputVsGoodput(_) => "throughput-vs-goodput",
            ChartSpec::QueueOverTime(_) => "queue-over-time",
            ChartSpec::LatencyDistribution(_) => "latency-distribution",
            ChartSpec::Prediction(_) => "prediction",
            ChartSpec::BatchTimeline(_) => "batch-timeline",
        }
    }
}

/// Draws `chart` into an SVG document of `width`×`height` pixels, for the "Download SVG" button, the static pages'
/// pictures and slides. Text is the size it is on the canvas.
pub fn chart_svg(
    chart: &ChartSpec,
    style: &ChartStyle,
    width: u32,
    height: u32,
) -> Result<String, String> {
    use plotters::prelude::IntoDrawingArea;
    let mut svg = String::new();
    {
        let root =
            ChartBackend::new(SvgSurface::new(&mut svg, (width, height))).into_drawing_area();
        chart.draw(&root, style).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}
