//! The fit report: each coefficient with where it came from and how well the inputs pin it down, the residual of
//! every input figure (the fit's, and the model's repeat of the input's experiment), what the inputs could not
//! determine and what was assumed instead.

use super::check::BenchFigures;
use super::fit::COEFFICIENTS;
use super::Calibration;
use std::fmt::Write;

/// Milliseconds with three significant figures at most.
fn ms(seconds: f64) -> String {
    let ms = seconds * 1000.0;
    if ms.abs() >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms.abs() >= 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.2} ms")
    }
}

/// The relative error of `model` against `measured`, signed, as a percentage.
pub fn error_percent(model: f64, measured: f64) -> f64 {
    (model - measured) / measured * 100.0
}

fn compare(out: &mut String, what: &str, measured: f64, model: f64, unit: fn(f64) -> String) {
    let _ = writeln!(
        out,
        "      {what:<11} measured {:>10}  model {:>10}  {:+.0}%",
        unit(measured),
        unit(model),
        error_percent(model, measured)
    );
}

fn per_second(rate: f64) -> String {
    format!("{rate:.3}/s")
}

fn figures(out: &mut String, measured: &BenchFigures, model: &BenchFigures) {
    compare(out, "TTFT p50", measured.ttft_p50, model.ttft_p50, ms);
    if let (Some(m), Some(p)) = (measured.ttft_p99, model.ttft_p99) {
        compare(out, "TTFT p99", m, p, ms);
    }
    compare(out, "TPOT p50", measured.tpot_p50, model.tpot_p50, ms);
    compare(
        out,
        "throughput",
        measured.throughput,
        model.throughput,
        per_second,
    );
}

/// Where each coefficient's value comes from, in words.
const SOURCES: [&str; 4] = [
    "the decode steps (TPOT) at the lightest batches",
    "how TPOT grows with the batch's context",
    "how TTFT grows with the prompt (the prefill's compute)",
    "the TTFT left when the prefill is taken away",
];

/// What physics says each coefficient is, in words.
fn physics(k: usize, prior: &super::prior::Prior) -> String {
    let roofline = prior.deployment.roofline();
    let gpu = &prior.deployment.gpu;
    let a = &prior.deployment.architecture;
    let gpus = f64::from(prior.deployment.tensor_parallel);
    match k {
        super::fit::FIXED => format!(
            "{:.1} GB of weights a GPU read at {:.0}% of {:.2} TB/s{}",
            a.weights_bytes() / gpus / 1e9,
            roofline.efficiency.bandwidth * 100.0,
            gpu.bandwidth / 1e12,
            if roofline.all_reduce_time() > 0.0 {
                format!(", and {} of all-reduces", ms(roofline.all_reduce_time()))
            } else {
                String::new()
            }
        ),
        super::fit::PER_CONTEXT_TOKEN => format!(
            "{:.0} KB of KV cache a token and GPU, read as efficiently as the weights",
            roofline.kv_bytes_per_token_per_gpu() / 1e3
        ),
        super::fit::PER_TOKEN => format!(
            "2 × {:.2} B active parameters a token over {:.0}% of {:.0} TFLOP/s",
            a.active_parameters / 1e9 / gpus,
            roofline.efficiency.compute * 100.0,
            gpu.peak_flops(a.weight_bytes) / 1e12
        ),
        _ => "vLLM's front end, about 4 ms".to_owned(),
    }
}

fn value_text(k: usize, value: f64) -> String {
    if k == super::fit::FIXED || k == super::fit::FRONTEND {
        ms(value)
    } else {
        format!("{value:.3e} s")
    }
}

/// One coefficient's line (and, with a prior, the line saying what physics gave).
fn coefficient(
    out: &mut String,
    k: usize,
    fitted: &super::fit::Fitted,
    prior: Option<&super::prior::Prior>,
) {
    let value = value_text(k, fitted.value);
    let error = fitted
        .relative_error
        .map_or(String::new(), |e| format!("± {:.0}%, ", e * 100.0));
    let how = match (&fitted.not_determined, fitted.from_inputs, prior) {
        (Some(why), _, _) => format!("not determined, set to 0: {why}"),
        (None, Some(share), Some(_)) if share < 0.5 => format!(
            "{error}PRIOR (physics; the inputs gave {:.0}% of it: they cannot tell it)",
            share * 100.0
        ),
        (None, Some(share), Some(_)) => format!(
            "{error}FIT ({:.0}% from the inputs: {})",
            share * 100.0,
            SOURCES[k]
        ),
        (None, _, _) if fitted.relative_error.is_some() => format!("{error}from {}", SOURCES[k]),
        (None, _, _) => format!(
            "from {} (no more figures than coefficients: no error estimate)",
            SOURCES[k]
        ),
    };
    let _ = writeln!(out, "  {:<28} {value:>12}  {how}", COEFFICIENTS[k]);
    if let (Some(prior), Some(anchor)) = (prior, fitted.anchor) {
        let _ = writeln!(
            out,
            "  {:<28} {:>12}  physics: {}{}",
            "",
            value_text(k, anchor),
            physics(k, prior),
            if fitted.not_determined.is_none() && anchor > 0.0 {
                format!(" (fitted ÷ physics: {:.2})", fitted.value / anchor)
            } else {
                String::new()
            }
        );
    }
}

/// The report as text.
pub fn render(calibration: &Calibration) -> String {
    let mut out = String::new();
    let fit = &calibration.fit;
    let _ = writeln!(out, "Calibration from {} observations", fit.rows);
    let prior = calibration.prior.as_ref();
    match prior {
        Some(p) => {
            let _ = writeln!(
                out,
                "\nCoefficients (least squares around the step time physics gives for {}: {}):",
                p.deployment.describe(),
                p.named_by
            );
        }
        None => {
            let _ = writeln!(
                out,
                "\nCoefficients (least squares, no prior from physics):"
            );
        }
    }
    for (k, fitted) in fit.coefficients.iter().enumerate() {
        coefficient(&mut out, k, fitted, prior);
    }
    let _ = writeln!(
        out,
        "  iteration.per_decode_seq, per_prefill_token: 0 (their costs are in per_context_token and compute.per_token)"
    );
    let _ = writeln!(out, "\nInputs:");
    for input in &calibration.inputs {
        let rate = input
            .rate
            .map_or(String::new(), |r| format!(", {r:.3} req/s"));
        let _ = writeln!(
            out,
            "  {} ({}, {} requests{rate})",
            input.name, input.kind, input.requests
        );
        for (figure, measured, fitted) in &input.residuals {
            let _ = writeln!(
                out,
                "    fit: mean {:<12} measured {:>10}  fitted {:>10}  {:+.0}%",
                figure.name(),
                ms(*measured),
                ms(*fitted),
                error_percent(*fitted, *measured)
            );
        }
        if let Some(check) = &input.check {
            let _ = writeln!(out, "    the same experiment in the model:");
            figures(&mut out, &check.measured, &check.model);
        }
    }
    reproduced(&mut out, &calibration.unreproduced);
    uncertainty(&mut out, calibration.uncertainty.as_ref());
    let _ = writeln!(out, "\nLengths: {}", calibration.lengths_from);
    let _ = writeln!(out, "Server flags:");
    for line in &calibration.assumptions {
        let _ = writeln!(out, "  {line}");
    }
    out
}

/// Whether the calibrated model repeats its own inputs within the tolerances, and what it means when it does not.
fn reproduced(out: &mut String, misses: &[String]) {
    let tolerances = super::check::TOLERANCES
        .iter()
        .map(|(name, t)| format!("{name} {:.0}%", t * 100.0))
        .collect::<Vec<_>>()
        .join(", ");
    if misses.is_empty() {
        let _ = writeln!(
            out,
            "\nIts own inputs, repeated in the model: every figure within the tolerances ({tolerances}; \
             throughput only where the model ran the input's own arrivals)."
        );
        return;
    }
    let _ = writeln!(
        out,
        "\nTHE FIT DOES NOT REPRODUCE ITS OWN INPUTS (tolerances: {tolerances}):"
    );
    for miss in misses {
        let _ = writeln!(out, "  {miss}");
    }
    let _ = writeln!(
        out,
        "  The step-time model does not describe these measurements, so what it predicts beyond them is not a \
         forecast: the ranges below are widened by the worst miss, and no knee should be planned on. Check the \
         flags (--max-num-seqs, --kv-cache-tokens, --model, --gpu) and measure a run near the rate you plan for."
    );
}

fn range(r: &super::uncertainty::Range) -> String {
    format!("{:.3} req/s (range {:.3}–{:.3})", r.central, r.low, r.high)
}

/// The capacity and the knee as ranges, and how far the prediction reaches beyond the inputs.
fn uncertainty(out: &mut String, uncertainty: Option<&super::uncertainty::Uncertainty>) {
    let _ = writeln!(out, "\nHow sure:");
    let Some(u) = uncertainty else {
        let _ = writeln!(
            out,
            "  not estimated here (goodput-sim calibrate gives the capacity and the knee as ranges), or the inputs \
             leave no residual to measure the coefficients' uncertainty by"
        );
        return;
    };
    let _ = writeln!(
        out,
        "  capacity {} over {} draws of the coefficients within their fitted uncertainty (the range leaves out \
         what the step-time model itself gets wrong)",
        range(&u.capacity),
        u.draws
    );
    match &u.knee {
        Some(knee) => {
            let _ = writeln!(
                out,
                "  knee (p99 TTFT twice its value at a tenth of the capacity, the scenario's arrivals) {}",
                range(knee)
            );
        }
        None => {
            let _ = writeln!(out, "  knee: none below the capacity in the model");
        }
    }
    let reference = u.knee.map_or(u.capacity.central, |k| k.central);
    match u.highest_measured {
        Some(highest) if u.extrapolates() => {
            let _ = writeln!(
                out,
                "  every input is light load: the highest ran at {highest:.3} req/s, {:.0}% of the knee. Up to about \
                 twice that rate the prediction rests on measured batches; beyond, and at the knee, it extrapolates \
                 the step-time model — treat the knee's range as the least it could be off by, and measure a run \
                 near it to be sure",
                highest / reference * 100.0
            );
        }
        Some(highest) => {
            let _ = writeln!(
                out,
                "  the inputs reach {highest:.3} req/s, {:.0}% of the knee: the knee is within what was measured",
                highest / reference * 100.0
            );
        }
        None => {
            let _ = writeln!(
                out,
                "  no input says its rate: how far the prediction extrapolates is unknown"
            );
        }
    }
}
