//! "Other": a model or a GPU the tables lack, its figures typed in, read and checked here for both places that take
//! them: the command line's `--model-figures` and `--gpu-figures` (`name=value` pairs separated by commas) and the
//! page's "Your server" form (a field a figure, `goodput_calibrate::page`). The tables' own checks apply. A figure
//! refused is a [`FigureError`], which each place says in one line in its own words for the figures.

use std::fmt;

use super::{table_gpu, table_model, Architecture, Deployment, Gpu};

/// The figures a model's list takes. `parameters`, `layers`, `hidden-size`, `kv-heads` and one of
/// `attention-heads` and `head-dim` are required (each of those two is the hidden size over the other);
/// `active-parameters` defaults to `parameters`, `weight-bytes` and `kv-bytes` to 2.
pub const MODEL_FIGURES: [&str; 9] = [
    "parameters",
    "layers",
    "hidden-size",
    "kv-heads",
    "attention-heads",
    "head-dim",
    "active-parameters",
    "weight-bytes",
    "kv-bytes",
];

/// The figures a GPU's list takes, the first three required: memory in GiB, bandwidth in TB/s, the dense BF16 and
/// FP8 tensor peaks in TFLOP/s (`fp8-tflops` where it has FP8 tensor cores).
pub const GPU_FIGURES: [&str; 4] = ["memory-gib", "bandwidth-tb-s", "bf16-tflops", "fp8-tflops"];

/// What is wrong with figures typed in. Figures are named as [`MODEL_FIGURES`] and [`GPU_FIGURES`] name them;
/// [`FigureError::describe`] says it in the words of a form that labels them otherwise.
#[derive(Clone, Debug, PartialEq)]
pub enum FigureError {
    /// A piece of a list that is not `name=value`, and the figures the list takes.
    NotPair(String, &'static [&'static str]),
    /// A name that is no figure, and the figures the list takes.
    Unknown(String, &'static [&'static str]),
    /// A figure given twice.
    Twice(&'static str),
    /// A figure that is not a number above 0, as typed.
    NotPositive(&'static str, String),
    /// A figure that must be a whole number.
    NotWhole(&'static str, f64),
    /// A required figure not given.
    Missing(&'static str),
    /// Neither of two figures, one of which is required.
    MissingEither(&'static str, &'static str),
    /// The figures read but make no model or GPU (the tables' own check, `Architecture::problem`,
    /// `Gpu::problem`).
    Problem(String),
}

impl FigureError {
    /// The error in one line, each figure named by `label` (the identity for the command line's names).
    pub fn describe(&self, label: impl Fn(&'static str) -> &'static str) -> String {
        let list = |known: &[&'static str]| {
            known
                .iter()
                .map(|&n| label(n))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            FigureError::NotPair(pair, known) => {
                format!("\"{pair}\" is not name=value (figures: {})", list(known))
            }
            FigureError::Unknown(name, known) => {
                format!("unknown figure \"{name}\" (figures: {})", list(known))
            }
            FigureError::Twice(name) => format!("{} given twice", label(name)),
            FigureError::NotPositive(name, text) => {
                format!("{} must be a number above 0 (got \"{text}\")", label(name))
            }
            FigureError::NotWhole(name, value) => {
                format!("{} must be a whole number (got {value})", label(name))
            }
            FigureError::Missing(name) => format!("{} missing", label(name)),
            // A form with one field for both says it once.
            FigureError::MissingEither(one, other) if label(one) == label(other) => {
                format!("{} missing", label(one))
            }
            FigureError::MissingEither(one, other) => {
                format!("{} or {} missing (give one)", label(one), label(other))
            }
            FigureError::Problem(problem) => problem.clone(),
        }
    }
}

impl fmt::Display for FigureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(|name| name))
    }
}

impl std::error::Error for FigureError {}

/// A command line's figure list, `name=value` pairs separated by commas, as pairs (names folded: `_` for `-`, any
/// case).
fn pairs<'a>(
    text: &'a str,
    known: &'static [&'static str],
) -> Result<Vec<(String, &'a str)>, FigureError> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| FigureError::NotPair(pair.to_owned(), known))?;
            Ok((name.trim().replace('_', "-").to_ascii_lowercase(), value))
        })
        .collect()
}

/// A figure's value as typed: a number above 0. A parameter count may be written in billions with a `B`
/// (`8.03B`, as models are named), which is how the page's field in billions passes it.
fn positive(name: &'static str, text: &str) -> Result<f64, FigureError> {
    // Billions read as the decimal they are (8.03B is 8.03e9 to the last bit, which 8.03 × 1e9 is not).
    let number = match text.strip_suffix(['B', 'b']) {
        Some(billions) if name.ends_with("parameters") => format!("{}e9", billions.trim()),
        _ => text.to_owned(),
    };
    number
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| FigureError::NotPositive(name, text.to_owned()))
}

/// The `given` figures as numbers, in the order of `known` (`None`: not given, or given blank); an unknown or
/// repeated name or a value that is not a number above 0 is refused.
fn values<'a, const N: usize>(
    given: impl IntoIterator<Item = (impl AsRef<str>, &'a str)>,
    known: &'static [&'static str; N],
) -> Result<[Option<f64>; N], FigureError> {
    let mut out = [None; N];
    for (name, text) in given {
        let name = name.as_ref();
        let k = known
            .iter()
            .position(|&n| n == name)
            .ok_or_else(|| FigureError::Unknown(name.to_owned(), known))?;
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if out[k].is_some() {
            return Err(FigureError::Twice(known[k]));
        }
        out[k] = Some(positive(known[k], text)?);
    }
    Ok(out)
}

/// A required figure.
fn required(name: &'static str, value: Option<f64>) -> Result<f64, FigureError> {
    value.ok_or(FigureError::Missing(name))
}

/// A whole number of a figure list.
fn whole(name: &'static str, value: f64) -> Result<u32, FigureError> {
    if value.fract() == 0.0 && value <= f64::from(u32::MAX) {
        Ok(value as u32)
    } else {
        Err(FigureError::NotWhole(name, value))
    }
}

/// A model's architecture from its figures, each `(name of MODEL_FIGURES, value as typed)`; see [`MODEL_FIGURES`]
/// for which are required and the defaults of the others.
pub fn architecture_from<'a>(
    given: impl IntoIterator<Item = (impl AsRef<str>, &'a str)>,
) -> Result<Architecture, FigureError> {
    let [parameters, layers, hidden, kv_heads, heads, head_dim, active, weight_bytes, kv_bytes] =
        values(given, &MODEL_FIGURES)?;
    let [p, l, h, kv, a, d, ..] = MODEL_FIGURES;
    let parameters = required(p, parameters)?;
    let layers = whole(l, required(l, layers)?)?;
    let hidden = whole(h, required(h, hidden)?)?;
    let kv_heads = whole(kv, required(kv, kv_heads)?)?;
    // Either head figure gives the other; a head wider than the model gives 0 heads, which the check refuses.
    let (heads, head_dim) = match (heads, head_dim) {
        (Some(heads), Some(dim)) => (whole(a, heads)?, whole(d, dim)?),
        (Some(heads), None) => {
            let heads = whole(a, heads)?;
            (heads, (hidden / heads).max(1))
        }
        (None, Some(dim)) => {
            let dim = whole(d, dim)?;
            (hidden / dim, dim)
        }
        (None, None) => return Err(FigureError::MissingEither(a, d)),
    };
    let architecture = Architecture {
        parameters,
        active_parameters: active.unwrap_or(parameters),
        layers,
        hidden_size: hidden,
        attention_heads: heads,
        kv_heads,
        head_dim,
        weight_bytes: weight_bytes.unwrap_or(2.0),
        kv_bytes: whole(MODEL_FIGURES[8], kv_bytes.unwrap_or(2.0))?,
    };
    match architecture.problem() {
        Some(problem) => Err(FigureError::Problem(problem)),
        None => Ok(architecture),
    }
}

/// A GPU's datasheet from its figures, each `(name of GPU_FIGURES, value as typed)`.
pub fn gpu_from<'a>(
    given: impl IntoIterator<Item = (impl AsRef<str>, &'a str)>,
) -> Result<Gpu, FigureError> {
    let [memory, bandwidth, bf16, fp8] = values(given, &GPU_FIGURES)?;
    let [m, b, f, _] = GPU_FIGURES;
    let gpu = Gpu {
        memory_gib: required(m, memory)?,
        bandwidth: required(b, bandwidth)? * 1e12,
        bf16_flops: required(f, bf16)? * 1e12,
        fp8_flops: fp8.map(|t| t * 1e12),
    };
    match gpu.problem() {
        Some(problem) => Err(FigureError::Problem(problem)),
        None => Ok(gpu),
    }
}

/// A model's architecture from a command line's figure list (`parameters=8.03e9,layers=32,hidden-size=4096,
/// kv-heads=8,attention-heads=32`).
pub fn architecture(text: &str) -> Result<Architecture, FigureError> {
    architecture_from(pairs(text, &MODEL_FIGURES)?)
}

/// A GPU's datasheet from a command line's figure list (`memory-gib=24,bandwidth-tb-s=1.01,bf16-tflops=165`).
pub fn gpu(text: &str) -> Result<Gpu, FigureError> {
    gpu_from(pairs(text, &GPU_FIGURES)?)
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
    let (model_name, architecture) =
        match (model_figures, model) {
            (Some(text), name) => (
                name.unwrap_or("other model").to_owned(),
                architecture(text).map_err(|e| (Side::Model, e.to_string()))?,
            ),
            (None, Some(name)) => {
                let known = table_model(name, "--model-figures").map_err(|e| (Side::Model, e))?;
                (known.name.to_owned(), known.architecture())
            }
            (None, None) => return Err((
                Side::Model,
                "name the model (--model) or give its figures (--model-figures) beside the GPU's"
                    .to_owned(),
            )),
        };
    let (gpu_label, datasheet) = match (gpu_figures, gpu_name) {
        (Some(text), name) => (
            name.unwrap_or("other GPU").to_owned(),
            gpu(text).map_err(|e| (Side::Gpu, e.to_string()))?,
        ),
        (None, Some(name)) => {
            let known = table_gpu(name, "--gpu-figures").map_err(|e| (Side::Gpu, e))?;
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
