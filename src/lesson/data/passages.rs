//! The lesson cut into passages a question can be answered with: each paragraph of a section's prose, each TL;DR,
//! keyword meaning, analogy, formula legend, recall answer, predict step's explanation and explain-it card, tagged
//! with the section it belongs to. Speaker notes are left out: they are written for the presenter, not the learner.

use crate::html::{first_id, heading_level, heading_text, top_level_fragments};
use crate::{Block, Lesson};

/// What part of the lesson a passage comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassageKind {
    /// A paragraph, list or table of a section's prose.
    Prose,
    /// A section's one-sentence summary.
    Tldr,
    /// A keyword and its plain meaning.
    Keyword,
    /// An analogy callout.
    Analogy,
    /// A formula's legend.
    Formula,
    /// A recall card's prompt and answer.
    Recall,
    /// A predict step's question and the explanation shown after the reveal.
    Explanation,
}

impl PassageKind {
    /// How the answer labels a passage of this kind.
    pub fn label(self) -> &'static str {
        match self {
            Self::Prose => "From the lesson",
            Self::Tldr => "TL;DR",
            Self::Keyword => "Keyword",
            Self::Analogy => "Analogy",
            Self::Formula => "Formula",
            Self::Recall => "Recall answer",
            Self::Explanation => "Explanation",
        }
    }
}

/// One passage of plain text and where it sits in the lesson.
#[derive(Clone, Debug, PartialEq)]
pub struct Passage {
    /// The anchor of its section's heading (`None` before the first heading: the lesson's opening).
    pub section_id: Option<String>,
    /// Its section's heading, or the lesson's title before the first heading.
    pub section_title: String,
    /// The anchor of the top-level (`##`) section it is part of: its own section's, or the one a sub-section
    /// (`### Queue or shed`) sits in.
    pub part_id: Option<String>,
    /// What part of the lesson it comes from.
    pub kind: PassageKind,
    /// The text a reader sees, tags removed.
    pub text: String,
}

/// The text a reader sees in `html`. Math keeps what it shows and loses its TeX source, which MathML carries in
/// `<annotation>` for copying and screen readers would not read out.
fn plain_text(html: &str) -> String {
    let mut shown = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find("<annotation") {
        shown.push_str(&rest[..start]);
        rest = rest[start..]
            .find("</annotation>")
            .map_or("", |end| &rest[start + end + "</annotation>".len()..]);
    }
    shown.push_str(rest);
    crate::html::plain_text(&shown)
}

/// Every passage of `lesson`, in reading order.
pub fn passages(lesson: &Lesson) -> Vec<Passage> {
    passages_in(&lesson.meta.title, &lesson.blocks)
}

/// Every passage of `blocks`, the body of a lesson titled `title`, in reading order (for the lesson compiler, which
/// checks `@answers` blocks against them before the lesson is whole).
pub fn passages_in(title: &str, blocks: &[Block]) -> Vec<Passage> {
    cut(title, blocks).0
}

/// The anchor of the section that `blocks`, the start of a lesson, end in (`None` before its first heading).
pub fn section_after(blocks: &[Block]) -> Option<String> {
    cut("", blocks).1
}

/// Where `quote` is in `text`, letters and digits compared and all else (case, spaces, punctuation, the way math is
/// shown) ignored: an author quotes a passage as the page shows it, and the passage's text may space it otherwise.
/// The byte range runs from the quote's first letter or digit to its last.
pub fn quote_in(text: &str, quote: &str) -> Option<std::ops::Range<usize>> {
    let wanted: Vec<char> = quote
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if wanted.is_empty() {
        return None;
    }
    // Each letter or digit of `text`, lower-cased, with the byte range of the character it came from.
    let letters: Vec<(char, usize, usize)> = text
        .char_indices()
        .filter(|(_, c)| c.is_alphanumeric())
        .flat_map(|(at, c)| {
            c.to_lowercase()
                .map(move |lower| (lower, at, at + c.len_utf8()))
        })
        .collect();
    letters
        .windows(wanted.len())
        .find(|window| window.iter().map(|l| l.0).eq(wanted.iter().copied()))
        .map(|window| window[0].1..window[window.len() - 1].2)
}

/// The passages of `blocks` under a lesson titled `title`, and the anchor of the section they end in.
fn cut(title: &str, blocks: &[Block]) -> (Vec<Passage>, Option<String>) {
    let mut section: (Option<String>, String, Option<String>) = (None, title.to_owned(), None);
    let mut found = Vec::new();
    let mut push = |section: &(Option<String>, String, Option<String>), kind, text: String| {
        if !text.trim().is_empty() {
            found.push(Passage {
                section_id: section.0.clone(),
                section_title: section.1.clone(),
                part_id: section.2.clone(),
                kind,
                text,
            });
        }
    };
    for block in blocks {
        match block {
            Block::Html(html) => {
                for range in top_level_fragments(html.as_str()) {
                    let fragment = &html.as_str()[range];
                    match heading_level(fragment) {
                        // A sub-heading without an anchor stays in its section, linked to the section's heading.
                        Some(level) => {
                            let id = first_id(fragment).or_else(|| section.0.clone());
                            let part = if level <= 2 {
                                id.clone()
                            } else {
                                section.2.clone()
                            };
                            section = (id, heading_text(fragment), part);
                        }
                        None => push(&section, PassageKind::Prose, plain_text(fragment)),
                    }
                }
            }
            Block::Tldr(tldr) => push(&section, PassageKind::Tldr, plain_text(tldr.text.as_str())),
            Block::Keywords(keywords) => {
                for keyword in &keywords.terms {
                    let text =
                        format!("{}: {}", keyword.term, plain_text(keyword.meaning.as_str()));
                    push(&section, PassageKind::Keyword, text);
                }
            }
            Block::Analogy(analogy) => {
                let text = format!("{}. {}", analogy.title, plain_text(analogy.body.as_str()));
                push(&section, PassageKind::Analogy, text);
            }
            Block::MathDecoded(math) => {
                let legend = math
                    .legend
                    .iter()
                    .map(|row| {
                        format!(
                            "{}: {}",
                            plain_text(row.symbol.as_str()),
                            plain_text(row.meaning.as_str())
                        )
                    })
                    .chain(math.note.iter().map(|note| plain_text(note.as_str())))
                    .collect::<Vec<_>>()
                    .join("; ");
                push(&section, PassageKind::Formula, legend);
            }
            Block::RecallCard(card) => {
                let text = format!(
                    "{} {}",
                    plain_text(card.prompt.as_str()),
                    plain_text(card.answer.as_str())
                );
                push(&section, PassageKind::Recall, text);
            }
            Block::Predict(step) => {
                let text = format!(
                    "{} {}",
                    plain_text(step.question.as_str()),
                    plain_text(step.reveal.as_str())
                );
                push(&section, PassageKind::Explanation, text);
            }
            Block::ExplainToColleague(card) => {
                let text = format!(
                    "{} {}",
                    plain_text(card.prompt.as_str()),
                    plain_text(card.answer.as_str())
                );
                push(&section, PassageKind::Recall, text);
            }
            // Notes are the presenter's; questions without answers, widgets and task lists answer nothing.
            Block::SpeakerNotes(_)
            | Block::CheckYourself(_)
            | Block::Widget(_)
            | Block::Tasks(_) => {}
        }
    }
    (found, section.0)
}
