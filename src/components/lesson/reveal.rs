//! A button that shows and hides an answer: the one reveal used by recall and explain cards, so both behave the
//! same by mouse, touch and keyboard (a real `<button>` with `aria-expanded`). Whether it is open is synced between
//! presentation windows, and the button answers the presentation's `R` key (`data-present-reveal`).

use crate::components::sync::synced_signal;
use crate::presentation::sync::keys;
use leptos::prelude::*;

/// The toggle and the hidden answer it controls; `id` must be unique on the page.
#[component]
pub fn Reveal(
    /// The answer element's id, for `aria-controls`.
    id: String,
    /// Button text while the answer is hidden.
    show: String,
    /// Button text while the answer is shown.
    hide: String,
    /// The answer.
    children: Children,
    /// Start with the answer shown: the reader opened it on the pre-rendered page before this copy came to life.
    #[prop(optional)]
    opened: bool,
) -> impl IntoView {
    let open = synced_signal(keys::reveal(&id), false);
    if opened {
        open.set(true);
    }
    view! {
        <button
            type="button"
            class="reveal-toggle"
            data-present-reveal=""
            aria-expanded=move || open.get().to_string()
            aria-controls=id.clone()
            on:click=move |_| open.update(|open| *open = !*open)
        >
            {move || if open.get() { hide.clone() } else { show.clone() }}
        </button>
        <div class="reveal-answer" id=id hidden=move || !open.get()>
            {children()}
        </div>
    }
}
