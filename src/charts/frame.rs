//! The parts every chart shares: background, title, a legend strip above the plot (so it never covers data), the
//! chart builder and mesh, threshold lines and markers with their tags in the margins, and series that may have gaps.
//! Keeping them here is what makes the four charts look like one family.

use plotters::chart::{ChartBuilder, ChartContext};
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::coord::{cartesian::Cartesian2d, Shift};
use plotters::drawing::{DrawingArea, DrawingAreaErrorKind};
use plotters::element::{Circle, PathElement, Polygon, Rectangle, Text};
use plotters::prelude::{DrawingBackend, LineSeries};
use plotters::series::DashedLineSeries;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{RGBColor, ShapeStyle, TextStyle, TRANSPARENT};

use super::style::ChartStyle;

/// What every drawing function returns: plotters' own error for the backend in use (canvas or SVG).
pub type ChartResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

type AreaResult<T, DB> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Below this size (CSS px) there is no room for axes and data; the chart paints its background and stops rather than
/// letting plotters lay out negative sizes.
const MIN_WIDTH_CSS: f64 = 160.0;
const MIN_HEIGHT_CSS: f64 = 120.0;

/// How a legend entry is drawn.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Swatch {
    /// A line of `factor` × the base width, dashed or not, as the series is drawn.
    Line {
        color: RGBColor,
        factor: f64,
        dashed: bool,
    },
    /// A filled block, for bands and shaded areas.
    Fill(RGBColor),
}

/// One entry of the legend strip.
#[derive(Clone, Debug)]
pub(crate) struct LegendEntry {
    pub label: String,
    pub swatch: Swatch,
}

impl LegendEntry {
    pub fn line(label: impl Into<String>, color: RGBColor, factor: f64, dashed: bool) -> Self {
        LegendEntry {
            label: label.into(),
            swatch: Swatch::Line {
                color,
                factor,
                dashed,
            },
        }
    }

    pub fn fill(label: impl Into<String>, color: RGBColor) -> Self {
        LegendEntry {
            label: label.into(),
            swatch: Swatch::Fill(color),
        }
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

/// Margins a chart asks for beyond the axes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Margins {
    /// Rows of top tags to reserve (markers above the plot).
    pub top_tag_rows: u32,
    /// Widest right tag, in characters (0 = no right tags).
    pub right_tag_chars: usize,
}

/// Paints the background, the title and the legend strip, and returns the area left for the plot — or `None` when
/// the area is too small to hold a chart (zero-size canvases happen while a page lays out).
pub(crate) fn frame<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    style: &ChartStyle,
    title: &str,
    legend: &[LegendEntry],
) -> AreaResult<Option<DrawingArea<DB, Shift>>, DB> {
    area.fill(&style.palette.background)?;
    let (width, height) = area.dim_in_pixel();
    if f64::from(width) < MIN_WIDTH_CSS * style.scale
        || f64::from(height) < MIN_HEIGHT_CSS * style.scale
    {
        return Ok(None);
    }
    let pad = style.offset(8.0);
    let title_style = style.title_style().pos(Pos::new(HPos::Left, VPos::Top));
    let (_, title_height) = area.estimate_text_size(title, &title_style)?;
    area.draw_text(title, &title_style, (pad, pad))?;
    let legend_top = pad + title_height as i32 + style.offset(6.0);
    let legend_height = draw_legend(area, style, legend, legend_top)?;
    let body_top = legend_top + legend_height + style.offset(4.0);
    if body_top as u32 >= height {
        return Ok(None);
    }
    Ok(Some(area.split_vertically(body_top).1))
}

/// Lays the legend out in rows from the left, wrapping at the area's width, and returns the height used.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    style: &ChartStyle,
    entries: &[LegendEntry],
    top: i32,
) -> AreaResult<i32, DB> {
    if entries.is_empty() {
        return Ok(0);
    }
    let text_style = style.text_style().pos(Pos::new(HPos::Left, VPos::Center));
    let (width, _) = area.dim_in_pixel();
    let left = style.offset(8.0);
    let swatch_width = style.offset(28.0);
    let gap = style.offset(8.0);
    let entry_gap = style.offset(22.0);
    let row_height = style.offset(style.text_px * 1.6);
    let (mut x, mut y) = (left, top);
    for entry in entries {
        let (text_width, _) = area.estimate_text_size(&entry.label, &text_style)?;
        let entry_width = swatch_width + gap + text_width as i32;
        if x > left && x + entry_width > width as i32 - left {
            x = left;
            y += row_height;
        }
        let middle = y + row_height / 2;
        draw_swatch(area, style, entry.swatch, (x, middle), swatch_width)?;
        area.draw_text(&entry.label, &text_style, (x + swatch_width + gap, middle))?;
        x += entry_width + entry_gap;
    }
    Ok(y + row_height - top)
}

fn draw_swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    style: &ChartStyle,
    swatch: Swatch,
    (x, middle): (i32, i32),
    width: i32,
) -> AreaResult<(), DB> {
    match swatch {
        Swatch::Line {
            color,
            factor,
            dashed,
        } => {
            let stroke = style.line(color, factor);
            if dashed {
                // Two dashes, as the series itself is drawn, so "dashed = throughput" survives greyscale.
                let dash = width * 2 / 5;
                area.draw(&PathElement::new(
                    vec![(x, middle), (x + dash, middle)],
                    stroke,
                ))?;
                area.draw(&PathElement::new(
                    vec![(x + width - dash, middle), (x + width, middle)],
                    stroke,
                ))
            } else {
                area.draw(&PathElement::new(
                    vec![(x, middle), (x + width, middle)],
                    stroke,
                ))
            }
        }
        Swatch::Fill(color) => {
            let half = style.offset(7.0);
            area.draw(&Rectangle::new(
                [(x, middle - half), (x + width, middle + half)],
                style.fill(color),
            ))?;
            area.draw(&Rectangle::new(
                [(x, middle - half), (x + width, middle + half)],
                ShapeStyle::from(color),
            ))
        }
    }
}

/// A coordinate over `f64` data, linear or logarithmic: what every helper here draws on.
pub(crate) trait Axis: Ranged<ValueType = f64> {}
impl<T: Ranged<ValueType = f64>> Axis for T {}

/// How an axis maps values: a log axis labels only the ticks it has room for (see [`LogLabels`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scale {
    Linear,
    Log,
}

/// Axis descriptions and tick formatting for [`build_chart`].
pub(crate) struct Axes<'f> {
    pub x_desc: &'f str,
    pub y_desc: &'f str,
    pub x_format: &'f dyn Fn(&f64) -> String,
    pub y_format: &'f dyn Fn(&f64) -> String,
    pub x_scale: Scale,
    pub y_scale: Scale,
    /// Samples of y tick labels, to size the y label area to the widest one.
    pub y_samples: &'f [f64],
    pub x_labels: usize,
    pub y_labels: usize,
}

/// A Cartesian chart over `f64` data on both axes, in whatever coordinate (linear or log) each axis uses.
pub(crate) type Chart<'a, DB, X, Y> = ChartContext<'a, DB, Cartesian2d<X, Y>>;

/// Builds the chart in `body` with the house margins, axes, grid and fonts.
pub(crate) fn build_chart<'a, DB, XS, YS>(
    body: &'a DrawingArea<DB, Shift>,
    style: &ChartStyle,
    x_spec: XS,
    y_spec: YS,
    axes: &Axes<'_>,
    margins: Margins,
) -> AreaResult<Chart<'a, DB, XS::CoordDescType, YS::CoordDescType>, DB>
where
    DB: DrawingBackend,
    XS: AsRangedCoord<Value = f64>,
    YS: AsRangedCoord<Value = f64>,
    XS::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    YS::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let text_style = style.text_style();
    let label_style = style.label_style();
    let (_, text_height) = body.estimate_text_size("0", &text_style)?;
    let (_, label_height) = body.estimate_text_size("0", &label_style)?;
    let mut widest_tick = 0;
    for sample in axes.y_samples {
        widest_tick = widest_tick.max(
            body.estimate_text_size(&(axes.y_format)(sample), &text_style)?
                .0,
        );
    }
    let gap = style.px(8.0);
    let top_tag_height = margins.top_tag_rows * (text_height + gap);
    let right_tag_width = if margins.right_tag_chars > 0 {
        let probe = "0".repeat(margins.right_tag_chars);
        body.estimate_text_size(&probe, &text_style)?.0 + 2 * gap
    } else {
        // Room for the last x tick label, which is centred on the plot's right edge.
        style.px(28.0)
    };
    let mut chart = ChartBuilder::on(body)
        .margin_top(gap + top_tag_height)
        .margin_right(right_tag_width)
        .margin_left(gap)
        .margin_bottom(gap)
        .x_label_area_size(text_height + label_height + 3 * gap)
        .y_label_area_size(widest_tick + label_height + 3 * gap)
        .build_cartesian_2d(x_spec, y_spec)?;
    // As many x labels as fit: a percent or millisecond label needs about five characters' room, so a phone-width
    // chart gets fewer labels instead of overlapping ones.
    let (body_width, _) = body.dim_in_pixel();
    let fitting =
        (f64::from(body_width) / (style.text_px * style.font_scale * style.scale * 5.5)) as usize;
    let x_labels = axes.x_labels.min(fitting.max(2));
    // A log axis labels 1-2-5 of each decade only where the plot, now laid out, has room for them.
    let plot = chart.plotting_area();
    let (plot_width, plot_height) = plot.dim_in_pixel();
    let x_range = plot.get_x_range();
    let x_log_labels = match axes.x_scale {
        Scale::Log => {
            let widest = [x_range.start, x_range.end]
                .iter()
                .map(|x| body.estimate_text_size(&(axes.x_format)(x), &text_style))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .map(|(w, _)| w)
                .max()
                .unwrap_or(0);
            // A label and half as much again of space.
            Some(LogLabels::fitting(
                &x_range,
                f64::from(plot_width),
                1.5 * f64::from(widest),
            ))
        }
        Scale::Linear => None,
    };
    let y_log_labels = match axes.y_scale {
        // A label and a line of space.
        Scale::Log => Some(LogLabels::fitting(
            &plot.get_y_range(),
            f64::from(plot_height),
            2.0 * f64::from(text_height),
        )),
        Scale::Linear => None,
    };
    let x_format = |x: &f64| match x_log_labels {
        Some(labels) if !labels.keeps(*x) => String::new(),
        _ => (axes.x_format)(x),
    };
    let y_format = |y: &f64| match y_log_labels {
        Some(labels) if !labels.keeps(*y) => String::new(),
        _ => (axes.y_format)(y),
    };
    let axis_style = ShapeStyle::from(style.palette.axis).stroke_width(style.px(1.0));
    chart
        .configure_mesh()
        .x_desc(axes.x_desc)
        .y_desc(axes.y_desc)
        .x_labels(x_labels)
        .y_labels(axes.y_labels)
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .label_style(text_style)
        .axis_desc_style(label_style)
        .axis_style(axis_style)
        .bold_line_style(ShapeStyle::from(style.palette.grid).stroke_width(style.px(1.0)))
        // No light grid: on a log axis plotters packs light lines so densely near each decade that they print as
        // grey bars, and the bold grid already carries every labelled value.
        .light_line_style(TRANSPARENT)
        .set_all_tick_mark_size(style.px(5.0))
        .draw()?;
    Ok(chart)
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

/// Draws a series with gaps: each run as a line (dashed if asked), and a lone point between two gaps as a dot so it
/// does not silently disappear.
pub(crate) fn draw_gapped_line<DB: DrawingBackend, X: Axis, Y: Axis>(
    chart: &mut Chart<'_, DB, X, Y>,
    style: &ChartStyle,
    points: impl IntoIterator<Item = (f64, Option<f64>)>,
    stroke: ShapeStyle,
    dashed: bool,
) -> ChartResult<DB> {
    for run in segments(points) {
        if run.len() == 1 {
            let radius = style.px(style.line_px * 1.6);
            chart.draw_series(std::iter::once(Circle::new(
                run[0],
                radius,
                stroke.filled(),
            )))?;
        } else if dashed {
            chart.draw_series(DashedLineSeries::new(
                run,
                style.px(9.0),
                style.px(6.0),
                stroke,
            ))?;
        } else {
            chart.draw_series(LineSeries::new(run, stroke))?;
        }
    }
    Ok(())
}

/// Shades the area between `lo` and `hi` wherever both are present (a confidence band, the goodput gap).
pub(crate) fn draw_gapped_band<DB: DrawingBackend, X: Axis, Y: Axis>(
    chart: &mut Chart<'_, DB, X, Y>,
    points: impl IntoIterator<Item = (f64, Option<(f64, f64)>)>,
    fill: ShapeStyle,
) -> ChartResult<DB> {
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

/// A line across the whole plot: vertical at an x (the current load, a percentile) or horizontal at a y (an SLO,
/// the `max_num_seqs` cap). Outside the axis range it is left out rather than drawn on the frame.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rule {
    AtX(f64),
    AtY(f64),
}

/// Draws a [`Rule`].
pub(crate) fn draw_rule<DB: DrawingBackend, X: Axis, Y: Axis>(
    chart: &mut Chart<'_, DB, X, Y>,
    style: &ChartStyle,
    rule: Rule,
    stroke: ShapeStyle,
    dashed: bool,
) -> ChartResult<DB> {
    let (xs, ys) = (chart.x_range(), chart.y_range());
    let ends = match rule {
        Rule::AtX(x) if in_range(x, xs.start, xs.end) => [(x, Some(ys.start)), (x, Some(ys.end))],
        Rule::AtY(y) if in_range(y, ys.start, ys.end) => [(xs.start, Some(y)), (xs.end, Some(y))],
        _ => return Ok(()),
    };
    draw_gapped_line(chart, style, ends, stroke, dashed)
}

fn in_range(value: f64, a: f64, b: f64) -> bool {
    value.is_finite() && value >= a.min(b) && value <= a.max(b)
}

/// Draws tags above the plot, centred on their x and kept inside the area; a tag that would overlap the one before
/// moves to the next row, so close markers (p50 and p99 of a tight distribution) stay readable.
pub(crate) fn draw_top_tags<DB: DrawingBackend, X: Axis, Y: Axis>(
    body: &DrawingArea<DB, Shift>,
    chart: &Chart<'_, DB, X, Y>,
    style: &ChartStyle,
    tags: &[Tag],
) -> ChartResult<DB> {
    let (base_x, base_y) = body.get_base_pixel();
    let (_, plot_y) = chart.plotting_area().get_pixel_range();
    let (width, _) = body.dim_in_pixel();
    let gap = style.offset(8.0);
    let y_range = chart.y_range();
    let mut row_ends: Vec<i32> = Vec::new();
    // Left to right, so each row only has to remember where its last tag ends.
    let mut tags: Vec<&Tag> = tags.iter().collect();
    tags.sort_by(|a, b| a.at.total_cmp(&b.at));
    for tag in tags {
        let x_range = chart.x_range();
        if !in_range(tag.at, x_range.start, x_range.end) {
            continue;
        }
        let text_style = style
            .text_style()
            .color(&tag.color)
            .pos(Pos::new(HPos::Left, VPos::Bottom));
        let (text_width, text_height) = body.estimate_text_size(&tag.text, &text_style)?;
        let (text_width, text_height) = (text_width as i32, text_height as i32);
        let centre = chart.backend_coord(&(tag.at, y_range.end)).0 - base_x;
        let left = (centre - text_width / 2).clamp(0, (width as i32 - text_width).max(0));
        let row = row_ends
            .iter()
            .position(|&end| left > end + gap)
            .unwrap_or(row_ends.len());
        if row == row_ends.len() {
            row_ends.push(left + text_width);
        } else {
            row_ends[row] = left + text_width;
        }
        let bottom = plot_y.start
            - base_y
            - style.offset(4.0)
            - row as i32 * (text_height + style.offset(4.0));
        body.draw(&Text::new(tag.text.clone(), (left, bottom), text_style))?;
    }
    Ok(())
}

/// Draws tags in the right margin, vertically centred on their y, nudged down when they would overlap.
pub(crate) fn draw_right_tags<DB: DrawingBackend, X: Axis, Y: Axis>(
    body: &DrawingArea<DB, Shift>,
    chart: &Chart<'_, DB, X, Y>,
    style: &ChartStyle,
    tags: &[Tag],
) -> ChartResult<DB> {
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
pub(crate) fn draw_note<DB: DrawingBackend, X: Axis, Y: Axis>(
    chart: &Chart<'_, DB, X, Y>,
    style: &ChartStyle,
    note: &str,
) -> ChartResult<DB> {
    let area = chart.plotting_area().strip_coord_spec();
    let (width, height) = area.dim_in_pixel();
    let text_style = style
        .label_style()
        .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw_text(note, &text_style, (width as i32 / 2, height as i32 / 2))
}

/// A linear axis range over the finite values, widened so a single value or a flat series still gets a span,
/// and optionally anchored at zero (counts and rates are read against zero).
pub(crate) fn linear_range(
    values: impl IntoIterator<Item = f64>,
    from_zero: bool,
    headroom: f64,
) -> std::ops::Range<f64> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return 0.0..1.0;
    }
    if from_zero {
        lo = lo.min(0.0);
    }
    let span = hi - lo;
    if span <= f64::EPSILON * hi.abs().max(1.0) {
        let pad = if hi.abs() > 0.0 { hi.abs() * 0.5 } else { 1.0 };
        return if from_zero {
            lo..hi + pad
        } else {
            lo - pad..hi + pad
        };
    }
    lo..hi + span * headroom
}

/// A log axis range over the positive finite values, snapped outwards to whole decades: plotters labels a log axis
/// at powers of ten, so a range inside one decade would otherwise have no labels at all.
pub(crate) fn decade_range(values: impl IntoIterator<Item = f64>) -> std::ops::Range<f64> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return 0.01..1.0;
    }
    let low = 10f64.powf(lo.log10().floor());
    let mut high = 10f64.powf(hi.log10().ceil());
    if high <= low * 1.000_001 {
        high = low * 10.0;
    }
    // A tiny relative widening so a value sitting exactly on a decade is not clipped by rounding in powf.
    low * 0.999_999..high * 1.000_001
}

/// Which ticks of a log axis get a label: 1, 2 and 5 times each power of ten when the axis has room for three labels
/// a decade, else the powers of ten alone. (The other ticks keep their grid line. Labelling every tick of a decade
/// would print nine labels over each other, and on a short axis — a chart on a projected screen — so would 1-2-5.)
#[derive(Clone, Copy, Debug, PartialEq)]
struct LogLabels {
    mantissas: &'static [f64],
}

impl LogLabels {
    /// Labels for `range` drawn along `axis_px` device pixels, each label needing `label_px` of them, the space
    /// around it included.
    fn fitting(range: &std::ops::Range<f64>, axis_px: f64, label_px: f64) -> Self {
        let decades = (range.end / range.start).log10().max(1.0);
        let room_per_decade = axis_px / decades;
        LogLabels {
            mantissas: if room_per_decade >= 3.0 * label_px {
                &[1.0, 2.0, 5.0, 10.0]
            } else {
                &[1.0, 10.0]
            },
        }
    }

    /// Whether the tick at `value` is labelled (the others keep their grid line).
    fn keeps(&self, value: f64) -> bool {
        if !(value.is_finite() && value > 0.0) {
            return false;
        }
        let mantissa = value / 10f64.powf(value.log10().floor());
        self.mantissas
            .iter()
            .any(|m| (mantissa - m).abs() < 1e-6 * m)
    }
}
