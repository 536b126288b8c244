//! The interactive widgets a lesson embeds with an `@widget` directive. Each kind's code loads on demand (the page's
//! split points, `crate::components::on_demand`), which then builds the component for the directive's name; each component reads the settings it knows from the directive (unknown keys are ignored, bad
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

use crate::lesson::WidgetEmbed;
use leptos::prelude::*;

pub use knee_lab::{your_server_panel, LabVariant, YourServerArgs};

// Each widget kind is built behind a split point of the page (`crate::components::on_demand`): these functions are
// reached only from there, so the build moves them, and what only they reach, out of the page's wasm.

/// The knee lab, or its goodput-only variant.
pub fn knee_lab_view(widget: &'static WidgetEmbed, id: String, variant: LabVariant) -> AnyView {
    view! { <knee_lab::KneeLab widget id variant/> }.into_any()
}

/// The Little's Law sizer.
pub fn sizer_view(widget: &'static WidgetEmbed, id: String) -> AnyView {
    view! { <sizer::LittlesLawSizer widget id/> }.into_any()
}

/// The metrics reader.
pub fn metrics_reader_view(widget: &'static WidgetEmbed, id: String) -> AnyView {
    view! { <metrics_reader::MetricsReader widget id/> }.into_any()
}

/// The batch timeline.
pub fn batch_timeline_view(widget: &'static WidgetEmbed, id: String) -> AnyView {
    view! { <batch_timeline::BatchTimelineWidget widget id/> }.into_any()
}

/// The fleet through a day.
pub fn fleet_view(widget: &'static WidgetEmbed, id: String) -> AnyView {
    fleet::fleet_widget(widget, id).into_any()
}
