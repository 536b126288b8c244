//! Performance marks and measures the benchmark (`tools/bench.mjs`) reads with `performance.getEntriesByName`:
//! - `lab:first-draw` (mark): the lab's charts first show results;
//! - `lab:input-to-paint` (measure): from a load-slider input event to the frame that shows its result;
//! - `lab:first-result` / `lab:converged` (measures): from a scenario change to its first rough and its final result;
//! - `chart:draw:<chart>` (measures): one chart drawn on its canvas.
//!
//! "The frame that shows it" is taken as the next `requestAnimationFrame` callback after the change: Leptos runs the
//! chart effects before it, and the browser paints right after it.

use leptos::prelude::*;
use wasm_bindgen::JsValue;

/// `performance.now()`, milliseconds (0 where there is no `performance`).
pub fn now() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

/// Adds a `performance.mark` named `name`.
pub fn mark(name: &str) {
    if let Some(performance) = window().performance() {
        let _ = performance.mark(name);
    }
}

/// At the next animation frame, records a `performance.measure` named `name` from `start` (ms, on the
/// `performance.now()` clock, as `Event.timeStamp` is) to that frame.
pub fn measure_at_next_frame(name: String, start: f64) {
    request_animation_frame(move || measure(&name, start, now()));
}

/// Records a `performance.measure` named `name` from `start` to `end` (ms, `performance.now()` clock).
pub fn measure(name: &str, start: f64, end: f64) {
    // web-sys has no binding for the options form `measure(name, {start, end})`, so call it through JS.
    let Some(performance) = window().performance() else {
        return;
    };
    let options = web_sys::js_sys::Object::new();
    let _ = web_sys::js_sys::Reflect::set(&options, &"start".into(), &start.into());
    let _ = web_sys::js_sys::Reflect::set(&options, &"end".into(), &end.into());
    let Ok(function) = web_sys::js_sys::Reflect::get(&performance, &"measure".into()) else {
        return;
    };
    if let Some(function) = wasm_bindgen::JsCast::dyn_ref::<web_sys::js_sys::Function>(&function) {
        let _ = function.call2(&performance, &JsValue::from_str(name), &options);
    }
}
