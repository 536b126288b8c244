//! Memory in proportion to the input (issue 42): the heap's peak while reading and calibrating from a file, counted
//! by a global allocator that keeps the high-water mark, stays within a few times the file's size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use goodput::calibrate::inputs::InputFile;
use goodput::calibrate::{calibrate, ServerFlags};

/// The system allocator, counting the bytes held and their peak.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout is passed on unchanged.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(held, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: `pointer` came from `alloc` with this layout.
        unsafe { System.dealloc(pointer, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

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
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let calibration = calibrate(std::slice::from_ref(&file), &ServerFlags::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(calibration.inputs[0].requests, 200_000);
    let peak = PEAK.load(Ordering::Relaxed) - before;
    eprintln!(
        "peak {:.0} MB over a {:.0} MB trace: {:.1}×",
        peak as f64 / 1e6,
        bytes as f64 / 1e6,
        peak as f64 / bytes as f64
    );
    assert!(peak < 6 * bytes, "peak {peak} bytes for a trace of {bytes}");
}
