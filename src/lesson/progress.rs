//! What a learner has done, kept in the browser between visits: guesses, commits, reveals, "show me anyway", and
//! ticked tasks, per lesson. This module is the pure part — the data, its JSON, validation against the lesson and the
//! merge into what other lessons stored; `components::lesson::progress_store` reads and writes `localStorage`.
//!
//! ```
//! use goodput::lesson::progress::{Progress, StepRecord, Guess};
//! let mut loaded = Progress::parse(Some("not json")).progress;
//! let mut lesson = loaded.lesson("latency-throughput-slos");
//! lesson.steps.insert("step-1-ttft".into(), StepRecord { guess: Some(Guess::Choices(vec![0])), committed: true, ..Default::default() });
//! loaded.put_lesson("latency-throughput-slos", lesson);
//! let again = Progress::parse(Some(&loaded.to_json()));
//! assert!(again.problem.is_none());
//! assert!(again.progress.lesson("latency-throughput-slos").steps["step-1-ttft"].committed);
//! ```

use super::{PredictAnswer, PredictStep, Task};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The `localStorage` key. The version is in the name so a future format can live beside this one.
pub const STORAGE_KEY: &str = "goodput.progress.v1";

/// The format version written inside the value.
pub const VERSION: u32 = 1;

/// Bounds on what is kept, so a foreign or runaway value cannot grow without limit.
const MAX_TICKS: usize = 500;

/// Everything stored: one entry per lesson slug.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    /// Always [`VERSION`] when written by this build.
    pub version: u32,
    /// Per lesson, by slug.
    #[serde(default)]
    pub lessons: BTreeMap<String, LessonProgress>,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            version: VERSION,
            lessons: BTreeMap::new(),
        }
    }
}

/// One lesson's progress.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LessonProgress {
    /// Predict steps, by step id.
    #[serde(default)]
    pub steps: BTreeMap<String, StepRecord>,
    /// Ids of ticked tasks.
    #[serde(default)]
    pub ticks: BTreeSet<String>,
}

/// What happened on one predict step. Its flags are the saved form of the step's
/// [`PredictPhase`](super::predict_phase::PredictPhase), kept flat so that every build reads what another wrote.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepRecord {
    /// The learner's guess (the last one, committed or not).
    #[serde(default)]
    pub guess: Option<Guess>,
    /// Whether the guess was committed.
    #[serde(default)]
    pub committed: bool,
    /// Whether the answer has been shown.
    #[serde(default)]
    pub revealed: bool,
    /// Whether the answer was shown without a committed guess ("show me anyway").
    #[serde(default)]
    pub shown_anyway: bool,
    /// Whether the committed guess was right; `None` until known (or for a step that cannot be scored).
    #[serde(default)]
    pub correct: Option<bool>,
    /// How many times the learner pressed "Try again".
    #[serde(default)]
    pub retries: u32,
}

impl StepRecord {
    /// Whether the learner has committed an answer (or, for a recall, said it).
    pub fn answered(&self) -> bool {
        self.committed
    }
}

/// A guess, shaped by the step's type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "kebab-case")]
pub enum Guess {
    /// Indices of the picked options of a multiple choice.
    Choices(Vec<usize>),
    /// A numeric estimate.
    Number(f64),
    /// A load on a chart prediction's axis, as a fraction of capacity.
    Load(f64),
}

/// Why the stored value could not be used; the page shows one note and starts from empty progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadProblem {
    /// Not JSON at all.
    Corrupt,
    /// JSON, but not progress as this page writes it.
    Foreign,
    /// Written by a newer version of the course; left alone (not overwritten) and not read.
    Newer(u32),
}

impl LoadProblem {
    /// The note the page shows.
    pub fn note(self) -> String {
        match self {
            LoadProblem::Corrupt | LoadProblem::Foreign => "Your saved progress could not be read (it was damaged or not from this course), so it has been reset.".to_owned(),
            LoadProblem::Newer(version) => format!("Your saved progress was written by a newer version of this course (format {version}); this page will not overwrite it and keeps today's progress in memory only."),
        }
    }

    /// Whether the page may overwrite the stored value.
    pub fn may_overwrite(self) -> bool {
        !matches!(self, LoadProblem::Newer(_))
    }
}

/// The result of reading the stored value.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    /// What could be read; empty when there was nothing or a problem.
    pub progress: Progress,
    /// What went wrong, if anything.
    pub problem: Option<LoadProblem>,
}

impl Progress {
    /// Reads the stored value (`None` when nothing is stored). Never fails: a problem yields empty progress and says why.
    pub fn parse(stored: Option<&str>) -> Loaded {
        let fresh = |problem| Loaded {
            progress: Progress::default(),
            problem,
        };
        let Some(text) = stored else {
            return fresh(None);
        };
        let value: serde_json::Value = match serde_json::from_str(text) {
            Ok(value) => value,
            Err(_) => return fresh(Some(LoadProblem::Corrupt)),
        };
        match value.get("version").and_then(serde_json::Value::as_u64) {
            Some(version) if version > u64::from(VERSION) => {
                return fresh(Some(LoadProblem::Newer(
                    u32::try_from(version).unwrap_or(u32::MAX),
                )))
            }
            Some(version) if version == u64::from(VERSION) => {}
            _ => return fresh(Some(LoadProblem::Foreign)),
        }
        match serde_json::from_value::<Progress>(value) {
            Ok(progress) => Loaded {
                progress,
                problem: None,
            },
            Err(_) => fresh(Some(LoadProblem::Foreign)),
        }
    }

    /// The JSON to store.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("progress is plain data")
    }

    /// A copy of one lesson's progress (empty if none).
    pub fn lesson(&self, slug: &str) -> LessonProgress {
        self.lessons.get(slug).cloned().unwrap_or_default()
    }

    /// Replaces one lesson's progress, leaving the others as they are (another tab may have saved them); an empty
    /// lesson is removed.
    pub fn put_lesson(&mut self, slug: &str, lesson: LessonProgress) {
        if lesson == LessonProgress::default() {
            self.lessons.remove(slug);
        } else {
            self.lessons.insert(slug.to_owned(), lesson);
        }
    }
}

impl LessonProgress {
    /// Keeps only what still fits the lesson's predict `steps`: records of steps it has, with guesses of the step's shape and in range
    /// (a lesson edited since the last visit may have dropped a step or an option), finite numbers, and well-formed
    /// task ids. What does not fit is dropped quietly; it cannot be shown anyway.
    pub fn validated(mut self, steps: &[&PredictStep]) -> LessonProgress {
        self.steps.retain(|id, record| {
            let Some(answer) = steps
                .iter()
                .find(|step| step.id == *id)
                .map(|step| &step.answer)
            else {
                return false;
            };
            let fits = match (&record.guess, answer) {
                (None, _) => true,
                (Some(Guess::Choices(picked)), PredictAnswer::MultipleChoice { options }) => {
                    picked.iter().all(|&i| i < options.len())
                }
                (Some(Guess::Number(value)), PredictAnswer::NumericEstimate { .. }) => {
                    value.is_finite()
                }
                (Some(Guess::Load(load)), PredictAnswer::ChartPrediction { loads, .. }) => {
                    load.is_finite() && *load >= loads.from - 1e-9 && *load <= loads.to + 1e-9
                }
                _ => false,
            };
            if !fits {
                record.guess = None;
                record.committed = false;
                record.correct = None;
            }
            true
        });
        self.ticks.retain(|id| Task::is_valid_id(id));
        while self.ticks.len() > MAX_TICKS {
            self.ticks.pop_last();
        }
        self
    }

    /// "n of m steps answered, k right" for the lesson's predict `steps`.
    pub fn summary(&self, steps: &[&PredictStep]) -> Summary {
        let records = || steps.iter().filter_map(|step| self.steps.get(&step.id));
        Summary {
            steps: steps.len(),
            answered: records().filter(|r| r.answered()).count(),
            right: records().filter(|r| r.correct == Some(true)).count(),
            shown_anyway: records().filter(|r| r.shown_anyway).count(),
        }
    }
}

/// The counts the lesson's progress line shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Predict steps in the lesson.
    pub steps: usize,
    /// Steps with a committed answer.
    pub answered: usize,
    /// Steps answered right.
    pub right: usize,
    /// Steps whose answer was shown without a guess.
    pub shown_anyway: usize,
}

impl Summary {
    /// E.g. "3 of 8 steps answered, 2 right."
    pub fn sentence(&self) -> String {
        let mut sentence = format!(
            "{} of {} steps answered, {} right",
            self.answered, self.steps, self.right
        );
        if self.shown_anyway > 0 {
            sentence += &format!("; {} shown without a guess", self.shown_anyway);
        }
        sentence + "."
    }
}
