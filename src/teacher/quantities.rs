//! The numbers in a question, read with their units: "30 QPS", "64 concurrent sequences", "8 s per request",
//! "300 ms", "2k tokens", "sixty-four slots", "--max-num-seqs 256", "80% headroom".

/// What a number in a question measures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quantity {
    /// Requests per second (QPS, req/s, requests per second).
    RequestRate(f64),
    /// Requests a replica runs at once (concurrent sequences, slots, `--max-num-seqs`).
    Concurrency(f64),
    /// A duration, in seconds (ms, s, minutes).
    Duration(f64),
    /// A number of tokens.
    Tokens(f64),
    /// A percentage, as a fraction (80% → 0.8).
    Fraction(f64),
    /// Replicas or GPUs.
    Replicas(f64),
}

/// A unit word and what a number followed by it measures (`scale` turns the number into the quantity's unit).
struct Unit {
    words: &'static [&'static str],
    make: fn(f64) -> Quantity,
    scale: f64,
}

/// Units as they follow a number, longest spellings first so "requests per second" wins over "requests".
const UNITS: &[Unit] = &[
    Unit {
        words: &["requests", "per", "second"],
        make: Quantity::RequestRate,
        scale: 1.0,
    },
    Unit {
        words: &["requests", "a", "second"],
        make: Quantity::RequestRate,
        scale: 1.0,
    },
    Unit {
        words: &["queries", "per", "second"],
        make: Quantity::RequestRate,
        scale: 1.0,
    },
    Unit {
        words: &["requests", "per", "minute"],
        make: Quantity::RequestRate,
        scale: 1.0 / 60.0,
    },
    Unit {
        words: &["req", "s"],
        make: Quantity::RequestRate,
        scale: 1.0,
    },
    Unit {
        words: &["requests", "s"],
        make: Quantity::RequestRate,
        scale: 1.0,
    },
    Unit {
        words: &["request", "s"],
        make: Quantity::RequestRate,
        scale: 1.0,
    },
    Unit {
        words: &["qps"],
        make: Quantity::RequestRate,
        scale: 1.0,
    },
    Unit {
        words: &["rps"],
        make: Quantity::RequestRate,
        scale: 1.0,
    },
    Unit {
        words: &["concurrent"],
        make: Quantity::Concurrency,
        scale: 1.0,
    },
    Unit {
        words: &["sequences"],
        make: Quantity::Concurrency,
        scale: 1.0,
    },
    Unit {
        words: &["seqs"],
        make: Quantity::Concurrency,
        scale: 1.0,
    },
    Unit {
        words: &["slots"],
        make: Quantity::Concurrency,
        scale: 1.0,
    },
    Unit {
        words: &["in", "flight"],
        make: Quantity::Concurrency,
        scale: 1.0,
    },
    Unit {
        words: &["milliseconds"],
        make: Quantity::Duration,
        scale: 0.001,
    },
    Unit {
        words: &["millisecond"],
        make: Quantity::Duration,
        scale: 0.001,
    },
    Unit {
        words: &["ms"],
        make: Quantity::Duration,
        scale: 0.001,
    },
    Unit {
        words: &["seconds"],
        make: Quantity::Duration,
        scale: 1.0,
    },
    Unit {
        words: &["second"],
        make: Quantity::Duration,
        scale: 1.0,
    },
    Unit {
        words: &["secs"],
        make: Quantity::Duration,
        scale: 1.0,
    },
    Unit {
        words: &["sec"],
        make: Quantity::Duration,
        scale: 1.0,
    },
    Unit {
        words: &["s"],
        make: Quantity::Duration,
        scale: 1.0,
    },
    Unit {
        words: &["minutes"],
        make: Quantity::Duration,
        scale: 60.0,
    },
    Unit {
        words: &["minute"],
        make: Quantity::Duration,
        scale: 60.0,
    },
    Unit {
        words: &["min"],
        make: Quantity::Duration,
        scale: 60.0,
    },
    Unit {
        words: &["tokens"],
        make: Quantity::Tokens,
        scale: 1.0,
    },
    Unit {
        words: &["token"],
        make: Quantity::Tokens,
        scale: 1.0,
    },
    Unit {
        words: &["tok"],
        make: Quantity::Tokens,
        scale: 1.0,
    },
    Unit {
        words: &["%"],
        make: Quantity::Fraction,
        scale: 0.01,
    },
    Unit {
        words: &["percent"],
        make: Quantity::Fraction,
        scale: 0.01,
    },
    Unit {
        words: &["replicas"],
        make: Quantity::Replicas,
        scale: 1.0,
    },
    Unit {
        words: &["replica"],
        make: Quantity::Replicas,
        scale: 1.0,
    },
    Unit {
        words: &["gpus"],
        make: Quantity::Replicas,
        scale: 1.0,
    },
];

/// Words before a number that say what it is (`--max-num-seqs 64`, "a cap of 64", "a peak of 30").
const LEADS: &[Unit] = &[
    Unit {
        words: &["max", "num", "seqs"],
        make: Quantity::Concurrency,
        scale: 1.0,
    },
    Unit {
        words: &["cap", "of"],
        make: Quantity::Concurrency,
        scale: 1.0,
    },
    Unit {
        words: &["concurrency", "of"],
        make: Quantity::Concurrency,
        scale: 1.0,
    },
    Unit {
        words: &["concurrency"],
        make: Quantity::Concurrency,
        scale: 1.0,
    },
    Unit {
        words: &["peak", "of"],
        make: Quantity::RequestRate,
        scale: 1.0,
    },
];

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

/// Splits `question` into numbers and words: "1,000" and "1.5k" are numbers, "req/s" is two words, "%" is a word,
/// "sixty-four" and "a hundred" are numbers.
fn words(question: &str) -> Vec<Word> {
    let mut raw: Vec<String> = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, raw: &mut Vec<String>| {
        if !current.is_empty() {
            raw.push(std::mem::take(current));
        }
    };
    let chars: Vec<char> = question.chars().collect();
    for (at, &c) in chars.iter().enumerate() {
        let between_digits = at > 0
            && chars[at - 1].is_ascii_digit()
            && chars.get(at + 1).is_some_and(char::is_ascii_digit);
        if c.is_alphanumeric() || ((c == '.' || c == ',') && between_digits) {
            current.push(c);
        } else {
            flush(&mut current, &mut raw);
            if c == '%' {
                raw.push("%".to_owned());
            }
        }
    }
    flush(&mut current, &mut raw);

    let mut found = Vec::new();
    for word in raw {
        let lower = word.to_lowercase();
        found.push(match number_of(&lower) {
            Some(value) => Word::Number(value),
            None => Word::Text(lower),
        });
        // "sixty four" (the hyphen split it) and "a hundred" / "two thousand" fold into one number.
        let len = found.len();
        if len >= 2 {
            if let (Word::Number(before), Word::Number(last)) = (&found[len - 2], &found[len - 1]) {
                let (before, last) = (*before, *last);
                let folded =
                    if before >= 20.0 && before % 10.0 == 0.0 && before < 100.0 && last < 10.0 {
                        Some(before + last)
                    } else {
                        None
                    };
                if let Some(value) = folded {
                    found.truncate(len - 2);
                    found.push(Word::Number(value));
                }
            }
        }
    }
    // "a hundred", "two hundred", "three thousand".
    let mut folded: Vec<Word> = Vec::new();
    for word in found {
        let multiplier = match &word {
            Word::Text(text) if text == "hundred" => Some(100.0),
            Word::Text(text) if text == "thousand" => Some(1000.0),
            _ => None,
        };
        match (multiplier, folded.last_mut()) {
            (Some(m), Some(Word::Number(value))) => *value *= m,
            (Some(m), Some(Word::Text(text))) if text == "a" => {
                *folded.last_mut().expect("checked") = Word::Number(m)
            }
            _ => folded.push(word),
        }
    }
    folded
}

/// The value of one word: digits (with thousands commas, a decimal point, a `k` suffix) or a number word.
fn number_of(word: &str) -> Option<f64> {
    if let Some(&(_, value)) = NUMBER_WORDS.iter().find(|(name, _)| *name == word) {
        return Some(value);
    }
    let (digits, scale) = match word.strip_suffix('k') {
        Some(digits) => (digits, 1000.0),
        None => (word, 1.0),
    };
    if !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let value: f64 = digits.replace(',', "").parse().ok()?;
    value.is_finite().then_some(value * scale)
}

fn matches_at(words: &[Word], at: usize, pattern: &[&str]) -> bool {
    pattern.iter().enumerate().all(|(offset, expected)| {
        matches!(words.get(at + offset), Some(Word::Text(text)) if text == expected)
    })
}

/// Every number of `question` whose unit is known, in order. A number with no unit is left out: "64 and 8" says
/// too little to guess which is which.
pub fn quantities(question: &str) -> Vec<Quantity> {
    let words = words(question);
    let mut found = Vec::new();
    for (at, word) in words.iter().enumerate() {
        let Word::Number(value) = *word else {
            continue;
        };
        let after = UNITS
            .iter()
            .find(|unit| matches_at(&words, at + 1, unit.words))
            .map(|unit| (unit.make)(value * unit.scale));
        let before = || {
            LEADS.iter().find_map(|lead| {
                let len = lead.words.len();
                (at >= len && matches_at(&words, at - len, lead.words))
                    .then(|| (lead.make)(value * lead.scale))
            })
        };
        if let Some(quantity) = after.or_else(before) {
            found.push(quantity);
        }
    }
    found
}
