//! Asking the learner's own OpenAI-compatible server (vLLM's `vllm serve`), without a browser: where to send the
//! question, what to send, reading the server-sent events that come back, the answer's own two clocks, and every
//! failure as one sentence with its fix. The teacher's worker (`src/bin/teacher-worker.rs`) does the fetching.

use serde::Deserialize;

use crate::charts::format::format_latency;

/// What keeps the learner's model to the lesson.
pub const SYSTEM_PROMPT: &str = "You are the teacher of a short course on LLM serving latency: TTFT and TPOT, \
    percentiles, the knee, goodput, Little's Law sizing and vLLM's metrics and flags. Answer the learner's question \
    in a few sentences, from the course passages given with it. If they do not cover the question, say so, and \
    answer only if you are sure. Show any arithmetic.";

/// Where a learner's server takes the question, read from the base URL they typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// `scheme://host:port`, as CORS names it.
    pub origin: String,
    /// The base, e.g. `http://localhost:8000/v1`, without a trailing slash.
    pub base: String,
}

impl Endpoint {
    /// `POST` here with the question.
    pub fn chat_completions(&self) -> String {
        format!("{}/chat/completions", self.base)
    }

    /// `GET` here for the model names.
    pub fn models(&self) -> String {
        format!("{}/models", self.base)
    }
}

/// Whether `host` is this machine, by a name the page's Content-Security-Policy lets it reach over plain http
/// (`tools/harden-page.mjs`: localhost and 127.0.0.1, any port).
fn is_loopback(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    host == "localhost" || host == "127.0.0.1"
}

/// Reads the base URL a learner typed, for a page served over `page_protocol` (`"https:"` or `"http:"`). An `http:`
/// server must be on this machine: the page's Content-Security-Policy allows no other, and from an `https:` page
/// the browser would block it as mixed content anyway.
pub fn endpoint(base_url: &str, page_protocol: &str) -> Result<Endpoint, String> {
    let typed = base_url.trim();
    let example = "e.g. http://localhost:8000/v1";
    let (scheme, rest) = typed.split_once("://").ok_or_else(|| {
        format!("The server address “{typed}” needs http:// or https:// in front ({example}).")
    })?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(format!(
            "The server address must start with http:// or https://, not {scheme}:// ({example})."
        ));
    }
    if rest.contains(['?', '#']) {
        return Err(format!(
            "The server address “{typed}” should be the base only, without ? or # ({example})."
        ));
    }
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    if authority.contains('@') {
        return Err("Put the API key in the key field, not in the server address: an address is easily shared.".to_owned());
    }
    let host = match authority.strip_prefix('[') {
        Some(v6) => &authority[..v6.find(']').map_or(authority.len(), |end| end + 2)],
        None => authority.split(':').next().unwrap_or_default(),
    };
    if host.is_empty() {
        return Err(format!(
            "The server address “{typed}” has no host ({example})."
        ));
    }
    if scheme == "http" && host.starts_with('[') {
        return Err(format!(
            "The page's security policy cannot name an IPv6 address such as {host}: use http://localhost with the \
             same port, which reaches the same server."
        ));
    }
    if scheme == "http" && !is_loopback(host) {
        let why = if page_protocol == "https:" {
            "this page is https:, so the browser blocks a plain http: server on another machine (mixed content)"
        } else {
            "this page talks over plain http: only to a server on this machine"
        };
        return Err(format!(
            "{host} is a plain http: address on another machine, and {why}. Forward it to this machine with a \
             loopback tunnel (ssh -L 8000:localhost:8000 {host}) and use http://localhost:8000/v1, or serve it over https:."
        ));
    }
    // `vllm serve` answers under /v1; a bare host:port means that.
    let path = path.trim_end_matches('/');
    let path = if path.is_empty() {
        "/v1"
    } else {
        path.trim_end_matches("/chat/completions")
    };
    let origin = format!("{scheme}://{authority}");
    Ok(Endpoint {
        base: format!("{origin}{path}"),
        origin,
    })
}

/// The `POST /v1/chat/completions` body: the system prompt, the course's passages and the question, streamed, with
/// the token count at the end (`stream_options.include_usage`).
pub fn chat_request(model: &str, question: &str, context: &str) -> String {
    let user = format!("Course passages:\n{context}\n\nQuestion: {question}");
    serde_json::json!({
        "model": model,
        "stream": true,
        "stream_options": { "include_usage": true },
        "max_tokens": 400,
        "messages": [
            { "role": "system", "content": SYSTEM_PROMPT },
            { "role": "user", "content": user },
        ],
    })
    .to_string()
}

#[derive(Deserialize)]
struct ModelList {
    data: Vec<ModelEntry>,
}

#[derive(Deserialize)]
struct ModelEntry {
    id: String,
}

/// The first model `GET /v1/models` lists, or what is wrong with the reply.
pub fn first_model(body: &str) -> Result<String, Failure> {
    let list: ModelList =
        serde_json::from_str(body).map_err(|_| Failure::Malformed(excerpt(body)))?;
    list.data
        .into_iter()
        .next()
        .map(|model| model.id)
        .ok_or(Failure::NoModels)
}

/// Something the stream said.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    /// A piece of the answer (`choices[0].delta.content`).
    Text(String),
    /// The final count of tokens generated (`usage.completion_tokens`).
    Usage(u32),
    /// `data: [DONE]`: the answer is complete.
    Done,
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    usage: Option<ChunkUsage>,
    error: Option<ChunkError>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    delta: Option<ChunkDelta>,
}

#[derive(Deserialize)]
struct ChunkDelta {
    content: Option<String>,
}

#[derive(Deserialize)]
struct ChunkUsage {
    completion_tokens: u32,
}

#[derive(Deserialize)]
struct ChunkError {
    message: String,
}

/// Reads server-sent events as they arrive, in pieces of any size: each `data:` line is one JSON chunk.
#[derive(Debug, Default)]
pub struct StreamReader {
    pending: String,
    saw_data: bool,
}

impl StreamReader {
    /// A reader at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// The events of the complete lines `piece` finishes; the rest waits for the next piece.
    pub fn push(&mut self, piece: &str) -> Result<Vec<StreamEvent>, Failure> {
        self.pending.push_str(piece);
        let mut events = Vec::new();
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            self.line(line.trim_end_matches(['\n', '\r']), &mut events)?;
        }
        // A reply that is plainly not an event stream (a JSON object, an HTML page) is refused early.
        if !self.saw_data
            && self.pending.trim_start().starts_with(['{', '<'])
            && self.pending.len() > 256
        {
            return Err(Failure::NotStreaming);
        }
        Ok(events)
    }

    /// The end of the stream: what the last unfinished line said, or why the stream was not an answer.
    pub fn finish(&mut self) -> Result<Vec<StreamEvent>, Failure> {
        let rest = std::mem::take(&mut self.pending);
        let mut events = Vec::new();
        if !self.saw_data && rest.trim_start().starts_with(['{', '<']) {
            return Err(Failure::NotStreaming);
        }
        self.line(rest.trim_end_matches('\r'), &mut events)?;
        if !self.saw_data {
            return Err(Failure::NotStreaming);
        }
        Ok(events)
    }

    fn line(&mut self, line: &str, events: &mut Vec<StreamEvent>) -> Result<(), Failure> {
        // Blank lines end an event, `:` lines are comments, `event:`/`id:`/`retry:` carry nothing we need.
        let Some(data) = line.strip_prefix("data:") else {
            if !self.saw_data && line.trim_start().starts_with(['{', '<']) {
                return Err(Failure::NotStreaming);
            }
            return Ok(());
        };
        self.saw_data = true;
        let data = data.trim();
        if data == "[DONE]" {
            events.push(StreamEvent::Done);
            return Ok(());
        }
        let chunk: Chunk =
            serde_json::from_str(data).map_err(|_| Failure::Malformed(excerpt(data)))?;
        if let Some(error) = chunk.error {
            return Err(Failure::ServerError(error.message));
        }
        let text = chunk
            .choices
            .into_iter()
            .next()
            .and_then(|choice| choice.delta)
            .and_then(|delta| delta.content)
            .filter(|text| !text.is_empty());
        events.extend(text.map(StreamEvent::Text));
        events.extend(
            chunk
                .usage
                .map(|usage| StreamEvent::Usage(usage.completion_tokens)),
        );
        Ok(())
    }
}

/// The answer's two clocks, from the moment the question was sent: TTFT until the first piece of text, TPOT the
/// mean gap between the tokens after it ((last − first) ÷ (tokens − 1)). Times in milliseconds, as
/// `performance.now()` gives them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Clocks {
    sent_ms: f64,
    first_ms: Option<f64>,
    last_ms: f64,
    pieces: u32,
    usage_tokens: Option<u32>,
}

impl Clocks {
    /// Clocks started when the request was sent.
    pub fn started(sent_ms: f64) -> Self {
        Clocks {
            sent_ms,
            ..Self::default()
        }
    }

    /// A piece of text arrived at `at_ms`. vLLM streams one token a piece.
    pub fn text(&mut self, at_ms: f64) {
        self.first_ms.get_or_insert(at_ms);
        self.last_ms = at_ms;
        self.pieces += 1;
    }

    /// The server's own count of the tokens it generated, which replaces the count of pieces.
    pub fn usage(&mut self, tokens: u32) {
        self.usage_tokens = Some(tokens);
    }

    /// Tokens so far.
    pub fn tokens(&self) -> u32 {
        self.usage_tokens.unwrap_or(self.pieces)
    }

    /// Time to first token, in seconds.
    pub fn ttft(&self) -> Option<f64> {
        self.first_ms.map(|first| (first - self.sent_ms) / 1000.0)
    }

    /// Time per output token after the first, in seconds; needs two tokens.
    pub fn tpot(&self) -> Option<f64> {
        let first = self.first_ms?;
        let tokens = self.tokens();
        (tokens >= 2).then(|| (self.last_ms - first) / 1000.0 / f64::from(tokens - 1))
    }

    /// The clocks in a sentence.
    pub fn line(&self) -> String {
        match (self.ttft(), self.tpot()) {
            (None, _) => "Waiting for the first token…".to_owned(),
            (Some(ttft), None) => format!("TTFT: first token after {}.", format_latency(ttft)),
            (Some(ttft), Some(tpot)) => format!(
                "TTFT: first token after {}. TPOT: then {} per token over {} tokens.",
                format_latency(ttft),
                format_latency(tpot),
                self.tokens()
            ),
        }
    }
}

/// Something that went wrong, each with the sentence the learner sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// No server answered at the origin.
    NotListening { origin: String },
    /// A server answered, but its CORS headers do not let this page read the answer.
    CorsRefused { origin: String, page_origin: String },
    /// 401 or 403.
    Unauthorized { status: u16 },
    /// 404: the path or the model.
    NotFound { url: String, model: String },
    /// Another HTTP status, with the start of the body.
    Status { status: u16, body: String },
    /// The reply was not server-sent events.
    NotStreaming,
    /// A `data:` line that is not a chunk's JSON, or a models list that is not one.
    Malformed(String),
    /// The server sent an error in the stream.
    ServerError(String),
    /// `GET /v1/models` listed nothing.
    NoModels,
}

impl Failure {
    /// The failure in one sentence, with its fix.
    pub fn message(&self) -> String {
        match self {
            Self::NotListening { origin } => format!(
                "Nothing is listening at {origin}: start the server (vllm serve MODEL --port 8000) or check the \
                 address and port."
            ),
            Self::CorsRefused { origin, page_origin } => format!(
                "The server at {origin} answered, but does not let this page read its replies (CORS): start vLLM \
                 with --allowed-origins '[\"{page_origin}\"]'."
            ),
            Self::Unauthorized { status } => format!(
                "The server refused the request ({status}): it needs an API key (vllm serve --api-key); put the \
                 same key in the API key field."
            ),
            Self::NotFound { url, model } => format!(
                "The server answered 404 for {url}: check that the base URL ends in /v1 and that it serves the \
                 model “{model}” (GET /v1/models lists them; leave the model field empty to use the first)."
            ),
            Self::Status { status, body } => {
                format!("The server answered {status} instead of a stream: {body}")
            }
            Self::NotStreaming => "The server answered, but not with a stream of server-sent events: is it an \
                 OpenAI-compatible server that supports \"stream\": true?"
                .to_owned(),
            Self::Malformed(line) => format!(
                "The server's reply is not what an OpenAI-compatible server sends (it began “{line}”): check the \
                 base URL."
            ),
            Self::ServerError(message) => format!("The server reported an error: {message}"),
            Self::NoModels => "The server lists no models (GET /v1/models): type the model's name in the model \
                 field."
                .to_owned(),
        }
    }
}

/// The start of a reply, on one line, for a message.
pub fn excerpt(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}
