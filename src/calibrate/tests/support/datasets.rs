//! The other public datasets of `../shared/data/` (README there: sources, commits, licences) as servers the fit
//! never saw: DistServe's OPT-13B sweep (one trace a rate), the two GPUs of IOG's vLLM 0.8.5 results (one summary
//! a rate), and the GuideLLM report of a CodeLlama-34B sweep (one benchmark a stage). A dataset that is not there
//! is named on stderr and left out.

use crate::unseen::{Load, Measured};
use goodput_calibrate::inputs::InputFile;
use goodput_calibrate::ServerFlags;

fn data_dir() -> String {
    format!("{}/../../../shared/data", env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> Option<String> {
    let full = format!("{}/{path}", data_dir());
    let text = std::fs::read_to_string(&full).ok();
    if text.is_none() {
        eprintln!("left out, not here: {full}");
    }
    text
}

/// One DistServe run: its Poisson rate and its requests.
pub struct TraceStage {
    pub load: Load,
    pub requests: Vec<Measured>,
}

/// DistServe's runs, by rate (the two runs at 2 req/s both kept): OPT-13B in FP16 on one A100 SXM 80 GB, its
/// early-2024 vLLM baseline (the V0 engine) with no chunked prefill (`--max-num-seqs 1024 --max-num-batched-tokens 16384`), KV
/// cache about 60 000 tokens (`meta.json`: an estimate, no log was kept).
pub fn distserve() -> Option<(Vec<TraceStage>, ServerFlags)> {
    let runs = [
        ("rate1-n100", 1.0),
        ("rate1.5-n150", 1.5),
        ("rate2-n100", 2.0),
        ("rate2-n200", 2.0),
        ("rate2.5-n250", 2.5),
        ("rate3-n300", 3.0),
        ("rate3.5-n350", 3.5),
        ("rate4-n400", 4.0),
    ];
    let mut stages = Vec::new();
    for (run, rate) in runs {
        let text = read(&format!("distserve/opt-13b-a100-vllm-{run}/trace.csv"))?;
        let requests = text
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let f: Vec<f64> = l.split(',').map(|x| x.parse().expect("a number")).collect();
                Measured {
                    arrival: f[0],
                    prompt: f[1] as u32,
                    output: f[2] as u32,
                    ttft: f[3],
                    e2e: f[4],
                }
            })
            .collect();
        stages.push(TraceStage {
            load: Load::Constant(rate),
            requests,
        });
    }
    let flags = ServerFlags {
        max_num_seqs: Some(1024),
        max_num_batched_tokens: Some(16_384),
        chunked_prefill: Some(false),
        v0_engine: Some(true),
        kv_cache_tokens: Some(60_000),
        model: Some("facebook/opt-13b".to_owned()),
        gpu: Some("NVIDIA A100-SXM4-80GB".to_owned()),
        ..ServerFlags::default()
    };
    Some((stages, flags))
}

/// A stage of a result-file server: its load and the file holding it alone.
pub struct ResultStage {
    pub load: Load,
    pub file: InputFile,
}

/// IOG's `vllm bench serve` results of Llama-3-8B-Instruct on one `gpu` (`NVIDIA-H100-PCIe` or
/// `NVIDIA-GeForce-RTX-4090`), 200 ShareGPT prompts at 1, 4, 8, 16 and 32 req/s, vLLM 0.8.5 with its defaults. The
/// flags are left to calibrate's defaults and the files' own `model_id` and `gpu_name`, as an operator with only
/// these files would have them.
pub fn iog(gpu: &str) -> Option<(Vec<ResultStage>, ServerFlags)> {
    let mut stages = Vec::new();
    for rate in [1u32, 4, 8, 16, 32] {
        let name =
            format!("vllm_200prompts{rate}qps_Meta-Llama-3-8B-Instruct_sharegpt_1x{gpu}.json");
        let text = read(&format!("vllm-bench-0.8.5/{name}"))?;
        stages.push(ResultStage {
            load: Load::Constant(f64::from(rate)),
            file: InputFile { name, text },
        });
    }
    Some((stages, ServerFlags::default()))
}

/// The GuideLLM report's benchmarks (synchronous, throughput, three constant rates), each as a report of its own:
/// CodeLlama-34B on vLLM 0.11.0, the long-prompt server of `crate::unseen::servers` read through GuideLLM's
/// summary instead of its trace.
pub fn guidellm(flags: ServerFlags) -> Option<(Vec<ResultStage>, ServerFlags)> {
    let text = read("guidellm/codellama-34b-sweep-benchmarks.json")?;
    let report: serde_json::Value = serde_json::from_str(&text).expect("GuideLLM's JSON");
    let benchmarks = report["benchmarks"].as_array().expect("benchmarks");
    let stages = benchmarks
        .iter()
        .enumerate()
        .map(|(k, benchmark)| {
            let strategy = &benchmark["config"]["strategy"];
            let load = match strategy["type_"].as_str() {
                Some("synchronous") => Load::Synchronous,
                Some("constant") => Load::Constant(strategy["rate"].as_f64().expect("a rate")),
                _ => Load::AllAtOnce,
            };
            let mut one = report.clone();
            one["benchmarks"] = serde_json::Value::Array(vec![benchmark.clone()]);
            ResultStage {
                load,
                file: InputFile {
                    name: format!("benchmark-{k}.json"),
                    text: one.to_string(),
                },
            }
        })
        .collect();
    Some((stages, flags))
}
