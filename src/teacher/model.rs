//! Asking the learner's own OpenAI-compatible server (vLLM's `vllm serve`), without a browser: where to send the
//! question, what to send, reading the server-sent events that come back, the answer's own two clocks, and every
//! failure as one sentence with its fix. The teacher's worker (`src/bin/teacher-worker/`) does the fetching.

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
    usage: Option<serde_json::Value>,
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
struct ChunkError {
    message: String,
}

/// The longest line a stream may send: a chunk of one answer is a few hundred bytes.
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// The most a stream may send in all: an answer of the 400 tokens asked for is some 100 kB of chunks.
pub const MAX_STREAM_BYTES: usize = 8 << 20;
/// How far into a reply to look for its first character, to tell a JSON object or a page from an event stream.
const SNIFF_BYTES: usize = 1024;

/// Reads server-sent events as they arrive, in pieces of any size: each `data:` line is one JSON chunk. Each byte is
/// looked at once (a line that arrives in many pieces is not searched again from its start), and what waits for its
/// line's end is at most [`MAX_LINE_BYTES`].
#[derive(Debug, Default)]
pub struct StreamReader {
    /// The unfinished line; all of it before `scanned` holds no line break.
    pending: String,
    scanned: usize,
    received: usize,
    saw_data: bool,
}

impl StreamReader {
    /// A reader at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// The events of the complete lines `piece` finishes; the rest waits for the next piece.
    pub fn push(&mut self, piece: &str) -> Result<Vec<StreamEvent>, Failure> {
        self.received = self.received.saturating_add(piece.len());
        if self.received > MAX_STREAM_BYTES {
            return Err(Failure::TooLong);
        }
        self.pending.push_str(piece);
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(found) = self.pending[self.scanned..].find('\n') {
            let end = self.scanned + found;
            let line = self.pending[start..end].trim_end_matches('\r').to_owned();
            self.line(&line, &mut events)?;
            start = end + 1;
            self.scanned = start;
        }
        // Only this piece's bytes follow its last line break, so dropping the lines read costs at most the piece.
        self.pending.drain(..start);
        self.scanned = self.pending.len();
        if self.pending.len() > MAX_LINE_BYTES {
            return Err(Failure::LineTooLong);
        }
        // A reply that is plainly not an event stream (a JSON object, an HTML page) is refused early.
        if !self.saw_data && self.pending.len() > 256 && self.starts_like_a_document() {
            return Err(Failure::NotStreaming);
        }
        Ok(events)
    }

    /// The end of the stream: what the last unfinished line said, or why the stream was not an answer.
    pub fn finish(&mut self) -> Result<Vec<StreamEvent>, Failure> {
        let mut events = Vec::new();
        if !self.saw_data && self.starts_like_a_document() {
            return Err(Failure::NotStreaming);
        }
        let rest = std::mem::take(&mut self.pending);
        self.scanned = 0;
        self.line(rest.trim_end_matches('\r'), &mut events)?;
        if !self.saw_data {
            return Err(Failure::NotStreaming);
        }
        Ok(events)
    }

    /// Whether the unfinished line begins, after blanks, as a JSON object or an HTML page does.
    fn starts_like_a_document(&self) -> bool {
        self.pending
            .bytes()
            .take(SNIFF_BYTES)
            .find(|byte| !byte.is_ascii_whitespace())
            .is_some_and(|first| first == b'{' || first == b'<')
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
        // A count that is not a whole number a u32 holds is no count at all: the pieces are counted instead.
        let tokens = chunk
            .usage
            .as_ref()
            .and_then(|usage| usage.get("completion_tokens"));
        events.extend(
            tokens
                .and_then(serde_json::Value::as_u64)
                .and_then(|tokens| u32::try_from(tokens).ok())
                .map(StreamEvent::Usage),
        );
        Ok(())
    }
}

/// A whole stream, given in the pieces it arrived in: every event, or the first failure. What the worker does piece
/// by piece, as one pure function (for tests and the fuzzer).
pub fn read_stream<'a>(
    pieces: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<StreamEvent>, Failure> {
    let mut reader = StreamReader::new();
    let mut events = Vec::new();
    for piece in pieces {
        events.extend(reader.push(piece)?);
    }
    events.extend(reader.finish()?);
    Ok(events)
}

/// How many tokens the answer's TPOT is spread over, and where the number came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenCount {
    /// One per streamed piece: the server gave no count (yet). vLLM streams a token a piece.
    Pieces(u32),
    /// The server's `usage.completion_tokens`, which agrees with what it streamed.
    Server(u32),
    /// The pieces, because the server's count cannot be true: fewer than the pieces it sent, or more than its text's
    /// bytes could hold (every token of a byte-level vocabulary carries at least one byte).
    Disputed { pieces: u32, claimed: u32 },
}

impl TokenCount {
    /// The number of tokens used.
    pub fn tokens(self) -> u32 {
        match self {
            Self::Pieces(tokens) | Self::Server(tokens) => tokens,
            Self::Disputed { pieces, .. } => pieces,
        }
    }

    /// Where the number came from, in words.
    fn source(self) -> String {
        match self {
            Self::Pieces(_) => "one per streamed piece".to_owned(),
            Self::Server(_) => "the server's count".to_owned(),
            Self::Disputed { claimed, .. } => {
                format!("one per streamed piece; the server's count of {claimed} cannot be right")
            }
        }
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
    text_bytes: u64,
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

    /// A piece of the answer's text arrived at `at_ms`.
    pub fn text(&mut self, at_ms: f64, piece: &str) {
        self.first_ms.get_or_insert(at_ms);
        self.last_ms = at_ms;
        self.pieces = self.pieces.saturating_add(1);
        self.text_bytes = self.text_bytes.saturating_add(piece.len() as u64);
    }

    /// The server's own count of the tokens it generated, used if the stream bears it out.
    pub fn usage(&mut self, tokens: u32) {
        self.usage_tokens = Some(tokens);
    }

    /// The tokens so far, and whose count that is. The server's count may add the end-of-sequence token, which
    /// brings no text.
    pub fn count(&self) -> TokenCount {
        let Some(claimed) = self.usage_tokens else {
            return TokenCount::Pieces(self.pieces);
        };
        let most = self.text_bytes.saturating_add(1);
        if claimed >= self.pieces && u64::from(claimed) <= most {
            TokenCount::Server(claimed)
        } else {
            TokenCount::Disputed {
                pieces: self.pieces,
                claimed,
            }
        }
    }

    /// Tokens so far.
    pub fn tokens(&self) -> u32 {
        self.count().tokens()
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

    /// The clocks in a sentence, saying whose count of tokens TPOT is over.
    pub fn line(&self) -> String {
        match (self.ttft(), self.tpot()) {
            (None, _) => "Waiting for the first token…".to_owned(),
            (Some(ttft), None) => format!("TTFT: first token after {}.", format_latency(ttft)),
            (Some(ttft), Some(tpot)) => format!(
                "TTFT: first token after {}. TPOT: then {} per token over {} tokens ({}).",
                format_latency(ttft),
                format_latency(tpot),
                self.tokens(),
                self.count().source()
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
    /// More than [`MAX_LINE_BYTES`] without a line break.
    LineTooLong,
    /// More than [`MAX_STREAM_BYTES`] in all.
    TooLong,
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
            Self::LineTooLong => format!(
                "The server sent over {} MB without a line break, which no stream of answer pieces does: check the \
                 base URL.",
                MAX_LINE_BYTES >> 20
            ),
            Self::TooLong => format!(
                "The server streamed over {} MB, far more than the 400 tokens asked for, so the answer was cut off \
                 there.",
                MAX_STREAM_BYTES >> 20
            ),
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
