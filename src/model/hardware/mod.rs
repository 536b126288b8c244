//! The step time from physics: a model's architecture ([`models`]) on a GPU's datasheet ([`gpus`]) gives, through
//! the [`roofline`], the step time before any measurement — the prior a calibration adjusts, and what a server
//! nobody has measured yet is expected to do.
//!
//! ```
//! use goodput_model::hardware::Deployment;
//! let server = Deployment::known("meta-llama/Meta-Llama-3-8B-Instruct", "NVIDIA-H100-PCIe", 1).unwrap();
//! let step = server.roofline().iteration();
//! // A decode step of one sequence reads the 16 GB of weights at 72% of 2 TB/s: about 11 ms.
//! assert!((step.fixed - 0.0111).abs() < 0.0005);
//! ```

pub mod gpus;
pub mod models;
pub mod roofline;
pub mod typed;

pub use gpus::{find_gpu, Gpu, KnownGpu, KNOWN_GPUS};
pub use models::{find_model, Architecture, KnownModel, ModelConfig, KNOWN_MODELS};
pub use roofline::{Efficiency, Roofline};
use serde::{Deserialize, Serialize};

/// Most GPUs one replica may span.
pub const MAX_TENSOR_PARALLEL: u32 = 64;

/// A model served on `tensor_parallel` GPUs: what the prior is worked out from. The names are the table's when it
/// has them, else as typed ("other").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deployment {
    /// The model's name.
    pub model: String,
    /// Its architecture.
    pub architecture: Architecture,
    /// The GPU's name.
    pub gpu_name: String,
    /// Its datasheet.
    pub gpu: Gpu,
    /// GPUs one replica spans (`--tensor-parallel-size`).
    pub tensor_parallel: u32,
}

/// The model of the tables `name` names; else why not, with the tables' names and what to give `instead`.
pub fn table_model(name: &str, instead: &str) -> Result<&'static KnownModel, String> {
    find_model(name).ok_or_else(|| {
        let names: Vec<&str> = KNOWN_MODELS.iter().map(|m| m.id).collect();
        format!(
            "the model \"{name}\" is not in the table ({}); give {instead} instead",
            names.join(", ")
        )
    })
}

/// The GPU of the tables `name` names; else why not, with the tables' names and what to give `instead`.
pub fn table_gpu(name: &str, instead: &str) -> Result<&'static KnownGpu, String> {
    find_gpu(name).ok_or_else(|| {
        let names: Vec<&str> = KNOWN_GPUS.iter().map(|g| g.name).collect();
        format!(
            "the GPU \"{name}\" is not in the table ({}); give {instead} instead",
            names.join(", ")
        )
    })
}

impl Deployment {
    /// A model and a GPU of the tables, by the names a result file gives (`model_id`, `gpu_name`) or a person
    /// types; the error names what the tables lack.
    pub fn known(model: &str, gpu: &str, tensor_parallel: u32) -> Result<Deployment, String> {
        let known_model = table_model(model, "its architecture")?;
        let known_gpu = table_gpu(gpu, "its datasheet figures")?;
        Deployment::new(
            known_model.name,
            known_model.architecture(),
            known_gpu.name,
            known_gpu.gpu,
            tensor_parallel,
        )
    }

    /// A deployment of figures typed in, checked.
    pub fn new(
        model: &str,
        architecture: Architecture,
        gpu_name: &str,
        gpu: Gpu,
        tensor_parallel: u32,
    ) -> Result<Deployment, String> {
        if let Some(problem) = architecture.problem() {
            return Err(format!("the model's figures: {problem}"));
        }
        if let Some(problem) = gpu.problem() {
            return Err(format!("the GPU's figures: {problem}"));
        }
        if !(1..=MAX_TENSOR_PARALLEL).contains(&tensor_parallel) {
            return Err(format!(
                "the tensor-parallel size must be from 1 to {MAX_TENSOR_PARALLEL} (got {tensor_parallel})"
            ));
        }
        Ok(Deployment {
            model: model.to_owned(),
            architecture,
            gpu_name: gpu_name.to_owned(),
            gpu,
            tensor_parallel,
        })
    }

    /// The roofline at the published efficiencies ([`Efficiency::PUBLISHED`]).
    pub fn roofline(&self) -> Roofline {
        self.roofline_at(Efficiency::PUBLISHED)
    }

    /// The roofline at `efficiency`.
    pub fn roofline_at(&self, efficiency: Efficiency) -> Roofline {
        Roofline {
            architecture: self.architecture,
            gpu: self.gpu,
            tensor_parallel: self.tensor_parallel,
            efficiency,
        }
    }

    /// "Llama 3 8B on 1 × H100 PCIe", for a report.
    pub fn describe(&self) -> String {
        format!(
            "{} on {} × {}",
            self.model, self.tensor_parallel, self.gpu_name
        )
    }
}
