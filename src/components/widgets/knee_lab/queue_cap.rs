//! The queue cap: vLLM's `--max-num-queued-reqs`, as a multiple of `--max-num-seqs`. Off, the server queues
//! without bound and the lab stops at 100% load; on, it turns away what it cannot hold, every load has a steady state
//! and the load slider goes to 120%.

use leptos::prelude::*;

use crate::lab::{LabSettings, Preset};

/// The caps offered, as multiples of `--max-num-seqs` (`None`: off). A URL may ask for another within
/// [`crate::lab::settings::QUEUE_CAP_RANGE`]; it is listed too.
const CAPS: [Option<f64>; 6] = [None, Some(1.0), Some(1.25), Some(1.5), Some(2.0), Some(4.0)];

fn key(cap: Option<f64>) -> String {
    cap.map_or_else(|| "off".to_owned(), |multiple| multiple.to_string())
}

fn label(cap: Option<f64>) -> String {
    match cap {
        None => "Off".to_owned(),
        Some(multiple) => format!("{multiple} × --max-num-seqs"),
    }
}

/// A labelled `<select>` of queue caps, with the flag it sets (and the load range it opens) under it.
#[component]
pub fn QueueCapSelect(settings: RwSignal<LabSettings>, id: String) -> impl IntoView {
    let textbook = move || settings.with(|s| s.preset == Preset::Textbook);
    let hint_id = format!("{id}-hint");
    let options = move || {
        let current = settings.with(|s| s.queue_cap);
        let mut caps = CAPS.to_vec();
        if !caps.contains(&current) {
            caps.push(current);
        }
        caps.into_iter()
            .map(|cap| view! { <option value=key(cap) selected=move || current == cap>{label(cap)}</option> })
            .collect_view()
    };
    let pick = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        let cap = if value == "off" {
            None
        } else {
            value.parse::<f64>().ok()
        };
        // Switched off past 100%, the load comes back within the slider's range (LabSettings::reconciled).
        settings.update(|s| s.queue_cap = cap);
    };
    let hint = move || {
        settings.with(|s| match s.max_num_queued_reqs() {
            Some(cap) => format!(
                "--max-num-queued-reqs {cap}: load to {}%",
                s.load_range_percent().1
            ),
            None if s.preset == Preset::Textbook => "The textbook queue has no cap.".to_owned(),
            None => "Every request queues; load to 100%".to_owned(),
        })
    };
    view! {
        <div class="lab-field lab-queue-cap">
            <label for=id.clone()>"Queue cap"</label>
            <select id=id disabled=textbook aria-describedby=hint_id.clone() on:change=pick>
                {options}
            </select>
            <p class="lab-field-hint" id=hint_id>{hint}</p>
        </div>
    }
}
