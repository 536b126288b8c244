//! A parser for the Prometheus text exposition format (version 0.0.4), as a vLLM server serves it at `/metrics`.
//!
//! Written by hand rather than taken from a crate: the page needs errors that name the author's line, a hard bound on
//! input size, and nothing that fails to build for wasm32. The parser is a single pass over the lines (linear time,
//! no backtracking, no recursion), so hostile input can make it refuse but never hang or panic.
//!
//! ```
//! use goodput::cluster::metrics::{parse, MetricKind};
//! let page = "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 3.0\n";
//! let exposition = parse(page).unwrap();
//! let family = exposition.family("vllm:num_requests_waiting").unwrap();
//! assert_eq!(family.kind, MetricKind::Gauge);
//! assert_eq!(family.samples[0].value, 3.0);
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt;

/// The largest page the parser accepts: 5 MB. A real vLLM `/metrics` page is tens of kilobytes.
pub const MAX_INPUT_BYTES: usize = 5 * 1024 * 1024;

/// The type a `# TYPE` line declares for a metric family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricKind {
    /// A monotonically increasing total.
    Counter,
    /// A value that goes up and down (`vllm:num_requests_waiting`).
    Gauge,
    /// Cumulative `_bucket{le=…}` counts with `_sum` and `_count` (`vllm:time_to_first_token_seconds`).
    Histogram,
    /// Client-side quantiles with `_sum` and `_count`.
    Summary,
    /// Declared `untyped`, or never declared.
    Untyped,
}

impl MetricKind {
    fn from_keyword(word: &str) -> Option<Self> {
        match word {
            "counter" => Some(Self::Counter),
            "gauge" => Some(Self::Gauge),
            "histogram" => Some(Self::Histogram),
            "summary" => Some(Self::Summary),
            "untyped" | "unknown" => Some(Self::Untyped),
            _ => None,
        }
    }
}

/// One sample line: `name{label="value",…} value [timestamp]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The sample's own name, e.g. `vllm:time_to_first_token_seconds_bucket`.
    pub name: String,
    /// Labels in the order written, escapes decoded.
    pub labels: Vec<(String, String)>,
    /// The value as written; the format allows `NaN`, `+Inf` and `-Inf`, so callers must not assume it is finite.
    pub value: f64,
    /// Optional timestamp in milliseconds since the Unix epoch.
    pub timestamp_ms: Option<i64>,
    /// 1-based line number in the page, for error messages further down the line.
    pub line: usize,
}

impl Sample {
    /// The value of label `name`, if present.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// A metric family: the samples that share a base name, with their `# HELP` and `# TYPE`.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    /// The base name (`vllm:time_to_first_token_seconds`, without `_bucket`/`_sum`/`_count`).
    pub name: String,
    /// The `# HELP` text, escapes decoded.
    pub help: Option<String>,
    /// The declared type ([`MetricKind::Untyped`] when no `# TYPE` line was given).
    pub kind: MetricKind,
    /// Samples in page order.
    pub samples: Vec<Sample>,
}

/// A parsed page: its metric families in the order they first appear.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Exposition {
    /// The families, in page order.
    pub families: Vec<Family>,
}

impl Exposition {
    /// The family called `name`, if the page has one.
    pub fn family(&self, name: &str) -> Option<&Family> {
        self.families.iter().find(|family| family.name == name)
    }
}

/// Why a page could not be parsed. Every syntax error names its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The page is larger than [`MAX_INPUT_BYTES`]; nothing was parsed.
    TooLarge {
        /// Size of the input in bytes.
        bytes: usize,
    },
    /// A line that is not valid exposition text, or a histogram whose buckets contradict each other.
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What is wrong, in words fit to show the person who pasted the page.
        message: String,
    },
}

impl ParseError {
    /// The 1-based line the error points at (`None` for a page refused as a whole).
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::TooLarge { .. } => None,
            Self::Syntax { line, .. } => Some(*line),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLarge { bytes } => write!(
                f,
                "the page is {:.1} MB; the limit is {} MB (a vLLM /metrics page is usually under 100 kB)",
                *bytes as f64 / (1024.0 * 1024.0),
                MAX_INPUT_BYTES / (1024 * 1024)
            ),
            Self::Syntax { line, message } => write!(f, "line {line}: {message}"),
        }
    }
}

impl std::error::Error for ParseError {}

fn syntax(line: usize, message: impl Into<String>) -> ParseError {
    ParseError::Syntax {
        line,
        message: message.into(),
    }
}

/// Parses a Prometheus text exposition page.
///
/// Accepts `# HELP` and `# TYPE` lines, other `#` comments, blank lines, and samples with optional labels (escapes
/// `\\`, `\"`, `\n`) and optional integer timestamps; values may be `NaN`, `+Inf` or `-Inf`. Samples named
/// `X_bucket`, `X_sum`, `X_count` join family `X` when `X` is declared a histogram or summary, `X_total` when `X` is
/// declared a counter, and `X_created` when it is not declared itself. Rejects pages over
/// [`MAX_INPUT_BYTES`], malformed lines, a label repeated within a sample, the same series twice, a second `# TYPE`
/// for a family, and histograms whose buckets are out of order, decrease, lack `+Inf`, or disagree with `_count`.
pub fn parse(text: &str) -> Result<Exposition, ParseError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(ParseError::TooLarge { bytes: text.len() });
    }
    let mut builder = Builder::default();
    for (index, raw) in text.split('\n').enumerate() {
        let line_number = index + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed.trim_end().is_empty() {
            continue;
        }
        if let Some(comment) = trimmed.strip_prefix('#') {
            builder.comment(comment, line_number)?;
        } else {
            let sample = parse_sample(trimmed, line_number)?;
            builder.sample(sample)?;
        }
    }
    builder.finish()
}

#[derive(Default)]
struct Builder {
    families: Vec<Family>,
    by_name: HashMap<String, usize>,
    typed_on_line: HashMap<String, usize>,
    series_seen: HashSet<String>,
}

impl Builder {
    fn family_index(&mut self, name: &str) -> usize {
        if let Some(&index) = self.by_name.get(name) {
            return index;
        }
        self.families.push(Family {
            name: name.to_owned(),
            help: None,
            kind: MetricKind::Untyped,
            samples: Vec::new(),
        });
        self.by_name
            .insert(name.to_owned(), self.families.len() - 1);
        self.families.len() - 1
    }

    fn comment(&mut self, comment: &str, line: usize) -> Result<(), ParseError> {
        let rest = comment.trim_start_matches([' ', '\t']);
        let (keyword, after) = split_word(rest);
        if keyword != "HELP" && keyword != "TYPE" {
            return Ok(()); // an ordinary comment
        }
        let (name, text) = split_word(after);
        if name.is_empty() {
            return Err(syntax(line, format!("# {keyword} needs a metric name")));
        }
        if !is_metric_name(name) {
            return Err(syntax(
                line,
                format!("# {keyword} names \"{name}\", which is not a valid metric name"),
            ));
        }
        if keyword == "HELP" {
            let help = unescape_help(text.trim_end(), line)?;
            let index = self.family_index(name);
            if self.families[index].help.is_some() {
                return Err(syntax(line, format!("a second # HELP line for {name}")));
            }
            self.families[index].help = Some(help);
            return Ok(());
        }
        let word = text.trim();
        let kind = MetricKind::from_keyword(word).ok_or_else(|| {
            syntax(
                line,
                format!("unknown metric type \"{word}\" for {name} (expected counter, gauge, histogram, summary or untyped)"),
            )
        })?;
        if let Some(first) = self.typed_on_line.get(name) {
            return Err(syntax(
                line,
                format!("a second # TYPE line for {name} (the first is on line {first})"),
            ));
        }
        let index = self.family_index(name);
        if !self.families[index].samples.is_empty() {
            return Err(syntax(
                line,
                format!("# TYPE for {name} comes after its samples; it must come before them"),
            ));
        }
        self.families[index].kind = kind;
        self.typed_on_line.insert(name.to_owned(), line);
        Ok(())
    }

    /// The family a sample belongs to: `X` for `X_bucket`/`X_sum`/`X_count` of a declared histogram or summary, and
    /// for `X_total` of a counter declared as `X` (OpenMetrics' spelling; Prometheus text declares `X_total` itself).
    /// `X_created` joins `X` only when it has no `# TYPE` of its own (Python's client declares it a gauge).
    fn owner<'s>(&self, sample_name: &'s str) -> &'s str {
        if self.typed_on_line.contains_key(sample_name) {
            return sample_name;
        }
        for suffix in ["_bucket", "_sum", "_count", "_total", "_created"] {
            if let Some(base) = sample_name.strip_suffix(suffix) {
                if let Some(&index) = self.by_name.get(base) {
                    let fits = matches!(
                        (self.families[index].kind, suffix),
                        (
                            MetricKind::Histogram,
                            "_bucket" | "_sum" | "_count" | "_created"
                        ) | (MetricKind::Summary, "_sum" | "_count" | "_created")
                            | (MetricKind::Counter, "_total" | "_created")
                    );
                    if fits {
                        return base;
                    }
                }
            }
        }
        sample_name
    }

    fn sample(&mut self, sample: Sample) -> Result<(), ParseError> {
        let mut key = sample.name.clone();
        let mut sorted: Vec<&(String, String)> = sample.labels.iter().collect();
        sorted.sort_unstable();
        for (name, value) in sorted {
            key.push('\u{0}');
            key.push_str(name);
            key.push('\u{0}');
            key.push_str(value);
        }
        if !self.series_seen.insert(key) {
            return Err(syntax(
                sample.line,
                format!(
                    "{} with these labels already appeared earlier on the page",
                    sample.name
                ),
            ));
        }
        let owner = self.owner(&sample.name);
        let is_part = owner != sample.name;
        let index = self.family_index(owner);
        let family = &mut self.families[index];
        if family.kind == MetricKind::Histogram
            && is_part
            && sample.name.ends_with("_bucket")
            && sample.label("le").is_none()
        {
            return Err(syntax(
                sample.line,
                format!(
                    "{} has no le label (every histogram bucket needs one)",
                    sample.name
                ),
            ));
        }
        family.samples.push(sample);
        Ok(())
    }

    fn finish(self) -> Result<Exposition, ParseError> {
        for family in &self.families {
            if family.kind == MetricKind::Histogram {
                check_histogram(family)?;
            }
        }
        Ok(Exposition {
            families: self.families,
        })
    }
}

/// Splits off the first whitespace-delimited word.
fn split_word(text: &str) -> (&str, &str) {
    let text = text.trim_start_matches([' ', '\t']);
    match text.find([' ', '\t']) {
        Some(end) => (&text[..end], &text[end + 1..]),
        None => (text, ""),
    }
}

fn is_metric_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z' | b'A'..=b'Z' | b'_' | b':'))
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':')
}

fn is_label_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z' | b'A'..=b'Z' | b'_'))
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn unescape_help(text: &str, line: usize) -> Result<String, ParseError> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            // HELP text only defines \\ and \n; keep anything else as written, as Prometheus does.
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => return Err(syntax(line, "# HELP text ends in a lone backslash")),
        }
    }
    Ok(out)
}

/// A cursor over one sample line.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
    line: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn take_while(&mut self, keep: impl Fn(u8) -> bool) -> &'a str {
        let start = self.at;
        while self.peek().is_some_and(&keep) {
            self.at += 1;
        }
        &self.text[start..self.at]
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        syntax(self.line, message)
    }
}

fn parse_sample(text: &str, line: usize) -> Result<Sample, ParseError> {
    let mut cursor = Cursor { text, at: 0, line };
    let name = cursor.take_while(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':');
    if !is_metric_name(name) {
        let shown: String = text.chars().take(40).collect();
        return Err(cursor.error(format!(
            "expected a metric name at the start of \"{shown}\""
        )));
    }
    let mut labels = Vec::new();
    if cursor.peek() == Some(b'{') {
        cursor.at += 1;
        labels = parse_labels(&mut cursor, name)?;
    }
    let before_value = cursor.at;
    cursor.skip_blanks();
    let value_text = cursor.take_while(|b| b != b' ' && b != b'\t');
    if value_text.is_empty() {
        return Err(cursor.error(format!("{name} has no value (the line ends too early)")));
    }
    if cursor.at > 0 && before_value == cursor.at - value_text.len() {
        return Err(cursor.error(format!(
            "{name}: expected a space before the value \"{value_text}\""
        )));
    }
    let value = parse_value(value_text).ok_or_else(|| {
        cursor.error(format!(
            "{name} has value \"{value_text}\", which is not a number"
        ))
    })?;
    cursor.skip_blanks();
    let timestamp_text = cursor.take_while(|b| b != b' ' && b != b'\t');
    let timestamp_ms = if timestamp_text.is_empty() {
        None
    } else {
        Some(timestamp_text.parse::<i64>().map_err(|_| {
            cursor.error(format!(
                "{name} has timestamp \"{timestamp_text}\", which is not a whole number of milliseconds"
            ))
        })?)
    };
    cursor.skip_blanks();
    if cursor.at < text.len() {
        let rest: String = text[cursor.at..].chars().take(40).collect();
        return Err(cursor.error(format!(
            "unexpected text \"{rest}\" after the value of {name}"
        )));
    }
    Ok(Sample {
        name: name.to_owned(),
        labels,
        value,
        timestamp_ms,
        line,
    })
}

fn parse_labels(
    cursor: &mut Cursor<'_>,
    metric: &str,
) -> Result<Vec<(String, String)>, ParseError> {
    let mut labels: Vec<(String, String)> = Vec::new();
    loop {
        cursor.skip_blanks();
        if cursor.peek() == Some(b'}') {
            cursor.at += 1;
            return Ok(labels);
        }
        let name = cursor.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !is_label_name(name) {
            return Err(match cursor.peek() {
                None => cursor.error(format!("the labels of {metric} are not closed with }}")),
                Some(_) => cursor.error(format!("expected a label name in the labels of {metric}")),
            });
        }
        cursor.skip_blanks();
        if cursor.peek() != Some(b'=') {
            return Err(cursor.error(format!("label {name} of {metric} needs =\"value\"")));
        }
        cursor.at += 1;
        cursor.skip_blanks();
        if cursor.peek() != Some(b'"') {
            return Err(cursor.error(format!(
                "the value of label {name} of {metric} must be in double quotes"
            )));
        }
        cursor.at += 1;
        let value = parse_label_value(cursor, metric, name)?;
        if labels.iter().any(|(existing, _)| existing == name) {
            return Err(cursor.error(format!("label {name} appears twice in {metric}")));
        }
        labels.push((name.to_owned(), value));
        cursor.skip_blanks();
        match cursor.peek() {
            Some(b',') => cursor.at += 1,
            Some(b'}') => {}
            None => {
                return Err(cursor.error(format!("the labels of {metric} are not closed with }}")))
            }
            Some(_) => {
                return Err(cursor.error(format!("expected , or }} after label {name} of {metric}")))
            }
        }
    }
}

/// Reads a label value after its opening quote, decoding `\\`, `\"` and `\n`.
fn parse_label_value(
    cursor: &mut Cursor<'_>,
    metric: &str,
    label: &str,
) -> Result<String, ParseError> {
    let bytes = cursor.text.as_bytes();
    let mut out = String::new();
    let mut run_start = cursor.at;
    loop {
        match bytes.get(cursor.at) {
            None => {
                return Err(cursor.error(format!(
                    "the value of label {label} of {metric} has no closing quote"
                )))
            }
            Some(b'"') => {
                out.push_str(&cursor.text[run_start..cursor.at]);
                cursor.at += 1;
                return Ok(out);
            }
            Some(b'\\') => {
                out.push_str(&cursor.text[run_start..cursor.at]);
                let decoded = match bytes.get(cursor.at + 1) {
                    Some(b'\\') => '\\',
                    Some(b'"') => '"',
                    Some(b'n') => '\n',
                    None => {
                        return Err(cursor.error(format!(
                            "the value of label {label} of {metric} has no closing quote"
                        )))
                    }
                    Some(_) => {
                        return Err(cursor.error(format!(
                            "unknown escape in the value of label {label} of {metric} (only \\\\, \\\" and \\n are allowed)"
                        )))
                    }
                };
                out.push(decoded);
                cursor.at += 2;
                run_start = cursor.at;
            }
            Some(_) => cursor.at += 1,
        }
    }
}

/// Parses a sample value as Go's `ParseFloat` would: decimals, exponents, `NaN`, `+Inf`, `-Inf`.
fn parse_value(text: &str) -> Option<f64> {
    match text {
        "NaN" | "nan" => return Some(f64::NAN),
        "+Inf" | "Inf" | "+inf" | "inf" => return Some(f64::INFINITY),
        "-Inf" | "-inf" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    // Rust also accepts spellings such as "infinity"; the exposition format does not.
    if !text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    text.parse::<f64>().ok()
}

/// Checks one histogram family: per series, `le` parses, bounds rise, counts never fall, the last bucket is `+Inf`,
/// and `_count` (when present) equals the `+Inf` bucket.
fn check_histogram(family: &Family) -> Result<(), ParseError> {
    struct Series {
        last_bound: f64,
        last_count: f64,
        last_line: usize,
        saw_inf: bool,
        count: Option<(f64, usize)>,
    }
    let mut series: HashMap<Vec<(&str, &str)>, Series> = HashMap::new();
    let bucket_name = format!("{}_bucket", family.name);
    let count_name = format!("{}_count", family.name);
    for sample in &family.samples {
        let is_bucket = sample.name == bucket_name;
        if !is_bucket && sample.name != count_name {
            continue;
        }
        let mut key: Vec<(&str, &str)> = sample
            .labels
            .iter()
            .filter(|(name, _)| name != "le")
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        key.sort_unstable();
        let entry = series.entry(key).or_insert(Series {
            last_bound: f64::NEG_INFINITY,
            last_count: 0.0,
            last_line: 0,
            saw_inf: false,
            count: None,
        });
        if !is_bucket {
            entry.count = Some((sample.value, sample.line));
            continue;
        }
        let le_text = sample.label("le").unwrap_or_default();
        let bound = parse_value(le_text)
            .filter(|b| !b.is_nan())
            .ok_or_else(|| {
                syntax(
                    sample.line,
                    format!("bucket bound le=\"{le_text}\" is not a number"),
                )
            })?;
        if sample.value.is_nan() || sample.value < 0.0 {
            return Err(syntax(
                sample.line,
                format!(
                    "bucket le=\"{le_text}\" has count {}, which is not a count",
                    sample.value
                ),
            ));
        }
        if entry.saw_inf || bound <= entry.last_bound {
            return Err(syntax(
                sample.line,
                format!(
                    "bucket le=\"{le_text}\" of {} is out of order: bounds must rise, ending with +Inf",
                    family.name
                ),
            ));
        }
        if sample.value < entry.last_count {
            return Err(syntax(
                sample.line,
                format!(
                    "bucket le=\"{le_text}\" of {} counts {} but the bucket before it (line {}) counts {}: cumulative counts cannot fall",
                    family.name, sample.value, entry.last_line, entry.last_count
                ),
            ));
        }
        entry.last_bound = bound;
        entry.last_count = sample.value;
        entry.last_line = sample.line;
        entry.saw_inf = bound == f64::INFINITY;
    }
    // Report the earliest problem, so the message does not depend on hash order.
    let mut first: Option<ParseError> = None;
    let mut keep = |error: ParseError| {
        if first.as_ref().is_none_or(|kept| error.line() < kept.line()) {
            first = Some(error);
        }
    };
    for entry in series.values() {
        if entry.last_line != 0 && !entry.saw_inf {
            keep(syntax(
                entry.last_line,
                format!(
                    "the buckets of {} end without an le=\"+Inf\" bucket",
                    family.name
                ),
            ));
        }
        if let Some((count, line)) = entry.count {
            if entry.last_line != 0 && count != entry.last_count {
                keep(syntax(
                    line,
                    format!(
                        "{count_name} is {count} but its +Inf bucket (line {}) counts {}; they must be equal",
                        entry.last_line, entry.last_count
                    ),
                ));
            }
        }
    }
    if let Some(error) = first {
        return Err(error);
    }
    Ok(())
}

/// Escapes a label value for exposition text: `\` → `\\`, `"` → `\"`, newline → `\n`.
pub fn escape_label_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            other => out.push(other),
        }
    }
    out
}
