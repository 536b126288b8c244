//! What the knee lab shares with the other widgets on the page: its current reading, and its settings. Provided once
//! per lesson page; `None` until a lab on the page has a result (or, for the settings, until they differ from the
//! lesson's), and when the page has no lab.

use leptos::prelude::*;

use crate::lab::LabSettings;
use crate::model::your_server::HeldServer;

/// The knee lab's current state, as the sizer and the metrics reader use it.
#[derive(Clone, Debug, PartialEq)]
pub struct LabReading {
    /// Offered load as a fraction of saturation, e.g. 0.95.
    pub load: f64,
    /// Replicas in the simulated fleet.
    pub replicas: u32,
    /// `--max-num-seqs` of each replica.
    pub max_num_seqs: u32,
    /// Mean end-to-end latency of the current run, seconds; `None` when the run has no steady state (open loop at
    /// 100%: the queue grows without bound).
    pub mean_latency_s: Option<f64>,
    /// Completed requests per second of the current run; `None` as for the latency.
    pub throughput_rps: Option<f64>,
    /// The current run as a vLLM `/metrics` page (see [`crate::cluster::exposition::render_vllm_metrics`]).
    pub metrics_text: String,
}

/// The page's shared slot for the lab's reading.
#[derive(Clone, Copy, Debug)]
pub struct LabLink(pub RwSignal<Option<LabReading>>);

/// The full knee lab's settings, once the learner (or the page URL) moved them away from the lesson's: the batch
/// timeline shows the lab's replica at them.
#[derive(Clone, Copy, Debug)]
pub struct LabSettingsLink(pub RwSignal<Option<LabSettings>>);

/// The learner's calibrated server this window holds (read from the browser's storage, or just calibrated): the
/// knee lab and the batch timeline put it in their settings, which never carry it to another window.
#[derive(Clone, Copy, Debug)]
pub struct HeldServerLink(pub RwSignal<Option<HeldServer>>);

/// Creates the slots for this page; call once, above every widget.
pub fn provide_lab_link() {
    provide_context(LabLink(RwSignal::new(None)));
    provide_context(LabSettingsLink(RwSignal::new(None)));
    provide_context(HeldServerLink(RwSignal::new(None)));
}

/// The page's calibrated server, or a fresh empty slot when none was provided.
pub fn use_held_server() -> HeldServerLink {
    use_context::<HeldServerLink>().unwrap_or_else(|| HeldServerLink(RwSignal::new(None)))
}

/// The page's slot for the lab's settings, or a fresh empty one when none was provided.
pub fn use_lab_settings_link() -> LabSettingsLink {
    use_context::<LabSettingsLink>().unwrap_or_else(|| LabSettingsLink(RwSignal::new(None)))
}

/// The page's slot, or a fresh empty one when none was provided (a widget shown on its own).
pub fn use_lab_link() -> LabLink {
    use_context::<LabLink>().unwrap_or_else(|| LabLink(RwSignal::new(None)))
}
