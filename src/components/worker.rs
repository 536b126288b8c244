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

/// The kinds of message `on_message` gets when the worker's script or wasm cannot load (offline before its first use,
/// say), `[FAILED, what the browser said]`, and when it failed while it ran (a panic, a trap), `[CRASHED, what it
/// said]`: that worker is then of no more use; terminate it, and start another for the next task.
pub use crate::server_protocol::{CRASHED, FAILED};

/// Starts the worker Trunk built as `name` (e.g. `teacher-worker`); `on_message` gets each message it posts, an
/// array, [`FAILED`] if it never starts and [`CRASHED`] if it fails later. `None` when the browser refuses workers.
pub fn start(name: &str, on_message: impl Fn(Array) + 'static) -> Option<Worker> {
    let (script, wasm) = files(name)?;
    // Every error in the worker becomes one message to the page, FAILED before its wasm runs and CRASHED after.
    let loader = format!(
        "const waiting=[];let running=false;\
         const report=(what)=>postMessage([running?\"{CRASHED}\":\"{FAILED}\",String(what)]);\
         self.addEventListener(\"error\",(e)=>{{e.preventDefault();report(e.message);}});\
         self.addEventListener(\"unhandledrejection\",(e)=>{{e.preventDefault();report(e.reason);}});\
         self.onmessage=(e)=>waiting.push(e);importScripts(\"{script}\");\
         wasm_bindgen({{module_or_path:\"{wasm}\"}})\
         .then(()=>{{running=true;waiting.forEach((e)=>self.onmessage(e));}},report);"
    );
    let options = BlobPropertyBag::new();
    options.set_type("text/javascript");
    let parts: Array = std::iter::once(JsValue::from(loader)).collect();
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    let worker = Worker::new(&Url::create_object_url_with_blob(&blob).ok()?).ok()?;
    crate::offline::keep_for_offline(&[script, wasm]);
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
    // Kept while the worker lives: as long as the page, or until it is terminated (a few bytes each).
    handler.forget();
    failure.forget();
    Some(worker)
}

/// In a worker: a panic posts `[CRASHED, the panic's message]` to the page before the worker stops (wasm aborts on
/// a panic), so the page can say what happened rather than wait for an answer that will not come.
pub fn post_panics() {
    std::panic::set_hook(Box::new(|info| {
        let scope: web_sys::DedicatedWorkerGlobalScope = web_sys::js_sys::global().unchecked_into();
        let said = info.to_string().replace('\n', " ");
        let _ = scope.post_message(&Array::of2(&CRASHED.into(), &said.into()));
    }));
}

/// In a worker: posts one message to the page, as the array of strings its protocol encodes.
pub fn post_parts(parts: Vec<String>) {
    let scope: web_sys::DedicatedWorkerGlobalScope = web_sys::js_sys::global().unchecked_into();
    let parts: Array = parts.into_iter().map(JsValue::from).collect();
    let _ = scope.post_message(&parts);
}

/// In a worker: hands each message the page posts to `on_parts` as its strings (a part that is not a string reads as
/// empty, for the protocol's decoder to refuse).
pub fn listen_for_parts(on_parts: impl Fn(Vec<String>) + 'static) {
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let parts = Array::from(&event.data())
            .iter()
            .map(|part| part.as_string().unwrap_or_default())
            .collect();
        on_parts(parts);
    });
    let scope: web_sys::DedicatedWorkerGlobalScope = web_sys::js_sys::global().unchecked_into();
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The worker's one handler, for its whole life.
    on_message.forget();
}

/// The name of worker `name`'s files in this page's build: `tools/version-workers.mjs` adds a hash of their content
/// and writes it into the page as `<meta name="goodput-NAME" content="NAME-HASH">`, so that a page never loads the
/// worker of another build. Without that (a build that skipped the step), Trunk's own name.
/// Has the service worker keep the worker Trunk built as `name` for offline use, without starting it: presenting
/// does, for the workers its screens' widgets start (a classroom offline after one rehearsal).
pub fn keep_for_offline(name: &str) {
    if let Some((script, wasm)) = files(name) {
        crate::offline::keep_for_offline(&[script, wasm]);
    }
}

/// The addresses of the script and the wasm of the worker Trunk built as `name`.
fn files(name: &str) -> Option<(String, String)> {
    let document = leptos::prelude::document();
    let site = format!(
        "{}{}",
        document.location()?.origin().ok()?,
        SiteBase::from_document().0
    );
    let name = built_name(&document, name);
    Some((
        format!("{site}/{name}.js"),
        format!("{site}/{name}_bg.wasm"),
    ))
}

fn built_name(document: &web_sys::Document, name: &str) -> String {
    document
        .query_selector(&format!("meta[name=\"goodput-{name}\"]"))
        .ok()
        .flatten()
        .and_then(|meta| meta.get_attribute("content"))
        .filter(|built| {
            built.starts_with(name)
                && built
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
        .unwrap_or_else(|| name.to_owned())
}

/// A message's parts as strings (a part that is not one reads as empty, which the protocol then refuses by name).
pub fn strings(message: &Array) -> Vec<String> {
    message
        .iter()
        .map(|part| part.as_string().unwrap_or_default())
        .collect()
}

/// Posts a protocol's encoded message (`parts`) to `worker` as one array.
pub fn post(worker: &Worker, parts: Vec<String>) {
    let message: Array = parts.into_iter().map(JsValue::from).collect();
    let _ = worker.post_message(&message);
}
