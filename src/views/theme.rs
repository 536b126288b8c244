//! The theme picker of the site header: light, dark, high contrast or the system's choice. Pre-rendered it shows
//! "System" and is inert until the wasm mounts it (`app.css`); live it shows and sets the reader's choice.

use crate::theme::ThemeChoice;
use leptos::prelude::*;

/// The picker. `choice`: the reader's choice; `pick`: sets it. A plain function rather than a `#[component]`, as
/// `super::progress` says why.
pub fn theme_picker<C, P>(choice: C, pick: P) -> impl IntoView
where
    C: Fn() -> ThemeChoice + Copy + Send + Sync + 'static,
    P: Fn(ThemeChoice) + Send + Sync + 'static,
{
    let options = ThemeChoice::ALL.map(|option| {
        view! {
            <option value=option.as_str() selected=move || choice() == option>
                {option.label()}
            </option>
        }
    });
    view! {
        <label class="theme-switcher">
            "Theme "
            // `selected` sets the first render; `prop:value` follows later changes (the `C` key, another window).
            <select
                prop:value=move || choice().as_str()
                on:change=move |event| pick(ThemeChoice::parse(&event_target_value(&event)))
            >
                {options.into_iter().collect_view()}
            </select>
        </label>
    }
}
