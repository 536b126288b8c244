//! The model against public measurements of a real vLLM server: vLLM 0.11.0 serving CodeLlama-34B (bf16, one 80 GB
//! GPU, a 40 592-token KV cache, `--max-num-batched-tokens 4096`, `--max-num-seqs 256`, chunked prefill and prefix
//! caching on), driven by a guidellm sweep — a synchronous stage, all-at-once ("throughput") burst, then ten
//! constant rates — and traced request by request with OpenTelemetry. Source, commit, licence and where the trace
//! is kept: `tests/fixtures/vllm-otel/README.md`.
//!
//! The trace is vendored beside its README (Apache-2.0), so these tests run in every `cargo test`;
//! `cargo test -p goodput-model --test validation_vllm -- --nocapture` prints the error tables.
//!
//! The step times come from the synchronous stage only (one request at a time, light load): the decode step and
//! its growth with context from each request's (E2E − TTFT) / (output − 1), the prefill's compute cost from its TTFT.
//! The whole trace (arrivals and lengths as measured) is then replayed, and every other stage is predicted, not
//! fitted.

use goodput_model::{
    replay_traced, Arrivals, ComputeTime, IterationModel, KvCache, LengthDist, LlmFleet,
    RequestTrace, Scenario, ServiceKind, Slo, TraceRequest,
};

#[path = "../../../tests/support/vllm_trace.rs"]
mod vllm_trace;
use vllm_trace::trace;

/// One measured request.
struct Measured {
    arrival: f64,
    prompt: u32,
    output: u32,
    ttft: f64,
    e2e: f64,
}

fn measured() -> Vec<Measured> {
    let mut rows: Vec<Measured> = trace()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Measured {
                arrival: f[0].parse().unwrap(),
                prompt: f[1].parse().unwrap(),
                output: f[2].parse().unwrap(),
                ttft: f[3].parse().unwrap(),
                e2e: f[4].parse().unwrap(),
            }
        })
        .collect();
    let t0 = rows[0].arrival;
    for r in &mut rows {
        r.arrival -= t0;
    }
    rows
}

/// The stages of the sweep, as index ranges: the leading synchronous requests (each sent after the previous one
/// finished), then groups separated by a pause of more than 20 s.
fn stages(rows: &[Measured]) -> Vec<std::ops::Range<usize>> {
    let sync = (1..rows.len())
        .find(|&i| rows[i].arrival < rows[i - 1].arrival + rows[i - 1].e2e)
        .unwrap()
        - 1;
    let mut out = Vec::with_capacity(12);
    out.push(0..sync);
    let mut start = sync;
    for i in sync + 1..rows.len() {
        if rows[i].arrival - rows[i - 1].arrival > 20.0 {
            out.push(start..i);
            start = i;
        }
    }
    out.push(start..rows.len());
    out
}

/// Least squares `y ≈ a·x1 + b·x2`.
fn fit2(x1: &[f64], x2: &[f64], y: &[f64]) -> (f64, f64) {
    let s = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
    let (s11, s12, s22) = (s(x1, x1), s(x1, x2), s(x2, x2));
    let (s1y, s2y) = (s(x1, y), s(x2, y));
    let det = s11 * s22 - s12 * s12;
    ((s1y * s22 - s2y * s12) / det, (s2y * s11 - s1y * s12) / det)
}

const BUDGET: u32 = 4096;

/// The step-time model fitted to the synchronous stage: decode steps `fixed + per_context_token · context` (memory
/// bound), prefill `compute.fixed + compute.per_token · tokens` per chunk of the 4096-token budget (compute bound).
fn fitted(sync: &[Measured]) -> IterationModel {
    let decoding: Vec<&Measured> = sync.iter().filter(|r| r.output > 1).collect();
    let ones = vec![1.0; decoding.len()];
    let context: Vec<f64> = decoding
        .iter()
        .map(|r| f64::from(r.prompt) + f64::from(r.output) / 2.0)
        .collect();
    let step: Vec<f64> = decoding
        .iter()
        .map(|r| (r.e2e - r.ttft) / f64::from(r.output - 1))
        .collect();
    let (fixed, per_context_token) = fit2(&ones, &context, &step);
    let chunks: Vec<f64> = sync
        .iter()
        .map(|r| f64::from(r.prompt.div_ceil(BUDGET)))
        .collect();
    let tokens: Vec<f64> = sync.iter().map(|r| f64::from(r.prompt)).collect();
    let ttft: Vec<f64> = sync.iter().map(|r| r.ttft).collect();
    let (chunk_fixed, per_token) = fit2(&chunks, &tokens, &ttft);
    IterationModel {
        fixed,
        per_prefill_token: 0.0,
        per_decode_seq: 0.0,
        per_context_token,
        compute: Some(ComputeTime {
            fixed: chunk_fixed.max(0.0),
            per_token,
        }),
    }
}

fn scenario(iteration: IterationModel) -> Scenario {
    Scenario {
        service: ServiceKind::Llm(LlmFleet {
            replicas: 1,
            max_num_seqs: 256,
            max_num_batched_tokens: BUDGET,
            chunked_prefill: true,
            prefill_first: false,
            iteration,
            // The trace gives every length; these only pass validation.
            prompt_tokens: LengthDist::Fixed { tokens: 1 },
            output_tokens: LengthDist::Fixed { tokens: 1 },
            kv_cache: KvCache::Tokens(40_592),
            prefix_caching: true,
            frontend_overhead: 0.0,
            max_num_queued_reqs: None,
            max_num_queued_tokens: None,
            shared_prefix_tokens: 0,
        }),
        arrivals: Arrivals::poisson(0.5),
        slo: Slo {
            ttft: 1.0,
            tpot: 0.05,
        },
        customers: 1,
        warm_up: 0,
    }
}

/// TTFT mean, p90, p99, TPOT mean and throughput of a stage (numpy-style percentiles).
#[derive(Debug, Clone, Copy)]
struct Figures {
    ttft_mean: f64,
    ttft_p90: f64,
    ttft_p99: f64,
    tpot_mean: f64,
    throughput: f64,
}

fn figures(arrival_first: f64, lives: &[(f64, f64, f64, u32)]) -> Figures {
    // (arrival, first token, finish, output tokens)
    let mut ttft: Vec<f64> = lives.iter().map(|l| l.1 - l.0).collect();
    ttft.sort_by(f64::total_cmp);
    let pct = |q: f64| {
        let h = (ttft.len() - 1) as f64 * q;
        let lo = h.floor() as usize;
        let hi = (lo + 1).min(ttft.len() - 1);
        ttft[lo] + (h - lo as f64) * (ttft[hi] - ttft[lo])
    };
    let tpots: Vec<f64> = lives
        .iter()
        .filter(|l| l.3 > 1)
        .map(|l| (l.2 - l.1) / f64::from(l.3 - 1))
        .collect();
    let end = lives.iter().map(|l| l.2).fold(f64::MIN, f64::max);
    Figures {
        ttft_mean: ttft.iter().sum::<f64>() / ttft.len() as f64,
        ttft_p90: pct(0.9),
        ttft_p99: pct(0.99),
        tpot_mean: tpots.iter().sum::<f64>() / tpots.len() as f64,
        throughput: lives.len() as f64 / (end - arrival_first),
    }
}

type Table = Vec<(String, usize, Figures, Figures)>;

/// Per stage: its name, the measured and the predicted figures; `change` alters the fitted scenario (ablations).
fn compare(change: impl Fn(&mut Scenario)) -> (IterationModel, Table) {
    let rows = measured();
    let stages = stages(&rows);
    let iteration = fitted(&rows[stages[0].clone()]);
    let requests: Vec<TraceRequest> = rows
        .iter()
        .map(|r| TraceRequest {
            arrival_s: r.arrival,
            prompt_tokens: r.prompt,
            output_tokens: r.output,
        })
        .collect();
    let mut s = scenario(iteration.clone());
    change(&mut s);
    let (_, mut traces) = replay_traced(&s, &requests, None).unwrap();
    traces.sort_by_key(|t| t.index);
    let lives = |range: std::ops::Range<usize>, traced: &[RequestTrace]| -> Vec<_> {
        range
            .map(|i| {
                let t = &traced[i];
                (t.arrival, t.first_token, t.finish, t.output_tokens)
            })
            .collect()
    };
    let real: Vec<RequestTrace> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| RequestTrace {
            index: i as u64,
            arrival: r.arrival,
            first_token: r.arrival + r.ttft,
            finish: r.arrival + r.e2e,
            prompt_tokens: r.prompt,
            output_tokens: r.output,
            replica: 0,
        })
        .collect();
    let out = stages
        .iter()
        .enumerate()
        .map(|(k, range)| {
            let first = rows[range.start].arrival;
            let name = match k {
                0 => "synchronous (fitted)".to_owned(),
                1 => "all at once".to_owned(),
                _ => {
                    let n = range.len() as f64;
                    let span = rows[range.end - 1].arrival - first;
                    format!("constant {:.3} req/s", (n - 1.0) / span)
                }
            };
            (
                name,
                range.len(),
                figures(first, &lives(range.clone(), &real)),
                figures(first, &lives(range.clone(), &traces)),
            )
        })
        .collect();
    (iteration, out)
}

fn error(predicted: f64, measured: f64) -> f64 {
    (predicted - measured) / measured
}

fn print(table: &Table) {
    println!("| stage | requests | TTFT mean | TTFT p90 | TTFT p99 | TPOT mean | throughput |");
    println!("| --- | --: | --: | --: | --: | --: | --: |");
    for (name, n, real, model) in table {
        let cell = |p: f64, m: f64| format!("{:+.0}% ({:.3} vs {:.3})", 100.0 * error(p, m), p, m);
        println!(
            "| {name} | {n} | {} | {} | {} | {} | {} |",
            cell(model.ttft_mean, real.ttft_mean),
            cell(model.ttft_p90, real.ttft_p90),
            cell(model.ttft_p99, real.ttft_p99),
            cell(model.tpot_mean, real.tpot_mean),
            cell(model.throughput, real.throughput),
        );
    }
}

/// The tolerances: TTFT mean and TPOT mean within 15%, TTFT p90 and p99 within 20%, throughput within 10%.
const TOLERANCES: [(&str, f64); 5] = [
    ("ttft_mean", 0.15),
    ("ttft_p90", 0.20),
    ("ttft_p99", 0.20),
    ("tpot_mean", 0.15),
    ("throughput", 0.10),
];

/// The cells of the predicted stages (not the fitted one) outside the tolerances.
fn misses(table: &Table) -> Vec<String> {
    let mut out = Vec::new();
    for (name, _, real, model) in &table[1..] {
        let pairs = [
            (model.ttft_mean, real.ttft_mean),
            (model.ttft_p90, real.ttft_p90),
            (model.ttft_p99, real.ttft_p99),
            (model.tpot_mean, real.tpot_mean),
            (model.throughput, real.throughput),
        ];
        for ((metric, tolerance), (p, m)) in TOLERANCES.iter().zip(pairs) {
            if error(p, m).abs() > *tolerance {
                out.push(format!("{name} {metric}: {:+.0}%", 100.0 * error(p, m)));
            }
        }
    }
    out
}

/// Prints the error table (`cargo test -p goodput-model --test validation_vllm -- --nocapture`), the one in BENCHMARKS.md, and
/// holds every predicted stage to the tolerances but for the one known miss: the 0.243 req/s stage's TTFT
/// p99, which is its largest TTFT of 24, a single 1.59 s outlier of the real server (a 6 607-token prompt with one
/// output token) that no queue at that load explains.
#[test]
fn the_model_predicts_every_stage_of_a_real_vllm_sweep_from_its_light_load() {
    let (it, table) = compare(|_| {});
    println!("fitted from the synchronous stage: {it:?}");
    print(&table);
    assert_eq!(
        table.len(),
        12,
        "synchronous, all at once, ten constant rates"
    );
    assert_eq!(misses(&table), ["constant 0.243 req/s ttft_p99: -38%"]);
}

/// What prefix-cache-aware preemption is worth on this trace: the all-at-once stage is KV-bound (22 requests of up to
/// 8 192 tokens into a 40 592-token cache), so it preempts; with full recompute instead, the model is far off.
#[test]
fn without_the_prefix_cache_the_burst_is_predicted_far_worse() {
    let (_, with) = compare(|_| {});
    let (_, full_recompute) = compare(|s| {
        if let ServiceKind::Llm(f) = &mut s.service {
            f.prefix_caching = false;
        }
    });
    println!("full recompute on preemption:");
    print(&full_recompute);
    let burst = |t: &Table| error(t[1].3.ttft_mean, t[1].2.ttft_mean).abs();
    assert!(burst(&with) < 0.15);
    assert!(burst(&full_recompute) > 1.0, "{}", burst(&full_recompute));
}

/// `codellama-34b.json` beside the trace is this fit, rounded to four digits, for the command line:
/// `goodput-sim run --scenario tests/fixtures/vllm-otel/codellama-34b.json --trace
/// tests/fixtures/vllm-otel/codellama-34b-sweep.csv`.
#[test]
fn the_scenario_file_beside_the_trace_is_the_fit() {
    let file: Scenario = serde_json::from_str(include_str!(
        "../../../tests/fixtures/vllm-otel/codellama-34b.json"
    ))
    .unwrap();
    file.validate().unwrap();
    let ServiceKind::Llm(f) = &file.service else {
        unreachable!()
    };
    let rows = measured();
    let fit = fitted(&rows[stages(&rows)[0].clone()]);
    let close = |a: f64, b: f64| (a / b - 1.0).abs() < 5e-4;
    let (c, cf) = (f.iteration.compute.as_ref().unwrap(), fit.compute.unwrap());
    assert!(close(f.iteration.fixed, fit.fixed));
    assert!(close(f.iteration.per_context_token, fit.per_context_token));
    assert!(close(c.fixed, cf.fixed) && close(c.per_token, cf.per_token));
    assert_eq!(f.kv_cache, KvCache::Tokens(40_592));
    assert!(f.prefix_caching && f.chunked_prefill);
    assert_eq!((f.max_num_seqs, f.max_num_batched_tokens), (256, BUDGET));
}
