//! `CopyBlock`: text to paste elsewhere (a Prometheus rule, a KEDA object), in a scrollable `<pre>` with a Copy button
//! that says whether the copy worked. Where the browser has no clipboard to offer (`navigator.clipboard` is missing
//! outside a secure context, e.g. a course served over plain http from another host) or refuses it, the button
//! selects the text instead, so Ctrl+C copies it.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
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
    let pre = NodeRef::<leptos::html::Pre>::new();
    let failed = move || {
        if let Some(pre) = pre.get_untracked() {
            select_contents(&pre);
        }
        state.set(CopyState::Failed);
    };
    let copy = move |_| {
        let Some(clipboard) = clipboard() else {
            failed();
            return;
        };
        let promise = clipboard.write_text(&text.get_untracked());
        leptos::task::spawn_local(async move {
            if JsFuture::from(promise).await.is_ok() {
                state.set(CopyState::Copied);
            } else {
                failed();
            }
        });
    };
    let status = move || {
        match state.get() {
        CopyState::Idle => "",
        CopyState::Copied => "Copied.",
        CopyState::Failed => {
            "Copy failed: select the text and copy it by hand. It is selected now, so Ctrl+C (⌘C on a Mac) copies it."
        }
    }
    };
    view! {
        <figure class="copy-block">
            <figcaption>
                <span class="copy-block-caption">{caption}</span>
                " "
                <code>{file_name}</code>
            </figcaption>
            <pre node_ref=pre tabindex="0" role="region" aria-label=format!("{caption}, {file_name}")><code>{move || text.get()}</code></pre>
            <div class="copy-block-actions">
                <button type="button" class="widget-button" on:click=copy>
                    {format!("Copy {file_name}")}
                </button>
                <span class="copy-block-status" role="status">{status}</span>
            </div>
        </figure>
    }
}

/// `navigator.clipboard`, which browsers leave undefined outside a secure context; web-sys would call it regardless.
fn clipboard() -> Option<web_sys::Clipboard> {
    let navigator = window().navigator();
    let value = web_sys::js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard")).ok()?;
    (!value.is_undefined() && !value.is_null()).then(|| value.unchecked_into())
}

/// Selects everything inside `element`, as a triple click would.
fn select_contents(element: &web_sys::Element) {
    if let Ok(Some(selection)) = window().get_selection() {
        let _ = selection.select_all_children(element);
    }
}
