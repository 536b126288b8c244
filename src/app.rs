//! The page: a router over the course home and one route per lesson.
//!
//! The site is static and may be copied under any sub-path, so the router's base is read at run
//! time from the document's base URL (see `tools/route-pages.sh`, which writes a `<base>` into the
//! copy of `index.html` it makes for every deep link).

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::hooks::{use_params_map, use_query_map};
use leptos_router::path;

use crate::components::lesson::LessonArticle;
use crate::components::present::Presentation;
use crate::components::site::{Home, NotFound, SiteFooter, SiteHeader};
use crate::components::theme::provide_theme;
use crate::lesson;
use crate::presentation::url::wants_presentation;

/// Where the site lives, as a path without a trailing slash: `""` at a host's root, `"/course"`
/// under a sub-path. Shared with links through context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteBase(pub String);

impl SiteBase {
    /// An absolute href for a site path such as `"/lessons/x/"`.
    pub fn href(&self, site_path: &str) -> String {
        format!("{}{}", self.0, site_path)
    }
}

/// The site's base path, from `document.baseURI`: the folder of the page, or what a `<base>` says.
pub(crate) fn site_base_from_document() -> SiteBase {
    let base_uri = document().base_uri().ok().flatten().unwrap_or_default();
    let pathname = web_sys::Url::new(&base_uri)
        .map(|url| url.pathname())
        .unwrap_or_default();
    let folder = &pathname[..pathname.rfind('/').unwrap_or(0)];
    SiteBase(folder.to_string())
}

/// The root component mounted on the page body.
#[component]
pub fn App() -> impl IntoView {
    let base = site_base_from_document();
    provide_context(base.clone());
    provide_theme();
    view! {
        <Router base=base.0>
            <a class="skip-link" href="#main">"Skip to the content"</a>
            <SiteHeader />
            <main id="main" tabindex="-1">
                <Routes fallback=|| view! { <NotFound /> }>
                    <Route path=path!("/") view=Home />
                    <Route path=path!("/lessons/:slug/") view=LessonRoute />
                </Routes>
            </main>
            <SiteFooter />
        </Router>
    }
}

/// `/lessons/:slug/`: the lesson with that slug (presented, with `?present=1`), or the not-found page.
#[component]
fn LessonRoute() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    move || {
        let slug = params.read().get("slug").unwrap_or_default();
        let query = query.read();
        match lesson::catalog().iter().find(|l| l.meta.slug == slug) {
            Some(found) if wants_presentation(query.get("present").as_deref()) => view! {
                <Presentation lesson=found view=query.get("view") screen=query.get("screen")/>
            }
            .into_any(),
            Some(found) => {
                document().set_title(&format!("{} · goodput", found.meta.title));
                // The browser looked for `#section` before the lesson existed; look again once it is drawn.
                Effect::new(|_| scroll_to_location_hash());
                view! { <LessonArticle lesson=found /> }.into_any()
            }
            None => view! { <NotFound /> }.into_any(),
        }
    }
}

/// Scroll the element named by the URL's `#fragment` into view, if there is one.
fn scroll_to_location_hash() {
    let hash = window().location().hash().unwrap_or_default();
    let Some(id) = hash.strip_prefix('#').filter(|id| !id.is_empty()) else {
        return;
    };
    if let Some(target) = document().get_element_by_id(id) {
        target.scroll_into_view();
    }
}
