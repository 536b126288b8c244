//! The class tally: an instructor types the show-of-hands count for each option (or bucket) and the room sees them as
//! bars beside the revealed answer. Counts stay on this page (and in presentation windows); nothing is sent anywhere.

use crate::components::sync::synced_signal;
use crate::lesson::tally::{hands_from_text, shares, tally_buckets, MAX_HANDS};
use crate::lesson::PredictAnswer;
use crate::presentation::sync::keys;
use crate::views::predict::tally_summary;
use leptos::prelude::*;

/// Count inputs and the bars, for the step `step_id`.
#[component]
pub fn ClassTally(step_id: &'static str, answer: &'static PredictAnswer) -> impl IntoView {
    let buckets = tally_buckets(answer);
    let count = buckets.len();
    let tally = synced_signal(keys::predict(step_id, "tally"), vec![0u32; count]);
    let inputs = buckets.iter().enumerate().map(|(i, label)| {
        let input_id = format!("{step_id}-tally-{i}");
        let label_for = input_id.clone();
        view! {
            <label class="tally-input" for=label_for>
                // Distinct from the option's own radio button for a screen reader, same words for the eye.
                <span><span class="visually-hidden">"Hands for: "</span><span inner_html=label.as_str().to_owned()></span></span>
                <input
                    id=input_id
                    type="number"
                    min="0"
                    max=MAX_HANDS.to_string()
                    step="1"
                    inputmode="numeric"
                    prop:value=move || tally.with(|t| t.get(i).copied().unwrap_or(0).to_string())
                    on:input=move |event| {
                        let value = hands_from_text(&event_target_value(&event));
                        tally.update(|t| {
                            t.resize(count, 0);
                            t[i] = value;
                        });
                    }
                />
            </label>
        }
    }).collect_view();
    let bars = buckets.clone();
    let chart = move || {
        let counts = tally.get();
        let total: u32 = counts.iter().sum();
        (total > 0).then(|| {
            let share_of = shares(&counts);
            let rows = bars.iter().enumerate().map(|(i, label)| {
                let n = counts.get(i).copied().unwrap_or(0);
                let share = share_of.get(i).copied().unwrap_or(0.0);
                view! {
                    <tr>
                        <th scope="row" inner_html=label.as_str().to_owned()></th>
                        <td class="tally-count">{n.to_string()}</td>
                        <td class="tally-share">{format!("{:.0}%", share * 100.0)}</td>
                        <td class="tally-bar-cell">
                            <svg class="tally-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
                                <rect x="0" y="0" height="10" width=format!("{:.1}", share * 100.0)></rect>
                            </svg>
                        </td>
                    </tr>
                }
            }).collect_view();
            view! {
                <table class="tally-table">
                    <caption>{format!("Class tally: {total} hands")}</caption>
                    <thead><tr><th scope="col">"Answer"</th><th scope="col">"Hands"</th><th scope="col">"Share"</th><th scope="col">"Bar"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            }
        })
    };
    view! {
        <details class="predict-tally">
            {tally_summary()}
            <p class="tally-help">"Ask for a show of hands and type the count for each answer."</p>
            <div class="tally-inputs">{inputs}</div>
            {chart}
        </details>
    }
}
