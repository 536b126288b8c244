//! How learners type a question, read as one string of whole words: lower case, punctuation as spaces, and chat
//! spellings written out ("b4" is "before", "tput" throughput). The vocabulary ([`super::vocabulary`]) and the question
//! kinds ([`super::kinds`]) read questions through it.

/// `text` lower-cased with every run of punctuation and spaces turned into one space, padded with a space at each
/// end, so a phrase is found as whole words with `contains(" phrase ")`.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push(' ');
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '%' {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if !out.ends_with(' ') {
        out.push(' ');
    }
    out
}

/// Words as people type them in a chat, and the words they stand for: "b4" is "before", "tput" throughput,
/// "/sec" the "/s" of a rate. Read before the vocabulary's phrases ([`super::vocabulary`]), which then meet them in full.
const CHAT_WORDS: &[(&str, &str)] = &[
    ("whats", "what s"),
    ("wats", "what s"),
    ("wat", "what"),
    ("wht", "what"),
    ("y", "why"),
    ("wut", "what"),
    ("hw", "how"),
    ("b4", "before"),
    ("u", "you"),
    ("ur", "your"),
    ("r", "are"),
    ("pls", "please"),
    ("plz", "please"),
    ("rn", "right now"),
    ("bc", "because"),
    ("cuz", "because"),
    ("coz", "because"),
    ("w o", "without"),
    ("thru", "through"),
    ("abt", "about"),
    ("ppl", "people"),
    ("tput", "throughput"),
    ("thruput", "throughput"),
    ("util", "utilisation"),
    ("utilization", "utilisation"),
    ("mem", "memory"),
    ("perf", "performance"),
    ("config", "configuration"),
    ("sim", "simulation"),
    ("req", "request"),
    ("reqs", "requests"),
    ("sec", "s"),
    ("secs", "s"),
    ("mins", "minutes"),
    ("hrs", "hours"),
    ("hr", "hour"),
    ("hows", "how is"),
    ("whys", "why is"),
    ("wheres", "where is"),
    ("whens", "when is"),
    ("gonna", "going to"),
    ("wanna", "want to"),
    ("bcuz", "because"),
    ("becuz", "because"),
    ("bcoz", "because"),
    ("cos", "because"),
    ("k8s", "kubernetes"),
    ("prom", "prometheus"),
    // "Mean" the noun is the average ("the mean latency"); the verb ("what does TPOT mean") is a question word.
    ("a mean", "an average"),
    ("the mean", "the average"),
    ("mean latency", "average latency"),
    ("mean ttft", "average ttft"),
    ("mean tpot", "average tpot"),
];

/// `text` normalised (see [`normalise`]) with each of [`CHAT_WORDS`] written out: how a question's kind is read.
pub fn normalise_typed(text: &str) -> String {
    spelled_out(&normalise(text)).0
}

/// `said` (normalised) with each of [`CHAT_WORDS`] written out, and the words written out.
pub(super) fn spelled_out(said: &str) -> (String, Vec<&'static str>) {
    let mut out = said.to_owned();
    let mut found = Vec::new();
    for (typed, meant) in CHAT_WORDS {
        let typed = format!(" {typed} ");
        if out.contains(&typed) {
            out = out.replace(&typed, &format!(" {meant} "));
            found.push(*meant);
        }
    }
    (out, found)
}

/// The chat spellings and what they stand for, for the spelling ([`super::spelling`]): "tput" is not a slip.
pub(super) fn chat_words() -> impl Iterator<Item = &'static str> {
    CHAT_WORDS
        .iter()
        .flat_map(|(typed, meant)| [*typed, *meant])
}
