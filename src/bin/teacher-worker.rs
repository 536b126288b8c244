//! The teacher's web worker: ranks the lesson's passages for the Ask box, off the page's first load and off its
//! main thread. It embeds the compiled lessons and builds a lesson's index on its first question.
//!
//! Messages: the page posts `[slug, question]`; the worker answers `[html, context]`: the course's answer as the
//! Ask box shows it, and the passages a learner's own model gets with the question.

#[cfg(target_arch = "wasm32")]
fn main() {
    worker::listen();
}

// Native builds (cargo test, clippy) have nothing to run: the worker exists only in the browser.
#[cfg(not(target_arch = "wasm32"))]
fn main() {}

#[cfg(target_arch = "wasm32")]
mod worker {
    use std::cell::RefCell;
    use std::collections::HashMap;

    use goodput::lesson::find;
    use goodput::teacher::Teacher;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::js_sys::Array;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    thread_local! {
        /// Each lesson's teacher, built on its first question.
        static TEACHERS: RefCell<HashMap<String, Teacher>> = RefCell::new(HashMap::new());
    }

    pub fn listen() {
        let scope: DedicatedWorkerGlobalScope = web_sys::js_sys::global().unchecked_into();
        let reply_scope = scope.clone();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let message = Array::from(&event.data());
            let slug = message.get(0).as_string().unwrap_or_default();
            let question = message.get(1).as_string().unwrap_or_default();
            let (html, context) = answer(&slug, &question);
            let reply = Array::of2(&JsValue::from(html), &JsValue::from(context));
            let _ = reply_scope.post_message(&reply);
        });
        scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The worker lives as long as the page that started it.
        on_message.forget();
    }

    fn answer(slug: &str, question: &str) -> (String, String) {
        let Some(lesson) = find(slug) else {
            return (
                format!("<p>This page's lesson ({slug}) is not in the course's index.</p>"),
                String::new(),
            );
        };
        TEACHERS.with_borrow_mut(|teachers| {
            let teacher = teachers
                .entry(slug.to_owned())
                .or_insert_with(|| Teacher::new(lesson));
            (
                teacher.answer_html(question),
                teacher.model_context(question),
            )
        })
    }
}
