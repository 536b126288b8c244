//! Request traces for `goodput-sim run --trace`: one request per line, as JSON lines (`{"arrival_s": 0.0,
//! "prompt_tokens": 512, "output_tokens": 128}`) or CSV with a header naming the columns `arrival_s`,
//! `prompt_tokens`, `output_tokens` (in any order; other columns and fields are ignored). Absolute timestamps are
//! shifted so the first request arrives at 0. An error names the line.

use super::input::{display_name, read_text};
use goodput::model::{check_requests, Scenario, TraceRequest};
use serde::Deserialize;

/// Largest trace accepted (a million requests is about 60 MB of JSON lines).
const MAX_TRACE_BYTES: usize = 512 * 1024 * 1024;

/// One line of a trace, before the shift.
#[derive(Deserialize)]
struct Line {
    arrival_s: f64,
    prompt_tokens: u32,
    output_tokens: u32,
}

/// The requests of the trace at `source` (a path or `-`), checked against `scenario`'s fleet; an error is one line
/// naming the trace and its line.
pub fn read_trace(source: &str, scenario: &Scenario) -> Result<Vec<TraceRequest>, String> {
    let text = read_text(
        source,
        MAX_TRACE_BYTES,
        "a trace is one short line per request",
    )?;
    parse_trace(&text, display_name(source), scenario)
}

/// The requests of a trace's text, named `name` in errors; linear in its length (`make bench` times a million
/// lines).
pub fn parse_trace(
    text: &str,
    name: &str,
    scenario: &Scenario,
) -> Result<Vec<TraceRequest>, String> {
    // A byte-order mark (what some editors write first) is not the start of a CSV header.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (lines, numbers) = parse(text).map_err(|(line, e)| format!("{name} line {line}: {e}"))?;
    let Some(first) = lines.first() else {
        return Err(format!("{name}: no requests in the trace"));
    };
    let start = first.arrival_s;
    let requests: Vec<TraceRequest> = lines
        .iter()
        .map(|l| TraceRequest {
            arrival_s: l.arrival_s - start,
            prompt_tokens: l.prompt_tokens,
            output_tokens: l.output_tokens,
        })
        .collect();
    check_requests(scenario, &requests).map_err(|e| {
        // `requests[i]…` is the i-th request: name its line instead.
        let index = e
            .field
            .strip_prefix("requests[")
            .and_then(|rest| rest.split(']').next())
            .and_then(|i| i.parse::<usize>().ok());
        match index {
            Some(i) => {
                let field = e.field.split('.').nth(1).unwrap_or("request");
                let problem = if field == "arrival_s" {
                    "arrives before the line above (sort the trace by arrival_s)".to_owned()
                } else {
                    e.problem.clone()
                };
                format!("{name} line {}: {field} {problem}", numbers[i])
            }
            None => format!("{name}: {e}"),
        }
    })?;
    Ok(requests)
}

/// The lines of a trace and their line numbers (1-based), or the first line that does not parse.
fn parse(text: &str) -> Result<(Vec<Line>, Vec<usize>), (usize, String)> {
    let Some(first) = text.lines().position(|l| !l.trim().is_empty()) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let json = text
        .lines()
        .nth(first)
        .is_some_and(|l| l.trim_start().starts_with('{'));
    let (mut lines, mut numbers) = (Vec::new(), Vec::new());
    if json {
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parsed: Line = serde_json::from_str(line).map_err(|e| (i + 1, e.to_string()))?;
            finite(&parsed).map_err(|e| (i + 1, e))?;
            lines.push(parsed);
            numbers.push(i + 1);
        }
        return Ok((lines, numbers));
    }
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader.headers().map_err(|e| (1, e.to_string()))?.clone();
    for column in ["arrival_s", "prompt_tokens", "output_tokens"] {
        if !headers.iter().any(|h| h == column) {
            return Err((
                1,
                format!(
                    "the CSV header has no {column} column (it needs arrival_s, prompt_tokens and output_tokens; \
                     or give JSON lines)"
                ),
            ));
        }
    }
    let mut lines_at = LineCounter::new(text);
    for record in reader.records() {
        let record = record.map_err(|e| (lines_at.line(e.position()), e.to_string()))?;
        let line = lines_at.line(record.position());
        let parsed: Line = record
            .deserialize(Some(&headers))
            .map_err(|e| (line, e.to_string()))?;
        finite(&parsed).map_err(|e| (line, e))?;
        lines.push(parsed);
        numbers.push(line);
    }
    Ok((lines, numbers))
}

/// The line a CSV record is on (the reader's own line count skips blank lines), counted onwards from the previous
/// record's, so reading a trace stays linear in its length.
struct LineCounter<'a> {
    bytes: &'a [u8],
    /// Bytes counted so far, and the line the byte at that offset is on.
    counted: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            bytes: text.as_bytes(),
            counted: 0,
            line: 1,
        }
    }

    /// The line of the record at `p` (records come in order; a position before the last one counted is rare and
    /// counted again from the top).
    fn line(&mut self, p: Option<&csv::Position>) -> usize {
        let Some(p) = p else { return 0 };
        let bytes = self.bytes;
        // A record's position is where the reader started, before any blank lines it skipped.
        let mut end = (p.byte() as usize).min(bytes.len());
        while end < bytes.len() && matches!(bytes[end], b'\n' | b'\r') {
            end += 1;
        }
        if end < self.counted {
            (self.counted, self.line) = (0, 1);
        }
        self.line += bytes[self.counted..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.counted = end;
        self.line
    }
}

fn finite(line: &Line) -> Result<(), String> {
    if line.arrival_s.is_finite() {
        Ok(())
    } else {
        Err("arrival_s must be a finite number of seconds".to_owned())
    }
}
