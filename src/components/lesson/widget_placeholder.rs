//! Where an interactive widget goes. The widgets themselves arrive later; until then the placeholder names the
//! widget and the settings the lesson gives it, so the author can see the directive took effect.

use crate::lesson::WidgetEmbed;
use leptos::prelude::*;

/// A labelled placeholder for `widget`; `index` gives it an id when the lesson did not.
#[component]
pub fn WidgetPlaceholder(widget: &'static WidgetEmbed, index: usize) -> impl IntoView {
    let name = widget.name.as_str();
    let id = widget
        .id
        .clone()
        .unwrap_or_else(|| format!("widget-{index}"));
    let caption = widget
        .caption
        .as_deref()
        .map(|caption| view! { <p class="widget-caption">{caption}</p> });
    let settings = widget.settings.iter().map(|(key, value)| {
        view! {
            <dt>{key.as_str()}</dt>
            <dd>{value.to_string()}</dd>
        }
    });
    view! {
        <section class="lesson-widget" id=id data-widget=name aria-label=format!("Interactive widget: {name}")>
            <p class="lesson-label">"Interactive · " <code>{name}</code></p>
            {caption}
            <p class="widget-pending">"This widget is coming soon. It will start with these settings:"</p>
            <dl class="widget-settings">{settings.collect_view()}</dl>
        </section>
    }
}
