//! The frame around every page: header, footer, the course home and the not-found page.

use leptos::prelude::*;

use crate::app::SiteBase;
use crate::components::theme::ThemeSwitcher;
use crate::lesson;

/// The course name, linking home.
#[component]
pub fn SiteHeader() -> impl IntoView {
    let base = expect_context::<SiteBase>();
    view! {
        <header class="site-header">
            <a class="site-name" href=base.href("/")>
                "goodput"
            </a>
            <span class="site-tagline">"Why LLM serving latency explodes near full load"</span>
            <ThemeSwitcher/>
        </header>
    }
}

/// Credits and where the numbers come from.
#[component]
pub fn SiteFooter() -> impl IntoView {
    view! {
        <footer class="site-footer">
            <p>
                "goodput is an open course. The queue model runs in your browser; nothing you do here leaves this page."
            </p>
        </footer>
    }
}

/// The course home: every lesson found in `lessons/`, in order.
#[component]
pub fn Home() -> impl IntoView {
    let base = expect_context::<SiteBase>();
    document().set_title("goodput · an interactive course on LLM serving latency");
    let lessons = lesson::catalog()
        .iter()
        .map(|lesson| {
            let meta = &lesson.meta;
            view! {
                <li class="lesson-card">
                    <a href=base.href(&format!("/lessons/{}/", meta.slug))>
                        <span class="lesson-number">{format!("Lesson {}", meta.number)}</span>
                        <span class="lesson-title">{meta.title.clone()}</span>
                    </a>
                    <p class="lesson-summary">{meta.summary.clone()}</p>
                    <p class="lesson-minutes">{format!("About {} minutes", meta.minutes)}</p>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="home" aria-labelledby="home-title">
            <h1 id="home-title">"Inference engineering: latency, throughput and SLOs"</h1>
            <p class="home-intro">
                "Interactive lessons for engineers who run LLM inference servers. Each lesson runs a real queue model in your browser: push the load, watch the tail."
            </p>
            <h2>"Lessons"</h2>
            <ul class="lesson-list">{lessons}</ul>
        </section>
    }
}

/// Shown for an unknown route or lesson slug.
#[component]
pub fn NotFound() -> impl IntoView {
    let base = expect_context::<SiteBase>();
    document().set_title("Not found · goodput");
    view! {
        <section class="not-found">
            <h1>"Page not found"</h1>
            <p>
                "There is no lesson at this address. " <a href=base.href("/")>"Go to the course home"</a>
                " to see every lesson."
            </p>
        </section>
    }
}
