//! The teacher's web worker, off the page's first load and off its main thread: it ranks the lesson's passages for
//! the Ask box (it embeds the compiled lessons and builds a lesson's index on its first question), and asks a
//! learner's own model, streaming its answer back with the answer's two clocks.
//!
//! The page starts it from a `blob:` URL (`goodput::components::ask`), so it inherits the page's
//! Content-Security-Policy: its requests obey the page's `connect-src`.
//!
//! Messages are [`goodput::teacher_protocol`]'s: the page asks the course (`Ask`), the course and the learner's model
//! (`AskModel`), or stops the model (`Stop`); the worker answers with the course's answer (`Answer`), and while a
//! model answers with its `Status`, each piece of `Text`, the `Clocks` and at last `End`. A message it cannot read
//! is answered `Unreadable`; a panic posts `Crashed` before the worker stops.

#[cfg(target_arch = "wasm32")]
fn main() {
    goodput::components::worker::post_panics();
    worker::listen();
}

// Native builds (cargo test, clippy) have nothing to run: the worker exists only in the browser.
#[cfg(not(target_arch = "wasm32"))]
fn main() {}

#[cfg(target_arch = "wasm32")]
mod worker {
    use std::cell::{Cell, RefCell};
    use std::collections::HashMap;

    use goodput::html_writer::HtmlWriter;
    use goodput::lesson::find;
    use goodput::teacher_protocol::{FromWorker, ModelServer, ToWorker};
    use goodput_teacher::model::{
        chat_request, endpoint, excerpt, first_model, Clocks, Endpoint, Failure, StreamEvent,
        StreamReader,
    };
    use goodput_teacher::Teacher;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::{spawn_local, JsFuture};
    use web_sys::js_sys::{Reflect, Uint8Array};
    use web_sys::{
        AbortController, DedicatedWorkerGlobalScope, Headers, ReadableStreamDefaultReader,
        RequestInit, RequestMode, Response, TextDecodeOptions, TextDecoder,
    };

    thread_local! {
        /// Each lesson's teacher, built on its first question.
        static TEACHERS: RefCell<HashMap<String, Teacher>> = RefCell::new(HashMap::new());
        /// The model request under way, for Stop.
        static ABORT: RefCell<Option<AbortController>> = const { RefCell::new(None) };
        static STOPPED: Cell<bool> = const { Cell::new(false) };
    }

    fn scope() -> DedicatedWorkerGlobalScope {
        web_sys::js_sys::global().unchecked_into()
    }

    fn post(message: FromWorker) {
        goodput::components::worker::post_parts(message.encode());
    }

    pub fn listen() {
        goodput::components::worker::listen_for_parts(|parts| match ToWorker::decode(&parts) {
            Ok(ToWorker::Ask { slug, question }) => post(FromWorker::Answer(
                with_teacher(&slug, |teacher| teacher.answer_html(&question))
                    .unwrap_or_else(|missing| missing),
            )),
            Ok(ToWorker::AskModel {
                slug,
                question,
                server,
            }) => {
                // The course's answer, and the passages it showed as the model's context.
                let (html, context) = with_teacher(&slug, |teacher| {
                    (
                        teacher.answer_html(&question),
                        teacher.model_context(&question),
                    )
                })
                .unwrap_or_else(|missing| (missing, String::new()));
                post(FromWorker::Answer(html));
                let request = ModelRequest {
                    question,
                    server,
                    context,
                };
                spawn_local(async move {
                    let outcome = request.run().await;
                    ABORT.with_borrow_mut(Option::take);
                    let end = match outcome {
                        Ok(()) => "The answer is complete.".to_owned(),
                        Err(_) if STOPPED.get() => "Stopped.".to_owned(),
                        Err(failure) => failure,
                    };
                    post(FromWorker::End(end));
                });
            }
            Ok(ToWorker::Stop) => {
                STOPPED.set(true);
                if let Some(abort) = ABORT.with_borrow_mut(Option::take) {
                    abort.abort();
                }
            }
            Err(why) => post(FromWorker::Unreadable(why.to_string())),
        });
    }

    /// `ask` of the lesson's teacher (built on its first question); `Err` is the page's sentence when the lesson
    /// is not in the course's index.
    fn with_teacher<T>(slug: &str, ask: impl FnOnce(&Teacher) -> T) -> Result<T, String> {
        let Some(lesson) = find(slug) else {
            // The slug is the page's word: written as text, never as markup.
            let mut m = HtmlWriter::new();
            m.text_element(
                "p",
                &[],
                &format!("This page's lesson ({slug}) is not in the course's index."),
            );
            return Err(m.finish());
        };
        Ok(TEACHERS.with_borrow_mut(|teachers| {
            ask(teachers
                .entry(slug.to_owned())
                .or_insert_with(|| Teacher::new(lesson)))
        }))
    }

    struct ModelRequest {
        question: String,
        server: ModelServer,
        context: String,
    }

    impl ModelRequest {
        /// Asks the learner's server and streams its answer back; `Err` is the sentence to show.
        async fn run(self) -> Result<(), String> {
            let endpoint = endpoint(&self.server.base_url, &self.server.page_protocol)?;
            let abort = AbortController::new()
                .map_err(|_| "This browser cannot stop a request.".to_owned())?;
            STOPPED.set(false);
            ABORT.with_borrow_mut(|slot| *slot = Some(abort.clone()));
            let request = |method: &str, body: Option<&str>| {
                let init = RequestInit::new();
                init.set_method(method);
                init.set_signal(Some(&abort.signal()));
                if let Ok(headers) = Headers::new() {
                    if body.is_some() {
                        let _ = headers.set("Content-Type", "application/json");
                    }
                    if !self.server.key.is_empty() {
                        let _ =
                            headers.set("Authorization", &format!("Bearer {}", self.server.key));
                    }
                    init.set_headers(&headers);
                }
                if let Some(body) = body {
                    init.set_body(&JsValue::from(body));
                }
                init
            };
            let mut model = self.server.model.clone();
            if model.is_empty() {
                post(FromWorker::Status(
                    "Asking the server which model it serves…".to_owned(),
                ));
                let url = endpoint.models();
                let response = self.fetch(&url, &request("GET", None), &endpoint).await?;
                let body = checked_text(response, &url, "").await?;
                model = first_model(&body).map_err(|failure| failure.message())?;
            }
            post(FromWorker::Status(format!("Asking {model}…")));
            let body = chat_request(&model, &self.question, &self.context);
            let performance = scope().performance();
            let now = move || performance.as_ref().map_or(0.0, |p| p.now());
            let mut clocks = Clocks::started(now());
            post(FromWorker::Clocks(clocks.line()));
            let url = endpoint.chat_completions();
            let response = self
                .fetch(&url, &request("POST", Some(&body)), &endpoint)
                .await?;
            if !response.ok() {
                return checked_text(response, &url, &model).await.map(|_| ());
            }
            let not_streaming = || Failure::NotStreaming.message();
            let reader: ReadableStreamDefaultReader = response
                .body()
                .ok_or_else(not_streaming)?
                .get_reader()
                .unchecked_into();
            let decoder = TextDecoder::new().map_err(|_| not_streaming())?;
            let options = TextDecodeOptions::new();
            options.set_stream(true);
            let mut events = StreamReader::new();
            post(FromWorker::Status(format!("{model} is answering…")));
            loop {
                let chunk = JsFuture::from(reader.read())
                    .await
                    .map_err(|_| not_streaming())?;
                let done = Reflect::get(&chunk, &"done".into())
                    .ok()
                    .and_then(|d| d.as_bool())
                    .unwrap_or(true);
                let pieces = if done {
                    events.finish()
                } else {
                    let bytes: Uint8Array = Reflect::get(&chunk, &"value".into())
                        .map_err(|_| not_streaming())?
                        .unchecked_into();
                    let text = decoder
                        .decode_with_buffer_source_and_options(&bytes, &options)
                        .unwrap_or_default();
                    events.push(&text)
                };
                let at = now();
                for event in pieces.map_err(|failure| failure.message())? {
                    match event {
                        StreamEvent::Text(text) => {
                            clocks.text(at, &text);
                            post(FromWorker::Text(text));
                        }
                        StreamEvent::Usage(tokens) => clocks.usage(tokens),
                        StreamEvent::Done => {
                            post(FromWorker::Clocks(clocks.line()));
                            let _ = reader.cancel();
                            return Ok(());
                        }
                    }
                }
                post(FromWorker::Clocks(clocks.line()));
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
            endpoint: &Endpoint,
        ) -> Result<Response, String> {
            match JsFuture::from(scope().fetch_with_str_and_init(url, init)).await {
                Ok(response) => Ok(response.unchecked_into()),
                Err(_) if STOPPED.get() => Err("Stopped.".to_owned()),
                Err(_) => {
                    let probe = RequestInit::new();
                    probe.set_mode(RequestMode::NoCors);
                    let probed = scope().fetch_with_str_and_init(&endpoint.models(), &probe);
                    let failure = if JsFuture::from(probed).await.is_ok() {
                        Failure::CorsRefused {
                            origin: endpoint.origin.clone(),
                            page_origin: self.server.page_origin.clone(),
                        }
                    } else {
                        Failure::NotListening {
                            origin: endpoint.origin.clone(),
                        }
                    };
                    Err(failure.message())
                }
            }
        }
    }

    /// The body of a response that should have succeeded, or the sentence its status means.
    async fn checked_text(response: Response, url: &str, model: &str) -> Result<String, String> {
        let status = response.status();
        let body = match response.text() {
            Ok(promise) => JsFuture::from(promise)
                .await
                .ok()
                .and_then(|text| text.as_string())
                .unwrap_or_default(),
            Err(_) => String::new(),
        };
        let failure = match status {
            200..=299 => return Ok(body),
            401 | 403 => Failure::Unauthorized { status },
            404 => Failure::NotFound {
                url: url.to_owned(),
                model: model.to_owned(),
            },
            _ => Failure::Status {
                status,
                body: excerpt(&body),
            },
        };
        Err(failure.message())
    }
}
