//! The one writer of the page's address. The knee lab (its settings) and a presentation (its screen and window) share
//! the query string; each hands [`rewrite_query`] a rewrite of its own parameters ([`crate::address`]), and the
//! path, the fragment and everyone else's parameters are kept.

use leptos::prelude::*;

/// Replaces the address's query with `rewrite(current query without '?')` through `history.replaceState` (no new
/// history entry, no reload); nothing is written when the query is unchanged.
pub fn rewrite_query(rewrite: impl FnOnce(&str) -> String) {
    let location = window().location();
    let search = location.search().unwrap_or_default();
    let current = search.trim_start_matches('?');
    let query = rewrite(current);
    if query == current {
        return;
    }
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    let url = if query.is_empty() {
        format!("{path}{hash}")
    } else {
        format!("{path}?{query}{hash}")
    };
    if let Ok(history) = window().history() {
        let state = history.state().unwrap_or(wasm_bindgen::JsValue::NULL);
        let _ = history.replace_state_with_url(&state, "", Some(&url));
    }
}
