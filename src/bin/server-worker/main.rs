//! The web worker for what a learner brings from their own server, off the page's first load and off its main
//! thread: the metrics reader's reading of `/metrics` pages ([`goodput::cluster::reader_view`], the reading
//! `goodput-sim metrics` prints) and the knee lab's "Your server" calibration ([`goodput_calibrate::page`], the
//! fit `goodput-sim calibrate` makes).
//!
//! The page starts it from a `blob:` URL (`goodput::components::worker`) the first time either is used. The messages
//! are [`goodput::server_protocol`]'s, written and read there: `Read` → `Reading` (each box's page is parsed again
//! only when its text changed), `Sample` → `Sample`, `Calibrate` → `Calibrated` (with the time the fit took) or
//! `Refused`, then `Banded` (the same server with the fit's uncertainty band, worked out once the lab already runs
//! it); a message this worker cannot read → `Unreadable`, saying why.
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

    use goodput::cluster::reader_view::{outcome, parse_box, render, ParsedBox, ReaderHtml};
    use goodput::cluster::vllm::SloTargets;
    use goodput::components::worker;
    use goodput::server_protocol::{FlagFields, FromWorker, Sample, ToWorker};
    use goodput_calibrate::inputs::InputFile;
    use goodput_calibrate::page::{
        banded_for_page, calibrate_for_page, flags_from_fields, with_hardware,
    };

    /// The sample pages, simulated by the course's own model (see `tests/cluster_metrics.rs`).
    const HEALTHY: &str = include_str!("../../../tests/fixtures/metrics/healthy.prom");
    const PAST_THE_KNEE: &str = include_str!("../../../tests/fixtures/metrics/past-the-knee.prom");
    /// The healthy sample's server scraped again after its load rose past saturation.
    const HEALTHY_LATER: &str = include_str!("../../../tests/fixtures/metrics/healthy-later.prom");

    thread_local! {
        /// Each box's last text and its parse: a page is parsed once, however often the window is read again.
        static BOXES: RefCell<[(String, ParsedBox); 2]> =
            const { RefCell::new([(String::new(), None), (String::new(), None)]) };
    }

    fn post(message: FromWorker) {
        worker::post_parts(message.encode());
    }

    pub fn listen() {
        worker::listen_for_parts(|parts| match ToWorker::decode(&parts) {
            Ok(message) => answer(message),
            Err(error) => post(FromWorker::Unreadable(error.to_string())),
        });
    }

    fn answer(message: ToWorker) {
        match message {
            ToWorker::Read {
                first,
                later,
                seconds,
                slo,
                shown,
                request,
            } => {
                let view = read(&[first, later], seconds, &slo, shown);
                post(FromWorker::Reading {
                    alert_html: view.alert,
                    result_html: view.result,
                    request,
                })
            }
            ToWorker::Sample(sample) => {
                let (first, later) = match sample {
                    Sample::Healthy => (HEALTHY, ""),
                    Sample::PastTheKnee => (PAST_THE_KNEE, ""),
                    Sample::FellBehind => (HEALTHY, HEALTHY_LATER),
                };
                post(FromWorker::Sample {
                    first: first.to_owned(),
                    later: later.to_owned(),
                })
            }
            ToWorker::Calibrate { flags, files } => calibrate(&flags, &files),
        }
    }

    /// Posts the calibration at once, so the lab runs the server, then works out how sure it is (some hundred
    /// simulated benchmarks) and posts the server again with its band.
    fn calibrate(flags: &FlagFields, files: &[InputFile]) {
        let started = web_sys::js_sys::Date::now();
        let outcome = flags_from_fields(flags)
            .and_then(|given| with_hardware(given, flags, files))
            .and_then(|flags| calibrate_for_page(files, &flags));
        let done = match outcome {
            Ok(done) => done,
            Err(error) => return post(FromWorker::Refused(error)),
        };
        post(FromWorker::Calibrated {
            handoff: done.handoff,
            report: done.report,
            scenario_json: done.scenario_json,
            milliseconds: (web_sys::js_sys::Date::now() - started).round() as u32,
        });
        if let Some(banded) = done.fit.and_then(banded_for_page) {
            post(FromWorker::Banded {
                handoff: banded.handoff,
                report: banded.report,
            });
        }
    }

    /// The reader's view of the two boxes.
    fn read(
        texts: &[String; 2],
        seconds: Option<f64>,
        slo: &SloTargets,
        shown: usize,
    ) -> ReaderHtml {
        BOXES.with_borrow_mut(|boxes| {
            for (kept, text) in boxes.iter_mut().zip(texts) {
                if kept.0 != *text {
                    *kept = (text.clone(), parse_box(text));
                }
            }
            render(&outcome(&boxes[0].1, &boxes[1].1, seconds, slo), slo, shown)
        })
    }
}
