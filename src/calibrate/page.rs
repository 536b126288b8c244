//! The page's "Your server", without the page: what its worker does with the files a learner gives it and the flags
//! they type, and what it sends back. Pure, so it is tested natively; `src/bin/server-worker/` only carries the
//! messages.

use super::inputs::InputFile;
use super::{calibrate, handoff, prior, report, Calibration, ServerFlags};
use crate::model::hardware::{find_gpu, find_model, typed, Architecture, Deployment, Gpu};
use crate::model::your_server::YourServer;
use crate::model::{Scenario, ServiceKind};
pub use crate::server_files::pasted_files;
use crate::server_protocol::{FlagFields, HardwareFigures, OTHER};

/// A calibration as the page shows and keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibrated {
    /// The server in the form the lab reads back ([`handoff`]).
    pub handoff: String,
    /// The fit's report, as `goodput-sim calibrate` prints it.
    pub report: String,
    /// The scenario file to download, which `goodput-sim run --scenario` reads.
    pub scenario_json: String,
    /// The fit, for [`banded_for_page`] to work out how sure it is (`None` for a scenario file, taken as it is).
    pub fit: Option<Calibration>,
}

/// The server's flags from the page's fields, each empty when not given; an error names the field. The model, the GPU
/// and their figures are [`with_hardware`]'s.
pub fn flags_from_fields(fields: &FlagFields) -> Result<ServerFlags, String> {
    Ok(ServerFlags {
        max_num_seqs: field(&fields.max_num_seqs, "--max-num-seqs")?,
        max_num_batched_tokens: field(&fields.max_num_batched_tokens, "--max-num-batched-tokens")?,
        chunked_prefill: Some(fields.chunked_prefill),
        v0_engine: Some(fields.v0_engine),
        kv_cache_tokens: field(&fields.kv_cache_tokens, "KV cache tokens")?,
        replicas: field(&fields.replicas, "replicas")?,
        window_seconds: None,
        shared_prefix_tokens: None,
        model: None,
        gpu: None,
        tensor_parallel_size: None,
        deployment: None,
    })
}

/// A field holding a whole number of at least 1, `None` when blank; an error names the field.
fn field<T: std::str::FromStr + PartialOrd + From<u8>>(
    text: &str,
    name: &str,
) -> Result<Option<T>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<T>() {
        Ok(value) if value >= T::from(1) => Ok(Some(value)),
        _ => Err(format!(
            "{name}: {text:?} is not a whole number of at least 1"
        )),
    }
}

/// The page's words for the figures `typed` names: its fields' labels ([`HardwareFigures::NAMES`]). The form has one
/// field for the bytes of weights and cache, one for the peak at those bytes, and the head size but not the heads.
fn field_label(figure: &'static str) -> &'static str {
    let [parameters, layers, hidden_size, kv_heads, head_size, dtype_bytes, bandwidth, peak, memory] =
        HardwareFigures::NAMES;
    match figure {
        "parameters" => parameters,
        "layers" => layers,
        "hidden-size" => hidden_size,
        "kv-heads" => kv_heads,
        // The form takes the head size, which gives the heads (either gives the other).
        "head-dim" | "attention-heads" => head_size,
        "weight-bytes" | "kv-bytes" => dtype_bytes,
        "bandwidth-tb-s" => bandwidth,
        "bf16-tflops" | "fp8-tflops" => peak,
        "memory-gib" => memory,
        other => other,
    }
}

/// The architecture typed in for an "other" model, read by `typed` as the command line's `--model-figures` is: a
/// dense model, its attention heads the hidden size over the head size, weights and cache at the bytes typed.
fn typed_architecture(figures: &HardwareFigures) -> Result<Architecture, String> {
    // The field is in billions, which `typed` reads as a count written with a B.
    let billions = figures.parameters_billions.trim();
    let parameters = if billions.is_empty() {
        String::new()
    } else {
        format!("{billions}B")
    };
    typed::architecture_from([
        ("parameters", parameters.as_str()),
        ("layers", figures.layers.as_str()),
        ("hidden-size", figures.hidden_size.as_str()),
        ("kv-heads", figures.kv_heads.as_str()),
        ("head-dim", figures.head_size.as_str()),
        ("weight-bytes", figures.dtype_bytes.as_str()),
        ("kv-bytes", figures.dtype_bytes.as_str()),
    ])
    .map_err(|e| format!("Your model's figures: {}", e.describe(field_label)))
}

/// The datasheet typed in for an "other" GPU, read by `typed` as `--gpu-figures` is: its peak is the one at the
/// model's bytes per weight (FP8's where that is 1 or less).
fn typed_gpu(figures: &HardwareFigures, weight_bytes: f64) -> Result<Gpu, String> {
    let fp8 = if weight_bytes <= 1.0 {
        figures.peak_tflops.as_str()
    } else {
        ""
    };
    typed::gpu_from([
        ("memory-gib", figures.memory_gb.as_str()),
        ("bandwidth-tb-s", figures.bandwidth_tb_s.as_str()),
        ("bf16-tflops", figures.peak_tflops.as_str()),
        ("fp8-tflops", fp8),
    ])
    .map_err(|e| format!("Your GPU's figures: {}", e.describe(field_label)))
}

/// The name a list gives: its value, or, left at "as the files say", the files' name.
fn picked<'a>(value: &'a str, named: &'a Option<String>) -> Option<&'a str> {
    (!value.is_empty()).then_some(value).or(named.as_deref())
}

/// `flags` with the model and GPU the page's lists name, as `goodput-sim calibrate --model --gpu
/// --tensor-parallel-size` takes them, or, where either is "other", the figures typed in. A list left at "as the
/// files say" takes the files' `model_id` or `gpu_name`; an error names the field.
pub fn with_hardware(
    mut flags: ServerFlags,
    fields: &FlagFields,
    files: &[InputFile],
) -> Result<ServerFlags, String> {
    let tensor_parallel = field(&fields.tensor_parallel, "GPUs per replica")?;
    let (model, gpu) = (fields.model.trim(), fields.gpu.trim());
    flags.tensor_parallel_size = tensor_parallel;
    if model != OTHER && gpu != OTHER {
        flags.model = (!model.is_empty()).then(|| model.to_owned());
        flags.gpu = (!gpu.is_empty()).then(|| gpu.to_owned());
        return Ok(flags);
    }
    let named = prior::named_in(files);
    let (model_name, architecture) = if model == OTHER {
        ("the model typed in", typed_architecture(&fields.figures)?)
    } else {
        let known = picked(model, &named.model).and_then(find_model).ok_or(
            "Model: pick one of the list (the files name none of it), or \"other\" with its figures",
        )?;
        (known.name, known.architecture())
    };
    let (gpu_name, datasheet) = if gpu == OTHER {
        (
            "the GPU typed in",
            typed_gpu(&fields.figures, architecture.weight_bytes)?,
        )
    } else {
        let known = picked(gpu, &named.gpu).and_then(find_gpu).ok_or(
            "GPU: pick one of the list (the files name none of it), or \"other\" with its figures",
        )?;
        (known.name, known.gpu)
    };
    let tensor_parallel = tensor_parallel.or(named.gpus).unwrap_or(1);
    flags.deployment = Some(Deployment::new(
        model_name,
        architecture,
        gpu_name,
        datasheet,
        tensor_parallel,
    )?);
    Ok(flags)
}

/// Calibrates from `files` as `goodput-sim calibrate` does, or takes a scenario file (its output, given alone) as it
/// is; an error is one line naming the file and what is missing.
pub fn calibrate_for_page(files: &[InputFile], flags: &ServerFlags) -> Result<Calibrated, String> {
    let scenario_file = files.iter().find_map(|file| {
        serde_json::from_str::<Scenario>(&file.text)
            .ok()
            .map(|s| (file, s))
    });
    let (server, report, fit) = match scenario_file {
        Some((file, scenario)) => {
            if files.len() > 1 {
                return Err(format!(
                    "{}: a scenario file is taken as it is, so give it alone",
                    file.name
                ));
            }
            if !matches!(scenario.service, ServiceKind::Llm(_)) {
                return Err(format!(
                    "{}: a textbook queue, not an LLM server (the lab has its own textbook preset)",
                    file.name
                ));
            }
            scenario
                .validate()
                .map_err(|e| format!("{}: {e}", file.name))?;
            let report = format!(
                "Read {} as a scenario file: nothing to fit, so the lab runs it as it is.\n",
                file.name
            );
            (
                YourServer {
                    capacity_ratio: crate::model::your_server::capacity_ratio(&scenario),
                    band: None,
                    scenario,
                    measured: Vec::new(),
                },
                report,
                None,
            )
        }
        None => {
            let calibration = calibrate(files, flags).map_err(|e| e.to_string())?;
            (
                calibration.your_server(),
                report::render(&calibration),
                Some(calibration),
            )
        }
    };
    Ok(Calibrated {
        handoff: handoff::encode(&server).expect("only LLM fleets reach here"),
        report,
        scenario_json: serde_json::to_string_pretty(&server.scenario).expect("scenarios serialise"),
        fit,
    })
}

/// The server of `fit` again with its band ([`Calibration::with_band`]: the capacity, the knee and the TTFT curves as
/// ranges, some hundred simulated benchmarks) and the report with its ranges: what the worker sends once the lab
/// already runs the server. `None` when the fit left no residual to measure its uncertainty by.
pub fn banded_for_page(fit: Calibration) -> Option<Calibrated> {
    let (fit, server) = fit.with_band();
    server.band.as_ref()?;
    Some(Calibrated {
        handoff: handoff::encode(&server)?,
        report: report::render(&fit),
        scenario_json: serde_json::to_string_pretty(&server.scenario).ok()?,
        fit: None,
    })
}
