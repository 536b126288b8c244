//! Presentation mode (`?present=1` on a lesson URL): the lesson one screen at a time, for a projector.
//!
//! Two kinds of window show a presentation: the audience view (the projected screen) and the presenter view
//! (`&view=presenter`: current and next screen, speaker notes, a timer). Every presentation window of a lesson joins
//! the lesson's [`SyncGroup`], so the screen, the blanking and every [`synced_signal`] on the screens stay equal in
//! all of them. The screen list, the keys, the URL format and the sync protocol are pure code in
//! [`crate::presentation`]; this module only wires them to the page.
//!
//! What a widget or lesson block does to work on a screen:
//! - **State the room sees** (slider positions, switches, guesses, reveals, tallies) lives in
//!   [`synced_signal`]`(key, initial)`, with a key that is the same in every window and unique on the page, e.g.
//!   `keys::widget(&id, "settings")` (all made by [`crate::presentation::sync::keys`]). Keys starting with `present/`
//!   belong to the presentation itself.
//! - **Reveal buttons** carry the attribute `data-present-reveal`; `R` presses the first one on the current screen
//!   that is shown and not used yet (used: `disabled`, or `aria-expanded="true"`).
//! - **Charts** take `theme=use_chart_theme()` (`components::theme`); `ChartCanvas` reads the screen's projection
//!   factor by itself.
//! - **Size**: a screen is a CSS size container whose type follows the screen, so size in `em` (or `cqh`/`cqw`),
//!   never in fixed pixels. A chart canvas on a screen is 42% of the screen's height (`style/present.css`). A
//!   screen that still overflows has its type stepped down until it fits.

mod audience;
pub(crate) mod keyboard;
mod overlays;
mod plan;
mod presenter;
mod stage;

pub use plan::{screen_plan, PlannedScreen};

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::address::rewrite_query;
use super::site_base::use_site_base;
use super::sync::{synced_signal, SyncGroup};
use crate::presentation::sync::keys;
use crate::presentation::url::{merge_place, parse_place, View};

/// What every part of a presentation window shares.
#[derive(Clone, Copy)]
struct Deck {
    /// The lesson's title.
    title: StoredValue<String>,
    /// The screens, read from the lesson's article (see `goodput-pages`, which marks them at build time).
    screens: StoredValue<Vec<PlannedScreen>, LocalStorage>,
    count: usize,
    view: View,
    /// The lesson's ordinary page, e.g. `/course/lessons/latency-throughput-slos/`.
    lesson_page: StoredValue<String>,
    /// The screen shown, counted from 0; synced with the other windows.
    screen: RwSignal<usize>,
    /// Whether the audience screen is blanked; synced.
    blank: RwSignal<bool>,
    /// Whether this window shows the list of keys.
    help: RwSignal<bool>,
    /// A message for the instructor (a clamped URL, a blocked pop-up), until dismissed or the next move.
    note: RwSignal<Option<String>>,
}

impl Deck {
    /// The screen shown, clamped to the lesson (a value from another window is never trusted blindly).
    fn current(&self) -> usize {
        self.screen.get().min(self.count - 1)
    }

    fn go(&self, to: usize) {
        self.note.set(None);
        self.screen.set(to.min(self.count - 1));
    }

    fn step(&self, forward: bool) {
        let current = self.screen.get_untracked().min(self.count - 1);
        self.go(if forward {
            current + 1
        } else {
            current.saturating_sub(1)
        });
    }

    fn screen_title(&self, index: usize) -> Option<String> {
        self.screens
            .with_value(|screens| screens.get(index).map(|screen| screen.title.clone()))
    }

    /// The lesson page at the current screen's section, for "Exit" (tracks the screen).
    fn exit_href(&self) -> String {
        let current = self.current();
        let anchor = self.screens.with_value(|screens| {
            screens
                .get(current)
                .and_then(|screen| screen.anchor.clone())
        });
        let page = self.lesson_page.get_value();
        match anchor {
            Some(anchor) => format!("{page}#{anchor}"),
            None => page,
        }
    }

    /// The current screen, counted from 0.
    fn place(&self) -> usize {
        self.screen.get_untracked().min(self.count - 1)
    }

    /// This lesson's presentation in `view` at the current screen, as a URL path with query: the lab settings in
    /// this window's address go along.
    fn window_url(&self, view: View) -> String {
        let location = window().location();
        let path = location.pathname().unwrap_or_default();
        let query = merge_place(&location.search().unwrap_or_default(), view, self.place());
        format!("{path}?{query}")
    }
}

/// Turns the lesson page into its presentation, behind the page's `presentation` split point
/// (`crate::components::on_demand`): the article leaves the document (the screens copy its elements, and ids must
/// stay unique) and the presentation takes `<main>`, under the current reactive owner.
pub fn present(article: web_sys::Element, query: Option<web_sys::UrlSearchParams>) {
    let screens = screen_plan(&article);
    let title = article
        .query_selector("h1")
        .ok()
        .flatten()
        .and_then(|h1| h1.text_content())
        .unwrap_or_default();
    let slug = article
        .get_attribute(crate::lesson::island_markup::LESSON_SLUG)
        .unwrap_or_default();
    let Some(main) = document()
        .get_element_by_id("main")
        .and_then(|main| main.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return;
    };
    article.remove();
    let view = query.as_ref().and_then(|q| q.get("view"));
    let screen = query.as_ref().and_then(|q| q.get("screen"));
    let mounted = leptos::mount::mount_to(main, move || {
        view! { <Presentation screens title slug view screen/> }
    });
    mounted.forget();
}

/// A lesson in presentation mode: its `screens`, `title` and `slug`; `view` and `screen` are the URL's raw values.
#[component]
pub fn Presentation(
    screens: Vec<PlannedScreen>,
    title: String,
    slug: String,
    view: Option<String>,
    screen: Option<String>,
) -> impl IntoView {
    let count = screens.len().max(1);
    let place = parse_place(view.as_deref(), screen.as_deref(), count);
    let lesson_page = use_site_base().href(&format!("/lessons/{slug}/"));
    SyncGroup::provide(&format!("goodput-present:{lesson_page}"));
    let deck = Deck {
        title: StoredValue::new(title),
        screens: StoredValue::new_local(screens),
        count,
        view: place.view,
        lesson_page: StoredValue::new(lesson_page),
        screen: synced_signal(keys::SCREEN, place.screen),
        blank: synced_signal(keys::BLANK, false),
        help: RwSignal::new(false),
        note: RwSignal::new(place.note),
    };
    mark_document_presenting();
    keyboard::listen(deck);

    // The place in the URL, so a reload comes back to the same screen; the lab's settings there stay.
    Effect::new(move |_| {
        let current = deck.current();
        rewrite_query(|query| merge_place(query, deck.view, current));
        let role = match deck.view {
            View::Audience => "",
            View::Presenter => "Presenter · ",
        };
        document().set_title(&format!(
            "{role}{}/{} {} · {}",
            current + 1,
            deck.count,
            deck.screen_title(current).unwrap_or_default(),
            deck.title.get_value()
        ));
    });

    match deck.view {
        View::Audience => view! { <audience::AudienceView deck/> }.into_any(),
        View::Presenter => view! { <presenter::PresenterView deck/> }.into_any(),
    }
}

/// Hides the site's header and footer and stops the page scrolling while a presentation is shown.
fn mark_document_presenting() {
    if let Some(root) = document().document_element() {
        let _ = root.class_list().add_1("presenting");
        // Set before the first paint by src/boot.js to hide the article until now.
        let _ = root.class_list().remove_1("present-pending");
    }
    on_cleanup(|| {
        if let Some(root) = document().document_element() {
            let _ = root.class_list().remove_1("presenting");
        }
    });
}
