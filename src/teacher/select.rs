//! Which passages answer a question, best first. Three things decide: how well a passage matches the question
//! (BM25 over passages), how well its whole section does (BM25 over sections, which meets a paraphrase that shares
//! few words with any one paragraph), and how well its kind of block suits the kind of question
//! ([`super::kinds`]). A question is searched with the lesson's words for what it says ([`super::vocabulary`]).

use super::kinds::{
    preferred, read, signal_asked, suitability, without_cue, QuestionKind, SignalAsked,
};
use super::passages::{Passage, PassageKind};
use super::rank::PassageIndex;
use super::vocabulary::{normalise, normalise_typed, translate};
use crate::lesson::PassageAnswer;

/// How much the section's match counts against the passage's own (both scaled to the best of their kind).
const SECTION_WEIGHT: f64 = 1.0;
/// How much a keyword that names exactly what the question asks about counts.
const SUBJECT_WEIGHT: f64 = 2.0;

/// How much a passage's declared questions of the question's kind count, at their best (the very words asked).
const DECLARED_WEIGHT: f64 = 2.0;
/// A passage whose declared question of the question's kind matches it at least this well leads the answer.
const DECLARED_LEAD: f64 = 0.4;

/// The most words the lesson never uses that a question may hold and still be answered from the part it names.
const CLOSEST_UNKNOWN_WORDS: usize = 2;

/// BM25's length normalisation over whole sections (see [`PassageIndex::with_length_normalisation`]).
const SECTION_LENGTH_NORMALISATION: f64 = 0.3;
/// A block chosen for the question's kind must match the question at least this share as well as the best block
/// of its part of the lesson: the kind orders blocks that answer, it does not bring in ones that do not.
const LEAD_SHARE: f64 = 0.5;
/// How many blocks chosen for the question's kind lead an answer.
const LEADS: usize = 2;

/// The passages that match a question, best first, and how much of the question the lesson holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    /// (Passage index, how well it matches), best first.
    pub order: Vec<(usize, f64)>,
    /// How many of the first passages were chosen for the question's kind (they lead, and the answer shows them).
    pub leads: usize,
    /// The share of the question's words (weighted by rarity) the lesson holds, 0–1.
    pub coverage: f64,
    /// The same share with the words the vocabulary understood ("giant prompt", "avg response time") counted as the
    /// lesson's: what the question shares with the lesson when its other words are the learner's own.
    pub understood_coverage: f64,
    /// Whether the first passage leads because its author declared that it answers this kind of question about this.
    pub declared_lead: bool,
}

/// One question a passage answers, as its author declared it (`@answers`), read as a question is.
struct DeclaredAsk {
    passage: usize,
    kind: QuestionKind,
    /// Its words, stemmed, with the lesson's words for what it says; only words the lesson has.
    terms: Vec<String>,
}

/// The lesson's passages indexed twice, one by one and section by section, and what their author says they answer.
pub struct Library {
    passages: Vec<Passage>,
    index: PassageIndex,
    sections: PassageIndex,
    /// Each passage's section, as an index into the section documents.
    section_of: Vec<usize>,
    /// Every question the lesson's `@answers` entries say a passage answers.
    declared: Vec<DeclaredAsk>,
}

/// One document per section: every passage of it, under its heading.
fn section_documents(passages: &[Passage]) -> (Vec<Passage>, Vec<usize>) {
    let mut documents: Vec<Passage> = Vec::new();
    let mut section_of = Vec::with_capacity(passages.len());
    for passage in passages {
        let at = documents
            .iter()
            .position(|d| d.section_id == passage.section_id)
            .unwrap_or_else(|| {
                documents.push(Passage {
                    text: String::new(),
                    kind: PassageKind::Prose,
                    ..passage.clone()
                });
                documents.len() - 1
            });
        documents[at].text.push_str(&passage.text);
        documents[at].text.push('\n');
        section_of.push(at);
    }
    (documents, section_of)
}

/// The spellings of a keyword passage's term ("TPOT / ITL: …" is TPOT and ITL; "ITL vs TPOT" both).
fn keyword_spellings(text: &str) -> impl Iterator<Item = &str> {
    let term = text.split(": ").next().unwrap_or("");
    term.split(" / ")
        .flat_map(|part| part.split(", "))
        .flat_map(|part| part.split(" vs "))
}

/// How much a shell command counts against prose: it holds the names a question asks about (`grep -E
/// 'time_to_first_token|…'`) without saying what they are.
const COMMAND_SHARE: f64 = 0.5;

/// Whether `text` is a shell command the lesson shows (`curl -s …`, `vllm serve … --max-num-seqs 64`): a first word
/// of lower-case letters and a flag soon after it.
fn is_command(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let first = words.next().unwrap_or("");
    !first.is_empty()
        && first.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        && words.take(3).any(|word| word.starts_with('-'))
}

/// The capital letters `question` writes on their own, which name a formula's symbols ("is W just the time on the
/// GPU, or does the queue count too?"); "I" and "A" are words.
fn symbols_named(question: &str) -> Vec<&str> {
    question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.len() == 1 && word.chars().all(|c| c.is_ascii_uppercase()))
        .filter(|word| !matches!(*word, "I" | "A"))
        .collect()
}

/// 1 when `passage` is a formula's legend that defines one of `symbols`, else 0: a question about a symbol is
/// answered by what the legend says of it, whatever else it asks.
fn legend_names(passage: &Passage, symbols: &[&str]) -> f64 {
    let defines = |entry: &str| symbols.contains(&entry.split(": ").next().unwrap_or(""));
    if passage.kind == PassageKind::Formula && passage.text.split("; ").any(defines) {
        1.0
    } else {
        0.0
    }
}

/// Scores scaled to the best of them (0 where absent).
fn scaled(hits: &[super::rank::Hit], len: usize) -> Vec<f64> {
    let best = hits
        .first()
        .map_or(1.0, |hit| hit.score.max(f64::MIN_POSITIVE));
    let mut scores = vec![0.0; len];
    for hit in hits {
        scores[hit.passage] = hit.score / best;
    }
    scores
}

impl Library {
    /// Indexes `passages` one by one and by section, and the questions `declared` says they answer.
    pub fn new(passages: Vec<Passage>, declared: &[PassageAnswer]) -> Self {
        let index = PassageIndex::new(&passages);
        let (documents, section_of) = section_documents(&passages);
        let mut library = Library {
            sections: PassageIndex::with_length_normalisation(
                &documents,
                SECTION_LENGTH_NORMALISATION,
            ),
            declared: Vec::new(),
            passages,
            index,
            section_of,
        };
        // Only the entries whose passage exists: the build checked them against these very passages.
        library.declared = declared
            .iter()
            .filter(|entry| entry.passage < library.passages.len())
            .flat_map(|entry| {
                entry.asks.iter().map(|ask| DeclaredAsk {
                    passage: entry.passage,
                    kind: entry.kind,
                    terms: library.known_terms(entry.kind, ask),
                })
            })
            .collect();
        library
    }

    /// The distinct stemmed words of `text`, a question of `kind`, without its kind's cue and with the lesson's
    /// words for what it says, that some passage has. A comparison is its two terms alone: "throughput vs latency:
    /// a rate against a time" answers "latency vs throughput??", whose words are just the two terms.
    fn known_terms(&self, kind: QuestionKind, text: &str) -> Vec<String> {
        let compared = (kind == QuestionKind::Comparison)
            .then(|| read(text).compared)
            .flatten()
            .map(|(a, b)| format!("{a} {b}"));
        let text = compared.as_deref().unwrap_or(text);
        let mut terms = self.index.terms(&format!(
            "{} {} {}",
            without_cue(kind, text),
            translate(text).0,
            self.acronyms_of_spelled_out(text)
        ));
        terms.sort();
        terms.dedup();
        terms.retain(|term| self.index.holds(term));
        terms
    }

    /// How well each passage's declared questions of `kind` match `question`, 0–1: for the best of them, the share
    /// of the words the two hold between them that they share (each weighted by its rarity in the lesson), so a
    /// declared question matches when it asks about what the question asks about, no more and no less.
    fn declared_match(&self, question: &str, kind: QuestionKind) -> Vec<f64> {
        let asked = self.known_terms(kind, question);
        let weight = |terms: &[String]| terms.iter().map(|t| self.index.idf(t)).sum::<f64>();
        let asked_weight = weight(&asked);
        let mut matched = vec![0.0; self.passages.len()];
        // A question whose kind the wording does not say may be any of the kinds declared.
        let of_its_kind = |d: &&DeclaredAsk| d.kind == kind;
        for declared in self.declared.iter().filter(of_its_kind) {
            let shared: Vec<String> = declared
                .terms
                .iter()
                .filter(|term| asked.binary_search(term).is_ok())
                .cloned()
                .collect();
            let total = asked_weight + weight(&declared.terms);
            if total > 0.0 {
                let dice = 2.0 * weight(&shared) / total;
                let best = &mut matched[declared.passage];
                *best = f64::max(*best, dice);
            }
        }
        matched
    }

    /// The passages, in reading order.
    pub fn passages(&self) -> &[Passage] {
        &self.passages
    }

    /// The opening passage (its TL;DR, or its first paragraph) of the part of the lesson `question` plainly names,
    /// when the lesson holds too little of the question to answer it: a keyword of the part ("TTFT", "goodput") or
    /// every word of a section's heading ("the knee"). When it names several, the part of `best` (the best match)
    /// wins if it is one of them, else the first in reading order; `None` when it names none, or when it holds more
    /// than [`CLOSEST_UNKNOWN_WORDS`] the lesson never uses.
    pub fn opening_of_named_part(&self, question: &str, best: Option<usize>) -> Option<usize> {
        let (lesson_words, rest) = translate(question);
        // A question that brings more than two words of its own is about something else ("which GPU vendor has the best
        // drivers for the knee?").
        let unknown = self
            .index
            .terms(&rest)
            .iter()
            .filter(|term| !self.index.holds(term))
            .count();
        if unknown > CLOSEST_UNKNOWN_WORDS {
            return None;
        }
        let mut asked = self.index.terms(&format!("{question} {lesson_words}"));
        asked.sort();
        asked.dedup();
        let named = |spelling: &str| {
            let stems = self.index.terms(spelling);
            !stems.is_empty() && stems.iter().all(|stem| asked.binary_search(stem).is_ok())
        };
        let parts: Vec<&Option<String>> = self
            .passages
            .iter()
            .filter(|passage| {
                let heading = named(&passage.section_title);
                heading
                    || (passage.kind == PassageKind::Keyword
                        && keyword_spellings(&passage.text).any(named))
            })
            .map(|passage| &passage.part_id)
            .collect();
        let best_part = best.map(|at| &self.passages[at].part_id);
        let part = best_part
            .filter(|part| parts.contains(part))
            .or_else(|| parts.first().copied())?;
        self.passages
            .iter()
            .position(|passage| passage.part_id == *part)
    }

    /// The keyword passage of the metric or flag `question` names by its identifier (`num_requests_waiting`,
    /// `--max-num-seqs`), if it names exactly one: a question about a named signal is about what its keyword says,
    /// whatever else it tells of the learner's setup.
    pub fn keyword_of_named_signal(&self, question: &str) -> Option<usize> {
        let said = question.to_lowercase();
        let mut named = self.passages.iter().enumerate().filter(|(_, passage)| {
            passage.kind == PassageKind::Keyword
                && keyword_spellings(&passage.text).any(|spelling| {
                    let spelling = spelling.trim().to_lowercase();
                    (spelling.contains('_') || spelling.starts_with("--"))
                        && said.contains(spelling.trim_start_matches("vllm:"))
                })
        });
        let (first, _) = named.next()?;
        named.next().is_none().then_some(first)
    }

    /// Whether `text` holds a word the lesson never uses, once the vocabulary has read it: not a number, nor a name
    /// with digits in it ("70b", "h200"), which say nothing of the topic.
    pub fn names_what_the_lesson_never_does(&self, text: &str) -> bool {
        let (_, rest) = translate(text);
        self.index
            .terms(&rest)
            .iter()
            .any(|term| !self.index.holds(term) && !term.contains(|c: char| c.is_ascii_digit()))
    }

    /// The lesson's glossary of acronyms: (an acronym, what it stands for), as its keywords spell them ("TTFT: Time
    /// to first token: …" gives ("TTFT", "Time to first token")).
    fn acronyms(&self) -> impl Iterator<Item = (&str, &str)> {
        let is_acronym = |spelling: &&str| {
            spelling.len() >= 2 && spelling.chars().all(|c| c.is_ascii_uppercase())
        };
        self.passages
            .iter()
            .filter(|passage| passage.kind == PassageKind::Keyword)
            .flat_map(move |passage| {
                let meaning = passage
                    .text
                    .split_once(": ")
                    .and_then(|(_, meaning)| meaning.split([':', ',', '.', ';']).next())
                    .unwrap_or("");
                keyword_spellings(&passage.text)
                    .filter(is_acronym)
                    .map(move |acronym| (acronym, meaning))
            })
    }

    /// What the acronyms `question` uses stand for, as the lesson's glossary spells them out, so that a question
    /// that says "TTFT" also meets the metric that writes it out, `vllm:time_to_first_token_seconds`.
    fn acronyms_spelled_out(&self, question: &str) -> String {
        let asked: Vec<&str> = question
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .collect();
        self.acronyms()
            .filter(|(acronym, _)| asked.iter().any(|word| word.eq_ignore_ascii_case(acronym)))
            .map(|(_, meaning)| meaning)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The acronyms whose meaning `question` spells out in full ("time to first token" is TTFT), so that it meets
    /// what the lesson says by the acronym, and the questions declared with it.
    fn acronyms_of_spelled_out(&self, question: &str) -> String {
        let said = normalise(question);
        self.acronyms()
            .filter(|(_, meaning)| {
                let meaning = normalise(meaning);
                meaning.trim().contains(' ') && said.contains(&meaning)
            })
            .map(|(acronym, _)| acronym)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The passage BM25 index, for a plain search.
    pub fn index(&self) -> &PassageIndex {
        &self.index
    }

    /// How well a keyword passage names `subject` (the stemmed words the question asks about): the share of the
    /// subject one of its term's spellings covers ("TPOT / ITL" names "ITL"), 0 for other passages.
    fn names(&self, passage: &Passage, subject: &[String]) -> f64 {
        if subject.is_empty() {
            return 0.0;
        }
        // A section's TL;DR defines what its heading names: "What is Little's Law?"
        if passage.kind == PassageKind::Tldr {
            let heading = self.index.terms(&passage.section_title);
            return if subject.iter().all(|s| heading.contains(s)) {
                1.0
            } else {
                0.0
            };
        }
        // A formula's legend defines its symbols, in the section its heading names: "What does W mean in Little's
        // Law?" asks for one symbol, and the rest of what it asks about is the heading's.
        if passage.kind == PassageKind::Formula {
            let heading = self.index.terms(&passage.section_title);
            let names_symbol = passage.text.split("; ").any(|entry| {
                let symbol = self.index.terms(entry.split(": ").next().unwrap_or(""));
                !symbol.is_empty()
                    && symbol.iter().all(|s| subject.contains(s))
                    && subject
                        .iter()
                        .all(|s| symbol.contains(s) || heading.contains(s))
            });
            return if names_symbol { 1.0 } else { 0.0 };
        }
        if passage.kind != PassageKind::Keyword {
            return 0.0;
        }
        // A keyword that sets two terms side by side ("ITL vs TPOT") names each less than the keyword of the term.
        let term = passage.text.split(": ").next().unwrap_or("");
        let side_by_side = if term.contains(" vs ") { 0.5 } else { 1.0 };
        side_by_side
            * keyword_spellings(&passage.text)
                .map(|spelling| self.index.terms(spelling))
                .filter(|stems| !stems.is_empty() && stems.iter().all(|s| subject.contains(s)))
                .map(|stems| stems.len() as f64 / stems.len().max(subject.len()) as f64)
                .fold(0.0, f64::max)
    }

    /// How well each passage matches `question`: its own match, its section's and, for a question about a
    /// term, whether it names that term. (Passage index, relevance), best first; only passages with a match.
    fn relevance(
        &self,
        query: &str,
        subject: &[String],
        symbols: &[&str],
        declared: &[f64],
    ) -> Vec<(usize, f64)> {
        let own_scores = scaled(&self.index.search(query), self.passages.len());
        let section_scores = scaled(&self.sections.search(query), self.section_of.len());
        let mut order: Vec<(usize, f64)> = self
            .passages
            .iter()
            .enumerate()
            .filter_map(|(at, passage)| {
                let own = own_scores[at];
                let section = section_scores[self.section_of[at]];
                (own > 0.0 || section > 0.0 || declared[at] > 0.0).then(|| {
                    let named = SUBJECT_WEIGHT
                        * f64::max(self.names(passage, subject), legend_names(passage, symbols));
                    let said = DECLARED_WEIGHT * declared[at];
                    let share = if is_command(&passage.text) {
                        COMMAND_SHARE
                    } else {
                        1.0
                    };
                    (at, share * (own + SECTION_WEIGHT * section + named + said))
                })
            })
            .collect();
        order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        order
    }

    /// The blocks that lead the answer to a question of `kind` whose best match is `best`: in the order of
    /// [`preferred`], the best-matching block of each kind from the same part of the lesson. A TL;DR or an
    /// analogy speaks for its whole section (not for the sub-sections under it: "On your cluster" does not speak
    /// for "Queue or shed"); any other block must match the question itself.
    fn leads(
        &self,
        kind: QuestionKind,
        asked: SignalAsked,
        best: usize,
        order: &[(usize, f64)],
        own: &[f64],
    ) -> Vec<usize> {
        let part = &self.passages[best].part_id;
        let best_own = order
            .iter()
            .filter(|&&(at, _)| self.passages[at].part_id == *part)
            .map(|&(at, _)| own[at])
            .fold(0.0, f64::max);
        preferred(kind)
            .iter()
            .filter_map(|wanted| {
                order.iter().map(|&(at, _)| at).find(|&at| {
                    let passage = &self.passages[at];
                    passage.kind == *wanted
                        && passage.part_id == *part
                        && suitability(kind, passage, asked) > 0.0
                        && (own[at] >= LEAD_SHARE * best_own
                            || (matches!(wanted, PassageKind::Tldr | PassageKind::Analogy)
                                && passage.section_id == self.passages[best].section_id))
                })
            })
            .take(LEADS)
            .collect()
    }

    /// The passages that answer `question`, a question of `kind`, best first: the blocks that suit its kind lead
    /// (see [`Library::leads`]), the rest follow by how well they match. `subject` is what a definition or a simple
    /// explanation is about (a keyword or a heading that names it counts).
    pub fn rank(&self, question: &str, kind: QuestionKind, subject: Option<&str>) -> Ranking {
        let (lesson_words, _) = translate(question);
        let topic = without_cue(kind, question);
        let (_, rest) = translate(&topic);
        // A "which metric" question is searched for what it is about; other kinds' cue words are stop words or
        // help (the "long" of "how long" meets "takes longer").
        let asked = if kind == QuestionKind::WhichSignal {
            topic.as_str()
        } else {
            question
        };
        // Metrics are named in full (`time_to_first_token_seconds`): a question for the metric of TTFT is searched
        // with what TTFT stands for too. (Flags and other kinds are not: the words would outweigh the question's.)
        let spelled_out =
            if kind == QuestionKind::WhichSignal && signal_asked(question) == SignalAsked::Metric {
                self.acronyms_spelled_out(question)
            } else {
                String::new()
            };
        let acronyms = self.acronyms_of_spelled_out(question);
        let query = format!("{asked} {lesson_words} {spelled_out} {acronyms}");
        let subject: Vec<String> = subject
            .map(|s| {
                let mut stems = self.index.terms(&format!("{s} {}", translate(s).0));
                stems.sort();
                stems.dedup();
                stems
            })
            .unwrap_or_default();
        let declared = self.declared_match(question, kind);
        let relevance = self.relevance(&query, &subject, &symbols_named(question), &declared);
        let own = scaled(&self.index.search(&query), self.passages.len());
        // A passage its author says answers this kind of question about this leads; then the blocks that suit the kind.
        // A metric asked for is not answered by a flag declared for a question that shares its words, nor the reverse.
        let asked = signal_asked(question);
        let said = (0..self.passages.len())
            .filter(|&at| declared[at] >= DECLARED_LEAD)
            .filter(|&at| {
                kind != QuestionKind::WhichSignal
                    || suitability(kind, &self.passages[at], asked) > 0.0
            })
            .max_by(|&a, &b| declared[a].total_cmp(&declared[b]).then(b.cmp(&a)));
        let mut leads: Vec<usize> = said.into_iter().collect();
        // The part of the lesson the answer comes from: the declared passage's, else the best match's; for a metric
        // or a flag asked by name, the best match that names one (the TTFT prose does not; the list of metrics does).
        let anchor = said.or_else(|| {
            let best = relevance.first().map(|&(at, _)| at)?;
            let named = (kind == QuestionKind::WhichSignal && asked != SignalAsked::Either)
                .then(|| {
                    relevance
                        .iter()
                        .map(|&(at, _)| at)
                        .find(|&at| suitability(kind, &self.passages[at], asked) > 0.0)
                })
                .flatten();
            Some(named.unwrap_or(best))
        });
        let suited = anchor
            .map(|anchor| self.leads(kind, asked, anchor, &relevance, &own))
            .unwrap_or_default();
        let mut suited: Vec<usize> = suited.into_iter().filter(|at| Some(*at) != said).collect();
        // Every block that leads a "how long" gives a figure ([`suitability`]); the one that matches the question
        // best goes first, whatever its kind of block (a predict step's reveal works the scenario asked). The
        // relevance order is best first, so that is the suited block that comes first in it (moved, not sorted: a
        // sort costs the worker 2 kB).
        if kind == QuestionKind::Duration {
            let best = relevance
                .iter()
                .find_map(|&(at, _)| suited.iter().position(|&s| s == at));
            if let Some(best) = best {
                suited[..=best].rotate_right(1);
            }
        }
        // Among a definition's, the first block that names just what is asked about goes first (a formula's legend
        // for its symbol); a simple explanation keeps its analogy first.
        if kind == QuestionKind::Definition {
            let naming = suited
                .iter()
                .position(|&at| self.names(&self.passages[at], &subject) >= 1.0);
            if let Some(at) = naming {
                suited[..=at].rotate_right(1);
            }
        }
        leads.extend(suited);
        leads.truncate(LEADS);
        let lead_count = leads.len();
        let rest_of_order: Vec<usize> = relevance
            .iter()
            .map(|&(at, _)| at)
            .filter(|at| !leads.contains(at))
            .collect();
        leads.extend(rest_of_order);
        let (coverage, understood_coverage) = self.coverage(&topic, &rest, &leads);
        let score = |at: usize| {
            relevance
                .iter()
                .find(|(p, _)| *p == at)
                .map_or(0.0, |r| r.1)
        };
        Ranking {
            order: leads.into_iter().map(|at| (at, score(at))).collect(),
            leads: lead_count,
            coverage,
            understood_coverage,
            declared_lead: said.is_some(),
        }
    }

    /// The share of `rest` (`topic`, the question less its kind's cue, less what the vocabulary understood) that the
    /// lesson holds, each word weighted by its rarity: a question in the lesson's subject uses its words, if not in
    /// the section one expects; and the share of `topic` with what the vocabulary understood counted as held. 1 when
    /// nothing is left to judge, 0 when nothing matched at all.
    fn coverage(&self, topic: &str, rest: &str, order: &[usize]) -> (f64, f64) {
        if order.is_empty() {
            return (0.0, 0.0);
        }
        let left = self.index.terms(rest);
        let understood: Vec<String> = self
            .index
            .terms(&normalise_typed(topic))
            .into_iter()
            .filter(|term| !left.contains(term))
            .collect();
        (
            self.index.coverage(rest, &[]).unwrap_or(1.0),
            self.index.coverage(rest, &understood).unwrap_or(1.0),
        )
    }
}
