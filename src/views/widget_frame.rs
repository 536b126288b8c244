//! The shell every widget sits in: a labelled `<section>` with the widget's anchor id and the author's caption. The
//! page build renders it around the widget's no-JavaScript version (its pictures or arithmetic), the wasm around the
//! live widget.

use crate::lesson::island_markup::CAPTION_CLASS;
use crate::lesson::WidgetEmbed;
use leptos::prelude::*;

/// A labelled section around `children`; `id` is the widget's anchor (the lesson's, or one made from its position).
/// `notes` say which of the lesson's settings could not be used as given, and what was used instead.
#[component]
pub fn WidgetFrame(
    widget: &'static WidgetEmbed,
    id: String,
    #[prop(optional)] notes: Vec<String>,
    children: Children,
) -> impl IntoView {
    let name = widget.name.as_str();
    let caption = widget
        .caption
        .as_deref()
        .map(|caption| view! { <p class=CAPTION_CLASS>{caption}</p> });
    let notes = notes
        .into_iter()
        .map(|note| view! { <p class="widget-note">{note}</p> })
        .collect_view();
    view! {
        <section class="lesson-widget" id=id data-widget=name aria-label=format!("Interactive: {}", widget.caption.as_deref().unwrap_or(name))>
            // A learner reads what the widget is from its caption; its id (the anchor, the lesson's directive) is
            // the author's word, not theirs.
            <p class="lesson-label">"Interactive"</p>
            {caption}
            {notes}
            {children()}
        </section>
    }
}
