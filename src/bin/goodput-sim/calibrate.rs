//! `goodput-sim calibrate`: the scenario fitted to a server's own measurements on standard output, the fit's report
//! on standard error.

use super::input::{display_name, read_text};
use super::scenario_args::whole;
use clap::{Args, ValueEnum};
use goodput::model::hardware::typed::{self, Side};
use goodput::model::hardware::Deployment;
use goodput_calibrate::{calibrate, inputs::InputFile, report, ServerFlags};

/// On or off.
#[derive(Clone, Copy, ValueEnum)]
pub enum Switch {
    /// Enabled.
    On,
    /// Disabled.
    Off,
}

/// The server's flags, which the measurements cannot show.
#[derive(Args)]
pub struct CalibrateArgs {
    /// The inputs, recognised by content: `vllm bench serve --save-result` JSON files (one a rate; with or without
    /// --save-detailed), GuideLLM's benchmarks.json, inference-perf's stage_N_lifecycle_metrics.json, vLLM's
    /// OpenTelemetry spans, request traces (JSON lines or CSV with arrival_s, prompt_tokens, output_tokens, and
    /// first_token_s, last_token_s for the latencies), or /metrics scrapes of one server in the order taken (each
    /// two in a row make a window). - reads standard input.
    #[arg(required = true)]
    files: Vec<String>,
    /// The server's --max-num-seqs (default: vLLM's, 256).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>)]
    max_num_seqs: Option<u32>,
    /// The server's --max-num-batched-tokens (default: vLLM's, 8192).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>)]
    max_num_batched_tokens: Option<u32>,
    /// Whether the server cuts prompts into chunks (default: on, as vLLM V1; off with --v0-engine on).
    #[arg(long, value_enum)]
    chunked_prefill: Option<Switch>,
    /// Whether the server runs vLLM's V0 engine (before vLLM 0.8, or VLLM_USE_V1=0), whose scheduler runs waiting
    /// prompts in steps of their own (default: off, V1).
    #[arg(long, value_enum)]
    v0_engine: Option<Switch>,
    /// KV-cache tokens per replica, from the server's start-up log ("GPU KV cache size: N tokens"); default: no
    /// limit.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>)]
    kv_cache_tokens: Option<u64>,
    /// Replicas behind the endpoint the measurements came from (default 1).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>)]
    replicas: Option<u32>,
    /// Seconds between two /metrics scrapes, 0.1 to a year (default: from the samples' timestamps, else the running
    /// gauge stands in for the concurrency).
    #[arg(long, allow_negative_numbers = true)]
    seconds: Option<f64>,
    /// The model served, by its Hugging Face id (e.g. meta-llama/Meta-Llama-3-8B-Instruct): with --gpu, the fit
    /// starts from the step time physics gives and adjusts it (default: a result file's model_id).
    #[arg(long)]
    model: Option<String>,
    /// The GPU, by name (e.g. H100-SXM, NVIDIA-H100-PCIe, A100-SXM4-80GB, RTX-4090) (default: a result file's
    /// gpu_name).
    #[arg(long)]
    gpu: Option<String>,
    /// GPUs one replica spans (default: a result file's gpu_count, else 1).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>)]
    tensor_parallel_size: Option<u32>,
    /// A model the table lacks ("other"), its config.json figures typed in: parameters=8.03e9 (or 8.03B),layers=32,
    /// hidden-size=4096,kv-heads=8 and attention-heads=32 or head-dim=128 (and active-parameters for a mixture of
    /// experts, weight-bytes and kv-bytes, 2 by default); --model then only names it.
    #[arg(long)]
    model_figures: Option<String>,
    /// A GPU the table lacks ("other"), its datasheet typed in: memory-gib=24,bandwidth-tb-s=1.01,bf16-tflops=165
    /// (dense), and fp8-tflops where it has FP8 tensor cores; --gpu then only names it.
    #[arg(long)]
    gpu_figures: Option<String>,
}

/// The model and GPU as typed figures ("other"), either beside a name of the tables (given, or a result file's
/// `model_id` or `gpu_name`); `None` when no figures are typed in. An error names the flag at fault.
fn typed_deployment(
    args: &CalibrateArgs,
    files: &[InputFile],
) -> Result<Option<Deployment>, String> {
    let named = goodput_calibrate::prior::named_in(files);
    let tensor_parallel = args.tensor_parallel_size.or(named.gpus).unwrap_or(1);
    typed::deployment(
        args.model.as_deref().or(named.model.as_deref()),
        args.model_figures.as_deref(),
        args.gpu.as_deref().or(named.gpu.as_deref()),
        args.gpu_figures.as_deref(),
        tensor_parallel,
    )
    .map_err(|(side, problem)| {
        let flag = match side {
            Side::Model if args.model_figures.is_some() => "--model-figures",
            Side::Model => "--model",
            Side::Gpu if args.gpu_figures.is_some() => "--gpu-figures",
            Side::Gpu => "--gpu",
        };
        format!("{flag}: {problem}")
    })
}

/// Reads the files, fits, prints the scenario and the report; an error is one line.
pub fn run(args: &CalibrateArgs) -> Result<(), String> {
    let size = |source: &str| std::fs::metadata(source).map_or(0.0, |m| m.len() as f64);
    // Too many files, or too many bytes by their sizes on disk, are refused before any is read.
    goodput_calibrate::inputs::check_sizes(args.files.iter().map(|s| (display_name(s), size(s))))?;
    let mut files: Vec<InputFile> = Vec::with_capacity(args.files.len());
    for source in &args.files {
        // Each file's size is checked against what was read before it, so the total is never read past its cap.
        // Checked again as read: standard input has no size on disk, and a file can grow.
        goodput_calibrate::inputs::check_sizes(
            files
                .iter()
                .map(|f| (f.name.as_str(), f.text.len() as f64))
                .chain([(display_name(source), size(source))]),
        )?;
        files.push(InputFile {
            name: display_name(source).to_owned(),
            text: read_text(
                source,
                goodput_calibrate::inputs::MAX_INPUT_BYTES,
                "a detailed result of 10 000 requests is a few MB",
            )?,
        });
    }
    let flags = ServerFlags {
        max_num_seqs: args.max_num_seqs,
        max_num_batched_tokens: args.max_num_batched_tokens,
        chunked_prefill: args.chunked_prefill.map(|s| matches!(s, Switch::On)),
        v0_engine: args.v0_engine.map(|s| matches!(s, Switch::On)),
        kv_cache_tokens: args.kv_cache_tokens,
        replicas: args.replicas,
        window_seconds: args.seconds,
        shared_prefix_tokens: None,
        model: args.model.clone(),
        gpu: args.gpu.clone(),
        tensor_parallel_size: args.tensor_parallel_size,
        deployment: typed_deployment(args, &files)?,
    };
    let calibration = calibrate(&files, &flags)
        .map_err(|e| e.to_string())?
        .with_uncertainty();
    // The report names the inputs by what they hold (a GuideLLM benchmark's strategy): escaped for the terminal.
    eprint!(
        "{}",
        goodput::printable::for_terminal(&report::render(&calibration))
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&calibration.scenario).expect("scenarios serialise")
    );
    Ok(())
}
