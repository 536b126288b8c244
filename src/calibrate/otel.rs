//! vLLM's OpenTelemetry request spans (`--otlp-traces-endpoint`), as the OpenTelemetry collector's file exporter
//! writes them: one OTLP JSON document a line, `resourceSpans[].scopeSpans[].spans[]`, each `llm_request` span with
//! its start (when the engine received the request) and the attributes `gen_ai.usage.prompt_tokens`,
//! `gen_ai.usage.completion_tokens`, `gen_ai.latency.time_to_first_token` and `gen_ai.latency.e2e` (seconds). They
//! become a trace with token times, in arrival order, arrivals from 0.

use super::bench_result::Life;
use serde_json::Value;

/// Whether a parsed line is an OTLP traces document.
pub fn is_spans(value: &Value) -> bool {
    value.get("resourceSpans").is_some_and(Value::is_array)
}

/// An attribute's value: OTLP JSON writes integers as strings (`{"intValue": "3140"}`).
fn attribute(span: &Value, key: &str) -> Option<f64> {
    let value = span
        .get("attributes")?
        .as_array()?
        .iter()
        .find(|a| a.get("key").and_then(Value::as_str) == Some(key))?
        .get("value")?;
    let inner = value.get("doubleValue").or_else(|| value.get("intValue"))?;
    match inner {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn start_seconds(span: &Value) -> Option<f64> {
    let nanos = match span.get("startTimeUnixNano")? {
        Value::String(s) => s.parse::<u64>().ok()?,
        Value::Number(n) => n.as_u64()?,
        _ => return None,
    };
    // Split so the seconds keep the nanoseconds an f64 of the whole would round away.
    Some((nanos / 1_000_000_000) as f64 + (nanos % 1_000_000_000) as f64 * 1e-9)
}

/// One request span as a life on the spans' clock, `None` for a span of anything else.
fn life_of(span: &Value) -> Option<Result<Life, &'static str>> {
    let prompt = attribute(span, "gen_ai.usage.prompt_tokens")?;
    let output = attribute(span, "gen_ai.usage.completion_tokens")?;
    let ttft = attribute(span, "gen_ai.latency.time_to_first_token")?;
    let e2e = attribute(span, "gen_ai.latency.e2e")?;
    let Some(arrival) = start_seconds(span) else {
        return Some(Err("a span without a startTimeUnixNano"));
    };
    let max = f64::from(crate::model::scenario::MAX_TOKENS);
    if !(1.0..=max).contains(&prompt) || !(1.0..=max).contains(&output) {
        return Some(Err("token counts below 1 or beyond what the model holds"));
    }
    if !(ttft.is_finite() && ttft > 0.0 && e2e.is_finite() && e2e >= ttft) {
        return Some(Err(
            "a time to first token after the request's end, or not above 0",
        ));
    }
    Some(Ok(Life {
        arrival: Some(arrival),
        prompt: prompt as u32,
        output: output as u32,
        ttft: Some(ttft),
        e2e: Some(e2e),
    }))
}

/// Adds the request spans of one document (starting on `line`) to `lives`: documents are read one at a time, so
/// a file of many holds only the lives in memory, never all its documents.
pub fn add_spans(
    name: &str,
    line: usize,
    document: &Value,
    lives: &mut Vec<Life>,
) -> Result<(), String> {
    let spans = document
        .get("resourceSpans")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.get("scopeSpans")?.as_array())
        .flatten()
        .filter_map(|s| s.get("spans")?.as_array())
        .flatten();
    for span in spans {
        match life_of(span) {
            Some(Ok(life)) => lives.push(life),
            Some(Err(problem)) => return Err(format!("{name} line {line}: {problem}")),
            None => {}
        }
    }
    Ok(())
}

/// The lives the documents held, sorted by arrival, arrivals from 0; an error when there are none.
pub fn ordered(name: &str, mut lives: Vec<Life>) -> Result<Vec<Life>, String> {
    if lives.is_empty() {
        return Err(format!(
            "{name}: OpenTelemetry spans, but none of a vLLM request (gen_ai.usage.prompt_tokens, \
             gen_ai.latency.e2e, …): start vLLM with --otlp-traces-endpoint"
        ));
    }
    lives.sort_by(|a, b| {
        a.arrival
            .unwrap_or(0.0)
            .total_cmp(&b.arrival.unwrap_or(0.0))
    });
    let first = lives[0].arrival.unwrap_or(0.0);
    for life in &mut lives {
        life.arrival = life.arrival.map(|a| a - first);
    }
    Ok(lives)
}
