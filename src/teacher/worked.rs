//! The two kinds of question the teacher works out rather than looks up: a Little's Law sizing from the numbers in
//! the question, and SLOs to start from for a kind of application. The sums and the table are the sizer's
//! ([`crate::cluster::sizing`], [`crate::cluster::autoscale::SLO_SUGGESTIONS`]).

use super::quantities::{quantities, Quantity};
use crate::cluster::autoscale::{SloSuggestion, Workload, SLO_SUGGESTIONS};
use crate::cluster::sizing::{size, Sizing, SizingError, SizingField, SizingInput};

/// Words that ask for a fleet size.
const SIZING_WORDS: &[&str] = &[
    "replica", "replicas", "gpus", "size", "sizing", "fleet", "little",
];
/// Words that ask for objectives.
const SLO_WORDS: &[&str] = &[
    "slo",
    "slos",
    "target",
    "targets",
    "objective",
    "objectives",
    "ttft",
    "tpot",
    "latency",
];

/// One of the sizing's three quantities, for a question that lacks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizingNeed {
    /// Requests per second at the peak.
    PeakDemand,
    /// `--max-num-seqs`.
    ConcurrencyCap,
    /// Mean time per request at the knee.
    Latency,
}

impl SizingNeed {
    /// What to add to the question, with an example.
    pub fn ask(self) -> &'static str {
        match self {
            Self::PeakDemand => "the peak demand in requests per second (e.g. \"30 QPS\")",
            Self::ConcurrencyCap => {
                "how many requests a replica runs at once, its --max-num-seqs (e.g. \"64 concurrent sequences\")"
            }
            Self::Latency => "the mean time per request just below the knee (e.g. \"8 s per request\")",
        }
    }
}

/// A sizing question, worked.
#[derive(Clone, Debug, PartialEq)]
pub enum SizingAnswer {
    /// All three numbers were there: the fleet at its knee, and with headroom.
    Worked {
        /// Every replica at its maximum (headroom 1).
        at_the_knee: Sizing,
        /// At the question's headroom, or the sizer's default.
        with_headroom: Sizing,
    },
    /// Some numbers are missing: which.
    Missing(Vec<SizingNeed>),
    /// The numbers are there but the sizer refuses one (a cap that is not whole, a latency of zero).
    Refused(Vec<SizingError>),
}

/// The lower-cased words of `question`.
pub fn question_words(question: &str) -> Vec<String> {
    question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The sizing `question` asks for, if it asks for one: it gives at least one of peak demand, concurrency cap and
/// latency, and either names a fleet size ("replicas", "GPUs", "Little's Law") or gives two of the three; or it asks
/// "how many replicas" without numbers.
pub fn sizing_answer(question: &str) -> Option<SizingAnswer> {
    let found = quantities(question);
    let first = |pick: fn(&Quantity) -> Option<f64>| found.iter().find_map(pick);
    let peak = first(|q| match q {
        Quantity::RequestRate(v) => Some(*v),
        _ => None,
    });
    let cap = first(|q| match q {
        Quantity::Concurrency(v) => Some(*v),
        _ => None,
    });
    let latency = first(|q| match q {
        Quantity::Duration(v) => Some(*v),
        _ => None,
    });
    let headroom = first(|q| match q {
        Quantity::Fraction(v) => Some(*v),
        _ => None,
    });
    let given = [peak, cap, latency]
        .iter()
        .filter(|value| value.is_some())
        .count();
    let words = question_words(question);
    let asks_how_many = question.to_lowercase().contains("how many");
    let names_sizing = asks_how_many
        || words
            .iter()
            .any(|word| SIZING_WORDS.contains(&word.as_str()));
    // "How many replicas for my model?" with no numbers asks for a sizing; "How does Little's Law size a fleet?"
    // asks about the idea, which the lesson's own words answer better.
    let asks_for_count = asks_how_many
        && words.iter().any(|word| {
            matches!(
                word.as_str(),
                "replica" | "replicas" | "gpu" | "gpus" | "servers"
            )
        });
    if (given == 0 && !asks_for_count) || (given == 1 && !names_sizing) {
        return None;
    }
    let (Some(peak_qps), Some(max_num_seqs), Some(latency_seconds)) = (peak, cap, latency) else {
        let missing = [
            (peak.is_none(), SizingNeed::PeakDemand),
            (cap.is_none(), SizingNeed::ConcurrencyCap),
            (latency.is_none(), SizingNeed::Latency),
        ]
        .into_iter()
        .filter_map(|(missing, need)| missing.then_some(need))
        .collect();
        return Some(SizingAnswer::Missing(missing));
    };
    let input = |headroom| SizingInput {
        max_num_seqs,
        latency_seconds,
        peak_qps,
        headroom,
    };
    let headroom = headroom.unwrap_or(SizingField::Headroom.default_value());
    Some(match (size(&input(1.0)), size(&input(headroom))) {
        (Ok(at_the_knee), Ok(with_headroom)) => SizingAnswer::Worked {
            at_the_knee,
            with_headroom,
        },
        (Err(errors), _) | (_, Err(errors)) => SizingAnswer::Refused(errors),
    })
}

/// The words that name each kind of application.
fn workload_of(word: &str) -> Option<Workload> {
    Some(match word {
        "chat" | "chatbot" | "chatbots" | "assistant" | "conversational" => Workload::Chat,
        "rag" | "retrieval" | "search" => Workload::Rag,
        "code" | "completion" | "completions" | "autocomplete" | "copilot" | "ide" | "editor" => {
            Workload::CodeCompletion
        }
        "agent" | "agents" | "agentic" | "tool" | "tools" => Workload::Agent,
        "batch" | "offline" | "summarisation" | "summarization" | "summarise" | "summarize" => {
            Workload::BatchSummarisation
        }
        _ => return None,
    })
}

/// The SLO suggestions `question` asks for: it names objectives (SLO, target, TTFT, TPOT, latency) and one or more
/// kinds of application. Each kind once, in the table's order.
pub fn slo_answer(question: &str) -> Vec<&'static SloSuggestion> {
    let words = question_words(question);
    if !words.iter().any(|word| SLO_WORDS.contains(&word.as_str())) {
        return Vec::new();
    }
    let named: Vec<Workload> = words.iter().filter_map(|word| workload_of(word)).collect();
    SLO_SUGGESTIONS
        .iter()
        .filter(|suggestion| named.contains(&suggestion.workload))
        .collect()
}
