//! A button that shows and hides an answer: the one reveal used by recall and explain cards, so both behave the
//! same by mouse, touch and keyboard (a real `<button>` with `aria-expanded`).

use leptos::prelude::*;

/// The toggle and the hidden answer it controls; `id` must be unique on the page.
#[component]
pub fn Reveal(
    /// The answer element's id, for `aria-controls`.
    id: String,
    /// Button text while the answer is hidden.
    show: &'static str,
    /// Button text while the answer is shown.
    hide: &'static str,
    /// The answer.
    children: Children,
) -> impl IntoView {
    let (open, set_open) = signal(false);
    view! {
        <button
            type="button"
            class="reveal-toggle"
            aria-expanded=move || open.get().to_string()
            aria-controls=id.clone()
            on:click=move |_| set_open.update(|open| *open = !*open)
        >
            {move || if open.get() { hide } else { show }}
        </button>
        <div class="reveal-answer" id=id hidden=move || !open.get()>
            {children()}
        </div>
    }
}
