//! What the latency chart needs beyond the other charts: the top of its linear axis, curves cut where they leave
//! through it, and the current load's value marked on each curve (a dot and its number), so a drag moves points a
//! room can follow.

use plotters::element::{Circle, PathElement, Polygon, Rectangle, Text};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{Color, RGBColor};

use super::labels::{place_labels, Rect, Room, Segment};
use super::LatencyVsLoad;
use crate::charts::frame::{Axis, Chart, TextBox};
use crate::charts::style::ChartStyle;
use crate::charts::surface::{ChartArea, ChartResult};

/// How the latency axis maps seconds: the knee's hockey stick reads on a linear axis, ratios on a log one.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum LatencyScale {
    /// Seconds from zero; curves that run off the top are cut there and tagged with their value.
    #[default]
    Linear,
    /// Decades: every curve keeps its shape, and the gap between two lines is their ratio.
    Log,
}

impl LatencyScale {
    /// "linear" or "logarithmic", for sentences.
    pub fn adjective(self) -> &'static str {
        match self {
            LatencyScale::Linear => "linear",
            LatencyScale::Log => "logarithmic",
        }
    }
}

/// The top of the linear axis: twice the median p99 of the sweep, so the flat side of the knee and its turn fill the
/// plot while the runaway ends leave through the top; never below 1.25 × the SLO (its line is what the verdict is
/// read against) nor below the measured runs (rings are not cut).
pub(crate) fn linear_ceiling(data: &LatencyVsLoad) -> f64 {
    let mut tails: Vec<f64> = data
        .points
        .iter()
        .filter_map(|p| p.p99_s.or(p.p95_s).or(p.p50_s))
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    tails.sort_unstable_by(f64::total_cmp);
    let median = tails.get(tails.len() / 2).copied().unwrap_or(0.0);
    let floors = [
        2.0 * median,
        data.slo.map_or(0.0, |slo| 1.25 * slo.threshold_s),
        measured_top(data),
    ];
    let ceiling = floors.into_iter().fold(0.0, f64::max);
    if ceiling > 0.0 && ceiling.is_finite() {
        ceiling
    } else {
        1.0
    }
}

fn measured_top(data: &LatencyVsLoad) -> f64 {
    let runs = data.measured.p50.iter().chain(&data.measured.p99);
    1.1 * runs
        .map(|m| m.measured)
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
}

/// `points` cut at `ceiling`: a run that climbs past it ends on the top edge where it crossed, and starts again
/// where it comes back down; values above it become gaps.
pub(crate) fn clip_at(
    points: impl IntoIterator<Item = (f64, Option<f64>)>,
    ceiling: f64,
) -> Vec<(f64, Option<f64>)> {
    let mut clipped = Vec::new();
    let mut previous: Option<(f64, f64)> = None;
    for (x, y) in points {
        let Some(y) = y.filter(|y| y.is_finite()) else {
            clipped.push((x, None));
            previous = None;
            continue;
        };
        if let Some((px, py)) = previous {
            if (py > ceiling) != (y > ceiling) {
                let crossing = px + (x - px) * (ceiling - py) / (y - py);
                clipped.push((crossing, Some(ceiling)));
            }
        }
        clipped.push((x, (y <= ceiling).then_some(y)));
        previous = Some((x, y));
    }
    clipped
}

/// One curve's value at the current load: where its dot goes and what its label says.
#[derive(Clone, Debug)]
pub(crate) struct ValueMark {
    pub value: f64,
    /// The curve's name, e.g. "p99".
    pub name: String,
    pub colour: RGBColor,
}

/// A curve as drawn, in data coordinates.
pub(crate) type Polyline = Vec<(f64, f64)>;

/// Draws a dot on each curve at load `x` and its value beside it, each label at the nearest spot that covers none of
/// `curves` (data coordinates, as drawn), no dot and no other label (see [`place_labels`]), joined to its dot by a
/// hairline when it had to move. A value above `ceiling` gets an arrow on the top edge and a label saying "↑". The
/// labels keep clear of `avoid` too (boxes in the drawing's pixels: the measured runs' rings). Returns the labels' and
/// dots' boxes in the drawing's pixels, for the text drawn after them to keep clear of.
pub(crate) fn draw_value_marks<X: Axis, Y: Axis>(
    body: &ChartArea<'_>,
    chart: &Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    (x, marks, curves): (f64, &[ValueMark], &[Polyline]),
    ceiling: Option<f64>,
    format_value: fn(f64) -> String,
    avoid: &[TextBox],
) -> ChartResult<Vec<TextBox>> {
    let (x_range, y_range) = (chart.x_range(), chart.y_range());
    if marks.is_empty() || !(x_range.start..=x_range.end).contains(&x) {
        return Ok(Vec::new());
    }
    let (base_x, base_y) = body.get_base_pixel();
    let to_body = |point: &(f64, f64)| {
        let (px, py) = chart.backend_coord(point);
        (px - base_x, py - base_y)
    };
    let radius = style.px(style.line_px * 2.2) as i32;
    let text_style = style.text_style();
    let pad = style.offset(3.0);
    let mut labels = Vec::new();
    for mark in marks {
        let above = ceiling.is_some_and(|c| mark.value > c);
        let shown = ceiling.map_or(mark.value, |c| mark.value.min(c));
        if !above && !(y_range.start..=y_range.end).contains(&shown) {
            continue;
        }
        let (px, py) = to_body(&(x, shown));
        draw_dot(body, style, (px, py), radius, mark.colour, above)?;
        let arrow = if above { " ↑" } else { "" };
        let text = format!("{} {}{arrow}", mark.name, format_value(mark.value));
        let (width, height) = body.estimate_text_size(&text, &text_style)?;
        let size = (width as i32 + 2 * pad, height as i32 + pad);
        labels.push(((px, py), text, size, mark.colour));
    }
    if labels.is_empty() {
        return Ok(Vec::new());
    }
    labels.sort_unstable_by_key(|label| label.0 .1);
    let (plot_x, plot_y) = chart.plotting_area().get_pixel_range();
    let plot = Rect {
        left: plot_x.start - base_x,
        top: plot_y.start - base_y,
        right: plot_x.end - base_x,
        bottom: plot_y.end - base_y,
    };
    let segments: Vec<Segment> = curves
        .iter()
        .flat_map(|curve| curve.windows(2).map(|w| (to_body(&w[0]), to_body(&w[1]))))
        .collect();
    let dots: Vec<Rect> = labels
        .iter()
        .map(|((px, py), ..)| Rect {
            left: px - radius,
            top: py - radius,
            right: px + radius,
            bottom: py + radius,
        })
        .collect();
    let marker_x = labels[0].0 .0;
    let obstacles: Vec<Rect> = dots
        .iter()
        .copied()
        .chain(avoid.iter().map(|b| Rect {
            left: b[0] - base_x,
            top: b[1] - base_y,
            right: b[2] - base_x,
            bottom: b[3] - base_y,
        }))
        .collect();
    let room = Room {
        plot,
        marker_x,
        gap: radius + style.offset(4.0),
        curves: &segments,
        dots: &obstacles,
    };
    let wanted: Vec<(i32, i32, i32)> = labels
        .iter()
        .map(|(at, _, (w, h), _)| (at.1, *w, *h))
        .collect();
    // A plot too short for every label (a presenter's small pane) keeps the top ones, the tail first: labels piled on
    // each other would say nothing. The dots stay, and the figures beside the chart give every value.
    let boxes = (1..=wanted.len())
        .rev()
        .find_map(|kept| place_labels(&wanted[..kept], &room))
        .unwrap_or_default();
    let placed = boxes
        .iter()
        .chain(&dots)
        .map(|r| {
            [
                r.left + base_x,
                r.top + base_y,
                r.right + base_x,
                r.bottom + base_y,
            ]
        })
        .collect();
    for ((dot, text, _, colour), rect) in labels.into_iter().zip(boxes) {
        let centre = (rect.top + rect.bottom) / 2;
        if (centre - dot.1).abs() > (rect.bottom - rect.top) / 2 {
            let edge = if rect.left > dot.0 {
                rect.left
            } else {
                rect.right
            };
            body.draw(&PathElement::new(
                vec![dot, (edge, centre)],
                style.palette.marker.stroke_width(style.px(1.0)),
            ))?;
        }
        body.draw(&Rectangle::new(
            [(rect.left, rect.top), (rect.right, rect.bottom)],
            style.palette.background.mix(0.85).filled(),
        ))?;
        let text_style = text_style
            .color(&colour)
            .pos(Pos::new(HPos::Left, VPos::Center));
        body.draw(&Text::new(text, (rect.left + pad, centre), text_style))?;
    }
    Ok(placed)
}

/// A filled dot ringed in the background colour, so it reads over the lines it sits on; on the top edge (a value
/// above the axis) a triangle pointing up.
fn draw_dot(
    body: &ChartArea<'_>,
    style: &ChartStyle,
    (x, y): (i32, i32),
    radius: i32,
    colour: RGBColor,
    above: bool,
) -> ChartResult {
    let ring = style.palette.background.filled();
    if above {
        let r = radius + style.offset(1.0);
        let triangle = |r: i32| vec![(x - r, y + r), (x + r, y + r), (x, y - r)];
        body.draw(&Polygon::new(triangle(r + style.offset(1.5)), ring))?;
        return body.draw(&Polygon::new(triangle(r), colour.filled()));
    }
    body.draw(&Circle::new(
        (x, y),
        (radius + style.offset(1.5)) as u32,
        ring,
    ))?;
    body.draw(&Circle::new((x, y), radius as u32, colour.filled()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_leaving_through_the_top_ends_on_it_and_comes_back_where_it_crosses_again() {
        let points = [
            (0.0, Some(1.0)),
            (1.0, Some(3.0)),
            (2.0, Some(4.0)),
            (3.0, Some(1.0)),
        ];
        assert_eq!(
            clip_at(points, 2.0),
            vec![
                (0.0, Some(1.0)),
                (0.5, Some(2.0)),
                (1.0, None),
                (2.0, None),
                (2.0 + 2.0 / 3.0, Some(2.0)),
                (3.0, Some(1.0)),
            ]
        );
        assert_eq!(
            clip_at([(0.0, None), (1.0, Some(9.0))], 2.0),
            vec![(0.0, None), (1.0, None)]
        );
    }
}
