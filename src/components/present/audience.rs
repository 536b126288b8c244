//! The audience window: the current screen filling the window, and a slim bar to move by mouse or touch.

use leptos::prelude::*;

use super::keyboard::open_window;
use super::overlays::{BlankCurtain, HelpOverlay, PresentNote};
use super::stage::Stage;
use super::Deck;
use crate::presentation::url::View;

/// What the projector shows.
#[component]
pub(super) fn AudienceView(deck: Deck) -> impl IntoView {
    let exit = move || deck.exit_href();
    view! {
        <div class="present present-audience">
            <Stage deck index=Signal::derive(move || Some(deck.current())) current=true/>
            <nav class="present-bar" aria-label="Presentation">
                <button type="button" on:click=move |_| deck.step(false) disabled=move || deck.current() == 0>
                    "Previous"
                </button>
                <span class="present-position">{move || format!("{} / {}", deck.current() + 1, deck.count)}</span>
                <button type="button" on:click=move |_| deck.step(true) disabled=move || deck.current() + 1 == deck.count>
                    "Next"
                </button>
                <button type="button" on:click=move |_| open_window(deck, View::Presenter)>"Presenter view"</button>
                <button type="button" on:click=move |_| deck.help.update(|open| *open = !*open)>"Keys (?)"</button>
                <a href=exit>"Exit"</a>
            </nav>
            <PresentNote deck/>
            <HelpOverlay deck/>
            <BlankCurtain deck/>
        </div>
    }
}
