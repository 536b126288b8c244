//! The interactive widgets a lesson embeds with an `@widget` directive. [`Widget`] picks the component for the
//! directive's name; each component reads the settings it knows from the directive (unknown keys are ignored, bad
//! values fall back to the defaults with a visible note).
//!
//! Widgets on one page talk through [`LabLink`]: the knee lab publishes its current reading, which the sizer can use
//! as its latency and the metrics reader as a scrape; and through [`LabSettingsLink`], its settings, which the batch
//! timeline follows.

mod batch_timeline;
mod copy_block;
mod fleet;
mod knee_lab;
mod lab_link;
mod metrics_reader;
mod sizer;

pub use crate::views::widget_frame::WidgetFrame;
pub use copy_block::CopyBlock;
pub use lab_link::{
    provide_lab_link, use_held_server, use_lab_link, use_lab_settings_link, HeldServerLink,
    LabLink, LabReading, LabSettingsLink,
};

use crate::lesson::{WidgetEmbed, WidgetName};
use leptos::prelude::*;

/// The widget `widget` names, with the anchor `id` the page gave it.
#[component]
pub fn Widget(widget: &'static WidgetEmbed, id: String) -> impl IntoView {
    match widget.name {
        WidgetName::KneeLab => {
            view! { <knee_lab::KneeLab widget id variant=knee_lab::LabVariant::Full/> }.into_any()
        }
        WidgetName::GoodputChart => {
            view! { <knee_lab::KneeLab widget id variant=knee_lab::LabVariant::GoodputOnly/> }
                .into_any()
        }
        WidgetName::LittlesLawSizer => view! { <sizer::LittlesLawSizer widget id/> }.into_any(),
        WidgetName::MetricsReader => {
            view! { <metrics_reader::MetricsReader widget id/> }.into_any()
        }
        WidgetName::BatchTimeline => {
            view! { <batch_timeline::BatchTimelineWidget widget id/> }.into_any()
        }
        WidgetName::FleetDay => fleet::fleet_widget(widget, id).into_any(),
    }
}
