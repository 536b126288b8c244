//! "Your server"'s model and GPU, without the page: the lists and the figures typed in become what
//! `goodput-sim calibrate --model --gpu --tensor-parallel-size` takes (or an "other" deployment), a list left at
//! "as the files say" takes the result files' `model_id` and `gpu_name`, and the calibration adjusts that prior.
//! The real files are `vllm bench serve` results of Llama-3-8B on an RTX 4090 (vLLM 0.8.5,
//! `../shared/data/vllm-bench-0.8.5/`, source in `tests/fixtures/PUBLIC-DATA.md`).

use goodput::model::hardware::{find_gpu, find_model, gpus, models, typed, Deployment};
use goodput::server_protocol::{FlagFields, HardwareFigures, OTHER};
use goodput_calibrate::fit::PER_TOKEN;
use goodput_calibrate::inputs::InputFile;
use goodput_calibrate::page::{calibrate_for_page, with_hardware};
use goodput_calibrate::ServerFlags;

fn rtx_4090(rate: u32) -> Option<InputFile> {
    let name = format!(
        "vllm_200prompts{rate}qps_Meta-Llama-3-8B-Instruct_sharegpt_1xNVIDIA-GeForce-RTX-4090.json"
    );
    let path = format!(
        "{}/../shared/data/vllm-bench-0.8.5/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(InputFile { name, text }),
        Err(_) => {
            eprintln!("left out, not here: {path} (tests/fixtures/PUBLIC-DATA.md)");
            None
        }
    }
}

/// Llama 3 8B's `config.json` figures, typed in as a learner would.
fn llama_3_8b_typed() -> HardwareFigures {
    HardwareFigures {
        parameters_billions: "8.03".to_owned(),
        layers: "32".to_owned(),
        hidden_size: "4096".to_owned(),
        kv_heads: "8".to_owned(),
        head_size: "128".to_owned(),
        dtype_bytes: "2".to_owned(),
        ..HardwareFigures::default()
    }
}

/// The RTX 4090's datasheet, typed in.
fn rtx_4090_typed() -> HardwareFigures {
    HardwareFigures {
        bandwidth_tb_s: "1.008".to_owned(),
        peak_tflops: "165.2".to_owned(),
        memory_gb: "24".to_owned(),
        ..HardwareFigures::default()
    }
}

fn fields(model: &str, gpu: &str, tensor_parallel: &str, figures: HardwareFigures) -> FlagFields {
    FlagFields {
        model: model.to_owned(),
        gpu: gpu.to_owned(),
        tensor_parallel: tensor_parallel.to_owned(),
        figures: Box::new(figures),
        ..FlagFields::default()
    }
}

#[test]
fn the_lists_picked_become_the_clis_model_gpu_and_tensor_parallel_flags() {
    let picked = with_hardware(
        ServerFlags::default(),
        &fields(
            "meta-llama/Meta-Llama-3-8B",
            "GeForce RTX 4090",
            " 2 ",
            HardwareFigures::default(),
        ),
        &[],
    )
    .unwrap();
    assert_eq!(picked.model.as_deref(), Some("meta-llama/Meta-Llama-3-8B"));
    assert_eq!(picked.gpu.as_deref(), Some("GeForce RTX 4090"));
    assert_eq!(picked.tensor_parallel_size, Some(2));
    assert_eq!(picked.deployment, None);
    let blank = with_hardware(ServerFlags::default(), &FlagFields::default(), &[]).unwrap();
    assert_eq!(
        blank,
        ServerFlags::default(),
        "blank lists leave the files' names to the calibration"
    );
}

#[test]
fn the_page_finds_the_option_a_files_names_give_by_the_tables_own_keys() {
    // The page matches `model_id` and `gpu_name` to its lists by these keys (build.rs writes each option's), so
    // every name the tables find has the key of the entry they find.
    for (name, id) in [
        (
            "meta-llama/Meta-Llama-3-8B-Instruct",
            "meta-llama/Meta-Llama-3-8B",
        ),
        (
            "/models/meta-llama/Llama-2-7b-hf",
            "meta-llama/Llama-2-7b-hf",
        ),
    ] {
        let found = find_model(name).unwrap();
        assert_eq!(found.id, id);
        assert!(found
            .names()
            .any(|alias| models::match_key(alias) == models::match_key(name)));
    }
    for name in ["NVIDIA-GeForce-RTX-4090", "NVIDIA H100 PCIe"] {
        let found = find_gpu(name).unwrap();
        assert!(found
            .names()
            .any(|alias| gpus::match_key(alias) == gpus::match_key(name)));
    }
    // Keys go into a CSS selector unquoted: letters and digits only.
    let all_keys = models::KNOWN_MODELS
        .iter()
        .flat_map(|m| m.names().map(models::match_key))
        .chain(
            gpus::KNOWN_GPUS
                .iter()
                .flat_map(|g| g.names().map(gpus::match_key)),
        );
    for key in all_keys {
        assert!(
            !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric()),
            "{key:?}"
        );
    }
}

#[test]
fn a_model_typed_in_on_a_gpu_of_the_list_gives_the_step_time_of_the_tables_model() {
    let flags = with_hardware(
        ServerFlags::default(),
        &fields(OTHER, "H100 PCIe", "", llama_3_8b_typed()),
        &[],
    )
    .unwrap();
    let typed = flags.deployment.expect("an other model makes a deployment");
    assert_eq!(typed.describe(), "the model typed in on 1 × H100 PCIe");
    let known = Deployment::known("meta-llama/Meta-Llama-3-8B", "H100 PCIe", 1).unwrap();
    let (typed, known) = (typed.roofline().iteration(), known.roofline().iteration());
    // The table works the parameters out from config.json (8.03e9 published); the KV cache is the same.
    assert!(
        (typed.fixed / known.fixed - 1.0).abs() < 0.01,
        "{typed:?} {known:?}"
    );
    assert!((typed.per_context_token / known.per_context_token - 1.0).abs() < 1e-9);
}

#[test]
fn the_page_reads_its_figures_as_the_command_lines_model_and_gpu_figures() {
    // The same Llama 3 8B and the same FP8 GPU, typed in the form and as `--model-figures` / `--gpu-figures`.
    let mut fp8 = llama_3_8b_typed();
    fp8.dtype_bytes = "1".to_owned();
    let mut figures = rtx_4090_typed();
    figures.parameters_billions = fp8.parameters_billions;
    figures.layers = fp8.layers;
    figures.hidden_size = fp8.hidden_size;
    figures.kv_heads = fp8.kv_heads;
    figures.head_size = fp8.head_size;
    figures.dtype_bytes = fp8.dtype_bytes;
    let page = with_hardware(
        ServerFlags::default(),
        &fields(OTHER, OTHER, "", figures),
        &[],
    )
    .unwrap()
    .deployment
    .unwrap();
    let cli = typed::deployment(
        None,
        Some("parameters=8.03e9,layers=32,hidden-size=4096,kv-heads=8,attention-heads=32,weight-bytes=1,kv-bytes=1"),
        None,
        Some("memory-gib=24,bandwidth-tb-s=1.008,bf16-tflops=165.2,fp8-tflops=165.2"),
        1,
    )
    .unwrap()
    .unwrap();
    assert_eq!(page.architecture, cli.architecture);
    assert_eq!(page.gpu, cli.gpu);
}

#[test]
fn a_gpu_typed_in_runs_the_model_the_files_name() {
    let Some(light) = rtx_4090(1) else {
        return;
    };
    let flags = with_hardware(
        ServerFlags::default(),
        &fields("", OTHER, "", rtx_4090_typed()),
        &[light],
    )
    .unwrap();
    let typed = flags.deployment.unwrap();
    assert_eq!(typed.describe(), "Llama 3 8B on 1 × the GPU typed in");
    let known = Deployment::known("meta-llama/Meta-Llama-3-8B", "RTX 4090", 1).unwrap();
    let (typed, known) = (typed.roofline().iteration(), known.roofline().iteration());
    assert!(
        (typed.fixed / known.fixed - 1.0).abs() < 1e-9,
        "{typed:?} {known:?}"
    );
    let compute = |i: &goodput::model::IterationModel| i.compute.as_ref().map(|c| c.per_token);
    assert!((compute(&typed).unwrap() / compute(&known).unwrap() - 1.0).abs() < 1e-9);
}

#[test]
fn a_figure_missing_or_wrong_is_refused_in_one_line_naming_its_field() {
    let mut unlayered = llama_3_8b_typed();
    unlayered.layers = " ".to_owned();
    let mut slow = rtx_4090_typed();
    slow.bandwidth_tb_s = "fast".to_owned();
    let mut wide = llama_3_8b_typed();
    wide.kv_heads = "64".to_owned();
    let mut headless = llama_3_8b_typed();
    headless.head_size = String::new();
    for (given, expected) in [
        (
            fields(OTHER, "L4", "", unlayered),
            "Your model's figures: layers missing",
        ),
        (
            fields("meta-llama/Meta-Llama-3-8B", OTHER, "", slow),
            "Your GPU's figures: bandwidth (TB/s) must be a number above 0 (got \"fast\")",
        ),
        (
            fields("", OTHER, "", rtx_4090_typed()),
            "Model: pick one of the list",
        ),
        (
            fields(OTHER, "", "", llama_3_8b_typed()),
            "GPU: pick one of the list",
        ),
        (
            fields("", "", "0", HardwareFigures::default()),
            "GPUs per replica: \"0\" is not a whole number",
        ),
        (
            fields(OTHER, "L4", "", wide),
            "Your model's figures: KV heads (64) cannot outnumber attention heads (32)",
        ),
        (
            fields(OTHER, "L4", "", headless),
            "Your model's figures: head size missing",
        ),
        (
            fields(OTHER, "L4", "65", llama_3_8b_typed()),
            "the tensor-parallel size must be from 1 to 64",
        ),
    ] {
        let error = with_hardware(ServerFlags::default(), &given, &[]).unwrap_err();
        assert!(
            error.starts_with(expected),
            "{error:?}, wanted {expected:?}"
        );
        assert_eq!(error.lines().count(), 1);
    }
}

#[test]
fn two_rtx_4090_results_calibrate_around_the_gpu_picked() {
    let (Some(light), Some(four)) = (rtx_4090(1), rtx_4090(4)) else {
        return;
    };
    let files = [light, four];
    let per_token = |gpu: &str| {
        let picked = fields(
            "meta-llama/Meta-Llama-3-8B",
            gpu,
            "",
            HardwareFigures::default(),
        );
        let flags = with_hardware(ServerFlags::default(), &picked, &files).unwrap();
        let calibrated = calibrate_for_page(&files, &flags).unwrap();
        println!("{}", calibrated.report);
        assert!(calibrated.report.contains(&format!(
            "physics gives for Llama 3 8B on 1 × {gpu}: model Llama 3 8B (given), GPU {gpu} (given)"
        )));
        assert!(
            calibrated.report.contains("PRIOR (physics") && calibrated.report.contains("FIT (")
        );
        let fit = calibrated.fit.unwrap();
        let physics = fit.prior.as_ref().unwrap().anchor.value[PER_TOKEN];
        (physics, fit.fit.coefficients[PER_TOKEN].value)
    };
    // The H100's dense peak is 4.6 times the 4090's; the fit, which measures part of the prefill's compute from
    // the prompts' spread, moves with its prior.
    let (rtx, h100) = (per_token("GeForce RTX 4090"), per_token("H100 PCIe"));
    assert!((4.0..5.2).contains(&(rtx.0 / h100.0)), "{rtx:?} {h100:?}");
    assert!(h100.1 < rtx.1, "{rtx:?} {h100:?}");
}
