//! Speaker notes for instructors: folded away so learners are not distracted by them.

use crate::lesson::SpeakerNotes as SpeakerNotesData;
use leptos::prelude::*;

/// The notes inside a closed `<details>`.
#[component]
pub fn SpeakerNotes(notes: &'static SpeakerNotesData) -> impl IntoView {
    view! {
        <details class="lesson-speaker-notes">
            <summary>"Speaker notes (for instructors)"</summary>
            <div inner_html=notes.notes.as_str()></div>
        </details>
    }
}
