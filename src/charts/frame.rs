//! The parts every chart shares: background, title, a legend strip above the plot (so it never covers data), the
//! chart builder and mesh ([`axes`]), threshold lines and markers with their tags in the margins, and series that may
//! have gaps ([`marks`]). Keeping them here is what makes the four charts look like one family.

use plotters::chart::ChartContext;
use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::ranged1d::Ranged;
use plotters::element::{PathElement, Rectangle};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{RGBColor, ShapeStyle, TextStyle};

use super::style::{ChartStyle, Pen, Stroke};
use super::surface::{ChartArea, ChartBackend, ChartResult};

mod axes;
mod marks;

pub(crate) use axes::{build_chart, decade_range, linear_range, plot_rect, Axes, Margins, Scale};
pub use marks::Measured;
pub(crate) use marks::{
    draw_gapped_band, draw_gapped_line, draw_measured, draw_note, draw_right_tags, draw_rule,
    draw_top_tags, end_tag, measured_rings, Rule, Tag, TextBox,
};

/// A coordinate over `f64` data, linear or logarithmic: what the axes are built on and the marks drawn on. Here, in
/// the frame both use, so the marks need not reach into the axes nor the axes into the marks.
pub(crate) trait Axis: Ranged<ValueType = f64> {}
impl<T: Ranged<ValueType = f64>> Axis for T {}

/// A Cartesian chart over `f64` data on both axes, in whatever coordinate (linear or log) each axis uses.
pub(crate) type Chart<'a, 's, X, Y> = ChartContext<'a, ChartBackend<'s>, Cartesian2d<X, Y>>;

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
    let legend_height = draw_legend(area, style, None, legend, legend_top)?;
    let body_top = legend_top + legend_height + style.offset(4.0);
    if body_top as u32 >= height {
        return Ok(None);
    }
    Ok(Some(area.split_vertically(body_top).1))
}

/// Names one of a chart's stacked plots across the top of `area`: `lead` (what its y axis measures, "req/s"; none
/// where its line's name says it) followed by the legend of its own lines, wrapped as the chart's legend is. Returns
/// the area left under it, for the plot (built with an empty y description: the key says it, level, where a short
/// plot has no room to turn it).
pub(crate) fn plot_key<'s>(
    area: &ChartArea<'s>,
    style: &ChartStyle,
    lead: Option<&str>,
    entries: &[LegendEntry<'_>],
) -> ChartResult<ChartArea<'s>> {
    let height = draw_legend(area, style, lead, entries, 0)?;
    Ok(area.split_vertically(height + style.offset(2.0)).1)
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
/// too long for a row of its own (on a phone) is broken between words over as many rows as it needs. A `lead` goes
/// first, in the axis descriptions' type, with no swatch.
fn draw_legend(
    area: &ChartArea<'_>,
    style: &ChartStyle,
    lead: Option<&str>,
    entries: &[LegendEntry<'_>],
    top: i32,
) -> ChartResult<i32> {
    if entries.is_empty() && lead.is_none() {
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
    if let Some(lead) = lead {
        let lead_style = style.label_style().pos(Pos::new(HPos::Left, VPos::Center));
        let (width, _) = area.estimate_text_size(lead, &lead_style)?;
        area.draw_text(lead, &lead_style, (x, y + row_height / 2))?;
        x += width as i32 + entry_gap;
    }
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
