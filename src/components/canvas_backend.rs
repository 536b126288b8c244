//! The page's `<canvas>` as a chart [`Surface`]: [`MeasuredCanvas`] draws through plotters-canvas and measures text
//! with the canvas itself; [`use_canvas_geometry`] and [`KeptBase`] size its backing store to the device and draw on it.
//!
//! plotters measures text on wasm by appending a `<span>` with an inline `style` attribute to the page and reading
//! its size. Under the page's Content-Security-Policy (`style-src 'self'`, no inline styles) that attribute is
//! refused, so every label was measured at the wrong size and each refusal was reported as a violation; it also
//! forced a page layout per label. The canvas's own `measureText` needs neither.

use leptos::html;
use leptos::prelude::*;
use leptos_use_device_pixel_ratio::use_device_pixel_ratio;
use leptos_use_resize_observer::use_resize_observer;
use plotters::prelude::IntoDrawingArea;
use plotters_backend::{BackendCoord, DrawingBackend};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::charts::surface::{
    estimated_text_size, unlift, PlottersSurface, SurfaceResult, TextSpec,
};
use crate::charts::{AnyChart, Chart, ChartBackend, ChartStyle, Layer, PlotRect};

/// What a chart canvas is drawn at: its CSS size as last laid out ((0, 0) before the first layout) and the device
/// pixel ratio.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CanvasGeometry {
    pub css_size: (f64, f64),
    pub ratio: f64,
}

/// The geometry of the canvas behind `canvas_ref`, following its resizes and every change of `devicePixelRatio`
/// (browser zoom, a window moved to a screen of another density): a chart that draws from it is redrawn crisp.
pub fn use_canvas_geometry(canvas_ref: NodeRef<html::Canvas>) -> Signal<CanvasGeometry> {
    let (css_size, set_css_size) = signal((0.0_f64, 0.0_f64));
    use_resize_observer(canvas_ref, move |entries, _| {
        if let Some(entry) = entries.first() {
            let rect = entry.content_rect();
            set_css_size.set((rect.width(), rect.height()));
        }
    });
    let ratio = use_device_pixel_ratio();
    Signal::derive(move || CanvasGeometry {
        css_size: css_size.get(),
        ratio: ratio.get(),
    })
}

/// Draws `spec` on `canvas` in `style`, with the backing store set to the CSS size × the device pixel ratio and the
/// style scaled to match — plotters-canvas draws in backing-store pixels and knows nothing of the ratio, so without
/// this charts blur on HiDPI screens and projectors. Returns where the plot lies, in CSS pixels; `Ok(None)` before
/// the canvas is laid out, when it has no 2D context, or when it is too small to hold a plot.
fn draw_chart(
    canvas: HtmlCanvasElement,
    geometry: CanvasGeometry,
    spec: &dyn Chart,
    style: ChartStyle,
) -> Result<Option<PlotRect>, String> {
    if !size_to_device(&canvas, geometry) {
        return Ok(None);
    }
    paint_layer(canvas, geometry, spec, style, Layer::Whole)
}

/// Sizes `canvas`'s backing store to its CSS size × the device pixel ratio (never below 1: a zoomed-out page keeps a
/// backing store at least as fine as its CSS pixels), and clears it. False when it has no size yet.
fn size_to_device(canvas: &HtmlCanvasElement, geometry: CanvasGeometry) -> bool {
    let ratio = geometry.ratio.max(1.0);
    let (width, height) = geometry.css_size;
    let (device_w, device_h) = (
        (width * ratio).round() as u32,
        (height * ratio).round() as u32,
    );
    // Setting a size, even the one it has, makes the browser allocate a new backing store: a canvas redrawn at
    // every slider step only clears its own.
    match context_2d(canvas) {
        Some(context) if (canvas.width(), canvas.height()) == (device_w, device_h) => {
            context.clear_rect(0.0, 0.0, f64::from(device_w), f64::from(device_h));
        }
        _ => {
            canvas.set_width(device_w);
            canvas.set_height(device_h);
        }
    }
    device_w > 0 && device_h > 0
}

/// Paints `layer` of `spec` on `canvas`, sized by [`size_to_device`], over what it already shows.
fn paint_layer(
    canvas: HtmlCanvasElement,
    geometry: CanvasGeometry,
    spec: &dyn Chart,
    style: ChartStyle,
    layer: Layer,
) -> Result<Option<PlotRect>, String> {
    let ratio = geometry.ratio.max(1.0);
    let Some(surface) = MeasuredCanvas::new(canvas) else {
        return Ok(None);
    };
    let area = ChartBackend::painting(surface, layer).into_drawing_area();
    let plot = spec
        .draw(&area, &style.with_scale(ratio))
        .map_err(|error| error.to_string())?;
    area.present().map_err(|error| error.to_string())?;
    Ok(plot.map(|plot| plot.per(ratio)))
}

/// A chart canvas's base layer (see [`Layer`]), kept on a canvas off the page with what it was drawn from. While a
/// slider moves only a chart's load marker, the canvas copies the base and paints the marker over it instead of
/// drawing every curve again.
#[derive(Default)]
pub struct KeptBase {
    canvas: Option<HtmlCanvasElement>,
    drawn_from: Option<(AnyChart, CanvasGeometry, ChartStyle)>,
}

impl KeptBase {
    /// Draws `spec` on `canvas`, its backing store sized to the device (see [`draw_chart`]). A chart drawn in two
    /// layers has its base drawn off the page when it is not the one kept, then copied onto the canvas under its
    /// overlay.
    pub fn draw(
        &mut self,
        canvas: HtmlCanvasElement,
        geometry: CanvasGeometry,
        spec: &AnyChart,
        style: ChartStyle,
    ) -> Result<Option<PlotRect>, String> {
        let kept = self
            .drawn_from
            .as_ref()
            .is_some_and(|(earlier, at, kept_style)| {
                *at == geometry && *kept_style == style && spec.same_base(earlier)
            });
        if !kept {
            self.drawn_from = None;
            // A chart in two layers has its own base; one in a single layer has none to keep.
            let base = match &self.canvas {
                _ if !spec.same_base(spec) => None,
                Some(base) => Some(base.clone()),
                None => new_canvas(),
            };
            let Some(base) = base else {
                return draw_chart(canvas, geometry, spec, style);
            };
            self.canvas = Some(base.clone());
            if !size_to_device(&base, geometry) {
                return Ok(None);
            }
            paint_layer(base, geometry, spec, style.clone(), Layer::Base)?;
            self.drawn_from = Some((spec.clone(), geometry, style.clone()));
        }
        let Some(base) = &self.canvas else {
            return Ok(None);
        };
        if !size_to_device(&canvas, geometry) {
            return Ok(None);
        }
        let copied = context_2d(&canvas)
            .map(|context| context.draw_image_with_html_canvas_element(base, 0.0, 0.0));
        if !matches!(copied, Some(Ok(()))) {
            // The copy failed: draw the whole chart, and the base again next time.
            self.drawn_from = None;
            return draw_chart(canvas, geometry, spec, style);
        }
        paint_layer(canvas, geometry, spec, style, Layer::Overlay)
    }
}

/// `canvas`'s 2D context (`None` if it has another kind, or none).
fn context_2d(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas.get_context("2d").ok()??.dyn_into().ok()
}

/// A canvas off the page, or `None` where there is no document.
fn new_canvas() -> Option<HtmlCanvasElement> {
    web_sys::window()?
        .document()?
        .create_element("canvas")
        .ok()?
        .dyn_into()
        .ok()
}

/// How many measured (font, text) sizes are kept; past it the cache starts over (a few charts' labels at a few
/// sizes stay far below it).
const TEXT_SIZES_KEPT: usize = 4096;

thread_local! {
    /// Text sizes measured so far, by (CSS font, text). The page's fonts are system fonts, loaded before any chart
    /// draws, so a size never goes stale.
    static TEXT_SIZES: std::cell::RefCell<std::collections::HashMap<(String, String), (u32, u32)>> =
        Default::default();
}

/// A canvas as a chart surface, with text measurement that stays inside the canvas.
pub struct MeasuredCanvas {
    inner: CanvasBackend,
    context: CanvasRenderingContext2d,
}

impl MeasuredCanvas {
    /// The surface for `canvas` as it is sized, or `None` when it has no 2D context.
    fn new(canvas: HtmlCanvasElement) -> Option<Self> {
        let context = context_2d(&canvas)?;
        Some(MeasuredCanvas {
            inner: CanvasBackend::with_canvas_object(canvas)?,
            context,
        })
    }
}

impl PlottersSurface for MeasuredCanvas {
    type Backend = CanvasBackend;

    fn backend(&self) -> &CanvasBackend {
        &self.inner
    }

    fn backend_mut(&mut self) -> &mut CanvasBackend {
        &mut self.inner
    }

    fn write_text(&mut self, text: &str, spec: &TextSpec<'_>, at: BackendCoord) -> SurfaceResult {
        unlift(self.inner.draw_text(text, spec, at))
    }

    fn measure_text(&self, text: &str, spec: &TextSpec<'_>) -> SurfaceResult<(u32, u32)> {
        // The same font string plotters-canvas draws with, so measured and drawn text agree.
        // A chart's labels repeat from one redraw to the next (a slider move redraws every tick label): measuring
        // each once saves a font change and a measurement per label per draw.
        let key = (spec.css_font(), text.to_owned());
        if let Some(size) = TEXT_SIZES.with_borrow(|sizes| sizes.get(&key).copied()) {
            return Ok(size);
        }
        self.context.set_font(&key.0);
        // The rough estimate, should the browser not report font metrics (or refuse to measure at all, which it never
        // does for a 2D context).
        let fallback = estimated_text_size(text, spec);
        let size = match self.context.measure_text(text) {
            Ok(metrics) => {
                let line = metrics.font_bounding_box_ascent() + metrics.font_bounding_box_descent();
                let height = if line > 0.0 {
                    line.ceil() as u32
                } else {
                    fallback.1
                };
                (metrics.width().ceil() as u32, height)
            }
            Err(_) => fallback,
        };
        TEXT_SIZES.with_borrow_mut(|sizes| {
            if sizes.len() >= TEXT_SIZES_KEPT {
                sizes.clear();
            }
            sizes.insert(key, size);
        });
        Ok(size)
    }
}
