//! A recall card: answer from memory, then reveal.

use super::reveal::Reveal;
use crate::lesson::RecallCard as RecallCardData;
use leptos::prelude::*;

/// The prompt, and the answer behind a reveal button.
#[component]
pub fn RecallCard(card: &'static RecallCardData) -> impl IntoView {
    view! {
        <section class="lesson-recall" id=card.id.as_str() aria-label="Recall">
            <p class="lesson-label">"Recall"</p>
            <p class="recall-prompt" inner_html=card.prompt.as_str()></p>
            <Reveal id=format!("{}-answer", card.id) show="Show answer" hide="Hide answer">
                <p inner_html=card.answer.as_str()></p>
            </Reveal>
        </section>
    }
}
