//! Okapi BM25 over the lesson's passages, with English (Porter 2) stemming, so "queueing", "queues" and "queued"
//! meet, and common words weigh nothing. A passage's section heading counts as part of its text, twice, since a
//! question usually names the topic the heading names.

use std::collections::HashMap;

use rust_stemmers::{Algorithm, Stemmer};

use super::passages::Passage;

/// BM25's term-frequency saturation: the usual value.
const K1: f64 = 1.2;
/// BM25's length normalisation: the usual value, for passages.
pub const B: f64 = 0.75;
/// How many times a passage's section heading is counted with its text.
const HEADING_WEIGHT: usize = 1;

/// Words that carry no topic; a question made only of them matches nothing.
pub(super) const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "for",
    "from",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "me",
    "my",
    "of",
    "on",
    "or",
    "our",
    "should",
    "so",
    "tell",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "this",
    "to",
    "us",
    "was",
    "we",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "explain",
    "mean",
    "means",
    "meaning",
    "am",
    "m",
    "s",
    "t",
    "like",
    "happens",
    "happen",
    "going",
    "please",
    "need",
    "want",
    "know",
    "get",
    "keep",
    "should",
    "thing",
    "same",
    "just",
    "really",
    "much",
    "many",
    "has",
    "have",
    "had",
    "stand",
    "difference",
    "between",
    "vs",
    "versus",
    "whats",
    "im",
    "out",
    "shouldn",
    "don",
    "doesn",
    "isn",
    "aren",
    "can",
    "cannot",
    "won",
    "wouldn",
    "didn",
    "llm",
    "llms",
    "help",
    "helps",
    "hurt",
    "hurts",
    "affect",
    "affects",
    "improve",
    "improves",
    "good",
    "bad",
    "better",
    "worse",
    "say",
    "says",
    "control",
    "controls",
    "everyone",
    "else",
    "someone",
    "anyone",
    "down",
    "give",
    "gives",
    "way",
    "ways",
    "also",
    "still",
    "exactly",
    "actually",
    "return",
    "returns",
    "returning",
    "getting",
    "got",
    "see",
    "seeing",
    "use",
    "using",
    "till",
    "until",
    "shouldnt",
    "isnt",
    "dont",
    "doesnt",
    "cant",
    "wont",
    "arent",
    "wouldnt",
    "didnt",
    // Chat filler, which says nothing of the topic.
    "kinda",
    "sorta",
    "tho",
    "basically",
    "literally",
    "lol",
    "btw",
    "honestly",
];

/// Lower-cased, stemmed words of `text`, stop words left out. Hyphens and slashes split words (`max-num-seqs`
/// → max, num, seq), digits stay (p99, 8xh100).
pub fn terms(stemmer: &Stemmer, text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .filter(|word| !STOP_WORDS.contains(&word.as_str()))
        .map(|word| stemmer.stem(&word).into_owned())
        .filter(|stem| !STOP_WORDS.contains(&stem.as_str()))
        .collect()
}

/// A passage found for a question, and how well it matched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Its index in the passages the index was built from.
    pub passage: usize,
    /// Its BM25 score (higher is better).
    pub score: f64,
    /// The share of the question's distinct terms it contains, 0–1, each term weighted by its inverse document
    /// frequency: a rare word the passage lacks ("pasta") counts for more than a common one it lacks.
    pub coverage: f64,
}

/// A BM25 index of passages.
pub struct PassageIndex {
    stemmer: Stemmer,
    /// Term → (passage, occurrences) for every passage that has it.
    postings: HashMap<String, Vec<(usize, u32)>>,
    /// Each passage's length in terms.
    lengths: Vec<f64>,
    mean_length: f64,
    /// Length normalisation, 0 (none) to 1 (full).
    b: f64,
}

impl PassageIndex {
    /// Indexes `passages` (each with its section heading).
    pub fn new(passages: &[Passage]) -> Self {
        Self::with_length_normalisation(passages, B)
    }

    /// Indexes `passages` with length normalisation `b`: documents as unlike in length as a lesson's sections (a
    /// three-line wrap-up, a page of metrics) want less than the usual, or the shortest wins every question.
    pub fn with_length_normalisation(passages: &[Passage], b: f64) -> Self {
        let stemmer = Stemmer::create(Algorithm::English);
        let mut postings: HashMap<String, Vec<(usize, u32)>> = HashMap::new();
        let mut lengths = Vec::with_capacity(passages.len());
        for (index, passage) in passages.iter().enumerate() {
            let mut counts: HashMap<String, u32> = HashMap::new();
            let heading = terms(&stemmer, &passage.section_title);
            let body = terms(&stemmer, &passage.text);
            let mut length = body.len();
            for term in body {
                *counts.entry(term).or_default() += 1;
            }
            for _ in 0..HEADING_WEIGHT {
                length += heading.len();
                for term in &heading {
                    *counts.entry(term.clone()).or_default() += 1;
                }
            }
            lengths.push(length as f64);
            for (term, count) in counts {
                postings.entry(term).or_default().push((index, count));
            }
        }
        let mean_length = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
        PassageIndex {
            stemmer,
            postings,
            lengths,
            mean_length: mean_length.max(1.0),
            b,
        }
    }

    /// Whether some passage has `term` (stemmed).
    pub fn holds(&self, term: &str) -> bool {
        self.postings.contains_key(term)
    }

    /// The inverse document frequency of `term` (the "+1" form, never negative); a term no passage has gets the
    /// highest.
    pub fn idf(&self, term: &str) -> f64 {
        let passages = self.lengths.len() as f64;
        let with_term = self.postings.get(term).map_or(0.0, |p| p.len() as f64);
        ((passages - with_term + 0.5) / (with_term + 0.5) + 1.0).ln()
    }

    /// The passages that share a term with `question`, best first (ties in reading order).
    pub fn search(&self, question: &str) -> Vec<Hit> {
        let mut query = terms(&self.stemmer, question);
        query.sort();
        query.dedup();
        let total_weight: f64 = query.iter().map(|term| self.idf(term)).sum();
        let mut scores: HashMap<usize, (f64, f64)> = HashMap::new();
        for term in &query {
            let Some(postings) = self.postings.get(term) else {
                continue;
            };
            let idf = self.idf(term);
            for &(passage, count) in postings {
                let count = f64::from(count);
                let norm = K1 * (1.0 - self.b + self.b * self.lengths[passage] / self.mean_length);
                let entry = scores.entry(passage).or_default();
                entry.0 += idf * count * (K1 + 1.0) / (count + norm);
                entry.1 += idf;
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .map(|(passage, (score, matched))| Hit {
                passage,
                score,
                coverage: matched / total_weight,
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.passage.cmp(&b.passage)));
        hits
    }

    /// The share of `text`'s distinct terms, each weighted by its inverse document frequency, that some passage
    /// holds, the terms of `understood` (words the vocabulary read, stemmed) counting as held; `None` when there are
    /// no terms. Numbers are left out: a number says nothing of the topic ("256", "30k"), so the lesson lacking it
    /// is no sign that the lesson does not cover the question.
    pub fn coverage(&self, text: &str, understood: &[String]) -> Option<f64> {
        let mut query = terms(&self.stemmer, text);
        query.extend(understood.iter().cloned());
        query.retain(|term| !term.starts_with(|c: char| c.is_ascii_digit()));
        query.sort();
        query.dedup();
        let total: f64 = query.iter().map(|term| self.idf(term)).sum();
        let held: f64 = query
            .iter()
            .filter(|term| self.postings.contains_key(*term) || understood.contains(term))
            .map(|term| self.idf(term))
            .sum();
        (!query.is_empty()).then(|| held / total)
    }

    /// The stemmed terms of `text`, as this index reads them.
    pub fn terms(&self, text: &str) -> Vec<String> {
        terms(&self.stemmer, text)
    }
}
