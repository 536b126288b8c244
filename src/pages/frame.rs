//! The frame around every page: the skip link, the site header (with the theme picker's island) and the footer.

use goodput::html_writer::HtmlWriter;
use goodput::lesson::island_markup::{IslandKind, ISLAND};
use goodput::theme::ThemeChoice;
use goodput::views::theme::theme_picker;
use leptos::prelude::*;

/// The header, `<main>` around what `content` writes, and the footer.
pub fn page_frame(content: impl FnOnce(&mut HtmlWriter)) -> String {
    let mut m = HtmlWriter::new();
    m.text_element(
        "a",
        &[("class", "skip-link"), ("href", "#main")],
        "Skip to the content",
    );
    header(&mut m);
    m.element("main", &[("id", "main"), ("tabindex", "-1")], content);
    m.element("footer", &[("class", "site-footer")], |m| {
        m.text_element(
            "p",
            &[],
            "goodput is an open course. The queue model runs in your browser; nothing you do here leaves this page, unless you ask your own model server.",
        );
    });
    m.finish()
}

fn header(m: &mut HtmlWriter) {
    m.element("header", &[("class", "site-header")], |m| {
        // Relative to the page's base: the site root, however deep the site is copied.
        m.text_element("a", &[("class", "site-name"), ("href", "./")], "goodput");
        m.text_element(
            "span",
            &[("class", "site-tagline")],
            "Why LLM serving latency explodes near full load",
        );
        // The picker works only with the wasm: hidden without it, inert until it mounts (`app.css`).
        m.element(
            "span",
            &[
                (ISLAND, IslandKind::ThemeSwitcher.as_str()),
                ("class", "island needs-js"),
            ],
            |m| {
                m.trusted(&theme_picker(|| ThemeChoice::System, |_| {}).to_html());
            },
        );
    });
}
