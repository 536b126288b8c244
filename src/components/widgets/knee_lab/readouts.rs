//! The numbers beside the charts, the sentence explaining them, and how far the estimate has converged.

use leptos::prelude::*;

use super::LabVariant;
use crate::charts::format::format_percent;
use crate::components::sliced_sweep::RunState;
use crate::lab::Figures;

/// Readouts at the current load, from the same [`Figures`] the charts draw.
#[component]
pub fn LabReadouts(
    figures: Memo<Figures>,
    run_state: ReadSignal<RunState>,
    variant: LabVariant,
) -> impl IntoView {
    let lines = move || {
        figures.with(|f| {
            f.readouts
                .lines()
                .into_iter()
                .filter(|line| {
                    variant == LabVariant::Full
                        || matches!(line.key, "load" | "throughput" | "goodput" | "attainment")
                })
                .map(|line| {
                    view! {
                        <div class="lab-readout" data-readout=line.key>
                            <dt>{line.label}</dt>
                            <dd>{line.value}</dd>
                        </div>
                    }
                })
                .collect_view()
        })
    };
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
        RunState::Invalid(message) => format!("These settings cannot be simulated: {message}."),
    }
    };
    view! {
        <div class="lab-readouts">
            <dl>{lines}</dl>
            <p class="lab-explanation">{move || figures.with(|f| f.readouts.explanation())}</p>
            <p class="lab-status" role="status" aria-live="polite" data-state=move || match run_state.get() {
                RunState::Done => "done",
                RunState::Invalid(_) => "invalid",
                RunState::Idle | RunState::Running { .. } => "running",
            }>{status}</p>
        </div>
    }
}
