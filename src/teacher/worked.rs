//! The kinds of question the teacher works out rather than looks up: Little's Law for the one of its three
//! quantities a question asks, a Little's Law sizing from the numbers in the question, and SLOs to start from for a
//! kind of application. The sizing's sums and the table are the sizer's ([`crate::cluster::sizing`],
//! [`crate::cluster::autoscale::SLO_SUGGESTIONS`]).

use super::kinds::{read, QuestionKind};
use super::quantities::{quantities, Quantity};
use super::vocabulary::normalise;
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
/// What else a question may count after "how many": requests, people, tokens. With one figure given, "p99 TTFT under
/// 500 ms: how many requests may be slower?" asks what a percentile means, not for a fleet.
const COUNTED_ELSE: &[&str] = &[
    "request",
    "requests",
    "req",
    "reqs",
    "query",
    "queries",
    "user",
    "users",
    "people",
    "customers",
    "token",
    "tokens",
    "sequences",
    "seqs",
    "prompts",
    "calls",
];
/// Verbs that ask for a sizing to be done ("work a sizing for qwen36"), not explained.
const DO_VERBS: &[&str] = &["work", "compute", "calculate", "run", "give", "show"];
/// Names of models other than the course box's: a sizing for one of them cannot take the course box's numbers.
const OTHER_MODELS: &[&str] = &[
    "llama", "mistral", "mixtral", "gemma", "deepseek", "phi", "gpt", "opt", "falcon", "yi",
];

/// Words that ask for a fleet's size, not one of Little's Law's quantities: "how many requests are in flight" is
/// not a sizing, "how many replicas" or "size the fleet" is.
const FLEET_WORDS: &[&str] = &[
    "replicas",
    "gpus",
    "fleet",
    "size",
    "sizing",
    "servers",
    "nodes",
    "pods",
    "instances",
    "machines",
];

/// Phrases that ask for each of Little's Law's quantities, as whole words of the normalised question.
const ASKS_IN_FLIGHT: &[&str] = &[
    "in flight",
    "inflight",
    "concurrent",
    "concurrency",
    "at once",
    "in the server",
    "in the replica",
    "in a replica",
    "inside",
    "sit in",
    "outstanding",
    "simultaneous",
    "in parallel",
    "in progress",
    "in the system",
    "in the box",
    "on the box",
    "active",
    "ongoing",
    "at any moment",
    "at any time",
    "at any given time",
    "at any one time",
    // Slots taken: "how many slots are busy at 15 qps and 8 s?"
    "busy",
    "in use",
    "occupied",
    // "How many requests are …" at a rate and a latency can only ask for L: a rate would say "per second".
    "how many requests",
    "how many reqs",
    "how many queries",
    "how many calls",
    "how many sequences",
    "number of requests",
    // Little's Law's own symbol, asked by name: "L for 4 rps and 3 s?"
    "l",
];
const ASKS_THROUGHPUT: &[&str] = &[
    "throughput",
    "qps",
    "rps",
    "per second",
    "req s",
    "requests s",
    "a second",
    "rate",
    "x",
    "lambda",
    "λ",
];
const ASKS_LATENCY: &[&str] = &[
    "latency",
    "how long",
    "response time",
    "time per request",
    "spend",
    "spends",
    "take",
    "takes",
    "wait",
    "end to end",
    "e2e",
    "w",
];

/// One of Little's Law's three quantities: L = X × W.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LittleQuantity {
    /// L: requests inside, being served or waiting.
    InFlight,
    /// X: requests finished per second.
    Throughput,
    /// W: the time one request spends inside, from arrival to last token.
    Latency,
}

/// Little's Law worked for the quantity a question asks, from the two it gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LittleAnswer {
    /// The quantity asked for (the other two were given).
    pub asked: LittleQuantity,
    /// L, requests.
    pub in_flight: f64,
    /// X, requests per second.
    pub throughput: f64,
    /// W, seconds.
    pub latency: f64,
}

impl LittleAnswer {
    /// The value asked for.
    pub fn value(&self) -> f64 {
        match self.asked {
            LittleQuantity::InFlight => self.in_flight,
            LittleQuantity::Throughput => self.throughput,
            LittleQuantity::Latency => self.latency,
        }
    }
}

/// Whether `question` asks for a fleet to be sized rather than for one of Little's Law's quantities.
fn asks_for_fleet(words: &[String]) -> bool {
    words
        .iter()
        .any(|word| FLEET_WORDS.contains(&word.as_str()))
}

/// Little's Law for the quantity `question` asks ("how many requests are in flight at 20 rps and 3 s?", "64 in
/// flight at 8 req/s: what latency?", "throughput with 32 concurrent and 4 s each?"): it gives two of L, X and W,
/// names the third, and asks for no fleet (that is [`sizing_answer`]'s).
pub fn littles_law_answer(question: &str) -> Option<LittleAnswer> {
    let words = question_words(question);
    if asks_for_fleet(&words) {
        return None;
    }
    let found = quantities(question);
    let rate = peak_demand(&found, &words);
    let in_flight = found.iter().find_map(|q| match q {
        Quantity::Concurrency(v) | Quantity::InFlight(v) => Some(*v),
        _ => None,
    });
    let latency = found.iter().find_map(|q| match q {
        Quantity::Duration(v) => Some(*v),
        _ => None,
    });
    let said = normalise(question);
    let names = |phrases: &[&str]| phrases.iter().any(|p| said.contains(&format!(" {p} ")));
    let positive = |value: f64| value.is_finite() && value > 0.0;
    let answer = |asked, in_flight, throughput, latency| {
        [in_flight, throughput, latency]
            .into_iter()
            .all(positive)
            .then_some(LittleAnswer {
                asked,
                in_flight,
                throughput,
                latency,
            })
    };
    match (in_flight, rate, latency) {
        (None, Some(x), Some(w)) if names(ASKS_IN_FLIGHT) => {
            answer(LittleQuantity::InFlight, x * w, x, w)
        }
        (Some(l), None, Some(w)) if names(ASKS_THROUGHPUT) && positive(w) => {
            answer(LittleQuantity::Throughput, l, l / w, w)
        }
        (Some(l), Some(x), None) if names(ASKS_LATENCY) && positive(x) => {
            answer(LittleQuantity::Latency, l, x, l / x)
        }
        _ => None,
    }
}

/// Words that ask for objectives: the first [`OBJECTIVE_WORDS`] by name, the rest by what they bound.
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

/// How many of [`SLO_WORDS`] name objectives outright.
const OBJECTIVE_WORDS: usize = 6;

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
/// "how many replicas/GPUs", or gives one and names a fleet size (not "how many requests": see [`COUNTED_ELSE`]), or
/// gives two, or asks for a sizing to be done.
/// "How does Little's Law size a fleet?" asks about the idea, which the lesson's own words answer better.
fn asks_for_sizing(question: &str, words: &[String], given: usize) -> bool {
    let has = |list: &[&str]| words.iter().any(|word| list.contains(&word.as_str()));
    let asks_how_many = question.to_lowercase().contains("how many");
    // "how many requests (users, tokens)": a count of something other than a fleet.
    let counts_else = words
        .windows(3)
        .any(|three| three[..2] == ["how", "many"] && COUNTED_ELSE.contains(&three[2].as_str()));
    let names_sizing = (asks_how_many && !counts_else) || has(SIZING_WORDS);
    // "how many (more) replicas": the count itself is asked for; "how many replica-hours" is what a day costs.
    let counts_fleet = words.windows(2).enumerate().any(|(at, pair)| {
        let mut after = words[at + 2..].iter().skip_while(|word| *word == "more");
        pair == ["how", "many"]
            && after
                .next()
                .is_some_and(|noun| FLEET_NOUNS.contains(&noun.as_str()))
            && !after.next().is_some_and(|unit| unit.starts_with("hour"))
    });
    // One figure in a question that asks which signal to read, or sets two terms side by side ("gpu util vs
    // tokens/s, which tells me a replica is full? mine does 3 req/s"), describes the learner's server: it asks for no
    // fleet.
    let asks_another_thing = matches!(
        read(question).kind,
        QuestionKind::WhichSignal | QuestionKind::Comparison
    );
    counts_fleet
        || (given == 1 && names_sizing && !asks_another_thing)
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
        "chat" | "chatbot" | "chatbots" | "conversational" => Workload::Chat,
        "rag" | "retrieval" | "search" => Workload::Rag,
        "code" | "coding" | "programming" | "completion" | "completions" | "autocomplete"
        | "copilot" | "ide" | "editor" => Workload::CodeCompletion,
        "agent" | "agents" | "agentic" | "tool" | "tools" => Workload::Agent,
        "offline" | "summarisation" | "summarization" | "summarise" | "summarize" => {
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
    // "Batch" names the batch workload only beside a word that asks for objectives: in "what happens to TPOT when
    // the batch gets bigger" it is the lesson's running batch.
    let asks_objectives = words
        .iter()
        .any(|word| SLO_WORDS[..OBJECTIVE_WORDS].contains(&word.as_str()));
    let mut named: Vec<Workload> = words
        .iter()
        .filter_map(|word| match word.as_str() {
            "batch" if asks_objectives => Some(Workload::BatchSummarisation),
            other => workload_of(other),
        })
        .collect();
    // An assistant is a chat, unless the question says what it assists with ("a coding assistant").
    if named.is_empty() && words.iter().any(|word| word == "assistant") {
        named.push(Workload::Chat);
    }
    SLO_SUGGESTIONS
        .iter()
        .filter(|suggestion| named.contains(&suggestion.workload))
        .collect()
}
