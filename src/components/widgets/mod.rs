//! The interactive widgets a lesson embeds with an `@widget` directive. Each kind's code loads on demand: [`load`]
//! fetches it the first time, then [`widget_view`] builds the component for the directive's name; each component reads the settings it knows from the directive (unknown keys are ignored, bad
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
use leptos::wasm_split::{wasm_split, SplitLoaderError};

use super::on_demand::ready_now;

/// Fetches the code of widget `name` (once: a module of the page's wasm the build cut out, see
/// tools/split-page.mjs), so that [`widget_view`] can build it.
pub async fn load(name: WidgetName) -> Result<(), SplitLoaderError> {
    match name {
        WidgetName::KneeLab | WidgetName::GoodputChart => load_knee_lab().await,
        WidgetName::LittlesLawSizer => load_sizer().await,
        WidgetName::MetricsReader => load_metrics_reader().await,
        WidgetName::BatchTimeline => load_batch_timeline().await,
        WidgetName::FleetDay => load_fleet().await,
    }
}

/// The widget `widget` names, with the anchor `id` the page gave it; `None` until [`load`] has fetched its code.
pub fn widget_view(widget: &'static WidgetEmbed, id: String) -> Option<AnyView> {
    match widget.name {
        WidgetName::KneeLab => ready_now(knee_lab(widget, id, knee_lab::LabVariant::Full)),
        WidgetName::GoodputChart => {
            ready_now(knee_lab(widget, id, knee_lab::LabVariant::GoodputOnly))
        }
        WidgetName::LittlesLawSizer => ready_now(sizer(widget, id)),
        WidgetName::MetricsReader => ready_now(metrics_reader(widget, id)),
        WidgetName::BatchTimeline => ready_now(batch_timeline(widget, id)),
        WidgetName::FleetDay => ready_now(fleet(widget, id)),
    }
}

// Each split point below is a module of its own: the build moves what only it reaches (its component, the model and
// charts it draws with) out of the page's wasm. Code two of them share goes into a chunk both load.

#[wasm_split(knee_lab, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_knee_lab))]
fn knee_lab(
    widget: &'static WidgetEmbed,
    id: String,
    variant: knee_lab::LabVariant,
) -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <knee_lab::KneeLab widget id variant/> }.into_any())
}

#[wasm_split(sizer, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_sizer))]
fn sizer(widget: &'static WidgetEmbed, id: String) -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <sizer::LittlesLawSizer widget id/> }.into_any())
}

#[wasm_split(metrics_reader, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_metrics_reader))]
fn metrics_reader(widget: &'static WidgetEmbed, id: String) -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <metrics_reader::MetricsReader widget id/> }.into_any())
}

#[wasm_split(batch_timeline, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_batch_timeline))]
fn batch_timeline(widget: &'static WidgetEmbed, id: String) -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <batch_timeline::BatchTimelineWidget widget id/> }.into_any())
}

#[wasm_split(fleet, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_fleet))]
fn fleet(widget: &'static WidgetEmbed, id: String) -> Result<AnyView, SplitLoaderError> {
    Ok(fleet::fleet_widget(widget, id).into_any())
}
