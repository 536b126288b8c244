//! The presenter window: the current screen as the room sees it (and live: what is done here happens on the
//! projector), the next screen, the speaker notes for this part of the lesson, a timer, and the controls.

use leptos::prelude::*;
use leptos_use_interval_fn::use_interval_fn;
use web_sys::js_sys::Date;

use super::keyboard::{open_window, press_reveal};
use super::overlays::{HelpOverlay, PresentNote};
use super::stage::Stage;
use super::Deck;
use crate::components::theme::ThemeSwitcher;
use crate::presentation::stopwatch::{format_elapsed, Stopwatch};
use crate::presentation::url::View;

/// The instructor's window.
#[component]
pub(super) fn PresenterView(deck: Deck) -> impl IntoView {
    let next = Signal::derive(move || Some(deck.current() + 1).filter(|next| *next < deck.count));
    let next_title = move || match next.get() {
        Some(next) => format!("Next: {}", deck.screen_title(next).unwrap_or_default()),
        None => "Next: the end of the lesson".to_string(),
    };
    view! {
        <div class="present present-presenter">
            <header class="presenter-bar">
                <h1 class="presenter-title">{deck.title.get_value()}</h1>
                <p class="presenter-position" aria-live="polite">
                    {move || format!("Screen {} of {}", deck.current() + 1, deck.count)}
                </p>
                <Timer/>
                <div class="presenter-controls" role="group" aria-label="Presentation controls">
                    <button type="button" on:click=move |_| deck.step(false) disabled=move || deck.current() == 0>"Previous"</button>
                    <button type="button" on:click=move |_| deck.step(true) disabled=move || deck.current() + 1 == deck.count>"Next"</button>
                    <button type="button" on:click=move |_| press_reveal()>"Reveal (R)"</button>
                    <button type="button" aria-pressed=move || deck.blank.get().to_string()
                        on:click=move |_| deck.blank.update(|blank| *blank = !*blank)>
                        "Blank audience (B)"
                    </button>
                    <button type="button" on:click=move |_| open_window(deck, View::Audience)>"Open audience window"</button>
                    <button type="button" on:click=move |_| deck.help.update(|open| *open = !*open)>"Keys (?)"</button>
                    <ThemeSwitcher/>
                    <a href=move || deck.exit_href()>"Exit"</a>
                </div>
            </header>
            <p class="presenter-blanked" role="status">
                {move || deck.blank.get().then_some("The audience screen is blank (press B to bring it back).")}
            </p>
            <section class="presenter-current" aria-label="Current screen, as the audience sees it">
                <Stage deck index=Signal::derive(move || Some(deck.current())) current=true/>
            </section>
            <section class="presenter-next" aria-labelledby="presenter-next-title">
                <h2 id="presenter-next-title">{next_title}</h2>
                // A look ahead only: inert, so its controls take no focus or clicks.
                <div class="presenter-preview" inert="">
                    <Stage deck index=next current=false/>
                </div>
            </section>
            <section class="presenter-notes" aria-labelledby="presenter-notes-title">
                <h2 id="presenter-notes-title">"Speaker notes"</h2>
                <SpeakerNotes deck/>
            </section>
            <PresentNote deck/>
            <HelpOverlay deck/>
        </div>
    }
}

/// The notes of the current screen's section, or a line saying there are none.
#[component]
fn SpeakerNotes(deck: Deck) -> impl IntoView {
    move || {
        let notes = deck
            .screens
            .with_value(|screens| {
                screens
                    .get(deck.current())
                    .map(|screen| screen.notes.clone())
            })
            .unwrap_or_default();
        if notes.is_empty() {
            return view! { <p class="presenter-no-notes">"No notes for this part of the lesson."</p> }.into_any();
        }
        notes
            .into_iter()
            .map(|notes| view! { <div class="presenter-note" inner_html=notes.0></div> })
            .collect_view()
            .into_any()
    }
}

/// Time since the presenter window opened, pausable and resettable.
#[component]
fn Timer() -> impl IntoView {
    let watch = RwSignal::new(Stopwatch::started(Date::now()));
    let now = RwSignal::new(Date::now());
    use_interval_fn(move || now.set(Date::now()), 500);
    view! {
        <div class="presenter-timer" role="group" aria-label="Timer">
            <span class="presenter-elapsed" role="timer">
                {move || format_elapsed(watch.get().elapsed_ms(now.get()))}
            </span>
            <button type="button" on:click=move |_| watch.update(|watch| watch.toggle(Date::now()))>
                {move || if watch.get().is_running() { "Pause" } else { "Resume" }}
            </button>
            <button type="button" on:click=move |_| {
                watch.update(|watch| watch.reset(Date::now()));
                now.set(Date::now());
            }>"Reset"</button>
        </div>
    }
}
