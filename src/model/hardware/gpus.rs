//! GPUs by their datasheet: the memory bandwidth that bounds a decode step, the dense tensor peak that bounds a
//! prefill, and the memory that bounds the KV cache. Peaks are dense (the datasheets' headline figures with 2:4
//! sparsity are twice these).

use serde::{Deserialize, Serialize};

/// What the roofline needs of a GPU. Typed in for a GPU the table does not have ("other").
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    /// Memory, GiB (the datasheet's GB: HBM and GDDR come in binary sizes).
    pub memory_gib: f64,
    /// Memory bandwidth, bytes per second.
    pub bandwidth: f64,
    /// Dense BF16/FP16 tensor peak, FLOP per second.
    pub bf16_flops: f64,
    /// Dense FP8 tensor peak, FLOP per second (`None`: no FP8 tensor cores, as on Ampere).
    pub fp8_flops: Option<f64>,
}

impl Gpu {
    /// The peak for weights of `weight_bytes` bytes: FP8's for one-byte weights where the GPU has FP8 tensor cores,
    /// else BF16's.
    pub fn peak_flops(&self, weight_bytes: f64) -> f64 {
        match self.fp8_flops {
            Some(fp8) if weight_bytes <= 1.0 => fp8,
            _ => self.bf16_flops,
        }
    }

    /// Why the figures cannot be a GPU's, if they cannot.
    pub fn problem(&self) -> Option<String> {
        let within = |x: f64, hi: f64| x.is_finite() && x > 0.0 && x <= hi;
        if !within(self.memory_gib, 16_384.0) {
            return Some(format!(
                "memory must be above 0 and at most 16 384 GiB (got {})",
                self.memory_gib
            ));
        }
        if !within(self.bandwidth, 1e14) {
            return Some(format!(
                "bandwidth must be above 0 and at most 100 TB/s (got {} B/s)",
                self.bandwidth
            ));
        }
        if !within(self.bf16_flops, 1e17) || self.fp8_flops.is_some_and(|f| !within(f, 1e17)) {
            return Some("peak FLOP/s must be above 0 and at most 1e17".to_owned());
        }
        None
    }
}

/// A GPU of the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KnownGpu {
    /// Its name in words.
    pub name: &'static str,
    /// The names it goes by: `nvidia-smi`'s (which vLLM's benchmarks write as `gpu_name`, spaces as dashes) and
    /// the usual short ones.
    pub aliases: &'static [&'static str],
    /// Its figures.
    pub gpu: Gpu,
    /// Where they come from.
    pub source: &'static str,
}

impl KnownGpu {
    /// Its name and its aliases.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.name).chain(self.aliases.iter().copied())
    }
}

const TB: f64 = 1e12;
const TFLOPS: f64 = 1e12;

const fn gpu(
    memory_gib: f64,
    bandwidth_tb_s: f64,
    bf16_tflops: f64,
    fp8_tflops: Option<f64>,
) -> Gpu {
    Gpu {
        memory_gib,
        bandwidth: bandwidth_tb_s * TB,
        bf16_flops: bf16_tflops * TFLOPS,
        fp8_flops: match fp8_tflops {
            Some(t) => Some(t * TFLOPS),
            None => None,
        },
    }
}

const A100_SHEET: &str = "NVIDIA A100 Tensor Core GPU datasheet (BF16 312 TFLOPS dense)";
const H100_SHEET: &str = "NVIDIA H100 Tensor Core GPU datasheet (dense: half the sparse figures)";

/// Common GPUs, from their vendors' datasheets.
pub const KNOWN_GPUS: [KnownGpu; 13] = [
    KnownGpu {
        name: "A100 SXM 40 GB",
        aliases: &["NVIDIA A100-SXM4-40GB", "A100-SXM-40GB", "A100 40GB SXM", "A100-40GB", "A100 40GB"],
        gpu: gpu(40.0, 1.555, 312.0, None),
        source: A100_SHEET,
    },
    KnownGpu {
        name: "A100 SXM 80 GB",
        aliases: &["NVIDIA A100-SXM4-80GB", "A100-SXM-80GB", "A100 80GB SXM", "A100-SXM", "A100", "A100-80GB"],
        gpu: gpu(80.0, 2.039, 312.0, None),
        source: A100_SHEET,
    },
    KnownGpu {
        name: "A100 PCIe 40 GB",
        aliases: &["NVIDIA A100-PCIE-40GB", "A100-PCIe-40GB", "A100 40GB PCIe"],
        gpu: gpu(40.0, 1.555, 312.0, None),
        source: A100_SHEET,
    },
    KnownGpu {
        name: "A100 PCIe 80 GB",
        aliases: &["NVIDIA A100 80GB PCIe", "A100-PCIe-80GB", "A100-PCIe", "A100 PCIe"],
        gpu: gpu(80.0, 1.935, 312.0, None),
        source: A100_SHEET,
    },
    KnownGpu {
        name: "H100 SXM",
        aliases: &["NVIDIA H100 80GB HBM3", "H100-SXM", "H100 SXM5", "H100-SXM5-80GB", "H100"],
        gpu: gpu(80.0, 3.35, 989.5, Some(1979.0)),
        source: H100_SHEET,
    },
    KnownGpu {
        name: "H100 PCIe",
        aliases: &["NVIDIA H100 PCIe", "NVIDIA-H100-PCIe", "H100-PCIe-80GB"],
        gpu: gpu(80.0, 2.0, 756.0, Some(1513.0)),
        source: H100_SHEET,
    },
    KnownGpu {
        name: "H100 NVL",
        aliases: &["NVIDIA H100 NVL", "H100-NVL-94GB"],
        gpu: gpu(94.0, 3.9, 835.0, Some(1671.0)),
        source: H100_SHEET,
    },
    KnownGpu {
        name: "H200",
        aliases: &["NVIDIA H200", "H200 SXM", "H200-SXM-141GB", "NVIDIA H200 141GB HBM3e"],
        gpu: gpu(141.0, 4.8, 989.5, Some(1979.0)),
        source: "NVIDIA H200 Tensor Core GPU datasheet (dense: half the sparse figures)",
    },
    KnownGpu {
        name: "L4",
        aliases: &["NVIDIA L4"],
        gpu: gpu(24.0, 0.3, 121.0, Some(242.5)),
        source: "NVIDIA L4 Tensor Core GPU datasheet (dense: half the sparse figures)",
    },
    KnownGpu {
        name: "L40S",
        aliases: &["NVIDIA L40S"],
        gpu: gpu(48.0, 0.864, 362.05, Some(733.0)),
        source: "NVIDIA L40S datasheet (dense: half the sparse figures)",
    },
    KnownGpu {
        name: "A10G",
        aliases: &["NVIDIA A10G"],
        gpu: gpu(24.0, 0.6, 70.0, None),
        source: "AWS's A10G (G5 instances): 24 GB GDDR6 at 600 GB/s as the A10's datasheet; 70 TFLOPS BF16 dense \
                 as Baseten's A10 vs A10G comparison lists it (NVIDIA publishes no A10G datasheet)",
    },
    KnownGpu {
        name: "GeForce RTX 4090",
        aliases: &["NVIDIA GeForce RTX 4090", "NVIDIA-GeForce-RTX-4090", "RTX 4090", "4090"],
        gpu: gpu(24.0, 1.008, 165.2, Some(330.3)),
        source: "NVIDIA Ada GPU architecture whitepaper, appendix (tensor peaks with FP32 accumulate, dense)",
    },
    KnownGpu {
        name: "Instinct MI300X",
        aliases: &["AMD Instinct MI300X", "MI300X", "AMD-Instinct-MI300X"],
        gpu: gpu(192.0, 5.3, 1307.4, Some(2614.9)),
        source: "AMD Instinct MI300X accelerator datasheet (dense)",
    },
];

/// A name folded for comparison, what [`find_gpu`] compares: lower case, letters and digits only, the vendor's and
/// the brand's words left out. The page matches a result file's `gpu_name` to its list of GPUs by it, without the
/// table (the list is written at build time).
pub fn match_key(name: &str) -> String {
    let mut out: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    for word in ["nvidia", "geforce", "tesla", "amd", "instinct"] {
        out = out.replace(word, "");
    }
    out
}

/// The GPU a result file's `gpu_name` (or a name typed in) names: any of its aliases, case, spaces and dashes
/// aside (`NVIDIA-H100-PCIe`, `NVIDIA H100 PCIe` and `h100 pcie` are the same).
pub fn find_gpu(name: &str) -> Option<&'static KnownGpu> {
    let wanted = match_key(name);
    if wanted.is_empty() {
        return None;
    }
    KNOWN_GPUS
        .iter()
        .find(|known| known.names().any(|alias| match_key(alias) == wanted))
}
