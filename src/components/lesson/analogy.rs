//! The analogy callout.

use crate::lesson::Analogy as AnalogyData;
use leptos::prelude::*;

/// An analogy, set apart from the prose so the learner knows it is a picture, not the mechanism.
#[component]
pub fn Analogy(analogy: &'static AnalogyData) -> impl IntoView {
    view! {
        <aside class="lesson-analogy" aria-label=format!("Analogy: {}", analogy.title)>
            <p class="lesson-label">"Analogy · " {analogy.title.as_str()}</p>
            <div inner_html=analogy.body.as_str()></div>
        </aside>
    }
}
