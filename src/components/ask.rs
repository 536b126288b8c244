//! The Ask box, live. Its markup is the static page's (`goodput-pages`, ids in [`crate::lesson::ask_markup`]); this
//! enables it and wires it with plain DOM listeners, which cost the page's wasm far less than a component would.
//! Everything else happens in the `teacher-worker` (`src/bin/teacher-worker/`, messages in
//! [`crate::teacher_protocol`]), started on the first question so
//! a first visit never loads it: ranking the lesson's passages, and asking a learner's own model. The worker is
//! started from a `blob:` URL (`super::worker`) so that it inherits the page's Content-Security-Policy, whose
//! `connect-src` then governs the requests it sends.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::js_sys::Array;
use web_sys::{
    Element, Event, EventInit, HtmlButtonElement, HtmlInputElement, KeyboardEvent, Worker,
};

use crate::components::present::keyboard::key_action_of;
use crate::lesson::ask_markup as ids;
use crate::presentation::keys::KeyAction;
use crate::teacher_protocol::{FromWorker, ModelServer, ToWorker};

/// After Stop, a model's answer that has not ended by then is ended by ending the worker: one busy on something it
/// cannot finish never reads the stop.
const STOP_GRACE_MS: u32 = 2_000;

/// The Ask box and its worker, once started.
struct AskBox {
    /// The box's own `<section>`: every field and output is looked up inside it, never in the whole document, where
    /// a contributed lesson could have put an element with the same id first.
    section: Element,
    slug: String,
    /// The worker, numbered by `workers_started`, so that a word from one already ended is ignored.
    worker: RefCell<Option<(u32, Worker)>>,
    workers_started: Cell<u32>,
    /// The model's answer under way, numbered by `answers`, until its `end`.
    answers: Cell<u32>,
    answering: Cell<Option<u32>>,
}

/// Brings the page's Ask box to life, if it has one.
pub fn start() {
    let document = leptos::prelude::document();
    let Some(section) = document
        .query_selector(ids::SECTION_SELECTOR)
        .ok()
        .flatten()
    else {
        return;
    };
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
    let ask = Rc::new(AskBox {
        slug: section
            .get_attribute(ids::LESSON_ATTRIBUTE)
            .unwrap_or_default(),
        section,
        worker: RefCell::new(None),
        workers_started: Cell::new(0),
        answers: Cell::new(0),
        answering: Cell::new(None),
    });
    let on = |id: &str, kind: &str, handler: Box<dyn Fn(Event)>| {
        if let Some(element) = ask.element(id) {
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
            this.set(ids::ANSWER, "Looking through the lesson…");
            this.post(&ToWorker::Ask {
                slug: this.slug.clone(),
                question: this.value(ids::QUESTION),
            });
        }),
    );
    on(ids::ANSWER, "click", Box::new(open_sizer));
    let this = ask.clone();
    on(
        ids::MODEL_SEND,
        "click",
        Box::new(move |_| this.ask_model()),
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
    /// The box's element `id`, inside its own section only.
    fn element(&self, id: &str) -> Option<Element> {
        self.section
            .query_selector(&format!("#{id}"))
            .ok()
            .flatten()
    }

    fn value(&self, id: &str) -> String {
        self.element(id)
            .and_then(|element| element.dyn_into::<HtmlInputElement>().ok())
            .map(|input| input.value().trim().to_owned())
            .unwrap_or_default()
    }

    fn set(&self, id: &str, text: &str) {
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

    /// Posts `message` to the worker, starting it the first time (and again after one was ended).
    fn post(self: &Rc<Self>, message: &ToWorker) -> bool {
        if self.worker.borrow().is_none() {
            match self.start_worker() {
                Some(worker) => *self.worker.borrow_mut() = Some(worker),
                None => {
                    self.set(ids::ANSWER, "The teacher could not start in this browser.");
                    return false;
                }
            }
        }
        if let Some((_, worker)) = self.worker.borrow().as_ref() {
            super::worker::post(worker, message.encode());
        }
        true
    }

    /// Stop: the worker aborts the model's request; if the answer has not ended soon after, the worker is ended.
    fn stop(self: &Rc<Self>) {
        let Some(answer) = self.answering.get() else {
            return;
        };
        self.post(&ToWorker::Stop);
        let this = self.clone();
        gloo_timers::callback::Timeout::new(STOP_GRACE_MS, move || {
            if this.answering.get() == Some(answer) {
                this.end_worker("Stopped.");
            }
        })
        .forget();
    }

    /// The model's answer is over, with `status` saying how.
    fn end_answer(&self, status: &str) {
        self.answering.set(None);
        self.set(ids::MODEL_STATUS, status);
        self.set_disabled(ids::MODEL_SEND, false);
        self.set_disabled(ids::MODEL_STOP, true);
    }

    /// Ends the worker, whatever it is doing, and the answer under way with `status`; the next question starts
    /// another.
    fn end_worker(&self, status: &str) {
        if let Some((_, worker)) = self.worker.borrow_mut().take() {
            worker.terminate();
        }
        self.end_answer(status);
    }

    /// The teacher's worker, on its first use.
    fn start_worker(self: &Rc<Self>) -> Option<(u32, Worker)> {
        let this = self.clone();
        let number = self.workers_started.get().wrapping_add(1);
        self.workers_started.set(number);
        let started = super::worker::start("teacher-worker", move |message: Array| {
            let current = this.worker.borrow().as_ref().map(|(n, _)| *n);
            if current != Some(number) {
                return;
            }
            let answer = match FromWorker::decode(&super::worker::strings(&message)) {
                Ok(answer) => answer,
                Err(why) => FromWorker::Unreadable(why.to_string()),
            };
            match answer {
                // The teacher's own markup: every text escaped, every link within the page.
                FromWorker::Answer(html) => {
                    if let Some(answer) = this.element(ids::ANSWER) {
                        answer.set_inner_html(&html);
                    }
                }
                FromWorker::Text(piece) => {
                    if let Some(answer) = this.element(ids::MODEL_ANSWER) {
                        let _ = answer.append_with_str_1(&piece);
                    }
                }
                FromWorker::Clocks(line) => this.set(ids::MODEL_CLOCKS, &line),
                FromWorker::Status(line) => this.set(ids::MODEL_STATUS, &line),
                FromWorker::End(line) => this.end_answer(&line),
                FromWorker::Failed(_) => this.failed(
                    "The teacher could not load: it is downloaded on first use, so it needs the network once. If \
                     the course was updated since this page opened, reload the page.",
                ),
                FromWorker::Crashed(said) => this.failed(&format!(
                    "The teacher failed inside the browser and was stopped; ask again to start it afresh. (Details \
                     for a bug report: {said})"
                )),
                // The two ends of one build disagree: say so where the reader waits, and start afresh next time.
                FromWorker::Unreadable(why) => this.failed(&format!(
                    "The teacher and this page did not understand each other; reload the page. ({why})"
                )),
            }
        })?;
        Some((number, started))
    }

    /// The worker failed: said where the reader is waiting (the course's answer, or the model's), and ended.
    fn failed(&self, said: &str) {
        let waiting_for_model = self.answering.get().is_some();
        if !waiting_for_model {
            self.set(ids::ANSWER, said);
        }
        self.end_worker(if waiting_for_model { said } else { "" });
    }

    /// "Ask my model": the worker sends the question, with the course's passages, to the learner's server.
    fn ask_model(self: &Rc<Self>) {
        let question = self.value(ids::QUESTION);
        if question.is_empty() {
            return self.set(ids::MODEL_STATUS, "Type a question in the Ask field first.");
        }
        let location = leptos::prelude::window().location();
        for id in [ids::MODEL_ANSWER, ids::MODEL_CLOCKS] {
            self.set(id, "");
        }
        self.set(
            ids::MODEL_STATUS,
            "Finding the course's passages for the question…",
        );
        self.set_disabled(ids::MODEL_SEND, true);
        self.set_disabled(ids::MODEL_STOP, false);
        let answer = self.answers.get().wrapping_add(1);
        self.answers.set(answer);
        self.answering.set(Some(answer));
        let posted = self.post(&ToWorker::AskModel {
            slug: self.slug.clone(),
            question,
            server: ModelServer {
                base_url: self.value(ids::MODEL_URL),
                model: self.value(ids::MODEL_NAME),
                key: self.value(ids::MODEL_KEY),
                page_protocol: location.protocol().unwrap_or_default(),
                page_origin: location.origin().unwrap_or_default(),
            },
        });
        if !posted {
            self.end_answer("The teacher could not start in this browser.");
        }
    }

    fn on_key(&self, event: &KeyboardEvent) {
        if key_action_of(event) != Some(KeyAction::Ask) {
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
}

/// A sizing answer's "Open the sizer with these numbers": fills the sizer's fields and takes the reader there.
fn open_sizer(event: Event) {
    let selector = format!("[{}peak-qps]", ids::SIZER_PREFIX);
    let Some(button) = event
        .target()
        .and_then(|target| target.dyn_into::<Element>().ok())
        .and_then(|target| target.closest(&selector).ok().flatten())
    else {
        return;
    };
    let document = leptos::prelude::document();
    let Some(sizer) = document
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

/// Sets the sizer's text fields (cap, latency, peak, headroom) as if typed, once the sizer has mounted; tries
/// again every 150 ms, `tries` times.
fn fill_sizer(sizer: Element, values: Vec<String>, tries: u32) {
    let inputs = sizer
        .query_selector_all(".sizer-inputs input")
        .ok()
        .filter(|inputs| inputs.length() >= 4);
    let Some(inputs) = inputs else {
        if tries > 0 {
            gloo_timers::callback::Timeout::new(150, move || fill_sizer(sizer, values, tries - 1))
                .forget();
        }
        return;
    };
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
