//! The page's "Your server", without the page: what its worker does with the files a learner gives it and the flags
//! they type, and what it sends back. Pure, so it is tested natively; `src/bin/server-worker.rs` only carries the
//! messages.

use super::inputs::InputFile;
use super::{calibrate, handoff, prior, report, Calibration, ServerFlags};
use crate::model::hardware::{find_gpu, find_model, Architecture, Deployment, Gpu};
use crate::model::your_server::YourServer;
use crate::model::{Scenario, ServiceKind};
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

/// The server's flags from the page's fields, each empty when not given; an error names the field.
pub fn flags_from_fields(
    max_num_seqs: &str,
    max_num_batched_tokens: &str,
    chunked_prefill: bool,
    kv_cache_tokens: &str,
    replicas: &str,
) -> Result<ServerFlags, String> {
    Ok(ServerFlags {
        max_num_seqs: field(max_num_seqs, "--max-num-seqs")?,
        max_num_batched_tokens: field(max_num_batched_tokens, "--max-num-batched-tokens")?,
        chunked_prefill: Some(chunked_prefill),
        kv_cache_tokens: field(kv_cache_tokens, "KV cache tokens")?,
        replicas: field(replicas, "replicas")?,
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

/// A figure of an "other" model or GPU: it must be given.
fn figure<T: std::str::FromStr + PartialOrd + From<u8>>(
    (name, text): (&str, &String),
    whose: &str,
) -> Result<T, String> {
    let name = format!("{whose} {name}");
    field(text, &name)?.ok_or_else(|| format!("{name}: give it (the {whose} is \"other\")"))
}

/// The architecture typed in for an "other" model: a dense model, its attention heads the hidden size over the head
/// size (0 when the head is wider than the model, which the architecture's check refuses), weights and cache at the dtype's bytes.
fn typed_architecture(figures: &HardwareFigures) -> Result<Architecture, String> {
    let [parameters, layers, hidden_size, kv_heads, head_size, dtype_bytes, ..] = figures.named();
    let (name, text) = parameters;
    let parameters = match text.trim().parse::<f64>() {
        Ok(billions) if billions.is_finite() && billions > 0.0 => billions * 1e9,
        _ => {
            return Err(format!(
                "model's {name}: {:?} is not a positive number",
                text.trim()
            ))
        }
    };
    let hidden_size: u32 = figure(hidden_size, "model's")?;
    let kv_heads: u32 = figure(kv_heads, "model's")?;
    let head_dim: u32 = figure(head_size, "model's")?;
    let bytes: u32 = figure(dtype_bytes, "model's")?;
    Ok(Architecture {
        parameters,
        active_parameters: parameters,
        layers: figure(layers, "model's")?,
        hidden_size,
        attention_heads: hidden_size / head_dim,
        kv_heads,
        head_dim,
        weight_bytes: f64::from(bytes),
        kv_bytes: bytes,
    })
}

/// The datasheet typed in for an "other" GPU: its peak is the one at the model's dtype.
fn typed_gpu(figures: &HardwareFigures, weight_bytes: f64) -> Result<Gpu, String> {
    let [.., bandwidth, peak, memory] = figures.named();
    let number = |(name, text): (&str, &String)| match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(format!(
            "GPU's {name}: {:?} is not a positive number",
            text.trim()
        )),
    };
    let peak = number(peak)? * 1e12;
    Ok(Gpu {
        memory_gib: number(memory)?,
        bandwidth: number(bandwidth)? * 1e12,
        bf16_flops: peak,
        fp8_flops: (weight_bytes <= 1.0).then_some(peak),
    })
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

/// Splits pasted text into the files it holds: several pasted together are separated by a line of `---`.
pub fn pasted_files(text: &str) -> Vec<InputFile> {
    let mut files: Vec<InputFile> = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, files: &mut Vec<InputFile>| {
        if !current.trim().is_empty() {
            files.push(InputFile {
                name: format!("pasted text {}", files.len() + 1),
                text: std::mem::take(current),
            });
        }
        current.clear();
    };
    for line in text.lines() {
        if line.trim() == "---" {
            flush(&mut current, &mut files);
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    flush(&mut current, &mut files);
    if let [only] = files.as_mut_slice() {
        only.name = "pasted text".to_owned();
    }
    files
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
