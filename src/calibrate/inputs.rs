//! The files `calibrate` reads, recognised by their content: a `vllm bench serve --save-result` JSON of any
//! version since 0.5 ([`vllm_result`]: summary only or with `--save-detailed`'s lists, one run or several appended),
//! GuideLLM's `benchmarks.json` ([`guidellm`]), inference-perf's `stage_N_lifecycle_metrics.json` and
//! `summary_lifecycle_metrics.json` ([`inference_perf`]), vLLM's OpenTelemetry request spans ([`otel`]), a per-request trace
//! (JSON lines or CSV, as `run --trace` reads it, optionally with token times), or a vLLM `/metrics` page. Every
//! error is one line naming the file and what is missing.

pub use super::bench_result::{BenchResult, Life};
use super::{guidellm, inference_perf, otel, vllm_result};
use crate::cluster::metrics::{self, Exposition};
use serde::Deserialize;
use serde_json::Value;

// The files as the page holds them, and the limits it checks before reading them: the page's crate has them, which
// links no reader.
pub use crate::server_files::{
    check_sizes, limits, InputFile, MAX_INPUT_BYTES, MAX_INPUT_FILES, MAX_TOTAL_INPUT_BYTES,
};

/// What a file turned out to be.
#[derive(Clone, Debug)]
pub enum Parsed {
    /// A benchmark result.
    Bench(BenchResult),
    /// A per-request trace, in arrival order, arrivals from 0.
    Trace(Vec<Life>),
    /// A `/metrics` page.
    Metrics(Exposition),
}

impl Parsed {
    /// The requests it holds one by one (a trace's, a detailed result's).
    pub fn requests_held(&self) -> usize {
        match self {
            Parsed::Bench(bench) => bench.lives.as_ref().map_or(0, Vec::len),
            Parsed::Trace(lives) => lives.len(),
            Parsed::Metrics(_) => 0,
        }
    }
}

/// One input a file holds: a file holds several when it is a GuideLLM report (one a benchmark) or a result file
/// `--append-result` added to.
#[derive(Clone, Debug)]
pub struct Input {
    /// How messages and the report name it: the file's name, and which of its inputs it is.
    pub name: String,
    /// What it is.
    pub parsed: Parsed,
    /// Whether it mixes every stage of a run at their different rates (an inference-perf summary): the calibration
    /// leaves it out when results of one rate each are given with it.
    pub whole_run: bool,
}

/// What calibrate reads, for the message when a file is none of them.
const FORMATS: &str = "a vllm bench serve result, GuideLLM's benchmarks.json, an inference-perf \
                       lifecycle report, vLLM's OpenTelemetry spans, a request trace (JSON lines or CSV with \
                       arrival_s) or a /metrics page";

/// Recognises and parses one file holding one input; the error is one line naming it.
pub fn parse(file: &InputFile) -> Result<Parsed, String> {
    let mut inputs = parse_all(file)?;
    if inputs.len() > 1 {
        return Err(format!(
            "{}: holds {} runs, where one was expected",
            file.name,
            inputs.len()
        ));
    }
    Ok(inputs.remove(0).parsed)
}

/// Recognises and parses one file, into every input it holds; the error is one line naming it.
pub fn parse_all(file: &InputFile) -> Result<Vec<Input>, String> {
    let name = &file.name;
    if file.text.len() > MAX_INPUT_BYTES {
        return Err(format!("{name}: larger than {} MB", MAX_INPUT_BYTES >> 20));
    }
    let text = file.text.trim_start_matches('\u{feff}');
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.is_empty() {
        return Err(format!("{name}: the file is empty"));
    }
    let trimmed = first.trim_start();
    let one = |parsed: Parsed| {
        vec![Input {
            name: name.clone(),
            parsed,
            whole_run: false,
        }]
    };
    if trimmed.starts_with('#') || trimmed.starts_with("vllm:") {
        return metrics::parse(text)
            .map(|page| one(Parsed::Metrics(page)))
            .map_err(|e| format!("{name}: not a readable /metrics page: {e}"));
    }
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return json_inputs(name, text);
    }
    if trimmed.contains("arrival_s") {
        return trace_csv(name, text).map(|lives| one(Parsed::Trace(lives)));
    }
    Err(format!("{name}: not {FORMATS}"))
}

/// Most memory the values of one JSON document of a file may take as serde_json builds them (a file's documents are
/// read one at a time), estimated from the text before any is built ([`json_shape`]): 64 MB of small objects would
/// take some 6 GB as values, where a detailed result, a GuideLLM report or a file of spans of that size takes a
/// few hundred MB. With the file's text and the others' it keeps a calibration under 2 GB.
pub const MAX_JSON_HEAP: f64 = 1.25e9;

/// Most requests one calibration takes one by one, in all its inputs together (a trace's lines, a detailed
/// result's lists): each is held as the fit's rows and replayed by the model, about 1 kB a request, so that the
/// calibration stays under 2 GB (a few thousand requests at light load determine the fit).
pub const MAX_REQUESTS: usize = 1_000_000;

/// Refuses a trace of more lines than [`MAX_REQUESTS`] (and a header) before it is parsed.
fn check_lines(name: &str, text: &str) -> Result<(), String> {
    let lines = text.bytes().filter(|&b| b == b'\n').count();
    if lines > MAX_REQUESTS + 1 {
        return Err(format!(
            "{name}: {lines} lines, more than the {MAX_REQUESTS} requests one calibration takes (give a sample: a \
             few thousand requests at light load determine the fit)"
        ));
    }
    Ok(())
}

/// What a JSON text holds, counted in one pass over its bytes without building any value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JsonShape {
    /// Its top-level documents (objects and lists).
    pub documents: usize,
    /// The heap serde_json's values of its largest document would take at most, bytes: an object's first B-tree
    /// node (about 640 bytes), each key (its share of further nodes and its string, about 160 bytes), a list's
    /// first allocation (four values), each further value 32 bytes three times over (a list's capacity grows to
    /// twice its length, and both are held while it moves), each string its bytes and an allocation's 32.
    pub largest_heap: f64,
}

/// The shape of a JSON text; linear in its length.
pub fn json_shape(text: &str) -> JsonShape {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let (mut documents, mut heap, mut largest) = (0usize, 0.0f64, 0.0f64);
    for b in text.bytes() {
        if in_string {
            heap += 1.0;
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                heap += 32.0;
            }
            b'{' | b'[' => {
                depth += 1;
                heap += if b == b'{' { 700.0 } else { 160.0 };
            }
            b':' => heap += 160.0,
            b',' => heap += 96.0,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    documents += 1;
                    largest = largest.max(heap);
                    heap = 0.0;
                }
            }
            _ => {}
        }
    }
    JsonShape {
        documents,
        largest_heap: largest.max(heap),
    }
}

/// Calls `each` with the JSON documents of a file one after another (a result, several appended results, or one
/// a line), each with the line it starts on, holding one at a time; Python's bare `NaN` and `Infinity` are read as
/// strings. `each` returns whether to go on.
fn each_json_value(
    name: &str,
    text: &str,
    mut each: impl FnMut(usize, Value) -> Result<bool, String>,
) -> Result<(), String> {
    let quoted = vllm_result::python_tokens(text);
    let text = quoted.as_deref().unwrap_or(text);
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let (mut line, mut counted) = (1, 0);
    loop {
        let offset = stream.byte_offset();
        let rest = &text[offset..];
        let start = offset + (rest.len() - rest.trim_start().len());
        line += text[counted..start].matches('\n').count();
        counted = start;
        match stream.next() {
            None => return Ok(()),
            Some(Ok(value)) => {
                if !each(line, value)? {
                    return Ok(());
                }
            }
            Some(Err(e)) => return Err(format!("{name}: not valid JSON ({e})")),
        }
    }
}

/// What a JSON file turned out to be, from its first document.
enum JsonKind {
    /// A trace whose first line is not a whole document: read as JSON lines.
    TraceLines,
    Spans(Vec<Life>),
    Results(Vec<Input>),
    Done(Vec<Input>),
}

fn json_inputs(name: &str, text: &str) -> Result<Vec<Input>, String> {
    let trace = |lives: Vec<Life>| {
        vec![Input {
            name: name.to_owned(),
            parsed: Parsed::Trace(lives),
            whole_run: false,
        }]
    };
    // A trace's lines are read one by one into their fields, never held as JSON values first (a value of a short
    // line takes ten times its bytes), and its error names the line and the field.
    if first_line_is_trace(text) {
        return trace_json_lines(name, text).map(trace);
    }
    let shape = json_shape(text);
    if shape.largest_heap > MAX_JSON_HEAP {
        return Err(format!(
            "{name}: its JSON would take about {:.1} GB of memory to read, more than the {:.2} GB one file may \
             take (a result, report or file of spans of {:.0} MB takes far less; is it one of them?)",
            shape.largest_heap / 1e9,
            MAX_JSON_HEAP / 1e9,
            text.len() as f64 / 1e6
        ));
    }
    let mut kind: Option<JsonKind> = None;
    each_json_value(name, text, |line, value| {
        let Some(kind) = &mut kind else {
            let first = json_kind(name, line, value, shape.documents)?;
            let more = matches!(first, JsonKind::Spans(_) | JsonKind::Results(_));
            kind = Some(first);
            return Ok(more);
        };
        match kind {
            JsonKind::Spans(lives) => otel::add_spans(name, line, &value, lives)?,
            JsonKind::Results(results) => results.push(bench_result(
                name,
                results.len(),
                shape.documents,
                line,
                &value,
            )?),
            JsonKind::TraceLines | JsonKind::Done(_) => return Ok(false),
        }
        Ok(true)
    })?;
    match kind {
        None => Err(format!("{name}: the file is empty")),
        Some(JsonKind::TraceLines) => trace_json_lines(name, text).map(trace),
        Some(JsonKind::Spans(lives)) => otel::ordered(name, lives).map(trace),
        Some(JsonKind::Results(inputs) | JsonKind::Done(inputs)) => Ok(inputs),
    }
}

/// What a file is, from its first document `value` (starting on `line`, of `documents`), and what it gave.
fn json_kind(name: &str, line: usize, value: Value, documents: usize) -> Result<JsonKind, String> {
    let Value::Object(first) = &value else {
        if is_inference_perf_requests(&value) {
            return Err(format!(
                "{name}: inference-perf's per-request report, which calibrate does not read: give the \
                 stage_N_lifecycle_metrics.json files of the same run"
            ));
        }
        return Err(format!("{name}: JSON, but not an object: not {FORMATS}"));
    };
    let one = |parsed: Parsed, whole_run: bool| {
        vec![Input {
            name: name.to_owned(),
            parsed,
            whole_run,
        }]
    };
    if first.contains_key("arrival_s") {
        return Ok(JsonKind::TraceLines);
    }
    if otel::is_spans(&value) {
        let mut lives = Vec::new();
        otel::add_spans(name, line, &value, &mut lives)?;
        return Ok(JsonKind::Spans(lives));
    }
    if guidellm::is_report(first) {
        return Ok(JsonKind::Done(
            guidellm::read(name, first)?
                .into_iter()
                .map(|(name, bench)| Input {
                    name,
                    parsed: Parsed::Bench(bench),
                    whole_run: false,
                })
                .collect(),
        ));
    }
    if inference_perf::is_report(first) {
        let bench = inference_perf::read(name, first)?;
        return Ok(JsonKind::Done(one(
            Parsed::Bench(bench),
            inference_perf::is_summary(first),
        )));
    }
    let first = bench_result(name, 0, documents, line, &value)?;
    if documents > super::MAX_RUNS {
        return Err(format!(
            "{name}: holds {documents} runs, more than the {} one calibration takes: calibrate from the \
             runs that differ, a few are enough",
            super::MAX_RUNS
        ));
    }
    Ok(JsonKind::Results(vec![first]))
}

/// inference-perf's `per_request_lifecycle_metrics.json`: a list of requests with their start and end times.
fn is_inference_perf_requests(value: &Value) -> bool {
    value
        .as_array()
        .and_then(|requests| requests.first())
        .is_some_and(|r| r.get("start_time").is_some() && r.get("end_time").is_some())
}

/// Whether the first line is a whole JSON object with `arrival_s`: its other values are skipped as they are read,
/// never built (a file on one line, 64 MB of small objects, would take several GB as values).
fn first_line_is_trace(text: &str) -> bool {
    #[derive(Deserialize)]
    struct FirstLine {
        #[serde(default)]
        arrival_s: Option<serde::de::IgnoredAny>,
    }
    text.lines()
        .find(|l| !l.trim().is_empty())
        // An object: serde would read a list as the struct's fields in order.
        .filter(|l| l.trim_start().starts_with('{'))
        .and_then(|l| serde_json::from_str::<FirstLine>(l).ok())
        .is_some_and(|l| l.arrival_s.is_some())
}

/// The `index`-th of `documents` results `--append-result` wrote one after another (named `file (run k of n)`),
/// starting on `line`.
fn bench_result(
    name: &str,
    index: usize,
    documents: usize,
    line: usize,
    value: &Value,
) -> Result<Input, String> {
    let label = if documents > 1 {
        format!("{name} (run {} of {documents}, line {line})", index + 1)
    } else {
        name.to_owned()
    };
    let object = value
        .as_object()
        .filter(|o| vllm_result::is_result(o))
        .ok_or_else(|| {
            format!(
                "{label}: a JSON object, but not a vllm bench serve result (no \"request_throughput\" \
                 and \"completed\"), a GuideLLM report (no \"benchmarks\") nor an inference-perf report \
                 (no \"load_summary\" and \"successes\")"
            )
        })?;
    Ok(Input {
        parsed: Parsed::Bench(vllm_result::read(&label, object)?),
        name: label,
        whole_run: false,
    })
}

/// One line of a trace; the times are on the trace's clock, like `arrival_s`.
#[derive(Deserialize)]
struct TraceLine {
    arrival_s: f64,
    prompt_tokens: u32,
    output_tokens: u32,
    #[serde(default)]
    first_token_s: Option<f64>,
    #[serde(default)]
    last_token_s: Option<f64>,
    /// The same two times measured from arrival, as vLLM's spans and `tests/fixtures/vllm-otel`'s CSV give them.
    #[serde(default)]
    ttft_s: Option<f64>,
    #[serde(default)]
    e2e_s: Option<f64>,
}

fn trace_json_lines(name: &str, text: &str) -> Result<Vec<Life>, String> {
    check_lines(name, text)?;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: TraceLine =
            serde_json::from_str(line).map_err(|e| format!("{name} line {}: {e}", i + 1))?;
        lines.push((i + 1, parsed));
    }
    lives_of(name, lines)
}

fn trace_csv(name: &str, text: &str) -> Result<Vec<Life>, String> {
    check_lines(name, text)?;
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| format!("{name} line 1: {e}"))?
        .clone();
    for column in ["arrival_s", "prompt_tokens", "output_tokens"] {
        if !headers.iter().any(|h| h == column) {
            return Err(format!(
                "{name} line 1: the CSV header has no {column} column"
            ));
        }
    }
    let mut lines = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = record
            .as_ref()
            .ok()
            .and_then(|r| r.position())
            .map_or(i + 2, |p| p.line() as usize);
        let record = record.map_err(|e| format!("{name} line {line}: {e}"))?;
        let parsed: TraceLine = record
            .deserialize(Some(&headers))
            .map_err(|e| format!("{name} line {line}: {e}"))?;
        lines.push((line, parsed));
    }
    lives_of(name, lines)
}

/// Checks the lines (finite, ordered, first token before the last) and shifts them so the first arrives at 0.
fn lives_of(name: &str, lines: Vec<(usize, TraceLine)>) -> Result<Vec<Life>, String> {
    let Some(start) = lines.first().map(|(_, l)| l.arrival_s) else {
        return Err(format!("{name}: no requests in the trace"));
    };
    let mut previous = f64::NEG_INFINITY;
    let mut lives = Vec::with_capacity(lines.len());
    for (number, l) in lines {
        let at = |problem: &str| format!("{name} line {number}: {problem}");
        if !l.arrival_s.is_finite() || l.arrival_s < previous {
            return Err(at(
                "arrival_s must be a finite time, no earlier than the line above",
            ));
        }
        previous = l.arrival_s;
        if l.prompt_tokens == 0 || l.output_tokens == 0 {
            return Err(at("prompt_tokens and output_tokens must be at least 1"));
        }
        let ttft = l.first_token_s.map(|t| t - l.arrival_s).or(l.ttft_s);
        let e2e = l.last_token_s.map(|t| t - l.arrival_s).or(l.e2e_s);
        if ttft.is_some_and(|t| !(t.is_finite() && t > 0.0)) {
            return Err(at(
                "first_token_s (or ttft_s) must be a finite time after arrival_s",
            ));
        }
        if let (Some(first), Some(last)) = (ttft, e2e) {
            if !(last.is_finite() && last >= first) {
                return Err(at(
                    "last_token_s (or e2e_s) must be a finite time, no earlier than the first token",
                ));
            }
        }
        lives.push(Life {
            arrival: Some(l.arrival_s - start),
            prompt: l.prompt_tokens,
            output: l.output_tokens,
            ttft,
            e2e,
        });
    }
    Ok(lives)
}
