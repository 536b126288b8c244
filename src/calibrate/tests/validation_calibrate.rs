//! `calibrate` against a real vLLM server: the CodeLlama-34B trace of `tests/validation_vllm.rs` (vLLM 0.11.0, one
//! 80 GB GPU, a 40 592-token KV cache, `--max-num-batched-tokens 4096`, `--max-num-seqs 256`; source and licence in
//! `tests/fixtures/vllm-otel/README.md`). The calibration sees only the light stages — the synchronous one and the
//! lightest constant rate — as a trace with token times, exactly as `goodput-sim calibrate` reads one; every other
//! stage is replayed (its own arrivals and lengths) in the calibrated model and compared with what the server did.
//! Nothing is fitted to the stages predicted.
//!
//! The trace is vendored beside its README (Apache-2.0), so the test runs in every `cargo test`;
//! `cargo test -p goodput-calibrate --test validation_calibrate -- --nocapture` prints the error table.

use goodput_calibrate::check::{BenchFigures, Measured};
use goodput_calibrate::inputs::{InputFile, Life};
use goodput_calibrate::{calibrate, report, ServerFlags};
use goodput_model::{replay, TraceRequest};

#[path = "../../../tests/support/vllm_trace.rs"]
mod vllm_trace;
use vllm_trace::trace;

/// (arrival, prompt, output, ttft, e2e), arrivals from 0.
fn rows() -> Vec<(f64, u32, u32, f64, f64)> {
    let mut rows: Vec<_> = trace()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].parse::<f64>().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect();
    let t0 = rows[0].0;
    for r in &mut rows {
        r.0 -= t0;
    }
    rows
}

/// The sweep's stages: the synchronous requests, then groups separated by pauses of more than 20 s.
fn stages(rows: &[(f64, u32, u32, f64, f64)]) -> Vec<std::ops::Range<usize>> {
    let sync = (1..rows.len())
        .find(|&i| rows[i].0 < rows[i - 1].0 + rows[i - 1].4)
        .unwrap()
        - 1;
    let mut out = Vec::with_capacity(12);
    out.push(0..sync);
    let mut start = sync;
    for i in sync + 1..rows.len() {
        if rows[i].0 - rows[i - 1].0 > 20.0 {
            out.push(start..i);
            start = i;
        }
    }
    out.push(start..rows.len());
    out
}

/// A stage's requests as lives from its first arrival.
fn lives(rows: &[(f64, u32, u32, f64, f64)]) -> Vec<Life> {
    let t0 = rows[0].0;
    rows.iter()
        .map(|r| Life {
            arrival: Some(r.0 - t0),
            prompt: r.1,
            output: r.2,
            ttft: Some(r.3),
            e2e: Some(r.4),
        })
        .collect()
}

/// A stage as the trace file `calibrate` reads (JSON lines with token times).
fn trace_file(name: &str, rows: &[(f64, u32, u32, f64, f64)]) -> InputFile {
    let text = rows
        .iter()
        .map(|r| {
            format!(
                "{{\"arrival_s\": {}, \"prompt_tokens\": {}, \"output_tokens\": {}, \"first_token_s\": {}, \"last_token_s\": {}}}\n",
                r.0, r.1, r.2, r.0 + r.3, r.0 + r.4
            )
        })
        .collect();
    InputFile {
        name: name.to_owned(),
        text,
    }
}

fn cell(model: f64, measured: f64) -> (f64, String) {
    let error = (model - measured) / measured * 100.0;
    (error, format!("{error:+.0}% ({model:.3} vs {measured:.3})"))
}

#[test]
fn calibrated_from_light_load_the_model_predicts_the_heavier_stages() {
    let rows = rows();
    let stages = stages(&rows);
    let light = [0usize, 2];
    let files: Vec<InputFile> = light
        .iter()
        .map(|&k| trace_file(&format!("stage-{k}.jsonl"), &rows[stages[k].clone()]))
        .collect();
    let flags = ServerFlags {
        max_num_seqs: Some(256),
        max_num_batched_tokens: Some(4096),
        chunked_prefill: Some(true),
        kv_cache_tokens: Some(40_592),
        ..ServerFlags::default()
    };
    let calibration = calibrate(&files, &flags).unwrap();
    println!("{}", report::render(&calibration));
    println!("| stage | requests | TTFT p50 | TTFT p99 | TPOT p50 | throughput |");
    println!("| --- | --: | --: | --: | --: | --: |");
    let mut worst_below_knee = [0.0f64; 4];
    let mut measured_p99 = Vec::new();
    let mut model_p99 = Vec::new();
    for (k, range) in stages.iter().enumerate() {
        let stage = &rows[range.clone()];
        let lives = lives(stage);
        let measured = BenchFigures::of_trace(&lives).unwrap();
        let requests: Vec<TraceRequest> = lives
            .iter()
            .map(|l| TraceRequest {
                arrival_s: l.arrival.unwrap(),
                prompt_tokens: l.prompt,
                output_tokens: l.output,
            })
            .collect();
        let model = BenchFigures::of(&replay(&calibration.scenario, &requests, None).unwrap());
        let rate = (stage.len() as f64 - 1.0) / (stage[stage.len() - 1].0 - stage[0].0);
        let name = match k {
            0 => "synchronous (calibrated)".to_owned(),
            1 => "all at once (past the knee)".to_owned(),
            2 => format!("constant {rate:.3} req/s (calibrated)"),
            _ => format!("constant {rate:.3} req/s"),
        };
        let cells = [
            cell(model.ttft_p50, measured.ttft_p50),
            cell(model.ttft_p99.unwrap(), measured.ttft_p99.unwrap()),
            cell(model.tpot_p50, measured.tpot_p50),
            cell(model.throughput, measured.throughput),
        ];
        println!(
            "| {name} | {} | {} | {} | {} | {} |",
            stage.len(),
            cells[0].1,
            cells[1].1,
            cells[2].1,
            cells[3].1
        );
        if k >= 3 {
            measured_p99.push((rate, measured.ttft_p99.unwrap()));
            model_p99.push((rate, model.ttft_p99.unwrap()));
            for (worst, (error, _)) in worst_below_knee.iter_mut().zip(&cells) {
                *worst = worst.max(error.abs());
            }
        }
    }
    // The knee: the first rate whose p99 TTFT is twice the lightest constant stage's.
    let knee = |points: &mut Vec<(f64, f64)>, light: f64| {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        points.iter().find(|p| p.1 >= 2.0 * light).map(|p| p.0)
    };
    let light_measured = BenchFigures::of_trace(&lives(&rows[stages[2].clone()])).unwrap();
    let light_p99 = light_measured.ttft_p99.unwrap();
    let (measured_knee, model_knee) = (
        knee(&mut measured_p99, light_p99),
        knee(&mut model_p99, light_p99),
    );
    println!(
        "knee (p99 TTFT twice the lightest rate's): measured {measured_knee:?}, model {model_knee:?}"
    );
    // Within one measured rate step: here both are past the sweep's constant rates, or both at the same one.
    assert_eq!(measured_knee.is_some(), model_knee.is_some());
    println!("worst error over the predicted constant rates: {worst_below_knee:?}");
    // The tolerances below the knee: TTFT p50 25%, p99 30%, TPOT p50 15%, throughput 15%.
    assert!(worst_below_knee[0] <= 25.0, "TTFT p50 {worst_below_knee:?}");
    assert!(worst_below_knee[1] <= 30.0, "TTFT p99 {worst_below_knee:?}");
    assert!(worst_below_knee[2] <= 15.0, "TPOT p50 {worst_below_knee:?}");
    assert!(
        worst_below_knee[3] <= 15.0,
        "throughput {worst_below_knee:?}"
    );
}
