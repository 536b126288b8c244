//! A recall or explain card's answer: folded in a `<details>` on the pre-rendered page (it opens without
//! JavaScript), and a real `<button>` with `aria-expanded` once live, which presentation windows share and the
//! presentation's `R` key presses (`data-present-reveal`).

use crate::lesson::Html;
use leptos::prelude::*;

/// What a reveal shows.
#[derive(Clone, Debug, PartialEq)]
pub struct RevealText {
    /// The answer element's id, unique on the page (the live button's `aria-controls`, the sync key).
    pub id: String,
    /// The button's text while the answer is hidden.
    pub show: String,
    /// The button's text while it is shown.
    pub hide: String,
    /// The answer.
    pub answer: Html,
}

/// The reveal; `open` is the live state, and without it (the page build) the answer is folded in a `<details>`.
#[component]
pub fn RevealView(
    text: RevealText,
    #[prop(optional)] open: Option<RwSignal<bool>>,
) -> impl IntoView {
    let RevealText {
        id,
        show,
        hide,
        answer,
    } = text;
    let Some(open) = open else {
        // The live button takes the focus if the reader had it on the summary (`data-live-focus`), and an answer
        // opened here stays open live (`data-openable-answer`).
        return view! {
            <details class="reveal-static" data-openable-answer="">
                <summary data-live-focus=".reveal-toggle">{show}</summary>
                <p class="reveal-answer-text" inner_html=answer.0></p>
            </details>
        }
        .into_any();
    };
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
            <p inner_html=answer.0></p>
        </div>
    }
    .into_any()
}
