//! The lesson's progress in `localStorage` (`goodput.progress.v1`), and the context API widgets use to record it:
//! `use_progress().tick("knee-lab/p99-crosses-slo")`.
//!
//! Storage can fail in three ways, and none stops the page: a stored value that is damaged or foreign is reset with
//! one note; storage that throws (private mode, blocked by settings) or is full leaves the progress in memory, said
//! once; a value from a newer version of the course is neither read nor overwritten.
//!
//! Written by hand, not with `leptos-use-storage`: that hook reads "storage throws" as "absent" and writes back what
//! it could not read, while this store must tell the two apart and never overwrite a newer format.

use crate::lesson::progress::{LessonProgress, Progress, StepRecord, Summary, STORAGE_KEY};
use crate::lesson::{PredictStep, Task};
use leptos::prelude::*;

/// The page's progress for one lesson. Cheap to copy; get it with [`use_progress`].
#[derive(Clone, Copy)]
pub struct ProgressHandle {
    slug: StoredValue<String>,
    /// The lesson's predict steps, for the summary.
    steps: &'static [&'static PredictStep],
    state: RwSignal<LessonProgress>,
    /// The one note about storage the page shows, if any.
    note: RwSignal<Option<String>>,
    /// False once storage failed or must not be overwritten: progress then lives in memory only.
    persist: StoredValue<bool>,
    /// Bumped by [`ProgressHandle::reset`], so every step clears its own state.
    resets: RwSignal<u32>,
}

impl ProgressHandle {
    /// Marks the task `task_id` done (e.g. `knee-lab/p99-crosses-slo`). Ids that `@tasks` would refuse are ignored.
    pub fn tick(&self, task_id: &str) {
        if !Task::is_valid_id(task_id) || self.state.with_untracked(|s| s.ticks.contains(task_id)) {
            return;
        }
        self.state.update(|s| {
            s.ticks.insert(task_id.to_owned());
        });
        self.save();
    }

    /// Whether `task_id` is done (reactive).
    pub fn is_ticked(&self, task_id: &str) -> bool {
        self.state.with(|s| s.ticks.contains(task_id))
    }

    /// The stored record of the step `step_id`, read once (not reactive): a step's starting state.
    pub fn step(&self, step_id: &str) -> StepRecord {
        self.state
            .with_untracked(|s| s.steps.get(step_id).cloned())
            .unwrap_or_default()
    }

    /// Records the step's state; an empty record removes it.
    pub fn record(&self, step_id: &str, record: StepRecord) {
        let unchanged = self
            .state
            .with_untracked(|s| s.steps.get(step_id).cloned().unwrap_or_default() == record);
        if unchanged {
            return;
        }
        self.state.update(|s| {
            if record == StepRecord::default() {
                s.steps.remove(step_id);
            } else {
                s.steps.insert(step_id.to_owned(), record);
            }
        });
        self.save();
    }

    /// Forgets this lesson's progress, here and in storage; every step resets itself.
    pub fn reset(&self) {
        self.state.set(LessonProgress::default());
        self.resets.update(|n| *n += 1);
        self.save();
    }

    /// How many times the progress was reset (reactive): steps watch it to clear their state.
    pub fn resets(&self) -> u32 {
        self.resets.get()
    }

    /// "n of m steps answered, k right" (reactive).
    pub fn summary(&self) -> Summary {
        self.state.with(|s| s.summary(self.steps))
    }

    /// The storage note, if any (reactive).
    pub fn note(&self) -> Option<String> {
        self.note.get()
    }

    /// Writes this lesson into the stored value, keeping what other lessons (or another tab) stored.
    fn save(&self) {
        if !self.persist.get_value() {
            return;
        }
        let slug = self.slug.get_value();
        let lesson = self.state.get_untracked();
        let result = storage().and_then(|storage| {
            let stored = storage.get_item(STORAGE_KEY).map_err(|_| ())?;
            let loaded = Progress::parse(stored.as_deref());
            if loaded.problem.is_some_and(|p| !p.may_overwrite()) {
                return Err(());
            }
            let mut progress = loaded.progress;
            progress.put_lesson(&slug, lesson);
            storage
                .set_item(STORAGE_KEY, &progress.to_json())
                .map_err(|_| ())
        });
        if result.is_err() {
            self.persist.set_value(false);
            self.say_once("Your browser would not let this page save your progress (private mode, full or blocked storage), so it is kept only until you leave the page.".to_owned());
        }
    }

    fn say_once(&self, note: String) {
        if self.note.with_untracked(Option::is_none) {
            self.note.set(Some(note));
        }
    }
}

/// `localStorage`, or `Err` when the browser refuses it (some private modes throw on access).
fn storage() -> Result<web_sys::Storage, ()> {
    window().local_storage().ok().flatten().ok_or(())
}

/// Reads the progress of the lesson `slug`, whose predict steps are `steps`, from storage and provides it to the
/// page; call once, above every step and widget.
pub fn provide_progress(slug: String, steps: &'static [&'static PredictStep]) -> ProgressHandle {
    let read = storage().and_then(|storage| storage.get_item(STORAGE_KEY).map_err(|_| ()));
    let handle = ProgressHandle {
        slug: StoredValue::new(slug.clone()),
        steps,
        state: RwSignal::new(LessonProgress::default()),
        note: RwSignal::new(None),
        persist: StoredValue::new(true),
        resets: RwSignal::new(0),
    };
    match read {
        Ok(stored) => {
            let loaded = Progress::parse(stored.as_deref());
            handle
                .state
                .set(loaded.progress.lesson(&slug).validated(steps));
            if let Some(problem) = loaded.problem {
                handle.say_once(problem.note());
                if problem.may_overwrite() {
                    // Replace the unreadable value now, so the note is not shown again on the next visit.
                    let _ = storage().and_then(|s| {
                        s.set_item(STORAGE_KEY, &Progress::default().to_json())
                            .map_err(|_| ())
                    });
                } else {
                    handle.persist.set_value(false);
                }
            }
        }
        Err(()) => {
            handle.persist.set_value(false);
            handle.say_once("Your browser would not let this page read or save your progress (private mode or blocked storage), so it is kept only until you leave the page.".to_owned());
        }
    }
    provide_context(handle);
    handle
}

/// The page's progress, or an in-memory one when none was provided (a widget shown on its own).
pub fn use_progress() -> ProgressHandle {
    use_context::<ProgressHandle>().unwrap_or_else(|| ProgressHandle {
        slug: StoredValue::new(String::new()),
        steps: &[],
        state: RwSignal::new(LessonProgress::default()),
        note: RwSignal::new(None),
        persist: StoredValue::new(false),
        resets: RwSignal::new(0),
    })
}
