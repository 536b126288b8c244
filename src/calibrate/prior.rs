//! The prior the fit adjusts: the step time the roofline gives for the model on its GPUs
//! ([`crate::model::hardware`]), named by the flags (`--model`, `--gpu`, `--tensor-parallel-size`, or figures typed
//! in) or by the result files' own `model_id`, `gpu_name` and `gpu_count`. Light load measures the front end, the
//! decode step at small batches and how efficiently the GPU reads; it cannot measure how a step grows to a full
//! batch or, with one prompt length, the prefill's compute apart from the front end: those stay at physics.

use super::fit::{Anchor, FIXED, FRONTEND, PER_CONTEXT_TOKEN, PER_TOKEN};
use super::inputs::InputFile;
use super::{CalibrateError, ServerFlags};
use crate::model::hardware::Deployment;
pub use crate::server_files::{named_in, Named};

/// The front end's time before any measurement: HTTP, tokenisation and scheduling, about 4 ms in vLLM
/// (REFERENCE §5: the front-end overhead found when this model was first checked against vLLM 0.8.5).
pub const FRONTEND_PRIOR: f64 = 4e-3;

/// GiB a GPU vLLM keeps for activations, CUDA graphs and buffers besides the weights and the KV cache, when the
/// start-up log is not given (the presets' 2–3 GiB).
pub const ACTIVATIONS_GIB: f64 = 2.0;

/// How far each coefficient's prior may be off (relative standard deviations, in [`super::fit::COEFFICIENTS`]'
/// order): the decode step's memory time within about 30% (published efficiencies run from 63% to 82% of the
/// bandwidth), the KV read's within 50%, the compute cost within 30% (MFU from about 45% to 90%), the front end
/// hardly known (it is what light load measures best).
pub const SPREAD: [f64; 4] = [0.3, 0.5, 0.3, 1.5];

/// The model and GPUs the prior is for, where they were named, and the fit's anchor.
#[derive(Clone, Debug, PartialEq)]
pub struct Prior {
    /// The model on its GPUs.
    pub deployment: Deployment,
    /// Where the deployment was named, in words.
    pub named_by: String,
    /// The roofline's coefficients and their spreads.
    pub anchor: Anchor,
}

impl Prior {
    /// The prior of `deployment` at the published efficiencies.
    pub fn new(deployment: Deployment, named_by: String) -> Prior {
        let iteration = deployment.roofline().iteration();
        let mut value = [0.0; 4];
        value[FIXED] = iteration.fixed;
        value[PER_CONTEXT_TOKEN] = iteration.per_context_token;
        value[PER_TOKEN] = iteration.compute.as_ref().map_or(0.0, |c| c.per_token);
        value[FRONTEND] = FRONTEND_PRIOR;
        Prior {
            deployment,
            named_by,
            anchor: Anchor {
                value,
                spread: SPREAD,
            },
        }
    }

    /// The anchor with the KV read's cost at the efficiency the inputs measured the weights' read at (`fixed`
    /// fitted ÷ its prior): both are reads of the same memory.
    pub fn read_as_measured(&self, fitted_fixed: f64) -> Anchor {
        let mut anchor = self.anchor;
        let ratio = fitted_fixed / anchor.value[FIXED];
        if ratio.is_finite() && ratio > 0.0 {
            anchor.value[PER_CONTEXT_TOKEN] *= ratio;
        }
        anchor
    }
}

/// The prior for the calibration: figures typed in, else the names the flags give, else the inputs'; `None`
/// when neither names both a model and a GPU of the tables (the report says why in `assumptions`). A name given
/// as a flag that the tables lack is an error; one a file gives is only reported.
pub fn choose(
    flags: &ServerFlags,
    files: &[InputFile],
    assumptions: &mut Vec<String>,
) -> Result<Option<Prior>, CalibrateError> {
    if let Some(deployment) = &flags.deployment {
        return Ok(Some(Prior::new(
            deployment.clone(),
            "figures given".to_owned(),
        )));
    }
    let named = named_in(files);
    let model = flags.model.clone().or(named.model.clone());
    let gpu = flags.gpu.clone().or(named.gpu.clone());
    let gpus = flags.tensor_parallel_size.or(named.gpus).unwrap_or(1);
    let (Some(model), Some(gpu)) = (model, gpu) else {
        assumptions.push(
            "no prior from physics: name the model and the GPU (--model, --gpu) so that what light load cannot \
             show (the growth of a step to a full batch, the prefill's compute) comes from them"
                .to_owned(),
        );
        return Ok(None);
    };
    match Deployment::known(&model, &gpu, gpus) {
        Ok(deployment) => {
            let given = |flag: bool| if flag { "given" } else { "the result file's" };
            let named_by = format!(
                "model {} ({}), GPU {} ({}), tensor parallel {gpus}",
                deployment.model,
                given(flags.model.is_some()),
                deployment.gpu_name,
                given(flags.gpu.is_some()),
            );
            Ok(Some(Prior::new(deployment, named_by)))
        }
        Err(problem) => {
            use crate::model::hardware::{find_gpu, find_model};
            let blamed = if find_model(&model).is_none() {
                flags.model.is_some().then_some("--model")
            } else if find_gpu(&gpu).is_none() {
                flags.gpu.is_some().then_some("--gpu")
            } else {
                flags
                    .tensor_parallel_size
                    .is_some()
                    .then_some("--tensor-parallel-size")
            };
            match blamed {
                Some(flag) => Err(CalibrateError::Flag { flag, problem }),
                None => {
                    assumptions.push(format!("no prior from physics: {problem}"));
                    Ok(None)
                }
            }
        }
    }
}
