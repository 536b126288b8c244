//! `calibrate`: the model fitted to measurements. Files the model itself made (a trace with token times, result
//! files as `vllm bench serve --save-result --save-detailed` writes them) give back the coefficients they were made
//! with; every malformed input is refused in one line naming the file. The command line over it is tested in
//! `tests/cli_calibrate.rs`.

use goodput::cluster::exposition::SimulatedScrape;
use goodput_calibrate::fit::{FIXED, FRONTEND, PER_CONTEXT_TOKEN, PER_TOKEN};
use goodput_calibrate::inputs::InputFile;
use goodput_calibrate::{calibrate, CalibrateError, Calibration, ServerFlags};
use goodput_model::{bench_requests, replay_traced, LengthDist, RequestTrace, ServiceKind};

#[path = "../../../tests/support/synthetic_server.rs"]
mod synthetic_server;
use synthetic_server::{synthetic_result, synthetic_trace, synthetic_trace_on, truth};

fn flags() -> ServerFlags {
    ServerFlags {
        max_num_seqs: Some(64),
        max_num_batched_tokens: Some(4096),
        ..ServerFlags::default()
    }
}

fn file(name: &str, text: String) -> InputFile {
    InputFile {
        name: name.to_owned(),
        text,
    }
}

fn coefficients(c: &Calibration) -> [f64; 4] {
    c.fit.theta()
}

fn within(what: &str, got: f64, want: f64, tolerance: f64) {
    let error = (got - want).abs() / want;
    assert!(
        error <= tolerance,
        "{what}: fitted {got:.4e}, made with {want:.4e} ({:.1}% off)",
        error * 100.0
    );
}

/// The four coefficients the synthetic server was made with, within `tolerance`.
fn recovers(c: &Calibration, tolerance: f64) {
    let theta = coefficients(c);
    within("fixed", theta[FIXED], 0.015, tolerance);
    within(
        "per_context_token",
        theta[PER_CONTEXT_TOKEN],
        2.0e-7,
        tolerance,
    );
    within("compute.per_token", theta[PER_TOKEN], 6.0e-5, tolerance);
    within("frontend_overhead", theta[FRONTEND], 0.004, tolerance);
}

#[test]
fn a_trace_with_token_times_gives_back_the_coefficients_it_was_made_with() {
    let files = vec![
        file("light.jsonl", synthetic_trace(0.1, 400, 1)),
        file("lighter.jsonl", synthetic_trace(0.3, 400, 2)),
    ];
    let c = calibrate(&files, &flags()).unwrap();
    recovers(&c, 0.05);
    // The scenario is the model's own format, and it runs.
    let ServiceKind::Llm(fleet) = &c.scenario.service else {
        panic!("an LLM fleet")
    };
    assert_eq!(fleet.max_num_seqs, 64);
    assert!(matches!(fleet.prompt_tokens, LengthDist::Empirical { .. }));
    c.scenario.validate().unwrap();
}

/// A server on vLLM's V0 engine (prompts in steps of their own, the decodes waiting) gives back its coefficients
/// and repeats its inputs when the calibration is told so. (At these light loads a fit taken for V1 repeats them
/// too, its coefficients shifted; DistServe's V0 server in `tests/accuracy_unseen.rs` shows the difference near
/// the knee.)
#[test]
fn a_v0_engine_s_trace_gives_back_its_coefficients_when_the_engine_is_named() {
    let mut v0 = truth();
    if let ServiceKind::Llm(fleet) = &mut v0.service {
        fleet.prefill_first = true;
        fleet.chunked_prefill = false;
    }
    let files = vec![
        file("light.jsonl", synthetic_trace_on(&v0, 0.3, 400, 1)),
        file("heavier.jsonl", synthetic_trace_on(&v0, 1.0, 400, 2)),
    ];
    let given = |v0_engine| ServerFlags {
        chunked_prefill: Some(false),
        v0_engine,
        ..flags()
    };
    let named = calibrate(&files, &given(Some(true))).unwrap();
    recovers(&named, 0.05);
    assert!(named.assumptions.iter().any(|a| a == "engine V0 (given)"));
    let ServiceKind::Llm(fleet) = &named.scenario.service else {
        panic!("an LLM fleet")
    };
    assert!(fleet.prefill_first);
    assert!(named.unreproduced.is_empty(), "{:?}", named.unreproduced);
}

#[test]
fn detailed_result_files_give_back_the_step_and_prefill_costs() {
    let files = vec![
        file("rate-0.1.json", synthetic_result(0.1, 400, 1, true)),
        file("rate-0.3.json", synthetic_result(0.3, 400, 2, true)),
    ];
    let c = calibrate(&files, &flags()).unwrap();
    let theta = coefficients(&c);
    let report = goodput_calibrate::report::render(&c);
    within("fixed", theta[FIXED], 0.015, 0.05);
    within("compute.per_token", theta[PER_TOKEN], 6.0e-5, 0.05);
    // Without send times the batch is known only on average: the small coefficients are looser, and said to be.
    within("per_context_token", theta[PER_CONTEXT_TOKEN], 2.0e-7, 0.5);
    assert!(
        report.contains("rate-0.1.json (vllm bench serve result, per request"),
        "{report}"
    );
    // Each input's experiment, repeated in the model, lands near what it measured.
    for input in &c.inputs {
        let check = input
            .check
            .as_ref()
            .expect("a result file is an experiment to repeat");
        within(
            "TTFT p50",
            check.model.ttft_p50,
            check.measured.ttft_p50,
            0.1,
        );
        within(
            "TPOT p50",
            check.model.tpot_p50,
            check.measured.tpot_p50,
            0.1,
        );
        within(
            "throughput",
            check.model.throughput,
            check.measured.throughput,
            0.1,
        );
    }
}

#[test]
fn summary_only_results_fit_what_they_can_and_name_what_they_cannot() {
    let files = vec![
        file("rate-0.1.json", synthetic_result(0.1, 400, 1, false)),
        file("rate-0.3.json", synthetic_result(0.3, 400, 2, false)),
    ];
    let c = calibrate(&files, &flags()).unwrap();
    let report = goodput_calibrate::report::render(&c);
    assert!(report.contains("no error estimate"), "{report}");
    assert!(report.contains("fixed at the inputs' means"), "{report}");
    assert!(report.contains("max_num_seqs 64 (given)"), "{report}");
    assert!(
        report.contains("KV cache not limited (not determined"),
        "{report}"
    );
    // Four figures, four unknowns: the fit reproduces every figure it was given.
    for input in &c.inputs {
        for (figure, measured, fitted) in &input.residuals {
            within(figure.name(), *fitted, *measured, 0.1);
        }
    }
}

#[test]
fn vllm_0_8_5_results_with_a_colon_key_and_an_unlimited_rate_are_read() {
    let mut light: serde_json::Value =
        serde_json::from_str(&synthetic_result(0.1, 200, 1, true)).unwrap();
    let object = light.as_object_mut().unwrap();
    object.remove("request_goodput");
    object.insert("request_goodput:".into(), serde_json::Value::Null);
    let mut burst = light.clone();
    burst["request_rate"] = serde_json::json!("inf");
    let files = vec![
        file("0.8.5-light.json", light.to_string()),
        file("0.8.5-burst.json", burst.to_string()),
    ];
    let c = calibrate(&files, &flags()).unwrap();
    assert_eq!(c.inputs[0].rate, Some(0.1));
    assert_eq!(c.inputs[1].rate, None, "\"inf\" is everything at once");
}

/// Three `/metrics` scrapes of one simulated server, `seconds` apart: before any traffic, after `seconds` of
/// 0.1 req/s, and after `seconds` more of 0.3 req/s (each window ends a little after its last request).
fn synthetic_scrapes(seconds: f64) -> Vec<InputFile> {
    let s = truth();
    let stage = |rate: f64, seed: u64, start: f64| {
        let drain = 60.0;
        let mut requests =
            bench_requests(&s, rate, (rate * (seconds - drain)) as u64, seed).unwrap();
        requests.retain(|r| r.arrival_s < seconds - drain);
        for r in &mut requests {
            r.arrival_s += start;
        }
        requests
    };
    let mut requests = stage(0.1, 1, 0.0);
    requests.extend(stage(0.3, 2, seconds));
    let (_, lives) = replay_traced(&s, &requests, None).unwrap();
    let page = |at: f64| {
        let done: Vec<RequestTrace> = lives.iter().filter(|l| l.finish <= at).cloned().collect();
        let running = lives
            .iter()
            .filter(|l| l.first_token <= at && l.finish > at)
            .count();
        SimulatedScrape {
            model_name: "synthetic",
            traces: &done,
            running: running as f64,
            waiting: 0.0,
            kv_cache_usage: None,
            preemptions: 0,
            rejected: None,
            show_hidden_metrics: false,
            comment: None,
        }
        .render()
    };
    vec![
        file("start.prom", page(0.0)),
        file("after-0.1.prom", page(seconds)),
        file("after-0.3.prom", page(2.0 * seconds)),
    ]
}

#[test]
fn scrapes_of_a_server_at_two_light_loads_give_back_its_step_costs() {
    let seconds = 3000.0;
    let files = synthetic_scrapes(seconds);
    let c = calibrate(
        &files,
        &ServerFlags {
            window_seconds: Some(seconds),
            ..flags()
        },
    )
    .unwrap();
    let report = goodput_calibrate::report::render(&c);
    assert!(
        report.contains("start.prom → after-0.1.prom (two /metrics scrapes (window length given)"),
        "{report}"
    );
    let theta = coefficients(&c);
    within("fixed", theta[FIXED], 0.015, 0.05);
    // Means alone cannot split the TTFT into front end and prefill: the prefill's cost carries both, and says so.
    within("compute.per_token", theta[PER_TOKEN], 6.0e-5, 0.1);
    c.scenario.validate().unwrap();
}

/// The one line `calibrate` gives for these files.
fn refusal(files: &[(&str, &str)]) -> String {
    let files: Vec<InputFile> = files
        .iter()
        .map(|(n, t)| file(n, (*t).to_owned()))
        .collect();
    let e = calibrate(&files, &flags()).unwrap_err().to_string();
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    e
}

#[test]
fn every_malformed_input_is_refused_in_one_line_naming_the_file() {
    let result = synthetic_result(0.1, 50, 1, false);
    // No TPOT, and no E2E to derive it from (a run with --percentile-metrics ttft): nothing shows a decode step.
    let missing = result
        .replace("\"mean_tpot_ms\"", "\"mean_tpot\"")
        .replace("\"mean_e2el_ms\"", "\"mean_e2el\"");
    // A fixture far past its knee: its TTFT is a minute of queueing, and its pages have no queue histogram.
    let fixture = |name: &str| {
        std::fs::read_to_string(format!(
            "{}/../../tests/fixtures/metrics/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let (healthy, healthy_later) = (fixture("healthy.prom"), fixture("healthy-later.prom"));
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (vec![("empty.json", "")], "empty.json: the file is empty"),
        (vec![("notes.txt", "hello")], "notes.txt: not a vllm bench serve result"),
        (vec![("other.json", "{\"a\": 1}")], "other.json: a JSON object, but not a vllm bench serve result"),
        (vec![("old.json", &missing)], "old.json: shows no TPOT (no \"mean_tpot_ms\""),
        (
            vec![("t.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 5, \"output_tokens\": 2}\n{\"arrival_s\": \"x\"}")],
            "t.jsonl line 2:",
        ),
        (
            vec![("t.csv", "arrival_s,prompt_tokens,output_tokens\n2,5,5\n1,5,5\n")],
            "t.csv line 3: arrival_s must be a finite time, no earlier than the line above",
        ),
        (
            vec![("t.csv", "arrival_s,prompt_tokens,output_tokens\n0,5,5\n1,5,5\n")],
            "t.csv: no latencies to fit",
        ),
        (
            vec![("t.csv", "arrival_s,prompt_tokens,output_tokens,first_token_s\n0,5,5,-1\n")],
            "t.csv line 2: first_token_s (or ttft_s) must be a finite time after arrival_s",
        ),
        (
            vec![("one.prom", "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n")],
            "one.prom: one /metrics scrape counts since the server started",
        ),
        (
            vec![
                ("a.prom", "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n"),
                ("b.prom", "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 2\n"),
            ],
            "a.prom → b.prom: no request got its first token between the two scrapes",
        ),
        (vec![("bad.prom", "# TYPE x gauge\nx{ 1\n")], "bad.prom: not a readable /metrics page"),
        (
            vec![("healthy.prom", &healthy), ("healthy-later.prom", &healthy_later)],
            "healthy.prom → healthy-later.prom: the server was queueing (1789 waiting, 64 running)",
        ),
    ];
    for (files, expected) in cases {
        let e = refusal(&files);
        assert!(e.starts_with(expected), "expected {expected:?}, got {e:?}");
    }
    let none = calibrate(&[], &flags()).unwrap_err();
    assert_eq!(none, CalibrateError::NoInput);
    assert!(none.to_string().starts_with("no input"));
}

#[test]
fn a_refusal_says_what_is_at_fault_a_flag_or_an_input() {
    let result = file("light.json", synthetic_result(0.1, 50, 1, true));
    let zero_seqs = ServerFlags {
        max_num_seqs: Some(0),
        ..flags()
    };
    match calibrate(std::slice::from_ref(&result), &zero_seqs).unwrap_err() {
        CalibrateError::Flag { flag, problem } => {
            assert_eq!(flag, "--max-num-seqs");
            assert_eq!(problem, "must be between 1 and 65536 (got 0)");
        }
        other => panic!("a flag's error, not {other:?}"),
    }
    let broken = file("broken.json", "{\"date\": ".to_owned());
    match calibrate(&[broken], &flags()).unwrap_err() {
        // The reader's own line, which names the file once.
        CalibrateError::Read { name, said } => {
            assert_eq!(name, "broken.json");
            assert!(
                said.starts_with("broken.json") && said.matches("broken.json").count() == 1,
                "{said}"
            );
        }
        other => panic!("a reader's refusal, not {other:?}"),
    }
    let scrape = file("one.prom", "vllm:num_requests_running 1\n".to_owned());
    let one = calibrate(&[scrape], &flags()).unwrap_err();
    assert!(
        matches!(&one, CalibrateError::Input { name, .. } if name == "one.prom"),
        "{one:?}"
    );
    assert!(
        one.to_string().contains("give a second, later scrape"),
        "{one}"
    );
}

#[test]
fn a_one_megabyte_result_file_calibrates_in_a_fraction_of_a_second() {
    // About 1 MB: a detailed result of 1 500 requests (their gaps between tokens make most of the bytes).
    let text = synthetic_result(0.3, 1500, 3, true);
    assert!(text.len() > 900_000, "{} bytes", text.len());
    let files = vec![file("big.json", text)];
    // The best of three runs: the machine running the tests is shared, and a calibration is one uninterrupted task.
    let mut took = std::time::Duration::MAX;
    let mut c = None;
    for _ in 0..3 {
        let start = std::time::Instant::now();
        c = Some(calibrate(&files, &flags()).unwrap());
        took = took.min(start.elapsed());
    }
    let c = c.unwrap();
    eprintln!("calibrated 1 MB in {took:?}");
    assert!(c.inputs[0].check.is_some());
    // The page's budget is 200 ms in wasm (about 1.5× native); measured alone this takes 50-70 ms natively. The
    // bound here is looser, as the machine running tests is shared: it catches a calibration gone quadratic (a
    // whole-batch rebuild per request), not a few per cent.
    assert!(took.as_secs_f64() < 0.5, "{took:?}");
}
