//! What lies over a presentation screen: the list of keys, a note for the instructor, and the blank curtain.

use leptos::html;
use leptos::prelude::*;

use super::Deck;
use crate::presentation::keys::KEY_HELP;

/// The keys, as a dialog; closes with its button, `?` or Escape.
#[component]
pub(super) fn HelpOverlay(deck: Deck) -> impl IntoView {
    let close_ref = NodeRef::<html::Button>::new();
    // Focus moves into the dialog when it opens, so Tab stays near it.
    Effect::new(move |_| {
        if deck.help.get() {
            request_animation_frame(move || {
                if let Some(button) = close_ref.get_untracked() {
                    let _ = button.focus();
                }
            });
        }
    });
    let rows = KEY_HELP
        .iter()
        .map(|(keys, what)| view! { <tr><th scope="row"><kbd>{*keys}</kbd></th><td>{*what}</td></tr> })
        .collect_view();
    view! {
        <div class="present-help" role="dialog" aria-modal="true" aria-labelledby="present-help-title" hidden=move || !deck.help.get()>
            <h2 id="present-help-title">"Presentation keys"</h2>
            <table>
                <tbody>{rows}</tbody>
            </table>
            <p>"Keys do nothing while you type in a field; a focused slider keeps its arrow keys."</p>
            <button type="button" node_ref=close_ref on:click=move |_| deck.help.set(false)>"Close"</button>
        </div>
    }
}

/// The instructor's note, if any: a clamped URL or a blocked pop-up.
#[component]
pub(super) fn PresentNote(deck: Deck) -> impl IntoView {
    move || {
        deck.note.get().map(|note| {
            view! {
                <div class="present-note" role="status">
                    <p>{note}</p>
                    <button type="button" on:click=move |_| deck.note.set(None)>"Dismiss"</button>
                </div>
            }
        })
    }
}

/// Black over the whole audience window while the screen is blanked.
#[component]
pub(super) fn BlankCurtain(deck: Deck) -> impl IntoView {
    view! {
        <div class="present-blank" hidden=move || !deck.blank.get()>
            <p class="visually-hidden" role="status">
                {move || if deck.blank.get() { "The screen is blank. Press B to bring it back." } else { "" }}
            </p>
        </div>
    }
}
