//! The shapes of a question that a cue phrase alone does not say ([`super::kinds`] reads them): "how does X work"
//! asks what X is, "is X due to A or B" what X is made of, "does X count Y" whether X includes Y, and "the best
//! metric" asks which one.

// The words a term is read around live here, not in `kinds`, which reads the shapes: the two never import each other.
/// Words that open a question and belong to neither term of a difference.
pub(super) const OPENERS: &[&str] = &[
    "what",
    "s",
    "is",
    "are",
    "how",
    "does",
    "do",
    "the",
    "a",
    "an",
    "and",
    "difference",
    "diff",
    "between",
    "explain",
    "tell",
    "me",
    "whats",
    "isnt",
    "arent",
];

/// The most words a term has in "what is X" (question words aside).
pub(super) const MAX_TERM_WORDS: usize = 4;

/// Words that ask which of several is wanted ("the best metric", "the ideal cap"), not what it is about: a question
/// is not judged on them, since the lesson weighs choices without calling one "best" (the vocabulary drops them).
pub(super) const CHOOSING: &[&str] = &[
    "best",
    "ideal",
    "optimal",
    "optimum",
    "recommended",
    "preferred",
    "most useful",
    "most reliable",
];

/// Cues of a cause that, followed by two candidates ("due to A or B"), ask which of them a thing is made of.
const CAUSES: &[&str] = &["because of", "due to", "caused by"];

/// Whether `said` names two candidate causes after its cue `cause`: "is my p99 caused by queueing or by prefill".
pub(super) fn between_causes(said: &str, cause: &str) -> bool {
    CAUSES.contains(&cause)
        && said
            .split_once(&format!(" {cause} "))
            .is_some_and(|(_, candidates)| candidates.contains(" or "))
}

/// Whether `said` asks if one thing counts another in: "does (do) X count Y", "is Y counted in X".
pub(super) fn asks_whether_counted(said: &str) -> bool {
    let yes_no = [" does ", " do ", " is ", " are "]
        .iter()
        .any(|opener| said.starts_with(opener));
    yes_no
        && [" count ", " counted in ", " counted as part of "]
            .iter()
            .any(|verb| said.contains(verb))
}

/// Verbs of choosing a setting ("how do I pick the queue cap").
const CHOOSE_VERBS: &[&str] = &["pick", "choose", "decide", "size", "select", "tune", "set"];

/// Whether `said` asks how to choose a setting or an amount: "how do (should) I (we, you) pick X", "how much X should
/// I keep": what decides it, and why, which the lesson says where it reasons about it.
pub(super) fn asks_how_to_choose(said: &str) -> bool {
    let words: Vec<&str> = said.split_whitespace().collect();
    let chooses = matches!(
        words.as_slice(),
        ["how", "do" | "should" | "would" | "can", "i" | "we" | "you", verb, ..]
            if CHOOSE_VERBS.contains(verb)
    );
    let how_much = words.starts_with(&["how", "much"]) && words.contains(&"should");
    chooses || how_much
}

/// How a question that asks how a thing works opens ("how does", "how is") and ends ("work", "calculated").
const WORKS_OPENERS: &[&str] = &[" how does ", " how do ", " how is ", " how are "];
const WORKS_ENDS: &[&str] = &[
    " work ",
    " works ",
    " work exactly ",
    " actually work ",
    " calculated ",
    " computed ",
    " measured ",
    " worked out ",
];
/// Verbs after "how do I (you, we)" that ask how a thing is worked out.
const WORKS_VERBS: &[&str] = &[
    " calculate ",
    " compute ",
    " measure ",
    " work out ",
    " figure out ",
];

/// The term of "how does X work", "how is X calculated" or "how do I calculate X" (`said` normalised), when it names
/// a term of at most [`MAX_TERM_WORDS`] words: such a question asks what X is, as a definition does.
pub(super) fn how_it_works(said: &str) -> Option<String> {
    let opener = WORKS_OPENERS
        .iter()
        .find(|opener| said.starts_with(**opener))?;
    let rest = &said[opener.len() - 1..];
    let term = match WORKS_ENDS.iter().find(|end| rest.ends_with(**end)) {
        Some(end) => &rest[..rest.len() - end.len() + 1],
        None => {
            let (at, verb) = WORKS_VERBS
                .iter()
                .find_map(|verb| rest.find(verb).map(|at| (at, verb)))?;
            // Only "how do I (you, we) calculate": the words before the verb are who asks.
            if rest[..at]
                .split_whitespace()
                .any(|word| !["i", "you", "we", "one"].contains(&word))
            {
                return None;
            }
            &rest[at + verb.len() - 1..]
        }
    };
    let term = term.trim();
    let words = term
        .split_whitespace()
        .filter(|word| !OPENERS.contains(word))
        .count();
    (words > 0 && words <= MAX_TERM_WORDS).then(|| term.to_owned())
}

/// Every word the shapes are read by, for the spelling ([`super::spelling`]): "calcualte" is "calculate".
pub(super) fn shape_words() -> impl Iterator<Item = &'static str> {
    WORKS_OPENERS
        .iter()
        .chain(WORKS_ENDS)
        .chain(WORKS_VERBS)
        .chain(CAUSES)
        .copied()
        .chain(["count", "counted"])
        .chain(CHOOSE_VERBS.iter().copied())
}

/// Words that open a condition a question is asked under ("at high load", "when the server is busy").
const CONDITIONS: &[&str] = &[" at ", " under ", " during ", " when ", " while "];
/// Words of load that make the condition one of load.
const LOAD_WORDS: &[&str] = &[
    "load",
    "busy",
    "peak",
    "traffic",
    "spike",
    "full",
    "saturated",
    "rush",
    "heavy",
];

/// `said` (normalised) without a condition of load that ends it ("at high load", "under heavy traffic", "when the
/// server is busy"), when words are left before it: the load a question is asked under is not its subject.
pub(super) fn without_load_condition(said: &str) -> String {
    let cut = CONDITIONS
        .iter()
        .filter_map(|condition| said.find(condition))
        .filter(|&at| {
            said[at..]
                .split_whitespace()
                .any(|word| LOAD_WORDS.contains(&word) || word.ends_with('%'))
        })
        .filter(|&at| said[..at].split_whitespace().count() > 1)
        .min();
    match cut {
        Some(at) => format!("{} ", &said[..at]),
        None => said.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::without_load_condition;

    #[test]
    fn a_condition_of_load_is_cut_and_other_words_after_at_are_not() {
        assert_eq!(
            without_load_condition(" what is ttft made of at high load "),
            " what is ttft made of "
        );
        assert_eq!(
            without_load_condition(" what is w made of when the server is busy "),
            " what is w made of "
        );
        let kept = " does w include the time at the queue ";
        assert_eq!(without_load_condition(kept), kept);
    }
}
