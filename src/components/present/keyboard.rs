//! The keys of presentation mode, wired to the page: what has focus, what the key means
//! ([`crate::presentation::keys`]), and doing it.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::Deck;
use crate::components::theme::use_theme;
use crate::presentation::keys::{action_for, focus_kind, FocusKind, KeyAction, KeyPress};
use crate::presentation::url::View;

/// Listens for the presentation keys on the window while the presentation is shown.
pub(super) fn listen(deck: Deck) {
    let theme = use_theme();
    let handle = window_event_listener(leptos::ev::keydown, move |event| {
        let Some(action) = key_action_of(&event) else {
            return;
        };
        event.prevent_default();
        match action {
            KeyAction::Next => deck.step(true),
            KeyAction::Previous => deck.step(false),
            KeyAction::First => deck.go(0),
            KeyAction::Last => deck.go(deck.count - 1),
            KeyAction::Reveal => press_reveal(),
            KeyAction::Fullscreen => toggle_fullscreen(),
            KeyAction::Blank => deck.blank.update(|blank| *blank = !*blank),
            KeyAction::Contrast => theme.toggle_contrast(),
            KeyAction::Help => deck.help.update(|open| *open = !*open),
            KeyAction::OpenOtherWindow => open_window(
                deck,
                match deck.view {
                    View::Audience => View::Presenter,
                    View::Presenter => View::Audience,
                },
            ),
            KeyAction::Close => close_something(deck),
            // The Ask box's own listener takes it, on the lesson page as in a presentation.
            KeyAction::Ask => {}
        }
    });
    on_cleanup(move || handle.remove());
}

/// What kind of element the key went to.
/// The presentation's action for a key press, where the element it was pressed in leaves the key to the page (the
/// lesson page's own listeners, such as the Ask box's, use it too, so a key means one thing everywhere).
pub(crate) fn key_action_of(event: &web_sys::KeyboardEvent) -> Option<KeyAction> {
    let (key, code) = (event.key(), event.code());
    let press = KeyPress {
        key: &key,
        code: &code,
        shift: event.shift_key(),
        ctrl: event.ctrl_key(),
        alt: event.alt_key(),
        meta: event.meta_key(),
    };
    action_for(press, focused_kind(event.target()))
}

fn focused_kind(target: Option<web_sys::EventTarget>) -> FocusKind {
    let Some(element) = target.and_then(|target| target.dyn_into::<web_sys::Element>().ok()) else {
        return FocusKind::Page;
    };
    let editable = element
        .dyn_ref::<web_sys::HtmlElement>()
        .is_some_and(|element| element.is_content_editable());
    focus_kind(
        &element.tag_name(),
        element.get_attribute("type").as_deref(),
        editable,
    )
}

/// Presses the first Reveal button on the current screen that has not been used yet. A widget marks its reveal
/// button with `data-present-reveal`; a used one is disabled or has `aria-expanded="true"`.
pub(super) fn press_reveal() {
    let Ok(buttons) = document().query_selector_all(".present-current [data-present-reveal]")
    else {
        return;
    };
    for index in 0..buttons.length() {
        let Some(button) = buttons
            .item(index)
            .and_then(|node| node.dyn_into::<web_sys::HtmlElement>().ok())
        else {
            continue;
        };
        let used = button.has_attribute("disabled")
            || button.get_attribute("aria-expanded").as_deref() == Some("true");
        let shown = button.offset_parent().is_some();
        if !used && shown {
            button.click();
            return;
        }
    }
}

fn toggle_fullscreen() {
    let document = document();
    if document.fullscreen_element().is_some() {
        document.exit_fullscreen();
    } else if let Some(root) = document.document_element() {
        // Refused without a user gesture or in a frame; nothing to undo then.
        let _ = root.request_fullscreen();
    }
}

/// Escape: the help first, then the blanking, then full screen.
fn close_something(deck: Deck) {
    if deck.help.get_untracked() {
        deck.help.set(false);
    } else if deck.blank.get_untracked() {
        deck.blank.set(false);
    } else if document().fullscreen_element().is_some() {
        document().exit_fullscreen();
    }
}

/// Opens (or brings back) the other presentation window at the current screen.
pub(super) fn open_window(deck: Deck, view: View) {
    let url = deck.window_url(view);
    let name = format!("goodput-{}", view.as_str());
    match window().open_with_url_and_target_and_features(&url, &name, "popup,width=1280,height=800") {
        Ok(Some(_)) => {}
        _ => deck.note.set(Some(format!(
            "The browser did not open the {} window. Allow pop-ups for this site, or open {url} in a new window.",
            view.as_str()
        ))),
    }
}
