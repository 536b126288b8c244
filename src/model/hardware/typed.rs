//! "Other": a model or a GPU the tables lack, its figures typed in as `name=value` pairs separated by commas (the
//! command line's `--model-figures` and `--gpu-figures`), checked as the tables' own are. A figure list refused is
//! one line naming the figure and the ones it takes.

use super::{find_gpu, find_model, Architecture, Deployment, Gpu, KNOWN_GPUS, KNOWN_MODELS};

/// The figures a model's list takes, the first five required.
pub const MODEL_FIGURES: [&str; 9] = [
    "parameters",
    "layers",
    "hidden-size",
    "attention-heads",
    "kv-heads",
    "active-parameters",
    "head-dim",
    "weight-bytes",
    "kv-bytes",
];

/// The figures a GPU's list takes, the first three required.
pub const GPU_FIGURES: [&str; 4] = ["memory-gib", "bandwidth-tb-s", "bf16-tflops", "fp8-tflops"];

/// `text`'s `name=value` pairs as numbers, in the order of `known` (`None`: not given); an unknown or repeated
/// name, a value that is not a number, or a required figure missing (the first `required` of `known`) is refused.
fn figures<const N: usize>(
    text: &str,
    known: &[&str; N],
    required: usize,
) -> Result<[Option<f64>; N], String> {
    let mut out = [None; N];
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').ok_or_else(|| {
            format!(
                "\"{pair}\" is not name=value (figures: {})",
                known.join(", ")
            )
        })?;
        let name = name.trim().replace('_', "-").to_ascii_lowercase();
        let k = known
            .iter()
            .position(|&n| n == name)
            .ok_or_else(|| format!("unknown figure \"{name}\" (figures: {})", known.join(", ")))?;
        if out[k].is_some() {
            return Err(format!("{name} given twice"));
        }
        let number: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite() && *x > 0.0)
            .ok_or_else(|| format!("{name} must be a number above 0 (got \"{}\")", value.trim()))?;
        out[k] = Some(number);
    }
    if let Some(missing) = (0..required).find(|&k| out[k].is_none()) {
        return Err(format!(
            "{} missing (required: {})",
            known[missing],
            known[..required].join(", ")
        ));
    }
    Ok(out)
}

/// A whole number of a figure list.
fn whole(name: &str, value: f64) -> Result<u32, String> {
    if value.fract() == 0.0 && value <= f64::from(u32::MAX) {
        Ok(value as u32)
    } else {
        Err(format!("{name} must be a whole number (got {value})"))
    }
}

/// A model's architecture from its typed figures (`parameters=8.03e9,layers=32,hidden-size=4096,
/// attention-heads=32,kv-heads=8`; `active-parameters` defaults to `parameters`, `head-dim` to the hidden size over
/// the heads, `weight-bytes` and `kv-bytes` to 2).
pub fn architecture(text: &str) -> Result<Architecture, String> {
    let [parameters, layers, hidden, heads, kv_heads, active, head_dim, weight_bytes, kv_bytes] =
        figures(text, &MODEL_FIGURES, 5)?;
    let req = |x: Option<f64>| x.expect("required figures are checked");
    let (hidden, heads) = (
        whole("hidden-size", req(hidden))?,
        whole("attention-heads", req(heads))?,
    );
    let architecture = Architecture {
        parameters: req(parameters),
        active_parameters: active.unwrap_or(req(parameters)),
        layers: whole("layers", req(layers))?,
        hidden_size: hidden,
        attention_heads: heads,
        kv_heads: whole("kv-heads", req(kv_heads))?,
        head_dim: match head_dim {
            Some(d) => whole("head-dim", d)?,
            None => (hidden / heads).max(1),
        },
        weight_bytes: weight_bytes.unwrap_or(2.0),
        kv_bytes: whole("kv-bytes", kv_bytes.unwrap_or(2.0))?,
    };
    match architecture.problem() {
        Some(problem) => Err(problem),
        None => Ok(architecture),
    }
}

/// A GPU's datasheet from its typed figures (`memory-gib=24,bandwidth-tb-s=1.01,bf16-tflops=165`, and
/// `fp8-tflops` where it has FP8 tensor cores).
pub fn gpu(text: &str) -> Result<Gpu, String> {
    let [memory, bandwidth, bf16, fp8] = figures(text, &GPU_FIGURES, 3)?;
    let req = |x: Option<f64>| x.expect("required figures are checked");
    let gpu = Gpu {
        memory_gib: req(memory),
        bandwidth: req(bandwidth) * 1e12,
        bf16_flops: req(bf16) * 1e12,
        fp8_flops: fp8.map(|t| t * 1e12),
    };
    match gpu.problem() {
        Some(problem) => Err(problem),
        None => Ok(gpu),
    }
}

/// Which side of a deployment a problem is on, for the flag to blame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The model (`--model`, `--model-figures`).
    Model,
    /// The GPU (`--gpu`, `--gpu-figures`).
    Gpu,
}

/// A deployment of a model and a GPU each named from the tables or typed in ("other"), the typed figures taking
/// the place of the name (which is kept as the name, else "other model" or "other GPU"); `None` when neither is
/// typed in (the names alone are [`Deployment::known`]'s). An error names the side at fault and, for a name the
/// table lacks, lists the table's names.
pub fn deployment(
    model: Option<&str>,
    model_figures: Option<&str>,
    gpu_name: Option<&str>,
    gpu_figures: Option<&str>,
    tensor_parallel: u32,
) -> Result<Option<Deployment>, (Side, String)> {
    if model_figures.is_none() && gpu_figures.is_none() {
        return Ok(None);
    }
    let (model_name, architecture) = match (model_figures, model) {
        (Some(text), name) => (
            name.unwrap_or("other model").to_owned(),
            architecture(text).map_err(|e| (Side::Model, e))?,
        ),
        (None, Some(name)) => {
            let known = find_model(name).ok_or_else(|| {
                let names: Vec<&str> = KNOWN_MODELS.iter().map(|m| m.id).collect();
                (
                    Side::Model,
                    format!(
                        "the model \"{name}\" is not in the table ({}); give --model-figures instead",
                        names.join(", ")
                    ),
                )
            })?;
            (known.name.to_owned(), known.architecture())
        }
        (None, None) => {
            return Err((
                Side::Model,
                "name the model (--model) or give its figures (--model-figures) beside the GPU's"
                    .to_owned(),
            ))
        }
    };
    let (gpu_label, datasheet) = match (gpu_figures, gpu_name) {
        (Some(text), name) => (
            name.unwrap_or("other GPU").to_owned(),
            gpu(text).map_err(|e| (Side::Gpu, e))?,
        ),
        (None, Some(name)) => {
            let known = find_gpu(name).ok_or_else(|| {
                let names: Vec<&str> = KNOWN_GPUS.iter().map(|g| g.name).collect();
                (
                    Side::Gpu,
                    format!(
                        "the GPU \"{name}\" is not in the table ({}); give --gpu-figures instead",
                        names.join(", ")
                    ),
                )
            })?;
            (known.name.to_owned(), known.gpu)
        }
        (None, None) => {
            return Err((
                Side::Gpu,
                "name the GPU (--gpu) or give its figures (--gpu-figures) beside the model's"
                    .to_owned(),
            ))
        }
    };
    Deployment::new(
        &model_name,
        architecture,
        &gpu_label,
        datasheet,
        tensor_parallel,
    )
    .map(Some)
    .map_err(|e| (Side::Model, e))
}
