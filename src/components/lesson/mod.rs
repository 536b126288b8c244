//! The lesson page: [`LessonArticle`] renders a compiled [`Lesson`], one small component per block kind.
//!
//! Prose arrives as sanitised HTML from the build-time compiler, so it is set with `inner_html`; every directive is
//! rendered from typed data. No inline styles or scripts: the page runs under a strict CSP, and the look lives in
//! `style/lesson.css`.

mod analogy;
mod check_yourself;
mod explain;
mod header;
mod keywords;
mod math_decoded;
mod predict;
mod predict_chart;
mod progress_store;
mod progress_summary;
mod recall_card;
mod reveal;
mod speaker_notes;
mod tally;
mod tasks;
mod tldr;

pub use header::LessonHeader;
pub use progress_store::{use_progress, ProgressHandle};
pub use tasks::TaskChecklist;

use super::widgets::{provide_lab_link, Widget};
use crate::app::SiteBase;
use crate::lesson::{Block, Lesson};
use leptos::prelude::*;

/// The whole lesson: header, then every block in reading order.
#[component]
pub fn LessonArticle(lesson: &'static Lesson) -> impl IntoView {
    provide_lab_link();
    progress_store::provide_progress(lesson);
    let blocks = lesson
        .blocks
        .iter()
        .enumerate()
        .map(|(index, block)| view! { <LessonBlock block index/> });
    let present_href = use_context::<SiteBase>()
        .unwrap_or(SiteBase(String::new()))
        .href(&format!("/lessons/{}/?present=1", lesson.meta.slug));
    view! {
        <article class="lesson" aria-labelledby="lesson-title">
            <p class="lesson-tools">
                <a class="present-link" href=present_href>"Present this lesson"</a>
            </p>
            <header::LessonHeader meta=&lesson.meta/>
            <progress_summary::ProgressSummary/>
            {blocks.collect_view()}
        </article>
    }
}

/// One block; `index` makes ids for blocks that carry none of their own. Presentation screens draw blocks with it too.
#[component]
pub fn LessonBlock(block: &'static Block, index: usize) -> impl IntoView {
    match block {
        Block::Html(html) => {
            view! { <div class="lesson-prose" inner_html=html.as_str()></div> }.into_any()
        }
        Block::Tldr(tldr) => view! { <tldr::Tldr tldr/> }.into_any(),
        Block::Analogy(analogy) => view! { <analogy::Analogy analogy/> }.into_any(),
        Block::Keywords(keywords) => view! { <keywords::Keywords keywords index/> }.into_any(),
        Block::MathDecoded(math) => view! { <math_decoded::MathDecoded math/> }.into_any(),
        Block::RecallCard(card) => view! { <recall_card::RecallCard card/> }.into_any(),
        Block::Predict(step) => view! { <predict::PredictStep step/> }.into_any(),
        Block::CheckYourself(check) => view! { <check_yourself::CheckYourself check/> }.into_any(),
        Block::ExplainToColleague(card) => {
            view! { <explain::ExplainToColleague card index/> }.into_any()
        }
        Block::SpeakerNotes(notes) => view! { <speaker_notes::SpeakerNotes notes/> }.into_any(),
        Block::Widget(widget) => view! { <Widget widget index/> }.into_any(),
        Block::Tasks(list) => view! { <TaskChecklist list/> }.into_any(),
    }
}
