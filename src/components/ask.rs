//! The Ask box, live. Its markup is the static page's (`crate::pages`, ids in [`crate::teacher::markup`]); this
//! enables it and wires it with plain DOM listeners, which cost the page's wasm far less than a component would.
//! The course's answers come from the `teacher-worker` (started on the first question, so the first visit never
//! loads it); a learner's own model is asked from here, so the page's Content-Security-Policy governs the request.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::js_sys::{Array, Reflect, Uint8Array};
use web_sys::{
    AbortController, Document, Element, Event, EventInit, Headers, HtmlButtonElement, HtmlElement,
    HtmlInputElement, KeyboardEvent, MessageEvent, ReadableStreamDefaultReader, RequestInit,
    RequestMode, Response, TextDecodeOptions, TextDecoder, Worker,
};

use super::site_base::SiteBase;
use crate::presentation::keys::{action_for, focus_kind, KeyAction, KeyPress};
use crate::teacher::markup as ids;
use crate::teacher::model::{
    chat_request, endpoint, excerpt, first_model, Clocks, Failure, StreamEvent, StreamReader,
};

type Answered = Box<dyn FnOnce(String, String)>;

/// The Ask box's state: its worker (once started) and the answers it owes, and the model request under way.
struct AskBox {
    document: Document,
    slug: String,
    worker_url: String,
    worker: RefCell<Option<Worker>>,
    /// Callbacks for the worker's answers, in the order asked (it answers in order).
    waiting: RefCell<VecDeque<Answered>>,
    abort: RefCell<Option<AbortController>>,
    stopped: Cell<bool>,
}

/// Brings the page's Ask box to life, if it has one.
pub fn start() {
    let document = leptos::prelude::document();
    let Some(section) = document.get_element_by_id(ids::SECTION) else {
        return;
    };
    let ask = Rc::new(AskBox {
        slug: section
            .get_attribute(ids::LESSON_ATTRIBUTE)
            .unwrap_or_default(),
        worker_url: SiteBase::from_document().href("/teacher-worker_loader.js"),
        document,
        worker: RefCell::new(None),
        waiting: RefCell::new(VecDeque::new()),
        abort: RefCell::new(None),
        stopped: Cell::new(false),
    });
    if let Ok(controls) = section.query_selector_all("input, button") {
        for index in 0..controls.length() {
            if let Some(control) = controls
                .item(index)
                .and_then(|node| node.dyn_into::<Element>().ok())
            {
                // Stop stays disabled until there is something to stop.
                if control.id() != ids::MODEL_STOP {
                    let _ = control.remove_attribute("disabled");
                }
            }
        }
    }
    let on = |id: &str, kind: &str, handler: Box<dyn Fn(Event)>| {
        if let Some(element) = ask.document.get_element_by_id(id) {
            let closure = Closure::<dyn Fn(Event)>::new(handler);
            let _ =
                element.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref());
            // The box lives as long as the page.
            closure.forget();
        }
    };
    let this = ask.clone();
    on(
        ids::FORM,
        "submit",
        Box::new(move |event: Event| {
            event.prevent_default();
            let question = this.value(ids::QUESTION);
            let shown = this.clone();
            this.set_html(ids::ANSWER, "<p>Looking through the lesson…</p>");
            this.ask_course(
                &question,
                Box::new(move |html, _| shown.set_html(ids::ANSWER, &html)),
            );
        }),
    );
    let this = ask.clone();
    on(
        ids::ANSWER,
        "click",
        Box::new(move |event: Event| this.open_sizer(&event)),
    );
    let this = ask.clone();
    on(
        ids::MODEL_SEND,
        "click",
        Box::new(move |_| this.clone().ask_model()),
    );
    let this = ask.clone();
    on(ids::MODEL_STOP, "click", Box::new(move |_| this.stop()));
    let this = ask.clone();
    let keys =
        Closure::<dyn Fn(KeyboardEvent)>::new(move |event: KeyboardEvent| this.on_key(&event));
    let _ = leptos::prelude::window()
        .add_event_listener_with_callback("keydown", keys.as_ref().unchecked_ref());
    keys.forget();
}

impl AskBox {
    fn element(&self, id: &str) -> Option<Element> {
        self.document.get_element_by_id(id)
    }

    fn value(&self, id: &str) -> String {
        self.element(id)
            .and_then(|element| element.dyn_into::<HtmlInputElement>().ok())
            .map(|input| input.value().trim().to_owned())
            .unwrap_or_default()
    }

    /// Markup the teacher wrote (its text escaped, its links in the page).
    fn set_html(&self, id: &str, html: &str) {
        if let Some(element) = self.element(id) {
            element.set_inner_html(html);
        }
    }

    fn set_text(&self, id: &str, text: &str) {
        if let Some(element) = self.element(id) {
            element.set_text_content(Some(text));
        }
    }

    fn set_disabled(&self, id: &str, disabled: bool) {
        if let Some(button) = self
            .element(id)
            .and_then(|e| e.dyn_into::<HtmlButtonElement>().ok())
        {
            button.set_disabled(disabled);
        }
    }

    /// Sends `question` to the worker (starting it the first time); `then` gets the answer's HTML and the passages
    /// for a model.
    fn ask_course(self: &Rc<Self>, question: &str, then: Answered) {
        if self.worker.borrow().is_none() {
            let Ok(worker) = Worker::new(&self.worker_url) else {
                self.set_html(
                    ids::ANSWER,
                    "<p>The teacher could not start in this browser (no web workers).</p>",
                );
                return;
            };
            let this = self.clone();
            let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
                let reply = Array::from(&event.data());
                let answered = this.waiting.borrow_mut().pop_front();
                if let Some(answered) = answered {
                    answered(
                        reply.get(0).as_string().unwrap_or_default(),
                        reply.get(1).as_string().unwrap_or_default(),
                    );
                }
            });
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            on_message.forget();
            let this = self.clone();
            let on_error = Closure::<dyn Fn(Event)>::new(move |_| {
                this.waiting.borrow_mut().clear();
                this.set_html(
                    ids::ANSWER,
                    "<p>The teacher's worker failed to load: reload the page to try again.</p>",
                );
            });
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            on_error.forget();
            *self.worker.borrow_mut() = Some(worker);
        }
        self.waiting.borrow_mut().push_back(then);
        let message = Array::of2(&JsValue::from(self.slug.as_str()), &JsValue::from(question));
        if let Some(worker) = self.worker.borrow().as_ref() {
            let _ = worker.post_message(&message);
        }
    }

    /// A sizing answer's "Open the sizer with these numbers": fills the sizer's fields and takes the reader there.
    fn open_sizer(&self, event: &Event) {
        let selector = format!("[{}peak-qps]", ids::SIZER_PREFIX);
        let Some(button) = event
            .target()
            .and_then(|target| target.dyn_into::<Element>().ok())
            .and_then(|target| target.closest(&selector).ok().flatten())
        else {
            return;
        };
        let Some(sizer) = self
            .document
            .query_selector("[data-widget-name=\"littles-law-sizer\"]")
            .ok()
            .flatten()
        else {
            return;
        };
        sizer.scroll_into_view();
        let values: Vec<String> = ["max-num-seqs", "latency-s", "peak-qps", "headroom"]
            .iter()
            .map(|name| {
                button
                    .get_attribute(&format!("{}{name}", ids::SIZER_PREFIX))
                    .unwrap_or_default()
            })
            .collect();
        // The sizer mounts as it comes near the window: fill it once its fields exist.
        fill_sizer(sizer, values, 20);
    }

    fn on_key(&self, event: &KeyboardEvent) {
        let key = event.key();
        let press = KeyPress {
            key: &key,
            shift: event.shift_key(),
            ctrl: event.ctrl_key(),
            alt: event.alt_key(),
            meta: event.meta_key(),
        };
        let target = event
            .target()
            .and_then(|target| target.dyn_into::<Element>().ok());
        let focus = target
            .as_ref()
            .map_or(crate::presentation::keys::FocusKind::Page, |element| {
                let editable = element
                    .dyn_ref::<HtmlElement>()
                    .is_some_and(HtmlElement::is_content_editable);
                focus_kind(
                    &element.tag_name(),
                    element.get_attribute("type").as_deref(),
                    editable,
                )
            });
        if action_for(press, focus) != Some(KeyAction::Ask) {
            return;
        }
        let Some(input) = self
            .element(ids::QUESTION)
            .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
        else {
            return;
        };
        // Hidden (the audience window of a presentation): the key does nothing there.
        if input.offset_parent().is_none() {
            return;
        }
        event.prevent_default();
        input.scroll_into_view();
        let _ = input.focus();
    }

    fn stop(&self) {
        self.stopped.set(true);
        if let Some(abort) = self.abort.borrow_mut().take() {
            abort.abort();
        }
    }

    /// "Ask my model": the course's passages for the question, then the learner's server, streamed.
    fn ask_model(self: Rc<Self>) {
        let location = leptos::prelude::window().location();
        let protocol = location.protocol().unwrap_or_default();
        let question = self.value(ids::QUESTION);
        if question.is_empty() {
            self.set_text(ids::MODEL_STATUS, "Type a question in the Ask field first.");
            return;
        }
        let endpoint = match endpoint(&self.value(ids::MODEL_URL), &protocol) {
            Ok(endpoint) => endpoint,
            Err(message) => return self.set_text(ids::MODEL_STATUS, &message),
        };
        self.set_text(
            ids::MODEL_STATUS,
            "Finding the course's passages for the question…",
        );
        self.set_text(ids::MODEL_ANSWER, "");
        self.set_text(ids::MODEL_CLOCKS, "");
        self.set_disabled(ids::MODEL_SEND, true);
        let this = self.clone();
        self.ask_course(
            &question.clone(),
            Box::new(move |html, context| {
                this.set_html(ids::ANSWER, &html);
                spawn_local(async move {
                    let page_origin = location.origin().unwrap_or_default();
                    let outcome = this
                        .stream(&endpoint, &page_origin, &question, &context)
                        .await;
                    this.abort.borrow_mut().take();
                    this.set_disabled(ids::MODEL_SEND, false);
                    this.set_disabled(ids::MODEL_STOP, true);
                    let status = match outcome {
                        Ok(()) => "The answer is complete.".to_owned(),
                        Err(_) if this.stopped.get() => "Stopped.".to_owned(),
                        Err(failure) => failure.message(),
                    };
                    this.set_text(ids::MODEL_STATUS, &status);
                });
            }),
        );
    }

    /// Sends the question and streams the answer into the page with its clocks.
    async fn stream(
        &self,
        endpoint: &crate::teacher::model::Endpoint,
        page_origin: &str,
        question: &str,
        context: &str,
    ) -> Result<(), Failure> {
        let abort = AbortController::new().map_err(|_| Failure::NotStreaming)?;
        self.stopped.set(false);
        *self.abort.borrow_mut() = Some(abort.clone());
        self.set_disabled(ids::MODEL_STOP, false);
        let key = self.value(ids::MODEL_KEY);
        let request = |method: &str, body: Option<&str>| {
            let init = RequestInit::new();
            init.set_method(method);
            init.set_signal(Some(&abort.signal()));
            if let Ok(headers) = Headers::new() {
                if body.is_some() {
                    let _ = headers.set("Content-Type", "application/json");
                }
                if !key.is_empty() {
                    let _ = headers.set("Authorization", &format!("Bearer {key}"));
                }
                init.set_headers(&headers);
            }
            if let Some(body) = body {
                init.set_body(&JsValue::from(body));
            }
            init
        };
        let mut model = self.value(ids::MODEL_NAME);
        if model.is_empty() {
            self.set_text(
                ids::MODEL_STATUS,
                "Asking the server which model it serves…",
            );
            let response = self
                .fetch(
                    &endpoint.models(),
                    &request("GET", None),
                    endpoint,
                    page_origin,
                )
                .await?;
            let url = endpoint.models();
            let body = checked_text(response, &url, "").await?;
            model = first_model(&body)?;
        }
        self.set_text(ids::MODEL_STATUS, &format!("Asking {model}…"));
        let body = chat_request(&model, question, context);
        let performance = leptos::prelude::window().performance();
        let now = move || performance.as_ref().map_or(0.0, |p| p.now());
        let mut clocks = Clocks::started(now());
        self.set_text(ids::MODEL_CLOCKS, &clocks.line());
        let url = endpoint.chat_completions();
        let response = self
            .fetch(&url, &request("POST", Some(&body)), endpoint, page_origin)
            .await?;
        if !response.ok() {
            return checked_text(response, &url, &model).await.map(|_| ());
        }
        let reader: ReadableStreamDefaultReader = response
            .body()
            .ok_or(Failure::NotStreaming)?
            .get_reader()
            .unchecked_into();
        let decoder = TextDecoder::new().map_err(|_| Failure::NotStreaming)?;
        let options = TextDecodeOptions::new();
        options.set_stream(true);
        let mut events = StreamReader::new();
        self.set_text(ids::MODEL_STATUS, &format!("{model} is answering…"));
        loop {
            let chunk = JsFuture::from(reader.read())
                .await
                .map_err(|_| Failure::NotStreaming)?;
            let done = Reflect::get(&chunk, &"done".into())
                .ok()
                .and_then(|d| d.as_bool())
                .unwrap_or(true);
            let piece = if done {
                events.finish()?
            } else {
                let bytes: Uint8Array = Reflect::get(&chunk, &"value".into())
                    .map_err(|_| Failure::NotStreaming)?
                    .unchecked_into();
                let text = decoder
                    .decode_with_buffer_source_and_options(&bytes, &options)
                    .unwrap_or_default();
                events.push(&text)?
            };
            let at = now();
            for event in piece {
                match event {
                    StreamEvent::Text(text) => {
                        clocks.text(at);
                        if let Some(answer) = self.element(ids::MODEL_ANSWER) {
                            let _ = answer.append_with_str_1(&text);
                        }
                    }
                    StreamEvent::Usage(tokens) => clocks.usage(tokens),
                    StreamEvent::Done => {
                        self.set_text(ids::MODEL_CLOCKS, &clocks.line());
                        let _ = reader.cancel();
                        return Ok(());
                    }
                }
            }
            self.set_text(ids::MODEL_CLOCKS, &clocks.line());
            if done {
                return Ok(());
            }
        }
    }

    /// `fetch`, with a network failure told apart: a server that answers a no-cors probe is there but refuses
    /// this page (CORS); one that does not is not listening.
    async fn fetch(
        &self,
        url: &str,
        init: &RequestInit,
        endpoint: &crate::teacher::model::Endpoint,
        page_origin: &str,
    ) -> Result<Response, Failure> {
        let window = leptos::prelude::window();
        match JsFuture::from(window.fetch_with_str_and_init(url, init)).await {
            Ok(response) => Ok(response.unchecked_into()),
            Err(_) if self.stopped.get() => Err(Failure::NotStreaming),
            Err(_) => {
                let probe = RequestInit::new();
                probe.set_mode(RequestMode::NoCors);
                let listening =
                    JsFuture::from(window.fetch_with_str_and_init(&endpoint.models(), &probe))
                        .await
                        .is_ok();
                Err(if listening {
                    Failure::CorsRefused {
                        origin: endpoint.origin.clone(),
                        page_origin: page_origin.to_owned(),
                    }
                } else {
                    Failure::NotListening {
                        origin: endpoint.origin.clone(),
                    }
                })
            }
        }
    }
}

/// The body of a response that should have succeeded, or the failure its status means.
async fn checked_text(response: Response, url: &str, model: &str) -> Result<String, Failure> {
    let status = response.status();
    let body = match response.text() {
        Ok(promise) => JsFuture::from(promise)
            .await
            .ok()
            .and_then(|text| text.as_string())
            .unwrap_or_default(),
        Err(_) => String::new(),
    };
    match status {
        200..=299 => Ok(body),
        401 | 403 => Err(Failure::Unauthorized { status }),
        404 => Err(Failure::NotFound {
            url: url.to_owned(),
            model: model.to_owned(),
        }),
        _ => Err(Failure::Status {
            status,
            body: excerpt(&body),
        }),
    }
}

/// Sets the sizer's text fields (cap, latency, peak, headroom) as if typed, once the sizer has mounted; tries
/// again every 150 ms, `tries` times.
fn fill_sizer(sizer: Element, values: Vec<String>, tries: u32) {
    let inputs = sizer.query_selector_all(".sizer-inputs input").ok();
    if inputs.as_ref().is_none_or(|inputs| inputs.length() < 4) {
        if tries > 0 {
            gloo_timers::callback::Timeout::new(150, move || fill_sizer(sizer, values, tries - 1))
                .forget();
        }
        return;
    }
    let inputs = inputs.expect("checked above");
    let init = EventInit::new();
    init.set_bubbles(true);
    for (index, value) in values.iter().enumerate() {
        let Some(input) = inputs
            .item(index as u32)
            .and_then(|node| node.dyn_into::<HtmlInputElement>().ok())
        else {
            continue;
        };
        input.set_value(value);
        if let Ok(event) = Event::new_with_event_init_dict("input", &init) {
            let _ = input.dispatch_event(&event);
        }
        if index == 0 {
            let _ = input.focus();
        }
    }
}
