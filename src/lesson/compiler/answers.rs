//! `@answers` blocks: what the passages beside them answer, for the Ask box's teacher. Each entry quotes the passage
//! it speaks for; once the whole lesson is compiled the quote must name exactly one of the teacher's passages
//! (`goodput_lesson::passages`, the same cutting the teacher does), in the section where the block stands.

use super::{CompileError, LessonContext};
use goodput_lesson::passages::{passages_in, quote_in, section_after, Passage};
use goodput_lesson::{Block, PassageAnswer, QuestionKind};

/// An `@answers` entry as written, before its quote is looked for.
pub(super) struct DeclaredAnswer {
    /// The passage's words as the author quoted them.
    pub quote: String,
    /// The line of its `passage` field.
    pub line: usize,
    pub kind: QuestionKind,
    pub asks: Vec<String>,
}

/// How a section is named in an error.
fn section_name(passage: &Passage) -> String {
    match &passage.section_id {
        Some(id) => format!("`{}` (#{id})", passage.section_title),
        None => "the lesson's opening".to_owned(),
    }
}

/// The passage each entry quotes. `declared` holds each entry with the number of blocks before its `@answers`
/// block, which says the section it stands in.
pub(super) fn resolve(
    b: &dyn LessonContext,
    title: &str,
    blocks: &[Block],
    declared: Vec<(usize, DeclaredAnswer)>,
) -> Result<Vec<PassageAnswer>, CompileError> {
    let all = passages_in(title, blocks);
    declared
        .into_iter()
        .map(|(before, entry)| {
            let quoted = || entry.quote.chars().take(60).collect::<String>();
            let found: Vec<usize> = (0..all.len())
                .filter(|&at| quote_in(&all[at].text, &entry.quote).is_some())
                .collect();
            let at = match found[..] {
                [] => {
                    return Err(b.error(
                        entry.line,
                        format!("`passage = \"{}\"` points nowhere: no passage of this lesson holds those words; quote a few words of the paragraph, list, keyword, formula legend, TL;DR or predict step it answers, as the page shows them", quoted()),
                    ))
                }
                [at] => at,
                _ => {
                    let sections: Vec<String> = found.iter().map(|&at| section_name(&all[at])).collect();
                    return Err(b.error(
                        entry.line,
                        format!("`passage = \"{}\"` is in {} passages (in {}); quote more of the one you mean, so that it names one", quoted(), found.len(), sections.join(", ")),
                    ));
                }
            };
            let here = section_after(&blocks[..before]);
            if all[at].section_id != here {
                return Err(b.error(
                    entry.line,
                    format!("`passage = \"{}\"` is in {}, not in the section this `@answers` block stands in; move the block beside its passage", quoted(), section_name(&all[at])),
                ));
            }
            Ok(PassageAnswer {
                passage: at,
                quote: entry.quote,
                kind: entry.kind,
                asks: entry.asks,
            })
        })
        .collect()
}
