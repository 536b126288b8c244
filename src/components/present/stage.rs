//! One screen of the lesson, scaled to the box it sits in: the whole window for the audience, a pane for the
//! presenter. Type is sized from the box (container query units in `style/present.css`), and if a screen still does
//! not fit, [`fit_slide`] steps the type down until it does.

use leptos::html;
use leptos::prelude::*;
use leptos_use_resize_observer::use_resize_observer;

use super::Deck;
use crate::components::theme::ChartProjection;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::components::mount::read::all;
use crate::components::mount::{mount_island, MountedIsland};
use crate::components::sync::synced_signal;
use crate::lesson::island_markup::{ISLAND, SYNC_KEY};

/// How many steps, of about 8% each, the type may shrink to make a screen fit before the screen scrolls instead.
const MAX_FIT: u8 = 8;

/// The screen at `index` (none: "the end"). `current` marks the screen the `R` key reveals on.
#[component]
pub(super) fn Stage(
    deck: Deck,
    #[prop(into)] index: Signal<Option<usize>>,
    current: bool,
) -> impl IntoView {
    let stage_ref = NodeRef::<html::Section>::new();
    let slide_ref = NodeRef::<html::Div>::new();
    let content_ref = NodeRef::<html::Div>::new();
    let (stage_size, set_stage_size) = signal((0.0_f64, 0.0_f64));
    use_resize_observer(stage_ref, move |entries, _| {
        if let Some(entry) = entries.first() {
            let rect = entry.content_rect();
            set_stage_size.set((rect.width(), rect.height()));
        }
        fit_slide(slide_ref);
    });
    // A reveal, a chart or a folded keyword changed the content's height.
    use_resize_observer(content_ref, move |_, _| fit_slide(slide_ref));
    Effect::new(move |_| {
        index.track();
        request_animation_frame(move || fit_slide(slide_ref));
    });
    // Charts on the screen draw type and lines in proportion to the screen's type (17 px is the lesson page's).
    provide_context(ChartProjection(Signal::derive(move || {
        let (width, height) = stage_size.get();
        ((0.024 * width).min(0.036 * height) / 17.0).max(1.0)
    })));

    // The screen's content: copies of the article's elements, with their islands mounted and their synced
    // details joined to the sync group. Rebuilt when the screen changes; the islands of the last one go with it.
    let mounted = StoredValue::new_local(ShownScreen::default());
    Effect::new(move |_| {
        let index = index.get();
        let Some(content) = content_ref.get() else {
            return;
        };
        mounted.set_value(ShownScreen::default());
        content.set_inner_html("");
        match index {
            Some(index) => show_screen(deck, index, &content, mounted),
            None => content.set_inner_html("<p class=\"present-end\">End of the lesson</p>"),
        }
    });
    on_cleanup(move || mounted.set_value(ShownScreen::default()));

    let label = move || match index.get() {
        Some(index) => format!(
            "Screen {} of {}: {}",
            index + 1,
            deck.count,
            deck.screen_title(index).unwrap_or_default()
        ),
        None => "After the last screen".to_string(),
    };
    view! {
        <section class="present-stage" class:present-current=current node_ref=stage_ref aria-label=label>
            <div class="present-slide" node_ref=slide_ref>
                <div class="present-content lesson" node_ref=content_ref></div>
            </div>
        </section>
    }
}

/// Fills `content` with screen `index`: the section kicker, then a copy of each of its elements from the article.
fn show_screen(
    deck: Deck,
    index: usize,
    content: &web_sys::HtmlDivElement,
    mounted: StoredValue<ShownScreen, LocalStorage>,
) {
    let document = document();
    deck.screens.with_value(|screens| {
        let Some(screen) = screens.get(index) else {
            return;
        };
        if let Some(kicker) = &screen.kicker {
            if let Ok(line) = document.create_element("p") {
                line.set_class_name("present-section");
                line.set_text_content(Some(kicker));
                let _ = content.append_child(&line);
            }
        }
        for item in &screen.items {
            if let Ok(copy) = item.clone_node_with_deep(true) {
                let _ = content.append_child(&copy);
            }
        }
    });
    for island in all(content, &format!("[{ISLAND}]")) {
        if let Some(island) = mount_island(&island) {
            mounted.update_value(|shown| shown.islands.push(island));
        }
    }
    for details in all(content, &format!("details[{SYNC_KEY}]")) {
        if let Some(synced) = sync_details(&details) {
            mounted.update_value(|shown| shown.details.push(synced));
        }
    }
}

/// What the screen on show holds: its live islands and its synced details' listeners, all let go when it is left.
#[derive(Default)]
struct ShownScreen {
    islands: Vec<MountedIsland>,
    details: Vec<SyncedDetails>,
}

/// A `<details>` whose open state presentation windows share (a keyword on a screen), joined to its key: it follows
/// the key, and sets it when the reader opens or closes it. Dropping it stops listening to the element.
struct SyncedDetails {
    details: web_sys::HtmlDetailsElement,
    on_toggle: Closure<dyn Fn()>,
}

impl Drop for SyncedDetails {
    fn drop(&mut self) {
        let _ = self
            .details
            .remove_event_listener_with_callback("toggle", self.on_toggle.as_ref().unchecked_ref());
    }
}

/// Joins `details` to its sync key; `None` when it has none.
fn sync_details(details: &web_sys::Element) -> Option<SyncedDetails> {
    let (Some(key), Ok(details)) = (
        details.get_attribute(SYNC_KEY),
        details.clone().dyn_into::<web_sys::HtmlDetailsElement>(),
    ) else {
        return None;
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
    Some(SyncedDetails { details, on_toggle })
}

/// Steps the slide's type down (`data-fit`, see `style/present.css`) until its content fits, or lets it scroll.
fn fit_slide(slide_ref: NodeRef<html::Div>) {
    let Some(slide) = slide_ref.get_untracked() else {
        return;
    };
    if slide.client_height() == 0 {
        return;
    }
    let overflows = || {
        slide.scroll_height() > slide.client_height() + 1
            || slide.scroll_width() > slide.client_width() + 1
    };
    // Each step is read back at once: setting the attribute and reading the size forces a synchronous layout.
    for level in 0..=MAX_FIT {
        let _ = slide.set_attribute("data-fit", &level.to_string());
        if !overflows() {
            return;
        }
    }
    let _ = slide.set_attribute("data-fit", "scroll");
}
