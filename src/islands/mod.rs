//! Booting the pre-rendered page. Every page arrives as complete HTML (`crate::pages`); this module finds its
//! islands (the contract is [`crate::lesson::island_markup`]) and schedules each to be mounted
//! ([`crate::components::mount`]) in place of what a reader without JavaScript sees, or turns a lesson into its
//! presentation. It is the top of the page's code: it uses the components, and nothing uses it.
//!
//! - Each island mounts in a task of its own ([`schedule`]): first those near the viewport, then the small ones
//!   (predict steps, reveals, task lists, the progress line) while the browser is idle; widgets only as they come
//!   near. So none delays the first paint or blocks input for long.
//! - `?present=1` on a lesson turns the page into its presentation, built from the article's own elements.
//!
//! All islands of a page share one reactive owner, which holds what they share: the site's base, the theme, the
//! lesson's progress and the lab's reading.

mod schedule;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

use crate::components::lesson::provide_progress;
use crate::components::mount::read::{all, predict_steps};
use crate::components::present::{screen_plan, Presentation};
use crate::components::site_base::SiteBase;
use crate::components::theme::provide_theme;
use crate::components::widgets::provide_lab_link;
use crate::lesson::island_markup as markup;
use crate::presentation::url::wants_presentation;

/// Brings the page to life; call once, when the wasm starts.
pub fn start() {
    let (Some(body), document) = (document().body(), document()) else {
        return;
    };
    // Effects and tasks need the executor before the first island mounts (which would set it up too).
    let _ = any_spawner::Executor::init_wasm_bindgen();
    let owner = Owner::new();
    owner.with(|| {
        provide_context(SiteBase::from_document());
        provide_theme();
        crate::components::ask::start();
        let article = (body.get_attribute(markup::PAGE).as_deref() == Some("lesson"))
            .then(|| document.query_selector("article.lesson").ok().flatten())
            .flatten();
        if let Some(article) = &article {
            let slug = article
                .get_attribute(markup::LESSON_SLUG)
                .unwrap_or_default();
            let steps: &'static [&'static crate::lesson::PredictStep] =
                Box::leak(predict_steps(article).into_boxed_slice());
            provide_progress(slug, steps);
            provide_lab_link();
            let query = web_sys::UrlSearchParams::new_with_str(
                &window().location().search().unwrap_or_default(),
            )
            .ok();
            let present = query.as_ref().and_then(|q| q.get("present"));
            if wants_presentation(present.as_deref()) {
                start_presentation(article, query.as_ref());
                mark_mounted();
                return;
            }
        }
        let islands = all(&body, &format!("[{}]", markup::ISLAND));
        schedule::schedule_islands(islands, owner.clone(), mark_mounted);
    });
    // The page's islands live as long as the page.
    std::mem::forget(owner);
}

/// Marks `<html data-islands="mounted">` once every island but the widgets is live (what the browser tests wait for,
/// `waitForApp` in tests/browser/harness.mjs).
fn mark_mounted() {
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute("data-islands", "mounted");
    }
}

/// Turns the lesson page into its presentation: the article leaves the document (the screens copy its elements,
/// and ids must stay unique) and the presentation takes `<main>`.
fn start_presentation(article: &Element, query: Option<&web_sys::UrlSearchParams>) {
    let screens = screen_plan(article);
    let title = article
        .query_selector("h1")
        .ok()
        .flatten()
        .and_then(|h1| h1.text_content())
        .unwrap_or_default();
    let slug = article
        .get_attribute(markup::LESSON_SLUG)
        .unwrap_or_default();
    let Some(main) = document()
        .get_element_by_id("main")
        .and_then(|main| main.dyn_into::<HtmlElement>().ok())
    else {
        return;
    };
    article.remove();
    let view = query.and_then(|q| q.get("view"));
    let screen = query.and_then(|q| q.get("screen"));
    let mounted = leptos::mount::mount_to(main, move || {
        view! { <Presentation screens title slug view screen/> }
    });
    mounted.forget();
}
