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

/// The heap serde_json's values of `text` take, bytes.
fn heap_of_values(text: &str) -> usize {
    let (peak, value) = peak_of(|| serde_json::from_str::<serde_json::Value>(text).unwrap());
    drop(value);
    peak
}

#[test]
fn the_json_shape_is_an_upper_bound_on_the_values_heap() {
    use goodput_calibrate::inputs::json_shape;
    let repeat = |item: &str, n: usize| format!("[{}]", vec![item; n].join(","));
    let twelve_keys = format!(
        "{{{}}}",
        (0..12)
            .map(|k| format!("\"k{k}\":{k}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    for (what, text) in [
        ("one-key objects", repeat("{\"a\":1}", 100_000)),
        ("empty objects", repeat("{}", 100_000)),
        ("twelve-key objects", repeat(&twelve_keys, 20_000)),
        ("numbers", repeat("0.02", 200_000)),
        ("short lists", repeat("[1]", 100_000)),
        ("strings", repeat("\"abcdefgh\"", 100_000)),
        ("empty lists", repeat("[]", 100_000)),
    ] {
        let counted = json_shape(&text).largest_heap;
        let held = heap_of_values(&text) as f64;
        eprintln!(
            "{what}: {:.1} MB held, {:.1} MB counted ({:.0}× the text)",
            held / 1e6,
            counted / 1e6,
            counted / text.len() as f64
        );
        assert!(
            held <= counted,
            "{what}: {held} bytes held, {counted} counted"
        );
    }
}

#[test]
fn small_json_objects_filling_the_file_limit_are_refused_in_little_memory() {
    use goodput_calibrate::inputs::MAX_INPUT_BYTES;
    // The 59 MB of small objects took 5.0 GB as JSON values: as one list, and one a line.
    let item = "{\"a\":1}";
    let n = (MAX_INPUT_BYTES - 2) / (item.len() + 1);
    let list = format!("[{}]", vec![item; n].join(","));
    let lines = format!("{item}\n").repeat(n);
    for (what, text, expected) in [
        ("list", list, "its JSON would take about"),
        ("lines", lines, "not a vllm bench serve result"),
    ] {
        let bytes = text.len();
        let file = InputFile {
            name: "objects.json".to_owned(),
            text,
        };
        let (peak, outcome) =
            peak_of(|| calibrate(std::slice::from_ref(&file), &ServerFlags::default()));
        let e = outcome.expect_err("refused").to_string();
        assert!(e.contains(expected), "{what}: {e}");
        eprintln!(
            "{what}: refused at a peak of {:.1} MB over {:.0} MB",
            peak as f64 / 1e6,
            bytes as f64 / 1e6
        );
        assert!(peak < bytes, "{what}: peak {peak} bytes over {bytes}");
    }
}

#[test]
fn traces_of_more_requests_than_a_calibration_takes_are_refused_before_they_are_held() {
    use goodput_calibrate::inputs::MAX_REQUESTS;
    // Two traces of 600,000 short timed rows each, 7 MB apiece: at about 1 kB a request held for the fit and the
    // model's replay, two 64 MB traces of such rows took over 2 GB.
    let mut text = String::from("arrival_s,prompt_tokens,output_tokens,ttft_s,e2e_s\n");
    for i in 0..600_000 {
        text.push_str(&format!("{i},9,9,0.1,0.3\n"));
    }
    let file = |name: &str| InputFile {
        name: name.to_owned(),
        text: text.clone(),
    };
    let (peak, outcome) =
        peak_of(|| calibrate(&[file("a.csv"), file("b.csv")], &ServerFlags::default()));
    let e = outcome.expect_err("refused").to_string();
    assert_eq!(
        e,
        format!(
            "the inputs up to b.csv hold 1200000 requests one by one, more than the {MAX_REQUESTS} one calibration \
             takes (give a sample: a few thousand requests at light load determine the fit)"
        )
    );
    eprintln!("refused at a peak of {:.0} MB", peak as f64 / 1e6);
    // One file of more lines than that: refused before it is parsed.
    let long = format!(
        "arrival_s,prompt_tokens,output_tokens\n{}",
        "0,1,1\n".repeat(MAX_REQUESTS + 1)
    );
    let bytes = long.len();
    let (peak, outcome) = peak_of(|| {
        calibrate(
            &[InputFile {
                name: "long.csv".to_owned(),
                text: long,
            }],
            &ServerFlags::default(),
        )
    });
    let e = outcome.expect_err("refused").to_string();
    assert!(
        e.starts_with("long.csv: 1000002 lines, more than the 1000000 requests"),
        "{e}"
    );
    assert!(peak < bytes / 4, "peak {peak} bytes");
}
