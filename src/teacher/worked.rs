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
/// What a fleet is counted in, after "how many".
const FLEET_NOUNS: &[&str] = &[
    "replica",
    "replicas",
    "gpu",
    "gpus",
    "servers",
    "nodes",
    "instances",
    "pods",
    "boxes",
    "machines",
];
/// Verbs that ask for a sizing to be done ("work a sizing for qwen36"), not explained.
const DO_VERBS: &[&str] = &["work", "compute", "calculate", "run", "give", "show"];
/// Names of models other than the course box's: a sizing for one of them cannot take the course box's numbers.
const OTHER_MODELS: &[&str] = &[
    "llama", "mistral", "mixtral", "gemma", "deepseek", "phi", "gpt", "opt", "falcon", "yi",
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

    /// The sizer's field this need fills.
    pub fn field(self) -> SizingField {
        match self {
            Self::PeakDemand => SizingField::PeakQps,
            Self::ConcurrencyCap => SizingField::MaxNumSeqs,
            Self::Latency => SizingField::LatencySeconds,
        }
    }
}

/// A sizing question, worked.
#[derive(Clone, Debug, PartialEq)]
pub enum SizingAnswer {
    /// All three numbers were there, or the course box's stood in: the fleet at its knee, and with headroom.
    Worked {
        /// Every replica at its maximum (headroom 1).
        at_the_knee: Sizing,
        /// At the question's headroom, or the sizer's default.
        with_headroom: Sizing,
        /// The quantities the question did not give, taken from the course box.
        defaults: Vec<SizingNeed>,
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

/// The peak demand of `found`: a rate, or people times what each sends ("1,000 users who each send a request a
/// minute").
fn peak_demand(found: &[Quantity], words: &[String]) -> Option<f64> {
    let per_person = words
        .iter()
        .any(|w| matches!(w.as_str(), "each" | "apiece" | "every"));
    let users = found.iter().position(|q| matches!(q, Quantity::Users(_)));
    let rate_after = |from: usize| {
        found[from..].iter().find_map(|q| match q {
            Quantity::RequestRate(v) => Some(*v),
            _ => None,
        })
    };
    match users {
        Some(at) if per_person => match (found[at], rate_after(at)) {
            (Quantity::Users(people), Some(each)) => Some(people * each),
            _ => None,
        },
        _ => rate_after(0),
    }
}

/// Whether `question` asks for a fleet to be sized, given how many of the sizing's quantities it holds: it asks
/// "how many replicas/GPUs", or gives one and names a fleet size, or gives two, or asks for a sizing to be done.
/// "How does Little's Law size a fleet?" asks about the idea, which the lesson's own words answer better.
fn asks_for_sizing(question: &str, words: &[String], given: usize) -> bool {
    let has = |list: &[&str]| words.iter().any(|word| list.contains(&word.as_str()));
    let asks_how_many = question.to_lowercase().contains("how many");
    let names_sizing = asks_how_many || has(SIZING_WORDS);
    // "how many (more) replicas": the count itself is asked for.
    let counts_fleet = words.windows(2).enumerate().any(|(at, pair)| {
        pair == ["how", "many"]
            && words[at + 2..]
                .iter()
                .find(|word| *word != "more")
                .is_some_and(|noun| FLEET_NOUNS.contains(&noun.as_str()))
    });
    counts_fleet
        || (given == 1 && names_sizing)
        || given >= 2
        || (has(&["sizing", "size"]) && has(DO_VERBS))
}

/// Whether the question names a model other than the course box's Qwen3.6-27B.
fn names_another_model(words: &[String]) -> bool {
    words.iter().any(|word| {
        OTHER_MODELS.contains(&word.as_str())
            || OTHER_MODELS.iter().any(|model| {
                word.starts_with(model)
                    && word[model.len()..].starts_with(|c: char| c.is_ascii_digit())
            })
    })
}

/// The sizing `question` asks for, if it asks for one (see [`asks_for_sizing`]). What it does not give is taken
/// from the course box (`--max-num-seqs 64`, 8 s at the knee, the lesson's 30 requests/s peak) and named in the
/// answer, unless it names another model, whose numbers the course cannot know: then it asks for them.
pub fn sizing_answer(question: &str) -> Option<SizingAnswer> {
    let found = quantities(question);
    let words = question_words(question);
    let first = |pick: fn(&Quantity) -> Option<f64>| found.iter().find_map(pick);
    let peak = peak_demand(&found, &words);
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
    let given = [peak, cap, latency].iter().flatten().count();
    if !asks_for_sizing(question, &words, given) {
        return None;
    }
    let missing: Vec<SizingNeed> = [
        (peak, SizingNeed::PeakDemand),
        (cap, SizingNeed::ConcurrencyCap),
        (latency, SizingNeed::Latency),
    ]
    .into_iter()
    .filter_map(|(value, need)| value.is_none().then_some(need))
    .collect();
    if !missing.is_empty() && names_another_model(&words) {
        return Some(SizingAnswer::Missing(missing));
    }
    let or_default = |value: Option<f64>, need: SizingNeed| {
        value.unwrap_or_else(|| need.field().default_value())
    };
    let input = |headroom| SizingInput {
        max_num_seqs: or_default(cap, SizingNeed::ConcurrencyCap),
        latency_seconds: or_default(latency, SizingNeed::Latency),
        peak_qps: or_default(peak, SizingNeed::PeakDemand),
        headroom,
    };
    let headroom = headroom.unwrap_or(SizingField::Headroom.default_value());
    Some(match (size(&input(1.0)), size(&input(headroom))) {
        (Ok(at_the_knee), Ok(with_headroom)) => SizingAnswer::Worked {
            at_the_knee,
            with_headroom,
            defaults: missing,
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
