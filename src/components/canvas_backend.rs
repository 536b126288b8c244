//! [`MeasuredCanvas`]: plotters-canvas's backend with text measured by the canvas itself.
//!
//! plotters measures text on wasm by appending a `<span>` with an inline `style` attribute to the page and reading
//! its size. Under the page's Content-Security-Policy (`style-src 'self'`, no inline styles) that attribute is
//! refused, so every label was measured at the wrong size and each refusal was reported as a violation; it also
//! forced a page layout per label. The canvas's own `measureText` needs neither.

use leptos::html;
use leptos::prelude::*;
use leptos_use_resize_observer::use_resize_observer;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// The CSS size of the canvas behind `canvas_ref` as last laid out; (0, 0) until the first layout. Charts redraw
/// on it, and [`MeasuredCanvas::sized`] turns it into a backing store.
pub fn use_css_size(canvas_ref: NodeRef<html::Canvas>) -> ReadSignal<(f64, f64)> {
    let (css_size, set_css_size) = signal((0.0_f64, 0.0_f64));
    use_resize_observer(canvas_ref, move |entries, _| {
        if let Some(entry) = entries.first() {
            let rect = entry.content_rect();
            set_css_size.set((rect.width(), rect.height()));
        }
    });
    css_size
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

/// plotters-canvas does not export its error type; it is reached through the trait.
type CanvasError = <CanvasBackend as DrawingBackend>::ErrorType;

/// A canvas drawing backend whose text measurement stays inside the canvas.
pub struct MeasuredCanvas {
    inner: CanvasBackend,
    context: CanvasRenderingContext2d,
}

impl MeasuredCanvas {
    /// The backend for `canvas` with its backing store set to `css_size` × `devicePixelRatio` — plotters-canvas
    /// draws in backing-store pixels and knows nothing of the ratio, so without this charts blur on HiDPI screens and
    /// projectors — and the ratio, to scale the chart style by. `None` before the canvas is laid out (zero size) or
    /// when it has no 2D context.
    pub fn sized(canvas: HtmlCanvasElement, (width, height): (f64, f64)) -> Option<(Self, f64)> {
        let ratio = web_sys::window()?.device_pixel_ratio().max(1.0);
        let (device_w, device_h) = (
            (width * ratio).round() as u32,
            (height * ratio).round() as u32,
        );
        if device_w == 0 || device_h == 0 {
            return None;
        }
        canvas.set_width(device_w);
        canvas.set_height(device_h);
        Some((MeasuredCanvas::new(canvas)?, ratio))
    }

    /// The backend for `canvas` as it is sized, or `None` when it has no 2D context.
    pub fn new(canvas: HtmlCanvasElement) -> Option<Self> {
        let context = canvas
            .get_context("2d")
            .ok()??
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        Some(MeasuredCanvas {
            inner: CanvasBackend::with_canvas_object(canvas)?,
            context,
        })
    }
}

impl DrawingBackend for MeasuredCanvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_path(path, style)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.fill_polygon(vert, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_text(text, style, pos)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        // The same font string plotters-canvas draws with, so measured and drawn text agree.
        let font = format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str()
        );
        // A chart's labels repeat from one redraw to the next (a slider move redraws every tick label): measuring
        // each once saves a font change and a measurement per label per draw.
        let key = (font, text.to_owned());
        if let Some(size) = TEXT_SIZES.with_borrow(|sizes| sizes.get(&key).copied()) {
            return Ok(size);
        }
        self.context.set_font(&key.0);
        // A line box as the old span measurement gave it, should the browser not report font metrics; and a rough
        // average glyph width should it refuse to measure at all (it never does for a 2D context).
        let fallback = (
            text.chars().count() as f64 * 0.6 * style.size(),
            style.size() * 1.2,
        );
        let (width, height) = match self.context.measure_text(text) {
            Ok(metrics) => {
                let line = metrics.font_bounding_box_ascent() + metrics.font_bounding_box_descent();
                (metrics.width(), if line > 0.0 { line } else { fallback.1 })
            }
            Err(_) => fallback,
        };
        let size = (width.ceil() as u32, height.ceil() as u32);
        TEXT_SIZES.with_borrow_mut(|sizes| {
            if sizes.len() >= TEXT_SIZES_KEPT {
                sizes.clear();
            }
            sizes.insert(key, size);
        });
        Ok(size)
    }
}
