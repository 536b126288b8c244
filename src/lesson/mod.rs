//! Lessons: typed data compiled from `lessons/*.md` at build time, the catalog the static pages are written from,
//! and the markup contract by which the page's islands read their lesson back.
//!
//! The data types, the passages and the reading of the compiler's HTML are the crate `goodput-lesson`
//! (`src/lesson/data/`, re-exported here), which the lesson compiler (`goodput-lesson-compiler`,
//! `src/lesson/compiler/`) writes and `build.rs` runs; this module adds what only the page and its build need.

pub use goodput_lesson::*;

pub mod ask_markup;
pub mod island_markup;
pub mod judge;
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

/// The catalog is what the compiler makes of `lessons/`, and lesson 32 carries what the page is built around.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_lessons_compile_and_are_the_catalog() {
        let lessons = goodput_lesson_compiler::compile_dir(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../lessons")
                .as_path(),
            "lessons",
        )
        .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(lessons, catalog());
        let lesson = find("latency-throughput-slos").expect("lesson 32 ships");
        assert_eq!(lesson.meta.number, 32);
        let widgets: Vec<_> = lesson
            .blocks
            .iter()
            .filter_map(|block| match block {
                Block::Widget(widget) => Some(widget.name),
                _ => None,
            })
            .collect();
        assert!(
            widgets.contains(&WidgetName::KneeLab) && widgets.contains(&WidgetName::GoodputChart)
        );

        // The five guided steps of the source, and at least two predictions on the chart.
        let steps: Vec<&PredictStep> = lesson
            .blocks
            .iter()
            .filter_map(|block| match block {
                Block::Predict(step) => Some(step),
                _ => None,
            })
            .collect();
        for (n, topic) in [
            (1, "TTFT"),
            (2, "TPOT"),
            (3, "knee"),
            (4, "counts"),
            (5, "sizing"),
        ] {
            assert!(
                steps
                    .iter()
                    .any(|step| step.title.starts_with(&format!("Step {n}: "))
                        && step.title.contains(topic)),
                "no Step {n} about {topic}"
            );
        }
        let charts = steps
            .iter()
            .filter(|step| matches!(step.answer, PredictAnswer::ChartPrediction { .. }))
            .count();
        assert!(
            charts >= 3,
            "the knee step and at least two more chart predictions: {charts}"
        );
        assert!(steps
            .iter()
            .any(|step| step.answer == PredictAnswer::Recall));
    }
}
