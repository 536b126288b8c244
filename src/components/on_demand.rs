//! Code the page fetches when it is needed, not on every visit: each widget kind, the chart predictions and
//! presentation mode sit behind a `#[wasm_split]` point, and the build (tools/split-page.mjs) cuts what only that
//! point reaches out of the page's wasm into a module of its own, fetched by the point's `load` (once; a failed load
//! is tried again on the next call).
//!
//! The points themselves are defined in the page's binary (`src/main.rs`), not here: a split point exports a
//! symbol, and every wasm binary that links this library (the workers too) would export it and carry the code
//! behind it. The binary registers them with [`register`]; the library reaches them through [`points`]. The
//! pattern: `load().await` while the static copy stays on show, then build the component at once (the module is
//! there, so the point's call resolves at its first poll: [`ready_now`]), under the reactive owner it belongs to.

use std::cell::RefCell;
use std::future::Future;
use std::pin::{pin, Pin};
use std::rc::Rc;
use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use leptos::prelude::*;
use leptos::wasm_split::SplitLoaderError;

use crate::components::lesson::predict_chart::{ChartArgs, ChartParts};
use crate::components::widgets::YourServerArgs;
use crate::lesson::island_markup::Module;
use crate::lesson::{WidgetEmbed, WidgetName};

/// Code that the page fetches on demand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDemand {
    /// A widget's (the knee lab's and the goodput chart's are one).
    Widget(WidgetName),
    /// The knee lab's "Your server" panel (its form, and what reads the learner's files for the worker).
    YourServer,
    /// A chart prediction's chart and the model run that draws its real curve.
    PredictChart,
    /// Presentation mode.
    Presentation,
}

/// A fetch of on-demand code.
pub type Loading = Pin<Box<dyn Future<Output = Result<(), SplitLoaderError>>>>;

/// The page's split points, as its binary defines them. Each builder returns `None` if its code is not loaded.
pub struct SplitPoints {
    /// Fetches the code (once).
    pub load: fn(OnDemand) -> Loading,
    /// The widget `widget` names, with its anchor id.
    pub widget: fn(&'static WidgetEmbed, String) -> Option<AnyView>,
    /// Fills in the knee lab's "Your server" panel.
    pub your_server: fn(YourServerArgs) -> Option<()>,
    /// A chart prediction's chart and real curve.
    pub chart_parts: fn(ChartArgs) -> Option<ChartParts>,
    /// Turns the lesson page's `article` into its presentation (see `components::present::present`).
    pub present: fn(web_sys::Element, Option<web_sys::UrlSearchParams>) -> Option<()>,
}

static POINTS: OnceLock<&'static SplitPoints> = OnceLock::new();

/// Registers the page's split points; the page's binary calls it once, before the page starts.
pub fn register(points: &'static SplitPoints) {
    let _ = POINTS.set(points);
}

/// The page's split points; `None` in a binary that registered none (then nothing loads on demand).
pub fn points() -> Option<&'static SplitPoints> {
    POINTS.get().copied()
}

impl OnDemand {
    /// The module that holds this code.
    pub fn module(self) -> Module {
        match self {
            OnDemand::Widget(name) => Module::of_widget(name),
            OnDemand::YourServer => Module::YourServer,
            OnDemand::PredictChart => Module::PredictChart,
            OnDemand::Presentation => Module::Presentation,
        }
    }

    /// The web workers this code starts, as Trunk names their builds: presenting keeps them for offline use with it.
    pub fn workers(self) -> &'static [&'static str] {
        match self {
            OnDemand::Widget(WidgetName::FleetDay) => &["fleet-worker"],
            // "Your server" and the metrics reader read operators' files in it.
            OnDemand::YourServer | OnDemand::Widget(WidgetName::MetricsReader) => {
                &["server-worker"]
            }
            _ => &[],
        }
    }

    /// Code this code fetches by itself when the learner asks for a part of it: a presentation fetches it too, so
    /// that after one rehearsal the whole lesson works without a network.
    pub fn parts(self) -> &'static [OnDemand] {
        match self {
            OnDemand::Widget(WidgetName::KneeLab) => &[OnDemand::YourServer],
            _ => &[],
        }
    }

    /// Fetches the code (once); on failure, what went wrong.
    pub async fn load(self) -> Result<(), String> {
        match points() {
            Some(points) => (points.load)(self).await.map_err(|error| error.to_string()),
            None => Err("this build has no split points".to_owned()),
        }
    }
}

/// Fetches each of `codes` (all at once, each once), then calls `done` with those that did not load, once every fetch
/// has settled; what went wrong with each is said in the console.
pub fn load_all(codes: Vec<OnDemand>, done: impl FnOnce(Vec<OnDemand>) + 'static) {
    struct Settling {
        left: usize,
        failed: Vec<OnDemand>,
        done: Option<Box<dyn FnOnce(Vec<OnDemand>)>>,
    }
    let settling = Rc::new(RefCell::new(Settling {
        left: codes.len(),
        failed: Vec::new(),
        done: Some(Box::new(done)),
    }));
    let settle = |settling: &RefCell<Settling>| {
        let mut state = settling.borrow_mut();
        if state.left == 0 {
            if let Some(done) = state.done.take() {
                let failed = std::mem::take(&mut state.failed);
                drop(state);
                done(failed);
            }
        }
    };
    for code in codes {
        let settling = settling.clone();
        leptos::task::spawn_local(async move {
            let loaded = code.load().await;
            {
                let mut state = settling.borrow_mut();
                state.left -= 1;
                if let Err(error) = loaded {
                    report_unloaded(&format!("{code:?}"), &error);
                    state.failed.push(code);
                }
            }
            settle(&settling);
        });
    }
    settle(&settling);
}

/// The value of a split point's call whose module is loaded, which resolves at its first poll; `None` (and a note
/// in the console) if it is not loaded after all.
pub fn ready_now<T>(call: impl Future<Output = Result<T, SplitLoaderError>>) -> Option<T> {
    match pin!(call).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(Ok(value)) => Some(value),
        Poll::Ready(Err(error)) => {
            web_sys::console::warn_1(&format!("goodput: {error}").into());
            None
        }
        Poll::Pending => {
            web_sys::console::warn_1(&"goodput: built on-demand code before loading it".into());
            None
        }
    }
}

/// Says in the console that the code of `what` could not be fetched (offline before its first use, say): the static
/// copy stays, and the page tries again when it is next needed.
pub fn report_unloaded(what: &str, error: &str) {
    web_sys::console::warn_1(
        &format!("goodput: {what} stays static: its code did not load ({error})").into(),
    );
}

/// Code that failed to load while the browser says it is online (the network just came back and the service worker's
/// fetch did not see it yet, or the server hiccuped) is tried again a little later each time: `again` runs after 1,
/// 2, 4, 8 or 16 s for the 1st to 5th failure in a row, and after that not until the caller's `online` listener
/// starts over. Offline, nothing is tried before that event.
pub fn try_again_while_online(failures_in_a_row: u32, again: impl FnOnce() + 'static) {
    const FIRST_MS: u32 = 1_000;
    const TRIES: u32 = 5;
    if (1..=TRIES).contains(&failures_in_a_row) && window().navigator().on_line() {
        gloo_timers::callback::Timeout::new(FIRST_MS << (failures_in_a_row - 1), again).forget();
    }
}
