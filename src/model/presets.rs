//! Ready-made scenarios: the course's 4×H100 box, the published DistServe OPT-13B/A100 fit, and the textbook M/M/c.
//! The two LLM presets are stated in the prior's terms too ([`course_deployment`], [`distserve_deployment`]): the
//! model and GPUs each stands for, whose roofline ([`super::hardware`]) the tests compare with its coefficients.

use super::hardware::{find_gpu, find_model, Architecture, Deployment};
use super::scenario::{
    Arrivals, GpuMemory, IterationModel, KvCache, LengthDist, LlmFleet, Scenario, ServiceKind, Slo,
    TextbookService,
};

impl Scenario {
    /// The course's scenario: a ~27B-parameter model in FP8 on a 4×H100 box, served by one vLLM instance with
    /// `--tensor-parallel-size 4 --max-num-seqs 64 --enable-chunked-prefill --max-num-batched-tokens 8192`;
    /// prefill-heavy traffic (prompts 19–47× longer than outputs); SLOs p99 TTFT < 500 ms and p95 TPOT < 40 ms;
    /// open loop at 90% load. In closed loop the users think 5 s between requests.
    ///
    /// Iteration-model coefficients, from hardware figures and checked against public measurements (H100 SXM:
    /// 3.35 TB/s HBM3, 1979 TFLOP/s dense FP8):
    /// - `fixed` = 5.5 ms: the weights (27 GB in FP8, 6.75 GB per GPU under tensor parallelism) stream from HBM in
    ///   2.0 ms at peak bandwidth, ≈ 2.4 ms at a realistic 85%; two all-reduces per layer over NVLink (≈ 60 layers,
    ///   ≈ 12 µs each) add ≈ 1.5 ms; kernel launches, sampling and vLLM's scheduler ≈ 1.5 ms. For scale,
    ///   Llama-3.1-8B in BF16 on one H100 (4.8 ms to stream its weights, no all-reduce) measures a 6.5 ms TPOT at
    ///   concurrency 1.
    /// - `per_prefill_token` = 12 µs: a forward pass costs 2 × 27 GFLOP = 54 GFLOP per token; four H100s give
    ///   7.9 PFLOP/s dense FP8, of which prefill reaches ≈ 57%, so ≈ 4.5 PFLOP/s, ≈ 83 000 prompt tokens/s. For
    ///   scale, DistServe's fit for OPT-13B on one A100 (0.093 ms per prompt token, 26 GFLOP per token) implies
    ///   ≈ 280 TFLOP/s, 90% of that GPU's BF16 peak.
    /// - `per_decode_seq` = 30 µs: sampling, bookkeeping and the slightly wider GEMMs per sequence (DistServe's fit:
    ///   39 µs per sequence on one A100).
    /// - `per_context_token` = 30 ns: the KV cache of a ~27B GQA model is ≈ 250 KB per token, ≈ 62 KB per GPU under
    ///   tensor parallelism, read at ≈ 65% of 3.35 TB/s (DistServe's 0.63 µs per context token for OPT-13B's
    ///   800 KB per token on one A100 implies the same ≈ 65% of its 2 TB/s).
    ///
    /// KV cache, as vLLM sizes it at start-up (`--gpu-memory-utilization 0.9`): an H100's 79.6 GiB × 0.9 = 71.6 GiB per
    /// GPU, minus a quarter of the 25.1 GiB of FP8 weights (6.3 GiB), minus ≈ 3 GiB of activations at the 8192-token
    /// budget, CUDA graphs and buffers, leaves ≈ 62.4 GiB per GPU. A token's KV is 2 × 60 layers × 8 KV heads × 128 ×
    /// 2 bytes (BF16) = 240 KiB, 60 KiB per GPU, so the cache holds ≈ 1.09 M tokens (68 100 blocks of 16). A full
    /// batch needs far less: a busy slot holds on average its prompt (2112 tokens), the tokens generated so far (63)
    /// and half a block of rounding, ≈ 2180 tokens, so 64 sequences fill ≈ 13% of the cache. **Not KV-bound**: the
    /// cache would hold ≈ 500 such sequences before `--max-num-seqs` had to stop at it.
    ///
    /// This gives a saturation of ≈ 27 requests/s (≈ 1 750 output tokens/s, ≈ 57 000 prompt tokens/s); at full
    /// batch an iteration takes ≈ 37 ms, two thirds of it prefill. Below saturation the batch is not full, a request
    /// finds a free slot and its TTFT is about its own prefill; near saturation the 64 slots fill and requests queue
    /// for a slot, a wait of whole decode lifetimes — the M/M/c picture. The tail this gives (seed 11, 60 000
    /// requests): at 85% load p50/p99 TTFT ≈ 70/310 ms and 93% of requests meet both SLOs; at 95% p99 ≈ 1.5 s is
    /// ≈ 12× the median; at 99% p99 ≈ 4.5 s and about a quarter meet both SLOs. The TPOT SLO is the tight one at low
    /// load: an iteration carrying a full 8192-token prefill chunk lasts ≈ 100 ms and stalls every decode in it, so
    /// p95 TPOT sits a little above 40 ms even at 85% — the price of the large chunk budget.
    pub fn course_preset() -> Scenario {
        llm_preset(
            (64, 8192, true),
            KvCache::Memory(GpuMemory {
                gpus: 4,
                gpu_memory_gib: 79.6,
                gpu_memory_utilization: 0.9,
                weights_gib: 25.1,
                overhead_gib: 3.0,
                layers: 60,
                kv_heads: 8,
                head_dim: 128,
                kv_value_bytes: 2,
            }),
            IterationModel {
                fixed: 5.5e-3,
                per_prefill_token: 12.0e-6,
                per_decode_seq: 30.0e-6,
                per_context_token: 30.0e-9,
                compute: None,
            },
            // Prompts uniform over 19×64 ..= 47×64 tokens (mean 33×); outputs geometric with mean 64.
            LengthDist::Uniform {
                min: 1216,
                max: 3008,
            },
            LengthDist::Geometric {
                mean: 64.0,
                max: None,
            },
            Slo::default(),
        )
    }

    /// The course scenario in closed loop: users thinking 5 s on average (the default think time of LLM users), as
    /// many as give offered load ρ = 0.9.
    pub fn course_closed_preset() -> Scenario {
        let mut s = Scenario::course_preset();
        s.arrivals = Arrivals::Closed {
            users: 1,
            think_time: s.service.default_think_time(),
        };
        s.with_offered_load(0.9)
    }

    /// OPT-13B on one A100-80GB with the iteration times DistServe's simulator fits (milliseconds):
    /// decode ≈ 19.9 + 6.3e-4·(context tokens) + 0.039·(batch size), prefill ≈ 16.5 + 0.093·P + 6.5e-6·P².
    /// The linear model takes the decode intercept as `fixed` (the prefill intercept is 3.4 ms lower) and linearises
    /// the quadratic prefill term at the mean prompt: 0.093 + 6.5e-6 × 755 ≈ 0.0979 ms per token. Traffic is
    /// ShareGPT-like (prompts uniform 128..=1382, mean 755; outputs geometric, mean 200), no chunked prefill, a batch
    /// cap of 64 (inside the fit's range of batches under 95), and DistServe's example SLOs TTFT 200 ms, TPOT 100 ms.
    ///
    /// KV cache (`--gpu-memory-utilization 0.9`): an A100's 80 GiB × 0.9 = 72 GiB, minus 23.9 GiB of FP16 weights
    /// (12.85 B parameters), minus ≈ 2 GiB of activations at the 4096-token budget and CUDA graphs, leaves ≈ 46.1 GiB.
    /// OPT-13B has no grouped-query attention: a token's KV is 2 × 40 layers × 40 heads × 128 × 2 bytes = 800 KiB, so
    /// the cache holds ≈ 60 400 tokens (3776 blocks). A busy slot holds on average its prompt (755 tokens), the tokens
    /// generated so far (199) and half a block, ≈ 960 tokens: 64 sequences would need ≈ 61 500 tokens, 102% of the
    /// cache. **KV-bound, just**: the cache holds ≈ 63 average sequences, so a full batch of 64 runs out of blocks
    /// whenever its sequences are longer than average — near saturation vLLM preempts, and the saturation
    /// throughput is set by the cache, not by `--max-num-seqs`. A larger cap buys nothing here.
    pub fn distserve_preset() -> Scenario {
        llm_preset(
            (64, 4096, false),
            KvCache::Memory(GpuMemory {
                gpus: 1,
                gpu_memory_gib: 80.0,
                gpu_memory_utilization: 0.9,
                weights_gib: 23.9,
                overhead_gib: 2.0,
                layers: 40,
                kv_heads: 40,
                head_dim: 128,
                kv_value_bytes: 2,
            }),
            IterationModel {
                fixed: 19.9e-3,
                per_prefill_token: 0.0979e-3,
                per_decode_seq: 0.039e-3,
                per_context_token: 6.3e-7,
                compute: None,
            },
            LengthDist::Uniform {
                min: 128,
                max: 1382,
            },
            LengthDist::Geometric {
                mean: 200.0,
                max: None,
            },
            Slo {
                ttft: 0.2,
                tpot: 0.1,
            },
        )
    }

    /// The textbook M/M/4 queue at ρ = 0.9 with mean service 1 time unit; a customer is "good" when it waits at most
    /// 5 time units.
    pub fn textbook_preset() -> Scenario {
        Scenario {
            service: ServiceKind::Textbook(TextbookService {
                servers: 4,
                mean_service: 1.0,
            }),
            arrivals: Arrivals::poisson(0.9),
            slo: Slo {
                ttft: 5.0,
                tpot: 1.0,
            },
            customers: 200_000,
            warm_up: 20_000,
        }
    }
}

/// The course preset's server in the prior's terms: no particular model, a dense ~27B one (27 B parameters in FP8,
/// 60 layers, 8 KV heads of 128, a BF16 KV cache) on four H100 SXM GPUs with tensor parallelism. Its roofline at
/// the published efficiencies gives `fixed` ≈ 5.2 ms (the preset: 5.5), `per_context_token` ≈ 25 ns (30) and
/// 10.5 µs of compute a token (the preset's `per_prefill_token`: 12).
pub fn course_deployment() -> Deployment {
    let architecture = Architecture {
        parameters: 27e9,
        active_parameters: 27e9,
        layers: 60,
        hidden_size: 5120,
        attention_heads: 40,
        kv_heads: 8,
        head_dim: 128,
        weight_bytes: 1.0,
        kv_bytes: 2,
    };
    let h100 = find_gpu("H100 SXM").expect("the H100 SXM is in the table");
    Deployment::new("a ~27B model in FP8", architecture, h100.name, h100.gpu, 4)
        .expect("the course's figures are a model's")
}

/// The DistServe preset's server in the prior's terms: OPT-13B (FP16) on one A100 SXM 80 GB. Its roofline at the
/// published efficiencies gives `fixed` ≈ 17.5 ms (DistServe's fit: 19.9), `per_context_token` ≈ 0.56 µs (0.63) and
/// 0.127 ms of compute a prompt token (DistServe's linearised 0.098, with a 16.5 ms intercept the roofline has not).
pub fn distserve_deployment() -> Deployment {
    let opt = find_model("facebook/opt-13b").expect("OPT-13B is in the table");
    let a100 = find_gpu("NVIDIA A100-SXM4-80GB").expect("the A100 SXM 80 GB is in the table");
    Deployment::new(opt.name, opt.architecture(), a100.name, a100.gpu, 1)
        .expect("the table's figures are a model's")
}

/// One replica with `(max_num_seqs, max_num_batched_tokens, chunked_prefill)` and its KV cache, full recompute on
/// preemption, no front-end overhead, Poisson arrivals at 90% load, 20 000 measured requests after 2 000 of warm-up.
fn llm_preset(
    (max_num_seqs, max_num_batched_tokens, chunked_prefill): (u32, u32, bool),
    kv_cache: KvCache,
    iteration: IterationModel,
    prompt_tokens: LengthDist,
    output_tokens: LengthDist,
    slo: Slo,
) -> Scenario {
    Scenario {
        service: ServiceKind::Llm(LlmFleet {
            replicas: 1,
            max_num_seqs,
            max_num_batched_tokens,
            chunked_prefill,
            prefill_first: false,
            iteration,
            prompt_tokens,
            output_tokens,
            kv_cache,
            // The presets keep the full recompute on preemption that the course's lab and lesson were written
            // against (a scenario file without the field gets vLLM V1's default, on).
            prefix_caching: false,
            frontend_overhead: 0.0,
            max_num_queued_reqs: None,
            max_num_queued_tokens: None,
            shared_prefix_tokens: 0,
        }),
        arrivals: Arrivals::poisson(0.9),
        slo,
        customers: 20_000,
        warm_up: 2_000,
    }
}
