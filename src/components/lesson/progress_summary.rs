//! The live progress line: its view ([`crate::views::progress`]) following the learner's saved progress.

use super::progress_store::use_progress;
use crate::views::progress::progress_line;
use leptos::prelude::*;

/// "n of m steps answered, k right", the one storage note, and the reset that forgets it all.
pub fn progress_summary() -> impl IntoView {
    let progress = use_progress();
    progress_line(
        move || progress.summary().sentence(),
        move || progress.note(),
        move || progress.reset(),
    )
}
