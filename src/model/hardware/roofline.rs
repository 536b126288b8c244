//! The step time before any measurement: a step reads every weight once and the KV cache of the sequences it
//! decodes (memory time: bytes over bandwidth), and multiplies every token it processes by the active weights
//! (compute time: 2 FLOPs a parameter a token over the tensor peak). The matrix products last the larger of the
//! weights' read and their FLOPs; attention's KV read follows them — the model's [`IterationModel`] with a compute
//! term. Tensor parallelism splits the weights, the KV heads and the FLOPs over
//! the GPUs, which read and compute at once, and adds two all-reduces a layer.

use super::gpus::Gpu;
use super::models::Architecture;
use crate::scenario::{ComputeTime, GpuMemory, IterationModel};
use serde::{Deserialize, Serialize};

/// How much of the datasheet a real server gets: the share of the peak bandwidth a decode step reads at, the
/// share of the peak FLOP/s a prefill computes at, and the latency of one all-reduce between tensor-parallel GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Efficiency {
    /// Achieved ÷ peak memory bandwidth.
    pub bandwidth: f64,
    /// Achieved ÷ peak tensor FLOP/s (the model FLOPs utilisation, MFU).
    pub compute: f64,
    /// Seconds one all-reduce of a layer's activations takes.
    pub all_reduce: f64,
}

impl Efficiency {
    /// The efficiencies BLIS fits on its vLLM runs (inference-sim/inference-sim, `hardware_config.json` at
    /// `006cae82ac27a6eb7c749b2d265a54a09e3779cf`: `BwEffConstant` 0.72, `mfuPrefill` 0.65, `allReduceLatency`
    /// 20 µs), the same for every GPU: the prior's, before a measurement says otherwise.
    pub const PUBLISHED: Efficiency = Efficiency {
        bandwidth: 0.72,
        compute: 0.65,
        all_reduce: 20e-6,
    };
}

impl Default for Efficiency {
    fn default() -> Self {
        Efficiency::PUBLISHED
    }
}

/// A model on `tensor_parallel` GPUs of one kind, at some efficiency: the roofline's step time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Roofline {
    /// The model.
    pub architecture: Architecture,
    /// One of its GPUs.
    pub gpu: Gpu,
    /// GPUs one replica spans (`--tensor-parallel-size`).
    pub tensor_parallel: u32,
    /// How much of the datasheet it gets.
    pub efficiency: Efficiency,
}

impl Roofline {
    fn gpus(&self) -> f64 {
        f64::from(self.tensor_parallel.max(1))
    }

    fn bandwidth(&self) -> f64 {
        self.gpu.bandwidth * self.efficiency.bandwidth
    }

    /// Seconds to read one GPU's share of the weights: the floor of every step.
    pub fn weights_time(&self) -> f64 {
        self.architecture.weights_bytes() / self.gpus() / self.bandwidth()
    }

    /// Seconds of all-reduce a step spends: two a layer (after attention and after the MLP), none on one GPU.
    pub fn all_reduce_time(&self) -> f64 {
        if self.tensor_parallel > 1 {
            2.0 * f64::from(self.architecture.layers) * self.efficiency.all_reduce
        } else {
            0.0
        }
    }

    /// KV bytes of one token on one GPU: tensor parallelism splits the KV heads, and with fewer heads than GPUs
    /// each GPU keeps one (as [`GpuMemory::tokens`] counts them).
    pub fn kv_bytes_per_token_per_gpu(&self) -> f64 {
        let a = &self.architecture;
        let heads_per_gpu = (f64::from(a.kv_heads) / self.gpus()).max(1.0);
        a.kv_bytes_per_token() / f64::from(a.kv_heads) * heads_per_gpu
    }

    /// Seconds one token of context adds to a decode step: its KV read.
    pub fn context_token_time(&self) -> f64 {
        self.kv_bytes_per_token_per_gpu() / self.bandwidth()
    }

    /// Seconds of compute one token processed costs (prefilled or decoded): 2 FLOPs an active parameter, split
    /// over the GPUs, at the achieved share of the peak for the weights' type.
    pub fn token_compute_time(&self) -> f64 {
        let a = &self.architecture;
        2.0 * a.active_parameters
            / self.gpus()
            / (self.gpu.peak_flops(a.weight_bytes) * self.efficiency.compute)
    }

    /// The step time in the model's terms: `fixed` the weights' read and the all-reduces, `per_context_token` the
    /// KV read, `compute.per_token` the FLOPs; no per-sequence or per-prefill-token cost of its own (they are the
    /// compute term's).
    pub fn iteration(&self) -> IterationModel {
        IterationModel {
            fixed: self.weights_time() + self.all_reduce_time(),
            per_prefill_token: 0.0,
            per_decode_seq: 0.0,
            per_context_token: self.context_token_time(),
            compute: Some(ComputeTime {
                fixed: 0.0,
                per_token: self.token_compute_time(),
            }),
        }
    }

    /// The KV cache as vLLM sizes it on these GPUs at `--gpu-memory-utilization` `utilization`, with
    /// `overhead_gib` per GPU for activations, CUDA graphs and buffers.
    pub fn gpu_memory(&self, utilization: f64, overhead_gib: f64) -> GpuMemory {
        let a = &self.architecture;
        GpuMemory {
            gpus: self.tensor_parallel.max(1),
            gpu_memory_gib: self.gpu.memory_gib,
            gpu_memory_utilization: utilization,
            weights_gib: a.weights_bytes() / GIB,
            overhead_gib,
            layers: a.layers,
            kv_heads: a.kv_heads,
            head_dim: a.head_dim,
            kv_value_bytes: a.kv_bytes,
        }
    }
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
