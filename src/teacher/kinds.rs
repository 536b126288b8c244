//! What kind of question a learner asks, read from its wording: a definition, the difference between two terms, a
//! plea to explain simply, what happens if, which metric or flag, why, what something is made of, how long. Each
//! kind is answered from the lesson's blocks in the order that suits it: a definition leads with the keyword and the
//! TL;DR, "explain simply" with the analogy, "what happens if" with a predict step's reveal, "which metric" with the
//! metric's keyword, "how long" with the prose that gives the figure. What a passage answers, when its author said
//! so in an `@answers` block, counts before all of these ([`super::select`]).

use super::passages::{Passage, PassageKind};
use super::shapes::{
    asks_how_to_choose, asks_whether_counted, between_causes, how_it_works, without_load_condition,
    MAX_TERM_WORDS, OPENERS,
};
use super::vocabulary::normalise_typed;

pub use crate::lesson::QuestionKind;

/// A question read: its kind, what it is about with the kind's cue words taken out, and the two terms of a
/// difference.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub kind: QuestionKind,
    /// The question without the words that only say its kind ("like I am five", "difference between").
    pub topic: String,
    /// For a difference, the two terms compared, as the learner wrote them.
    pub compared: Option<(String, String)>,
}

/// Cue phrases of each kind, as whole words of the normalised question; the first kind that matches wins.
const CUES: &[(QuestionKind, &[&str])] = &[
    (
        QuestionKind::Simple,
        &[
            "like i am five",
            "like i m five",
            "like im five",
            "like i am 5",
            "like i m 5",
            "like im 5",
            "five year old",
            "5 year old",
            "5yo",
            "eli5",
            "simply",
            "simple terms",
            "simple words",
            "simple picture",
            "plain english",
            "plain words",
            "plain terms",
            "layman",
            "for a beginner",
            "for beginners",
            "for a child",
            "for a kid",
            "intuition",
            "intuitively",
            "analogy",
            "non technical",
            "in a nutshell",
            "with an example",
            "give an example",
            "give me an example",
            "example of",
        ],
    ),
    (
        QuestionKind::WhichSignal,
        &[
            "which metric",
            "what metric",
            "which number",
            "what number",
            "which signal",
            "what signal",
            "which flag",
            "what flag",
            "which setting",
            "what setting",
            "which gauge",
            "what gauge",
            "which counter",
            "what counter",
            "which histogram",
            "what histogram",
            "which metrics",
            "what metrics",
            "what should i watch",
            "what should i monitor",
            "what should i alert",
            "what to watch",
            "what to monitor",
            "which vllm metric",
            "which prometheus metric",
            "what prometheus metric",
            "metric for",
            "metric name",
            "name of the metric",
            "name of the vllm metric",
            "where do i see",
            "where can i see",
            "where do i find",
            "where can i find",
            "where is the",
            "where s the",
            "scale on",
            "tells me",
        ],
    ),
    (
        QuestionKind::Composition,
        &[
            "made of",
            "made up of",
            "make up",
            "makes up",
            "consist of",
            "consists of",
            "composed of",
            "add up to",
            "adds up to",
            "sum of",
            "parts of",
            "part of",
            "pieces of",
            "ingredients of",
            "built from",
            "components of",
            "breakdown of",
            "break down",
            "goes into",
            "go into",
            "include",
            "includes",
            "counts against",
            "count against",
            "counts toward",
            "count toward",
            "counts towards",
            "count towards",
            "depend on",
            "depends on",
            "more to it",
            "what else is in",
            "what else goes into",
            "mostly",
            "mainly",
            "largely",
            "dominated by",
        ],
    ),
    (
        QuestionKind::Duration,
        &[
            "how long",
            "how much time",
            "how many seconds",
            "how many minutes",
            "how many ms",
            "how many milliseconds",
            "how often",
            "how frequently",
            "how far apart",
            "how soon",
            "how quickly",
        ],
    ),
    (
        QuestionKind::Consequence,
        &[
            "what happens",
            "what would happen",
            "do to",
            "does to",
            "did to",
            "what if",
            "what will happen",
            "happens to",
            "suppose",
            "turn off",
            "switch off",
            "turn on",
            "does it help",
            "help ttft",
            "help tpot",
            "hurt",
            "affect",
            "effect of",
            "impact of",
        ],
    ),
    (
        QuestionKind::Why,
        &[
            "why",
            "how come",
            "what causes",
            "reason",
            "what s wrong with",
            "what is wrong with",
            "because of",
            "due to",
            "caused by",
            "to blame",
            // Whether to do something asks why (or why not) to do it.
            "a good idea",
            "a bad idea",
            "is it ok to",
            "is it okay to",
            "is it bad to",
            "is it wise to",
        ],
    ),
    (
        QuestionKind::Definition,
        &[
            "what is",
            "what s",
            "what are",
            "define",
            "definition",
            "meaning of",
            "what does",
            "stand for",
            "what do you mean",
        ],
    ),
];

/// Phrases that join the two terms of a difference ("A vs B", "A compared to B").
const BETWEEN: &[&str] = &[
    " vs ",
    " versus ",
    " compared to ",
    " compared with ",
    " different from ",
    " differ from ",
    " differs from ",
    " the same as ",
    " the same thing as ",
];

/// Words that stand for the two terms of a difference named before it.
const PRONOUNS: &[&str] = &["them", "those", "these", "the two", "both"];

/// Phrases that ask for a short answer and say nothing of its subject.
const BRIEFLY: &[&str] = &[
    "in one line",
    "in 1 line",
    "in a line",
    "in one sentence",
    "in 1 sentence",
    "in a sentence",
    "in a few words",
    "in short",
    "briefly",
    "tldr",
    "tl dr",
    "quick summary",
];

/// Words of a definition question that are not the term.
const DEFINITION_WORDS: &[&str] = &[
    "define",
    "definition",
    "meaning",
    "of",
    "mean",
    "stand",
    "for",
    "do",
    "you",
];

/// Words that only say the kind of a simple question, left out of its topic.
const SIMPLE_FILLER: &[&str] = &[
    "like",
    "i",
    "am",
    "m",
    "im",
    "five",
    "5",
    "year",
    "old",
    "5yo",
    "eli5",
    "simply",
    "simple",
    "plain",
    "terms",
    "words",
    "english",
    "layman",
    "beginner",
    "beginners",
    "child",
    "kid",
    "analogy",
    "picture",
    "nutshell",
    "with",
    "an",
    "example",
    "give",
    "me",
];

/// The words of `phrase` minus opening question words, as the learner wrote them.
fn term(phrase: &str) -> String {
    let words: Vec<&str> = phrase.split_whitespace().collect();
    let start = words
        .iter()
        .position(|w| !OPENERS.contains(w))
        .unwrap_or(words.len());
    words[start..].join(" ")
}

/// The two terms of "the difference between A and B", "A vs B", "how is A different from B".
fn compared(said: &str) -> Option<(String, String)> {
    let clause = |text: &str| {
        // A term stops at the end of its clause: "open loop vs closed loop: what's the difference".
        term(text.split(['?', ':', ',', ';']).next().unwrap_or(text))
    };
    for between in [
        " difference between ",
        " diff between ",
        " differences between ",
    ] {
        if let Some(at) = said.find(between) {
            let rest = &said[at + between.len()..];
            // "… between them": the two terms are the earlier clause's ("isnt tpot just 1 over tokens/s? whats
            // the diff between them").
            if PRONOUNS.iter().any(|pronoun| rest.starts_with(pronoun)) {
                return said[..at].split(['?', ':', ',', ';']).find_map(|earlier| {
                    let (a, b) = [" just ", " and ", " or ", " vs "]
                        .iter()
                        .find_map(|joint| earlier.split_once(joint))?;
                    let (a, b) = (term(a), term(b));
                    (!a.is_empty() && !b.is_empty()).then_some((a, b))
                });
            }
            let (a, b) = rest.split_once(" and ")?;
            return Some((clause(a), clause(b))).filter(|(a, b)| !a.is_empty() && !b.is_empty());
        }
    }
    BETWEEN.iter().find_map(|joint| {
        let (a, b) = said.split_once(joint)?;
        let a = term(a.rsplit([':', ',', ';']).next().unwrap_or(a));
        let b = clause(b);
        (!a.is_empty() && !b.is_empty()).then_some((a, b))
    })
}

/// The question lower-cased with punctuation kept only where it ends a clause, for [`compared`].
fn clauses(question: &str) -> String {
    let kept: String = question
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '?' | ':' | ',' | ';' | '_' | '-') {
                c
            } else {
                ' '
            }
        })
        .collect();
    format!(
        " {} ",
        kept.split_whitespace().collect::<Vec<_>>().join(" ")
    )
}

/// The first kind whose cue phrase `said` (normalised) holds, and the phrase; a "which" or "what" a few words before
/// a signal's noun asks for a signal too ("which prometheus number", "what vllm metric"), when no cue came before.
fn cue(said: &str) -> Option<(QuestionKind, &'static str)> {
    let found = CUES.iter().find_map(|(kind, cues)| {
        cues.iter()
            .find(|cue| said.contains(&format!(" {cue} ")))
            .map(|cue| (*kind, *cue))
    });
    let signal = || which_before_signal(said).map(|which| (QuestionKind::WhichSignal, which));
    match found {
        Some((kind, _)) if CUES.iter().position(|(k, _)| *k == kind) <= Some(SIGNAL_CUES) => found,
        _ => signal().or(found),
    }
}

/// Where the "which metric" cues stand in [`CUES`]: only the kinds before them come first.
const SIGNAL_CUES: usize = 1;
/// How many words may stand between "which" and the signal's noun.
const WHICH_REACH: usize = 2;

/// "which" or "what" up to [`WHICH_REACH`] words before a metric's or a flag's noun, or "number", with no
/// verb between them ("what does that number mean" asks what a number means).
fn which_before_signal(said: &str) -> Option<&'static str> {
    let words: Vec<&str> = said.split_whitespace().collect();
    words.iter().enumerate().find_map(|(at, word)| {
        let which = match *word {
            "which" => "which",
            "what" => "what",
            _ => return None,
        };
        let reach = &words[at + 1..words.len().min(at + 2 + WHICH_REACH)];
        let noun = reach.iter().position(|noun| {
            METRIC_NOUNS.contains(noun) || FLAG_NOUNS.contains(noun) || *noun == "number"
        })?;
        let verb = |word: &&str| ["does", "do", "did", "is", "are", "was", "s"].contains(word);
        (!reach[..noun].iter().any(verb)).then_some(which)
    })
}

/// Whether a definition question names a term rather than asking something longer ("What does Little's Law say
/// about latency?" is not a definition): at most four words once the question words are gone, or a "what does
/// X mean / stand for / do" shape.
fn names_a_term(said: &str) -> bool {
    // "A counter went down between two scrapes, what does that mean?" asks what the clause before means: its term is
    // a pronoun.
    if [" does that mean ", " does this mean ", " does it mean "]
        .iter()
        .any(|pronoun| said.contains(pronoun))
    {
        return false;
    }
    // "What does W mean in Little's Law?" names its term, and then where it stands.
    let shaped = [" mean ", " stand for ", " do ", " refer to "]
        .iter()
        .any(|end| said.ends_with(end))
        || [" mean in ", " stand for in "]
            .iter()
            .any(|within| said.contains(within));
    let words = said
        .split_whitespace()
        .filter(|w| !OPENERS.contains(w) && !DEFINITION_WORDS.contains(w))
        .count();
    if said.contains(" what does ") {
        shaped
    } else {
        shaped || words <= MAX_TERM_WORDS
    }
}

/// `question` without the phrase that says its kind, normalised: what is left is what the lesson must answer. A
/// "which metric or flag" question also loses the nouns that only say what sort of answer it wants ("the prometheus
/// metric name for TTFT" is about TTFT; "which number on /metrics" about what follows): a passage that merely holds
/// the word "metric" answers nothing. So does a composition lose the nouns that only ask for parts ("factors").
pub fn without_cue(kind: QuestionKind, question: &str) -> String {
    let said = normalise_typed(question);
    let said = match cue(&said) {
        Some((found, phrase)) if found == kind => said.replacen(&format!(" {phrase} "), " ", 1),
        // Two causes weighed ("is high TPOT due to the batch or the model") ask what the thing before them is made of.
        Some((QuestionKind::Why, cause))
            if kind == QuestionKind::Composition && between_causes(&said, cause) =>
        {
            let (thing, _) = said
                .split_once(&format!(" {cause} "))
                .unwrap_or((&said, ""));
            format!("{thing} ")
        }
        _ => said,
    };
    // "What is TTFT made of at high load?" asks what TTFT is made of: the load it is asked under is not its parts.
    let said = match kind {
        QuestionKind::Composition => without_load_condition(&said),
        _ => said,
    };
    let says_only_sort: fn(&str) -> bool = match kind {
        QuestionKind::WhichSignal => names_signal_sort,
        QuestionKind::Composition => |word| PART_NOUNS.contains(&word),
        _ => return said,
    };
    let topic: Vec<&str> = said
        .split_whitespace()
        .filter(|word| !says_only_sort(word))
        .collect();
    format!(" {} ", topic.join(" "))
}

/// Reads `question`'s kind and topic.
pub fn read(question: &str) -> Reading {
    if let Some((a, b)) = compared(&clauses(question)) {
        return Reading {
            kind: QuestionKind::Comparison,
            topic: question.to_owned(),
            compared: Some((a, b)),
        };
    }
    // "In one line" asks for an answer's length, not about anything: "whats little's law in 1 line" asks what
    // Little's Law is.
    let mut said = normalise_typed(question);
    let brief = BRIEFLY
        .iter()
        .any(|phrase| said.contains(&format!(" {phrase} ")));
    for phrase in BRIEFLY {
        said = said.replace(&format!(" {phrase} "), " ");
    }
    let question = if brief { said.trim() } else { question };
    // "How does X work?", "how is X calculated?", "how do I calculate X?" ask what X is and how it comes about.
    if let Some(term) = how_it_works(&said) {
        return Reading {
            kind: QuestionKind::Definition,
            topic: term,
            compared: None,
        };
    }
    let kind = match cue(&said) {
        Some((QuestionKind::Definition, _)) if !names_a_term(&said) => QuestionKind::Other,
        // "Is high TPOT due to the batch or the model?" weighs two causes of one thing: what it is made of.
        Some((QuestionKind::Why, cause)) if between_causes(&said, cause) => {
            QuestionKind::Composition
        }
        Some((kind, _)) => kind,
        // "Does in-flight count queued requests too?" asks whether one thing includes another: what it is made of.
        None if asks_whether_counted(&said) => QuestionKind::Composition,
        // "How do I pick the queue cap?", "how much headroom should I keep?" ask what decides it, and why.
        None if asks_how_to_choose(&said) => QuestionKind::Why,
        None => QuestionKind::Other,
    };
    let topic = if kind == QuestionKind::Simple {
        said.split_whitespace()
            .filter(|w| !SIMPLE_FILLER.contains(w))
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        question.to_owned()
    };
    Reading {
        kind,
        topic,
        compared: None,
    }
}

/// What a "which metric or flag" question asks for, by the noun it names: a metric the server exports, a flag it is
/// started with, or either ("which signal", "which number").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalAsked {
    Metric,
    Flag,
    Either,
}

/// Nouns that name a metric.
const METRIC_NOUNS: &[&str] = &[
    "metric",
    "metrics",
    "gauge",
    "counter",
    "histogram",
    "prometheus",
    "series",
];
/// Words that ask for a metric without naming one: where one reads it, and what one does with it, never with a flag
/// ("what should I alert on", "what do I watch").
const METRIC_USES: &[&str] = &[
    "promql",
    "dashboard",
    "grafana",
    "alert",
    "alerts",
    "alerting",
    "watch",
    "monitor",
    "monitoring",
    "track",
];
/// Nouns that ask for a launch flag.
const FLAG_NOUNS: &[&str] = &[
    "flag",
    "flags",
    "setting",
    "settings",
    "option",
    "options",
    "parameter",
    "argument",
    "knob",
];
/// Nouns that ask for a signal of either sort.
const EITHER_NOUNS: &[&str] = &["number", "name", "signal"];

/// Whether `word` only says what sort of thing a "which metric or flag" question asks for (a metric's, a flag's or
/// either's noun), not what it is about.
fn names_signal_sort(word: &str) -> bool {
    [METRIC_NOUNS, FLAG_NOUNS, EITHER_NOUNS]
        .iter()
        .any(|nouns| nouns.contains(&word))
}

/// Nouns that say only that a composition question asks for parts ("what factors go into TPOT").
const PART_NOUNS: &[&str] = &[
    "factor",
    "factors",
    "component",
    "components",
    "part",
    "parts",
    "piece",
    "pieces",
    "ingredient",
    "ingredients",
    "element",
    "elements",
    "things",
];

/// What `question` asks for, if it asks for a signal: see [`SignalAsked`].
pub fn signal_asked(question: &str) -> SignalAsked {
    let said = normalise_typed(question);
    let names = |nouns: &[&str]| nouns.iter().any(|noun| said.contains(&format!(" {noun} ")));
    match (names(METRIC_NOUNS) || names(METRIC_USES), names(FLAG_NOUNS)) {
        (true, false) => SignalAsked::Metric,
        (false, true) => SignalAsked::Flag,
        _ => SignalAsked::Either,
    }
}

/// The blocks that answer a kind of question best, best first.
pub fn preferred(kind: QuestionKind) -> &'static [PassageKind] {
    use PassageKind::*;
    match kind {
        QuestionKind::Definition | QuestionKind::Comparison => &[Keyword, Tldr, Formula, Prose],
        QuestionKind::Composition => &[Keyword, Formula, Prose, Tldr],
        QuestionKind::Duration => &[Prose, Explanation, Tldr],
        QuestionKind::Simple => &[Analogy, Tldr, Keyword],
        QuestionKind::Consequence => &[Explanation, Prose, Tldr],
        QuestionKind::WhichSignal => &[Keyword, Prose, Recall],
        QuestionKind::Why => &[Explanation, Prose, Tldr],
        QuestionKind::Other => &[],
    }
}

/// Whether `text` names a signal of the sort `asked`: a metric is written as one identifier with underscores
/// (`num_requests_waiting`), a flag with two dashes.
fn names_signal(text: &str, asked: SignalAsked) -> bool {
    let flag = text.starts_with("--");
    let metric = text.contains('_') && !flag;
    match asked {
        SignalAsked::Metric => metric,
        SignalAsked::Flag => flag,
        SignalAsked::Either => metric || flag,
    }
}

/// How much `passage`'s kind suits a question of `kind`: 1 for the best block, less down the list, 0 for others.
/// A "which metric or flag" question wants a keyword that *is* a metric or a flag, and the one it names (`asked`):
/// asked for a metric, a flag's keyword is not the answer, however many of the question's words its meaning holds.
/// Asked by name for a metric or a flag, it wants prose or a recall answer that names one of that sort too.
pub fn suitability(kind: QuestionKind, passage: &Passage, asked: SignalAsked) -> f64 {
    let order = preferred(kind);
    if kind == QuestionKind::WhichSignal {
        let fits = match passage.kind {
            PassageKind::Keyword => {
                names_signal(passage.text.split(": ").next().unwrap_or(""), asked)
            }
            _ if asked == SignalAsked::Either => true,
            _ => passage
                .text
                .split_whitespace()
                .any(|word| names_signal(word.trim_start_matches(['(', '`']), asked)),
        };
        if !fits {
            return 0.0;
        }
    }
    // "How long" asks for a figure: a passage that gives none answers it no better than its neighbours.
    if kind == QuestionKind::Duration && !gives_a_time(&passage.text) {
        return 0.0;
    }
    order
        .iter()
        .position(|k| *k == passage.kind)
        .map_or(0.0, |at| 1.0 - at as f64 / order.len() as f64)
}

/// Units of time, as the lesson writes them after a figure.
const TIME_WORDS: &[&str] = &[
    "ms", "s", "sec", "second", "seconds", "min", "minute", "minutes", "h", "hour", "hours",
];
/// Counts written as words before a unit of time ("a minute apart", "two minutes").
const COUNT_WORDS: &[&str] = &["a", "an", "one", "two", "three", "four", "five", "ten"];

/// Whether `text` gives a length of time: a figure with a unit of time, glued ("300s") or not ("4 min 38 s", "a
/// minute").
pub fn gives_a_time(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .map(|word| word.trim_matches('.').to_lowercase())
        .filter(|word| !word.is_empty())
        .collect();
    words.iter().enumerate().any(|(at, word)| {
        let split = word
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(word.len());
        let (number, glued) = word.split_at(split);
        let counted = number.starts_with(|c: char| c.is_ascii_digit())
            || COUNT_WORDS.contains(&word.as_str());
        let unit = if glued.is_empty() || COUNT_WORDS.contains(&word.as_str()) {
            words.get(at + 1).map(String::as_str)
        } else {
            Some(glued)
        };
        counted && unit.is_some_and(|unit| TIME_WORDS.contains(&unit))
    })
}

/// Every word the kinds are read by (cues, openers, the nouns of a signal or a part, the shapes' words), for the spelling
/// ([`super::spelling`]): a question word misspelt is read as one of these.
pub(super) fn cue_words() -> impl Iterator<Item = &'static str> {
    CUES.iter()
        .flat_map(|(_, cues)| cues.iter())
        .chain(BETWEEN)
        .chain(OPENERS)
        .chain(BRIEFLY)
        .chain(DEFINITION_WORDS)
        .chain(SIMPLE_FILLER)
        .chain(METRIC_NOUNS)
        .chain(METRIC_USES)
        .chain(FLAG_NOUNS)
        .chain(EITHER_NOUNS)
        .chain(PART_NOUNS)
        .copied()
        .chain(super::shapes::shape_words())
}
