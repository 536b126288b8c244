//! The Ask box's element ids: the static page writes them (`goodput-pages`), the page's wasm finds them
//! (`crate::components::ask`), the browser tests use them.

/// The Ask box's `<section>`; it carries the lesson's slug in [`LESSON_ATTRIBUTE`].
pub const SECTION: &str = "ask";
/// How the page's wasm finds the box: the section of that id that is a child of `<main>` itself, so never an
/// element a lesson's text could have put inside the `<article>` before it.
pub const SECTION_SELECTOR: &str = "#main > section#ask[data-lesson]";
/// The attribute naming the lesson whose passages answer.
pub const LESSON_ATTRIBUTE: &str = "data-lesson";
/// The form around the question.
pub const FORM: &str = "ask-form";
/// The question's text field.
pub const QUESTION: &str = "ask-question";
/// Where the course's answer goes.
pub const ANSWER: &str = "ask-answer";
/// The learner's server's base URL.
pub const MODEL_URL: &str = "ask-model-url";
/// The model's name (optional).
pub const MODEL_NAME: &str = "ask-model-name";
/// The API key (optional, kept in memory for the page only).
pub const MODEL_KEY: &str = "ask-model-key";
/// "Ask my model".
pub const MODEL_SEND: &str = "ask-model-send";
/// Stops a streaming answer.
pub const MODEL_STOP: &str = "ask-model-stop";
/// The model's answer, as it streams.
pub const MODEL_ANSWER: &str = "ask-model-answer";
/// The answer's TTFT and TPOT, live.
pub const MODEL_CLOCKS: &str = "ask-model-clocks";
/// What the request is doing, or what went wrong.
pub const MODEL_STATUS: &str = "ask-model-status";
/// The attributes of the "Open the sizer" button an answer carries, one per sizer field.
pub const SIZER_PREFIX: &str = "data-sizer-";
