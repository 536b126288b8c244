//! The progress line at the top of a lesson: how far the learner got, the one storage note if any, and "Reset my
//! progress", asked twice so a stray press loses nothing. Pre-rendered it counts the lesson's steps; live (the wasm
//! mounts the same view) it follows the learner's saved progress.

use leptos::html;
use leptos::prelude::*;

/// The line. `count`: what it says of the learner's progress. `note`: why their progress may not be kept, if it may
/// not. `forget`: erases their progress. Pre-rendered, the reset is hidden without JavaScript (`needs-js`) and
/// shown inert until the wasm mounts the live line (`app.css`); it is the same button, so the line keeps its size.
///
/// A plain function rather than a `#[component]`: the page's wasm has one caller, and a component's props builder
/// and type-erased layer would cost it bytes its budget does not have.
pub fn progress_line<C, N, F>(count: C, note: N, forget: F) -> impl IntoView
where
    C: Fn() -> String + Send + Sync + 'static,
    N: Fn() -> Option<String> + Send + Sync + 'static,
    F: Fn() + Copy + Send + Sync + 'static,
{
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
        forget();
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
            <p class="progress-count">{count}</p>
            <p class="progress-note" role="status">{note}</p>
            <Show
                when=move || confirming.get()
                fallback=move || view! {
                    <button type="button" class="progress-reset needs-js" node_ref=reset_ref on:click=ask>
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
