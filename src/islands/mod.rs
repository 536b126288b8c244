//! Bringing the pre-rendered page to life. Every page arrives as complete HTML (`crate::pages`); this module finds
//! its islands (the contract is [`crate::lesson::island_markup`]), reads their data back from the page, and mounts
//! the live component into each, in place of what a reader without JavaScript sees.
//!
//! - Each island mounts in a task of its own ([`schedule`]): first those near the viewport, then the small ones
//!   (predict steps, reveals, task lists, the progress line) while the browser is idle; widgets only as they come
//!   near. So none delays the first paint or blocks input for long.
//! - `?present=1` on a lesson turns the page into its presentation, built from the article's own elements.
//!
//! All islands of a page share one reactive owner, which holds what they share: the site's base, the theme, the
//! lesson's progress and the lab's reading.

mod read;
mod schedule;

pub use read::{all, screen_plan, PlannedScreen};

use leptos::prelude::*;
use leptos::tachys::view::any_view::AnyViewState;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

use crate::components::lesson::{
    provide_progress, PredictStep, ProgressSummary, Reveal, TaskChecklist,
};
use crate::components::present::Presentation;
use crate::components::site_base::SiteBase;
use crate::components::sync::synced_signal;
use crate::components::theme::{provide_theme, ThemeSwitcher};
use crate::components::widgets::{provide_lab_link, Widget};
use crate::lesson::island_markup::{self as markup, IslandKind};
use crate::presentation::url::wants_presentation;

/// A mounted island; dropping it unmounts the component and disposes its state.
pub type MountedIsland = leptos::mount::UnmountHandle<AnyViewState>;

/// Brings the page to life; call once, when the wasm starts.
pub fn start() {
    let (Some(body), document) = (document().body(), document()) else {
        return;
    };
    // Effects and tasks need the executor before the first island mounts (which would set it up too).
    let _ = any_spawner::Executor::init_wasm_bindgen();
    let owner = Owner::new();
    owner.with(|| {
        provide_context(SiteBase::from_document());
        provide_theme();
        crate::components::ask::start();
        let article = (body.get_attribute(markup::PAGE).as_deref() == Some("lesson"))
            .then(|| document.query_selector("article.lesson").ok().flatten())
            .flatten();
        if let Some(article) = &article {
            let slug = article
                .get_attribute(markup::LESSON_SLUG)
                .unwrap_or_default();
            let steps: &'static [&'static crate::lesson::PredictStep] =
                Box::leak(read::predict_steps(article).into_boxed_slice());
            provide_progress(slug, steps);
            provide_lab_link();
            let query = web_sys::UrlSearchParams::new_with_str(
                &window().location().search().unwrap_or_default(),
            )
            .ok();
            let present = query.as_ref().and_then(|q| q.get("present"));
            if wants_presentation(present.as_deref()) {
                start_presentation(article, query.as_ref());
                mark_mounted();
                return;
            }
        }
        let islands = all(&body, &format!("[{}]", markup::ISLAND));
        schedule::schedule_islands(islands, owner.clone(), mark_mounted);
    });
    // The page's islands live as long as the page.
    std::mem::forget(owner);
}

/// Marks `<html data-islands="mounted">` once every island but the widgets is live (what the browser tests wait for,
/// `waitForApp` in tests/browser/harness.mjs).
fn mark_mounted() {
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute("data-islands", "mounted");
    }
}

fn island_kind(element: &Element) -> Option<IslandKind> {
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
        IslandKind::ProgressSummary => view! { <ProgressSummary/> }.into_any(),
        IslandKind::Predict => {
            let step = read::report(read::predict_step(island))?;
            view! { <PredictStep step answer_opened/> }.into_any()
        }
        IslandKind::Reveal => {
            let read::RevealData {
                id,
                show,
                hide,
                answer,
            } = read::report(read::reveal(island))?;
            view! { <Reveal id show hide opened=answer_opened><p inner_html=answer.0></p></Reveal> }
                .into_any()
        }
        IslandKind::Tasks => {
            let list = read::report(read::task_list(island))?;
            view! { <TaskChecklist list/> }.into_any()
        }
        IslandKind::Widget => {
            let widget = read::report(read::widget(island))?;
            let id = widget.id.clone().unwrap_or_default();
            view! { <Widget widget id/> }.into_any()
        }
    })
}

/// A `<details>` whose open state presentation windows share (a keyword on a screen): follows its key, and sets it
/// when the reader opens or closes it.
pub fn sync_details(details: &Element) {
    let (Some(key), Ok(details)) = (
        details.get_attribute(markup::SYNC_KEY),
        details.clone().dyn_into::<web_sys::HtmlDetailsElement>(),
    ) else {
        return;
    };
    let open = synced_signal(key, details.open());
    let shown = details.clone();
    Effect::new(move |_| {
        let wanted = open.get();
        if shown.open() != wanted {
            shown.set_open(wanted);
        }
    });
    let toggled = details.clone();
    let on_toggle = Closure::<dyn Fn()>::new(move || {
        // `try_`: the screen holding this copy may have been left (its state disposed) since.
        if open
            .try_get_untracked()
            .is_some_and(|open| open != toggled.open())
        {
            open.try_set(toggled.open());
        }
    });
    let _ = details.add_event_listener_with_callback("toggle", on_toggle.as_ref().unchecked_ref());
    // Lives as long as this copy of the details, which the screen drops when it is left.
    on_toggle.forget();
}

/// Turns the lesson page into its presentation: the article leaves the document (the screens copy its elements,
/// and ids must stay unique) and the presentation takes `<main>`.
fn start_presentation(article: &Element, query: Option<&web_sys::UrlSearchParams>) {
    let screens = screen_plan(article);
    let title = article
        .query_selector("h1")
        .ok()
        .flatten()
        .and_then(|h1| h1.text_content())
        .unwrap_or_default();
    let slug = article
        .get_attribute(markup::LESSON_SLUG)
        .unwrap_or_default();
    let Some(main) = document()
        .get_element_by_id("main")
        .and_then(|main| main.dyn_into::<HtmlElement>().ok())
    else {
        return;
    };
    article.remove();
    let view = query.and_then(|q| q.get("view"));
    let screen = query.and_then(|q| q.get("screen"));
    let mounted = leptos::mount::mount_to(main, move || {
        view! { <Presentation screens title slug view screen/> }
    });
    mounted.forget();
}
