//! Runs the lab's [`SlicedSweep`] on the main thread in slices of a few milliseconds, yielding to the browser between
//! them, so moving a control never waits for the model. Each finished pass is published as a [`Snapshot`]; a change
//! of settings abandons the running sweep and starts a new one.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use gloo_timers::callback::Timeout;
use leptos::prelude::*;

use crate::components::perf;
use crate::lab::{sweep_for, LabSettings};
use crate::model::Estimate;
use crate::model::SlicedSweep;

/// Work per slice before yielding, milliseconds: well under a 16 ms frame, so input and paint keep their turn.
const SLICE_MS: f64 = 6.0;
/// Requests simulated per call into the sweep: small enough that one call never overshoots the slice by much.
const STEP_REQUESTS: u64 = 1_500;

/// The sweep's results after a pass.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// Load and latest estimate per point, ordered by load.
    pub points: Vec<(f64, Option<Estimate>)>,
    /// Passes finished (1 = the rough first pass).
    pub passes_done: usize,
    /// Whether every point has its full run.
    pub done: bool,
}

/// What the runner reports besides results.
#[derive(Clone, Debug, PartialEq)]
pub enum RunState {
    /// A sweep is running; `passes_done` of its passes are finished.
    Running {
        /// Finished passes.
        passes_done: usize,
    },
    /// The sweep has converged.
    Done,
    /// The settings describe no valid scenario (the message names the field).
    Invalid(String),
}

/// Keeps `snapshot` and `state` up to date with a sweep of `sweep_settings` over `loads`, restarting whenever the
/// settings change. `label` prefixes the performance measures (see [`perf`]).
pub fn use_sliced_sweep(
    sweep_settings: Memo<LabSettings>,
    loads: Vec<f64>,
    label: &'static str,
) -> (ReadSignal<Option<Snapshot>>, ReadSignal<RunState>) {
    let (snapshot, set_snapshot) = signal(None::<Snapshot>);
    let (state, set_state) = signal(RunState::Running { passes_done: 0 });
    // Bumped on every restart, and when the lab leaves the page (e.g. the lesson turns into a presentation): a slice
    // scheduled for an older sweep sees the change and stops before it touches the lab's disposed signals.
    let generation = Arc::new(AtomicU64::new(0));
    let on_leave = Arc::clone(&generation);
    on_cleanup(move || {
        on_leave.fetch_add(1, Ordering::SeqCst);
    });
    Effect::new(move |_| {
        let settings = sweep_settings.get();
        let started = perf::now();
        let this_generation = generation.fetch_add(1, Ordering::SeqCst) + 1;
        match sweep_for(&settings, &loads) {
            Ok(sweep) => {
                set_state.set(RunState::Running { passes_done: 0 });
                let job = Job {
                    sweep,
                    generation: Arc::clone(&generation),
                    this_generation,
                    started,
                    label,
                    set_snapshot,
                    set_state,
                };
                job.schedule();
            }
            Err(error) => set_state.set(RunState::Invalid(error.to_string())),
        }
    });
    (snapshot, state)
}

/// One sweep in flight.
struct Job {
    sweep: SlicedSweep,
    generation: Arc<AtomicU64>,
    this_generation: u64,
    started: f64,
    label: &'static str,
    set_snapshot: WriteSignal<Option<Snapshot>>,
    set_state: WriteSignal<RunState>,
}

impl Job {
    fn schedule(self) {
        Timeout::new(0, move || self.slice()).forget();
    }

    fn slice(mut self) {
        if self.generation.load(Ordering::SeqCst) != self.this_generation {
            return;
        }
        let deadline = perf::now() + SLICE_MS;
        let mut pass_finished = false;
        while !self.sweep.is_done() && perf::now() < deadline {
            pass_finished |= self.sweep.step(STEP_REQUESTS);
            if pass_finished {
                break;
            }
        }
        if pass_finished {
            self.publish();
        }
        if !self.sweep.is_done() {
            self.schedule();
        }
    }

    fn publish(&self) {
        let passes_done = self.sweep.passes_done();
        let done = self.sweep.is_done();
        self.set_snapshot.set(Some(Snapshot {
            points: self
                .sweep
                .points()
                .map(|(load, estimate)| (load, estimate.cloned()))
                .collect(),
            passes_done,
            done,
        }));
        self.set_state.set(if done {
            RunState::Done
        } else {
            RunState::Running { passes_done }
        });
        // Measured after the charts have drawn the result: the effects run before the next frame.
        let (label, started) = (self.label, self.started);
        let name = if passes_done == 1 {
            Some("first-result")
        } else if done {
            Some("converged")
        } else {
            None
        };
        if let Some(name) = name {
            perf::measure_at_next_frame(format!("{label}:{name}"), started);
        }
    }
}
