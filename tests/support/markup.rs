//! Reading rendered HTML in tests by plain scans: the islands' views as Leptos writes them (its own attribute
//! order, `class` last) and the pages the build writes from them.

use goodput_pages::{build_site, Page, Site};
use std::sync::OnceLock;

/// The course's pages, built once for every test of a file.
pub fn site() -> &'static Site {
    static SITE: OnceLock<Site> = OnceLock::new();
    SITE.get_or_init(|| build_site(goodput::lesson::catalog()).expect("the course's pages build"))
}

/// The lesson's page as the build writes it.
pub fn lesson_page() -> &'static Page {
    site()
        .pages
        .iter()
        .find(|page| page.path == "lessons/latency-throughput-slos/index.html")
        .expect("the lesson page")
}

/// The opening tag that holds `needle` (an attribute).
pub fn tag<'a>(html: &'a str, needle: &str) -> &'a str {
    let at = html
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle} in {html}"));
    let start = html[..at].rfind('<').expect("inside a tag");
    let end = at + html[at..].find('>').expect("the tag ends");
    &html[start..=end]
}

/// Whether `tag` has the attribute `name="value"`.
pub fn has(tag: &str, name: &str, value: &str) -> bool {
    tag.contains(&format!(" {name}=\"{value}\""))
}
