//! "Explain to a colleague": finish the sentence yourself, then compare.

use super::reveal::Reveal;
use crate::lesson::ExplainToColleague as ExplainData;
use leptos::prelude::*;

/// The sentence to finish and a model answer behind a reveal button; `index` keeps the answer's id unique.
#[component]
pub fn ExplainToColleague(card: &'static ExplainData, index: usize) -> impl IntoView {
    view! {
        <section class="lesson-explain" aria-label="Explain to a colleague">
            <p class="lesson-label">"Explain to a colleague"</p>
            <p class="explain-prompt" inner_html=card.prompt.as_str()></p>
            <Reveal id=format!("explain-{index}-answer") show="Compare with a model answer" hide="Hide the model answer">
                <p inner_html=card.answer.as_str()></p>
            </Reveal>
        </section>
    }
}
