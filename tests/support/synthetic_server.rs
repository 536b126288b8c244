//! The server the synthetic calibration inputs come from, and those inputs as vLLM and the trace format write
//! them: shared by the calibration's tests and the page's "Your server" fixtures.

#![allow(dead_code)]

use goodput_model::{
    bench_requests, replay_traced, Arrivals, BenchSummary, ComputeTime, IterationModel, KvCache,
    LengthDist, LlmFleet, RequestTrace, Scenario, ServiceKind, Slo,
};

/// The server the synthetic files come from: memory-bound decode steps growing with context, compute-bound
/// prefills, a front end of 4 ms.
pub fn truth() -> Scenario {
    Scenario {
        service: ServiceKind::Llm(LlmFleet {
            replicas: 1,
            max_num_seqs: 64,
            max_num_batched_tokens: 4096,
            chunked_prefill: true,
            prefill_first: false,
            iteration: IterationModel {
                fixed: 0.015,
                per_prefill_token: 0.0,
                per_decode_seq: 0.0,
                per_context_token: 2.0e-7,
                compute: Some(ComputeTime {
                    fixed: 0.0,
                    per_token: 6.0e-5,
                }),
            },
            prompt_tokens: LengthDist::Uniform {
                min: 200,
                max: 3000,
            },
            output_tokens: LengthDist::Uniform { min: 20, max: 400 },
            kv_cache: KvCache::Unlimited,
            prefix_caching: true,
            frontend_overhead: 0.004,
            max_num_queued_reqs: None,
            max_num_queued_tokens: None,
            shared_prefix_tokens: 0,
        }),
        arrivals: Arrivals::poisson(0.5),
        slo: Slo {
            ttft: 0.5,
            tpot: 0.04,
        },
        customers: 1000,
        warm_up: 0,
    }
}

/// The model's run of `n` requests at `rate`: its report and every request's life, in sending order.
pub fn simulated(rate: f64, n: u64, seed: u64) -> (BenchSummary, Vec<RequestTrace>) {
    simulated_on(&truth(), rate, n, seed)
}

/// [`simulated`] on the server `s`.
pub fn simulated_on(
    s: &Scenario,
    rate: f64,
    n: u64,
    seed: u64,
) -> (BenchSummary, Vec<RequestTrace>) {
    let requests = bench_requests(s, rate, n, seed).unwrap();
    let (summary, mut lives) = replay_traced(s, &requests, Some(rate)).unwrap();
    lives.sort_by_key(|l| l.index);
    (summary, lives)
}

/// A JSON-lines trace with token times of `n` requests at `rate`.
pub fn synthetic_trace(rate: f64, n: u64, seed: u64) -> String {
    synthetic_trace_on(&truth(), rate, n, seed)
}

/// [`synthetic_trace`] of the server `s`.
pub fn synthetic_trace_on(s: &Scenario, rate: f64, n: u64, seed: u64) -> String {
    let (_, lives) = simulated_on(s, rate, n, seed);
    lives
        .iter()
        .map(|l| {
            format!(
                "{{\"arrival_s\": {}, \"prompt_tokens\": {}, \"output_tokens\": {}, \"first_token_s\": {}, \"last_token_s\": {}}}\n",
                l.arrival, l.prompt_tokens, l.output_tokens, l.first_token, l.finish
            )
        })
        .collect()
}

/// A `vllm bench serve --save-result` file of the model's run at `rate`, with `--save-detailed`'s lists when
/// `detailed` (each request's decode gaps written as equal steps: only their sum is read).
pub fn synthetic_result(rate: f64, n: u64, seed: u64, detailed: bool) -> String {
    let (summary, lives) = simulated(rate, n, seed);
    let mut result = serde_json::json!({
        "date": "20261201-120000", "backend": "vllm", "model_id": "synthetic", "num_prompts": n,
        "request_rate": rate, "burstiness": 1.0, "max_concurrency": null,
        "duration": summary.duration, "completed": n, "failed": 0,
        "total_input_tokens": summary.total_input_tokens, "total_output_tokens": summary.total_output_tokens,
        "request_throughput": summary.throughput, "request_goodput": null,
        "output_throughput": summary.output_throughput,
        "mean_ttft_ms": summary.ttft.mean * 1e3, "median_ttft_ms": summary.ttft.p50 * 1e3,
        "p99_ttft_ms": summary.ttft.p99 * 1e3,
        "mean_tpot_ms": summary.tpot.mean * 1e3, "median_tpot_ms": summary.tpot.p50 * 1e3,
        "p99_tpot_ms": summary.tpot.p99 * 1e3,
        "mean_itl_ms": summary.itl.mean * 1e3, "median_itl_ms": summary.itl.p50 * 1e3,
        "mean_e2el_ms": summary.e2e.mean * 1e3, "median_e2el_ms": summary.e2e.p50 * 1e3,
    });
    if detailed {
        let object = result.as_object_mut().unwrap();
        object.insert(
            "input_lens".into(),
            lives.iter().map(|l| l.prompt_tokens).collect(),
        );
        object.insert(
            "output_lens".into(),
            lives.iter().map(|l| l.output_tokens).collect(),
        );
        object.insert(
            "ttfts".into(),
            lives.iter().map(|l| l.first_token - l.arrival).collect(),
        );
        let itls: Vec<Vec<f64>> = lives
            .iter()
            .map(|l| {
                let gaps = l.output_tokens.saturating_sub(1) as usize;
                vec![(l.finish - l.first_token) / gaps.max(1) as f64; gaps]
            })
            .collect();
        object.insert("itls".into(), serde_json::json!(itls));
    }
    result.to_string()
}
