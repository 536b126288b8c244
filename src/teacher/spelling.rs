//! Misspelt words read as the words meant: "waht is goodptu", "expalin the knee", "how many replcias". A word the
//! lesson and the teacher's own question words never use, one slip from one they do (a letter missing, added,
//! changed, or two swapped), is read as that word before anything else reads the question. Short words are only
//! read through a swap ("teh", "waht", "metirc"): a letter missing, added or changed in a word of fewer than seven
//! letters is as often another word ("spot" and "slot", "around" and "round", "sends" and "spends").

use std::collections::HashMap;

use super::passages::Passage;

/// The shortest word read through any slip; shorter ones only through two swapped letters.
const ANY_SLIP_FROM: usize = 7;
/// The shortest word read at all.
const SHORTEST: usize = 3;
/// How much a question word of the teacher's own counts against a lesson word's occurrences, when both are one slip
/// away: "waht" is "what" before it is "wait".
const QUESTION_WORD_WEIGHT: usize = 1_000;

/// The words a question may be spelt with: the lesson's, each with how often it is used, and the teacher's own
/// question words.
pub struct Dictionary {
    words: HashMap<String, usize>,
}

/// The lower-cased words of `text`, and each word with its apostrophes dropped ("little's" is also "littles").
fn words_of(text: &str) -> impl Iterator<Item = String> + '_ {
    let joined = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|word| word.contains(['\'', '’']))
        .map(|word| word.replace(['\'', '’'], ""));
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_owned)
        .chain(joined)
        .filter(|word| !word.is_empty())
        .map(|word| word.to_lowercase())
}

/// Whether `a` and `b` are one slip apart: a letter missing, added or changed, or two neighbours swapped (any of
/// these when `any_slip`, else only the swap or a doubled letter typed once or a letter typed twice).
fn one_slip(a: &[char], b: &[char], any_slip: bool) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let start = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    if start == long.len() {
        return false;
    }
    match long.len() - short.len() {
        0 => {
            let swapped = start + 1 < long.len()
                && short[start] == long[start + 1]
                && short[start + 1] == long[start]
                && short[start + 2..] == long[start + 2..];
            swapped || (any_slip && short[start + 1..] == long[start + 1..])
        }
        // A doubled letter typed once, or a letter typed twice ("beter", "litles", "omision"), is a slip at any
        // length: it rarely makes another word.
        1 => {
            let doubled = (start > 0 && long[start] == long[start - 1])
                || long.get(start + 1) == Some(&long[start]);
            (any_slip || doubled) && short[start..] == long[start + 1..]
        }
        _ => false,
    }
}

impl Dictionary {
    /// The lesson's words from `passages`, and `question_words` (cues, stop words, learners' phrases).
    pub fn new<'a>(passages: &[Passage], question_words: impl Iterator<Item = &'a str>) -> Self {
        let mut words: HashMap<String, usize> = HashMap::new();
        for passage in passages {
            for word in words_of(&passage.text).chain(words_of(&passage.section_title)) {
                *words.entry(word).or_default() += 1;
            }
        }
        for phrase in question_words {
            for word in words_of(phrase) {
                *words.entry(word).or_default() += QUESTION_WORD_WEIGHT;
            }
        }
        Dictionary { words }
    }

    /// The known word `word` (lower-cased) is one slip from, the most used if several; `None` when it is known
    /// itself, holds a digit or an underscore (a number, a model, a metric), is too short, or is near nothing.
    fn meant(&self, word: &str) -> Option<&str> {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() < SHORTEST
            || self.words.contains_key(word)
            || chars.iter().any(|c| !c.is_alphabetic())
        {
            return None;
        }
        let any_slip = chars.len() >= ANY_SLIP_FROM;
        self.words
            .iter()
            .filter(|(known, _)| known.len().abs_diff(word.len()) <= 1)
            .filter(|(known, _)| {
                let known: Vec<char> = known.chars().collect();
                one_slip(&chars, &known, any_slip)
            })
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(known, _)| known.as_str())
    }

    /// `question` with each misspelt word written as the word meant (lower-cased); the rest as it was.
    pub fn corrected(&self, question: &str) -> String {
        let mut out = String::with_capacity(question.len());
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            let lower = word.to_lowercase();
            match self.meant(&lower) {
                Some(meant) => out.push_str(meant),
                None => out.push_str(word),
            }
            word.clear();
        };
        for c in question.chars() {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    }
}
