//! Mounting one island: reading its data back from the pre-rendered page ([`read`]), building its live component,
//! and putting it in place of the static copy without losing what the reader did to that copy. The page's boot
//! (`crate::islands`) and a presentation's screens both mount islands through here.

pub mod read;

use leptos::prelude::*;
use leptos::tachys::view::any_view::AnyViewState;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

use crate::components::lesson::{progress_summary, PredictStep, Reveal, TaskChecklist};
use crate::components::theme::ThemeSwitcher;
use crate::components::widgets::Widget;
use crate::lesson::island_markup::{self as markup, IslandKind};
use read::report;

/// A mounted island; dropping it unmounts the component and disposes its state.
pub type MountedIsland = leptos::mount::UnmountHandle<AnyViewState>;

/// The kind of island `element` is, if it is one.
pub fn island_kind(element: &Element) -> Option<IslandKind> {
    element
        .get_attribute(markup::ISLAND)
        .as_deref()
        .and_then(IslandKind::from_name)
}

/// Replaces the island's static content with its live component, under the current reactive owner, carrying over
/// what the reader did to the static copy and keeping in place what they were looking at (see [`ReaderState`]).
/// `None` (the static version stays, the console says why) if the island cannot be read.
pub fn mount_island(island: &Element) -> Option<MountedIsland> {
    let reader = ReaderState::read(island);
    let view = island_view(island, &reader)?;
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
    /// The island's bottom edge in the window, when the island starts above the top of the window (the reader
    /// scrolled past it, or followed a link below it): what comes after it is kept in place, as scroll anchoring
    /// would, even though the anchor was inside the island's old content.
    bottom_when_above: Option<f64>,
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
        let rect = island.get_bounding_client_rect();
        ReaderState {
            answer_opened,
            focus,
            bottom_when_above: (rect.top() < 0.0).then(|| rect.bottom()),
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
            self.bottom_when_above
                .map(|bottom| island.get_bounding_client_rect().bottom() - bottom)
        };
        if let Some(drift) = drift.filter(|d| d.abs() >= 0.5) {
            window().scroll_by_with_x_and_y(0.0, drift);
        }
    }
}

/// What can take focus in a live island.
const FOCUSABLE: &str =
    "button:not([disabled]), input:not([disabled]), select, textarea, summary, [tabindex]";

/// The live component of an island, built from what the page says about it and what the reader did to it.
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
            let id = widget.id.clone().unwrap_or_default();
            view! { <Widget widget id/> }.into_any()
        }
    })
}
