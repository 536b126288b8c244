//! What charts draw on their axes: lines and bands that may have gaps, threshold rules, tags in the margins beside
//! the things they name, and a note in an empty plot.

use plotters::element::{Circle, EmptyElement, PathElement, Polygon, Text};
use plotters::prelude::LineSeries;
use plotters::series::DashedLineSeries;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{Color, RGBColor, TextStyle};

use super::{Axis, Chart, Series, Shade, TICK_CSS};
use crate::charts::style::{ChartStyle, Pen, Stroke};
use crate::charts::surface::{ChartArea, ChartResult};

/// A benchmark run of the learner's own server at one offered load: the value it measured, and the calibrated
/// model's for the same run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// The run's rate as a fraction of the model's capacity.
    pub offered_load: f64,
    /// What the server measured (seconds, or requests per second).
    pub measured: f64,
    /// What the model gives for the same run.
    pub model: f64,
}

impl Measured {
    /// The model's error as a signed percentage of the measured value: "+4%", "−12%".
    pub fn error_text(&self) -> String {
        let percent = (self.model / self.measured - 1.0) * 100.0;
        let sign = if percent < 0.0 { "−" } else { "+" };
        format!("{sign}{:.0}%", percent.abs())
    }
}

/// A short text placed in a margin next to the thing it names: the current-load marker above the plot, the SLO or
/// `max_num_seqs` line to the right of it. Margins, because a label inside the plot sooner or later sits on the curve
/// the reader is trying to see.
#[derive(Clone, Debug)]
pub(crate) struct Tag {
    /// Data coordinate along the axis the tag follows (x for top tags, y for right tags).
    pub at: f64,
    pub text: String,
    pub color: RGBColor,
}

/// A line's name where the eye leaves it: a tag in the right margin, in the line's colour, at the height of its last
/// finite value (`values` in the x axis's order, `None` for gaps). `None` when the line has no value at all.
pub(crate) fn end_tag(
    line: &Series,
    values: impl DoubleEndedIterator<Item = Option<f64>>,
) -> Option<Tag> {
    let last = values.rev().flatten().find(|v| v.is_finite())?;
    Some(Tag {
        at: last,
        text: line.label.clone(),
        color: line.pen.colour,
    })
}

/// Splits `points` into runs of consecutive present, finite values: a missing point (an unstable open-loop queue, or
/// no data) breaks the line instead of being drawn as zero.
pub(crate) fn segments(
    points: impl IntoIterator<Item = (f64, Option<f64>)>,
) -> Vec<Vec<(f64, f64)>> {
    let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for (x, y) in points {
        match y {
            Some(y) if x.is_finite() && y.is_finite() => {
                runs.last_mut().expect("never empty").push((x, y))
            }
            _ if runs.last().is_some_and(|run| !run.is_empty()) => runs.push(Vec::new()),
            _ => {}
        }
    }
    runs.retain(|run| !run.is_empty());
    runs
}

/// Draws a series with gaps: each run as a line (dashed if the pen says so), and a lone point between two gaps as a
/// dot so it does not silently disappear.
pub(crate) fn draw_gapped_line<X: Axis, Y: Axis>(
    chart: &mut Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    points: impl IntoIterator<Item = (f64, Option<f64>)>,
    pen: Pen,
) -> ChartResult {
    let stroke = style.line(pen);
    for run in segments(points) {
        if run.len() == 1 {
            let radius = style.px(style.line_px * 1.6);
            chart.draw_series(std::iter::once(Circle::new(
                run[0],
                radius,
                stroke.filled(),
            )))?;
        } else {
            match pen.stroke {
                Stroke::Dashed => chart.draw_series(DashedLineSeries::new(
                    run,
                    style.px(9.0),
                    style.px(6.0),
                    stroke,
                ))?,
                Stroke::Solid => chart.draw_series(LineSeries::new(run, stroke))?,
            };
        }
    }
    Ok(())
}

/// Shades the area between `lo` and `hi` wherever both are present (a confidence band, the goodput gap).
pub(crate) fn draw_gapped_band<X: Axis, Y: Axis>(
    chart: &mut Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    points: impl IntoIterator<Item = (f64, Option<(f64, f64)>)>,
    shade: &Shade,
) -> ChartResult {
    let fill = style.fill(shade.colour);
    let points: Vec<_> = points.into_iter().collect();
    let lows = segments(points.iter().map(|&(x, band)| (x, band.map(|(lo, _)| lo))));
    let highs = segments(points.iter().map(|&(x, band)| (x, band.map(|(_, hi)| hi))));
    for (low, high) in lows.into_iter().zip(highs) {
        if low.len() < 2 || low.len() != high.len() {
            continue;
        }
        let outline: Vec<(f64, f64)> = high.into_iter().chain(low.into_iter().rev()).collect();
        chart.draw_series(std::iter::once(Polygon::new(outline, fill)))?;
    }
    Ok(())
}

/// A box in the drawing's pixels: left, top, right, bottom.
pub(crate) type TextBox = [i32; 4];

/// The boxes of the learner's measured runs' rings, in the drawing's pixels: what the labels drawn before them (the
/// curves' values at the current load) keep clear of.
pub(crate) fn measured_rings<X: Axis, Y: Axis>(
    chart: &Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    points: &[Measured],
) -> Vec<TextBox> {
    let r = style.px(style.line_px * 3.0) as i32 + style.offset(1.0);
    let (xs, ys) = (chart.x_range(), chart.y_range());
    finite_runs(points)
        .filter(|p| {
            in_range(p.offered_load, xs.start, xs.end) && in_range(p.measured, ys.start, ys.end)
        })
        .map(|p| {
            let (x, y) = chart.backend_coord(&(p.offered_load, p.measured));
            [x - r, y - r, x + r, y + r]
        })
        .collect()
}

fn finite_runs(points: &[Measured]) -> impl Iterator<Item = &Measured> {
    points
        .iter()
        .filter(|p| p.offered_load.is_finite() && p.measured.is_finite() && p.measured > 0.0)
}

/// Draws the learner's measured runs as rings at their measured values, each with the model's error beside it
/// ("model +4%"): the calibrated model's curves pass near them, or show where they do not. A label goes beside its
/// ring (upper right, lower right, left, above, below), else a row or more further up or down joined to it by a
/// hairline: the first place inside the plot that covers nothing in `drawn` (the boxes of the text and marks drawn
/// before, in the drawing's pixels, to which it adds its own). With none, the ring goes without it: the chart's
/// table gives every run's error.
pub(crate) fn draw_measured<X: Axis, Y: Axis>(
    chart: &mut Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    points: &[Measured],
    colour: RGBColor,
    drawn: &mut Vec<TextBox>,
) -> ChartResult {
    let ring = style.line(Pen::solid(colour, crate::charts::style::Weight::Main));
    let radius = style.px(style.line_px * 3.0);
    let font = style.label_style().color(&colour);
    let (r, gap) = (radius as i32, style.offset(3.0));
    let (plot_x, plot_y) = chart.plotting_area().get_pixel_range();
    for p in finite_runs(points) {
        let at = (p.offered_load, p.measured);
        chart.draw_series(std::iter::once(Circle::new(at, radius, ring)))?;
        let text = format!("model {}", p.error_text());
        let (w, h) = chart.plotting_area().estimate_text_size(&text, &font)?;
        let (w, h) = (w as i32, h as i32);
        let (x, y) = chart.backend_coord(&at);
        let beside = [
            (r + gap, -r - h / 2),
            (r + gap, r - h / 2),
            (-r - gap - w, -h / 2),
            (-w / 2, -r - gap - h),
            (-w / 2, r + gap),
        ];
        let further = (1..=4).flat_map(|k| {
            let k = k * (h + gap);
            [
                (r + gap, -r - h / 2 - k),
                (r + gap, r - h / 2 + k),
                (-r - gap - w, -h / 2 - k),
                (-r - gap - w, -h / 2 + k),
            ]
        });
        let free = beside
            .into_iter()
            .chain(further)
            .map(|(dx, dy)| [x + dx, y + dy, x + dx + w, y + dy + h])
            .find(|b| {
                b[0] >= plot_x.start
                    && b[2] <= plot_x.end
                    && b[1] >= plot_y.start
                    && b[3] <= plot_y.end
                    && !drawn
                        .iter()
                        .any(|d| b[0] < d[2] && d[0] < b[2] && b[1] < d[3] && d[1] < b[3])
            });
        let Some(place) = free else { continue };
        let (left, top) = (place[0] - x, place[1] - y);
        let centre = top + h / 2;
        if centre.abs() > r + h {
            // Moved away from its ring: a hairline says whose it is.
            let edge = if left > 0 { left } else { left + w };
            chart.draw_series(std::iter::once(
                EmptyElement::at(at)
                    + PathElement::new(
                        vec![(0, 0), (edge, centre)],
                        colour.stroke_width(style.px(1.0)),
                    ),
            ))?;
        }
        chart.draw_series(std::iter::once(
            EmptyElement::at(at) + Text::new(text, (left, top), font.clone()),
        ))?;
        drawn.push(place);
    }
    Ok(())
}

/// A line across the whole plot: vertical at an x (the current load, a percentile) or horizontal at a y (an SLO,
/// the `max_num_seqs` cap). Outside the axis range it is left out rather than drawn on the frame.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rule {
    AtX(f64),
    AtY(f64),
}

/// Draws a [`Rule`].
pub(crate) fn draw_rule<X: Axis, Y: Axis>(
    chart: &mut Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    rule: Rule,
    pen: Pen,
) -> ChartResult {
    let (xs, ys) = (chart.x_range(), chart.y_range());
    let ends = match rule {
        Rule::AtX(x) if in_range(x, xs.start, xs.end) => [(x, Some(ys.start)), (x, Some(ys.end))],
        Rule::AtY(y) if in_range(y, ys.start, ys.end) => [(xs.start, Some(y)), (xs.end, Some(y))],
        _ => return Ok(()),
    };
    draw_gapped_line(chart, style, ends, pen)
}

fn in_range(value: f64, a: f64, b: f64) -> bool {
    value.is_finite() && value >= a.min(b) && value <= a.max(b)
}

/// A top tag where [`place_top_tags`] put it: its left edge in the chart's area and its row above the plot.
pub(super) struct PlacedTag<'t> {
    tag: &'t Tag,
    left: i32,
    pub(super) row: usize,
}

/// Places tags above the plot, centred on their x and kept inside the area; a tag that would overlap the one before
/// moves to the next row, so close markers (p50 and p99 of a tight distribution) stay readable. Depends only on the
/// plot's horizontal layout, so [`build_chart`] can count the rows before it fixes the top margin.
pub(super) fn place_top_tags<'t, X: Axis, Y: Axis>(
    body: &ChartArea<'_>,
    chart: &Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    tags: &'t [Tag],
) -> ChartResult<Vec<PlacedTag<'t>>> {
    let (base_x, _) = body.get_base_pixel();
    let (plot_x, _) = chart.plotting_area().get_pixel_range();
    let (width, _) = body.dim_in_pixel();
    let gap = style.offset(8.0);
    // Not over the y tick labels, which end where plotters puts them: two tick lengths left of the plot. (The top one
    // reaches up beside the tags' first row.)
    let leftmost = plot_x.start - base_x - 2 * style.offset(TICK_CSS);
    let (x_range, y_range) = (chart.x_range(), chart.y_range());
    let mut row_ends: Vec<i32> = Vec::new();
    // Left to right, so each row only has to remember where its last tag ends.
    let mut tags: Vec<&Tag> = tags
        .iter()
        .filter(|tag| in_range(tag.at, x_range.start, x_range.end))
        .collect();
    tags.sort_unstable_by(|a, b| a.at.total_cmp(&b.at));
    let mut placed = Vec::new();
    for tag in tags {
        let (text_width, _) = body.estimate_text_size(&tag.text, &style.text_style())?;
        let text_width = text_width as i32;
        let centre = chart.backend_coord(&(tag.at, y_range.end)).0 - base_x;
        let left =
            (centre - text_width / 2).clamp(leftmost, (width as i32 - text_width).max(leftmost));
        let row = row_ends
            .iter()
            .position(|&end| left > end + gap)
            .unwrap_or(row_ends.len());
        if row == row_ends.len() {
            row_ends.push(left + text_width);
        } else {
            row_ends[row] = left + text_width;
        }
        placed.push(PlacedTag { tag, left, row });
    }
    Ok(placed)
}

/// Draws tags above the plot where [`place_top_tags`] puts them (in the rows [`build_chart`] reserved for them).
pub(crate) fn draw_top_tags<X: Axis, Y: Axis>(
    body: &ChartArea<'_>,
    chart: &Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    tags: &[Tag],
) -> ChartResult {
    let (_, base_y) = body.get_base_pixel();
    let (_, plot_y) = chart.plotting_area().get_pixel_range();
    for PlacedTag { tag, left, row } in place_top_tags(body, chart, style, tags)? {
        let text_style = style
            .text_style()
            .color(&tag.color)
            .pos(Pos::new(HPos::Left, VPos::Bottom));
        let (_, text_height) = body.estimate_text_size(&tag.text, &text_style)?;
        let bottom = plot_y.start
            - base_y
            - style.offset(4.0)
            - row as i32 * (text_height as i32 + style.offset(4.0));
        body.draw(&Text::new(tag.text.clone(), (left, bottom), text_style))?;
    }
    Ok(())
}

/// Draws tags in the right margin, vertically centred on their y, nudged down when they would overlap.
pub(crate) fn draw_right_tags<X: Axis, Y: Axis>(
    body: &ChartArea<'_>,
    chart: &Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    tags: &[Tag],
) -> ChartResult {
    let (base_x, base_y) = body.get_base_pixel();
    let (plot_x, _) = chart.plotting_area().get_pixel_range();
    let (x_range, y_range) = (chart.x_range(), chart.y_range());
    let mut next_free = i32::MIN;
    for tag in tags {
        if !in_range(tag.at, y_range.start, y_range.end) {
            continue;
        }
        let text_style: TextStyle = style
            .text_style()
            .color(&tag.color)
            .pos(Pos::new(HPos::Left, VPos::Center));
        let (_, text_height) = body.estimate_text_size(&tag.text, &text_style)?;
        let y = (chart.backend_coord(&(x_range.end, tag.at)).1 - base_y).max(next_free);
        body.draw(&Text::new(
            tag.text.clone(),
            (plot_x.end - base_x + style.offset(6.0), y),
            text_style,
        ))?;
        next_free = y + text_height as i32 + style.offset(2.0);
    }
    Ok(())
}

/// Writes a short note in the middle of the plot, for charts with nothing to show yet ("no data at this load").
pub(crate) fn draw_note<X: Axis, Y: Axis>(
    chart: &Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    note: &str,
) -> ChartResult {
    let area = chart.plotting_area().strip_coord_spec();
    let (width, height) = area.dim_in_pixel();
    let text_style = style
        .label_style()
        .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw_text(note, &text_style, (width as i32 / 2, height as i32 / 2))
}
