//! The numbers beside the charts, the sentence explaining them, and how far the estimate has converged.
//!
//! The few readouts that carry the story sit beside the load slider ([`SliderReadouts`]), so a learner dragging it
//! sees them change with the charts; the rest are folded under the charts ([`MoreReadouts`]).

use leptos::prelude::*;

use super::LabVariant;
use crate::charts::format::format_percent;
use crate::components::sliced_sweep::RunState;
use crate::lab::{Figures, ReadoutKey};

/// The readouts at the current load that `keep` selects, from the same [`Figures`] the charts draw.
#[component]
fn ReadoutList(figures: Memo<Figures>, keep: fn(ReadoutKey) -> bool) -> impl IntoView {
    let lines = move || {
        figures.with(|f| {
            f.readouts
                .lines()
                .into_iter()
                .filter(|line| keep(line.key))
                .map(|line| {
                    view! {
                        <div class="lab-readout" data-readout=line.key.as_str()>
                            <dt>{line.label}</dt>
                            <dd>{line.value}</dd>
                        </div>
                    }
                })
                .collect_view()
        })
    };
    view! { <dl>{lines}</dl> }
}

/// The readouts the learner watches while dragging the load: in the full lab the tail (p50, p99, their ratio), the
/// SLO and goodput; in the goodput chart its throughput, goodput and attainment.
#[component]
pub fn SliderReadouts(figures: Memo<Figures>, variant: LabVariant) -> impl IntoView {
    let keep = match variant {
        LabVariant::Full => ReadoutKey::beside_the_slider,
        LabVariant::GoodputOnly => ReadoutKey::in_goodput_chart,
    };
    view! {
        <div class="lab-readouts lab-readouts-headline">
            <ReadoutList figures keep/>
        </div>
    }
}

/// Every other figure of the full lab at this load (offered load and arrival rates, throughput, Little's Law, the KV
/// cache, closed-loop users), folded: the charts come first.
#[component]
pub fn MoreReadouts(figures: Memo<Figures>) -> impl IntoView {
    view! {
        <details class="lab-readouts lab-readouts-more">
            <summary>"Every figure at this load"</summary>
            <ReadoutList figures keep=|key| !key.beside_the_slider()/>
        </details>
    }
}

/// Why the numbers look the way they do, and how far the estimate has converged.
#[component]
pub fn LabStory(figures: Memo<Figures>, run_state: ReadSignal<RunState>) -> impl IntoView {
    let status = move || {
        match run_state.get() {
        RunState::Idle | RunState::Running { passes_done: 0 } => "Simulating…".to_owned(),
        RunState::Running { .. } => {
            let measured = figures.with(|f| f.readouts.measured);
            format!("Rough estimate from {measured} requests per load point; refining…")
        }
        RunState::Done => figures.with(|f| {
            let r = &f.readouts;
            match r.p99_relative_half_width {
                Some(width) => format!(
                    "Final estimate from {} requests per load point (p99 within ±{} at 95% confidence).",
                    r.measured,
                    format_percent(width)
                ),
                None => format!("Final estimate from {} requests per load point.", r.measured),
            }
        }),
        // Reconciled settings always simulate (tests/lab.rs); should that ever fail, the learner gets a sentence and
        // the console the model's words, which name its internal fields.
        RunState::Invalid(message) => {
            web_sys::console::error_1(&format!("knee lab: {message}").into());
            "These settings cannot be simulated together: change the last one back.".to_owned()
        }
    }
    };
    view! {
        <div class="lab-story">
            <p class="lab-explanation">{move || figures.with(|f| f.readouts.explanation())}</p>
            {move || figures.with(|f| f.your_server_ranges.clone()).map(|text| view! { <p class="lab-your-ranges">{text}</p> })}
            <p class="lab-status" role="status" aria-live="polite" data-state=move || match run_state.get() {
                RunState::Done => "done",
                RunState::Invalid(_) => "invalid",
                RunState::Idle | RunState::Running { .. } => "running",
            }>{status}</p>
        </div>
    }
}
