//! The parts every chart shares: background, title, a legend strip above the plot (so it never covers data), the
//! chart builder and mesh, threshold lines and markers with their tags in the margins, and series that may have gaps.
//! Keeping them here is what makes the four charts look like one family.

use plotters::chart::{ChartBuilder, ChartContext};
use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::element::{Circle, PathElement, Polygon, Rectangle, Text};
use plotters::prelude::LineSeries;
use plotters::series::DashedLineSeries;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{RGBColor, ShapeStyle, TextStyle, TRANSPARENT};

use super::style::{ChartStyle, Pen, Stroke};
use super::surface::{ChartArea, ChartBackend, ChartResult};

/// Below this size (CSS px) there is no room for axes and data; the chart paints its background and stops rather than
/// letting plotters lay out negative sizes.
const MIN_WIDTH_CSS: f64 = 160.0;
const MIN_HEIGHT_CSS: f64 = 120.0;

/// A line a chart draws and names in its legend. The chart draws the line with this value's pen and builds its
/// legend from this value, so an entry and its line cannot disagree.
#[derive(Clone, Debug)]
pub(crate) struct Series {
    pub label: String,
    pub pen: Pen,
}

impl Series {
    pub fn new(label: impl Into<String>, pen: Pen) -> Self {
        Series {
            label: label.into(),
            pen,
        }
    }
}

/// A shaded area (a confidence band, the goodput gap, histogram bars) and its legend entry.
#[derive(Clone, Debug)]
pub(crate) struct Shade {
    pub label: String,
    pub colour: RGBColor,
    /// Painted in full colour (cells of the batch timeline), not at the palette's fill opacity.
    pub solid: bool,
}

impl Shade {
    pub fn new(label: impl Into<String>, colour: RGBColor) -> Self {
        Shade {
            label: label.into(),
            colour,
            solid: false,
        }
    }

    /// A shade painted in full colour.
    pub fn solid(label: impl Into<String>, colour: RGBColor) -> Self {
        Shade {
            solid: true,
            ..Shade::new(label, colour)
        }
    }
}

/// One entry of the legend strip: a series or a shade the chart draws.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LegendEntry<'a> {
    Line(&'a Series),
    Fill(&'a Shade),
}

impl LegendEntry<'_> {
    fn label(&self) -> &str {
        match self {
            LegendEntry::Line(series) => &series.label,
            LegendEntry::Fill(shade) => &shade.label,
        }
    }
}

impl<'a> From<&'a Series> for LegendEntry<'a> {
    fn from(series: &'a Series) -> Self {
        LegendEntry::Line(series)
    }
}

impl<'a> From<&'a Shade> for LegendEntry<'a> {
    fn from(shade: &'a Shade) -> Self {
        LegendEntry::Fill(shade)
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

/// Margins a chart asks for beyond the axes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Margins<'t> {
    /// The tags the chart will draw above the plot (markers), which get as many rows as they need.
    pub top_tags: &'t [Tag],
    /// The tags the chart will draw in the right margin, which is made as wide as the widest (none on a narrow
    /// chart, see [`is_narrow`]).
    pub right_tags: &'t [Tag],
}

/// Where a chart's plot lies in its drawing area, in device pixels from the area's top left corner: what the page maps
/// a pointer through, and what the layout tests check.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlotRect {
    /// Left edge: where the x axis starts.
    pub left: f64,
    /// Top edge.
    pub top: f64,
    /// Right edge: where the x axis ends.
    pub right: f64,
    /// Bottom edge: the x axis.
    pub bottom: f64,
}

impl PlotRect {
    /// The plot's width.
    pub fn width(&self) -> f64 {
        self.right - self.left
    }

    /// The plot's height.
    pub fn height(&self) -> f64 {
        self.bottom - self.top
    }

    /// The same rectangle with every coordinate divided by `ratio`: device pixels to CSS pixels.
    pub fn per(self, ratio: f64) -> Self {
        PlotRect {
            left: self.left / ratio,
            top: self.top / ratio,
            right: self.right / ratio,
            bottom: self.bottom / ratio,
        }
    }

    /// The value at pixel `x` of a linear x axis that runs from `from` at the left edge to `to` at the right one,
    /// clamped to the axis.
    pub fn x_value_at(&self, x: f64, (from, to): (f64, f64)) -> f64 {
        let width = self.width();
        if width <= 0.0 || !x.is_finite() {
            return from;
        }
        let fraction = ((x - self.left) / width).clamp(0.0, 1.0);
        from + fraction * (to - from)
    }
}

/// Paints the background, the title and the legend strip, and returns the area left for the plot — or `None` when
/// the area is too small to hold a chart (zero-size canvases happen while a page lays out).
pub(crate) fn frame<'s>(
    area: &ChartArea<'s>,
    style: &ChartStyle,
    title: &str,
    legend: &[LegendEntry<'_>],
) -> ChartResult<Option<ChartArea<'s>>> {
    area.fill(&style.palette.background)?;
    let (width, height) = area.dim_in_pixel();
    if f64::from(width) < MIN_WIDTH_CSS * style.scale
        || f64::from(height) < MIN_HEIGHT_CSS * style.scale
    {
        return Ok(None);
    }
    let pad = style.offset(8.0);
    let title_style = style.title_style().pos(Pos::new(HPos::Left, VPos::Top));
    let (_, line_height) = area.estimate_text_size(title, &title_style)?;
    // A title too long for a phone wraps rather than run off the canvas.
    let mut title_bottom = pad;
    if style.titled {
        for (line, _) in wrap(area, title, &title_style, width as i32 - 2 * pad)? {
            area.draw_text(&line, &title_style, (pad, title_bottom))?;
            title_bottom += line_height as i32;
        }
        title_bottom += style.offset(6.0);
    }
    let legend_top = title_bottom;
    let legend_height = draw_legend(area, style, legend, legend_top)?;
    let body_top = legend_top + legend_height + style.offset(4.0);
    if body_top as u32 >= height {
        return Ok(None);
    }
    Ok(Some(area.split_vertically(body_top).1))
}

/// Below this width (CSS px) a chart is laid out for a phone: the legend and the margins pack tighter, and a line's
/// value is stated in the legend instead of a tag in the right margin, so the plot keeps the width it needs.
const NARROW_CSS: f64 = 480.0;

/// Length of the axes' tick marks, CSS px. plotters sets tick labels two tick lengths off the axis.
const TICK_CSS: f64 = 5.0;

/// Whether `area` is narrow (see [`NARROW_CSS`]).
pub(crate) fn is_narrow(area: &ChartArea<'_>, style: &ChartStyle) -> bool {
    f64::from(area.dim_in_pixel().0) < NARROW_CSS * style.scale
}

/// Lays the legend out in rows from the left, wrapping at the area's width, and returns the height used. A label
/// too long for a row of its own (on a phone) is broken between words over as many rows as it needs.
fn draw_legend(
    area: &ChartArea<'_>,
    style: &ChartStyle,
    entries: &[LegendEntry<'_>],
    top: i32,
) -> ChartResult<i32> {
    if entries.is_empty() {
        return Ok(0);
    }
    let text_style = style.text_style().pos(Pos::new(HPos::Left, VPos::Center));
    let (width, _) = area.dim_in_pixel();
    let narrow = is_narrow(area, style);
    let left = style.offset(8.0);
    let swatch_width = style.offset(if narrow { 20.0 } else { 28.0 });
    let gap = style.offset(if narrow { 6.0 } else { 8.0 });
    let entry_gap = style.offset(if narrow { 14.0 } else { 22.0 });
    let row_height = style.offset(style.text_px * if narrow { 1.4 } else { 1.6 });
    let right = width as i32 - left;
    let text_room = (right - left - swatch_width - gap).max(1);
    let (mut x, mut y) = (left, top);
    for entry in entries {
        let lines = wrap(area, entry.label(), &text_style, text_room)?;
        let widest = lines.iter().map(|(_, w)| *w).max().unwrap_or(0);
        let entry_width = swatch_width + gap + widest;
        if x > left && (x + entry_width > right || lines.len() > 1) {
            x = left;
            y += row_height;
        }
        draw_swatch(area, style, *entry, (x, y + row_height / 2), swatch_width)?;
        for (row, (line, _)) in lines.iter().enumerate() {
            let middle = y + row as i32 * row_height + row_height / 2;
            area.draw_text(line, &text_style, (x + swatch_width + gap, middle))?;
        }
        if lines.len() > 1 {
            // The next entry starts a row of its own, under the wrapped one.
            y += (lines.len() as i32 - 1) * row_height;
            x = right;
        } else {
            x += entry_width + entry_gap;
        }
    }
    Ok(y + row_height - top)
}

/// `text` broken between words into lines no wider than `room`, each with its width (a single word wider than
/// `room` keeps a line of its own).
fn wrap(
    area: &ChartArea<'_>,
    text: &str,
    style: &TextStyle<'_>,
    room: i32,
) -> ChartResult<Vec<(String, i32)>> {
    let width_of =
        |line: &str| -> ChartResult<i32> { Ok(area.estimate_text_size(line, style)?.0 as i32) };
    let whole = width_of(text)?;
    if whole <= room {
        return Ok(vec![(text.to_owned(), whole)]);
    }
    let mut lines: Vec<(String, i32)> = Vec::new();
    for word in text.split(' ') {
        if let Some((line, width)) = lines.last_mut() {
            let longer = format!("{line} {word}");
            let longer_width = width_of(&longer)?;
            if longer_width <= room {
                (*line, *width) = (longer, longer_width);
                continue;
            }
        }
        lines.push((word.to_owned(), width_of(word)?));
    }
    Ok(lines)
}

fn draw_swatch(
    area: &ChartArea<'_>,
    style: &ChartStyle,
    entry: LegendEntry<'_>,
    (x, middle): (i32, i32),
    width: i32,
) -> ChartResult {
    match entry {
        LegendEntry::Line(series) => {
            let stroke = style.line(series.pen);
            match series.pen.stroke {
                // Two dashes, as the series itself is drawn, so "dashed = throughput" survives greyscale.
                Stroke::Dashed => {
                    let dash = width * 2 / 5;
                    area.draw(&PathElement::new(
                        vec![(x, middle), (x + dash, middle)],
                        stroke,
                    ))?;
                    area.draw(&PathElement::new(
                        vec![(x + width - dash, middle), (x + width, middle)],
                        stroke,
                    ))
                }
                Stroke::Solid => area.draw(&PathElement::new(
                    vec![(x, middle), (x + width, middle)],
                    stroke,
                )),
            }
        }
        LegendEntry::Fill(shade) => {
            let half = style.offset(7.0);
            let fill = if shade.solid {
                ShapeStyle::from(shade.colour).filled()
            } else {
                style.fill(shade.colour)
            };
            area.draw(&Rectangle::new(
                [(x, middle - half), (x + width, middle + half)],
                fill,
            ))?;
            area.draw(&Rectangle::new(
                [(x, middle - half), (x + width, middle + half)],
                ShapeStyle::from(shade.colour),
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
    /// At most this many labels on a linear axis (fewer where they would not fit).
    pub x_labels: usize,
    pub y_labels: usize,
}

/// A Cartesian chart over `f64` data on both axes, in whatever coordinate (linear or log) each axis uses.
pub(crate) type Chart<'a, 's, X, Y> = ChartContext<'a, ChartBackend<'s>, Cartesian2d<X, Y>>;

/// Builds the chart in `body` with the house margins, axes, grid and fonts. Tick labels are measured and thinned
/// until no two of an axis touch (see [`fit_labels`]).
pub(crate) fn build_chart<'a, 's, XS, YS>(
    body: &'a ChartArea<'s>,
    style: &ChartStyle,
    x_spec: XS,
    y_spec: YS,
    axes: &Axes<'_>,
    margins: Margins<'_>,
) -> ChartResult<Chart<'a, 's, XS::CoordDescType, YS::CoordDescType>>
where
    XS: AsRangedCoord<Value = f64> + Clone,
    YS: AsRangedCoord<Value = f64> + Clone,
    XS::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    YS::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let narrow = is_narrow(body, style);
    let text_style = style.text_style();
    // On a phone the axis descriptions take the tick labels' size, so "offered load (% of capacity)" fits its width.
    let label_style = if narrow {
        style.text_style()
    } else {
        style.label_style()
    };
    let (_, text_height) = body.estimate_text_size("0", &text_style)?;
    let (_, label_height) = body.estimate_text_size("0", &label_style)?;
    let mut widest_tick = 0;
    for sample in axes.y_samples {
        widest_tick = widest_tick.max(
            body.estimate_text_size(&(axes.y_format)(sample), &text_style)?
                .0,
        );
    }
    let gap = style.px(if narrow { 5.0 } else { 8.0 });
    let mut widest_right_tag = 0;
    for tag in margins.right_tags {
        widest_right_tag = widest_right_tag.max(body.estimate_text_size(&tag.text, &text_style)?.0);
    }
    let right_tag_width = if widest_right_tag > 0 {
        widest_right_tag + 2 * gap
    } else {
        // Room for the last x tick label, which is centred on the plot's right edge.
        style.px(28.0)
    };
    let build = |tag_rows: usize| {
        ChartBuilder::on(body)
            .margin_top(gap + tag_rows as u32 * (text_height + gap))
            .margin_right(right_tag_width)
            .margin_left(gap)
            .margin_bottom(gap)
            .x_label_area_size(text_height + label_height + 3 * gap)
            .y_label_area_size(widest_tick + label_height + 3 * gap)
            .build_cartesian_2d(x_spec.clone(), y_spec.clone())
    };
    // The top tags' rows depend only on the horizontal layout: lay the chart out with one row, count the rows the
    // tags take there, and lay it out again if they take another number.
    let guess = usize::from(!margins.top_tags.is_empty());
    let mut chart = build(guess)?;
    let rows = place_top_tags(body, &chart, style, margins.top_tags)?
        .iter()
        .map(|placed| placed.row + 1)
        .max()
        .unwrap_or(0);
    if rows != guess {
        chart = build(rows)?;
    }
    let x_labels = fit_labels(body, &chart, style, axes, Direction::X)?;
    let y_labels = fit_labels(body, &chart, style, axes, Direction::Y)?;
    let x_format = |x: &f64| match &x_labels {
        Labels::Log(labels) if !labels.keeps(*x) => String::new(),
        _ => (axes.x_format)(x),
    };
    let y_format = |y: &f64| match &y_labels {
        Labels::Log(labels) if !labels.keeps(*y) => String::new(),
        _ => (axes.y_format)(y),
    };
    let axis_style = ShapeStyle::from(style.palette.axis).stroke_width(style.px(1.0));
    chart
        .configure_mesh()
        .y_desc(axes.y_desc)
        .x_labels(x_labels.hint(axes.x_labels))
        .y_labels(y_labels.hint(axes.y_labels))
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .label_style(text_style)
        .axis_desc_style(label_style.clone())
        .axis_style(axis_style)
        .bold_line_style(ShapeStyle::from(style.palette.grid).stroke_width(style.px(1.0)))
        // No light grid: on a log axis plotters packs light lines so densely near each decade that they print as
        // grey bars, and the bold grid already carries every labelled value.
        .light_line_style(TRANSPARENT)
        .set_all_tick_mark_size(style.px(TICK_CSS))
        .draw()?;
    draw_x_desc(body, &chart, axes.x_desc, &label_style, gap)?;
    Ok(chart)
}

/// The x axis description, centred under the plot as plotters would put it but kept inside the chart: the plot sits
/// right of the y labels, so on a narrow chart a centred description would run off the right edge.
fn draw_x_desc<X: Axis, Y: Axis>(
    body: &ChartArea<'_>,
    chart: &Chart<'_, '_, X, Y>,
    text: &str,
    label_style: &TextStyle<'_>,
    margin: u32,
) -> ChartResult {
    let (base_x, _) = body.get_base_pixel();
    let (width, height) = body.dim_in_pixel();
    let (plot_x, _) = chart.plotting_area().get_pixel_range();
    let (text_width, _) = body.estimate_text_size(text, label_style)?;
    let half = (text_width / 2) as i32;
    let margin = margin as i32;
    let centre = (plot_x.start + plot_x.end) / 2 - base_x;
    let centre = centre.min(width as i32 - margin - half).max(margin + half);
    let style = label_style.pos(Pos::new(HPos::Center, VPos::Bottom));
    body.draw_text(text, &style, (centre, height as i32 - margin))
}

/// Where `chart`'s plot lies in `area` (which it was built in, or an area containing it).
pub(crate) fn plot_rect<X: Axis, Y: Axis>(
    area: &ChartArea<'_>,
    chart: &Chart<'_, '_, X, Y>,
) -> PlotRect {
    let (base_x, base_y) = area.get_base_pixel();
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    PlotRect {
        left: f64::from(xs.start - base_x),
        top: f64::from(ys.start - base_y),
        right: f64::from(xs.end - base_x),
        bottom: f64::from(ys.end - base_y),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    X,
    Y,
}

/// The tick labels an axis shows: on a linear axis as many as fit (plotters picks that many "nice" values at
/// most), on a log axis the labelled ticks.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Labels {
    Linear(usize),
    Log(LogLabels),
}

impl Labels {
    /// plotters' label hint: the count on a linear axis; on a log axis every tick a decade gets a grid line.
    fn hint(self, wanted: usize) -> usize {
        match self {
            Labels::Linear(count) => count,
            Labels::Log(_) => wanted,
        }
    }
}

/// Thins an axis's labels until no two touch: measures each label the axis would show, where it would show it, and
/// asks for fewer until the gap between neighbours is at least half a character. A phone-width or short chart gets
/// fewer labels instead of overlapping ones.
fn fit_labels<X: Axis + ValueFormatter<f64>, Y: Axis + ValueFormatter<f64>>(
    body: &ChartArea<'_>,
    chart: &Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    axes: &Axes<'_>,
    direction: Direction,
) -> ChartResult<Labels> {
    let text_style = style.text_style();
    let gap = f64::from(style.px(style.text_px / 2.0));
    let (xs, ys) = (chart.x_range(), chart.y_range());
    let spec = chart.as_coord_spec();
    let (scale, format, wanted): (_, &dyn Fn(&f64) -> String, _) = match direction {
        Direction::X => (axes.x_scale, axes.x_format, axes.x_labels),
        Direction::Y => (axes.y_scale, axes.y_format, axes.y_labels),
    };
    // A tick's position along the axis and a label's extent along it (width across, height up).
    let position = |value: f64| -> f64 {
        match direction {
            Direction::X => f64::from(chart.backend_coord(&(value, ys.start)).0),
            Direction::Y => f64::from(chart.backend_coord(&(xs.start, value)).1),
        }
    };
    let extent = |text: &str| -> ChartResult<f64> {
        let (w, h) = body.estimate_text_size(text, &text_style)?;
        Ok(f64::from(match direction {
            Direction::X => w,
            Direction::Y => h,
        }))
    };
    let fits = |values: &[f64]| -> ChartResult<bool> {
        let mut placed: Vec<(f64, String)> = values
            .iter()
            .map(|value| (position(*value), format(value)))
            .filter(|(_, text)| !text.is_empty())
            .collect();
        placed.sort_by(|a, b| a.0.total_cmp(&b.0));
        // A log axis lists each power of ten twice (as the last tick of one decade and the first of the next); the
        // two labels print on top of each other as one.
        placed.dedup_by(|b, a| a.1 == b.1 && (a.0 - b.0).abs() < 1.0);
        for pair in placed.windows(2) {
            let room = (pair[0].1.as_str(), pair[1].1.as_str());
            let needed = (extent(room.0)? + extent(room.1)?) / 2.0 + gap;
            if (pair[1].0 - pair[0].0).abs() < needed {
                return Ok(false);
            }
        }
        Ok(true)
    };
    let key_points = |hint: usize| match direction {
        Direction::X => spec.x_spec().key_points(hint),
        Direction::Y => spec.y_spec().key_points(hint),
    };
    match scale {
        Scale::Linear => {
            for count in (2..=wanted.max(2)).rev() {
                if fits(&key_points(count))? {
                    return Ok(Labels::Linear(count));
                }
            }
            Ok(Labels::Linear(2))
        }
        Scale::Log => {
            let ticks = key_points(wanted);
            for labels in LogLabels::DENSEST_FIRST {
                let kept: Vec<f64> = ticks.iter().copied().filter(|t| labels.keeps(*t)).collect();
                if fits(&kept)? {
                    return Ok(Labels::Log(labels));
                }
            }
            Ok(Labels::Log(LogLabels::SPARSEST))
        }
    }
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
struct PlacedTag<'t> {
    tag: &'t Tag,
    left: i32,
    row: usize,
}

/// Places tags above the plot, centred on their x and kept inside the area; a tag that would overlap the one before
/// moves to the next row, so close markers (p50 and p99 of a tight distribution) stay readable. Depends only on the
/// plot's horizontal layout, so [`build_chart`] can count the rows before it fixes the top margin.
fn place_top_tags<'t, X: Axis, Y: Axis>(
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
    tags.sort_by(|a, b| a.at.total_cmp(&b.at));
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

/// Which ticks of a log axis get a label: 1, 2 and 5 times each power of ten where the axis has room for three labels
/// a decade, else the powers of ten alone, else every other power of ten. (The other ticks keep their grid line.
/// Labelling every tick of a decade would print nine labels over each other.)
#[derive(Clone, Copy, Debug, PartialEq)]
struct LogLabels {
    mantissas: &'static [f64],
    /// Label every `decade_step`-th power of ten (1: every one).
    decade_step: i32,
}

impl LogLabels {
    const DENSEST_FIRST: [LogLabels; 3] = [
        LogLabels {
            mantissas: &[1.0, 2.0, 5.0],
            decade_step: 1,
        },
        LogLabels {
            mantissas: &[1.0],
            decade_step: 1,
        },
        LogLabels::SPARSEST,
    ];
    const SPARSEST: LogLabels = LogLabels {
        mantissas: &[1.0],
        decade_step: 2,
    };

    /// Whether the tick at `value` is labelled (the others keep their grid line).
    fn keeps(&self, value: f64) -> bool {
        if !(value.is_finite() && value > 0.0) {
            return false;
        }
        // Nudged, so a power of ten that floating point puts a hair below itself still counts as one.
        let exponent = (value.log10() + 1e-9).floor();
        let mantissa = value / 10f64.powf(exponent);
        let decade_kept = (exponent as i32).rem_euclid(self.decade_step) == 0;
        decade_kept
            && self
                .mantissas
                .iter()
                .any(|m| (mantissa - m).abs() < 1e-6 * m)
    }
}
