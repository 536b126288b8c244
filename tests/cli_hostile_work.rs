//! `goodput-sim` fed what a careless or hostile user would, round two (issue 42): output a terminal cannot be made
//! to act on, messages that quote a file only in a short excerpt and blame the flag that was typed, numbers that
//! make no physical sense refused, and a budget on the total work: the heavy inputs, each made from a few
//! bytes here, are refused at once in one line, or finish.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/sim_cli.rs"]
mod sim_cli;
use sim_cli::{refused_within, sim};

/// The one line of a command that must have been refused (exit 2) quickly.
fn refused(args: &[&str]) -> String {
    refused_within(args, 10)
}

/// A scratch folder for one test, removed when the test ends, passed or failed.
fn folder(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("goodput-work-{name}-"))
        .tempdir()
        .unwrap()
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// The course preset with fixed lengths, as a scenario file.
fn course_with_lengths(dir: &std::path::Path, prompt: u32, output: u32) -> String {
    let mut scenario: serde_json::Value =
        serde_json::from_slice(&sim(&["scenario", "--preset", "course"]).stdout).unwrap();
    let llm = &mut scenario["service"]["llm"];
    llm["prompt_tokens"] = serde_json::json!({"fixed": {"tokens": prompt}});
    llm["output_tokens"] = serde_json::json!({"fixed": {"tokens": output}});
    llm["kv_cache"] = serde_json::json!("unlimited");
    write(
        dir,
        &format!("lengths-{prompt}-{output}.json"),
        &scenario.to_string(),
    )
}

#[test]
fn a_scrape_cannot_move_the_cursor_or_forge_a_verdict_line() {
    let dir = folder("escapes");
    let label = write(
        dir.path(),
        "label.prom",
        "vllm:num_requests_running{model_name=\"\u{1b}]0;pwned\u{7}\u{9b}2Jx\\nverdict: below the knee\"} 3\n\
         vllm:num_requests_waiting 0\n",
    );
    for args in [
        vec!["metrics", label.as_str()],
        vec!["metrics", "--json", label.as_str()],
    ] {
        let out = sim(&args);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success(), "{args:?}");
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{args:?}: {text:?}"
        );
        assert!(text.contains("\\u001b]0;pwned"), "{text}");
        assert!(
            !text.lines().any(|l| l.starts_with("verdict")),
            "a forged line: {text}"
        );
    }
    let malformed = write(
        dir.path(),
        "bad.prom",
        "vllm:num_requests_running 3\n\u{1b}[2J\u{1b}[31mverdict: fine\n",
    );
    let e = refused(&["metrics", &malformed]);
    assert!(!e.chars().any(char::is_control), "{e:?}");
    assert!(e.contains("line 2") && e.contains("\\u001b[2J"), "{e}");
}

#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_goodput-sim"))
        // Some 400 kB of CSV, more than a pipe holds, so the program is still writing when the reader leaves.
        .args([
            "sweep",
            "--preset",
            "textbook",
            "--requests",
            "100",
            "--warm-up",
            "0",
        ])
        .args(["--from", "0.1", "--to", "0.9", "--step", "0.0001", "--csv"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is gone, as after `| head -1`.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!first.is_empty());
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{err}"
    );
    assert!(err.is_empty(), "{err}");
}

#[test]
fn messages_blame_the_flag_typed_and_take_negative_numbers() {
    let e = refused(&["run", "--requests", "1000000000"]);
    assert!(
        e.starts_with("the run would measure 1000000000 requests after"),
        "{e}"
    );
    assert!(!e.contains("--warm-up (from"), "{e}");
    let e = refused(&["metrics", "--slo-ttft-ms", "-5", "-"]);
    assert!(
        e.starts_with("--slo-ttft-ms must be a positive number of milliseconds"),
        "{e}"
    );
    assert!(e.contains("got -5"), "{e}");
    let e = refused(&["run", "--gpu-memory-utilization", "0.01"]);
    assert!(
        e.starts_with("--gpu-memory-utilization leaves no memory"),
        "{e}"
    );
    let e = refused(&["run", "--burstiness", "1e-300"]);
    assert!(e.starts_with("--burstiness 1e-300 is burstier"), "{e}");
}

#[test]
fn errors_quote_a_file_in_a_short_excerpt_only() {
    let dir = folder("excerpt");
    let big = write(
        dir.path(),
        "big.json",
        &format!(
            "{{\"service\": {{\"llm\": {{\"replicas\": \"{}\"}}}}}}",
            "A".repeat(900_000)
        ),
    );
    let e = refused(&["run", "--scenario", &big]);
    assert!(e.chars().count() <= 601, "{} characters", e.len());
    // A file that is not what the flag takes: its content (here the environment) is never printed.
    let environ = "/proc/self/environ";
    for args in [
        vec!["metrics", environ],
        vec!["run", "--scenario", environ],
        vec!["run", "--trace", environ],
        vec!["calibrate", environ],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_goodput-sim"))
            .args(&args)
            .env("GOODPUT_TEST_SECRET", "hunter2-in-the-environment")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("hunter2"), "{args:?}: {err}");
    }
}

#[test]
fn a_json_lines_trace_with_a_byte_order_mark_is_read_as_json_lines() {
    let dir = folder("bom");
    let trace = write(
        dir.path(),
        "bom.jsonl",
        "\u{feff}{\"arrival_s\": 0, \"prompt_tokens\": 10, \"output_tokens\": 5}\n\
         {\"arrival_s\": 0.5, \"prompt_tokens\": 12, \"output_tokens\": 4}\n",
    );
    let out = sim(&["run", "--trace", &trace, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["requests"], 2);
}

#[test]
fn numbers_that_make_no_physical_sense_are_refused() {
    let e = refused(&["run", "--preset", "textbook", "--mean-service", "1e-320"]);
    assert!(e.starts_with("--mean-service is 1e-320, too short"), "{e}");
    let e = refused(&["run", "--slo-ttft", "1e-310"]);
    assert!(e.starts_with("--slo-ttft"), "{e}");
}

#[test]
fn heavy_runs_from_small_inputs_are_refused_up_front_naming_the_input() {
    let dir = folder("budget");
    // Ten-million-token outputs: a few requests are already hours of iterations.
    let long = course_with_lengths(dir.path(), 100, 10_000_000);
    let e = refused(&[
        "run",
        "--scenario",
        &long,
        "--requests",
        "100",
        "--warm-up",
        "0",
    ]);
    assert!(
        e.starts_with("--requests makes too much work to simulate: 100 requests"),
        "{e}"
    );
    assert!(e.contains("1.00e7 output tokens"), "{e}");
    // A 70 kB trace of long requests sent one after another: one iteration per token.
    let lines: String = (0..1000)
        .map(|i| {
            format!(
                "{{\"arrival_s\": {}, \"prompt_tokens\": 100, \"output_tokens\": 1000000}}\n",
                i * 100_000
            )
        })
        .collect();
    let trace = write(dir.path(), "sequential.jsonl", &lines);
    let medium = course_with_lengths(dir.path(), 100, 1000);
    let e = refused(&["run", "--scenario", &medium, "--trace", &trace]);
    assert!(
        e.contains("sequential.jsonl: makes too much work to simulate: 1000 requests"),
        "{e}"
    );
}

#[test]
fn a_week_with_a_one_millisecond_spike_draws_only_its_arrivals() {
    let started = Instant::now();
    let out = sim(&[
        "fleet",
        "--traffic",
        "0:100000,0.001:0",
        "--seconds",
        "604800",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_huge_fleet_is_refused_before_calibrating() {
    // Our own light-load runs: what they hold does not matter, the fleet's size is refused before any fit.
    let files: Vec<String> = ["0.3", "0.8"]
        .iter()
        .map(|rate| {
            format!(
                "{}/tests/fixtures/your-server/light-{rate}rps.json",
                env!("CARGO_MANIFEST_DIR")
            )
        })
        .collect();
    let e = refused(&[
        "calibrate",
        "--replicas",
        "4096",
        "--max-num-seqs",
        "65536",
        &files[0],
        &files[1],
    ]);
    assert!(
        e.starts_with("too much work to simulate: --replicas 4096 × --max-num-seqs 65536"),
        "{e}"
    );
}

#[test]
fn one_file_named_more_times_than_a_calibration_takes_is_refused_before_reading() {
    // A file that is not there: were any read before the count, the error would be that it cannot be read.
    let dir = folder("inputs-counted");
    let missing = dir.path().join("not-there.json");
    let missing = missing.to_str().unwrap();
    let mut args = vec!["calibrate"];
    args.extend(std::iter::repeat_n(missing, 40));
    let e = refused(&args);
    assert!(
        e.starts_with("more than 32 inputs (at ") && e.contains("not-there.json)"),
        "{e}"
    );
}

#[test]
fn a_trace_longer_than_a_run_replays_is_refused_before_it_is_parsed() {
    let dir = folder("long-trace");
    // Ten million and two requests of six bytes: 60 MB, generated here.
    let mut text = String::with_capacity(61 << 20);
    text.push_str("arrival_s,prompt_tokens,output_tokens\n");
    for _ in 0..10_000_002 {
        text.push_str("0,1,1\n");
    }
    let trace = write(dir.path(), "long.csv", &text);
    drop(text);
    let e = refused(&["run", "--trace", &trace]);
    assert!(e.ends_with("long.csv has 10000003 lines, more than the 10000000 requests a run replays (replay a part, or sample it)"), "{e}");
}

#[test]
fn the_help_states_the_memory_any_input_within_the_limits_takes() {
    let help = String::from_utf8(sim(&["--help"]).stdout).unwrap();
    assert!(
        help.contains("Memory: under 2 GB for any input within the limits"),
        "{help}"
    );
}

#[test]
fn what_calibrate_and_run_echo_from_a_file_cannot_act_on_the_terminal() {
    let dir = folder("echo");
    let forged = "constant\u{1b}]0;pwned\u{7}\u{9b}2J\nFIT: forged";
    let stat = |mean: f64| serde_json::json!({"successful": {"mean": mean, "median": mean}});
    let report = serde_json::json!({
        "metadata": {"version": 1},
        "benchmarks": [{
            "config": {"strategy": {"type_": forged, "rate": 0.3}},
            "duration": 200.0,
            "metrics": {
                "request_totals": {"successful": 60},
                "prompt_token_count": stat(1600.0),
                "output_token_count": stat(210.0),
                "time_to_first_token_ms": stat(90.0),
                "inter_token_latency_ms": stat(21.0),
                "request_latency": stat(4.5),
            },
        }],
    });
    let report = write(dir.path(), "benchmarks.json", &report.to_string());
    let scenario = write(
        dir.path(),
        "scenario.json",
        "{\"service\": {\"llm\": {\"replicas\": \"\u{1b}[2J\u{1b}]0;pwned\u{7}\"}}}",
    );
    let trace = write(
        dir.path(),
        "trace.jsonl",
        "{\"arrival_s\": 0, \"prompt_tokens\": \"\u{1b}[31m\u{9b}2J\", \"output_tokens\": 5}\n",
    );
    for args in [
        vec!["calibrate", report.as_str()],
        vec!["run", "--scenario", scenario.as_str()],
        vec!["run", "--trace", trace.as_str()],
        vec!["calibrate", trace.as_str()],
    ] {
        let out = sim(&args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!err.is_empty(), "{args:?}");
        assert!(
            !err.chars().any(|c| c.is_control() && c != '\n'),
            "{args:?}: {err:?}"
        );
        assert!(
            !err.lines().any(|l| l.starts_with("FIT: forged")),
            "{args:?}: a forged line: {err}"
        );
    }
}
