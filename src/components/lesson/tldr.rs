//! The TL;DR line at the top of a section.

use crate::lesson::Tldr as TldrData;
use leptos::prelude::*;

/// A one-line summary, marked so it stands out from the prose.
#[component]
pub fn Tldr(tldr: &'static TldrData) -> impl IntoView {
    view! {
        <aside class="lesson-tldr" aria-label="TL;DR">
            <span class="lesson-label">"TL;DR"</span>
            <p inner_html=tldr.text.as_str()></p>
        </aside>
    }
}
