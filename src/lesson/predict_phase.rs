//! Where a predict-then-reveal step stands, and the moves between its phases: a guess is picked, committed, then
//! the answer revealed — or the answer is shown without a guess ("Show me anyway"); "Try again" and "Reset my
//! progress" start over. Pure: the page keeps one [`PredictPhase`] per step (synced between presentation windows)
//! and saves it as the flat fields of a [`StepRecord`], the format every build of the course reads and writes.
//!
//! ```
//! use goodput::lesson::predict_phase::PredictPhase;
//! let phase = PredictPhase::Guessing.commit().reveal();
//! assert!(phase.is_committed() && phase.is_revealed());
//! assert_eq!(PredictPhase::Guessing.reveal(), PredictPhase::Guessing, "Reveal waits for a committed guess");
//! ```

use super::progress::{Guess, StepRecord};
use serde::{Deserialize, Serialize};

/// The phase of one predict step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PredictPhase {
    /// Picking a guess: nothing committed, nothing shown.
    #[default]
    Guessing,
    /// The guess is committed (a recall: the learner has said it); Reveal is available.
    Committed,
    /// The answer is shown after a committed guess.
    Revealed {
        /// A recall's own grade: `Some(true)` for "I had it", `Some(false)` for "I missed something".
        self_grade: Option<bool>,
    },
    /// The answer is shown without a committed guess.
    ShownAnyway,
}

impl PredictPhase {
    /// "Commit my guess": only while guessing.
    pub fn commit(self) -> Self {
        match self {
            PredictPhase::Guessing => PredictPhase::Committed,
            other => other,
        }
    }

    /// "Reveal": only once committed.
    pub fn reveal(self) -> Self {
        match self {
            PredictPhase::Committed => PredictPhase::Revealed { self_grade: None },
            other => other,
        }
    }

    /// "Show me anyway": only while guessing.
    pub fn show_anyway(self) -> Self {
        match self {
            PredictPhase::Guessing => PredictPhase::ShownAnyway,
            other => other,
        }
    }

    /// A recall's "I had it" (`true`) or "I missed something": only after a committed guess was revealed.
    pub fn grade(self, had_it: bool) -> Self {
        match self {
            PredictPhase::Revealed { .. } => PredictPhase::Revealed {
                self_grade: Some(had_it),
            },
            other => other,
        }
    }

    /// "Try again" and "Reset my progress": back to guessing, from any phase (the page clears the guess too).
    pub fn start_over(self) -> Self {
        PredictPhase::Guessing
    }

    /// Whether the guess can still change (nothing committed, nothing shown).
    pub fn is_open(self) -> bool {
        self == PredictPhase::Guessing
    }

    /// Whether a guess was committed (revealed or not).
    pub fn is_committed(self) -> bool {
        matches!(
            self,
            PredictPhase::Committed | PredictPhase::Revealed { .. }
        )
    }

    /// Whether the answer is on show.
    pub fn is_revealed(self) -> bool {
        matches!(
            self,
            PredictPhase::Revealed { .. } | PredictPhase::ShownAnyway
        )
    }

    /// A recall's own grade, once given.
    pub fn self_grade(self) -> Option<bool> {
        match self {
            PredictPhase::Revealed { self_grade } => self_grade,
            _ => None,
        }
    }

    /// The phase a saved record describes. A recall's grade is saved as the record's `correct`. A record revealed
    /// without a committed guess is "shown anyway" whatever its flag says (a lesson edit may have dropped its guess).
    pub fn from_record(record: &StepRecord, is_recall: bool) -> Self {
        match (record.committed, record.revealed) {
            (false, false) => PredictPhase::Guessing,
            (true, false) => PredictPhase::Committed,
            (true, true) => PredictPhase::Revealed {
                self_grade: record.correct.filter(|_| is_recall),
            },
            (false, true) => PredictPhase::ShownAnyway,
        }
    }

    /// The record to save for this phase with the step's `guess`, whether it was `correct` and its `retries`.
    pub fn record(self, guess: Option<Guess>, correct: Option<bool>, retries: u32) -> StepRecord {
        StepRecord {
            guess,
            committed: self.is_committed(),
            revealed: self.is_revealed(),
            shown_anyway: self == PredictPhase::ShownAnyway,
            correct,
            retries,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PredictPhase::{self, *};
    use super::*;

    const ALL: [PredictPhase; 6] = [
        Guessing,
        Committed,
        Revealed { self_grade: None },
        Revealed {
            self_grade: Some(true),
        },
        Revealed {
            self_grade: Some(false),
        },
        ShownAnyway,
    ];

    #[test]
    fn a_guess_is_committed_then_revealed() {
        assert_eq!(Guessing.commit(), Committed);
        assert_eq!(Committed.reveal(), Revealed { self_grade: None });
        assert!(Guessing.is_open() && !Committed.is_open());
        assert!(Committed.is_committed() && !Committed.is_revealed());
        // Nothing skips a phase or goes back.
        assert_eq!(Guessing.reveal(), Guessing);
        assert_eq!(Committed.commit(), Committed);
        assert_eq!(Committed.show_anyway(), Committed);
        assert_eq!(
            Revealed { self_grade: None }.commit().show_anyway(),
            Revealed { self_grade: None }
        );
    }

    #[test]
    fn show_me_anyway_reveals_without_a_guess() {
        assert_eq!(Guessing.show_anyway(), ShownAnyway);
        assert!(ShownAnyway.is_revealed() && !ShownAnyway.is_committed());
        assert_eq!(ShownAnyway.commit(), ShownAnyway);
        assert_eq!(ShownAnyway.reveal(), ShownAnyway);
        assert_eq!(
            ShownAnyway.grade(true),
            ShownAnyway,
            "nothing said, nothing to grade"
        );
    }

    #[test]
    fn a_recall_is_graded_after_its_reveal_and_may_change_its_mind() {
        let revealed = Guessing.commit().reveal();
        assert_eq!(revealed.self_grade(), None);
        assert_eq!(revealed.grade(true).self_grade(), Some(true));
        assert_eq!(revealed.grade(true).grade(false).self_grade(), Some(false));
        assert_eq!(Committed.grade(true), Committed, "not before the reveal");
    }

    #[test]
    fn try_again_and_reset_start_over_from_any_phase() {
        for phase in ALL {
            let again = phase.start_over();
            assert_eq!(again, Guessing, "{phase:?}");
            assert_eq!(
                again,
                PredictPhase::default(),
                "a step with no record starts there too"
            );
            assert_eq!(
                again.show_anyway(),
                ShownAnyway,
                "and both ways are open again"
            );
            assert_eq!(again.commit().reveal(), Revealed { self_grade: None });
        }
    }

    #[test]
    fn every_phase_is_saved_and_read_back() {
        for phase in ALL {
            let correct = phase.self_grade();
            let record = phase.record(Some(Guess::Choices(vec![1])), correct, 2);
            assert_eq!(PredictPhase::from_record(&record, true), phase, "{phase:?}");
            assert_eq!(record.answered(), phase.is_committed());
        }
        // An ordinary step's `correct` is its judged result, not a grade.
        let judged = Revealed { self_grade: None }.record(None, Some(true), 0);
        assert_eq!(
            PredictPhase::from_record(&judged, false),
            Revealed { self_grade: None }
        );
    }

    #[test]
    fn saved_progress_keeps_its_format_both_ways() {
        // Written by a build before the phase had a type: it reads as the same phases.
        let saved = |json: &str| -> StepRecord { serde_json::from_str(json).expect("a v1 record") };
        let earlier = [
            (r#"{"guess":{"kind":"choices","value":[0]}}"#, Guessing),
            (
                r#"{"guess":{"kind":"choices","value":[0]},"committed":true}"#,
                Committed,
            ),
            (
                r#"{"guess":{"kind":"number","value":5.0},"committed":true,"revealed":true,"correct":false,"retries":1}"#,
                Revealed { self_grade: None },
            ),
            (r#"{"revealed":true,"shown_anyway":true}"#, ShownAnyway),
        ];
        for (json, phase) in earlier {
            let record = saved(json);
            assert_eq!(PredictPhase::from_record(&record, false), phase, "{json}");
            // …and this build writes back exactly what an earlier build would have.
            let written = phase.record(record.guess.clone(), record.correct, record.retries);
            assert_eq!(written, record, "{json}");
        }
        let recall = saved(r#"{"committed":true,"revealed":true,"correct":true}"#);
        assert_eq!(
            PredictPhase::from_record(&recall, true),
            Revealed {
                self_grade: Some(true)
            }
        );
        // A guess a lesson edit dropped after its reveal leaves the answer shown without one.
        let dropped = saved(r#"{"revealed":true}"#);
        assert_eq!(PredictPhase::from_record(&dropped, false), ShownAnyway);
    }
}
