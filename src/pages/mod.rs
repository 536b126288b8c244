//! The static site: every page written as complete HTML at build time, so a lesson reads the moment its HTML
//! arrives — on any device, with JavaScript off, or before the wasm has loaded — and the wasm only brings the
//! interactive parts to life (`goodput::islands`, by the contract in [`goodput::lesson::island_markup`]).
//!
//! `goodput-pages SITE_DIR` (run by Trunk's post-build hook, `tools/post-build.sh`) takes the `index.html` Trunk
//! wrote as the template for every page (its head: stylesheets, the wasm loader, the security policy) and writes
//! - `index.html`: the course home, with the catalog;
//! - `lessons/<slug>/index.html`: each lesson's whole article, with `<base href="../../">` so the page's relative
//!   URLs resolve at the site root however deep the site is copied;
//! - `404.html`: for hosts that serve it for a missing path (a mistyped lesson address);
//! - `pictures/…svg`: the no-JavaScript pictures of the widgets, drawn by the same model and chart code the page runs.

// The pages are written natively at build time: a wasm32 build of the workspace finds nothing here.
#![cfg(not(target_arch = "wasm32"))]

mod ask;
mod blocks;
mod frame;
mod home;
mod lesson;
mod pictures;
mod predict;
mod template;
mod widgets;

pub use template::PageTemplate;

use goodput::lesson::Lesson;
use std::path::{Path, PathBuf};

/// Why the site could not be written.
#[derive(Debug)]
pub enum PagesError {
    /// A file could not be read or written.
    Io(PathBuf, std::io::Error),
    /// Trunk's `index.html` is not the shape the pages are built on.
    Template(String),
    /// A widget's picture could not be drawn (its settings describe no valid scenario, or drawing failed).
    Picture(String),
}

impl std::fmt::Display for PagesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PagesError::Io(path, error) => write!(f, "{}: {error}", path.display()),
            PagesError::Template(message) => write!(f, "index.html: {message}"),
            PagesError::Picture(message) => write!(f, "widget picture: {message}"),
        }
    }
}

impl std::error::Error for PagesError {}

/// One page to write: where, its title and description, and its body.
#[derive(Debug)]
pub struct Page {
    /// Path inside the site, e.g. `lessons/latency-throughput-slos/index.html`.
    pub path: String,
    /// The `<title>`.
    pub title: String,
    /// The `<meta name="description">`, when the page has its own.
    pub description: Option<String>,
    /// `<base href>` back to the site root, for pages below it.
    pub base: Option<&'static str>,
    /// Elements for the head, after the `<title>` and before the stylesheet and the boot script (which reads them).
    pub head: String,
    /// `data-page` on `<body>`: what the wasm finds there.
    pub kind: &'static str,
    /// Everything inside `<body>`.
    pub body: String,
}

/// A file the pages refer to (a widget's picture), written beside them.
#[derive(Debug, Clone, PartialEq)]
pub struct Asset {
    /// Path inside the site, e.g. `pictures/latency-throughput-slos/knee-lab-latency-light.svg`.
    pub path: String,
    /// The file's text.
    pub contents: String,
}

/// Everything the site consists of besides Trunk's own files.
#[derive(Debug, Default)]
pub struct Site {
    /// The HTML pages.
    pub pages: Vec<Page>,
    /// The files they refer to.
    pub assets: Vec<Asset>,
}

/// The course home, every lesson and the not-found page, for `lessons` (the catalog's: the islands' views, shared
/// with the wasm, hold the lesson's data for as long as the page).
pub fn build_site(lessons: &'static [Lesson]) -> Result<Site, PagesError> {
    let mut site = Site::default();
    site.pages.push(home::home_page(lessons));
    for lesson in lessons {
        let (page, assets) = lesson::lesson_page(lesson)?;
        site.pages.push(page);
        site.assets.extend(assets);
    }
    site.pages.push(home::not_found_page());
    Ok(site)
}

/// Writes `site` into `site_dir`, each page from `template`.
pub fn write_site(site_dir: &Path, template: &PageTemplate, site: &Site) -> Result<(), PagesError> {
    for page in &site.pages {
        write_file(&site_dir.join(&page.path), &template.render(page))?;
    }
    for asset in &site.assets {
        write_file(&site_dir.join(&asset.path), &asset.contents)?;
    }
    Ok(())
}

fn write_file(path: &Path, contents: &str) -> Result<(), PagesError> {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(|e| PagesError::Io(folder.to_owned(), e))?;
    }
    std::fs::write(path, contents).map_err(|e| PagesError::Io(path.to_owned(), e))
}

/// An island: its wrapper (`attributes`: its kind and the data the wasm reads back) around its view
/// (`goodput::views`) rendered by Leptos, the same component the wasm mounts live.
fn write_island(
    m: &mut goodput::html_writer::HtmlWriter,
    attributes: &[(&str, &str)],
    view: impl leptos::prelude::RenderHtml,
) {
    m.element("div", attributes, |m| {
        m.trusted(&view.to_html());
    });
}
