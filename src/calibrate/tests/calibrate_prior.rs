//! The fit adjusts the step time physics gives rather than replacing it: on real `vllm bench serve` results of
//! Llama-3-8B on an H100 PCIe (vLLM 0.8.5, `../shared/data/vllm-bench-0.8.5/`, source in
//! `tests/fixtures/PUBLIC-DATA.md`), whose `model_id` and `gpu_name` name the prior, light load measures the decode
//! step and the front end, and leaves the prefill's compute (one prompt length) and the KV read's growth to physics;
//! a fit that cannot repeat its own inputs says so and widens its ranges.

use goodput_calibrate::fit::{FIXED, FRONTEND, PER_CONTEXT_TOKEN, PER_TOKEN};
use goodput_calibrate::inputs::InputFile;
use goodput_calibrate::{calibrate, report, CalibrateError, ServerFlags};
use goodput_model::hardware::{typed, Deployment};
use goodput_model::ServiceKind;

fn data(path: &str) -> Option<InputFile> {
    let full = format!("{}/../../../shared/data/{path}", env!("CARGO_MANIFEST_DIR"));
    match std::fs::read_to_string(&full) {
        Ok(text) => Some(InputFile {
            name: path.rsplit('/').next().unwrap().to_owned(),
            text,
        }),
        Err(_) => {
            eprintln!("left out, not here: {full} (tests/fixtures/PUBLIC-DATA.md)");
            None
        }
    }
}

fn h100(rate: u32) -> Option<InputFile> {
    data(&format!(
        "vllm-bench-0.8.5/vllm_200prompts{rate}qps_Meta-Llama-3-8B-Instruct_sharegpt_1xNVIDIA-H100-PCIe.json"
    ))
}

#[test]
fn the_result_files_name_the_prior_and_light_load_moves_only_what_it_measures() {
    let (Some(light), Some(four)) = (h100(1), h100(4)) else {
        return;
    };
    let calibration = calibrate(&[light, four], &ServerFlags::default()).unwrap();
    let text = report::render(&calibration);
    println!("{text}");
    let prior = calibration
        .prior
        .as_ref()
        .expect("a prior from the files' names");
    assert_eq!(prior.deployment.describe(), "Llama 3 8B on 1 × H100 PCIe");
    let c = &calibration.fit.coefficients;
    // Measured: the decode step and the front end.
    assert!(c[FIXED].measured() && c[FRONTEND].measured(), "{c:?}");
    // Not measurable with one prompt length and batches of a few: the compute cost and the KV read stay physics'.
    assert!(
        !c[PER_TOKEN].measured() && !c[PER_CONTEXT_TOKEN].measured(),
        "{c:?}"
    );
    let physics = prior.anchor.value[PER_TOKEN];
    assert!((c[PER_TOKEN].value / physics - 1.0).abs() < 0.1, "{c:?}");
    // The front end is a few milliseconds, not 0 and not the whole TTFT (the fit without physics put it at 0 and
    // charged 75 µs a prompt token, 2.3 times what the H100 computes, to the prefill).
    assert!((0.002..0.01).contains(&c[FRONTEND].value), "{c:?}");
    assert!(
        text.contains("PRIOR (physics") && text.contains("FIT (") && text.contains("physics: ")
    );
    assert!(
        calibration.unreproduced.is_empty(),
        "{:?}",
        calibration.unreproduced
    );
    assert!(
        text.contains("every figure within the tolerances"),
        "{text}"
    );
}

#[test]
fn a_model_or_gpu_flag_the_tables_lack_is_refused_naming_the_flag() {
    let Some(light) = h100(1) else { return };
    let cases = [
        (Some("meta-llama/Llama-9-1T"), None, "--model"),
        (None, Some("NVIDIA B999"), "--gpu"),
    ];
    for (model, gpu, flag) in cases {
        let flags = ServerFlags {
            model: model.map(str::to_owned),
            gpu: gpu.map(str::to_owned),
            ..ServerFlags::default()
        };
        match calibrate(std::slice::from_ref(&light), &flags) {
            Err(e @ CalibrateError::Flag { .. }) => {
                let message = e.to_string();
                assert!(
                    message.contains(flag) && message.contains("not in the table"),
                    "{message}"
                );
            }
            other => panic!("{flag}: {other:?}"),
        }
    }
    // Named by flags, the prior follows them over the file's names.
    let flags = ServerFlags {
        gpu: Some("H100 SXM".to_owned()),
        tensor_parallel_size: Some(2),
        ..ServerFlags::default()
    };
    let calibration = calibrate(&[light], &flags).unwrap();
    let prior = calibration.prior.unwrap();
    assert_eq!(prior.deployment.describe(), "Llama 3 8B on 2 × H100 SXM");
    assert!(
        prior.named_by.contains("GPU H100 SXM (given)"),
        "{}",
        prior.named_by
    );
}

#[test]
fn without_names_there_is_no_prior_and_the_report_says_what_to_give() {
    let trace = "{\"arrival_s\": 0, \"prompt_tokens\": 100, \"output_tokens\": 20, \"first_token_s\": 0.05, \"last_token_s\": 0.25}\n\
                 {\"arrival_s\": 2, \"prompt_tokens\": 300, \"output_tokens\": 30, \"first_token_s\": 2.07, \"last_token_s\": 2.36}\n\
                 {\"arrival_s\": 4, \"prompt_tokens\": 600, \"output_tokens\": 10, \"first_token_s\": 4.1, \"last_token_s\": 4.19}\n";
    let file = InputFile {
        name: "trace.jsonl".to_owned(),
        text: trace.to_owned(),
    };
    let calibration = calibrate(&[file], &ServerFlags::default()).unwrap();
    assert!(calibration.prior.is_none());
    let text = report::render(&calibration);
    assert!(
        text.contains("no prior from physics: name the model and the GPU (--model, --gpu)"),
        "{text}"
    );
}

/// The 4 req/s result with its p99 TTFT set to 2.5 s, as a server with a stall in it would report (the rest of the
/// file as measured): no step time repeats both files, and the calibration must say so rather than give the same
/// confident ranges.
#[test]
fn a_fit_that_cannot_repeat_its_inputs_says_so_and_widens_its_ranges() {
    let (Some(light), Some(four)) = (h100(1), h100(4)) else {
        return;
    };
    let honest = calibrate(&[light.clone(), four.clone()], &ServerFlags::default())
        .unwrap()
        .with_uncertainty();
    let mut result: serde_json::Value = serde_json::from_str(&four.text).unwrap();
    result["p99_ttft_ms"] = serde_json::json!(2500.0);
    let stalled = InputFile {
        name: "stalled-4qps.json".to_owned(),
        text: result.to_string(),
    };
    let calibration = calibrate(&[light, stalled], &ServerFlags::default())
        .unwrap()
        .with_uncertainty();
    let text = report::render(&calibration);
    println!("{text}");
    assert!(
        calibration
            .unreproduced
            .iter()
            .any(|m| m.starts_with("stalled-4qps.json: TTFT p99 -9")),
        "{:?}",
        calibration.unreproduced
    );
    assert!(
        text.contains("THE FIT DOES NOT REPRODUCE ITS OWN INPUTS"),
        "{text}"
    );
    assert!(text.contains("no knee should be planned on"), "{text}");
    let spread = |c: &goodput_calibrate::Calibration| {
        let u = c.uncertainty.as_ref().expect("ranges");
        (u.capacity.high - u.capacity.low) / u.capacity.central
    };
    assert!(
        spread(&calibration) > 1.5 * spread(&honest),
        "{} vs {}",
        spread(&calibration),
        spread(&honest)
    );
}

/// "Other": figures typed in give what the tables give for the same model and GPU.
#[test]
fn typed_figures_give_the_tables_architecture_and_datasheet() {
    // Llama 3 8B's config.json and the RTX 4090's datasheet, typed in.
    let other = typed::deployment(
        None,
        Some("parameters=8.03e9, layers=32, hidden-size=4096, attention-heads=32, kv-heads=8"),
        Some("GeForce RTX 4090"),
        None,
        1,
    )
    .unwrap()
    .unwrap();
    let known = Deployment::known("meta-llama/Meta-Llama-3-8B", "RTX 4090", 1).unwrap();
    let (t, k) = (other.roofline().iteration(), known.roofline().iteration());
    assert!((t.fixed / k.fixed - 1.0).abs() < 0.01, "{t:?} {k:?}");
    assert_eq!(t.per_context_token, k.per_context_token);
    assert_eq!(other.model, "other model");
    // The heads or the head size, the count or billions: the same model.
    let by_heads = typed::architecture(
        "parameters=8.03e9,layers=32,hidden-size=4096,attention-heads=32,kv-heads=8",
    )
    .unwrap();
    let by_head_size =
        typed::architecture("parameters=8.03B,layers=32,hidden-size=4096,head-dim=128,kv-heads=8")
            .unwrap();
    assert_eq!(by_heads, by_head_size);
    assert_eq!(by_heads, other.architecture);
    let gpu =
        typed::gpu("memory_gib=80,bandwidth-tb-s=3.35,bf16-tflops=989,fp8-tflops=1979").unwrap();
    assert_eq!(gpu.bandwidth, 3.35e12);
    assert_eq!(gpu.fp8_flops, Some(1.979e15));
}

/// A figure list refused is one line naming the figure.
#[test]
fn a_figure_list_refused_names_the_figure() {
    for (text, needle) in [
        ("parameters=8e9,layers=32", "hidden-size missing"),
        (
            "parameters=8e9,layers=32.5,hidden-size=4096,attention-heads=32,kv-heads=8",
            "whole number",
        ),
        (
            "parameters=8e9,layers=32,hidden-size=4096,attention-heads=32,kv-heads=8,experts=8",
            "unknown figure",
        ),
        (
            "parameters=-1,layers=32,hidden-size=4096,attention-heads=32,kv-heads=8",
            "above 0",
        ),
        ("parameters", "not name=value"),
        ("parameters=1,parameters=2", "given twice"),
    ] {
        let e = typed::architecture(text).unwrap_err().to_string();
        assert!(e.contains(needle) && !e.contains('\n'), "{text}: {e}");
    }
    let headless = "parameters=8e9,layers=32,hidden-size=4096,kv-heads=8";
    assert_eq!(
        typed::architecture(headless).unwrap_err(),
        typed::FigureError::MissingEither("attention-heads", "head-dim")
    );
    let e = typed::gpu("memory-gib=80,bf16-tflops=989")
        .unwrap_err()
        .to_string();
    assert!(e.contains("bandwidth-tb-s missing"), "{e}");
    let (side, e) = typed::deployment(
        Some("acme/unknown-9b"),
        None,
        None,
        Some("memory-gib=80,bandwidth-tb-s=3,bf16-tflops=900"),
        1,
    )
    .unwrap_err();
    assert_eq!(side, typed::Side::Model);
    assert!(
        e.contains("not in the table (meta-llama/Meta-Llama-3-8B,"),
        "{e}"
    );
}

/// The batch limits not given are vLLM's for the GPU the files name (`_set_default_args_v1`): an 80 GB H100 gets
/// 8192 tokens and 1024 sequences, a 24 GB RTX 4090 2048 and 256; given flags stay as given.
#[test]
fn the_batch_limits_not_given_are_vllms_for_the_named_gpu() {
    let file = |gpu: &str| {
        data(&format!(
            "vllm-bench-0.8.5/vllm_200prompts1qps_Meta-Llama-3-8B-Instruct_sharegpt_1x{gpu}.json"
        ))
    };
    let (Some(h100), Some(rtx)) = (file("NVIDIA-H100-PCIe"), file("NVIDIA-GeForce-RTX-4090"))
    else {
        return;
    };
    let limits = |files: &[InputFile], flags: &ServerFlags| {
        let calibration = calibrate(files, flags).unwrap();
        let ServiceKind::Llm(fleet) = &calibration.scenario.service else {
            panic!("an LLM fleet");
        };
        let text = report::render(&calibration);
        (fleet.max_num_batched_tokens, fleet.max_num_seqs, text)
    };
    let (tokens, seqs, text) = limits(std::slice::from_ref(&h100), &ServerFlags::default());
    assert_eq!((tokens, seqs), (8192, 1024));
    assert!(
        text.contains("max_num_batched_tokens 8192 (assumed, vLLM's default on a GPU of 70 GiB or more, the H100 PCIe"),
        "{text}"
    );
    let (tokens, seqs, text) = limits(std::slice::from_ref(&rtx), &ServerFlags::default());
    assert_eq!((tokens, seqs), (2048, 256));
    assert!(
        text.contains("max_num_seqs 256 (assumed, vLLM's default on a GPU of less than 70 GiB, the GeForce RTX 4090"),
        "{text}"
    );
    let given = ServerFlags {
        max_num_batched_tokens: Some(4096),
        ..ServerFlags::default()
    };
    let (tokens, seqs, _) = limits(std::slice::from_ref(&rtx), &given);
    assert_eq!((tokens, seqs), (4096, 256));
    // An A100 keeps the small budget since vLLM 0.9, whatever its memory.
    assert_eq!(
        goodput_calibrate::vllm_batch_defaults("A100 SXM 80 GB", 80.0).0,
        2048
    );
}
