//! "Check yourself": questions to answer from memory before moving on.

use crate::lesson::CheckYourself as CheckYourselfData;
use leptos::prelude::*;

/// A numbered list of questions.
#[component]
pub fn CheckYourself(check: &'static CheckYourselfData) -> impl IntoView {
    let questions = check
        .questions
        .iter()
        .map(|question| view! { <li inner_html=question.as_str()></li> });
    view! {
        <section class="lesson-check" aria-label="Check yourself">
            <p class="lesson-label">"Check yourself"</p>
            <ol>{questions.collect_view()}</ol>
        </section>
    }
}
