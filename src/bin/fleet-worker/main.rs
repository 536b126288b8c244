//! The web worker behind the fleet widget: it simulates the day of the reader's settings with the fleet model and
//! draws both charts as SVG with their accessible text ([`goodput::fleet_view`]), so neither the model's fleet loop
//! nor the chart drawing is in the page's wasm. The page starts it when the widget mounts (as it nears the viewport).
//!
//! Messages are [`goodput::fleet_protocol`]'s: `Start` → `Controls` (the widget's controls, so the page's wasm
//! does not hold them), `Draw` → `Drawn` then `Compared` (the same day under every policy, side by side), or
//! `Refused` when the day cannot be simulated; a message it cannot read → `Unreadable`. The last few days are kept by their settings, so
//! scrubbing and playing only redraw. A panic posts `["crashed", message]` before the worker stops.

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
    use std::rc::Rc;

    use goodput::components::worker;
    use goodput::fleet_protocol::{FleetSettings, FromWorker, Policy, ToWorker};
    use goodput::fleet_view::{comparison_html, controls_html, render, simulate_day, ChartBox};
    use goodput::model::fleet::FleetDay;

    /// Days kept: every policy of two settings of the rest, so switching policies, or back to the previous traffic,
    /// never recomputes.
    const KEPT: usize = 2 * Policy::ALL.len();

    thread_local! {
        /// The latest days, newest last, each with the milliseconds it took to simulate.
        static DAYS: RefCell<Vec<(FleetSettings, Rc<FleetDay>, u32)>> = const { RefCell::new(Vec::new()) };
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

    /// The day of `settings`, from the cache or simulated now, with the milliseconds simulating it took.
    fn day(settings: FleetSettings) -> Result<(Rc<FleetDay>, u32), String> {
        let kept = DAYS.with_borrow(|days| {
            days.iter()
                .find(|(s, _, _)| *s == settings)
                .map(|(_, day, took)| (day.clone(), *took))
        });
        if let Some(kept) = kept {
            return Ok(kept);
        }
        let started = web_sys::js_sys::Date::now();
        let day = Rc::new(simulate_day(&settings)?);
        let took = (web_sys::js_sys::Date::now() - started).round() as u32;
        DAYS.with_borrow_mut(|days| {
            if days.len() == KEPT {
                days.remove(0);
            }
            days.push((settings, day.clone(), took));
        });
        Ok((day, took))
    }

    /// The day of `settings` under every policy, side by side.
    fn compare(settings: FleetSettings) -> Result<String, String> {
        let days = Policy::ALL
            .into_iter()
            .map(|policy| Ok((policy, day(FleetSettings { policy, ..settings })?.0)))
            .collect::<Result<Vec<_>, String>>()?;
        let summaries: Vec<_> = days.iter().map(|(p, d)| (*p, &d.summary)).collect();
        Ok(comparison_html(&summaries, settings.policy))
    }

    fn answer(message: ToWorker) {
        let (settings, at, size, theme, request) = match message {
            ToWorker::Start { id } => return post(FromWorker::Controls(controls_html(&id))),
            ToWorker::Draw {
                settings,
                at,
                width,
                height,
                projection,
                theme,
                request,
            } => {
                let size = ChartBox {
                    width,
                    height,
                    projection,
                };
                (settings, at, size, theme, request)
            }
        };
        let drawn = day(settings).and_then(|(day, milliseconds)| {
            let (charts_html, summary) = render(&day, at, theme, size, milliseconds)?;
            Ok(FromWorker::Drawn {
                charts_html,
                summary,
                request,
            })
        });
        let Ok(drawn) = drawn else {
            return post(drawn.unwrap_or_else(FromWorker::Refused));
        };
        // The charts first: every other policy's day takes seconds to simulate the first time.
        post(drawn);
        post(
            compare(settings)
                .map(|compared| FromWorker::Compared { compared, request })
                .unwrap_or_else(FromWorker::Refused),
        );
    }
}
