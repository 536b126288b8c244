//! The full lab's settings in the page URL: read once at start (bad values clamped, with notes), written back with
//! `history.replaceState` whenever they change, keeping the page's other parameters (a presentation's place) and the
//! `#fragment`.

use leptos::prelude::*;
use leptos_use_timeout_fn::use_timeout_fn;

use crate::lab::settings::SettingNote;
use crate::lab::LabSettings;

/// `defaults` overridden by the lab's parameters in the current URL, with a note for each value not used as given.
pub fn read(defaults: &LabSettings) -> (LabSettings, Vec<SettingNote>) {
    let search = window().location().search().unwrap_or_default();
    defaults.with_query(&search)
}

/// Quiet time before the URL is rewritten, milliseconds: a slider drag rewrites it once, when the learner lets go
/// (browsers also throttle `replaceState` calls that come too fast).
const URL_DEBOUNCE_MS: f64 = 250.0;

/// Writes `settings` into the URL whenever they change (only what differs from `defaults`).
pub fn keep_in_url(settings: RwSignal<LabSettings>, defaults: LabSettings) {
    // Each change restarts the pause.
    let write_later = use_timeout_fn(
        move |settings: LabSettings| write(&settings, &defaults),
        URL_DEBOUNCE_MS,
    )
    .start;
    Effect::new(move |_| write_later(settings.get()));
}

/// Writes `settings` into the URL's query (kept: other parameters, path and fragment).
fn write(settings: &LabSettings, defaults: &LabSettings) {
    crate::components::address::rewrite_query(|query| settings.merge_into_query(query, defaults));
}
