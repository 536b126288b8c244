//! `goodput-sim run --rate … --requests …` and `run --trace …`: finite runs from the command line.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn sim(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_goodput-sim"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("goodput-sim runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn json(args: &[&str], stdin: &[u8]) -> serde_json::Value {
    let out = sim(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// The one-line error of a command that must fail.
fn error(args: &[&str], stdin: &[u8]) -> String {
    let out = sim(args, stdin);
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("goodput-sim: "), "{err}");
    err
}

#[test]
fn a_rate_run_above_capacity_reports_vllm_bench_s_figures() {
    let v = json(
        &[
            "run",
            "--preset",
            "distserve",
            "--rate",
            "20",
            "--requests",
            "200",
            "--seed",
            "3",
            "--json",
        ],
        b"",
    );
    assert_eq!(v["mode"], "rate");
    assert_eq!(v["requests"], 200);
    assert_eq!(v["seed"], 3);
    assert!(v["offered_load"].as_f64().unwrap() > 1.0);
    for metric in ["ttft", "tpot", "itl", "e2e"] {
        for q in ["mean", "p50", "p90", "p99"] {
            assert!(v[metric][q].as_f64().unwrap() > 0.0, "{metric}.{q}: {v}");
        }
    }
    let duration = v["duration"].as_f64().unwrap();
    assert!((v["throughput"].as_f64().unwrap() - 200.0 / duration).abs() < 1e-9);
    for key in [
        "goodput",
        "peak_running",
        "peak_waiting",
        "preemptions",
        "output_throughput",
    ] {
        assert!(v[key].is_number(), "{key}: {v}");
    }
    assert!(v["peak_waiting"].as_u64().unwrap() > 10);
}

#[test]
fn seeds_give_each_run_and_the_spread() {
    let v = json(
        &[
            "run",
            "--preset",
            "distserve",
            "--rate",
            "2",
            "--requests",
            "100",
            "--seeds",
            "4",
            "--json",
        ],
        b"",
    );
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    let seeds: Vec<u64> = runs.iter().map(|r| r["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds, [1, 2, 3, 4]);
    let p99: Vec<f64> = runs
        .iter()
        .map(|r| r["ttft"]["p99"].as_f64().unwrap())
        .collect();
    let spread = &v["spread"]["ttft_p99"];
    let min = p99.iter().copied().fold(f64::INFINITY, f64::min);
    assert_eq!(spread["min"].as_f64().unwrap(), min);
    assert!(spread["std"].as_f64().unwrap() > 0.0);
    let out = sim(
        &[
            "run",
            "--preset",
            "distserve",
            "--rate",
            "2",
            "--requests",
            "50",
            "--seeds",
            "3",
        ],
        b"",
    );
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("3 seeds") && table.contains("ttft_p99"),
        "{table}"
    );
}

#[test]
fn a_trace_replays_from_json_lines_or_csv_alike() {
    // Absolute timestamps, shifted so the first is 0.
    let jsonl = b"{\"arrival_s\": 1700000000.0, \"prompt_tokens\": 100, \"output_tokens\": 20}\n\n\
{\"arrival_s\": 1700000000.5, \"prompt_tokens\": 300, \"output_tokens\": 1, \"extra\": true}\n\
{\"arrival_s\": 1700000002.0, \"prompt_tokens\": 50, \"output_tokens\": 64}\n";
    let csv = b"output_tokens,arrival_s,prompt_tokens\n20,1700000000.0,100\n1,1700000000.5,300\n64,1700000002.0,50\n";
    let a = json(
        &["run", "--preset", "distserve", "--trace", "-", "--json"],
        jsonl,
    );
    let b = json(
        &["run", "--preset", "distserve", "--trace", "-", "--json"],
        csv,
    );
    assert_eq!(a, b);
    assert_eq!(a["mode"], "trace");
    assert_eq!(a["requests"], 3);
    assert_eq!(a["total_input_tokens"], 450);
    assert_eq!(a["total_output_tokens"], 85);
    // Three requests that never meet: the duration runs from 0 to the last one's end, a bit past 2 s.
    let d = a["duration"].as_f64().unwrap();
    assert!(d > 2.0 && d < 4.0, "{d}");
}

#[test]
fn bad_traces_and_flags_get_one_line_naming_the_line_or_flag() {
    let trace = ["run", "--preset", "distserve", "--trace", "-"];
    let e = error(&trace, b"{\"arrival_s\": 0, \"prompt_tokens\": 1, \"output_tokens\": 1}\n{\"arrival_s\": 1, \"prompt_tokens\": -4}\n");
    assert!(e.contains("standard input line 2"), "{e}");
    let e = error(
        &trace,
        b"arrival_s,prompt_tokens,output_tokens\n0,10,10\n1,ten,10\n",
    );
    assert!(e.contains("line 3"), "{e}");
    let e = error(&trace, b"arrival_s,prompt,output_tokens\n0,10,10\n");
    assert!(e.contains("line 1") && e.contains("prompt_tokens"), "{e}");
    let e = error(
        &trace,
        b"arrival_s,prompt_tokens,output_tokens\n5,10,10\n\n4,10,10\n",
    );
    assert!(e.contains("line 4") && e.contains("sort the trace"), "{e}");
    let e = error(
        &trace,
        b"{\"arrival_s\": 0, \"prompt_tokens\": 90000, \"output_tokens\": 1}\n",
    );
    assert!(e.contains("line 1") && e.contains("KV cache"), "{e}");
    let e = error(&trace, b"");
    assert!(e.contains("no requests"), "{e}");
    let e = error(&["run", "--preset", "distserve", "--rate", "3"], b"");
    assert!(e.contains("--requests"), "{e}");
    let e = error(
        &[
            "run",
            "--preset",
            "distserve",
            "--rate",
            "-3",
            "--requests",
            "5",
        ],
        b"",
    );
    assert!(e.contains("--rate"), "{e}");
    let e = error(
        &[
            "run",
            "--preset",
            "textbook",
            "--rate",
            "3",
            "--requests",
            "5",
        ],
        b"",
    );
    assert!(e.contains("LLM"), "{e}");
    error(
        &["run", "--rate", "3", "--requests", "5", "--load", "0.9"],
        b"",
    );
    error(&["run", "--seeds", "3"], b"");
    error(&["run", "--trace", "-", "--requests", "5"], b"");
}

#[test]
fn a_steady_state_run_without_one_says_so_and_points_to_a_finite_run() {
    let out = sim(
        &[
            "run",
            "--preset",
            "course",
            "--load",
            "1.0",
            "--requests",
            "3000",
        ],
        b"",
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("No steady state"), "{text}");
    assert!(
        text.contains("requests per s") && text.contains("--rate"),
        "{text}"
    );
    let v = json(
        &[
            "run",
            "--preset",
            "course",
            "--load",
            "1.2",
            "--requests",
            "3000",
            "--json",
        ],
        b"",
    );
    assert!(v["note"].as_str().unwrap().contains("--requests N"), "{v}");
}

#[test]
fn a_run_above_the_measured_capacity_is_not_called_a_steady_state() {
    // A tight KV cache: the simulated fleet serves less than the analytic capacity says.
    let args = [
        "run",
        "--preset",
        "distserve",
        "--kv-cache-tokens",
        "16000",
        "--load",
        "0.99",
        "--requests",
        "4000",
    ];
    let out = sim(&args, b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("Not a steady state"), "{text}");
    assert!(text.contains("measured_saturation"), "{text}");
    assert!(text.contains("stable  false"), "{text}");
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let v = json(&json_args, b"");
    let measured = v["measured_saturation_throughput"].as_f64().unwrap();
    assert!(measured < v["saturation_throughput"].as_f64().unwrap());
    assert!(v["note"].as_str().unwrap().contains("--rate"));
    // Well below it, no note.
    let v = json(
        &[
            "run",
            "--preset",
            "distserve",
            "--load",
            "0.8",
            "--requests",
            "3000",
            "--json",
        ],
        b"",
    );
    assert!(v.get("note").is_none(), "{v}");
    assert!(v["measured_saturation_throughput"].as_f64().unwrap() > 3.0);
}

#[test]
fn help_documents_the_finite_flags() {
    let out = sim(&["run", "--help"], b"");
    let help = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "--rate",
        "--trace",
        "--seeds",
        "arrival_s",
        "prompt_tokens",
        "peak_waiting",
        "itl",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}

#[test]
fn empirical_lengths_can_come_from_a_file_beside_the_scenario() {
    // Removed when the test ends, passed or failed.
    let scratch = tempfile::Builder::new()
        .prefix("goodput-lengths-")
        .tempdir()
        .unwrap();
    let dir = scratch.path();
    std::fs::write(dir.join("prompts.txt"), "# prompt lengths\n100\n\n300\n").unwrap();
    let preset = sim(&["scenario", "--preset", "distserve"], b"");
    let mut scenario: serde_json::Value = serde_json::from_slice(&preset.stdout).unwrap();
    scenario["service"]["llm"]["prompt_tokens"] =
        serde_json::json!({"empirical": {"file": "prompts.txt"}});
    let file = dir.join("s.json");
    std::fs::write(&file, scenario.to_string()).unwrap();
    let file = file.to_str().unwrap();
    let printed = json(&["scenario", "--scenario", file], b"");
    assert_eq!(
        printed["service"]["llm"]["prompt_tokens"],
        serde_json::json!({"empirical": {"tokens": [100, 300]}})
    );
    let v = json(
        &[
            "run",
            "--scenario",
            file,
            "--rate",
            "1",
            "--requests",
            "50",
            "--json",
        ],
        b"",
    );
    assert_eq!(v["total_input_tokens"].as_u64().unwrap() % 100, 0);
    std::fs::write(dir.join("prompts.txt"), "100\nlots\n").unwrap();
    let e = error(&["run", "--scenario", file], b"");
    assert!(
        // The line is named; its content is not echoed (the file may not be what the scenario says).
        e.contains("prompts.txt line 2") && !e.contains("lots"),
        "{e}"
    );
}
