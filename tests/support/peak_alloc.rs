//! The heap's high-water mark per thread, for tests that hold memory to a budget (`tests/memory_budget.rs`, the fuzz
//! targets' oracle in `tests/fuzz_inputs.rs`): the includer installs [`Counting`] as its global allocator. Per
//! thread, so that tests run side by side do not count each other's allocations (memory freed on another thread
//! than the one that took it is counted as freed there).
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting each thread's bytes held and their peak.
pub struct Counting;

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(bytes: isize) {
    let _ = HELD.try_with(|held| {
        held.set(held.get() + bytes);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(held.get())));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout is passed on unchanged.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            add(layout.size() as isize);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: `pointer` came from `alloc` with this layout.
        unsafe { System.dealloc(pointer, layout) };
        add(-(layout.size() as isize));
    }
}

/// The most this thread's heap grew above its size when `work` began, in bytes, and what `work` returned.
pub fn peak_of<T>(work: impl FnOnce() -> T) -> (usize, T) {
    let start = HELD.with(Cell::get);
    PEAK.with(|peak| peak.set(start));
    let out = work();
    let peak = PEAK.with(Cell::get) - start;
    (peak.max(0) as usize, out)
}
