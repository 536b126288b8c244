//! The chart of a chart prediction: the learner's marker on the offered-load axis and, after Reveal, the real curve
//! drawn over it with the load where the target really is. Two kinds of curve: p99 TTFT (log axis, as in chart 1)
//! and goodput as a share of throughput (linear, 0–100%).
//!
//! The drawing function returns where the plot lies, so the page can turn a pointer position on the canvas into a
//! load with exactly the mapping the picture used ([`PlotRect::x_value_at`]).

use plotters::coord::combinators::IntoLogRange;

use super::format::{format_latency, format_percent};
use super::frame::{
    build_chart, decade_range, draw_gapped_line, draw_right_tags, draw_rule, draw_top_tags, frame,
    is_narrow, plot_rect, Axes, Axis, Chart, LegendEntry, Margins, PlotRect, Rule, Scale, Series,
    Tag,
};
use super::style::{ChartStyle, Pen, Weight};
use super::surface::{ChartArea, ChartResult};
use super::DataTable;

/// Which curve the prediction is about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PredictionMetric {
    /// p99 time to first token, seconds.
    #[default]
    P99Ttft,
    /// Goodput divided by throughput, a fraction.
    GoodputShare,
}

impl PredictionMetric {
    /// Axis and table heading.
    pub fn label(self) -> &'static str {
        match self {
            PredictionMetric::P99Ttft => "p99 TTFT",
            PredictionMetric::GoodputShare => "goodput share of throughput",
        }
    }

    fn format(self, value: f64) -> String {
        match self {
            PredictionMetric::P99Ttft => format_latency(value),
            PredictionMetric::GoodputShare => format_percent(value),
        }
    }
}

/// Everything the prediction chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PredictionChart {
    /// The curve's metric.
    pub metric: PredictionMetric,
    /// What the marker marks, for the title and sentences, e.g. "the knee".
    pub target: String,
    /// The load axis, `(from, to)` as fractions of capacity.
    pub load_range: (f64, f64),
    /// The real curve so far, `(load, value)` ordered by load; empty before Reveal. `None`: no steady state.
    pub points: Vec<(f64, Option<f64>)>,
    /// How many loads the full curve has, so a curve still being computed says how far it got.
    pub expected_points: usize,
    /// The level the target is defined by (an SLO, twice the light-load p99, 90%), with its tag, e.g. "SLO 500 ms".
    pub level: Option<(f64, String)>,
    /// The learner's marker, a load.
    pub guess: Option<f64>,
    /// Where the target really is, once the curve is complete.
    pub actual: Option<f64>,
}

/// The lines of a prediction chart, each drawn with the pen its legend entry shows.
struct Lines {
    marker: Series,
    curve: Series,
    actual: Series,
    /// The level is named by its tag in the right margin, or on a phone by its legend entry.
    level: Series,
}

/// Draws the prediction chart and returns where its plot lies (`None` when the area is too small to hold a chart).
pub fn prediction_chart(
    area: &ChartArea<'_>,
    data: &PredictionChart,
    style: &ChartStyle,
) -> ChartResult<Option<PlotRect>> {
    let palette = &style.palette;
    let curve_colour = match data.metric {
        PredictionMetric::P99Ttft => palette.p99,
        PredictionMetric::GoodputShare => palette.goodput,
    };
    let lines = Lines {
        marker: Series::new("your marker", Pen::dashed(palette.marker, Weight::Main)),
        curve: Series::new(
            format!("real {}", data.metric.label()),
            Pen::solid(curve_colour, Weight::Emphasis),
        ),
        actual: Series::new(
            "where it really is",
            Pen::solid(palette.exact, Weight::Main),
        ),
        level: Series::new(
            data.level.as_ref().map_or("", |(_, tag)| tag.as_str()),
            Pen::dashed(palette.slo, Weight::Guide),
        ),
    };
    let narrow = is_narrow(area, style);
    let mut legend: Vec<LegendEntry> = vec![(&lines.marker).into()];
    if !data.points.is_empty() {
        legend.extend([
            LegendEntry::from(&lines.curve),
            LegendEntry::from(&lines.actual),
        ]);
    }
    if narrow && data.level.is_some() {
        legend.push((&lines.level).into());
    }
    let title = format!("Where is {}?", data.target);
    let Some(body) = frame(area, style, &title, &legend)? else {
        return Ok(None);
    };
    let (from, to) = data.load_range;
    let x_range = from..to.max(from + 1e-6);
    let right_tags: Vec<Tag> = data
        .level
        .iter()
        .filter(|_| !narrow)
        .map(|(level, _)| Tag {
            at: *level,
            text: lines.level.label.clone(),
            color: lines.level.pen.colour,
        })
        .collect();
    // The real load, then the marker: a tag per line drawn at an x.
    let top_tags: Vec<Tag> = [
        (data.actual, &lines.actual, "real"),
        (data.guess, &lines.marker, "your marker"),
    ]
    .into_iter()
    .filter_map(|(at, line, name)| {
        let at = at?;
        Some(Tag {
            at,
            text: format!("{name} {}", format_percent(at)),
            color: line.pen.colour,
        })
    })
    .collect();
    let margins = Margins {
        top_tags: &top_tags,
        right_tags: &right_tags,
        ..Margins::default()
    };
    let x_format = |x: &f64| format_percent(*x);
    let plot = match data.metric {
        PredictionMetric::P99Ttft => {
            let values = data
                .points
                .iter()
                .filter_map(|p| p.1)
                .chain(data.level.as_ref().map(|l| l.0))
                // Before Reveal there is no curve: show the usual span of a TTFT, 50 ms to 1 s.
                .chain(if data.points.is_empty() {
                    vec![0.05, 1.0]
                } else {
                    Vec::new()
                });
            let y_range = decade_range(values);
            let y_samples = [y_range.start, y_range.end, y_range.end / 2.0];
            let axes = Axes {
                x_desc: "offered load (% of capacity)",
                y_desc: "p99 TTFT (log scale)",
                x_format: &x_format,
                y_format: &|y| format_latency(*y),
                x_scale: Scale::Linear,
                y_scale: Scale::Log,
                y_samples: &y_samples,
                x_labels: 8,
                y_labels: 30,
            };
            let mut chart =
                build_chart(&body, style, x_range, y_range.log_scale(), &axes, margins)?;
            draw_layers(&body, &mut chart, data, style, &lines, margins)?;
            plot_rect(area, &chart)
        }
        PredictionMetric::GoodputShare => {
            let y_samples = [1.0, 0.5];
            let axes = Axes {
                x_desc: "offered load (% of capacity)",
                y_desc: "goodput ÷ throughput",
                x_format: &x_format,
                y_format: &|y| format_percent(*y),
                x_scale: Scale::Linear,
                y_scale: Scale::Linear,
                y_samples: &y_samples,
                x_labels: 8,
                y_labels: 6,
            };
            let mut chart = build_chart(&body, style, x_range, 0.0..1.05, &axes, margins)?;
            draw_layers(&body, &mut chart, data, style, &lines, margins)?;
            plot_rect(area, &chart)
        }
    };
    Ok(Some(plot))
}

/// The curve, the level, the real load and the marker, in that order (the marker last so it is never hidden), and
/// their tags.
fn draw_layers<X: Axis, Y: Axis>(
    body: &ChartArea<'_>,
    chart: &mut Chart<'_, '_, X, Y>,
    data: &PredictionChart,
    style: &ChartStyle,
    lines: &Lines,
    tags: Margins<'_>,
) -> ChartResult {
    let positive = |v: Option<f64>| match data.metric {
        PredictionMetric::P99Ttft => v.filter(|v| *v > 0.0),
        PredictionMetric::GoodputShare => v,
    };
    let curve = data.points.iter().map(|&(x, y)| (x, positive(y)));
    draw_gapped_line(chart, style, curve, lines.curve.pen)?;
    if let Some((level, _)) = &data.level {
        draw_rule(chart, style, Rule::AtY(*level), lines.level.pen)?;
    }
    if let Some(actual) = data.actual {
        draw_rule(chart, style, Rule::AtX(actual), lines.actual.pen)?;
    }
    if let Some(guess) = data.guess {
        draw_rule(chart, style, Rule::AtX(guess), lines.marker.pen)?;
    }
    draw_top_tags(body, chart, style, tags.top_tags)?;
    draw_right_tags(body, chart, style, tags.right_tags)
}

/// The chart's `aria-label`: where the marker is and, once revealed, where the target really is.
pub fn prediction_summary(data: &PredictionChart) -> String {
    let marker = match data.guess {
        Some(guess) => format!(
            "Your marker for {} is at {} load",
            data.target,
            format_percent(guess)
        ),
        None => format!("No marker placed yet for {}", data.target),
    };
    if data.points.is_empty() {
        return format!("{marker}; the real curve appears after Reveal.");
    }
    if data.points.len() < data.expected_points {
        return format!(
            "{marker}; computing the real curve, {} of {} loads so far.",
            data.points.len(),
            data.expected_points
        );
    }
    match data.actual {
        Some(actual) => format!(
            "{marker}; on the real {} curve it is at {} load.",
            data.metric.label(),
            format_percent(actual)
        ),
        None => format!(
            "{marker}; the real {} curve does not get there between {} and {} load.",
            data.metric.label(),
            format_percent(data.load_range.0),
            format_percent(data.load_range.1)
        ),
    }
}

/// The chart's data table: one row per simulated load.
pub fn prediction_table(data: &PredictionChart) -> DataTable {
    let header = vec!["Offered load".to_owned(), data.metric.label().to_owned()];
    let rows = data
        .points
        .iter()
        .map(|&(load, value)| {
            vec![
                format_percent(load),
                value.map_or_else(
                    || "— (no steady state)".to_owned(),
                    |v| data.metric.format(v),
                ),
            ]
        })
        .collect();
    DataTable { header, rows }
}
