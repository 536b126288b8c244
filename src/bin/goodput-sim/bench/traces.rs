//! The trace readers' speed (issue 30: both were quadratic): `run --trace` reading a CSV and JSON lines, and
//! `calibrate` reading a timed trace, from the text to the fit, and calibrating from it (the check's replay
//! included). A million rows each, natively.

use super::{timed, Line};
use crate::trace::parse_trace;
use goodput::model::Scenario;
use goodput_calibrate::inputs::{parse, InputFile, Parsed};
use goodput_calibrate::observations::{trace_rows, Shape};
use goodput_calibrate::{calibrate, fit::fit, ServerFlags};

/// A trace of `rows` requests of a light server (about 10 a second, a 20 ms decode step), with token times, as CSV
/// or JSON lines; deterministic.
pub fn synthetic_trace(rows: usize, csv: bool) -> String {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |below: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % below
    };
    let mut out = String::with_capacity(rows * 80);
    if csv {
        out.push_str("arrival_s,prompt_tokens,output_tokens,first_token_s,last_token_s\n");
    }
    let mut arrival = 1_700_000_000.0;
    for _ in 0..rows {
        arrival += 0.02 + next(160) as f64 * 1e-3;
        let (prompt, output) = (100 + next(1900), 10 + next(290));
        let first = arrival + 0.03 + prompt as f64 * 5e-5;
        let last = first + (output - 1) as f64 * 0.02;
        if csv {
            out.push_str(&format!(
                "{arrival:.3},{prompt},{output},{first:.4},{last:.4}\n"
            ));
        } else {
            out.push_str(&format!(
                "{{\"arrival_s\": {arrival:.3}, \"prompt_tokens\": {prompt}, \"output_tokens\": {output}, \
                 \"first_token_s\": {first:.4}, \"last_token_s\": {last:.4}}}\n"
            ));
        }
    }
    out
}

fn line(what: String, rows: usize, secs: f64) -> Line {
    Line {
        what,
        work: rows as u64,
        unit: "rows",
        work_text: format!("{rows} rows"),
        seconds: secs,
        rate: format!("{:.2} M rows/s", rows as f64 / secs / 1e6),
    }
}

/// Times each reader on `rows` rows (best of three for the readers, one calibration).
pub fn time_trace_readers(rows: usize) -> Vec<Line> {
    let scenario = Scenario::distserve_preset();
    let best = |f: &dyn Fn() -> usize| (0..3).map(|_| timed(f).1).fold(f64::INFINITY, f64::min);
    let mut lines = Vec::new();
    for (csv, format) in [(true, "CSV"), (false, "JSON lines")] {
        let text = synthetic_trace(rows, csv);
        let secs = best(&|| {
            parse_trace(&text, "bench", &scenario)
                .map(|r| r.len())
                .unwrap_or(0)
        });
        lines.push(line(
            format!("run --trace: read a {format} trace (best of 3)"),
            rows,
            secs,
        ));
    }
    let file = InputFile {
        name: "bench.csv".to_owned(),
        text: synthetic_trace(rows, true),
    };
    let shape = Shape {
        replicas: 1.0,
        max_num_batched_tokens: 8192,
        chunked_prefill: true,
        prefill_first: false,
        cached_prefix: 0.0,
    };
    let secs = best(&|| match parse(&file) {
        Ok(Parsed::Trace(lives)) => fit(&trace_rows(0, &lives, &shape)).map_or(0, |f| f.rows),
        _ => 0,
    });
    lines.push(line(
        "calibrate: read a timed CSV trace to the fit's rows and fit them (best of 3)".to_owned(),
        rows,
        secs,
    ));
    let (_, secs) =
        timed(|| calibrate(std::slice::from_ref(&file), &ServerFlags::default()).is_ok());
    lines.push(line(
        "calibrate: the whole calibration from that trace, its replay in the model included"
            .to_owned(),
        rows,
        secs,
    ));
    lines
}
