//! Code the page fetches when it is needed, not on every visit: each widget kind and presentation mode is a
//! `#[wasm_split]` point, and the build (tools/split-page.mjs) cuts what only that point reaches out of the page's
//! wasm into a module of its own, loaded by the split's generated `preload` function (once; a failed load is retried
//! on the next call). The pattern: `load().await` while the static copy stays on show, then build the component at
//! once with [`ready_now`], under the reactive owner it belongs to.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use leptos::wasm_split::SplitLoaderError;

/// The value of a split point's call whose module is loaded, which resolves at its first poll; `None` (and a note
/// in the console) if it is not loaded after all.
pub fn ready_now<T>(call: impl Future<Output = Result<T, SplitLoaderError>>) -> Option<T> {
    match pin!(call).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(Ok(value)) => Some(value),
        Poll::Ready(Err(error)) => {
            web_sys::console::warn_1(&format!("goodput: {error}").into());
            None
        }
        Poll::Pending => {
            web_sys::console::warn_1(&"goodput: built on-demand code before loading it".into());
            None
        }
    }
}

/// Says in the console that the code of `what` could not be fetched (offline before its first use, say): the static
/// copy stays, and the next time it is needed the page tries again.
pub fn report_unloaded(what: &str, error: SplitLoaderError) {
    web_sys::console::warn_1(
        &format!("goodput: {what} stays static: its code did not load ({error})").into(),
    );
}
