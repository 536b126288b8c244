//! The messages between the Ask box (`components::ask`) and its `teacher-worker` (`src/bin/teacher-worker/`): one
//! enum per direction, written and read here only, so the two ends cannot drift apart (`tests/teacher_protocol.rs`
//! checks every message both ways). On the wire a message is an array of strings, its kind first, read with the
//! server worker's field reader: a field that is missing or left over is an error naming it.

use crate::server_protocol::{Fields, ProtocolError, CRASHED, FAILED};

/// The learner's own model server, as they typed it, and where the page is (a page on `https:` cannot reach a
/// server on `http:`, which the worker explains before it tries).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelServer {
    pub base_url: String,
    pub model: String,
    pub key: String,
    pub page_protocol: String,
    pub page_origin: String,
}

/// What the Ask box asks of the worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToWorker {
    /// The course's answer to `question`, from lesson `slug`'s passages.
    Ask { slug: String, question: String },
    /// The course's answer, then the question with those passages sent to the learner's `server`.
    AskModel {
        slug: String,
        question: String,
        server: ModelServer,
    },
    /// Stop the model's answer under way.
    Stop,
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FromWorker {
    /// The course's answer, as the teacher's own HTML (every text escaped, every link within the page).
    Answer(String),
    /// What the model request is doing ("Asking … which model it serves").
    Status(String),
    /// The next piece of the model's answer, as plain text.
    Text(String),
    /// The model answer's two clocks so far (time to first token, time per output token).
    Clocks(String),
    /// The model's answer is over: how it ended.
    End(String),
    /// The worker could not read the page's message: why.
    Unreadable(String),
    /// The worker's script or wasm did not load: what the browser said.
    Failed(String),
    /// The worker failed while it ran: what it said.
    Crashed(String),
}

impl ToWorker {
    /// The message on the wire.
    pub fn encode(&self) -> Vec<String> {
        let parts: Vec<&str> = match self {
            ToWorker::Ask { slug, question } => vec!["ask", slug, question],
            ToWorker::AskModel {
                slug,
                question,
                server,
            } => vec![
                "model",
                slug,
                question,
                &server.base_url,
                &server.model,
                &server.key,
                &server.page_protocol,
                &server.page_origin,
            ],
            ToWorker::Stop => vec!["stop"],
        };
        parts.into_iter().map(str::to_owned).collect()
    }

    /// The message `parts` make, or what is wrong with them.
    pub fn decode(parts: &[String]) -> Result<ToWorker, ProtocolError> {
        let mut fields = Fields::new(parts)?;
        let message = match fields.kind {
            "ask" => ToWorker::Ask {
                slug: fields.text("lesson")?,
                question: fields.text("question")?,
            },
            "model" => ToWorker::AskModel {
                slug: fields.text("lesson")?,
                question: fields.text("question")?,
                server: ModelServer {
                    base_url: fields.text("server address")?,
                    model: fields.text("model")?,
                    key: fields.text("API key")?,
                    page_protocol: fields.text("page protocol")?,
                    page_origin: fields.text("page origin")?,
                },
            },
            "stop" => ToWorker::Stop,
            other => {
                return Err(ProtocolError(format!(
                    "{other:?} is no request the teacher knows"
                )))
            }
        };
        fields.end()?;
        Ok(message)
    }
}

impl FromWorker {
    /// The message on the wire.
    pub fn encode(&self) -> Vec<String> {
        let (kind, value) = match self {
            FromWorker::Answer(html) => ("answer", html),
            FromWorker::Status(line) => ("status", line),
            FromWorker::Text(piece) => ("text", piece),
            FromWorker::Clocks(line) => ("clocks", line),
            FromWorker::End(line) => ("end", line),
            FromWorker::Unreadable(line) => ("unreadable", line),
            FromWorker::Failed(line) => (FAILED, line),
            FromWorker::Crashed(line) => (CRASHED, line),
        };
        vec![kind.to_owned(), value.clone()]
    }

    /// The message `parts` make, or what is wrong with them.
    pub fn decode(parts: &[String]) -> Result<FromWorker, ProtocolError> {
        let mut fields = Fields::new(parts)?;
        let make: fn(String) -> FromWorker = match fields.kind {
            "answer" => FromWorker::Answer,
            "status" => FromWorker::Status,
            "text" => FromWorker::Text,
            "clocks" => FromWorker::Clocks,
            "end" => FromWorker::End,
            "unreadable" => FromWorker::Unreadable,
            FAILED => FromWorker::Failed,
            CRASHED => FromWorker::Crashed,
            other => {
                return Err(ProtocolError(format!(
                    "{other:?} is no answer the Ask box knows"
                )))
            }
        };
        let message = make(fields.text("text")?);
        fields.end()?;
        Ok(message)
    }
}
