//! Memory in proportion to the input (issue 42): the heap's peak while reading and calibrating from a file, counted
//! by a global allocator that keeps the high-water mark, stays within a few times the file's size.

use goodput_calibrate::inputs::InputFile;
use goodput_calibrate::{calibrate, ServerFlags};

#[path = "support/peak_alloc.rs"]
mod peak_alloc;
use peak_alloc::{peak_of, Counting};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn a_json_lines_trace_is_calibrated_in_a_few_times_its_size() {
    // 200,000 short lines, about 19 MB: 112 MB at the peak (5.9×); held as JSON values first, the lines took about
    // ten times their size.
    let mut text = String::new();
    for i in 0..200_000 {
        text.push_str(&format!(
            "{{\"arrival_s\": {:.2}, \"prompt_tokens\": 10, \"output_tokens\": 5, \"ttft_s\": 0.02, \"e2e_s\": 0.05}}\n",
            f64::from(i) * 0.01
        ));
    }
    let bytes = text.len();
    let file = InputFile {
        name: "trace.jsonl".to_owned(),
        text,
    };
    let (peak, calibration) =
        peak_of(|| calibrate(std::slice::from_ref(&file), &ServerFlags::default()));
    let calibration = calibration.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(calibration.inputs[0].requests, 200_000);
    eprintln!(
        "peak {:.0} MB over a {:.0} MB trace: {:.1}×",
        peak as f64 / 1e6,
        bytes as f64 / 1e6,
        peak as f64 / bytes as f64
    );
    assert!(peak < 6 * bytes, "peak {peak} bytes for a trace of {bytes}");
}
