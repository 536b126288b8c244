//! The progress line at the top of a lesson: steps answered and right, the storage note if any, and "Reset my
//! progress" (asked twice, so a stray press loses nothing).

use super::progress_store::use_progress;
use leptos::html;
use leptos::prelude::*;

/// "n of m steps answered, k right", the one storage note, and the reset control.
#[component]
pub fn ProgressSummary() -> impl IntoView {
    let progress = use_progress();
    let confirming = RwSignal::new(false);
    let done = RwSignal::new(false);
    // The control that replaces the one just pressed takes the focus, so a keyboard user is never dropped on <body>.
    let reset_ref = NodeRef::<html::Button>::new();
    let keep_ref = NodeRef::<html::Button>::new();
    let focus = |target: NodeRef<html::Button>| {
        request_animation_frame(move || {
            if let Some(button) = target.get_untracked() {
                let _ = button.focus();
            }
        })
    };
    let ask = move |_| {
        done.set(false);
        confirming.set(true);
        focus(keep_ref);
    };
    let reset = move |_| {
        progress.reset();
        confirming.set(false);
        done.set(true);
        focus(reset_ref);
    };
    let keep = move |_| {
        confirming.set(false);
        focus(reset_ref);
    };
    view! {
        <section class="lesson-progress" aria-label="Your progress">
            <p class="progress-count">{move || progress.summary().sentence()}</p>
            <p class="progress-note" role="status">{move || progress.note()}</p>
            <Show
                when=move || confirming.get()
                fallback=move || view! {
                    <button type="button" class="progress-reset" node_ref=reset_ref on:click=ask>
                        "Reset my progress"
                    </button>
                }
            >
                <span class="progress-confirm">
                    "Forget every guess and tick in this lesson? "
                    <button type="button" class="progress-reset" on:click=reset>"Yes, reset"</button>
                    <button type="button" class="progress-reset" node_ref=keep_ref on:click=keep>"Keep it"</button>
                </span>
            </Show>
            <p class="progress-done" role="status">{move || done.get().then_some("Progress reset.")}</p>
        </section>
    }
}
