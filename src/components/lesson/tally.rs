//! The class tally: an instructor types the show-of-hands count for each option (or bucket) and the room sees them as
//! bars beside the revealed answer. Counts stay on this page (and in presentation windows); nothing is sent anywhere.

use crate::components::sync::synced_signal;
use crate::lesson::{Html, PredictAnswer};
use leptos::prelude::*;

/// The buckets a step's hands are counted in: the options of a multiple choice, otherwise how the guesses compare.
pub fn tally_buckets(answer: &PredictAnswer) -> Vec<Html> {
    let plain = |labels: &[&str]| labels.iter().map(|l| Html((*l).to_owned())).collect();
    match answer {
        PredictAnswer::MultipleChoice { options } => {
            options.iter().map(|o| o.label.clone()).collect()
        }
        PredictAnswer::NumericEstimate { .. } => {
            plain(&["Too low", "Within the tolerance", "Too high"])
        }
        PredictAnswer::ChartPrediction { .. } => plain(&[
            "Too early (lower load)",
            "Within the tolerance",
            "Too late (higher load)",
        ]),
        PredictAnswer::Recall => plain(&["Had it", "Missed something"]),
    }
}

/// Count inputs and the bars, for the step `step_id`.
#[component]
pub fn ClassTally(step_id: &'static str, answer: &'static PredictAnswer) -> impl IntoView {
    let buckets = tally_buckets(answer);
    let count = buckets.len();
    let tally = synced_signal(format!("predict/{step_id}/tally"), vec![0u32; count]);
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
                    max="9999"
                    step="1"
                    inputmode="numeric"
                    prop:value=move || tally.with(|t| t.get(i).copied().unwrap_or(0).to_string())
                    on:input=move |event| {
                        let value = event_target_value(&event).trim().parse::<u32>().unwrap_or(0).min(9999);
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
            let rows = bars.iter().enumerate().map(|(i, label)| {
                let n = counts.get(i).copied().unwrap_or(0);
                let share = f64::from(n) / f64::from(total);
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
            <summary>"Class tally (for instructors)"</summary>
            <p class="tally-help">"Ask for a show of hands and type the count for each answer."</p>
            <div class="tally-inputs">{inputs}</div>
            {chart}
        </details>
    }
}
