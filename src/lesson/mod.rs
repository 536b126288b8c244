//! Lessons: typed data compiled from `lessons/*.md` at build time, the catalog the static pages are written from,
//! and the markup contract by which the page's islands read their lesson back.
//!
//! The data types live in [`types`] (re-exported here) so that `build.rs` can include them together with the
//! [`compiler`] without also including [`catalog`], which embeds the build's own output.

mod types;

pub use types::*;

pub mod ask_markup;
#[cfg(not(target_arch = "wasm32"))]
pub mod compiler;
pub mod island_markup;
pub mod judge;
pub mod passages;
pub mod predict_phase;
pub mod progress;
pub mod tally;

use std::sync::OnceLock;

/// The catalog `build.rs` wrote: every lesson in `lessons/`, compiled and sorted by number. The page reads its
/// lesson from the pre-rendered HTML (see [`island_markup`]) and never calls [`catalog`], so the page's wasm carries
/// neither this JSON nor its deserialisers; the teacher's worker (`src/bin/teacher-worker/`) does.
const CATALOG_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/lessons.json"));

/// Every lesson of the course, sorted by number; deserialised on first use.
///
/// ```
/// let lessons = goodput::lesson::catalog();
/// assert!(lessons.iter().any(|lesson| lesson.meta.slug == "latency-throughput-slos"));
/// ```
pub fn catalog() -> &'static [Lesson] {
    static CATALOG: OnceLock<Vec<Lesson>> = OnceLock::new();
    CATALOG.get_or_init(|| {
        // The JSON was produced by this crate's own compiler moments earlier, so failing here is a build bug.
        serde_json::from_str(CATALOG_JSON).expect("build.rs wrote a catalog this crate can read")
    })
}

/// The lesson whose slug is `slug`, if any.
pub fn find(slug: &str) -> Option<&'static Lesson> {
    catalog().iter().find(|lesson| lesson.meta.slug == slug)
}
