//! Chart 2: throughput against goodput. Throughput keeps rising into the knee; goodput (requests that met every SLO)
//! peels off. The gap between them is capacity spent on answers that arrived too late to count. With a queue cap, a
//! third series shows the requests turned away at arrival: past saturation the server sheds them instead of queueing.

use super::format::{format_number, format_percent};
use super::frame::{
    build_chart, draw_gapped_band, draw_gapped_line, draw_measured, draw_note, draw_right_tags,
    draw_rule, draw_top_tags, end_tag, frame, linear_range, measured_rings, plot_rect, Axes,
    Margins, Measured, PlotRect, Rule, Scale, Series, Shade, Tag,
};
use super::latency::{
    current_load_marker, load_range, marker_stays_on_or_off, measured_rows, nearest,
};
use super::style::{ChartStyle, Pen, Weight};
use super::surface::{start_overlay, ChartArea, ChartResult};
use super::DataTable;

/// The label of the shaded gap: the lesson's phrase for throughput that is not goodput.
pub const GAP_LABEL: &str = "work you paid for but can't count";
/// The legend's name for the series of requests a queue cap turned away.
pub const TURNED_AWAY_LABEL: &str = "turned away (queue full)";

/// Throughput and goodput at one offered load; `None` where there is no steady-state value.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ThroughputPoint {
    /// Offered load as a fraction of capacity.
    pub offered_load: f64,
    /// Completed requests (or tokens) per second, whether or not they met the SLOs.
    pub throughput: Option<f64>,
    /// Completed requests (or tokens) per second that met both the TTFT and the TPOT SLO.
    pub goodput: Option<f64>,
    /// Requests per second turned away at arrival by a queue cap; `None` without one (the series is then not drawn).
    pub turned_away: Option<f64>,
}

/// Everything chart 2 shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThroughputVsGoodput {
    /// One entry per simulated load, ordered by load.
    pub points: Vec<ThroughputPoint>,
    /// Unit of both rates, e.g. "req/s" or "tok/s".
    pub rate_unit: String,
    /// The load the slider is at.
    pub current_load: f64,
    /// The learner's own server's runs, when the lab runs it: the throughput each measured beside the model's.
    pub measured: Vec<Measured>,
}

/// Draws throughput (dashed) and goodput (solid) against offered load, shades the gap between them and marks the
/// current load. Both are read against zero, so the y axis is linear from 0.
pub fn throughput_vs_goodput(
    area: &ChartArea<'_>,
    data: &ThroughputVsGoodput,
    style: &ChartStyle,
) -> ChartResult<Option<PlotRect>> {
    let palette = &style.palette;
    let throughput = Series::new("throughput", Pen::dashed(palette.throughput, Weight::Main));
    let goodput = Series::new("goodput", Pen::solid(palette.goodput, Weight::Emphasis));
    let gap = Shade::new(GAP_LABEL, palette.gap);
    let turned_away = Series::new(
        TURNED_AWAY_LABEL,
        Pen::solid(palette.turned_away, Weight::Main),
    );
    let sheds = data.points.iter().any(|p| p.turned_away.is_some());
    // The two lines are named where they end (right tags); the legend explains the shaded gap and, with a queue cap,
    // the line of what was turned away (a third tag would leave a phone's plot too narrow).
    let measured = Series::new(
        "○ your server, measured",
        Pen::solid(palette.marker, Weight::Main),
    );
    let mut legend = vec![(&gap).into()];
    if sheds {
        legend.push((&turned_away).into());
    }
    if !data.measured.is_empty() {
        legend.push((&measured).into());
    }
    let Some(body) = frame(area, style, "Throughput vs goodput", &legend)? else {
        return Ok(None);
    };
    let x_range = load_axis(data);
    let rates = data
        .points
        .iter()
        .flat_map(|p| [p.throughput, p.goodput, p.turned_away])
        .flatten()
        .chain(data.measured.iter().map(|m| m.measured));
    let y_range = linear_range(rates, true, 0.08);
    let y_samples = [y_range.end, y_range.end * 0.9];
    let axes = Axes {
        x_desc: "offered load (% of capacity)",
        y_desc: &format!("completed ({})", data.rate_unit),
        x_format: &|x| format_percent(*x),
        y_format: &|y| format_number(*y),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        y_samples: &y_samples,
        x_labels: 8,
        y_labels: 6,
    };
    let (marker, marker_tag) = current_load_marker(style, data.current_load);
    let top_tags = [marker_tag];
    // Top to bottom (goodput never exceeds throughput), so a tag nudged clear of the one above keeps the order.
    let right_tags: Vec<Tag> = [
        end_tag(&throughput, data.points.iter().map(|p| p.throughput)),
        end_tag(&goodput, data.points.iter().map(|p| p.goodput)),
    ]
    .into_iter()
    .flatten()
    .collect();
    let margins = Margins {
        top_tags: &top_tags,
        right_tags: &right_tags,
        ..Margins::default()
    };
    let mut chart = build_chart(&body, style, x_range, y_range, &axes, margins)?;

    // The gap is shaded only where goodput really is below throughput, from goodput up to throughput.
    let gap_points = data.points.iter().map(|p| match (p.goodput, p.throughput) {
        (Some(good), Some(all)) => (p.offered_load, Some((good.min(all), all))),
        _ => (p.offered_load, None),
    });
    draw_gapped_band(&mut chart, style, gap_points, &gap)?;
    let all = data.points.iter().map(|p| (p.offered_load, p.throughput));
    draw_gapped_line(&mut chart, style, all, throughput.pen)?;
    let good = data.points.iter().map(|p| (p.offered_load, p.goodput));
    draw_gapped_line(&mut chart, style, good, goodput.pen)?;
    if sheds {
        let away = data.points.iter().map(|p| (p.offered_load, p.turned_away));
        draw_gapped_line(&mut chart, style, away, turned_away.pen)?;
    }
    // Each run's label keeps off every ring, not only the labels placed before it (the lower run's "model −5%"
    // touched the upper run's ring at light load).
    let mut rings = measured_rings(&chart, style, &data.measured);
    draw_measured(
        &mut chart,
        style,
        &data.measured,
        palette.marker,
        &mut rings,
    )?;

    draw_right_tags(&body, &chart, style, &right_tags)?;
    if data.points.is_empty() {
        draw_note(&chart, style, "no results yet")?;
    }
    // Only the marker moves with the load.
    start_overlay(area)?;
    draw_rule(&mut chart, style, Rule::AtX(data.current_load), marker)?;
    draw_top_tags(&body, &chart, style, &top_tags)?;
    Ok(Some(plot_rect(area, &chart)))
}

impl ThroughputVsGoodput {
    /// Whether this chart's base layer (all but the load marker) is `earlier`'s: all it shows but the load is as it
    /// was, and the marker is in view in both or in neither (the row above the plot is kept for its tag only while
    /// it is).
    pub(crate) fn same_base_as(&self, earlier: &Self) -> bool {
        let ThroughputVsGoodput {
            points,
            rate_unit,
            current_load,
            measured,
        } = self;
        *points == earlier.points
            && *rate_unit == earlier.rate_unit
            && *measured == earlier.measured
            && marker_stays_on_or_off(&load_axis(self), *current_load, earlier.current_load)
    }
}

/// The chart's load axis: the simulated loads and the measured runs', and at least 85%–100%.
fn load_axis(data: &ThroughputVsGoodput) -> std::ops::Range<f64> {
    load_range(
        data.points
            .iter()
            .map(|p| p.offered_load)
            .chain(data.measured.iter().map(|m| m.offered_load)),
    )
}

/// The chart's `aria-label`, e.g. "At 97% load goodput is 62% of throughput (3.1 of 5.0 req/s); goodput peaks at 91%
/// load (4.2 req/s)."
pub fn throughput_summary(data: &ThroughputVsGoodput) -> String {
    let unit = &data.rate_unit;
    let Some(point) = nearest(&data.points, |p| p.offered_load, data.current_load) else {
        return "No throughput results to show yet.".to_owned();
    };
    let load = format_percent(point.offered_load);
    let mut sentence = match (point.goodput, point.throughput) {
        (Some(good), Some(all)) if all > 0.0 => format!(
            "At {load} load goodput is {} of throughput ({} of {} {unit})",
            format_percent(good / all),
            format_number(good),
            format_number(all)
        ),
        (_, Some(all)) => format!(
            "At {load} load throughput is {} {unit} and goodput has no steady value",
            format_number(all)
        ),
        _ => format!("At {load} load there is no steady throughput: the queue grows without bound"),
    };
    if let Some(away) = point.turned_away {
        sentence += &format!(", and {} {unit} are turned away", format_number(away));
    }
    let peak = data
        .points
        .iter()
        .filter_map(|p| {
            p.goodput
                .filter(|g| g.is_finite())
                .map(|g| (p.offered_load, g))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((peak_load, peak)) = peak {
        sentence += &format!(
            "; goodput peaks at {} load ({} {unit})",
            format_percent(peak_load),
            format_number(peak)
        );
    }
    sentence + "."
}

/// The chart's data table: one row per simulated load.
pub fn throughput_table(data: &ThroughputVsGoodput) -> DataTable {
    let unit = &data.rate_unit;
    let sheds = data.points.iter().any(|p| p.turned_away.is_some());
    let mut header = vec![
        "Offered load".to_owned(),
        format!("Throughput ({unit})"),
        format!("Goodput ({unit})"),
        "Goodput share".to_owned(),
    ];
    if sheds {
        header.push(format!("Turned away ({unit})"));
    }
    let cell = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), format_number);
    let rows = data
        .points
        .iter()
        .map(|p| {
            let share = match (p.goodput, p.throughput) {
                (Some(good), Some(all)) if all > 0.0 => format_percent(good / all),
                _ => "—".to_owned(),
            };
            let mut row = vec![
                format_percent(p.offered_load),
                cell(p.throughput),
                cell(p.goodput),
                share,
            ];
            if sheds {
                row.push(cell(p.turned_away));
            }
            row
        })
        .collect();
    let mut table = DataTable { header, rows };
    measured_rows(&mut table, &[(1, &data.measured)], format_number);
    table
}
