//! The LittlesLawSizer widget (issue #8; being built).

use super::WidgetFrame;
use crate::lesson::WidgetEmbed;
use leptos::prelude::*;

/// The LittlesLawSizer widget.
#[component]
pub fn LittlesLawSizer(widget: &'static WidgetEmbed, id: String) -> impl IntoView {
    view! { <WidgetFrame widget id><p class="widget-pending">"This widget is being built."</p></WidgetFrame> }
}
