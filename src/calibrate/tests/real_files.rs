//! Every real file is read (those not vendored are public files that belong in `../shared/data/`, see
//! `tests/fixtures/PUBLIC-DATA.md`; their tests are ignored until they are there), and calibrates where it should: `vllm bench serve`
//! results of vLLM 0.8.5 with the default metrics (no E2E) and the `"request_goodput:"` key, a GuideLLM report,
//! vLLM's OpenTelemetry spans and the CodeLlama-34B trace (sources and licences in each folder's README). The
//! refusals are made from the real files with one value changed, and each is one line naming the file and the key.

use goodput_calibrate::inputs::{parse, parse_all, BenchResult, InputFile, Parsed};
use goodput_calibrate::{calibrate, report, CalibrateError, ServerFlags};

/// A real file: vendored under `tests/fixtures/`, or else one of the public files that belong in the steering
/// repository's `shared/data/` beside this clone (`tests/fixtures/PUBLIC-DATA.md` lists them and their sources).
fn fixture(path: &str) -> InputFile {
    let root = env!("CARGO_MANIFEST_DIR");
    let vendored = format!("{root}/../../tests/fixtures/{path}");
    let full = if std::path::Path::new(&vendored).exists() {
        vendored
    } else {
        format!("{root}/../../../shared/data/{path}")
    };
    InputFile {
        name: path.rsplit('/').next().unwrap().to_owned(),
        text: std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}")),
    }
}

const GPUS: [&str; 2] = ["NVIDIA-H100-PCIe", "NVIDIA-GeForce-RTX-4090"];
const RATES: [u32; 5] = [1, 4, 8, 16, 32];

fn vllm_085(rate: u32, gpu: &str) -> InputFile {
    fixture(&format!(
        "vllm-bench-0.8.5/vllm_200prompts{rate}qps_Meta-Llama-3-8B-Instruct_sharegpt_1x{gpu}.json"
    ))
}

fn bench(file: &InputFile) -> BenchResult {
    match parse(file) {
        Ok(Parsed::Bench(bench)) => bench,
        other => panic!("{}: {other:?}", file.name),
    }
}

fn refused(file: &InputFile) -> String {
    let error = calibrate(std::slice::from_ref(file), &ServerFlags::default())
        .err()
        .unwrap_or_else(|| panic!("{} was accepted", file.name))
        .to_string();
    assert!(!error.contains('\n'), "one line: {error}");
    assert!(error.starts_with(&file.name), "names the file: {error}");
    error
}

/// The file with `from` replaced by `to` (exactly once), under another name.
fn edited(file: &InputFile, from: &str, to: &str) -> InputFile {
    assert_eq!(
        file.text.matches(from).count(),
        1,
        "{from} in {}",
        file.name
    );
    InputFile {
        name: format!("edited-{}", file.name),
        text: file.text.replacen(from, to, 1),
    }
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn every_vllm_0_8_5_result_is_read_though_none_has_an_e2e() {
    for gpu in GPUS {
        for rate in RATES {
            let file = vllm_085(rate, gpu);
            assert!(!file.text.contains("e2el"), "{}", file.name);
            let b = bench(&file);
            assert_eq!(b.request_rate, Some(f64::from(rate)), "{}", file.name);
            assert_eq!((b.completed, b.max_concurrency), (200, None));
            assert!(b.ttft_p99.is_some() && b.lives.is_none());
            // The typo key of vLLM 0.6.4–0.9.1, `"request_goodput:"`, holds the goodput.
            assert!(b.goodput.is_some_and(|g| g > 0.0), "{}", file.name);
            // E2E is derived from TTFT, TPOT and the mean output, and the result says so.
            assert_eq!(b.derived.len(), 1, "{:?}", b.derived);
            assert!(b.derived[0].starts_with("mean E2E derived"));
            let decode = b.tpot_mean * (b.mean_output - 1.0);
            assert!((b.e2el_mean - b.ttft_mean - decode).abs() < 1e-9);
        }
    }
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn each_gpus_light_pair_calibrates_and_the_h100_steps_faster() {
    let mut fixed = Vec::new();
    for gpu in GPUS {
        let files = [vllm_085(1, gpu), vllm_085(4, gpu)];
        let c = calibrate(&files, &ServerFlags::default()).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        let text = report::render(&c);
        assert!(text.contains("mean E2E derived"), "{text}");
        assert_eq!(c.inputs.len(), 2);
        assert!(c
            .inputs
            .iter()
            .all(|i| i.check.is_some() && i.rate.is_some()));
        fixed.push(c.fit.theta()[goodput_calibrate::fit::FIXED]);
    }
    assert!(fixed[0] > 0.0 && fixed[0] < fixed[1], "{fixed:?}");
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn an_append_result_file_reads_as_its_runs() {
    let (one, four) = (vllm_085(1, GPUS[0]), vllm_085(4, GPUS[0]));
    let appended = InputFile {
        name: "appended.json".to_owned(),
        text: format!("{}\n{}\n", one.text, four.text),
    };
    let inputs = parse_all(&appended).unwrap();
    assert_eq!(inputs.len(), 2);
    assert_eq!(inputs[1].name, "appended.json (run 2 of 2, line 2)");
    let c = calibrate(&[appended], &ServerFlags::default()).unwrap();
    assert_eq!(c.inputs.len(), 2);
    assert!(parse(&InputFile {
        name: "x".to_owned(),
        text: format!("{}\n{}", one.text, four.text)
    })
    .is_err_and(|e| e.contains("holds 2 runs")));
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn python_infinity_and_an_inf_rate_are_read() {
    let file = vllm_085(4, GPUS[0]);
    let file = edited(&file, "\"burstiness\": 1.0", "\"burstiness\": Infinity");
    let file = edited(&file, "\"request_rate\": 4.0", "\"request_rate\": \"inf\"");
    let b = bench(&file);
    assert_eq!(b.burstiness, Some(f64::INFINITY));
    assert_eq!(b.request_rate, None);
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn a_max_concurrency_run_is_a_closed_loop_and_is_checked_as_one() {
    let file = vllm_085(4, GPUS[0]);
    let file = edited(&file, "\"request_rate\": 4.0", "\"request_rate\": \"inf\"");
    let file = edited(&file, "\"max_concurrency\": null", "\"max_concurrency\": 4");
    // vLLM 0.9.2 fixed the key's spelling: either is read.
    let file = edited(&file, "\"request_goodput:\"", "\"request_goodput\"");
    let b = bench(&file);
    assert_eq!(b.closed_loop_users(), Some(4));
    assert!(b.goodput.is_some());
    let c = calibrate(&[vllm_085(1, GPUS[0]), file], &ServerFlags::default()).unwrap();
    let closed = &c.inputs[1];
    assert!(closed.kind.contains("closed loop of 4"), "{}", closed.kind);
    // Its ring sits at the load it ran at: the arrivals kept pace with the completions.
    assert_eq!(closed.rate, Some(b.request_throughput));
    let check = closed.check.as_ref().expect("replayed as a closed loop");
    assert!(check.model.throughput > 0.0 && check.model.ttft_p50 > 0.0);
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn vllm_0_33s_latencies_give_the_e2e_without_save_detailed() {
    let file = vllm_085(1, GPUS[0]);
    let b = bench(&edited(
        &file,
        "\"request_throughput\"",
        "\"latencies\": [1.5, 0.0, 2.5], \"request_throughput\"",
    ));
    assert!(b.derived.is_empty(), "{:?}", b.derived);
    assert!(
        (b.e2el_mean - 2.0).abs() < 1e-12,
        "the failed request's 0 is left out"
    );
    let error = refused(&edited(
        &file,
        "\"request_throughput\"",
        "\"latencies\": [1.5, -1], \"request_throughput\"",
    ));
    assert!(error.contains("latencies[1]"), "{error}");
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn send_times_and_per_request_lists_make_a_result_a_trace() {
    // vLLM 0.15's `start_times` (perf_counter readings) with `--save-detailed`'s lists: two requests, one failed.
    let file = vllm_085(1, GPUS[0]);
    let lists = "\"input_lens\": [200, 300, 250], \"output_lens\": [3, 0, 2], \"ttfts\": [0.02, 0.0, 0.03], \
                 \"itls\": [[0.01, 0.011], [], [0.012]], \"start_times\": [5012.5, 5012.6, 5013.0], \
                 \"errors\": [\"\", \"timeout\", \"\"], \"request_throughput\"";
    let b = bench(&edited(&file, "\"request_throughput\"", lists));
    let lives = b.lives.as_ref().unwrap();
    assert_eq!(lives.len(), 2, "the failed request is left out");
    assert_eq!(lives[0].arrival, Some(0.0));
    assert!((lives[1].arrival.unwrap() - 0.5).abs() < 1e-9);
    assert!((lives[0].e2e.unwrap() - 0.041).abs() < 1e-9);
    assert!(b.is_timed());
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn the_guidellm_sweep_reads_as_its_five_benchmarks() {
    let file = fixture("guidellm/codellama-34b-sweep-benchmarks.json");
    let inputs = parse_all(&file).unwrap();
    let benches: Vec<&BenchResult> = inputs
        .iter()
        .map(|i| match &i.parsed {
            Parsed::Bench(b) => b,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(benches.len(), 5);
    assert_eq!(benches[0].closed_loop_users(), Some(1), "synchronous");
    assert_eq!(benches[1].closed_loop_users(), Some(512), "throughput");
    let rates: Vec<f64> = benches[2..].iter().filter_map(|b| b.request_rate).collect();
    assert_eq!(rates.len(), 3);
    assert!((rates[0] - 1.952).abs() < 1e-3 && rates[0] < rates[1] && rates[1] < rates[2]);
    assert!(benches[2..]
        .iter()
        .all(|b| b.burstiness == Some(f64::INFINITY)));
    let completed: Vec<u64> = benches.iter().map(|b| b.completed).collect();
    assert_eq!(completed, [40, 39, 40, 40, 38]);
    for b in &benches {
        assert!(
            b.is_timed(),
            "every successful request kept, with its times"
        );
        assert!(b.derived.is_empty());
        // GuideLLM's inter-token latency is vLLM's TPOT; its prompts are about 3 000 tokens, outputs about 32.
        assert!(b.tpot_mean > 0.005 && b.tpot_mean < 0.5, "{}", b.tpot_mean);
        assert!((2000.0..4000.0).contains(&b.mean_prompt) && (20.0..45.0).contains(&b.mean_output));
    }
    assert!(
        inputs[0].name.contains("benchmark 1: synchronous"),
        "{}",
        inputs[0].name
    );
    let light = InputFile {
        name: file.name.clone(),
        text: file.text.clone(),
    };
    let c = calibrate(&[light], &flags_4096()).unwrap();
    assert_eq!(c.inputs.len(), 5);
    assert!(
        c.inputs[0].kind.contains("closed loop of 1"),
        "{}",
        c.inputs[0].kind
    );
    assert!(c.inputs.iter().all(|i| i.check.is_some()));
}

/// The CodeLlama-34B server's flags, from its log.
fn flags_4096() -> ServerFlags {
    ServerFlags {
        max_num_seqs: Some(256),
        max_num_batched_tokens: Some(4096),
        chunked_prefill: Some(true),
        kv_cache_tokens: Some(40_592),
        ..ServerFlags::default()
    }
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn vllms_opentelemetry_spans_read_as_a_timed_trace() {
    let file = fixture("vllm-otel/codellama-34b-prefill-spans.jsonl");
    let Ok(Parsed::Trace(lives)) = parse(&file) else {
        panic!("{:?}", parse(&file));
    };
    // One span a request: the file at the listed commit holds 200, in 50 OTLP documents.
    assert_eq!(lives.len(), 200);
    assert_eq!(lives[0].arrival, Some(0.0));
    assert!(lives.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    assert!(lives
        .iter()
        .all(|l| l.ttft.is_some_and(|t| t > 0.0) && l.e2e >= l.ttft));
    let c = calibrate(&[file], &flags_4096()).unwrap();
    assert_eq!(c.inputs[0].kind, "request trace with token times");
}

#[test]
fn the_codellama_trace_is_read_with_its_token_times() {
    let file = fixture("vllm-otel/codellama-34b-sweep.csv");
    let Ok(Parsed::Trace(lives)) = parse(&file) else {
        panic!("{:?}", parse(&file));
    };
    assert_eq!(lives.len(), 280);
    assert!((lives[0].ttft.unwrap() - 0.32072901725769043).abs() < 1e-12);
    assert!((lives[0].e2e.unwrap() - 26.96768808364868).abs() < 1e-12);
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn bad_values_are_refused_in_one_line_naming_the_file_and_the_key() {
    let file = vllm_085(1, GPUS[0]);
    let p99 = "\"p99_ttft_ms\": 27.426799918757748";
    for bad in ["-5", "\"NaN\"", "NaN", "Infinity"] {
        let error = refused(&edited(&file, p99, &format!("\"p99_ttft_ms\": {bad}")));
        assert!(error.contains("\"p99_ttft_ms\""), "{error}");
        assert!(
            !error.contains("arrival_s"),
            "not mistaken for a trace: {error}"
        );
    }
    let error = refused(&edited(
        &file,
        "\"mean_tpot_ms\": 10.636030180988111",
        "\"mean_tpot_ms\": 0",
    ));
    assert!(error.contains("\"mean_tpot_ms\" is 0"), "{error}");
    let error = refused(&edited(
        &file,
        "\"request_rate\": 1.0",
        "\"request_rate\": -1",
    ));
    assert!(error.contains("\"request_rate\""), "{error}");
    let error = refused(&edited(
        &file,
        "\"completed\": 200",
        "\"completed\": \"many\"",
    ));
    assert!(error.contains("\"completed\""), "{error}");
    // Run with --percentile-metrics e2el and no lists: no TTFT to fit.
    let no_ttft = edited(&file, "\"mean_ttft_ms\"", "\"mean_other_ms\"");
    let error = refused(&edited(
        &no_ttft,
        "\"median_ttft_ms\"",
        "\"median_other_ms\"",
    ));
    assert!(
        error.contains("shows no TTFT") && error.contains("--percentile-metrics"),
        "{error}"
    );
}

#[test]
#[ignore = "needs the public files of tests/fixtures/PUBLIC-DATA.md in ../shared/data/"]
fn an_unknown_or_broken_file_is_refused_in_one_line_saying_what_is_missing() {
    let file = vllm_085(1, GPUS[0]);
    let cut = InputFile {
        name: "cut.json".to_owned(),
        text: file.text[..file.text.len() / 2].to_owned(),
    };
    assert!(refused(&cut).contains("not valid JSON"));
    let other = InputFile {
        name: "config.json".to_owned(),
        text: "{\"model\": \"meta-llama/Meta-Llama-3-8B-Instruct\", \"dtype\": \"float16\"}"
            .to_owned(),
    };
    let error = refused(&other);
    assert!(
        error.contains("request_throughput") && error.contains("benchmarks"),
        "{error}"
    );
    let text = InputFile {
        name: "notes.txt".to_owned(),
        text: "Llama-3-8B on the H100: 10.6 ms a token\n".to_owned(),
    };
    assert!(refused(&text).contains("GuideLLM"));
    let guidellm = fixture("guidellm/codellama-34b-sweep-benchmarks.json");
    let broken = edited(&guidellm, "\"request_totals\": {\"successful\": 40, \"errored\": 0, \"incomplete\": 0, \"total\": 40}, \"requests_per_second\": {\"successful\": {\"mean\": 1.0072282782449435", "\"requests_per_second\": {\"successful\": {\"mean\": 1.0072282782449435");
    assert!(refused(&broken).contains("request_totals"));
}

mod mutated {
    use super::*;
    use proptest::prelude::*;

    /// Small real files of every format (the spans cut to their first two documents).
    fn seeds() -> Vec<InputFile> {
        let mut trace = fixture("vllm-otel/codellama-34b-sweep.csv");
        trace.text = trace.text.lines().take(30).collect::<Vec<_>>().join("\n");
        let mut seeds = vec![
            trace,
            fixture("your-server/light-0.3rps.json"),
            fixture("your-server/light-0.8rps.json"),
        ];
        // The public files, when they are beside this clone (see `fixture`).
        let public = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/vllm-bench-0.8.5");
        if public.exists() {
            seeds.push(vllm_085(1, GPUS[0]));
            seeds.push(vllm_085(32, GPUS[1]));
        }
        seeds
    }

    /// Pieces a hand edit or a broken tool leaves behind.
    const PIECES: [&str; 12] = [
        "NaN",
        "-Infinity",
        "Infinity",
        "\"",
        "}",
        "{",
        ",",
        "-",
        "null",
        "1e999",
        "\n",
        "\"inf\"",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        /// Whatever a real file is edited into, calibrate answers without a panic: a fit, or one line naming the file
        /// (or, for a file read well that fits no step time, the inputs).
        #[test]
        fn an_edited_real_file_is_fitted_or_refused_in_one_line(
            which in 0usize..8,
            at in 0.0f64..1.0,
            cut in 0usize..40,
            piece in 0usize..PIECES.len(),
        ) {
            let mut seeds = seeds();
            let mut file = seeds.swap_remove(which % seeds.len());
            let mut i = (at * file.text.len() as f64) as usize;
            while !file.text.is_char_boundary(i) {
                i -= 1;
            }
            let mut end = (i + cut).min(file.text.len());
            while !file.text.is_char_boundary(end) {
                end -= 1;
            }
            file.text.replace_range(i..end, PIECES[piece]);
            if let Err(e) = calibrate(std::slice::from_ref(&file), &ServerFlags::default()) {
                prop_assert!(!e.to_string().contains('\n'), "{e}");
                // A file read but showing no step time is the fit's refusal, of the inputs together.
                let fault = match &e {
                    CalibrateError::Input { name, .. } | CalibrateError::Read { name, .. } => {
                        name == &file.name
                    }
                    CalibrateError::Undetermined(_)
                    | CalibrateError::Refused(_)
                    | CalibrateError::TooMuchWork(_)
                    | CalibrateError::TooMuchInput(_) => true,
                    CalibrateError::NoInput | CalibrateError::Flag { .. } => false,
                };
                prop_assert!(fault, "{e:?}");
            }
        }
    }
}
