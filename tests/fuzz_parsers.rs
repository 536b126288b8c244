//! Fuzzing every parser that takes outside input: the lesson compiler (lessons are contributed text), the metrics
//! reader (a `/metrics` page pasted by a learner) and, once it exists, the knee lab's URL state.
//!
//! Each target runs proptest generators of two kinds: *mutations* of real inputs (the shipped lesson, the sample
//! lesson, the sample metrics pages) with edits drawn from a dictionary of the format's own tokens, which reach deep
//! into the parser; and *structured* inputs built from the grammar, which reach the checks behind a valid parse.
//! `cargo test` runs a few hundred cases of each; `make fuzz` runs each target for a bounded time
//! (`GOODPUT_FUZZ_SECONDS`, 60 s by default there). A failure prints the shrunk input; every input a run ever
//! found wrong is kept below as a plain regression test.

use goodput::cluster::metrics::{escape_label_value, parse, ParseError};
use goodput::cluster::report::{render, Options, Source};
use goodput::cluster::vllm::{assess, find_signals, Latency, SloTargets};
use goodput::cluster::window::between;
use goodput::lesson::Lesson;
use goodput_lesson_compiler::compile_lesson;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

#[path = "support/fuzz.rs"]
mod fuzzing;
use fuzzing::{edits, fuzz, mutate};

// ── The lesson compiler ─────────────────────────────────────────────────────────────────────────────────────────

const SHIPPED_LESSON: (&str, &str) = (
    "lessons/32-latency-throughput-slos.md",
    include_str!("../lessons/32-latency-throughput-slos.md"),
);
const SAMPLE_LESSON: (&str, &str) = (
    "tests/fixtures/lessons/07-sample.md",
    include_str!("fixtures/lessons/07-sample.md"),
);

/// Tokens of lesson markdown, TOML and LaTeX, for mutations.
const LESSON_TOKENS: &[&str] = &[
    "+++\n",
    "```",
    "```@",
    "```@predict\n",
    "```@widget\n",
    "```@keywords\n",
    "\n```\n",
    "$",
    "$$",
    "\\frac{",
    "}{",
    "\\sqrt",
    "^",
    "_",
    "{",
    "}",
    "{#",
    "](#",
    "](javascript:",
    "[x](",
    "![i](data:",
    "| a | b |\n|:--|--:|\n",
    "[[options]]\n",
    "[[terms]]\n",
    "[[legend]]\n",
    "[settings]\n",
    "\"\"\"",
    "'''",
    "'",
    "\"",
    "=",
    "\n",
    "\n\n",
    "#",
    "## ",
    "<b>",
    "<!--",
    "&amp;",
    "\0",
    "é",
    "\r\n",
    "\\",
    "*",
    "**",
    "`",
    "> [!NOTE]\n",
    "- ",
    "1. ",
    "    ",
    "\t",
    "title = ",
    "number = 99999999999999999999",
    "number = -1",
    "slug = \"\"",
    "id = \"x\"",
    "type = \"numeric-estimate\"",
    "type = \"chart-prediction\"",
    "answer = 1e309",
    "relative_tolerance = -1",
    "correct = true",
    "name = \"knee-lab\"",
    "\u{202e}",
    "\u{feff}",
    "[^1]",
    "[^1]: note\n",
    "~~",
    "- [ ] ",
];

/// Compiles a lesson and checks what any outcome must satisfy: an error names a line of the file and says
/// something; a lesson survives the JSON the page reads.
fn compiles_or_points_at_a_line(file: &str, source: &str) -> Result<(), TestCaseError> {
    match compile_lesson(file, source) {
        Ok(lesson) => {
            let json = serde_json::to_string(&lesson)
                .map_err(|e| TestCaseError::fail(format!("lesson does not serialise: {e}")))?;
            let back: Lesson = serde_json::from_str(&json)
                .map_err(|e| TestCaseError::fail(format!("lesson JSON does not read back: {e}")))?;
            prop_assert_eq!(back, lesson);
        }
        Err(error) => {
            let lines = source.split('\n').count();
            prop_assert_eq!(&error.file, file);
            prop_assert!(
                (1..=lines).contains(&error.line),
                "error line {} is outside the file's {lines} lines: {error}",
                error.line
            );
            prop_assert!(!error.message.trim().is_empty(), "empty message");
        }
    }
    Ok(())
}

#[test]
fn mutated_lessons_compile_or_point_at_a_line() {
    let seeds = prop_oneof![Just(SHIPPED_LESSON), Just(SAMPLE_LESSON)];
    fuzz(
        "lesson-mutations",
        (seeds, edits(LESSON_TOKENS)),
        |((file, seed), edits)| compiles_or_points_at_a_line(file, &mutate(seed, &edits)),
    );
}

/// Front matter that is mostly valid (so that most cases reach the body), else wrong in a field or more.
fn front_matter() -> impl Strategy<Value = String> {
    let number = prop_oneof![
        8 => Just("99".to_string()),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => "[0-9a-z.\"]{0,6}"
    ];
    let slug = prop_oneof![
        8 => Just("\"sample\"".to_string()),
        1 => "\"[a-z0-9-]{0,8}\""
    ];
    let minutes = prop_oneof![
        8 => Just("3".to_string()),
        1 => any::<i32>().prop_map(|n| n.to_string())
    ];
    (number, slug, minutes, "[a-zA-Z *_`$]{0,20}").prop_map(|(number, slug, minutes, title)| {
        format!(
            "+++\ntitle = \"{title}\"\nnumber = {number}\nslug = {slug}\nsummary = \"S.\"\nobjectives = [\"Learn.\"]\nminutes = {minutes}\n+++\n"
        )
    })
}

/// One top-level block of a lesson body, from the grammar in lessons/README.md.
fn lesson_block() -> impl Strategy<Value = String> {
    let inline = "[a-zA-Z0-9 ,.*_`$\\\\{}^()\\[\\]#-]{0,40}";
    let latex = "[a-zA-Z0-9+\\-*/^_{}()\\\\ ]{0,24}";
    let directive_name = prop_oneof![
        proptest::sample::select(
            &[
                "tldr",
                "analogy",
                "keywords",
                "math-decoded",
                "recall",
                "predict",
                "check-yourself",
                "explain",
                "speaker-notes",
                "widget",
            ][..]
        )
        .prop_map(str::to_string),
        "[a-z-]{1,10}",
    ];
    let toml_line = prop_oneof![
        ("[a-z_]{1,10}", inline).prop_map(|(key, value)| format!("{key} = \"{value}\"")),
        ("[a-z_]{1,10}", any::<f64>()).prop_map(|(key, value)| format!("{key} = {value:?}")),
        "\\[\\[?[a-z]{1,8}\\]\\]?",
        Just("type = \"multiple-choice\"".to_string()),
        Just("correct = true".to_string()),
    ];
    prop_oneof![
        inline.prop_map(|text| format!("{text}\n")),
        (1usize..7, inline).prop_map(|(level, text)| format!("{} {text}\n", "#".repeat(level))),
        latex.prop_map(|tex| format!("Inline ${tex}$ math.\n")),
        latex.prop_map(|tex| format!("$$\n{tex}\n$$\n")),
        (
            proptest::collection::vec(inline, 1..4),
            proptest::collection::vec("[:-]{1,4}", 1..4)
        )
            .prop_map(|(cells, rule)| format!(
                "| {} |\n| {} |\n| {} |\n",
                cells.join(" | "),
                rule.join(" | "),
                cells.join(" | ")
            )),
        ("[a-z+]{0,8}", "[ -~\n]{0,60}")
            .prop_map(|(lang, code)| format!("```{lang}\n{code}\n```\n")),
        (directive_name, proptest::collection::vec(toml_line, 0..6))
            .prop_map(|(name, lines)| format!("```@{name}\n{}\n```\n", lines.join("\n"))),
        ("[a-z-]{0,10}", inline).prop_map(|(anchor, text)| format!("[{text}](#{anchor})\n")),
        inline.prop_map(|text| format!("- {text}\n  - {text}\n> {text}\n")),
    ]
}

#[test]
fn generated_lessons_compile_or_point_at_a_line() {
    let lesson = (
        front_matter(),
        proptest::collection::vec(lesson_block(), 0..12),
    )
        .prop_map(|(front, blocks)| format!("{front}\n{}", blocks.join("\n")));
    fuzz("lesson-grammar", lesson, |source| {
        compiles_or_points_at_a_line("lessons/99-sample.md", &source)
    });
}

// ── The metrics reader ──────────────────────────────────────────────────────────────────────────────────────────

const METRICS_PAGES: [&str; 2] = [
    include_str!("fixtures/metrics/healthy.prom"),
    include_str!("fixtures/metrics/past-the-knee.prom"),
];

/// Tokens of the Prometheus text format, for mutations.
const METRICS_TOKENS: &[&str] = &[
    "{",
    "}",
    "=\"",
    "\"",
    "\\",
    "\\n",
    "\\\"",
    ",",
    "le=\"+Inf\"",
    "le=\"0.5\"",
    "le=\"NaN\"",
    "NaN",
    "+Inf",
    "-Inf",
    "1e308",
    "1e309",
    "-0",
    "0x10",
    " 9223372036854775807",
    " -9223372036854775809",
    "# TYPE ",
    "# TYPE x histogram\n",
    "# TYPE x summary\n",
    "# HELP ",
    "_bucket",
    "_sum",
    "_count",
    "\r",
    "\n",
    " ",
    "\t",
    "é",
    "\u{feff}",
    "vllm:num_requests_waiting",
    "vllm:num_requests_running",
    "vllm:time_to_first_token_seconds",
    "vllm:time_per_output_token_seconds",
    "vllm:request_time_per_output_token_seconds",
    "vllm:inter_token_latency_seconds",
    "vllm:kv_cache_usage_perc",
    "vllm:num_preemptions_total",
    "# TYPE vllm:num_preemptions counter\n",
    "_total",
    "_created",
    "process_start_time_seconds",
    "model_name=\"m\"",
    "quantile=\"0.99\"",
    "#",
    "a{}",
    "{a=\"1\",a=\"1\"}",
];

/// Parses a page and, when it parses, runs everything the page does with it: find the vLLM signals, estimate
/// percentiles, judge the knee, describe each server, and read it as both ends of a window (against itself and
/// against `other`, in both orders) in the text and JSON reports. Nothing may panic; a syntax error names a line of
/// the page.
fn reads_or_points_at_a_line(text: &str, other: &str) -> Result<(), TestCaseError> {
    match parse(text) {
        Ok(page) => {
            for server in find_signals(&page) {
                let _ = server.describe_labels();
                let _ = server.model_name();
                for latency in Latency::ALL {
                    let Some(histogram) = server.histogram(latency) else {
                        continue;
                    };
                    let percentiles = histogram.value.percentiles();
                    for estimate in [percentiles.p50, percentiles.p95, percentiles.p99] {
                        let _ = (estimate.describe(), estimate.at_least());
                    }
                    let _ = (histogram.value.mean(), histogram.value.count());
                }
                let _ = assess(&server, &SloTargets::COURSE);
            }
            for server in between(&page, &page, Some(60.0)).servers {
                let _ = assess(&server, &SloTargets::COURSE);
            }
            let (this, that) = (Source::text("this", text), Source::text("other", other));
            for json in [false, true] {
                let options = Options::new(500.0, 40.0, None, json).expect("valid options");
                for (earlier, later) in [
                    (&this, Some(&this)),
                    (&this, Some(&that)),
                    (&that, Some(&this)),
                    (&this, None),
                ] {
                    let _ = render(earlier, later, &options);
                }
            }
        }
        Err(ParseError::Syntax { line, message }) => {
            let lines = text.split('\n').count();
            prop_assert!(
                (1..=lines).contains(&line),
                "line {line} outside 1..={lines}: {message}"
            );
            prop_assert!(!message.trim().is_empty());
        }
        Err(ParseError::TooLarge { bytes }) => prop_assert_eq!(bytes, text.len()),
    }
    Ok(())
}

#[test]
fn mutated_metrics_pages_read_or_point_at_a_line() {
    let seeds = proptest::sample::select(&METRICS_PAGES[..]);
    fuzz(
        "metrics-mutations",
        (seeds, edits(METRICS_TOKENS)),
        |(seed, edits)| reads_or_points_at_a_line(&mutate(seed, &edits), seed),
    );
}

/// A family from the grammar: `# HELP`/`# TYPE` lines and samples with labels, values and timestamps that are valid
/// or near misses (NaN, infinities, huge, negative, repeated label sets, buckets out of order).
fn metrics_family() -> impl Strategy<Value = String> {
    let name = prop_oneof![
        proptest::sample::select(
            &[
                "vllm:num_requests_waiting",
                "vllm:num_requests_running",
                "vllm:time_to_first_token_seconds",
                "vllm:time_per_output_token_seconds",
                "vllm:request_time_per_output_token_seconds",
                "vllm:inter_token_latency_seconds",
                "vllm:kv_cache_usage_perc",
                "vllm:gpu_cache_usage_perc",
                "vllm:num_preemptions",
                "vllm:num_preemptions_total",
            ][..]
        )
        .prop_map(str::to_string),
        "[a-zA-Z_:][a-zA-Z0-9_:]{0,12}",
    ];
    let kind = proptest::sample::select(
        &[
            "counter",
            "gauge",
            "histogram",
            "summary",
            "untyped",
            "bogus",
        ][..],
    );
    let value = prop_oneof![
        any::<f64>().prop_map(|v| format!("{v:?}")),
        (0u32..1000).prop_map(|v| v.to_string()),
        proptest::sample::select(&["NaN", "+Inf", "-Inf", "-0", "1e309"][..])
            .prop_map(str::to_string),
    ];
    let label_value = any::<String>().prop_map(|v| escape_label_value(&v));
    let labels = proptest::collection::vec(
        (
            proptest::sample::select(&["model_name", "engine", "le", "quantile", "x"][..]),
            label_value,
        ),
        0..3,
    );
    let timestamp = proptest::option::of(any::<i64>());
    let sample = (
        "(_bucket|_sum|_count|_total|_created)?",
        labels,
        value,
        timestamp,
    );
    (name, kind, proptest::collection::vec(sample, 0..8)).prop_map(|(name, kind, samples)| {
        let mut text = format!("# HELP {name} Help with \\\\ and \\n.\n# TYPE {name} {kind}\n");
        for (suffix, labels, value, timestamp) in samples {
            let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
            let timestamp = timestamp.map(|t| format!(" {t}")).unwrap_or_default();
            text.push_str(&format!(
                "{name}{suffix}{{{}}} {value}{timestamp}\n",
                labels.join(",")
            ));
        }
        text
    })
}

#[test]
fn generated_metrics_pages_read_or_point_at_a_line() {
    let page =
        proptest::collection::vec(metrics_family(), 0..6).prop_map(|families| families.concat());
    fuzz("metrics-grammar", page, |text| {
        reads_or_points_at_a_line(&text, METRICS_PAGES[0])
    });
}

#[test]
fn any_label_value_survives_escaping_and_parsing() {
    fuzz("metrics-label-escapes", any::<String>(), |value| {
        let text = format!("m{{a=\"{}\"}} 1\n", escape_label_value(&value));
        let page = parse(&text).map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        let sample = &page.family("m").expect("family m").samples[0];
        prop_assert_eq!(sample.label("a"), Some(value.as_str()));
        Ok(())
    });
}

// ── The knee lab's URL state ────────────────────────────────────────────────────────────────────────────────────
//
// Any query string gives settings within range (bad values clamped with notes, never a panic), and the settings
// written back into the URL read back as the same settings with no note: one state, one URL.

#[test]
fn any_query_string_gives_settings_in_range_that_round_trip() {
    use goodput::lab::settings::{lab_keys, LabSettings};
    let lab_pair = (
        proptest::sample::select(lab_keys().collect::<Vec<_>>()),
        "[ -~]{0,12}",
    )
        .prop_map(|(key, value)| format!("{key}={value}"));
    let query = prop_oneof![
        any::<String>(),
        proptest::collection::vec(lab_pair, 0..8).prop_map(|pairs| pairs.join("&")),
        proptest::collection::vec(("[a-z_]{1,8}", "[ -~]{0,12}"), 0..8).prop_map(|pairs| pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")),
    ];
    fuzz("lab-url-state", query, |query| {
        let defaults = LabSettings::default();
        let (lab, _) = defaults.with_query(&query);
        prop_assert!((85..=100).contains(&lab.load_percent));
        prop_assert!((1..=16).contains(&lab.replicas) && (1..=1024).contains(&lab.max_num_seqs));
        prop_assert!(lab.slo_ttft_ms.is_finite() && lab.slo_tpot_ms.is_finite());
        let (again, notes) = defaults.with_query(&lab.merge_into_query(&query, &defaults));
        prop_assert!(notes.is_empty(), "{:?}", notes);
        prop_assert_eq!(again, lab);
        Ok(())
    });
}

// ── Regressions: inputs a fuzz run found wrong, fixed and kept ────────────────────────────────────────────────────

/// `make fuzz` found it: pulldown-latex 0.7 panicked (slicing inside a multi-byte character) on a backslash before a
/// non-ASCII character in a formula, which crashed the build instead of naming the line.
#[test]
fn a_backslash_before_a_non_ascii_character_in_math_names_its_line() {
    let source = "+++\ntitle = \"Sample\"\nnumber = 99\nslug = \"sample\"\nsummary = \"S.\"\nobjectives = [\"Learn.\"]\nminutes = 3\n+++\nIntro.\n\nIt takes $W = 8\\¡\\text{s}$ end to end.\n";
    let error = compile_lesson("lessons/99-sample.md", source).unwrap_err();
    assert_eq!(error.line, 11, "{error}");
    assert!(error.message.contains("is not a LaTeX command"), "{error}");
}
