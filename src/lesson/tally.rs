//! The class tally's arithmetic: the buckets a step's show of hands is counted in, what an instructor may type as a
//! count, and each bucket's share. The page's tally (`components::lesson::tally`) only draws it.

use super::{Html, PredictAnswer};

/// The most hands one bucket counts (a lecture hall, with room to spare).
pub const MAX_HANDS: u32 = 9999;

/// The buckets a step's hands are counted in: the options of a multiple choice, otherwise how the guesses compare.
pub fn tally_buckets(answer: &PredictAnswer) -> Vec<Html> {
    let plain = |labels: &[&str]| labels.iter().map(|l| Html((*l).to_owned())).collect();
    match answer {
        PredictAnswer::MultipleChoice { options } => {
            options.iter().map(|o| o.label.clone()).collect()
        }
        PredictAnswer::NumericEstimate { .. } => {
            plain(&["Too low", "Within the tolerance", "Too high"])
        }
        PredictAnswer::ChartPrediction { .. } => plain(&[
            "Too early (lower load)",
            "Within the tolerance",
            "Too late (higher load)",
        ]),
        PredictAnswer::Recall => plain(&["Had it", "Missed something"]),
    }
}

/// A count as typed: a whole number up to [`MAX_HANDS`]; anything else (empty, negative, text) counts as none.
pub fn hands_from_text(text: &str) -> u32 {
    text.trim().parse::<u32>().unwrap_or(0).min(MAX_HANDS)
}

/// Each bucket's share of all the hands, 0–1 (all 0 when no hand is up).
pub fn shares(counts: &[u32]) -> Vec<f64> {
    let total: u32 = counts.iter().sum();
    counts
        .iter()
        .map(|&n| {
            if total == 0 {
                0.0
            } else {
                f64::from(n) / f64::from(total)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::{ChoiceOption, Tolerance};

    #[test]
    fn a_multiple_choice_is_tallied_by_its_options_and_the_rest_by_how_guesses_compare() {
        let choice = PredictAnswer::MultipleChoice {
            options: vec![
                ChoiceOption {
                    label: Html("Prefill".into()),
                    correct: true,
                    explanation: None,
                },
                ChoiceOption {
                    label: Html("Decode".into()),
                    correct: false,
                    explanation: None,
                },
            ],
        };
        assert_eq!(
            tally_buckets(&choice),
            vec![Html("Prefill".into()), Html("Decode".into())]
        );
        let numeric = PredictAnswer::NumericEstimate {
            answer: 4.0,
            tolerance: Tolerance::Absolute(1.0),
            unit: "replicas".into(),
        };
        assert_eq!(tally_buckets(&numeric).len(), 3);
        assert_eq!(tally_buckets(&PredictAnswer::Recall).len(), 2);
    }

    #[test]
    fn typed_counts_are_whole_bounded_and_never_fail() {
        assert_eq!(hands_from_text(" 12 "), 12);
        assert_eq!(hands_from_text(""), 0);
        assert_eq!(hands_from_text("-3"), 0);
        assert_eq!(hands_from_text("lots"), 0);
        assert_eq!(hands_from_text("123456"), MAX_HANDS);
    }

    #[test]
    fn shares_add_up_to_one_when_any_hand_is_up() {
        assert_eq!(shares(&[0, 0]), vec![0.0, 0.0]);
        let s = shares(&[1, 3]);
        assert_eq!(s, vec![0.25, 0.75]);
    }
}
