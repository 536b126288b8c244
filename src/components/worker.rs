//! The page's web workers (Trunk's `data-type="worker"` builds: the teacher's, the calibration's), started on first
//! use so that a first visit never loads them.
//!
//! Each is started from a `blob:` URL whose script loads the worker's build from the site: a worker started that way
//! inherits the page's Content-Security-Policy, so its requests obey the page's `connect-src`. Messages posted while
//! its wasm loads wait, and reach the worker's own handler once its `main` has set it.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::js_sys::Array;
use web_sys::{Blob, BlobPropertyBag, ErrorEvent, MessageEvent, Url, Worker};

use super::site_base::SiteBase;

/// The message `on_message` gets when the worker's script or wasm cannot load (offline before its first use, say):
/// `[FAILED, what the browser said]`.
pub const FAILED: &str = "failed";

/// Starts the worker Trunk built as `name` (e.g. `teacher-worker`); `on_message` gets each message it posts, an
/// array, and [`FAILED`] if it never starts. `None` when the browser refuses workers.
pub fn start(name: &str, on_message: impl Fn(Array) + 'static) -> Option<Worker> {
    let location = leptos::prelude::document().location()?;
    let site = format!("{}{}", location.origin().ok()?, SiteBase::from_document().0);
    let loader = format!(
        "const waiting=[];self.onmessage=(e)=>waiting.push(e);importScripts(\"{site}/{name}.js\");\
         wasm_bindgen({{module_or_path:\"{site}/{name}_bg.wasm\"}})\
         .then(()=>waiting.forEach((e)=>self.onmessage(e)));"
    );
    let options = BlobPropertyBag::new();
    options.set_type("text/javascript");
    let parts: Array = std::iter::once(JsValue::from(loader)).collect();
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    let worker = Worker::new(&Url::create_object_url_with_blob(&blob).ok()?).ok()?;
    let on_message = std::rc::Rc::new(on_message);
    let replies = on_message.clone();
    let handler = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        replies(Array::from(&event.data()));
    });
    worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    let failure = Closure::<dyn Fn(ErrorEvent)>::new(move |event: ErrorEvent| {
        on_message(Array::of2(&FAILED.into(), &event.message().into()));
    });
    worker.set_onerror(Some(failure.as_ref().unchecked_ref()));
    // The worker lives as long as the page.
    handler.forget();
    failure.forget();
    Some(worker)
}

/// Posts `parts` to `worker` as one array.
pub fn post(worker: &Worker, parts: &[&str]) {
    let message: Array = parts.iter().map(|part| JsValue::from(*part)).collect();
    let _ = worker.post_message(&message);
}
