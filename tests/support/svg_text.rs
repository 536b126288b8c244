//! Reading a chart's SVG in the chart tests (`tests/charts.rs`, `tests/chart_kinds.rs`, `tests/chart_layout.rs`):
//! its polylines by colour, its texts, the palette's line colours and the light style.
// Each includer uses only some of these.
#![allow(dead_code)]

use goodput::charts::{ChartStyle, ChartTheme};

/// Polylines stroked in `colour` (plotters writes every line series and every dash as one `<polyline>`).
pub fn polylines(svg: &str, colour: &str) -> usize {
    svg.lines()
        .filter(|line| line.contains("<polyline") && line.contains(&format!("stroke=\"{colour}\"")))
        .count()
}

pub fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            t.split_once('>')
                .and_then(|(_, rest)| rest.split_once("</text>"))
        })
        .map(|(text, _)| text.trim().replace("&apos;", "'"))
        .collect()
}

pub fn has_text(svg: &str, wanted: &str) -> bool {
    texts(svg).iter().any(|t| t == wanted)
}

pub const P50: &str = "#0072B2";
pub const P95: &str = "#E69F00";
pub const P99: &str = "#D55E00";
pub const MEAN: &str = "#009E73";
pub const EXACT: &str = "#CC79A7";
pub const THROUGHPUT: &str = "#0072B2";
pub const GOODPUT: &str = "#009E73";

pub fn style() -> ChartStyle {
    ChartStyle::new(ChartTheme::Light, 1.0)
}
