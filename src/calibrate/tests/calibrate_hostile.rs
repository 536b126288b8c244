//! `calibrate` against a careless or hostile user's files and flags (issue 30): every one refused in one line naming
//! the flag or the file, none reaching the SVD with a row it cannot take, none pushing unbounded work.

use goodput_calibrate::fit::{fit, Figure, Row};
use goodput_calibrate::inputs::InputFile;
use goodput_calibrate::{calibrate, ServerFlags};
use serde_json::Value;

#[path = "../../../tests/support/synthetic_server.rs"]
mod synthetic_server;
use synthetic_server::synthetic_result;

fn file(name: &str, text: String) -> InputFile {
    InputFile {
        name: name.to_owned(),
        text,
    }
}

/// The one line `calibrate` gives for `files` with `flags`.
fn refused(files: &[InputFile], flags: &ServerFlags) -> String {
    let e = calibrate(files, flags).expect_err("refused").to_string();
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    e
}

/// A light detailed result of the synthetic server, with `change` made to its JSON.
fn result_with(change: impl FnOnce(&mut Value)) -> InputFile {
    let mut value: Value = serde_json::from_str(&synthetic_result(0.3, 60, 1, true)).unwrap();
    change(&mut value);
    file("result.json", value.to_string())
}

#[test]
fn flags_outside_a_server_are_refused_by_the_flag_the_user_typed() {
    let files = [result_with(|_| {})];
    for (flags, flag) in [
        (
            ServerFlags {
                replicas: Some(0),
                ..ServerFlags::default()
            },
            "--replicas",
        ),
        (
            ServerFlags {
                max_num_batched_tokens: Some(0),
                ..ServerFlags::default()
            },
            "--max-num-batched-tokens",
        ),
        (
            ServerFlags {
                max_num_seqs: Some(0),
                ..ServerFlags::default()
            },
            "--max-num-seqs",
        ),
        (
            ServerFlags {
                kv_cache_tokens: Some(1),
                ..ServerFlags::default()
            },
            "--kv-cache-tokens",
        ),
        (
            ServerFlags {
                window_seconds: Some(1e-300),
                ..ServerFlags::default()
            },
            "--seconds",
        ),
    ] {
        let e = refused(&files, &flags);
        assert!(e.starts_with(flag), "{flag}: {e}");
    }
}

#[test]
fn huge_finite_numbers_in_a_result_are_refused_before_the_fit() {
    // The inputs: a throughput of 1e300, token times of 1e307 (as ITLs that sum past the largest f64).
    for (what, change) in [
        (
            "throughput",
            Box::new(|v: &mut Value| v["request_throughput"] = 1e300.into())
                as Box<dyn Fn(&mut Value)>,
        ),
        (
            "itls",
            Box::new(|v: &mut Value| {
                let n = v["itls"].as_array().unwrap().len();
                v["itls"] = Value::from(vec![vec![1e307; 40]; n]);
            }),
        ),
        (
            "ttfts",
            Box::new(|v: &mut Value| {
                let n = v["ttfts"].as_array().unwrap().len();
                v["ttfts"] = Value::from(vec![1e307; n]);
            }),
        ),
    ] {
        let e = refused(&[result_with(change)], &ServerFlags::default());
        assert!(e.starts_with("result.json: "), "{what}: {e}");
    }
}

#[test]
fn the_fit_takes_no_row_that_is_not_finite_and_in_range() {
    let row = |y: f64, x: f64| Row {
        source: 0,
        figure: Figure::Tpot,
        y,
        base: [1.0, x, 0.0, 0.0],
        memory: [0.0; 4],
        compute: [0.0; 4],
    };
    let good: Vec<Row> = (1..30)
        .map(|i| row(0.02 + 1e-4 * f64::from(i), 1e3 * f64::from(i)))
        .collect();
    assert!(fit(&good).is_some());
    for bad in [
        row(f64::NAN, 1.0),
        row(f64::INFINITY, 1.0),
        row(0.02, f64::NAN),
        row(0.02, 1e300),
        row(1e7, 1.0),
    ] {
        assert!(bad.problem().is_some(), "{bad:?}");
        let mut rows = good.clone();
        rows.push(bad);
        assert!(fit(&rows).is_none(), "a bad row reached the fit");
    }
}

/// A minimal vLLM page: `requests` requests with TTFT 0.1 s and TPOT 20 ms each, prompt lengths in buckets
/// `bounds` (all in the first), 100 output tokens each.
fn page(requests: f64, bounds: &[&str]) -> String {
    let labels = "model_name=\"m\"";
    let mut out = String::new();
    for (name, mean) in [
        ("vllm:time_to_first_token_seconds", 0.1),
        ("vllm:request_time_per_output_token_seconds", 0.02),
        ("vllm:request_generation_tokens", 100.0),
    ] {
        out.push_str(&format!(
            "# TYPE {name} histogram\n{name}_bucket{{{labels},le=\"+Inf\"}} {requests}\n\
             {name}_count{{{labels}}} {requests}\n{name}_sum{{{labels}}} {}\n",
            requests * mean
        ));
    }
    let name = "vllm:request_prompt_tokens";
    out.push_str(&format!("# TYPE {name} histogram\n"));
    for le in bounds.iter().chain(&["+Inf"]) {
        out.push_str(&format!(
            "{name}_bucket{{{labels},le=\"{le}\"}} {requests}\n"
        ));
    }
    out.push_str(&format!(
        "{name}_count{{{labels}}} {requests}\n{name}_sum{{{labels}}} {}\n",
        requests * 500.0
    ));
    out.push_str(&format!(
        "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{{{labels}}} 1\n\
         # TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{{{labels}}} 0\n"
    ));
    out
}

fn scrapes(earlier: String, later: String) -> [InputFile; 2] {
    [file("a.prom", earlier), file("b.prom", later)]
}

fn with_seconds() -> ServerFlags {
    ServerFlags {
        window_seconds: Some(60.0),
        ..ServerFlags::default()
    }
}

#[test]
fn two_scrapes_of_one_server_make_a_window_with_about_a_thousand_lengths() {
    let bounds = ["128", "1024"];
    let parse = |text: String| goodput::cluster::metrics::parse(&text).unwrap();
    let w = goodput_calibrate::scrapes::window(
        "a → b",
        &parse(page(100.0, &bounds)),
        &parse(page(160.0, &bounds)),
        Some(60.0),
    )
    .unwrap();
    assert_eq!(w.means.requests, 60.0);
    let prompts = w.prompt_lengths.unwrap();
    assert_eq!(prompts.len(), 1000);
    assert!(prompts.iter().all(|&p| (1..=128).contains(&p)));
}

#[test]
fn scrapes_whose_prompt_buckets_differ_are_refused_in_bounded_memory() {
    // The pair: the later page's buckets have other bounds, so no bucket's count is a difference of two.
    let earlier = page(1e12, &["128", "1024"]);
    let later = page(1e12 + 50.0, &["100", "1000", "10000"]);
    let e = refused(&scrapes(earlier, later), &with_seconds());
    assert!(e.contains("other bucket bounds"), "{e}");
    assert!(e.starts_with("a.prom → b.prom: "), "{e}");
}

#[test]
fn scrapes_across_a_restart_say_the_server_restarted() {
    let bounds = ["128", "1024"];
    let e = refused(
        &scrapes(page(1200.0, &bounds), page(35.0, &bounds)),
        &with_seconds(),
    );
    assert!(
        e.contains("the server restarted between the scrapes"),
        "{e}"
    );
    assert!(!e.contains("no request got its first token"), "{e}");
}

#[test]
fn a_subnormal_time_or_an_impossible_count_is_refused_in_one_line() {
    let files = [result_with(|v| {
        v["median_ttft_ms"] = serde_json::json!(1e-320)
    })];
    let e = refused(&files, &ServerFlags::default());
    assert!(
        e.contains("\"median_ttft_ms\" is 1e-320 ms, shorter than any server answers in"),
        "{e}"
    );
    let files = [result_with(|v| {
        v["completed"] = serde_json::json!(18446744073709551616.0)
    })];
    let e = refused(&files, &ServerFlags::default());
    assert!(
        e.contains("\"completed\" is 1.8446744073709552e19, not a count"),
        "{e}"
    );
    // A count that disagrees with the throughput and duration written beside it.
    let files = [result_with(|v| v["completed"] = serde_json::json!(59_000))];
    let e = refused(&files, &ServerFlags::default());
    assert!(
        e.contains("disagrees with \"request_throughput\" × \"duration\""),
        "{e}"
    );
}

#[test]
fn a_result_of_ten_million_token_outputs_is_refused_before_any_simulation() {
    let started = std::time::Instant::now();
    // The 1.4 kB summary: the light result's figures, with ten million output tokens a request.
    let mut summary: Value = serde_json::from_str(&synthetic_result(0.3, 60, 1, false)).unwrap();
    summary["total_output_tokens"] = serde_json::json!(60u64 * 10_000_000);
    let files = [file("result.json", summary.to_string())];
    let e = refused(&files, &ServerFlags::default());
    assert!(
        e.starts_with("too much work to simulate: result.json: measuring the capacity"),
        "{e}"
    );
    assert!(e.contains("1.00e7 output tokens on average"), "{e}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

/// A GuideLLM report (schema 2, `config`) of one constant-rate benchmark, summary only: 60 requests at 0.3/s,
/// each `prompt` prompt and `output` output tokens on average, with a light server's latencies.
fn guidellm_report(prompt: f64, output: f64) -> String {
    let stat = |mean: f64| serde_json::json!({"successful": {"mean": mean, "median": mean}});
    serde_json::json!({
        "metadata": {"version": 1},
        "benchmarks": [{
            "config": {"strategy": {"type_": "constant", "rate": 0.3}},
            "duration": 200.0,
            "metrics": {
                "request_totals": {"successful": 60, "errored": 0, "incomplete": 0, "total": 60},
                "prompt_token_count": stat(prompt),
                "output_token_count": stat(output),
                "time_to_first_token_ms": stat(90.0),
                "inter_token_latency_ms": stat(21.0),
                "request_latency": stat(4.5),
            },
        }],
    })
    .to_string()
}

#[test]
fn a_guidellm_report_of_heavy_requests_is_refused_before_any_simulation() {
    // The 1.5 kB report ran past a minute: the same figures as a light report, with outputs of ten million
    // tokens on average.
    let light = guidellm_report(1600.0, 210.0);
    calibrate(&[file("benchmarks.json", light)], &ServerFlags::default())
        .unwrap_or_else(|e| panic!("the light report: {e}"));
    let heavy = guidellm_report(1600.0, 1e7);
    assert!(heavy.len() < 1500, "{} bytes", heavy.len());
    let started = std::time::Instant::now();
    let e = refused(&[file("benchmarks.json", heavy)], &ServerFlags::default());
    assert!(
        e.starts_with("too much work to simulate: benchmarks.json: measuring the capacity"),
        "{e}"
    );
    assert!(e.contains("1.00e7 output tokens on average"), "{e}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_timed_trace_where_every_request_overlaps_one_long_one_calibrates_in_linear_time() {
    // 100,000 requests, each decoding beside one that decodes for the whole trace: scanning the others for each
    // request's batch was quadratic (the 1.9 MB trace: 131 s).
    let mut text = String::from(
        "arrival_s,prompt_tokens,output_tokens,ttft_s,e2e_s\n0,100,20000,0.05,10000\n",
    );
    for i in 1..100_000 {
        text.push_str(&format!("{:.1},100,20,0.05,0.5\n", f64::from(i) * 0.1));
    }
    let started = std::time::Instant::now();
    let calibration = calibrate(&[file("timed.csv", text)], &ServerFlags::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(calibration.inputs[0].requests, 100_000);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn more_inputs_than_one_calibration_takes_are_refused_before_any_is_parsed() {
    use goodput_calibrate::inputs::{MAX_INPUT_FILES, MAX_TOTAL_INPUT_BYTES};
    let light = synthetic_result(0.3, 60, 1, false);
    let many: Vec<InputFile> = (0..=MAX_INPUT_FILES)
        .map(|i| file(&format!("run-{i}.json"), light.clone()))
        .collect();
    let e = refused(&many, &ServerFlags::default());
    assert!(e.starts_with("more than 32 inputs (at run-32.json)"), "{e}");
    // Three files of 50 MB, each under the limit for one file, together over the limit for all: refused by size,
    // before the JSON of any is parsed (these are not JSON at all).
    let big = "x".repeat(50 << 20);
    let large: Vec<InputFile> = (0..3)
        .map(|i| file(&format!("big-{i}.json"), big.clone()))
        .collect();
    let e = refused(&large, &ServerFlags::default());
    assert_eq!(
        e,
        format!(
            "the inputs up to big-2.json come to more than {} MB in all, the limit for one calibration",
            MAX_TOTAL_INPUT_BYTES >> 20
        )
    );
}

#[test]
fn more_runs_in_one_file_than_a_calibration_takes_are_refused_before_they_are_read() {
    use goodput_calibrate::MAX_RUNS;
    // Results `--append-result` wrote one after another: 250,000 of them in 64 MB ran for over ten minutes.
    let light = synthetic_result(0.3, 60, 1, false);
    let appended = format!("{light}\n").repeat(MAX_RUNS + 1);
    let started = std::time::Instant::now();
    let e = refused(&[file("appended.json", appended)], &ServerFlags::default());
    assert!(
        e.starts_with("appended.json: holds 33 runs, more than the 32"),
        "{e}"
    );
    // A GuideLLM report of as many benchmarks.
    let mut report: Value = serde_json::from_str(&guidellm_report(1600.0, 210.0)).unwrap();
    let benchmark = report["benchmarks"][0].clone();
    report["benchmarks"] = Value::from(vec![benchmark; MAX_RUNS + 1]);
    let e = refused(
        &[file("benchmarks.json", report.to_string())],
        &ServerFlags::default(),
    );
    assert!(
        e.contains("a GuideLLM report of 33 benchmarks, more than the 32"),
        "{e}"
    );
    // Or as many runs across files: two reports of 17 benchmarks.
    report["benchmarks"] = Value::from(vec![report["benchmarks"][0].clone(); 17]);
    let e = refused(
        &[
            file("a.json", report.to_string()),
            file("b.json", report.to_string()),
        ],
        &ServerFlags::default(),
    );
    assert!(
        e.starts_with("more than 32 runs in all (at b.json (benchmark 16"),
        "{e}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}
