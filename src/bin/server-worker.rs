//! The web worker for what a learner brings from their own server, off the page's first load and off its main
//! thread: the metrics reader's reading of `/metrics` pages ([`goodput::cluster::reader_view`], the reading
//! `goodput-sim metrics` prints) and the knee lab's "Your server" calibration ([`goodput::calibrate::page`], the
//! fit `goodput-sim calibrate` makes).
//!
//! The page starts it from a `blob:` URL (`goodput::components::worker`) the first time either is used. Messages are
//! arrays of strings:
//! - `["read", first_page, later_page, seconds, slo_ttft_s, slo_tpot_s, shown, request]` → `["reading", alert_html,
//!   result_html, request]`; each box's page is parsed again only when its text changed.
//! - `["sample", name]` (`healthy`, `past-the-knee`, `fell-behind`) → `["sample", first_page, later_page]`.
//! - `["calibrate", max_num_seqs, max_num_batched_tokens, chunked_prefill ("on" or "off"), kv_cache_tokens,
//!   replicas, name, text, name, text, …]` (empty fields are not given) → `["calibrated", handoff, report,
//!   scenario_json, milliseconds]` (the time the fit took) or `["refused", line]`.
//!
//! A panic posts `["crashed", message]` (`goodput::components::worker::post_panics`) before the worker stops.

#[cfg(target_arch = "wasm32")]
fn main() {
    goodput::components::worker::post_panics();
    worker::listen();
}

// Native builds (cargo test, clippy) have nothing to run: the worker exists only in the browser.
#[cfg(not(target_arch = "wasm32"))]
fn main() {}

#[cfg(target_arch = "wasm32")]
mod worker {
    use std::cell::RefCell;

    use goodput::calibrate::inputs::InputFile;
    use goodput::calibrate::page::{calibrate_for_page, flags_from_fields};
    use goodput::cluster::reader_view::{outcome, parse_box, render, ParsedBox, ReaderHtml};
    use goodput::cluster::reading::typed_seconds;
    use goodput::cluster::vllm::SloTargets;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::js_sys::Array;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    /// The sample pages, simulated by the course's own model (see `tests/cluster_metrics.rs`).
    const HEALTHY: &str = include_str!("../../tests/fixtures/metrics/healthy.prom");
    const PAST_THE_KNEE: &str = include_str!("../../tests/fixtures/metrics/past-the-knee.prom");
    /// The healthy sample's server scraped again after its load rose past saturation.
    const HEALTHY_LATER: &str = include_str!("../../tests/fixtures/metrics/healthy-later.prom");

    /// Fields of a calibration message before the files.
    const FILES_FROM: u32 = 6;

    thread_local! {
        /// Each box's last text and its parse: a page is parsed once, however often the window is read again.
        static BOXES: RefCell<[(String, ParsedBox); 2]> =
            const { RefCell::new([(String::new(), None), (String::new(), None)]) };
    }

    fn post(parts: &[&str]) {
        let scope: DedicatedWorkerGlobalScope = web_sys::js_sys::global().unchecked_into();
        let message: Array = parts.iter().map(|part| JsValue::from(*part)).collect();
        let _ = scope.post_message(&message);
    }

    pub fn listen() {
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let message = Array::from(&event.data());
            let field = |index| message.get(index).as_string().unwrap_or_default();
            match field(0).as_str() {
                "read" => {
                    let texts = [field(1), field(2)];
                    let view = read(&texts, &field(3), &field(4), &field(5), &field(6));
                    post(&["reading", &view.alert, &view.result, &field(7)]);
                }
                "sample" => {
                    let (first, later) = match field(1).as_str() {
                        "healthy" => (HEALTHY, ""),
                        "past-the-knee" => (PAST_THE_KNEE, ""),
                        _ => (HEALTHY, HEALTHY_LATER),
                    };
                    post(&["sample", first, later]);
                }
                "calibrate" => {
                    let files: Vec<InputFile> = (FILES_FROM..message.length())
                        .step_by(2)
                        .map(|at| InputFile {
                            name: field(at),
                            text: field(at + 1),
                        })
                        .collect();
                    let started = web_sys::js_sys::Date::now();
                    let outcome = flags_from_fields(
                        &field(1),
                        &field(2),
                        field(3) != "off",
                        &field(4),
                        &field(5),
                    )
                    .and_then(|flags| calibrate_for_page(&files, &flags));
                    match outcome {
                        Ok(done) => {
                            let elapsed = format!("{:.0}", web_sys::js_sys::Date::now() - started);
                            post(&[
                                "calibrated",
                                &done.handoff,
                                &done.report,
                                &done.scenario_json,
                                &elapsed,
                            ]);
                        }
                        Err(error) => post(&["refused", &error]),
                    }
                }
                _ => {}
            }
        });
        let scope: DedicatedWorkerGlobalScope = web_sys::js_sys::global().unchecked_into();
        scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
    }

    /// The reader's view of the two boxes.
    fn read(texts: &[String; 2], seconds: &str, ttft: &str, tpot: &str, shown: &str) -> ReaderHtml {
        let slo = SloTargets {
            ttft_p99: ttft.parse().unwrap_or(SloTargets::COURSE.ttft_p99),
            tpot_p95: tpot.parse().unwrap_or(SloTargets::COURSE.tpot_p95),
        };
        let seconds = typed_seconds(seconds).ok().flatten();
        BOXES.with_borrow_mut(|boxes| {
            for (kept, text) in boxes.iter_mut().zip(texts) {
                if kept.0 != *text {
                    *kept = (text.clone(), parse_box(text));
                }
            }
            render(
                &outcome(&boxes[0].1, &boxes[1].1, seconds, &slo),
                &slo,
                shown.parse().unwrap_or(usize::MAX),
            )
        })
    }
}
