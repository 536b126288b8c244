//! One palette and one set of sizes for every chart, in three themes.
//!
//! Colours come from the Okabe–Ito palette, which stays distinguishable under the common colour-vision deficiencies.
//! Colour is never the only cue, though: the tail series is drawn thicker, exact curves and thresholds are dashed, so
//! a chart still reads in greyscale or on a washed-out projector.
//! Those cues are types, [`Weight`] and [`Stroke`], carried by a [`Pen`]: one value describes a line wherever it is
//! drawn, in the plot and as its legend swatch.

use plotters::style::{FontDesc, FontFamily, FontStyle, IntoFont, RGBColor, ShapeStyle, TextStyle};

/// Okabe–Ito blue.
pub const BLUE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
/// Okabe–Ito vermillion.
pub const VERMILLION: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
/// Okabe–Ito bluish green.
pub const GREEN: RGBColor = RGBColor(0x00, 0x9E, 0x73);
/// Okabe–Ito reddish purple.
pub const PURPLE: RGBColor = RGBColor(0xCC, 0x79, 0xA7);
/// Okabe–Ito orange.
pub const ORANGE: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
/// Okabe–Ito sky blue.
pub const SKY: RGBColor = RGBColor(0x56, 0xB4, 0xE9);
/// Okabe–Ito black.
pub const BLACK: RGBColor = RGBColor(0x00, 0x00, 0x00);
const WHITE: RGBColor = RGBColor(0xFF, 0xFF, 0xFF);

/// The page's three themes; each chart is drawn in the one the reader picked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ChartTheme {
    /// Dark text on white.
    #[default]
    Light,
    /// Light text on a near-black background; blue is swapped for sky blue, which keeps its contrast there.
    Dark,
    /// For projectors and low vision: pure white background, black text, heavier lines, larger type, and the light
    /// Okabe–Ito hues (orange, sky, purple, green) darkened until each reaches at least 3:1 contrast on white.
    HighContrast,
}

impl ChartTheme {
    /// Every theme, in the picker's order.
    pub const ALL: [ChartTheme; 3] = [
        ChartTheme::Light,
        ChartTheme::Dark,
        ChartTheme::HighContrast,
    ];

    /// Its word in the workers' messages.
    pub fn key(self) -> &'static str {
        match self {
            ChartTheme::Light => "light",
            ChartTheme::Dark => "dark",
            ChartTheme::HighContrast => "contrast",
        }
    }
}

/// Colours by role, so a chart asks for "the p99 colour" and the theme decides what that is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    /// Canvas background; filled first so exported PNGs are not transparent.
    pub background: RGBColor,
    /// Titles, tick labels, axis descriptions and legend text.
    pub text: RGBColor,
    /// Axis lines and ticks.
    pub axis: RGBColor,
    /// Grid lines: visible but well below the data.
    pub grid: RGBColor,
    /// Median latency.
    pub p50: RGBColor,
    /// 95th percentile latency.
    pub p95: RGBColor,
    /// 99th percentile latency, the tail the lesson is about (also its confidence band).
    pub p99: RGBColor,
    /// Mean latency, the number that "still looks fine".
    pub mean: RGBColor,
    /// The exact (Erlang C) curve of textbook mode.
    pub exact: RGBColor,
    /// SLO threshold lines.
    pub slo: RGBColor,
    /// The current-load marker.
    pub marker: RGBColor,
    /// Throughput (dashed).
    pub throughput: RGBColor,
    /// Goodput (solid).
    pub goodput: RGBColor,
    /// The shaded gap between throughput and goodput.
    pub gap: RGBColor,
    /// Requests turned away by a queue cap.
    pub turned_away: RGBColor,
    /// `num_requests_running`.
    pub running: RGBColor,
    /// `num_requests_waiting`.
    pub waiting: RGBColor,
    /// `kv_cache_usage_perc`.
    pub kv_cache: RGBColor,
    /// Preemption marks.
    pub preemption: RGBColor,
    /// Histogram bars of the latency distribution.
    pub histogram: RGBColor,
    /// Prefill cells of the batch timeline.
    pub prefill: RGBColor,
    /// Decode cells of the batch timeline.
    pub decode: RGBColor,
    /// Opacity of shaded areas (confidence band, goodput gap, histogram bars).
    pub fill_opacity: f64,
}

impl Palette {
    /// The palette of `theme`.
    pub fn for_theme(theme: ChartTheme) -> Self {
        match theme {
            ChartTheme::Light => Palette {
                background: WHITE,
                text: RGBColor(0x1A, 0x1A, 0x1A),
                axis: RGBColor(0x40, 0x40, 0x40),
                grid: RGBColor(0xE3, 0xE3, 0xE3),
                p50: BLUE,
                p95: ORANGE,
                p99: VERMILLION,
                mean: GREEN,
                exact: PURPLE,
                slo: BLACK,
                marker: RGBColor(0x55, 0x55, 0x55),
                throughput: BLUE,
                goodput: GREEN,
                gap: VERMILLION,
                turned_away: PURPLE,
                running: BLUE,
                waiting: VERMILLION,
                kv_cache: PURPLE,
                preemption: ORANGE,
                histogram: SKY,
                prefill: ORANGE,
                decode: BLUE,
                fill_opacity: 0.22,
            },
            ChartTheme::Dark => Palette {
                background: RGBColor(0x12, 0x14, 0x18),
                text: RGBColor(0xEE, 0xEE, 0xEE),
                axis: RGBColor(0xB8, 0xB8, 0xB8),
                grid: RGBColor(0x33, 0x36, 0x3B),
                p50: SKY,
                p95: ORANGE,
                p99: VERMILLION,
                mean: GREEN,
                exact: PURPLE,
                slo: WHITE,
                marker: RGBColor(0xAA, 0xAA, 0xAA),
                throughput: SKY,
                goodput: GREEN,
                gap: VERMILLION,
                turned_away: PURPLE,
                running: SKY,
                waiting: VERMILLION,
                kv_cache: PURPLE,
                preemption: ORANGE,
                histogram: BLUE,
                prefill: ORANGE,
                decode: SKY,
                fill_opacity: 0.30,
            },
            ChartTheme::HighContrast => Palette {
                background: WHITE,
                text: BLACK,
                axis: BLACK,
                grid: RGBColor(0xBB, 0xBB, 0xBB),
                p50: BLUE,
                p95: RGBColor(0x9E, 0x6D, 0x00),
                p99: VERMILLION,
                mean: RGBColor(0x00, 0x7A, 0x59),
                exact: RGBColor(0xA8, 0x45, 0x7F),
                slo: BLACK,
                marker: BLACK,
                throughput: BLUE,
                goodput: RGBColor(0x00, 0x7A, 0x59),
                gap: VERMILLION,
                turned_away: RGBColor(0xA8, 0x45, 0x7F),
                running: BLUE,
                waiting: VERMILLION,
                kv_cache: RGBColor(0xA8, 0x45, 0x7F),
                preemption: RGBColor(0x9E, 0x6D, 0x00),
                histogram: RGBColor(0x2A, 0x7F, 0xB0),
                prefill: RGBColor(0x9E, 0x6D, 0x00),
                decode: BLUE,
                fill_opacity: 0.35,
            },
        }
    }
}

/// Everything a chart needs to know about looks: theme, palette and sizes.
///
/// Sizes are given in CSS pixels and multiplied by [`ChartStyle::scale`] when drawn. The canvas component sets the
/// scale to `devicePixelRatio` (plotters-canvas draws at the backing-store size and knows nothing of DPR), so the
/// same chart is crisp on a retina screen; a presenter can raise it further for a projector.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartStyle {
    /// The theme the palette came from.
    pub theme: ChartTheme,
    /// Colours by role.
    pub palette: Palette,
    /// Device pixels per CSS pixel (≥ 0.25; anything else is treated as 1).
    pub scale: f64,
    /// Font family for all text. A generic family, since no font files are shipped.
    pub font_family: &'static str,
    /// Tick labels and legend text, CSS px at scale 1 (14 or more, to be legible from the back of a room).
    pub text_px: f64,
    /// Axis descriptions, CSS px at scale 1.
    pub label_px: f64,
    /// Chart titles, CSS px at scale 1.
    pub title_px: f64,
    /// Width of data lines, CSS px at scale 1 (a [`Weight`] scales it).
    pub line_px: f64,
    /// Whether the chart draws its title. A canvas in the page does not: its `<figcaption>` says it, and the plot
    /// takes the room. Downloads and pictures keep it, since they travel without the page.
    pub titled: bool,
}

impl Default for ChartStyle {
    fn default() -> Self {
        ChartStyle::new(ChartTheme::Light, 1.0)
    }
}

impl ChartStyle {
    /// The style of `theme` at `scale` device pixels per CSS pixel.
    pub fn new(theme: ChartTheme, scale: f64) -> Self {
        // High contrast is for projectors and low vision: everything a notch bigger and heavier.
        let boost = if theme == ChartTheme::HighContrast {
            1.15
        } else {
            1.0
        };
        ChartStyle {
            theme,
            palette: Palette::for_theme(theme),
            scale: sanitize_scale(scale),
            font_family: "sans-serif",
            text_px: 14.0 * boost,
            label_px: 16.0 * boost,
            title_px: 18.0 * boost,
            line_px: if theme == ChartTheme::HighContrast {
                3.5
            } else {
                2.5
            },
            titled: true,
        }
    }

    /// The same style without the title (see [`titled`](Self::titled)).
    pub fn untitled(mut self) -> Self {
        self.titled = false;
        self
    }

    /// The same style at another scale, e.g. `style.with_scale(device_pixel_ratio)`.
    pub fn with_scale(mut self, scale: f64) -> Self {
        self.scale = sanitize_scale(scale);
        self
    }

    /// The same style projected: type and lines `factor` times larger in CSS pixels, so a chart on a projected
    /// screen reads from the back of a room. Factors below 1 (or not finite) are treated as 1.
    pub fn with_projection(mut self, factor: f64) -> Self {
        let factor = if factor.is_finite() {
            factor.clamp(1.0, 4.0)
        } else {
            1.0
        };
        self.text_px *= factor;
        self.label_px *= factor;
        self.title_px *= factor;
        self.line_px *= factor;
        self
    }

    /// The projection factor a chart of `width`×`height` CSS pixels can take: type may grow with the screen (the
    /// `screen_factor` of presentation mode), but never past what the chart can hold — the lesson page's type fits
    /// a chart about 450×250 px with room left for a plot of 150 px, so the factor is capped at width/450 and
    /// height/250 (and never below 1). Without the cap, a projected chart could be all legend and no plot; with a
    /// tighter one, the lab's charts at 1920×1080 (about 800×370 px) kept 17 px tick labels beside 48 px figures.
    pub fn fit_projection(screen_factor: f64, width: f64, height: f64) -> f64 {
        let room = (width / 450.0).min(height / 250.0);
        if !(screen_factor.is_finite() && room.is_finite()) {
            return 1.0;
        }
        screen_factor.min(room).max(1.0)
    }

    /// `css_px` CSS pixels in device pixels, at least 1 so hairlines never vanish.
    pub fn px(&self, css_px: f64) -> u32 {
        (css_px * self.scale).round().max(1.0) as u32
    }

    /// `css_px` CSS pixels in device pixels, signed, for coordinates.
    pub(crate) fn offset(&self, css_px: f64) -> i32 {
        (css_px * self.scale).round() as i32
    }

    fn font(&self, css_px: f64, bold: bool) -> FontDesc<'static> {
        let style = if bold {
            FontStyle::Bold
        } else {
            FontStyle::Normal
        };
        FontFamily::Name(self.font_family)
            .into_font()
            .resize(css_px * self.scale)
            .style(style)
    }

    /// Tick labels and legend entries.
    pub fn text_style(&self) -> TextStyle<'static> {
        self.font(self.text_px, false).color(&self.palette.text)
    }

    /// Axis descriptions.
    pub fn label_style(&self) -> TextStyle<'static> {
        self.font(self.label_px, false).color(&self.palette.text)
    }

    /// Chart titles.
    pub fn title_style(&self) -> TextStyle<'static> {
        self.font(self.title_px, true).color(&self.palette.text)
    }

    /// The stroke of a line drawn with `pen` (its dashes are drawn by the caller, see `frame::draw_gapped_line`).
    pub(crate) fn line(&self, pen: Pen) -> ShapeStyle {
        ShapeStyle::from(pen.colour).stroke_width(self.px(self.line_px * pen.weight.factor()))
    }

    /// Histogram bars: twice the area opacity, since bars are the data itself rather than a band behind it.
    pub fn bar(&self, color: RGBColor) -> ShapeStyle {
        use plotters::style::Color;
        color
            .mix((self.palette.fill_opacity * 2.0).min(0.8))
            .filled()
    }

    /// A filled area in `color` at the palette's fill opacity.
    pub fn fill(&self, color: RGBColor) -> ShapeStyle {
        use plotters::style::Color;
        color.mix(self.palette.fill_opacity).filled()
    }
}

/// How heavy a line is, relative to the style's base width: the tail the lesson is about is heavier than the other
/// series, and the lines that only mark a place (a threshold, the current load) are lighter than any data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Weight {
    /// The series the chart is about: p99, goodput, the waiting queue, a prediction's real curve.
    Emphasis,
    /// Every other series, and the markers a reader compares against them.
    Main,
    /// A threshold across the plot: an SLO, the `max_num_seqs` cap, a prediction's level.
    Guide,
    /// The current-load marker, drawn under the data it crosses.
    Hairline,
}

impl Weight {
    /// The factor on [`ChartStyle::line_px`].
    pub(crate) fn factor(self) -> f64 {
        match self {
            Weight::Emphasis => 1.5,
            Weight::Main => 1.0,
            Weight::Guide => 0.6,
            Weight::Hairline => 0.5,
        }
    }
}

/// Solid or dashed. Dashed means "not a measurement of this run": an exact curve, a threshold, the learner's marker —
/// and throughput, so "dashed = all work, solid = goodput" survives greyscale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stroke {
    Solid,
    Dashed,
}

/// How a line looks: colour, weight and dashes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pen {
    pub colour: RGBColor,
    pub weight: Weight,
    pub stroke: Stroke,
}

impl Pen {
    /// A solid line.
    pub(crate) fn solid(colour: RGBColor, weight: Weight) -> Self {
        Pen {
            colour,
            weight,
            stroke: Stroke::Solid,
        }
    }

    /// A dashed line.
    pub(crate) fn dashed(colour: RGBColor, weight: Weight) -> Self {
        Pen {
            colour,
            weight,
            stroke: Stroke::Dashed,
        }
    }
}

fn sanitize_scale(scale: f64) -> f64 {
    if scale.is_finite() && scale >= 0.25 {
        scale.min(8.0)
    } else {
        1.0
    }
}
