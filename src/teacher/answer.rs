//! A question's answer from the course, as data and as the HTML the Ask box shows: a worked sizing, SLOs to start
//! from, two terms side by side, the best passage or two (in the order that suits the question's kind) with links
//! to their sections, or a plain "the lesson does not say" with the closest section (as HTML in `answer_html`).

use super::kinds::{read, without_cue, QuestionKind, Reading};
use super::passages::{passages, Passage};
use super::rank::Hit;
use super::select::{Library, Ranking};
use super::spelling::Dictionary;
use super::untaught::{asks_untaught, set_up};
use super::worked::{littles_law_answer, sizing_answer, slo_answer, LittleAnswer, SizingAnswer};
use crate::cluster::autoscale::SloSuggestion;
use crate::lesson::Lesson;

/// How much of the question the best passage must contain to count as an answer: half its distinct words.
const ANSWER_COVERAGE: f64 = 0.5;
/// How much of the question must be the lesson's when a passage was declared to answer it.
const DECLARED_ANSWER_COVERAGE: f64 = 0.3;
/// How many best passages must come from one section for a question the lesson holds too little of to be answered
/// from it, and how much of the question the lesson must still hold (see [`Teacher::one_section_agrees`]).
const AGREEING_PASSAGES: usize = 3;
const AGREEING_COVERAGE: f64 = 0.35;
/// How many of the best candidates for a difference's second term are searched for one beside the first's.
const NEAR_CANDIDATES: usize = 3;
/// How many passages a difference question's side-by-side keeps before the rest of the ranking.
const COMPARED_SIDES: usize = 2;
/// A second passage is shown when it scores at least this share of the first's.
const SECOND_PASSAGE_SHARE: f64 = 0.6;
/// How many passages go to a learner's own model as context.
const CONTEXT_PASSAGES: usize = 4;
/// The longest question the teacher reads, in characters. Learners' questions run to a few hundred; reading costs
/// time in proportion to length (a 64 kB paste took 244 ms natively, more in the worker), so a paste of a whole log
/// is refused with its length rather than read.
pub const QUESTION_LIMIT_CHARS: usize = 2_000;

/// What the course says to a question.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer<'a> {
    /// Little's Law worked for the quantity asked.
    Little(LittleAnswer),
    /// A Little's Law sizing from the question's numbers (or what is missing).
    Sizing(SizingAnswer),
    /// SLOs to start from, for each kind of application the question names.
    Slos(Vec<&'static SloSuggestion>),
    /// The best passage, and a second when it scores close.
    Passages(Vec<&'a Passage>),
    /// Two terms side by side: each as the learner named it (or as the lesson's keyword names it), and the
    /// passage that says what it is.
    Compared(Vec<(String, &'a Passage)>),
    /// Nothing answers it well, but it plainly names a part of the lesson: that part's opening, the closest passage.
    Closest(&'a Passage),
    /// Nothing answers it well, but its best few passages all come from one section, or it names a metric or a flag
    /// by its identifier: the best of them, or that signal's keyword, the closest passage (not a section's opening,
    /// so not said to be).
    ClosestIn(&'a Passage),
    /// Nothing answers it; the section that comes closest, if any word matched at all.
    NotCovered(Option<&'a Passage>),
    /// The question has no words.
    Empty,
    /// The question is longer than [`QUESTION_LIMIT_CHARS`]: this many characters.
    TooLong(usize),
}

impl<'a> Answer<'a> {
    /// The passages the answer shows, in the order it shows them.
    pub fn shown(&self) -> Vec<&'a Passage> {
        match self {
            Answer::Passages(found) => found.clone(),
            Answer::Closest(passage) | Answer::ClosestIn(passage) => vec![*passage],
            Answer::Compared(sides) => sides.iter().map(|(_, passage)| *passage).collect(),
            _ => Vec::new(),
        }
    }
}

/// The lesson's passages and their indexes: build once, ask many times.
pub struct Teacher {
    library: Library,
    /// The words a question may be spelt with, to read a misspelt one as the word meant.
    dictionary: Dictionary,
    lesson_title: String,
    /// The lesson page's site path (`lessons/<slug>/`): its pages' base is the site root, so an in-page link names
    /// the page.
    page: String,
}

/// The keyword's own name for a passage that is one ("TPOT / ITL"), else the learner's words.
fn side_label(term: &str, passage: &Passage) -> String {
    match passage.kind {
        super::passages::PassageKind::Keyword => {
            passage.text.split(": ").next().unwrap_or(term).to_owned()
        }
        _ => term.to_owned(),
    }
}

impl Teacher {
    /// Cuts `lesson` into passages and indexes them.
    pub fn new(lesson: &Lesson) -> Self {
        let passages = passages(lesson);
        let question_words = super::kinds::cue_words()
            .chain(super::rank::STOP_WORDS.iter().copied())
            .chain(super::vocabulary::learner_phrases())
            .chain(super::typed::chat_words())
            .chain(super::untaught::UNTAUGHT.iter().copied())
            .chain(super::untaught::SETUP_VERBS.iter().copied());
        Teacher {
            dictionary: Dictionary::new(&passages, question_words),
            library: Library::new(passages, &lesson.answers),
            lesson_title: lesson.meta.title.clone(),
            page: format!("lessons/{}/", lesson.meta.slug),
        }
    }

    /// The passages, in reading order.
    pub fn passages(&self) -> &[Passage] {
        self.library.passages()
    }

    /// The passages that share a word with `question`, by plain BM25, best first.
    pub fn search(&self, question: &str) -> Vec<(&Passage, Hit)> {
        self.library
            .index()
            .search(question)
            .into_iter()
            .map(|hit| (&self.passages()[hit.passage], hit))
            .collect()
    }

    /// How `question` reads, and its passages ranked for its kind.
    fn ranking(&self, question: &str) -> (Reading, Ranking) {
        let reading = read(question);
        // What the question is about, for a keyword that names it: the topic of a definition or a simple
        // explanation, and what a composition asks the parts of ("what does TPOT consist of" is about TPOT).
        let parts_of = without_cue(QuestionKind::Composition, &reading.topic);
        let subject = match reading.kind {
            QuestionKind::Definition | QuestionKind::Simple => Some(reading.topic.as_str()),
            QuestionKind::Composition => Some(parts_of.as_str()),
            _ => None,
        };
        let ranking = self.library.rank(&reading.topic, reading.kind, subject);
        (reading, ranking)
    }

    /// The passage that says what `term` is, if the lesson answers that: not `not` (the other side of a
    /// difference), and from the part of the lesson `near` names when one of the first few candidates is, so the two
    /// sides of a difference come from the same place when they can.
    fn definition(&self, term: &str, not: Option<usize>, near: Option<&Passage>) -> Option<usize> {
        let ranking = self
            .library
            .rank(term, QuestionKind::Definition, Some(term));
        if ranking.coverage < ANSWER_COVERAGE {
            return None;
        }
        let candidates: Vec<usize> = ranking
            .order
            .iter()
            .map(|&(at, _)| at)
            .filter(|&at| Some(at) != not)
            .collect();
        let same_part = near.and_then(|near| {
            candidates
                .iter()
                .take(NEAR_CANDIDATES)
                .find(|&&at| self.passages()[at].part_id == near.part_id)
        });
        same_part.or(candidates.first()).copied()
    }

    /// The two terms of a comparison and the passage for each, when the lesson defines both and no passage was
    /// declared to answer this comparison itself (that one answers it).
    fn compared(&self, reading: &Reading, ranking: &Ranking) -> Option<Vec<(String, usize)>> {
        if ranking.declared_lead {
            return None;
        }
        let (a, b) = reading.compared.as_ref()?;
        let first = self.definition(a, None, None)?;
        let second = self.definition(b, Some(first), Some(&self.passages()[first]))?;
        Some(vec![(a.clone(), first), (b.clone(), second)])
    }

    /// Every passage that matches `question`, best first, in the order that suits its kind: the passages the
    /// answer shows come first, and a learner's own model gets the first few as its context.
    pub fn ranked(&self, question: &str) -> Vec<&Passage> {
        if too_long(question).is_some() {
            return Vec::new();
        }
        let question = &self.dictionary.corrected(question);
        let (reading, ranking) = self.ranking(question);
        let mut order: Vec<usize> = self
            .compared(&reading, &ranking)
            .map(|sides| {
                sides
                    .into_iter()
                    .map(|(_, at)| at)
                    .take(COMPARED_SIDES)
                    .collect()
            })
            .unwrap_or_default();
        for &(at, _) in &ranking.order {
            if !order.contains(&at) {
                order.push(at);
            }
        }
        order.into_iter().map(|at| &self.passages()[at]).collect()
    }

    /// The course's answer to `question`.
    pub fn answer(&self, question: &str) -> Answer<'_> {
        if question.trim().is_empty() {
            return Answer::Empty;
        }
        if let Some(chars) = too_long(question) {
            return Answer::TooLong(chars);
        }
        // A topic the lesson never teaches is judged as written too: a slip must not read it as a lesson word.
        let written = question;
        let question = &self.dictionary.corrected(question);
        if let Some(little) = littles_law_answer(question) {
            return Answer::Little(little);
        }
        if let Some(sizing) = sizing_answer(question) {
            return Answer::Sizing(sizing);
        }
        let slos = slo_answer(question);
        if !slos.is_empty() {
            return Answer::Slos(slos);
        }
        let (reading, ranking) = self.ranking(question);
        // A price or a topic the lesson never teaches; or how to set up a thing it never names ("write a helm
        // chart for vllm", "install vllm on ubuntu"): the lesson's other words in it do not make it the lesson's.
        let sets_up_the_unknown = set_up(written)
            .is_some_and(|what| self.library.names_what_the_lesson_never_does(&what));
        if asks_untaught(question) || asks_untaught(written) || sets_up_the_unknown {
            let closest = ranking.order.first().map(|&(at, _)| &self.passages()[at]);
            return Answer::NotCovered(closest);
        }
        if let Some(sides) = self.compared(&reading, &ranking) {
            let passages = self.passages();
            return Answer::Compared(
                sides
                    .into_iter()
                    .map(|(term, at)| (side_label(&term, &passages[at]), &passages[at]))
                    .collect(),
            );
        }
        let passages = self.passages();
        match ranking.order.first() {
            None => Answer::NotCovered(None),
            Some(&(best, _)) if !self.answerable(&ranking) => {
                if self.one_section_agrees(&ranking) {
                    return Answer::ClosestIn(&passages[best]);
                }
                // A metric or a flag named by its identifier: its keyword says what it is, whatever else the
                // question tells of the learner's setup ("our vllm container in docker shows num_requests_waiting
                // growing").
                if let Some(keyword) = self.library.keyword_of_named_signal(question) {
                    return Answer::ClosestIn(&passages[keyword]);
                }
                match self.library.opening_of_named_part(question, Some(best)) {
                    Some(opening) => Answer::Closest(&passages[opening]),
                    None => Answer::NotCovered(Some(&passages[best])),
                }
            }
            // The blocks chosen for the question's kind, or the best match and a second that scores close.
            Some(&(_, score)) => {
                let shown = ranking.leads.max(1);
                let close = ranking
                    .order
                    .get(1)
                    .filter(|(_, second)| shown == 1 && *second >= SECOND_PASSAGE_SHARE * score);
                Answer::Passages(
                    ranking.order[..shown.min(ranking.order.len())]
                        .iter()
                        .chain(close)
                        .map(|&(at, _)| &passages[at])
                        .collect(),
                )
            }
        }
    }

    /// Whether the lesson holds enough of a question to answer it: half its words (by rarity), or a third when a
    /// passage was declared to answer just this question (its other words are the learner's own, "forever").
    fn answerable(&self, ranking: &Ranking) -> bool {
        ranking.coverage >= ANSWER_COVERAGE
            || (ranking.declared_lead && ranking.coverage >= DECLARED_ANSWER_COVERAGE)
    }

    /// Whether a question the lesson holds too little of is still plainly about one section: the lesson holds a fair
    /// share of its words, and its best few passages all come from that section. Learners' own words ("takes
    /// forever", "seems obvious") are not the lesson's, yet what it shares with the lesson points one way; a question
    /// on something else shares fewer of its words, and those scatter.
    fn one_section_agrees(&self, ranking: &Ranking) -> bool {
        let passages = self.passages();
        let best: Vec<&Option<String>> = ranking
            .order
            .iter()
            .take(AGREEING_PASSAGES)
            .map(|&(at, _)| &passages[at].section_id)
            .collect();
        ranking.understood_coverage >= AGREEING_COVERAGE
            && best.len() == AGREEING_PASSAGES
            && best.iter().all(|section| *section == best[0])
    }

    /// The lesson page's site path, which in-page links name.
    pub(super) fn page(&self) -> &str {
        &self.page
    }

    /// The lesson's title.
    pub(super) fn lesson_title(&self) -> &str {
        &self.lesson_title
    }

    /// The passages a learner's own model gets with `question`, as plain text with their section names: the ones
    /// the course's answer would show first.
    pub fn model_context(&self, question: &str) -> String {
        self.ranked(question)
            .into_iter()
            .take(CONTEXT_PASSAGES)
            .map(|passage| format!("[{}] {}", passage.section_title, passage.text))
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// The length of a question over [`QUESTION_LIMIT_CHARS`], counted no further than needed to know.
fn too_long(question: &str) -> Option<usize> {
    // Under the limit in bytes is under it in characters; counting stops early for the common case.
    (question.len() > QUESTION_LIMIT_CHARS)
        .then(|| question.chars().count())
        .filter(|&chars| chars > QUESTION_LIMIT_CHARS)
}
