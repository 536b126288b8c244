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

/// The report as text.
pub fn render(calibration: &Calibration) -> String {
    let mut out = String::new();
    let fit = &calibration.fit;
    let _ = writeln!(out, "Calibration from {} observations", fit.rows);
    let _ = writeln!(out, "\nCoefficients (least squares):");
    for (k, coefficient) in fit.coefficients.iter().enumerate() {
        let value = if k == super::fit::FIXED || k == super::fit::FRONTEND {
            ms(coefficient.value)
        } else {
            format!("{:.3e} s", coefficient.value)
        };
        let how = match (&coefficient.not_determined, coefficient.relative_error) {
            (Some(why), _) => format!("not determined, set to 0: {why}"),
            (None, Some(e)) => format!("± {:.0}%, from {}", e * 100.0, SOURCES[k]),
            (None, None) => format!(
                "from {} (no more figures than coefficients: no error estimate)",
                SOURCES[k]
            ),
        };
        let _ = writeln!(out, "  {:<28} {value:>12}  {how}", COEFFICIENTS[k]);
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
    uncertainty(&mut out, calibration.uncertainty.as_ref());
    let _ = writeln!(out, "\nLengths: {}", calibration.lengths_from);
    let _ = writeln!(out, "Server flags:");
    for line in &calibration.assumptions {
        let _ = writeln!(out, "  {line}");
    }
    out
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
