//! A recall or explain card's answer: folded in a `<details>` on the pre-rendered page (it opens without
//! JavaScript), and a real `<button>` with `aria-expanded` once live, which presentation windows share and the
//! presentation's `R` key presses (`data-present-reveal`). The two states are two components, so the wasm links
//! only the live one.

use crate::lesson::island_markup::REVEAL_ANSWER_CLASS;
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

/// The pre-rendered reveal: the answer folded in a `<details>`. If the reader had the focus on its summary, the live
/// button takes it (`data-live-focus`); an answer opened here stays open live (`data-openable-answer`).
#[component]
pub fn FoldedReveal(text: RevealText) -> impl IntoView {
    view! {
        <details class="reveal-static" data-openable-answer="">
            <summary data-live-focus=".reveal-toggle">{text.show}</summary>
            <p class=REVEAL_ANSWER_CLASS inner_html=text.answer.0></p>
        </details>
    }
}

/// The live reveal: the button, and the answer it shows while `open`.
#[component]
pub fn LiveReveal(text: RevealText, open: RwSignal<bool>) -> impl IntoView {
    let RevealText {
        id,
        show,
        hide,
        answer,
    } = text;
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
}
