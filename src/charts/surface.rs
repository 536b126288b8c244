//! The one drawing backend every chart is drawn on, and the surfaces it draws to.
//!
//! plotters' chart code is generic over its `DrawingBackend`. Were the charts generic too, the wasm would hold each
//! of them twice — once for the page's canvas and once for the SVG download. So the backend is erased here instead:
//! [`ChartBackend`] is the only `DrawingBackend` the charts know, and it hands every primitive, as plain values, to a
//! [`Surface`] trait object: [`SvgSurface`] (native and wasm) or the page's canvas
//! (`components::canvas_backend::MeasuredCanvas`). The charts are compiled once. Both surfaces draw through one of
//! plotters' own backends ([`PlottersSurface`]) and differ only in how they set and measure text.

use plotters::coord::Shift;
use plotters::drawing::{DrawingArea, DrawingAreaErrorKind};
use plotters::prelude::SVGBackend;
use plotters_backend::text_anchor::Pos;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontFamily, FontStyle, FontTransform,
};

/// What a surface reports when a drawing call fails (a canvas call that threw).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurfaceError(pub String);

impl std::fmt::Display for SurfaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SurfaceError {}

/// The result of a surface's drawing call.
pub type SurfaceResult<T = ()> = Result<T, SurfaceError>;

/// What a chart's drawing returns: `T` or plotters' error around a [`SurfaceError`].
pub type ChartResult<T = ()> = Result<T, DrawingAreaErrorKind<SurfaceError>>;

/// The drawing area every chart draws into.
pub type ChartArea<'s> = DrawingArea<ChartBackend<'s>, Shift>;

/// The paint of a line, an outline or a fill: colour (with opacity) and stroke width in device pixels.
#[derive(Clone, Copy)]
pub struct Paint {
    /// Colour and opacity.
    pub color: BackendColor,
    /// Stroke width in device pixels (ignored by fills).
    pub width: u32,
}

impl Paint {
    fn of(style: &impl BackendStyle) -> Self {
        Paint {
            color: style.color(),
            width: style.stroke_width(),
        }
    }
}

impl BackendStyle for Paint {
    fn color(&self) -> BackendColor {
        self.color
    }

    fn stroke_width(&self) -> u32 {
        self.width
    }
}

/// Text as a surface draws and measures it: every property of plotters' text styles, as plain values.
#[derive(Clone)]
pub struct TextSpec<'a> {
    /// A CSS font family, e.g. "sans-serif".
    pub family: &'a str,
    /// Font size in device pixels.
    pub size: f64,
    /// Normal or bold (the charts use no other).
    pub style: FontStyle,
    /// Colour and opacity.
    pub color: BackendColor,
    /// Which point of the text's box sits at the drawing position.
    pub anchor: Pos,
    /// Rotation (the y axis description is turned 270°).
    pub transform: FontTransform,
}

impl<'a> TextSpec<'a> {
    fn of(style: &'a impl BackendTextStyle) -> Self {
        TextSpec {
            // The family's own name, borrowed from the style rather than copied for every label.
            family: match style.family() {
                FontFamily::Serif => "serif",
                FontFamily::SansSerif => "sans-serif",
                FontFamily::Monospace => "monospace",
                FontFamily::Name(face) => face,
            },
            size: style.size(),
            style: style.style(),
            color: style.color(),
            anchor: style.anchor(),
            transform: style.transform(),
        }
    }

    /// The CSS `font` shorthand of this text, as a canvas takes it: "bold 14px sans-serif".
    pub fn css_font(&self) -> String {
        format!("{} {}px {}", self.style.as_str(), self.size, self.family)
    }

    /// The same text at another size.
    fn resized(&self, size: f64) -> Self {
        TextSpec {
            size,
            ..self.clone()
        }
    }
}

/// The size of `text` in `spec`'s font, for surfaces that cannot measure: Helvetica's advance widths (which Arial,
/// Liberation Sans and most UI sans-serifs follow closely) plus 5%, bold 7% wider, and a line box of 1.2 em. So an SVG
/// is laid out about as the browser that shows it sets its text, and a layout that fits here fits on the canvas.
pub fn estimated_text_size(text: &str, spec: &TextSpec<'_>) -> (u32, u32) {
    let ems: f64 = text.chars().map(char_width_em).sum();
    let bold = if matches!(spec.style, FontStyle::Bold) {
        1.07
    } else {
        1.0
    };
    let width = ems * spec.size * 1.05 * bold;
    (width.ceil() as u32, (1.2 * spec.size).ceil() as u32)
}

/// Helvetica's advance width of `c` in em, from its font metrics (ASCII and the few other signs the charts print);
/// 0.6 em for anything else.
fn char_width_em(c: char) -> f64 {
    const ASCII: &[u16; 95] = &[
        278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278,
        278, // space to /
        556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0 to 9
        278, 278, 584, 584, 584, 556, 1015, // : to @
        667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, // A to M
        722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // N to Z
        278, 278, 278, 469, 556, 333, // [ to `
        556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, // a to m
        556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // n to z
        334, 260, 334, 584, // { to ~
    ];
    let thousandths = match c {
        ' '..='~' => ASCII[c as usize - ' ' as usize],
        '≤' | '≥' => 549,
        '×' | '÷' | '−' => 584,
        '–' => 556,
        '—' => 1000,
        '’' | '‘' => 222,
        _ => 600,
    };
    f64::from(thousandths) / 1000.0
}

// plotters' backends take their text style as a `BackendTextStyle`; a `TextSpec` is one. They only read its
// properties: layout and rasterising are the surface's business, so `draw` is never called.
impl BackendTextStyle for TextSpec<'_> {
    type FontError = SurfaceError;

    fn color(&self) -> BackendColor {
        self.color
    }

    fn size(&self) -> f64 {
        self.size
    }

    fn transform(&self) -> FontTransform {
        self.transform.clone()
    }

    fn style(&self) -> FontStyle {
        self.style
    }

    fn anchor(&self) -> Pos {
        self.anchor
    }

    fn family(&self) -> FontFamily<'_> {
        FontFamily::Name(self.family)
    }

    fn layout_box(&self, text: &str) -> Result<((i32, i32), (i32, i32)), SurfaceError> {
        let (width, height) = estimated_text_size(text, self);
        Ok(((0, 0), (width as i32, height as i32)))
    }

    fn draw<E, F: FnMut(i32, i32, BackendColor) -> Result<(), E>>(
        &self,
        _text: &str,
        _pos: BackendCoord,
        _draw: F,
    ) -> Result<Result<(), E>, SurfaceError> {
        Err(SurfaceError(
            "text is drawn by the surface, never rasterised".to_owned(),
        ))
    }
}

/// Something a chart can be drawn on. Object-safe: every argument is a plain value, so one [`ChartBackend`] serves
/// every surface. Coordinates and sizes are in device pixels, from the top left.
pub trait Surface {
    /// Width and height.
    fn size(&self) -> (u32, u32);
    /// A straight line.
    fn line(&mut self, from: BackendCoord, to: BackendCoord, paint: Paint) -> SurfaceResult;
    /// A rectangle, outlined or filled.
    fn rect(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        paint: Paint,
        fill: bool,
    ) -> SurfaceResult;
    /// A polyline through `points`.
    fn path(&mut self, points: &[BackendCoord], paint: Paint) -> SurfaceResult;
    /// A filled polygon.
    fn polygon(&mut self, points: &[BackendCoord], paint: Paint) -> SurfaceResult;
    /// A circle, outlined or filled.
    fn circle(
        &mut self,
        centre: BackendCoord,
        radius: u32,
        paint: Paint,
        fill: bool,
    ) -> SurfaceResult;
    /// `text` with `spec`'s anchor at `at`.
    fn text(&mut self, text: &str, spec: &TextSpec<'_>, at: BackendCoord) -> SurfaceResult;
    /// The width and height `text` takes in `spec`'s font: what the chart lays its labels out by.
    fn text_size(&self, text: &str, spec: &TextSpec<'_>) -> SurfaceResult<(u32, u32)>;
    /// Finishes the picture (the SVG writes its closing tag).
    fn present(&mut self) -> SurfaceResult;
}

/// Which part of a chart one drawing paints.
///
/// A chart against load changes with every step of the load slider only in its marker: the hairline at the load,
/// its tag, and the values read there. Such a chart draws its base (frame, axes, curves, end tags) first, then calls
/// [`start_overlay`] and draws the marker. The page keeps the base as a picture and, while only the load moves,
/// paints the overlay on a copy of it instead of drawing every curve again. Every layout is still computed in each
/// pass, so the overlay lands where the whole chart would put it; only the painting is left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layer {
    /// Everything: a download, a static picture, a chart drawn in one layer.
    #[default]
    Whole,
    /// What is drawn before [`start_overlay`].
    Base,
    /// What is drawn after it.
    Overlay,
}

/// The charts' drawing backend: plotters draws on it, and it passes everything to its [`Surface`] (only what is in
/// the [`Layer`] it paints; text is measured in every layer, since layout depends on it).
pub struct ChartBackend<'s> {
    surface: Box<dyn Surface + 's>,
    painted: Layer,
    /// Whether the chart has reached its overlay.
    in_overlay: bool,
}

impl<'s> ChartBackend<'s> {
    /// A backend drawing the whole of a chart on `surface`.
    pub fn new(surface: impl Surface + 's) -> Self {
        ChartBackend::painting(surface, Layer::Whole)
    }

    /// A backend drawing `layer` of a chart on `surface`.
    pub fn painting(surface: impl Surface + 's, layer: Layer) -> Self {
        ChartBackend {
            surface: Box::new(surface),
            painted: layer,
            in_overlay: false,
        }
    }

    /// Whether what the chart draws now is painted.
    fn paints(&self) -> bool {
        match self.painted {
            Layer::Whole => true,
            Layer::Base => !self.in_overlay,
            Layer::Overlay => self.in_overlay,
        }
    }

    /// `draw` on the surface if this layer paints now.
    fn paint(&mut self, draw: impl FnOnce(&mut dyn Surface) -> SurfaceResult) -> BackendResult {
        if self.paints() {
            lift(draw(self.surface.as_mut()))
        } else {
            Ok(())
        }
    }
}

/// Marks where a chart's base ends and its overlay begins (see [`Layer`]): everything `area`'s backend is asked to
/// draw from here on belongs to the overlay.
pub fn start_overlay(area: &ChartArea<'_>) -> ChartResult {
    area.draw(&OverlayStart)
}

/// The element [`start_overlay`] draws: no points and no paint, only a word to the backend. (A plotters drawing area
/// hands its backend to the elements it draws and to nothing else.)
struct OverlayStart;

impl<'a, Coord: 'a> plotters::element::PointCollection<'a, Coord> for &'a OverlayStart {
    type Point = &'a Coord;
    type IntoIter = std::iter::Empty<&'a Coord>;

    fn point_iter(self) -> Self::IntoIter {
        std::iter::empty()
    }
}

impl plotters::element::Drawable<ChartBackend<'_>> for OverlayStart {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        _points: I,
        backend: &mut ChartBackend<'_>,
        _parent_dim: (u32, u32),
    ) -> BackendResult {
        backend.in_overlay = true;
        Ok(())
    }
}

type BackendResult<T = ()> = Result<T, DrawingErrorKind<SurfaceError>>;

fn lift<T>(result: SurfaceResult<T>) -> BackendResult<T> {
    result.map_err(DrawingErrorKind::DrawingError)
}

impl DrawingBackend for ChartBackend<'_> {
    type ErrorType = SurfaceError;

    fn get_size(&self) -> (u32, u32) {
        self.surface.size()
    }

    fn ensure_prepared(&mut self) -> BackendResult {
        Ok(())
    }

    fn present(&mut self) -> BackendResult {
        lift(self.surface.present())
    }

    fn draw_pixel(&mut self, (x, y): BackendCoord, color: BackendColor) -> BackendResult {
        let paint = Paint { color, width: 1 };
        self.paint(|surface| surface.rect((x, y), (x + 1, y + 1), paint, true))
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> BackendResult {
        let paint = Paint::of(style);
        self.paint(|surface| surface.line(from, to, paint))
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> BackendResult {
        let paint = Paint::of(style);
        self.paint(|surface| surface.rect(upper_left, bottom_right, paint, fill))
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> BackendResult {
        let paint = Paint::of(style);
        self.paint(|surface| {
            let points: Vec<BackendCoord> = path.into_iter().collect();
            surface.path(&points, paint)
        })
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> BackendResult {
        let paint = Paint::of(style);
        self.paint(|surface| {
            let points: Vec<BackendCoord> = vert.into_iter().collect();
            surface.polygon(&points, paint)
        })
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> BackendResult {
        let paint = Paint::of(style);
        self.paint(|surface| surface.circle(center, radius, paint, fill))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> BackendResult {
        self.paint(|surface| surface.text(text, &TextSpec::of(style), pos))
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> BackendResult<(u32, u32)> {
        lift(self.surface.text_size(text, &TextSpec::of(style)))
    }
}

/// A surface that draws through one of plotters' own backends (its SVG writer, plotters-canvas): lines and shapes go
/// to the backend as they are, text as the surface decides. Every such type is a [`Surface`].
pub trait PlottersSurface {
    /// The backend drawn through.
    type Backend: DrawingBackend;
    /// The backend.
    fn backend(&self) -> &Self::Backend;
    /// The backend, to draw on.
    fn backend_mut(&mut self) -> &mut Self::Backend;
    /// [`Surface::text`].
    fn write_text(&mut self, text: &str, spec: &TextSpec<'_>, at: BackendCoord) -> SurfaceResult;
    /// [`Surface::text_size`].
    fn measure_text(&self, text: &str, spec: &TextSpec<'_>) -> SurfaceResult<(u32, u32)>;
}

/// A plotters backend's result as a surface's.
pub fn unlift<T, E: std::error::Error + Send + Sync>(
    result: Result<T, DrawingErrorKind<E>>,
) -> SurfaceResult<T> {
    result.map_err(|error| SurfaceError(error.to_string()))
}

impl<P: PlottersSurface> Surface for P {
    fn size(&self) -> (u32, u32) {
        self.backend().get_size()
    }

    fn line(&mut self, from: BackendCoord, to: BackendCoord, paint: Paint) -> SurfaceResult {
        unlift(self.backend_mut().draw_line(from, to, &paint))
    }

    fn rect(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        paint: Paint,
        fill: bool,
    ) -> SurfaceResult {
        let backend = self.backend_mut();
        unlift(backend.draw_rect(upper_left, bottom_right, &paint, fill))
    }

    fn path(&mut self, points: &[BackendCoord], paint: Paint) -> SurfaceResult {
        unlift(self.backend_mut().draw_path(points.iter().copied(), &paint))
    }

    fn polygon(&mut self, points: &[BackendCoord], paint: Paint) -> SurfaceResult {
        unlift(
            self.backend_mut()
                .fill_polygon(points.iter().copied(), &paint),
        )
    }

    fn circle(
        &mut self,
        centre: BackendCoord,
        radius: u32,
        paint: Paint,
        fill: bool,
    ) -> SurfaceResult {
        unlift(self.backend_mut().draw_circle(centre, radius, &paint, fill))
    }

    fn text(&mut self, text: &str, spec: &TextSpec<'_>, at: BackendCoord) -> SurfaceResult {
        self.write_text(text, spec, at)
    }

    fn text_size(&self, text: &str, spec: &TextSpec<'_>) -> SurfaceResult<(u32, u32)> {
        self.measure_text(text, spec)
    }

    fn present(&mut self) -> SurfaceResult {
        unlift(self.backend_mut().present())
    }
}

/// plotters' SVG writer as a [`Surface`]: what "Download SVG", the static pages and the native tests draw on.
///
/// Text is laid out by [`estimated_text_size`]: an SVG has no fonts to measure with, and its reader's may differ.
pub struct SvgSurface<'a> {
    inner: SVGBackend<'a>,
}

impl<'a> SvgSurface<'a> {
    /// A `width`×`height` SVG document written into `buffer` when the picture is presented.
    pub fn new(buffer: &'a mut String, (width, height): (u32, u32)) -> Self {
        SvgSurface {
            inner: SVGBackend::with_string(buffer, (width, height)),
        }
    }
}

/// plotters-svg writes `font-size` as the requested size ÷ 1.24; asking for 1.24× the size gives the size meant.
const SVG_FONT_SIZE_QUIRK: f64 = 1.24;

impl<'a> PlottersSurface for SvgSurface<'a> {
    type Backend = SVGBackend<'a>;

    fn backend(&self) -> &SVGBackend<'a> {
        &self.inner
    }

    fn backend_mut(&mut self) -> &mut SVGBackend<'a> {
        &mut self.inner
    }

    fn write_text(&mut self, text: &str, spec: &TextSpec<'_>, at: BackendCoord) -> SurfaceResult {
        let spec = spec.resized(spec.size * SVG_FONT_SIZE_QUIRK);
        unlift(self.inner.draw_text(text, &spec, at))
    }

    fn measure_text(&self, text: &str, spec: &TextSpec<'_>) -> SurfaceResult<(u32, u32)> {
        Ok(estimated_text_size(text, spec))
    }
}
