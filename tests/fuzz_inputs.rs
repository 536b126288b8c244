//! Fuzzing the parsers "Your server" and the teacher added: `vllm bench serve` result JSON, inference-perf's
//! lifecycle reports, request traces (CSV and JSON lines), scrape pairs for calibration, the stored calibrated server (`calibrate::handoff`), and the stream
//! of the learner's own model (`teacher::model::StreamReader`).
//!
//! Every target checks the same things: no panic, a case done in bounded time ([`CASE_LIMIT`]), and either a
//! result or a one-line error; the file readers' targets also hold the heap's peak to a budget in proportion to the
//! input ([`memory_limit`]), so a few bytes that claim a huge count cannot make the reader reserve for it. A result goes on as far as the fit: its rows pass the numeric guard or are refused,
//! and the fit (nalgebra's SVD) never sees one that is not. Seeds are real formats: the synthetic server's result
//! files, the sample metrics pages, a server the calibration itself stored, a stream as vLLM sends it. `cargo test`
//! runs 256 cases of each; `make fuzz` runs each for `GOODPUT_FUZZ_SECONDS` (60 s by default there), and the case
//! counts of a run are in BENCHMARKS.md.

use goodput::model::{check_requests, Scenario};
use goodput_calibrate::check::requests_of;
use goodput_calibrate::fit::{fit, Row};
use goodput_calibrate::inputs::{parse, InputFile, Parsed};
use goodput_calibrate::observations::{bench_rows, trace_rows, window_rows, Shape};
use goodput_calibrate::{calibrate, handoff, scrapes, ServerFlags};
use goodput_teacher::model::{StreamEvent, StreamReader};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::time::{Duration, Instant};

#[path = "support/peak_alloc.rs"]
mod peak_alloc;
use peak_alloc::{peak_of, Counting};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[path = "support/fuzz.rs"]
mod fuzzing;
use fuzzing::{edits, fuzz, mutate};

#[path = "support/synthetic_server.rs"]
mod synthetic_server;

#[path = "support/inference_perf_reports.rs"]
mod inference_perf_reports;

/// Longest a case may take, however hostile its input: a parse and a fit are milliseconds.
const CASE_LIMIT: Duration = Duration::from_secs(2);

/// Most heap a case may take above what it started with: 64 times its input and 16 MB (a parse holds the text's
/// values and the fit's rows, a few times the input; a reservation made from a number in the input is far more).
fn memory_limit(input_bytes: usize) -> usize {
    64 * input_bytes + (16 << 20)
}

const RESULT_LIGHT: &str = include_str!("fixtures/your-server/light-0.3rps.json");
const RESULT_HEAVIER: &str = include_str!("fixtures/your-server/light-0.8rps.json");
const PAIRS: [(&str, &str); 2] = [
    (
        include_str!("fixtures/metrics/shedding.prom"),
        include_str!("fixtures/metrics/shedding-later.prom"),
    ),
    (
        include_str!("fixtures/metrics/healthy.prom"),
        include_str!("fixtures/metrics/healthy-later.prom"),
    ),
];

const SHAPE: Shape = Shape {
    replicas: 1.0,
    max_num_batched_tokens: 8192,
    chunked_prefill: true,
    prefill_first: false,
    cached_prefix: 0.0,
};

/// A one-line error, or a test failure saying what it was.
fn one_line(what: &str, error: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        !error.is_empty() && !error.contains('\n'),
        "{what}: the error is not one line: {error:?}"
    );
    Ok(())
}

/// The fit on rows as the calibration hands them over: refused at the door when any row is not finite and in
/// range, else solved without a panic.
fn fit_guarded(rows: &[Row]) -> Result<(), TestCaseError> {
    if rows.iter().all(|r| r.problem().is_none()) {
        if let Some(f) = fit(rows) {
            prop_assert!(f.theta().iter().all(|x| x.is_finite()), "a non-finite fit");
        }
    } else {
        prop_assert!(fit(rows).is_none(), "the fit took a refused row");
    }
    Ok(())
}

/// Parses `text` as calibrate reads a file and goes on to the fit's rows; checks the case's time.
fn reads_to_the_fit(name: &str, text: &str) -> Result<(), TestCaseError> {
    let (peak, read) = peak_of(|| read_to_the_fit(name, text));
    read?;
    prop_assert!(
        peak <= memory_limit(text.len()),
        "{name}: {peak} bytes at the peak for {} bytes of input",
        text.len()
    );
    Ok(())
}

fn read_to_the_fit(name: &str, text: &str) -> Result<(), TestCaseError> {
    let started = Instant::now();
    let file = InputFile {
        name: name.to_owned(),
        text: text.to_owned(),
    };
    match parse(&file) {
        Ok(Parsed::Bench(bench)) => fit_guarded(&bench_rows(0, &bench, &SHAPE))?,
        Ok(Parsed::Trace(lives)) => {
            fit_guarded(&trace_rows(0, &lives, &SHAPE))?;
            // The same lines as `run --trace` replays them, checked against a fleet.
            let requests = requests_of(&lives);
            if let Err(e) = check_requests(&Scenario::distserve_preset(), &requests) {
                one_line(name, &e.to_string())?;
            }
        }
        Ok(Parsed::Metrics(_)) => {}
        Err(e) => one_line(name, &e)?,
    }
    prop_assert!(
        started.elapsed() < CASE_LIMIT,
        "{name}: took {:?}",
        started.elapsed()
    );
    Ok(())
}

// ── Result JSON ─────────────────────────────────────────────────────────────────────────────────────────────────

/// Values that test a JSON reader's checks: extremes, Python's bare tokens, the wrong kinds, broken syntax.
const JSON_VALUE_TOKENS: &[&str] = &[
    "1e300",
    "1e-300",
    "-5",
    "0",
    "NaN",
    "Infinity",
    "\"NaN\"",
    "null",
    "[]",
    "{}",
    ",",
    "\"",
    "4294967296",
    "18446744073709551616",
];

/// A format's own keys with [`JSON_VALUE_TOKENS`], as one dictionary for the whole run.
fn json_dictionary(keys: &[&'static str]) -> &'static [&'static str] {
    Box::leak([keys, JSON_VALUE_TOKENS].concat().into_boxed_slice())
}

const RESULT_KEYS: &[&str] = &[
    "\"request_throughput\": ",
    "\"completed\": ",
    "\"mean_ttft_ms\": ",
    "\"median_tpot_ms\": ",
    "\"p99_ttft_ms\": ",
    "\"itls\": [[1e308, 1e308]], ",
    "\"input_lens\": [1], \"output_lens\": [2], \"ttfts\": [0.1], ",
    "\"request_rate\": \"inf\", ",
];

#[test]
fn mutated_results_read_or_refuse_in_one_line() {
    let seeds = proptest::sample::select(vec![RESULT_LIGHT, RESULT_HEAVIER]);
    fuzz(
        "calibrate-result-json",
        (seeds, edits(json_dictionary(RESULT_KEYS))),
        |(seed, edits)| reads_to_the_fit("result.json", &mutate(seed, &edits)),
    );
}

/// A detailed result with every field a number drawn from the hostile ends as well as the usual range.
fn hostile_number() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0.001f64..5000.0).prop_map(|x| x.to_string()),
        1 => proptest::sample::select(vec![
            "1e300", "1e307", "-5", "0", "1e-300", "NaN", "\"NaN\"", "\"inf\"", "null", "-0",
        ])
        .prop_map(str::to_owned),
        1 => any::<f64>().prop_map(|x| format!("{x:e}")),
    ]
}

#[test]
fn generated_detailed_results_read_or_refuse_in_one_line() {
    let fields = proptest::collection::vec(hostile_number(), 12);
    let lists = proptest::collection::vec((1u32..5000, 1u32..500, hostile_number()), 1..20);
    fuzz("calibrate-result-fields", (fields, lists), |(f, lists)| {
        let list = |pick: &dyn Fn(&(u32, u32, String)) -> String| {
            lists.iter().map(pick).collect::<Vec<_>>().join(",")
        };
        let text = format!(
            "{{\"completed\": {}, \"duration\": {}, \"request_throughput\": {}, \"request_rate\": {}, \
             \"total_input_tokens\": {}, \"total_output_tokens\": {}, \"mean_ttft_ms\": {}, \"median_ttft_ms\": {}, \
             \"p99_ttft_ms\": {}, \"mean_tpot_ms\": {}, \"median_tpot_ms\": {}, \"mean_e2el_ms\": {}, \
             \"input_lens\": [{}], \"output_lens\": [{}], \"ttfts\": [{}], \"itls\": [{}]}}",
            f[0],
            f[1],
            f[2],
            f[3],
            f[4],
            f[5],
            f[6],
            f[7],
            f[8],
            f[9],
            f[10],
            f[11],
            list(&|l| l.0.to_string()),
            list(&|l| l.1.to_string()),
            list(&|l| l.2.clone()),
            list(&|l| format!("[{}, {}]", l.2, l.2)),
        );
        reads_to_the_fit("result.json", &text)
    });
}

// ── inference-perf's reports ────────────────────────────────────────────────────────────────────────────────────

const INFERENCE_PERF_KEYS: &[&str] = &[
    "\"load_summary\": ",
    "\"requested_rate\": ",
    "\"achieved_rate\": ",
    "\"concurrency\": ",
    "\"successes\": ",
    "\"latency\": ",
    "\"time_to_first_token\": ",
    "\"median\": ",
    "\"benchmark_time_seconds\": ",
    "\"requests_per_sec\": ",
];

#[test]
fn mutated_inference_perf_reports_read_or_refuse_in_one_line() {
    use inference_perf_reports::{report, stage, Layout, Load};
    let (_, lives) = synthetic_server::simulated(0.8, 30, 1);
    let seeds = vec![
        stage(0.8, 30, 1, Layout::Summer2025),
        stage(0.8, 30, 1, Layout::Autumn2025),
        stage(0.8, 30, 1, Layout::Current),
        report(&lives, Load::Concurrency(4), Layout::Current),
        report(&lives, Load::Summary, Layout::Current),
    ];
    fuzz(
        "calibrate-inference-perf",
        (
            proptest::sample::select(seeds),
            edits(json_dictionary(INFERENCE_PERF_KEYS)),
        ),
        |(seed, edits)| reads_to_the_fit("stage_0_lifecycle_metrics.json", &mutate(&seed, &edits)),
    );
}

// ── Traces ──────────────────────────────────────────────────────────────────────────────────────────────────────

const TRACE_CSV: &str = "arrival_s,prompt_tokens,output_tokens,first_token_s,last_token_s\n\
    1700000000.0,512,128,1700000000.12,1700000002.2\n\
    1700000000.5,300,64,1700000000.61,1700000001.7\n\
    1700000001.25,1024,16,1700000001.5,1700000001.9\n\
    1700000003.0,80,200,1700000003.05,1700000006.4\n";
const TRACE_JSONL: &str = "{\"arrival_s\": 0.0, \"prompt_tokens\": 512, \"output_tokens\": 128, \
    \"first_token_s\": 0.12, \"last_token_s\": 2.2}\n\
    {\"arrival_s\": 0.5, \"prompt_tokens\": 300, \"output_tokens\": 64, \"first_token_s\": 0.61, \"last_token_s\": 1.7}\n\
    {\"arrival_s\": 1.25, \"prompt_tokens\": 1024, \"output_tokens\": 16}\n";

const TRACE_TOKENS: &[&str] = &[
    "\n",
    "\r\n",
    ",",
    "\"",
    "arrival_s",
    "first_token_s",
    "last_token_s",
    "1e308",
    "-1",
    "0",
    "NaN",
    "inf",
    "4294967296",
    "{",
    "}",
    ": ",
    "null",
    "\n\n",
    "1e-300",
];

#[test]
fn mutated_traces_read_or_refuse_in_one_line() {
    let seeds = proptest::sample::select(vec![TRACE_CSV, TRACE_JSONL]);
    fuzz(
        "calibrate-traces",
        (seeds, edits(TRACE_TOKENS)),
        |(seed, edits)| reads_to_the_fit("trace", &mutate(seed, &edits)),
    );
}

// ── Scrape pairs ────────────────────────────────────────────────────────────────────────────────────────────────

const SCRAPE_TOKENS: &[&str] = &[
    "vllm:time_to_first_token_seconds_count ",
    "vllm:request_prompt_tokens_bucket{le=\"",
    "vllm:request_generation_tokens_bucket{le=\"+Inf\"} ",
    "vllm:num_requests_running ",
    "process_start_time_seconds ",
    "1e300",
    "1e-300",
    "-1",
    "0",
    "NaN",
    "+Inf",
    "\n",
    "\"} ",
    " 1700000000000",
];

/// vLLM's prompt- and output-length and queue-time histograms (the fixtures lack them) with `n` requests, for the window's
/// lengths.
fn prompt_lengths(n: f64) -> String {
    let mut out = String::new();
    for (name, mean) in [
        ("vllm:request_prompt_tokens", 700.0),
        ("vllm:request_generation_tokens", 150.0),
        // And the queue's wait, which the window takes out of TTFT when the server was queueing.
        ("vllm:request_queue_time_seconds", 0.01),
    ] {
        out.push_str(&format!("# TYPE {name} histogram\n"));
        for (le, share) in [("128", 0.2), ("1024", 0.7), ("4096", 0.95), ("+Inf", 1.0)] {
            out.push_str(&format!(
                "{name}_bucket{{model_name=\"course-27b\",le=\"{le}\"}} {}\n",
                n * share
            ));
        }
        out.push_str(&format!(
            "{name}_count{{model_name=\"course-27b\"}} {n}\n{name}_sum{{model_name=\"course-27b\"}} {}\n",
            n * mean
        ));
    }
    out
}

#[test]
fn mutated_scrape_pairs_make_a_window_or_refuse_in_one_line() {
    // The small pair three times as often: more cases in the time, the same parser.
    let pair = proptest::sample::select(vec![0usize, 0, 0, 1]);
    let which = proptest::sample::select(vec![0usize, 1]);
    fuzz(
        "calibrate-scrape-pairs",
        (
            pair,
            which,
            edits(SCRAPE_TOKENS),
            proptest::option::of(0.05f64..1e4),
        ),
        |(pair, which, edits, seconds)| {
            let started = Instant::now();
            let (earlier, later) = PAIRS[pair];
            let (mut earlier, mut later) = (
                earlier.to_owned() + &prompt_lengths(10_000.0),
                later.to_owned() + &prompt_lengths(10_600.0),
            );
            let page = if which == 0 { &mut earlier } else { &mut later };
            *page = mutate(page, &edits);
            let (Ok(a), Ok(b)) = (
                goodput::cluster::metrics::parse(&earlier),
                goodput::cluster::metrics::parse(&later),
            ) else {
                return Ok(());
            };
            match scrapes::window("a → b", &a, &b, seconds) {
                Ok(w) => {
                    for lengths in [&w.prompt_lengths, &w.output_lengths].into_iter().flatten() {
                        prop_assert!(lengths.len() <= 2000, "{} lengths", lengths.len());
                    }
                    fit_guarded(&window_rows(0, &w.means, &SHAPE))?;
                }
                Err(e) => one_line("scrapes", &e)?,
            }
            prop_assert!(started.elapsed() < CASE_LIMIT);
            Ok(())
        },
    );
}

/// The unmutated pairs make a window with about a thousand prompt lengths: the target reaches past the refusals.
#[test]
fn the_scrape_seeds_make_a_window() {
    for (earlier, later) in PAIRS {
        let parse = |text: String| goodput::cluster::metrics::parse(&text).unwrap();
        let w = scrapes::window(
            "a → b",
            &parse(earlier.to_owned() + &prompt_lengths(10_000.0)),
            &parse(later.to_owned() + &prompt_lengths(10_600.0)),
            Some(60.0),
        )
        .unwrap();
        assert!((990..=1010).contains(&w.prompt_lengths.unwrap().len()));
    }
}

// ── The total-work budget ───────────────────────────────────────────────────────────────────────────────────────

/// A `vllm bench serve` summary whose figures agree with each other and with a server, drawn across the work
/// budget: from a request of a few tokens to ten-million-token outputs, from one replica of one sequence to 4096
/// replicas of 65 536, as a user may claim them.
#[derive(Debug)]
struct Claimed {
    completed: u64,
    rate: f64,
    prompt: f64,
    output: f64,
    ttft_ms: f64,
    tpot_ms: f64,
    replicas: Option<u32>,
    max_num_seqs: Option<u32>,
}

/// A number drawn evenly on a log scale between `low` and `high`.
fn log_uniform(low: f64, high: f64) -> impl Strategy<Value = f64> {
    (low.ln()..high.ln()).prop_map(f64::exp)
}

fn claimed() -> impl Strategy<Value = Claimed> {
    let flag = |high: f64| proptest::option::of(log_uniform(1.0, high).prop_map(|x| x as u32));
    (
        (log_uniform(1.0, 1e7), log_uniform(0.01, 100.0)),
        (log_uniform(1.0, 1e5), log_uniform(1.0, 1e7)),
        (log_uniform(10.0, 1000.0), log_uniform(1.0, 100.0)),
        (flag(4096.0), flag(65_536.0)),
    )
        .prop_map(
            |((completed, rate), (prompt, output), (ttft_ms, tpot_ms), (replicas, seqs))| Claimed {
                completed: completed as u64,
                rate,
                prompt: prompt.round(),
                output: output.round(),
                ttft_ms,
                tpot_ms,
                replicas,
                max_num_seqs: seqs,
            },
        )
}

impl Claimed {
    fn result(&self) -> String {
        let n = self.completed as f64;
        let e2e_ms = self.ttft_ms + self.tpot_ms * (self.output - 1.0);
        serde_json::json!({
            "completed": self.completed, "duration": n / self.rate, "request_throughput": self.rate,
            "request_rate": self.rate, "total_input_tokens": n * self.prompt, "total_output_tokens": n * self.output,
            "mean_ttft_ms": self.ttft_ms, "median_ttft_ms": self.ttft_ms, "p99_ttft_ms": self.ttft_ms,
            "mean_tpot_ms": self.tpot_ms, "median_tpot_ms": self.tpot_ms,
            "mean_e2el_ms": e2e_ms, "median_e2el_ms": e2e_ms,
        })
        .to_string()
    }

    /// The fleet's shape as the calibration takes it (vLLM's defaults where no flag is given).
    fn fleet(&self) -> goodput::model::LlmFleet {
        let goodput::model::ServiceKind::Llm(mut fleet) = Scenario::distserve_preset().service
        else {
            unreachable!("distserve is an LLM fleet")
        };
        fleet.replicas = self.replicas.unwrap_or(1);
        fleet.max_num_seqs = self.max_num_seqs.unwrap_or(256);
        fleet
    }

    /// Fewest iterations the calibration's capacity measurements can take (the fit's and each uncertainty draw's):
    /// an iteration moves at most `max_num_seqs` sequences one token on, so a burst of the capacity's requests
    /// needs at least their output tokens ÷ that. Worked out here from the claim, not by the budget's own sums.
    fn least_work(&self) -> f64 {
        let fleet = self.fleet();
        let draws = goodput_calibrate::uncertainty::MAX_DRAWS as f64 + 2.0;
        draws * goodput::model::capacity_requests(&fleet) as f64 * self.output
            / f64::from(fleet.max_num_seqs)
    }

    /// Most iterations `calibrate` (without the uncertainty) can take: repeating the result's requests (at most
    /// [`goodput_calibrate::check::MAX_CHECK_REQUESTS`]) with every token its own iteration.
    fn most_repeat_work(&self) -> f64 {
        let n = self
            .completed
            .clamp(1, goodput_calibrate::check::MAX_CHECK_REQUESTS) as f64;
        n * (15.0 + self.output + (self.prompt / 512.0).ceil())
    }
}

/// The budget's refusal in the oracle: a claim whose capacity measurements alone pass the budget's 10⁹ iterations
/// is refused up front (well within [`CASE_LIMIT`], in one line; the budget's naming the file or the flag), never run; a claim
/// light enough to repeat in a million iterations calibrates or is refused within five times that. Claims in
/// between are only read: running them would take up to the budget's minute and a half a case.
#[test]
fn generated_heavy_results_are_refused_up_front_or_calibrate_in_time() {
    fuzz("calibrate-work-budget", claimed(), |claim| {
        let text = claim.result();
        let heavy = claim.least_work() > goodput::model::budget::MAX_WORK;
        if !heavy && claim.most_repeat_work() > 1e6 {
            return reads_to_the_fit("result.json", &text);
        }
        let flags = ServerFlags {
            replicas: claim.replicas,
            max_num_seqs: claim.max_num_seqs,
            ..ServerFlags::default()
        };
        let files = [InputFile {
            name: "result.json".to_owned(),
            text,
        }];
        let started = Instant::now();
        let outcome = calibrate(&files, &flags);
        let took = started.elapsed();
        match outcome {
            Ok(_) => prop_assert!(
                !heavy,
                "a claim of at least {:.1e} iterations ran",
                claim.least_work()
            ),
            Err(e) => {
                let e = e.to_string();
                one_line("result.json", &e)?;
                // The budget's refusal says which input made the work too large (a fit the claim cannot
                // determine is refused before it, as up front).
                prop_assert!(
                    !e.contains("too much work") || e.contains("result.json") || e.contains("--"),
                    "the refusal names neither the file nor a flag: {e}"
                );
            }
        }
        // A refusal up front takes milliseconds; a light claim's calibration simulates up to 10⁶ iterations, a
        // tenth of a second on an idle core, given more on a machine shared with other builds.
        let limit = if heavy { CASE_LIMIT } else { 5 * CASE_LIMIT };
        prop_assert!(took < limit, "took {took:?}");
        Ok(())
    });
}

// ── The stored server ───────────────────────────────────────────────────────────────────────────────────────────

/// A server as the page stores it: the calibration of the synthetic server's light result.
fn stored_server() -> String {
    let files = [InputFile {
        name: "light.json".to_owned(),
        text: RESULT_LIGHT.to_owned(),
    }];
    let calibration = calibrate(&files, &ServerFlags::default()).expect("the fixture calibrates");
    handoff::encode(&calibration.your_server()).expect("an LLM fleet encodes")
}

const STORED_TOKENS: &[&str] = &[
    " ",
    "\n",
    "NaN",
    "inf",
    "-1",
    "0",
    "1e308",
    "1e-308",
    "4294967296",
    "18446744073709551615",
    "3",
    "1",
    "0.5",
];

#[test]
fn mutated_stored_servers_decode_or_refuse_in_one_line() {
    let seed: &'static str = Box::leak(stored_server().into_boxed_str());
    fuzz("stored-server", edits(STORED_TOKENS), move |edits| {
        let started = Instant::now();
        match handoff::decode(&mutate(seed, &edits)) {
            // What decodes is a scenario the model accepts: it runs a short finite experiment in bounded time.
            Ok(server) => prop_assert!(server.scenario.validate().is_ok()),
            Err(e) => one_line("stored server", &e)?,
        }
        prop_assert!(started.elapsed() < CASE_LIMIT);
        Ok(())
    });
}

// ── The model's stream ──────────────────────────────────────────────────────────────────────────────────────────

const STREAM: &str = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n\
    data: {\"choices\":[{\"delta\":{\"content\":\"The knee \"}}]}\n\n\
    : keep-alive\n\n\
    data: {\"choices\":[{\"delta\":{\"content\":\"is where p99 climbs.\"}}]}\n\n\
    data: {\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":9}}\n\n\
    data: [DONE]\n\n";

const STREAM_TOKENS: &[&str] = &[
    "data: ",
    "data:",
    "\n",
    "\r\n",
    "\n\n",
    "[DONE]",
    "{",
    "}",
    "\"content\":",
    "\"usage\":",
    "\"error\":",
    "4294967296",
    "-1",
    "<html>",
    ": ",
    "event: x\n",
];

#[test]
fn mutated_model_streams_read_or_fail_in_one_sentence() {
    fuzz(
        "model-stream",
        (edits(STREAM_TOKENS), 1usize..64),
        |(edits, piece)| {
            let started = Instant::now();
            let text = mutate(STREAM, &edits);
            let mut reader = StreamReader::new();
            let mut events: Vec<StreamEvent> = Vec::new();
            let mut failure = None;
            // In pieces of any size, as the network delivers them (at character boundaries, as text decodes).
            let mut rest = text.as_str();
            while !rest.is_empty() && failure.is_none() {
                let mut cut = piece.min(rest.len());
                while !rest.is_char_boundary(cut) {
                    cut += 1;
                }
                match reader.push(&rest[..cut]) {
                    Ok(more) => events.extend(more),
                    Err(f) => failure = Some(f),
                }
                rest = &rest[cut..];
            }
            if failure.is_none() {
                match reader.finish() {
                    Ok(more) => events.extend(more),
                    Err(f) => failure = Some(f),
                }
            }
            if let Some(f) = failure {
                one_line("model stream", &f.message())?;
            }
            prop_assert!(started.elapsed() < CASE_LIMIT);
            Ok(())
        },
    );
}

// Found by `make fuzz` (`stored-server`): a warm-up near the largest count overflowed the sum its refusal quotes.
#[test]
fn a_warm_up_near_the_largest_count_is_refused_not_a_panic() {
    let mut scenario = Scenario::distserve_preset();
    scenario.warm_up = u64::MAX;
    let e = scenario.validate().unwrap_err();
    assert_eq!(e.field, "run");
    let all = u128::from(scenario.customers) + u128::from(u64::MAX);
    assert!(e.problem.contains(&format!("{all} in all")), "{e}");
}
