//! "Keywords — tap to unfold the plain meaning": native `<details>`, so mouse, touch and keyboard all work. Which
//! terms are unfolded is synced between presentation windows, so a term the instructor opens opens on the projector.

use crate::components::sync::synced_signal;
use crate::lesson::{Keyword, Keywords as KeywordsData};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Each keyword folds open to its plain meaning; `index` (the block's position) keeps the synced keys unique.
#[component]
pub fn Keywords(keywords: &'static KeywordsData, index: usize) -> impl IntoView {
    let terms = keywords.terms.iter().map(
        |keyword| view! { <KeywordTerm keyword key=format!("keyword/{index}/{}", keyword.term)/> },
    );
    view! {
        <section class="lesson-keywords" aria-label="Keywords">
            <p class="lesson-label">"Keywords — tap to unfold the plain meaning"</p>
            <div class="keyword-list">{terms.collect_view()}</div>
        </section>
    }
}

/// One term; `key` names its open state for the sync group.
#[component]
fn KeywordTerm(keyword: &'static Keyword, key: String) -> impl IntoView {
    let open = synced_signal(key, false);
    let on_toggle = move |event: leptos::ev::Event| {
        let now_open = event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::HtmlDetailsElement>().ok())
            .is_some_and(|details| details.open());
        if open.get_untracked() != now_open {
            open.set(now_open);
        }
    };
    view! {
        <details class="keyword" prop:open=move || open.get() on:toggle=on_toggle>
            <summary class="keyword-term">{keyword.term.as_str()}</summary>
            <div class="keyword-meaning" inner_html=keyword.meaning.as_str()></div>
        </details>
    }
}
