//! The numbers in a question, read with their units as people write them: "30 QPS", "120 rps", "7.2k requests a
//! minute", "a request every 30 seconds", "64 concurrent sequences", "128 slots", "--max-num-seqs=128",
//! "max-num-seqs is 128", "a cap of 128", "8 s per request", "4000 ms", "4s", "2k tokens", "sixty-four slots",
//! "80% headroom", "1,000 users".

/// What a number in a question measures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quantity {
    /// Requests per second (QPS, rps, req/s, requests a minute).
    RequestRate(f64),
    /// Requests a replica runs at once (concurrent sequences, slots, `--max-num-seqs`).
    Concurrency(f64),
    /// Requests inside a replica, running and waiting together: a dashboard's two gauges, Little's L and not a cap
    /// ("70 running and 20 waiting").
    InFlight(f64),
    /// A duration, in seconds (ms, s, minutes, hours).
    Duration(f64),
    /// A number of tokens.
    Tokens(f64),
    /// A percentage, as a fraction (80% → 0.8).
    Fraction(f64),
    /// Replicas or GPUs.
    Replicas(f64),
    /// People or clients sending requests ("1,000 users").
    Users(f64),
}

/// A unit word and what a number followed by it measures (`scale` turns the number into the quantity's unit).
struct Unit {
    words: &'static [&'static str],
    make: fn(f64) -> Quantity,
    scale: f64,
}

const fn unit(words: &'static [&'static str], make: fn(f64) -> Quantity, scale: f64) -> Unit {
    Unit { words, make, scale }
}

/// Units as they follow a number, longest spellings first. Rates written with a request noun and a time ("120
/// requests per second", "7.2k requests a minute") are read by [`rate_at`], requests inside ("94 in flight", "60 reqs
/// in the system") by [`inside_after`].
const UNITS: &[Unit] = &[
    unit(&["qps"], Quantity::RequestRate, 1.0),
    unit(&["rps"], Quantity::RequestRate, 1.0),
    unit(&["rpm"], Quantity::RequestRate, 1.0 / 60.0),
    unit(&["concurrent"], Quantity::Concurrency, 1.0),
    unit(&["parallel"], Quantity::Concurrency, 1.0),
    unit(&["sequences"], Quantity::Concurrency, 1.0),
    unit(&["seqs"], Quantity::Concurrency, 1.0),
    unit(&["slots"], Quantity::Concurrency, 1.0),
    unit(&["tokens"], Quantity::Tokens, 1.0),
    unit(&["token"], Quantity::Tokens, 1.0),
    unit(&["tok"], Quantity::Tokens, 1.0),
    unit(&["%"], Quantity::Fraction, 0.01),
    unit(&["percent"], Quantity::Fraction, 0.01),
    unit(&["replicas"], Quantity::Replicas, 1.0),
    unit(&["replica"], Quantity::Replicas, 1.0),
    unit(&["gpus"], Quantity::Replicas, 1.0),
    unit(&["users"], Quantity::Users, 1.0),
    unit(&["clients"], Quantity::Users, 1.0),
    unit(&["people"], Quantity::Users, 1.0),
    unit(&["customers"], Quantity::Users, 1.0),
];

/// Where requests are when a count of them is Little's Law's L: "94 in flight", "60 reqs in the system", "120
/// requests are running", "30 queries outstanding", "64 at once", "150 requests open at any moment".
const INSIDE: &[&[&str]] = &[
    &["in", "flight"],
    &["inflight"],
    &["in", "the", "system"],
    &["in", "the", "server"],
    &["in", "the", "replica"],
    &["inside"],
    &["outstanding"],
    &["at", "once"],
    &["at", "a", "time"],
    &["in", "progress"],
    &["in", "parallel"],
    &["concurrently"],
    &["simultaneously"],
    &["open"],
    &["active"],
    &["ongoing"],
    &["at", "any", "moment"],
    &["at", "any", "time"],
    &["at", "any", "given", "time"],
    &["at", "any", "one", "time"],
];
/// Words that may stand between a count's noun and [`INSIDE`]: "120 requests are in flight".
const INSIDE_VERBS: &[&str] = &["are", "is", "currently", "still"];
/// Where requests are, said only after their noun: "64 requests running" is L, "64 running and 30 waiting" a
/// dashboard's two gauges.
const INSIDE_AFTER_NOUN: &[&[&str]] = &[&["running"]];

/// Time units, in seconds.
const TIME_UNITS: &[(&str, f64)] = &[
    ("ms", 0.001),
    ("millisecond", 0.001),
    ("milliseconds", 0.001),
    ("s", 1.0),
    ("sec", 1.0),
    ("secs", 1.0),
    ("second", 1.0),
    ("seconds", 1.0),
    ("min", 60.0),
    ("mins", 60.0),
    ("minute", 60.0),
    ("minutes", 60.0),
    ("h", 3600.0),
    ("hr", 3600.0),
    ("hour", 3600.0),
    ("hours", 3600.0),
];

/// Nouns that count requests in a rate ("120 requests per second", "a query every 2 s").
const REQUEST_NOUNS: &[&str] = &[
    "request", "requests", "req", "reqs", "query", "queries", "call", "calls", "prompt", "prompts",
    "message", "messages",
];

/// Verbs that make a count of requests a rate with their time, in place of the request noun: "50 finish every second",
/// "30 complete per second".
const RATE_VERBS: &[&str] = &[
    "finish",
    "finishes",
    "finished",
    "complete",
    "completes",
    "completed",
    "arrive",
    "arrives",
    "served",
];

/// Words between a count and its time in a rate: "per second", "a minute", "every 30 s", "req/s" (no word).
const RATE_LINKS: &[&str] = &["per", "a", "an", "each", "every"];

/// Words before a number that say what it is ("--max-num-seqs 64", "a cap of 64", "a peak of 30", "QPS = 30").
const LEADS: &[Unit] = &[
    unit(&["max", "num", "seqs"], Quantity::Concurrency, 1.0),
    unit(&["cap"], Quantity::Concurrency, 1.0),
    unit(&["concurrency"], Quantity::Concurrency, 1.0),
    unit(&["batch", "size"], Quantity::Concurrency, 1.0),
    unit(&["peak"], Quantity::RequestRate, 1.0),
    unit(&["qps"], Quantity::RequestRate, 1.0),
    unit(&["rps"], Quantity::RequestRate, 1.0),
    unit(&["in", "flight"], Quantity::Concurrency, 1.0),
    unit(&["inflight"], Quantity::Concurrency, 1.0),
    // Little's Law's own symbols: "L=50", "W is 2" (seconds), "X = 10". A unit after the number reads first.
    unit(&["l"], Quantity::Concurrency, 1.0),
    unit(&["w"], Quantity::Duration, 1.0),
    unit(&["x"], Quantity::RequestRate, 1.0),
    unit(&["lambda"], Quantity::RequestRate, 1.0),
    unit(&["λ"], Quantity::RequestRate, 1.0),
];

/// Words that may stand between a lead and its number: "max-num-seqs is 128", "a cap of 128", "set to 64".
/// A figure read off a dashboard "hovers", "sits" or "averages" around its value.
const LEAD_LINKS: &[&str] = &[
    "is",
    "of",
    "to",
    "at",
    "set",
    "be",
    "was",
    "equals",
    "about",
    "around",
    "roughly",
    "approximately",
    "near",
    "=",
    "hovers",
    "hovering",
    "sits",
    "sitting",
    "stays",
    "averages",
    "averaging",
];

/// A dashboard's two gauges of requests: those running and those waiting, which together are Little's L (the lesson:
/// "64 requests running and 30 waiting", L = 94).
const GAUGES: [&str; 2] = ["running", "waiting"];
/// Words that may join the two gauges: "70 running and 20 waiting", "40 running + 10 waiting".
const GAUGE_LINKS: &[&str] = &["and", "plus", "with", ","];

/// Number words, for questions typed as speech ("sixty-four slots").
const NUMBER_WORDS: &[(&str, f64)] = &[
    ("zero", 0.0),
    ("one", 1.0),
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("thirteen", 13.0),
    ("fourteen", 14.0),
    ("fifteen", 15.0),
    ("sixteen", 16.0),
    ("seventeen", 17.0),
    ("eighteen", 18.0),
    ("nineteen", 19.0),
    ("twenty", 20.0),
    ("thirty", 30.0),
    ("forty", 40.0),
    ("fifty", 50.0),
    ("sixty", 60.0),
    ("seventy", 70.0),
    ("eighty", 80.0),
    ("ninety", 90.0),
];

/// A word of the question: a number (with its own multiplier applied) or a lower-cased word.
#[derive(Clone, Debug, PartialEq)]
enum Word {
    Number(f64),
    Text(String),
}

/// The raw words of `question`: letters and digits, with "1,000" and "1.5" kept whole, and "%", "=" and the
/// punctuation that ends a clause words of their own.
fn raw_words(question: &str) -> Vec<String> {
    let mut raw: Vec<String> = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = question.chars().collect();
    for (at, &c) in chars.iter().enumerate() {
        let between_digits = at > 0
            && chars[at - 1].is_ascii_digit()
            && chars.get(at + 1).is_some_and(char::is_ascii_digit);
        if c.is_alphanumeric() || ((c == '.' || c == ',') && between_digits) {
            current.push(c);
        } else {
            if !current.is_empty() {
                raw.push(std::mem::take(&mut current));
            }
            // A unit never reaches across the end of a clause: "the cap is 128. Replicas?"
            if matches!(c, '%' | '=' | '.' | ',' | ';' | ':' | '?' | '!') {
                raw.push(c.to_string());
            }
            // A slash after a number reads "per": "8/s" is eight a second ("req/s" is read as a request noun).
            if c == '/' && at > 0 && chars[at - 1].is_ascii_digit() {
                raw.push("per".to_owned());
            }
        }
    }
    if !current.is_empty() {
        raw.push(current);
    }
    raw
}

/// Splits `question` into numbers and words: "1,000" and "7.2k" are numbers, "4s" and "120rps" a number and its
/// unit, "req/s" two words, "sixty-four" and "a hundred" numbers.
fn words(question: &str) -> Vec<Word> {
    let mut found = Vec::new();
    for word in raw_words(question) {
        let lower = word.to_lowercase();
        match number_of(&lower) {
            Some((value, unit)) => {
                found.push(Word::Number(value));
                if !unit.is_empty() {
                    found.push(Word::Text(unit.to_owned()));
                }
            }
            None => found.push(Word::Text(lower)),
        }
        fold_tens_and_units(&mut found);
    }
    fold_multipliers(found)
}

/// "sixty four" (the hyphen split it) becomes 64.
fn fold_tens_and_units(found: &mut Vec<Word>) {
    let len = found.len();
    if len < 2 {
        return;
    }
    if let (Word::Number(tens), Word::Number(units)) = (&found[len - 2], &found[len - 1]) {
        let (tens, units) = (*tens, *units);
        if (20.0..100.0).contains(&tens) && tens % 10.0 == 0.0 && units < 10.0 {
            found.truncate(len - 2);
            found.push(Word::Number(tens + units));
        }
    }
}

/// "a hundred", "two hundred", "three thousand".
fn fold_multipliers(found: Vec<Word>) -> Vec<Word> {
    let mut folded: Vec<Word> = Vec::new();
    for word in found {
        let multiplier = match &word {
            Word::Text(text) if text == "hundred" => Some(100.0),
            Word::Text(text) if text == "thousand" => Some(1000.0),
            _ => None,
        };
        match (multiplier, folded.last_mut()) {
            (Some(m), Some(Word::Number(value))) => *value *= m,
            (Some(m), Some(last @ Word::Text(_))) if *last == Word::Text("a".to_owned()) => {
                *last = Word::Number(m)
            }
            _ => folded.push(word),
        }
    }
    folded
}

/// The value of one word and the unit glued to it: digits (with thousands commas, a decimal point, a `k` for
/// thousands, a unit such as the `s` of "4s") or a number word.
fn number_of(word: &str) -> Option<(f64, &str)> {
    if let Some(&(_, value)) = NUMBER_WORDS.iter().find(|(name, _)| *name == word) {
        return Some((value, ""));
    }
    let split = word
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(word.len());
    let (digits, rest) = word.split_at(split);
    if !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let value: f64 = digits.replace(',', "").parse().ok()?;
    let (value, rest) = match rest.strip_prefix('k') {
        Some(after) if after.is_empty() || TIME_UNITS.iter().any(|(u, _)| *u == after) => {
            (value * 1000.0, after)
        }
        _ => (value, rest),
    };
    value.is_finite().then_some((value, rest))
}

fn text_at(words: &[Word], at: usize) -> Option<&str> {
    match words.get(at) {
        Some(Word::Text(text)) => Some(text),
        _ => None,
    }
}

fn matches_at(words: &[Word], at: usize, pattern: &[&str]) -> bool {
    pattern
        .iter()
        .enumerate()
        .all(|(offset, expected)| text_at(words, at + offset) == Some(expected))
}

fn seconds_of(words: &[Word], at: usize) -> Option<f64> {
    let unit = text_at(words, at)?;
    TIME_UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|&(_, seconds)| seconds)
}

/// The count at `at` that can start a rate: a number, or "a"/"one" before a singular request noun.
fn count_at(words: &[Word], at: usize) -> Option<f64> {
    match words.get(at)? {
        Word::Number(value) => Some(*value),
        Word::Text(text) if matches!(text.as_str(), "a" | "an") => matches!(
            text_at(words, at + 1),
            Some("request" | "query" | "call" | "prompt" | "message")
        )
        .then_some(1.0),
        Word::Text(_) => None,
    }
}

/// A rate starting at `at`, and how many words it spans: a count, a request noun, then a time with a link word
/// and an optional number ("120 requests per second", "7.2k requests a minute", "a request every 30 seconds") or
/// right after it ("12 req/s").
fn rate_at(words: &[Word], at: usize) -> Option<(f64, usize)> {
    let count = count_at(words, at)?;
    let counted = text_at(words, at + 1)?;
    if !REQUEST_NOUNS.contains(&counted) && !RATE_VERBS.contains(&counted) {
        return None;
    }
    if let Some(seconds) = seconds_of(words, at + 2) {
        return Some((count / seconds, 3));
    }
    if !RATE_LINKS.contains(&text_at(words, at + 2)?) {
        return None;
    }
    let (every, unit_at) = match words.get(at + 3) {
        Some(Word::Number(n)) => (*n, at + 4),
        _ => (1.0, at + 3),
    };
    let seconds = seconds_of(words, unit_at)?;
    (every > 0.0).then_some((count / (every * seconds), unit_at + 1 - at))
}

/// Whether the words after the number at `at` say that many requests are inside: an optional request noun and
/// verb, then one of [`INSIDE`] ("60 reqs in the system", "120 requests are in flight", "94 in flight").
fn inside_after(words: &[Word], at: usize) -> bool {
    let mut next = at + 1;
    let noun = text_at(words, next).is_some_and(|noun| REQUEST_NOUNS.contains(&noun));
    if noun {
        next += 1;
    }
    while text_at(words, next).is_some_and(|verb| INSIDE_VERBS.contains(&verb)) {
        next += 1;
    }
    INSIDE
        .iter()
        .chain(INSIDE_AFTER_NOUN.iter().filter(|_| noun))
        .any(|place| matches_at(words, next, place))
}

/// What the words right after the number at `at` make of it: requests inside, a unit, or a plain time ("8 s",
/// "4000 ms").
fn unit_after(words: &[Word], at: usize, value: f64) -> Option<Quantity> {
    if inside_after(words, at) {
        return Some(Quantity::Concurrency(value));
    }
    // "8 per second", "8/s": a rate with no request noun.
    if text_at(words, at + 1) == Some("per") {
        if let Some(seconds) = seconds_of(words, at + 2) {
            return Some(Quantity::RequestRate(value / seconds));
        }
    }
    UNITS
        .iter()
        .find(|unit| matches_at(words, at + 1, unit.words))
        .map(|unit| (unit.make)(value * unit.scale))
        .or_else(|| seconds_of(words, at + 1).map(|seconds| Quantity::Duration(value * seconds)))
}

/// How many link words may stand between a lead and its number: "concurrency sits at about 50".
const LEAD_LINKS_AT_MOST: usize = 3;

/// What the words before the number at `at` make of it, over up to three link words ("max-num-seqs is 128").
fn lead_before(words: &[Word], at: usize, value: f64) -> Option<Quantity> {
    let mut end = at;
    for _ in 0..=LEAD_LINKS_AT_MOST {
        let found = LEADS.iter().find_map(|lead| {
            let len = lead.words.len();
            (end >= len && matches_at(words, end - len, lead.words))
                .then(|| (lead.make)(value * lead.scale))
        });
        if found.is_some() {
            return found;
        }
        match end.checked_sub(1).and_then(|before| text_at(words, before)) {
            Some(link) if LEAD_LINKS.contains(&link) => end -= 1,
            _ => return None,
        }
    }
    None
}

/// One gauge at `at`: a number, an optional request noun, and which gauge it is; and the word after it.
fn gauge_at(words: &[Word], at: usize) -> Option<(f64, &str, usize)> {
    let Some(Word::Number(value)) = words.get(at) else {
        return None;
    };
    let noun =
        usize::from(text_at(words, at + 1).is_some_and(|noun| REQUEST_NOUNS.contains(&noun)));
    let gauge = text_at(words, at + 1 + noun).filter(|gauge| GAUGES.contains(gauge))?;
    Some((*value, gauge, at + 2 + noun))
}

/// Requests running and waiting, both given ("70 running and 20 waiting", "30 waiting and 50 running"): their sum,
/// Little's L, and how many words the two span.
fn gauges_at(words: &[Word], at: usize) -> Option<(f64, usize)> {
    let (first, which, next) = gauge_at(words, at)?;
    let next =
        next + usize::from(text_at(words, next).is_some_and(|link| GAUGE_LINKS.contains(&link)));
    let (second, other, end) = gauge_at(words, next)?;
    (which != other).then_some((first + second, end - at))
}

/// Every number of `question` whose unit is known, in order. A number with no unit is left out: "64 and 8" says
/// too little to guess which is which.
pub fn quantities(question: &str) -> Vec<Quantity> {
    let words = words(question);
    let mut found = Vec::new();
    let mut at = 0;
    while at < words.len() {
        if let Some((in_flight, span)) = gauges_at(&words, at) {
            found.push(Quantity::InFlight(in_flight));
            at += span;
            continue;
        }
        // The running gauge alone, with no noun, is Little's L as well ("the dashboard says 96 running"; "64 requests
        // running" is read below); the waiting one alone is only the queue.
        if let (Word::Number(running), Some("running")) = (&words[at], text_at(&words, at + 1)) {
            found.push(Quantity::InFlight(*running));
            at += 2;
            continue;
        }
        if let Some((rate, span)) = rate_at(&words, at) {
            found.push(Quantity::RequestRate(rate));
            at += span;
            continue;
        }
        if let Word::Number(value) = words[at] {
            if let Some(quantity) =
                unit_after(&words, at, value).or_else(|| lead_before(&words, at, value))
            {
                found.push(quantity);
            }
        }
        at += 1;
    }
    found
}
