//! inference-perf's lifecycle reports read by `calibrate`: stage files and the run's summary, in the layouts of three
//! releases, made from the synthetic server's runs field for field as inference-perf writes them
//! (`support/inference_perf_reports.rs` names the source lines). A stage says what the same run's `vllm bench serve`
//! result says, and calibrates to the same server; a concurrency stage is a closed loop; a summary, which mixes its
//! run's stages, is read at its mean rate and left out beside the stages; every malformed report is refused in one
//! line naming the file and the field. The real reports (inference-perf's own KubeCon NA 2025 demo results) are
//! read when they are in `../shared/data/` (see `tests/fixtures/PUBLIC-DATA.md`).

use goodput_calibrate::inputs::{parse, BenchResult, InputFile, Parsed};
use goodput_calibrate::{calibrate, ServerFlags};
use goodput_model::RequestTrace;

#[path = "../../../tests/support/synthetic_server.rs"]
mod synthetic_server;
use synthetic_server::{simulated, synthetic_result};

#[path = "../../../tests/support/inference_perf_reports.rs"]
mod inference_perf_reports;
use inference_perf_reports::{report, stage, Layout, Load};

const LAYOUTS: [Layout; 3] = [Layout::Summer2025, Layout::Autumn2025, Layout::Current];

fn file(name: &str, text: String) -> InputFile {
    InputFile {
        name: name.to_owned(),
        text,
    }
}

fn bench(file: &InputFile) -> BenchResult {
    match parse(file) {
        Ok(Parsed::Bench(bench)) => bench,
        other => panic!("{}: {other:?}", file.name),
    }
}

fn flags() -> ServerFlags {
    ServerFlags {
        max_num_seqs: Some(64),
        max_num_batched_tokens: Some(4096),
        ..ServerFlags::default()
    }
}

fn close(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1e-12),
        "{what}: {got} where {want}"
    );
}

#[test]
fn a_stage_of_every_layout_reads_as_the_same_runs_vllm_result() {
    for layout in LAYOUTS {
        let ours = bench(&file(
            "stage_0_lifecycle_metrics.json",
            stage(0.8, 400, 7, layout),
        ));
        let vllm = bench(&file("result.json", synthetic_result(0.8, 400, 7, false)));
        let what = |figure: &str| format!("{layout:?} {figure}");
        assert_eq!(ours.kind, "inference-perf stage");
        assert_eq!((ours.completed, ours.request_rate), (400, Some(0.8)));
        assert_eq!(ours.max_concurrency, None);
        assert!(ours.derived.is_empty(), "{:?}", ours.derived);
        close(&what("duration"), ours.duration, vllm.duration);
        close(
            &what("throughput"),
            ours.request_throughput,
            vllm.request_throughput,
        );
        close(&what("mean prompt"), ours.mean_prompt, vllm.mean_prompt);
        close(&what("mean output"), ours.mean_output, vllm.mean_output);
        close(&what("mean TTFT"), ours.ttft_mean, vllm.ttft_mean);
        close(&what("mean TPOT"), ours.tpot_mean, vllm.tpot_mean);
        close(&what("mean E2E"), ours.e2el_mean, vllm.e2el_mean);
        // Medians and the p99 by numpy's interpolation, within a request's spread of the model's own.
        for (figure, got, want) in [
            ("median TTFT", ours.ttft_median, vllm.ttft_median),
            ("median TPOT", ours.tpot_median, vllm.tpot_median),
        ] {
            assert!((got / want - 1.0).abs() < 0.05, "{}", what(figure));
        }
        match layout {
            // Reports before September 2025 give p10, p50 and p90 only.
            Layout::Summer2025 => assert_eq!(ours.ttft_p99, None),
            _ => assert!((ours.ttft_p99.unwrap() / vllm.ttft_p99.unwrap() - 1.0).abs() < 0.05),
        }
    }
}

#[test]
fn two_stages_calibrate_to_the_server_their_vllm_results_give() {
    let stages = vec![
        file(
            "stage_0_lifecycle_metrics.json",
            stage(0.3, 400, 7, Layout::Current),
        ),
        file(
            "stage_1_lifecycle_metrics.json",
            stage(0.8, 400, 7, Layout::Current),
        ),
    ];
    let results = vec![
        file("light-0.3.json", synthetic_result(0.3, 400, 7, false)),
        file("light-0.8.json", synthetic_result(0.8, 400, 7, false)),
    ];
    let ours = calibrate(&stages, &flags()).unwrap();
    let vllm = calibrate(&results, &flags()).unwrap();
    for (k, (got, want)) in ours.fit.theta().iter().zip(vllm.fit.theta()).enumerate() {
        assert!(
            (got - want).abs() <= 1e-6 * want.abs().max(1e-9),
            "coefficient {k}: {got} from the stages, {want} from the results"
        );
    }
    assert_eq!(ours.inputs.len(), 2);
    assert!(ours.inputs[0].kind.starts_with("inference-perf stage"));
    assert_eq!(ours.inputs[1].rate, Some(0.8));
    assert!(ours.inputs.iter().all(|i| i.check.is_some()));
}

#[test]
fn a_concurrency_stage_is_a_closed_loop_of_its_clients() {
    let (_, lives) = simulated(0.8, 200, 3);
    let text = report(&lives, Load::Concurrency(8), Layout::Current);
    // inference-perf fills a concurrent stage's queue at its number of requests a second.
    assert!(text.contains("\"requested_rate\": 200.0"), "{text}");
    let b = bench(&file("stage_2_lifecycle_metrics.json", text));
    assert_eq!((b.request_rate, b.max_concurrency), (None, Some(8)));
    assert_eq!(b.closed_loop_users(), Some(8));
}

/// Two stages of one run, and the run's summary over both.
fn a_run() -> (Vec<RequestTrace>, Vec<RequestTrace>) {
    let (_, first) = simulated(0.3, 200, 11);
    let (_, mut second) = simulated(0.8, 200, 12);
    let end = first.iter().map(|l| l.finish).fold(0.0, f64::max);
    for life in &mut second {
        life.arrival += end;
        life.first_token += end;
        life.finish += end;
    }
    (first, second)
}

#[test]
fn a_summary_is_read_at_its_mean_rate_and_left_out_beside_its_stages() {
    let (first, second) = a_run();
    let both: Vec<RequestTrace> = first.iter().chain(&second).cloned().collect();
    let summary = file(
        "summary_lifecycle_metrics.json",
        report(&both, Load::Summary, Layout::Current),
    );
    let b = bench(&summary);
    assert!(b.kind.starts_with("inference-perf summary"));
    let rate = b.request_rate.unwrap();
    close("mean rate", rate, 400.0 / b.duration);
    assert!(
        b.derived[0].contains("mixes every stage"),
        "{:?}",
        b.derived
    );
    // Alone, it calibrates.
    let alone = calibrate(std::slice::from_ref(&summary), &flags()).unwrap();
    assert_eq!(alone.inputs.len(), 1);
    // Beside the stages it repeats, it is left out, and the report says so.
    let stages = [
        file(
            "stage_0_lifecycle_metrics.json",
            report(&first, Load::Rate(0.3), Layout::Current),
        ),
        file(
            "stage_1_lifecycle_metrics.json",
            report(&second, Load::Rate(0.8), Layout::Current),
        ),
    ];
    let all = [stages[0].clone(), summary, stages[1].clone()];
    let c = calibrate(&all, &flags()).unwrap();
    let names: Vec<&str> = c.inputs.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "stage_0_lifecycle_metrics.json",
            "stage_1_lifecycle_metrics.json"
        ]
    );
    assert!(c.assumptions.iter().any(|a| a
        .starts_with("summary_lifecycle_metrics.json left out: an inference-perf summary mixes")));
    assert_eq!(
        c.fit.theta(),
        calibrate(&stages, &flags()).unwrap().fit.theta()
    );
}

/// A stage file with the value at `pointer` (a JSON pointer) set to `to`, as the file would spell it (`NaN` bare, as
/// Python's `json.dumps` writes it).
fn edited(pointer: &str, to: &str) -> InputFile {
    let mut report: serde_json::Value =
        serde_json::from_str(&stage(0.8, 50, 5, Layout::Current)).unwrap();
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    report
        .pointer_mut(parent)
        .and_then(|p| p.as_object_mut())
        .unwrap_or_else(|| panic!("{pointer}"))
        .insert(key.to_owned(), "@".into());
    let text = serde_json::to_string_pretty(&report).unwrap();
    file(
        "stage_3_lifecycle_metrics.json",
        text.replacen("\"@\"", to, 1),
    )
}

/// The one line a calibration from `file` alone is refused with, which names it.
fn refused(file: &InputFile) -> String {
    match calibrate(std::slice::from_ref(file), &flags()) {
        Ok(_) => panic!("{} was accepted", file.name),
        Err(error) => {
            let line = error.to_string();
            assert!(
                !line.contains('\n') && line.starts_with(&file.name),
                "one line naming the file: {line}"
            );
            line
        }
    }
}

#[test]
fn a_malformed_report_is_refused_in_one_line_naming_the_file_and_the_field() {
    for (pointer, to, says) in [
        (
            "/successes/count",
            "-3",
            "successes.count is -3, not a whole number",
        ),
        (
            "/successes/count",
            "\"many\"",
            "successes.count is \"many\"",
        ),
        (
            "/successes/throughput/requests_per_sec",
            "0",
            "successes.throughput.requests_per_sec is 0, not a finite number above 0",
        ),
        (
            "/successes/latency/time_to_first_token/mean",
            "NaN",
            "successes.latency.time_to_first_token.mean is \"NaN\"",
        ),
        (
            "/successes/latency/time_per_output_token/median",
            "-1e300",
            "successes.latency.time_per_output_token.median is -1e",
        ),
        (
            "/successes/latency/time_to_first_token/p99",
            "Infinity",
            "successes.latency.time_to_first_token.p99 is \"Infinity\"",
        ),
        (
            "/load_summary/requested_rate",
            "\"fast\"",
            "load_summary.requested_rate is \"fast\"",
        ),
        (
            "/benchmark_time_seconds",
            "-1.0",
            "benchmark_time_seconds is -1.0",
        ),
        (
            "/successes/latency/request_latency",
            "[1, 2]",
            "successes.latency.request_latency.mean, which",
        ),
        (
            "/successes/prompt_tokens/mean",
            "0",
            "successes.prompt_tokens.mean is 0",
        ),
        (
            "/successes/goodput_metrics",
            "{\"request_goodput\": -2}",
            "goodput_metrics.request_goodput is -2",
        ),
    ] {
        let error = refused(&edited(pointer, to));
        assert!(error.contains(says), "{pointer} = {to}: {error}");
    }
}

#[test]
fn a_report_without_what_calibration_needs_says_what_to_run() {
    // Unstreamed requests have no first token: inference-perf writes `null`.
    let text = stage(0.8, 50, 5, Layout::Autumn2025);
    let ttft = &text[text.find("\"time_to_first_token\": {").unwrap()..];
    let ttft = &ttft[..ttft.find('}').unwrap() + 1];
    let unstreamed = file(
        "stage_0_lifecycle_metrics.json",
        text.replacen(ttft, "\"time_to_first_token\": null", 1),
    );
    let error = refused(&unstreamed);
    assert!(
        error.contains("successes.latency.time_to_first_token is empty")
            && error.contains("api.streaming: true"),
        "{error}"
    );
    // Reports of May–June 2025 kept no latency section (inference-perf b704026).
    let early = file(
        "summary_lifecycle_metrics.json",
        r#"{"load_summary": {"count": 10}, "successes": {"count": 10, "throughput": {"requests_per_sec": 1.0},
            "request_latency": {"mean": 1.0, "min": 0.9, "p10": 0.9, "p50": 1.0, "p90": 1.1, "max": 1.2}},
            "failures": {"count": 0, "request_latency": null}}"#
            .to_owned(),
    );
    assert!(refused(&early).contains("no successes.latency section"));
    let none = file(
        "stage_1_lifecycle_metrics.json",
        r#"{"load_summary": {"count": 4, "requested_rate": 1.0}, "successes": {"count": 0,
            "latency": {"request_latency": null}}, "failures": {"count": 4}}"#
            .to_owned(),
    );
    assert!(refused(&none).contains("successes.count is 0"));
}

#[test]
fn inference_perfs_other_reports_are_named_and_refused() {
    // `summarize_prometheus_metrics` (reportgen/base.py lines 417–459): empty load_summary and failures.
    let prometheus = file(
        "stage_0_prometheus_metrics.json",
        r#"{"benchmark_time_seconds": 0.0, "load_summary": {}, "failures": {}, "successes": {"count": 60.0,
            "rate": 1.0, "time_to_first_token": {"mean": 0.03, "median": 0.03, "p90": 0.04, "p99": 0.05}}}"#
            .to_owned(),
    );
    assert!(refused(&prometheus).contains("Prometheus report"));
    // `per_request_lifecycle_metrics.json` (lines 825–839): a list of requests.
    let per_request = file(
        "per_request_lifecycle_metrics.json",
        r#"[{"start_time": 1.0, "end_time": 1.5, "request": "{}", "response": "", "info": {}, "error": null}]"#
            .to_owned(),
    );
    assert!(refused(&per_request).contains("per-request report"));
}

#[test]
fn a_stage_the_load_generator_fell_behind_is_read_at_the_rate_it_sent() {
    let b = bench(&edited("/load_summary/achieved_rate", "0.5"));
    assert_eq!(b.request_rate, Some(0.5));
    assert!(b.derived[0].contains("fell behind"), "{:?}", b.derived);
    // A trace replay's stage asks for no rate: it is read at the rate it sent.
    let b = bench(&edited("/load_summary/requested_rate", "0"));
    assert!(
        b.request_rate.is_some_and(|r| (r - 0.8).abs() < 0.2),
        "{:?}",
        b.request_rate
    );
    assert!(b.derived[0].contains("asked for none"), "{:?}", b.derived);
}

// ── The real reports ─────────────────────────────────────────────────────────────────────────────────────────────

/// inference-perf's own results of its KubeCon NA 2025 demo: Llama-3-8B-Instruct on vLLM, one H100, seven stages
/// of 60 s at constant rates from 1 req/s, prompts of a shared-prefix workload (~204 tokens), 64 output tokens.
fn kubecon(name: &str) -> InputFile {
    let path = format!(
        "{}/../../../shared/data/inference-perf/kubecon-na-2025-vllm/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    file(
        name,
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")),
    )
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn inference_perfs_own_demo_results_are_read() {
    let mut rates = Vec::new();
    for n in 0..7 {
        let b = bench(&kubecon(&format!("stage_{n}_lifecycle_metrics.json")));
        assert!(b.completed > 0 && b.ttft_p99.is_some() && b.kind == "inference-perf stage");
        assert!((b.mean_prompt - 204.0).abs() < 2.0 && (b.mean_output - 64.0).abs() < 3.0);
        // Past the server's ~101 req/s, the load generator's 440 requests in flight fell behind the schedule.
        assert_eq!(
            b.derived.len(),
            usize::from(n >= 4),
            "stage {n}: {:?}",
            b.derived
        );
        rates.push(b.request_rate.unwrap());
    }
    assert_eq!(rates[..4], [1.0, 31.4, 61.79, 92.19]);
    assert!(
        rates[4..].iter().all(|r| (105.0..107.0).contains(r)),
        "{rates:?}"
    );
    let summary = bench(&kubecon("summary_lifecycle_metrics.json"));
    assert!(summary.kind.starts_with("inference-perf summary") && summary.completed > 1000);
    let light = [
        kubecon("stage_0_lifecycle_metrics.json"),
        kubecon("stage_1_lifecycle_metrics.json"),
    ];
    let c = calibrate(&light, &ServerFlags::default()).unwrap();
    assert_eq!(c.inputs.len(), 2);
    // The Prometheus reports beside them are named and refused.
    assert!(refused(&kubecon("stage_0_prometheus_metrics.json")).contains("Prometheus report"));
}
