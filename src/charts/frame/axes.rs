//! The chart's axes: building a Cartesian chart with the house margins, mesh and fonts, thinning tick labels until
//! none touch, and the axis ranges the charts ask for.

use plotters::chart::ChartBuilder;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{ShapeStyle, TextStyle, TRANSPARENT};

use super::marks::{place_top_tags, Tag};
use super::{is_narrow, Axis, Chart, PlotRect, TICK_CSS};
use crate::charts::style::ChartStyle;
use crate::charts::surface::{ChartArea, ChartResult};

/// Margins a chart asks for beyond the axes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Margins<'t> {
    /// The tags the chart will draw above the plot (markers), which get as many rows as they need.
    pub top_tags: &'t [Tag],
    /// The tags the chart will draw in the right margin, which is made as wide as the widest (none on a narrow
    /// chart, see [`is_narrow`]).
    pub right_tags: &'t [Tag],
    /// The plot shares its x axis with a plot drawn under it (the fleet's latency over its goodput): its ticks and
    /// grid, but no tick labels nor description, and no room kept for them.
    pub shared_x: bool,
    /// The y tick labels' room at least this wide, device px: plots stacked on one x axis line up their left edges.
    pub y_ticks_width: u32,
}

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
    let mut widest_tick = margins.y_ticks_width;
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
    // A plot shorter than its rotated y description (two plots stacked on a projected screen) takes the description
    // above it, left-aligned over the tick labels, instead of letting it run up over the legend.
    let (y_desc_length, _) = body.estimate_text_size(axes.y_desc, &label_style)?;
    let x_label_area = if margins.shared_x {
        style.px(TICK_CSS)
    } else {
        text_height + label_height + 3 * gap
    };
    let build = |tag_rows: usize, desc_above: bool| {
        let desc_row = if desc_above { label_height + gap } else { 0 };
        let desc_column = if desc_above || axes.y_desc.is_empty() {
            0
        } else {
            label_height
        };
        ChartBuilder::on(body)
            .margin_top(gap + desc_row + tag_rows as u32 * (text_height + gap))
            .margin_right(right_tag_width)
            .margin_left(gap)
            .margin_bottom(gap)
            .x_label_area_size(x_label_area)
            .y_label_area_size(widest_tick + desc_column + 3 * gap)
            .build_cartesian_2d(x_spec.clone(), y_spec.clone())
    };
    // The top tags' rows depend only on the horizontal layout: lay the chart out with one row, count the rows the
    // tags take there, and lay it out again if they take another number (or the description must go above).
    let guess = usize::from(!margins.top_tags.is_empty());
    let mut chart = build(guess, false)?;
    let rows = place_top_tags(body, &chart, style, margins.top_tags)?
        .iter()
        .map(|placed| placed.row + 1)
        .max()
        .unwrap_or(0);
    let plot_height = |chart: &Chart<'_, '_, _, _>| {
        let (_, ys) = chart.plotting_area().get_pixel_range();
        (ys.end - ys.start).max(0) as u32
    };
    let mut desc_above = false;
    if rows != guess {
        chart = build(rows, false)?;
    }
    if !desc_above && y_desc_length + 2 * gap > plot_height(&chart) {
        desc_above = true;
        chart = build(rows, true)?;
    }
    let x_labels = fit_labels(body, &chart, style, axes, Direction::X)?;
    let y_labels = fit_labels(body, &chart, style, axes, Direction::Y)?;
    let x_format = |x: &f64| match &x_labels {
        _ if margins.shared_x => String::new(),
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
        .y_desc(if desc_above { "" } else { axes.y_desc })
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
    if desc_above {
        let at_top_left = label_style.pos(Pos::new(HPos::Left, VPos::Top));
        body.draw_text(axes.y_desc, &at_top_left, (gap as i32, gap as i32))?;
    }
    if !margins.shared_x {
        draw_x_desc(body, &chart, axes.x_desc, &label_style, gap)?;
    }
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
        placed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
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
            for count in (1..=wanted.max(1)).rev() {
                if fits(&key_points(count))? {
                    return Ok(Labels::Linear(count));
                }
            }
            Ok(Labels::Linear(1))
        }
        Scale::Log => {
            let ticks = key_points(wanted);
            // Then every third power of ten, every fourth…: a short plot keeps one label rather than piled ones.
            let sparser = (3..=12).map(|decade_step| LogLabels {
                mantissas: &[1.0],
                decade_step,
            });
            for labels in LogLabels::DENSEST_FIRST.into_iter().chain(sparser) {
                let kept: Vec<f64> = ticks.iter().copied().filter(|t| labels.keeps(*t)).collect();
                if fits(&kept)? {
                    return Ok(Labels::Log(labels));
                }
            }
            Ok(Labels::Log(LogLabels::SPARSEST))
        }
    }
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
