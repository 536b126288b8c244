//! The lesson header: number, title, summary, time and "today's win".

use crate::lesson::LessonMeta;
use leptos::prelude::*;

/// What the lesson is and what the learner will be able to do after it.
#[component]
pub fn LessonHeader(meta: &'static LessonMeta) -> impl IntoView {
    let objectives = meta
        .objectives
        .iter()
        .map(|objective| view! { <li inner_html=objective.as_str()></li> });
    view! {
        <header class="lesson-header">
            <p class="lesson-kicker">
                <span class="lesson-number">{format!("Lesson {}", meta.number)}</span>
                <span class="lesson-minutes">{format!("about {} min", meta.minutes)}</span>
            </p>
            <h1 id="lesson-title">{meta.title.as_str()}</h1>
            <p class="lesson-summary">{meta.summary.as_str()}</p>
            <section class="lesson-objectives" aria-label="Today's win">
                <h2 class="lesson-objectives-title">"Today's win"</h2>
                <ul>{objectives.collect_view()}</ul>
            </section>
        </header>
    }
}
