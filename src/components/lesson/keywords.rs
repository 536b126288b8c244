//! "Keywords — tap to unfold the plain meaning": native `<details>`, so mouse, touch and keyboard all work.

use crate::lesson::Keywords as KeywordsData;
use leptos::prelude::*;

/// Each keyword folds open to its plain meaning.
#[component]
pub fn Keywords(keywords: &'static KeywordsData) -> impl IntoView {
    let terms = keywords.terms.iter().map(|keyword| {
        view! {
            <details class="keyword">
                <summary class="keyword-term">{keyword.term.as_str()}</summary>
                <div class="keyword-meaning" inner_html=keyword.meaning.as_str()></div>
            </details>
        }
    });
    view! {
        <section class="lesson-keywords" aria-label="Keywords">
            <p class="lesson-label">"Keywords — tap to unfold the plain meaning"</p>
            <div class="keyword-list">{terms.collect_view()}</div>
        </section>
    }
}
