//! The web worker that draws the knee lab's first screen while a page opened on the lab (`#knee-lab`) waits for its
//! own wasm and the lab's module: `src/lab-start.js`, inlined in the page's head, starts it as the head is parsed on
//! such an address, `src/boot.js` asks it for the first screen and draws that, and the page's wasm is fetched once
//! the worker's has arrived ([`goodput::lab_view`] has the drawing).
//!
//! Messages are [`goodput::lab_protocol`]'s: `Draw` → `Drawn` at once from the sweep so far, then again after each
//! pass until it converges (a pass at a time, so a newer `Draw` is answered between passes); `Refused` when the
//! settings are the full lab's alone; a message it cannot read → `Unreadable`. A panic posts `["crashed", message]`.

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
    use std::cell::{Cell, RefCell};

    use goodput::components::worker;
    use goodput::lab_protocol::{FromWorker, ToWorker};
    use goodput::lab_view::EarlyLab;
    use web_sys::wasm_bindgen::prelude::*;
    use web_sys::wasm_bindgen::JsCast;

    /// The latest request: the lab it draws and how to draw it.
    struct Latest {
        lab: EarlyLab,
        request: ToWorker,
    }

    thread_local! {
        static LATEST: RefCell<Option<Latest>> = const { RefCell::new(None) };
        /// Whether a pass is waiting to run.
        static SCHEDULED: Cell<bool> = const { Cell::new(false) };
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

    fn answer(request: ToWorker) {
        let ToWorker::Draw {
            settings, query, ..
        } = &request;
        // A slider move keeps the sweep run so far; other settings start another.
        let lab = match LATEST.with_borrow_mut(Option::take) {
            Some(kept) => kept.lab.or_start(settings, query),
            None => EarlyLab::start(settings, query),
        };
        match lab {
            Ok(lab) => LATEST.set(Some(Latest { lab, request })),
            Err(reason) => return post(FromWorker::Refused(reason)),
        }
        draw_latest();
        keep_running();
    }

    /// Posts the latest request's drawing from the sweep so far (nothing before the first pass).
    fn draw_latest() {
        let drawn = LATEST.with_borrow(|latest| {
            let latest = latest.as_ref()?;
            let ToWorker::Draw {
                query,
                load_percent,
                width,
                height,
                theme,
                request,
                ..
            } = &latest.request;
            let lab = &latest.lab;
            lab.has_run().then(|| {
                lab.draw(*load_percent, query, (*width, *height), *theme, *request)
                    .unwrap_or_else(FromWorker::Refused)
            })
        });
        if let Some(drawn) = drawn {
            post(drawn);
        }
    }

    /// Runs the latest lab's next pass, unless one is waiting or it has converged, after the messages waiting now
    /// (so a slider move is answered between passes), then draws and goes on.
    fn keep_running() {
        let unconverged = LATEST.with_borrow(|l| l.as_ref().is_some_and(|l| !l.lab.converged()));
        if SCHEDULED.get() || !unconverged {
            return;
        }
        SCHEDULED.set(true);
        let next = Closure::once_into_js(|| {
            SCHEDULED.set(false);
            LATEST.with_borrow_mut(|latest| {
                if let Some(latest) = latest.as_mut() {
                    latest.lab.run_pass();
                }
            });
            draw_latest();
            keep_running();
        });
        let scope: web_sys::WorkerGlobalScope = web_sys::js_sys::global().unchecked_into();
        let _ = scope.set_timeout_with_callback(next.unchecked_ref());
    }
}
