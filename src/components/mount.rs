//! Mounting one island: reading its data back from the pre-rendered page ([`read`]), building its live component,
//! and putting it in place of the static copy without losing what the reader did to that copy. The page's boot
//! (`crate::islands`) and a presentation's screens both mount islands through here.

pub mod read;

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use leptos::tachys::view::any_view::AnyViewState;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

use crate::components::lesson::{progress_summary, PredictStep, Reveal, TaskChecklist};
use crate::components::on_demand::{points, report_unloaded, try_again_while_online, OnDemand};
use crate::components::theme::ThemeSwitcher;
use crate::lesson::island_markup::{self as markup, IslandKind};
use crate::lesson::PredictAnswer;
use read::report;

/// A mounted island, or one whose code is still on its way; dropping it unmounts the component (or, while the code
/// loads, cancels the mount: the static copy stays).
pub struct MountedIsland {
    /// Held, never read: the component lives as long as this (`None` until a widget's code has come).
    _live: Rc<RefCell<Option<leptos::mount::UnmountHandle<AnyViewState>>>>,
}

impl MountedIsland {
    /// Keeps the island live for as long as the page lives.
    pub fn forget(self) {
        std::mem::forget(self);
    }
}

/// The class of an island whose code is being fetched: it is not mounted again meanwhile.
pub const LOADING_CLASS: &str = "island-loading";

/// The kind of island `element` is, if it is one.
pub fn island_kind(element: &Element) -> Option<IslandKind> {
    element
        .get_attribute(markup::ISLAND)
        .as_deref()
        .and_then(IslandKind::from_name)
}

/// What `island` needs fetched before it can mount, if anything: a widget's code, or a chart prediction's.
pub fn on_demand(island: &Element) -> Option<OnDemand> {
    match island_kind(island)? {
        IslandKind::Widget => Some(OnDemand::Widget(read::widget(island).ok()?.name)),
        IslandKind::Predict => read::predict_step(island)
            .ok()
            .filter(|step| matches!(step.answer, PredictAnswer::ChartPrediction { .. }))
            .map(|_| OnDemand::PredictChart),
        _ => None,
    }
}

/// Replaces the island's static content with its live component, under the current reactive owner, carrying over
/// what the reader did to the static copy and keeping in place what they were looking at (see [`ReaderState`]).
/// Code the island needs on demand ([`on_demand`]) is fetched first, the first time, while its static copy stays on
/// show. `None` (the static version stays, the console says why) if the island cannot be read or is mounted already.
pub fn mount_island(island: &Element) -> Option<MountedIsland> {
    let classes = island.class_list();
    if classes.contains(markup::MOUNTED_CLASS) || classes.contains(LOADING_CLASS) {
        return None;
    }
    island_kind(island)?;
    let Some(code) = on_demand(island) else {
        let mounted = place(island, |reader| island_view(island, reader));
        return Some(MountedIsland {
            _live: Rc::new(RefCell::new(mounted)),
        });
    };
    let slot = Rc::new(RefCell::new(None));
    let pending = Rc::downgrade(&slot);
    let owner = Owner::current();
    let island = island.clone();
    let _ = island.class_list().add_1(LOADING_CLASS);
    leptos::task::spawn_local(async move {
        let loaded = code.load().await;
        let _ = island.class_list().remove_1(LOADING_CLASS);
        if let Err(error) = loaded {
            report_unloaded(&format!("{code:?}"), &error);
            say_unavailable(&island, owner);
            return;
        }
        // Left before its code came (a presentation screen the presenter moved past).
        let Some(slot) = pending.upgrade() else {
            return;
        };
        let build = || place(&island, |reader| island_view(&island, reader));
        *slot.borrow_mut() = match owner {
            Some(owner) => owner.with(build),
            None => build(),
        };
    });
    Some(MountedIsland { _live: slot })
}

/// The note an island gets when its code could not be fetched (offline before it was ever opened): the static copy
/// stays, and the page tries again once the browser is back online, under the same reactive owner. A fetch that
/// fails while the browser says it is online (the network just came back and the service worker's fetch did not see
/// it yet, or the server hiccuped) is tried again a few times, a little later each time ([`try_again_while_online`]).
fn say_unavailable(island: &Element, owner: Option<Owner>) {
    if let Ok(note) = document().create_element("p") {
        note.set_class_name(UNAVAILABLE_CLASS);
        let _ = note.set_attribute("role", "status");
        note.set_text_content(Some(
            "This part could not be loaded: the connection seems to be off. It comes to life once you are back online.",
        ));
        let _ = island.prepend_with_node_1(&note);
    }
    let first = WAITING.with_borrow_mut(|waiting| {
        let first = waiting.islands.is_none();
        waiting
            .islands
            .get_or_insert_with(Vec::new)
            .push((island.clone(), owner));
        first
    });
    if first {
        let on_online = wasm_bindgen::closure::Closure::<dyn Fn()>::new(|| {
            WAITING.with_borrow_mut(|waiting| waiting.retries = 0);
            mount_waiting();
        });
        let _ =
            window().add_event_listener_with_callback("online", on_online.as_ref().unchecked_ref());
        // Listens for as long as the page lives.
        on_online.forget();
    }
    // Failures while offline count too: the `online` event sets the count back to 0 before anything is tried again.
    let retries = WAITING.with_borrow_mut(|waiting| {
        waiting.retries += 1;
        waiting.retries
    });
    try_again_while_online(retries, mount_waiting);
}

/// The islands waiting for their code, each with its owner, and how many times in a row their fetch failed since the
/// browser last came online.
#[derive(Default)]
struct Waiting {
    islands: Option<Vec<(Element, Option<Owner>)>>,
    retries: u32,
}

thread_local! {
    static WAITING: RefCell<Waiting> = RefCell::new(Waiting::default());
}

/// Mounts the islands waiting for their code that are still in the page (not on a presentation screen left since).
fn mount_waiting() {
    let waiting = WAITING.with_borrow_mut(|waiting| waiting.islands.as_mut().map(std::mem::take));
    for (island, owner) in waiting.unwrap_or_default().into_iter() {
        if !island.is_connected() {
            continue;
        }
        if let Some(note) = island
            .query_selector(&format!(".{UNAVAILABLE_CLASS}"))
            .ok()
            .flatten()
        {
            note.remove();
        }
        let mount = || mount_island(&island).map(MountedIsland::forget);
        match owner {
            Some(owner) => owner.with(mount),
            None => mount(),
        };
    }
}

/// The class of the note an island whose code could not be fetched carries.
const UNAVAILABLE_CLASS: &str = "island-unavailable";

/// Puts the live view `view` builds in place of the island's static content.
fn place(
    island: &Element,
    view: impl FnOnce(&ReaderState) -> Option<AnyView>,
) -> Option<leptos::mount::UnmountHandle<AnyViewState>> {
    let reader = ReaderState::read(island);
    let view = view(&reader)?;
    let element = island.clone().dyn_into::<HtmlElement>().ok()?;
    element.set_inner_html("");
    let _ = element.class_list().add_1(markup::MOUNTED_CLASS);
    let mounted = leptos::mount::mount_to(element, move || view);
    reader.restore(island);
    Some(mounted)
}

/// What a reader did to an island's pre-rendered copy before the wasm brought it to life (on a slow link that is
/// seconds of reading), and where they were looking: the live copy keeps the answer they opened and the focus, and
/// nothing they see moves.
struct ReaderState {
    /// The reader opened an answer (a predict step's "Show the answer", a recall or explain card's reveal).
    answer_opened: bool,
    /// Focus was inside the island: the selector of the live element that takes it, and the focused element's top
    /// in the window, where its twin is kept.
    focus: Option<(String, f64)>,
    /// The island's edge that stays where it is in the window, when the island starts at or above the window's top:
    /// scroll anchoring would keep what the reader sees in place, but its anchor was inside the island's old content.
    kept_edge: Option<KeptEdge>,
}

/// Which of an island's edges stays put while it mounts, and where it was in the window.
#[derive(Clone, Copy)]
enum KeptEdge {
    /// The reader is at the island's start (a link to it landed there, or they read into its first part): its top
    /// stays, and what it grows by goes below.
    Top(f64),
    /// The reader scrolled past it, or followed a link below it: what comes after it stays.
    Bottom(f64),
}

impl KeptEdge {
    /// The edge nearer the window's top, for an island that starts at or above it (else none).
    fn of(rect: &web_sys::DomRect) -> Option<KeptEdge> {
        let (top, bottom) = (rect.top(), rect.bottom());
        if top > 0.0 {
            None
        } else if -top <= bottom {
            Some(KeptEdge::Top(top))
        } else {
            Some(KeptEdge::Bottom(bottom))
        }
    }

    /// How far the edge moved: what the window scrolls by to put it back.
    fn drift(self, rect: &web_sys::DomRect) -> f64 {
        match self {
            KeptEdge::Top(top) => rect.top() - top,
            KeptEdge::Bottom(bottom) => rect.bottom() - bottom,
        }
    }
}

impl ReaderState {
    fn read(island: &Element) -> ReaderState {
        let answer_opened = island
            .query_selector(&format!("details[{}][open]", markup::OPENABLE_ANSWER))
            .ok()
            .flatten()
            .is_some();
        let focus = document()
            .active_element()
            .filter(|active| island.contains(Some(active)))
            .map(|active| {
                let marked = active
                    .closest(&format!("[{}]", markup::LIVE_FOCUS))
                    .ok()
                    .flatten()
                    .and_then(|marked| marked.get_attribute(markup::LIVE_FOCUS));
                // Failing a marked twin, the element with the same id, else the island's first control.
                let twin = match (marked, active.id()) {
                    (Some(selector), _) => selector,
                    (None, id) if !id.is_empty() => format!("#{id}"),
                    _ => FOCUSABLE.to_owned(),
                };
                (twin, active.get_bounding_client_rect().top())
            });
        ReaderState {
            answer_opened,
            focus,
            kept_edge: KeptEdge::of(&island.get_bounding_client_rect()),
        }
    }

    /// Moves focus to the live twin of the element that had it, and scrolls so what the reader was looking at is
    /// where it was.
    fn restore(&self, island: &Element) {
        let drift = if let Some((selector, top)) = &self.focus {
            let twin = island
                .query_selector(selector)
                .ok()
                .flatten()
                .or_else(|| island.query_selector(FOCUSABLE).ok().flatten())
                .and_then(|twin| twin.dyn_into::<HtmlElement>().ok());
            twin.map(|twin| {
                let options = web_sys::FocusOptions::new();
                options.set_prevent_scroll(true);
                let _ = twin.focus_with_options(&options);
                twin.get_bounding_client_rect().top() - top
            })
        } else {
            self.kept_edge
                .map(|edge| edge.drift(&island.get_bounding_client_rect()))
        };
        if let Some(drift) = drift.filter(|d| d.abs() >= 0.5) {
            window().scroll_by_with_x_and_y(0.0, drift);
        }
    }
}

/// What can take focus in a live island.
const FOCUSABLE: &str =
    "button:not([disabled]), input:not([disabled]), select, textarea, summary, [tabindex]";

/// The live component of an island, built from what the page says about it and what the reader did to it (its
/// on-demand code loaded).
fn island_view(island: &Element, reader: &ReaderState) -> Option<AnyView> {
    let answer_opened = reader.answer_opened;
    Some(match island_kind(island)? {
        IslandKind::ThemeSwitcher => view! { <ThemeSwitcher/> }.into_any(),
        IslandKind::ProgressSummary => progress_summary().into_any(),
        IslandKind::Predict => {
            let step = report(read::predict_step(island))?;
            view! { <PredictStep step answer_opened/> }.into_any()
        }
        IslandKind::Reveal => {
            let text = report(read::reveal(island))?;
            view! { <Reveal text opened=answer_opened/> }.into_any()
        }
        IslandKind::Tasks => {
            let list = report(read::task_list(island))?;
            view! { <TaskChecklist list/> }.into_any()
        }
        IslandKind::Widget => {
            let widget = report(read::widget(island))?;
            (points()?.widget)(widget, widget.id.clone().unwrap_or_default())?
        }
    })
}
