//! The lesson's interactive parts, each mounted as an island into the pre-rendered article: predict steps (with
//! their chart guesses and class tallies), the reveal of recall and explain cards, task lists and the progress
//! line. Prose needs no component: it is in the page's HTML from the build.
//!
//! No inline styles or scripts: the page runs under a strict CSP, and the look lives in `style/lesson.css`.

mod predict;
pub mod predict_chart;
mod progress_store;
mod progress_summary;
mod reveal;
mod tally;
mod tasks;

pub use predict::PredictStep;
pub use progress_store::{provide_progress, use_progress, ProgressHandle};
pub use progress_summary::progress_summary;
pub use reveal::Reveal;
pub use tasks::TaskChecklist;
