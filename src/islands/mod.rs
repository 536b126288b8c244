//! Booting the pre-rendered page. Every page arrives as complete HTML (`goodput-pages`); this module finds its
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
use web_sys::Element;

use crate::components::lesson::provide_progress;
use crate::components::mount::on_demand;
use crate::components::mount::read::{all, predict_steps};
use crate::components::on_demand::{load_all, points, OnDemand};
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
            let asked = query.as_ref().and_then(|q| q.get("present"));
            if wants_presentation(asked.as_deref()) {
                start_presentation(article.clone(), query, owner.clone(), body.clone().into());
                return;
            }
        }
        schedule_islands(&body, owner.clone());
    });
    // The page's islands live as long as the page.
    std::mem::forget(owner);
}

fn schedule_islands(body: &Element, owner: Owner) {
    let islands = all(body, &format!("[{}]", markup::ISLAND));
    schedule::schedule_islands(islands, owner, mark_mounted);
}

/// Marks `<html data-islands="mounted">` once every island but those with code on demand is live (what the browser tests wait for,
/// `waitForApp` in tests/browser/harness.mjs).
fn mark_mounted() {
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute("data-islands", "mounted");
    }
}

/// Turns the lesson page into its presentation once its code is here, with the code of every island its screens
/// show (each widget's, the chart predictions'): a presenter moving between screens never waits for a fetch, and after
/// one rehearsal the service worker has all of it for a classroom without a network. An island whose code did not
/// come stays static on its screen and says so. Failing presentation mode's own code (offline before presenting ever
/// loaded it), the lesson stays the ordinary page.
fn start_presentation(
    article: Element,
    query: Option<web_sys::UrlSearchParams>,
    owner: Owner,
    body: Element,
) {
    let mut needed = vec![OnDemand::Presentation];
    for island in all(&article, &format!("[{}]", markup::ISLAND)) {
        if let Some(code) = on_demand(&island) {
            for code in std::iter::once(code).chain(code.parts().iter().copied()) {
                if !needed.contains(&code) {
                    needed.push(code);
                }
            }
        }
    }
    for name in needed.iter().flat_map(|code| code.workers()) {
        crate::components::worker::keep_for_offline(name);
    }
    load_all(needed, move |failed| {
        if failed.contains(&OnDemand::Presentation) {
            if let Some(root) = document().document_element() {
                let _ = root.class_list().remove_1("present-pending");
            }
            owner.with(|| schedule_islands(&body, owner.clone()));
            return;
        }
        if let Some(points) = points() {
            owner.with(|| (points.present)(article, query));
        }
        mark_mounted();
    });
}
