//! Charts of the knee lab, as pure drawing functions over a plotters [`DrawingArea`](plotters::drawing::DrawingArea).
//!
//! Every chart is generic in the backend, so the page draws it on a canvas and the tests draw it into an SVG string.
//! A chart takes a plain data struct defined here (the lab maps model results into it; nothing here depends on the
//! model) and a [`ChartStyle`]. Beside each drawing function sit two pure functions for accessibility: a one-sentence
//! summary for the canvas's `aria-label`, and a [`DataTable`] the page shows as a keyboard-reachable `<table>`.
//!
//! Latencies are in **seconds** throughout, as vLLM exports them; they are printed with [`format::format_ms`].
//! Offered load is a fraction of capacity (ρ): `0.97` is 97%.

mod distribution;
pub mod format;
mod frame;
mod latency;
mod queue;
mod style;
mod throughput;

pub use distribution::{
    distribution_summary, distribution_table, latency_distribution, LatencyDistribution,
};
pub use frame::ChartResult;
pub use latency::{
    latency_summary, latency_table, latency_vs_load, ExactCurve, LatencyMetric, LatencyPoint,
    LatencyVsLoad, Percentile, Slo,
};
pub use queue::{queue_over_time, queue_summary, queue_table, QueueOverTime, QueueSample};
pub use style::{ChartStyle, ChartTheme, Palette};
pub use throughput::{
    throughput_summary, throughput_table, throughput_vs_goodput, ThroughputPoint,
    ThroughputVsGoodput,
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
