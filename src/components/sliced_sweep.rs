//! Runs a [`SlicedSweep`] on the main thread in slices of a few milliseconds, yielding to the browser between them,
//! so moving a control never waits for the model. The knee lab's sweep and a chart prediction's true curve both run
//! here; they differ only in what they show and when (after each pass, or as each point is final).
//!
//! Cancellation: the hook owns the one pending slice, a [`NextTask`]. A new sweep replaces it, and when the component
//! leaves the page (a presentation moves on to another screen) the task is dropped, so a stale slice never runs.

use std::rc::Rc;

use leptos::prelude::*;

use crate::components::next_task::NextTask;
use crate::components::perf;
use crate::model::{ScenarioError, SlicedSweep};

/// Work per slice before yielding, milliseconds: well under a 16 ms frame, so input and paint keep their turn.
const SLICE_MS: f64 = 6.0;
/// Requests simulated per call into the sweep: small enough that one call never overshoots the slice by much.
const STEP_REQUESTS: u64 = 1_500;

/// When the sweep's results are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Publish {
    /// After each pass over all points: a whole curve, rough and then sharper (the lab).
    EveryPass,
    /// As each point's full run completes: a curve that grows point by point, each point final (a prediction).
    EveryFinishedPoint,
}

/// What the sweep is doing.
#[derive(Clone, Debug, PartialEq)]
pub enum RunState {
    /// Nothing to run (the caller's key is `None`).
    Idle,
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

/// Runs the sweep that `build` makes of `key()`, restarting whenever the key changes (and stopping while it is
/// `None`), and shows `show(&sweep)` at the moments `publish` names. `perf_label`, if any, prefixes the
/// `…:first-result` and `…:converged` measures (see [`perf`]), timed from the key's change.
pub fn use_sliced_sweep<K, T>(
    key: impl Fn() -> Option<K> + Send + Sync + 'static,
    build: impl Fn(&K) -> Result<SlicedSweep, ScenarioError> + 'static,
    show: fn(&SlicedSweep) -> T,
    publish: Publish,
    perf_label: Option<&'static str>,
) -> (ReadSignal<Option<T>>, ReadSignal<RunState>)
where
    K: Clone + PartialEq + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    let (shown, set_shown) = signal(None::<T>);
    let (state, set_state) = signal(RunState::Idle);
    let out = Output {
        show,
        publish,
        perf_label,
        set_shown,
        set_state,
    };
    // Dropped with the component, and with it any slice still pending.
    let task = StoredValue::new_local(NextTask::new());
    let next_slice = move |job: Job| {
        task.try_with_value(|task| task.post(move || out.slice(job)));
    };
    let stop = move || {
        task.try_with_value(NextTask::cancel);
    };
    let key = Memo::new(move |_| key());
    Effect::new(move |_| {
        stop();
        // A new key keeps the old results on show until its first ones arrive; no key shows none.
        let Some(key) = key.get() else {
            set_shown.set(None);
            set_state.set(RunState::Idle);
            return;
        };
        let started = perf::now();
        match build(&key) {
            Ok(sweep) => {
                set_state.set(RunState::Running { passes_done: 0 });
                next_slice(Job {
                    sweep,
                    started,
                    finished: 0,
                    next_slice: Rc::new(next_slice),
                });
            }
            Err(error) => set_state.set(RunState::Invalid(error.to_string())),
        }
    });
    (shown, state)
}

/// One sweep in flight; it travels from one slice's timer to the next.
struct Job {
    sweep: SlicedSweep,
    /// When its key changed, on the `performance.now()` clock.
    started: f64,
    /// Points whose full run is complete, as last shown.
    finished: usize,
    /// Schedules the next slice (the hook's task).
    next_slice: Rc<dyn Fn(Job)>,
}

/// Where a sweep's results go.
struct Output<T: Send + Sync + 'static> {
    show: fn(&SlicedSweep) -> T,
    publish: Publish,
    perf_label: Option<&'static str>,
    set_shown: WriteSignal<Option<T>>,
    set_state: WriteSignal<RunState>,
}

// Not derived: a derive would ask `T: Copy`, and only the signals' handles are copied.
impl<T: Send + Sync + 'static> Clone for Output<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Send + Sync + 'static> Copy for Output<T> {}

impl<T: Send + Sync + 'static> Output<T> {
    /// Advances the sweep until the slice's time is up or there is something new to show, shows it, and schedules
    /// the next slice unless the sweep is done.
    fn slice(self, mut job: Job) {
        let deadline = perf::now() + SLICE_MS;
        let mut news = false;
        while !news && !job.sweep.is_done() && perf::now() < deadline {
            let pass_finished = job.sweep.step(STEP_REQUESTS);
            news = match self.publish {
                Publish::EveryPass => pass_finished,
                Publish::EveryFinishedPoint => {
                    let finished = job.sweep.finished().count();
                    std::mem::replace(&mut job.finished, finished) != finished
                }
            };
        }
        if news {
            self.show(&job);
        }
        if !job.sweep.is_done() {
            let next_slice = Rc::clone(&job.next_slice);
            next_slice(job);
        }
    }

    fn show(self, job: &Job) {
        let passes_done = job.sweep.passes_done();
        let done = job.sweep.is_done();
        self.set_shown.set(Some((self.show)(&job.sweep)));
        self.set_state.set(if done {
            RunState::Done
        } else {
            RunState::Running { passes_done }
        });
        // Measured after the charts have drawn the result: the effects run before the next frame.
        let measure = match (passes_done, done) {
            (1, _) => Some("first-result"),
            (_, true) => Some("converged"),
            _ => None,
        };
        if let (Some(label), Some(measure)) = (self.perf_label, measure) {
            perf::measure_at_next_frame(format!("{label}:{measure}"), job.started);
        }
    }
}
