//! `CopyBlock`: text to paste elsewhere (a Prometheus rule, a KEDA object), in a scrollable `<pre>` with a Copy button
//! that says whether the copy worked.

use leptos::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Where a copy stands, as the status line reads it.
#[derive(Clone, Copy, PartialEq)]
enum CopyState {
    Idle,
    Copied,
    Failed,
}

/// `text` under a caption, with a Copy button. The `<pre>` is a focusable, named region so keyboard users can scroll
/// and select it.
#[component]
pub fn CopyBlock(
    /// Caption above the text, e.g. "Prometheus alert rule".
    caption: &'static str,
    /// File-like name shown in the caption, e.g. `vllm-knee.rules.yaml`.
    file_name: &'static str,
    /// The text to show and copy.
    #[prop(into)]
    text: Signal<String>,
) -> impl IntoView {
    let state = RwSignal::new(CopyState::Idle);
    // A new text makes an old "Copied" a lie.
    Effect::new(move |_| {
        text.track();
        state.set(CopyState::Idle);
    });
    let copy = move |_| {
        let clipboard = window().navigator().clipboard();
        let promise = clipboard.write_text(&text.get_untracked());
        leptos::task::spawn_local(async move {
            let copied = JsFuture::from(promise).await.is_ok();
            state.set(if copied {
                CopyState::Copied
            } else {
                CopyState::Failed
            });
        });
    };
    let status = move || match state.get() {
        CopyState::Idle => "",
        CopyState::Copied => "Copied.",
        CopyState::Failed => {
            "The browser refused the clipboard: select the text and copy it by hand."
        }
    };
    view! {
        <figure class="copy-block">
            <figcaption>
                <span class="copy-block-caption">{caption}</span>
                " "
                <code>{file_name}</code>
            </figcaption>
            <pre tabindex="0" role="region" aria-label=format!("{caption}, {file_name}")><code>{move || text.get()}</code></pre>
            <div class="copy-block-actions">
                <button type="button" class="widget-button" on:click=copy>
                    {format!("Copy {file_name}")}
                </button>
                <span class="copy-block-status" role="status">{status}</span>
            </div>
        </figure>
    }
}
