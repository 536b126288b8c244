//! The live reveal of a recall or explain card: its view ([`crate::views::reveal`]) with the open state shared
//! between presentation windows.

use crate::components::sync::synced_signal;
use crate::presentation::sync::keys;
use crate::views::reveal::{LiveReveal, RevealText};
use leptos::prelude::*;

/// The reveal; `opened`: the reader opened the answer on the pre-rendered page before this copy came to life.
#[component]
pub fn Reveal(text: RevealText, #[prop(optional)] opened: bool) -> impl IntoView {
    let open = synced_signal(keys::reveal(&text.id), false);
    if opened {
        open.set(true);
    }
    view! { <LiveReveal text open/> }
}
