//! A lesson as a sequence of projected screens.
//!
//! A new screen starts at every section heading (`##`, `###`), every interactive step (a predict step, a widget,
//! a recall card, an explain card) gets a screen of its own, and prose is cut between its paragraphs when a screen
//! would hold more than [`SCREEN_ROOM`]. Speaker notes are not shown to the audience: they belong to every screen
//! of the section they are written in, for the presenter view.

use std::ops::Range;

use super::html::{
    first_id, heading_level, heading_text, plain_text, room_needed, top_level_fragments,
};
use crate::lesson::{Block, Lesson};

/// How much fits on one screen, in characters of running text (see [`room_needed`]). Measured in the browser tests
/// on lesson 32 (36 screens): every screen fits 1920×1080 and 1280×720 at full type size, and 1024×768 with at most
/// one screen one step (8%) smaller.
pub const SCREEN_ROOM: usize = 1150;

/// What a screen shows, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScreenItem {
    /// The lesson header: number, title, summary and today's win.
    Header,
    /// A whole block of the lesson, by index into `Lesson::blocks`.
    Block(usize),
    /// Part of the prose block at `block`: the bytes `range` of its HTML, whole top-level elements.
    Prose {
        /// Index of the `Block::Html` in `Lesson::blocks`.
        block: usize,
        /// Byte range into that block's HTML.
        range: Range<usize>,
    },
}

/// One projected screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Screen {
    /// A short plain-text name, for the presenter's "next" label and the screen's accessible name.
    pub title: String,
    /// The `##` section the screen belongs to, if any (shown above steps and continued prose).
    pub section: Option<String>,
    /// The anchor on the ordinary lesson page nearest to this screen, for "exit to the lesson".
    pub anchor: Option<String>,
    /// What the screen shows.
    pub items: Vec<ScreenItem>,
    /// Speaker-notes blocks for this screen, by index into `Lesson::blocks`.
    pub notes: Vec<usize>,
    /// Whether the screen is one interactive step.
    pub interactive: bool,
}

/// The screens of `lesson`, in order; never empty (the first screen is the lesson header).
pub fn lesson_screens(lesson: &Lesson) -> Vec<Screen> {
    let mut builder = Builder::new(lesson);
    for (index, block) in lesson.blocks.iter().enumerate() {
        match block {
            Block::Html(html) => {
                for range in top_level_fragments(html.as_str()) {
                    builder.prose(index, range);
                }
            }
            Block::SpeakerNotes(_) => builder.section_notes.push(index),
            Block::Predict(_)
            | Block::Widget(_)
            | Block::RecallCard(_)
            | Block::ExplainToColleague(_) => builder.step(index),
            Block::Tldr(_)
            | Block::Analogy(_)
            | Block::Keywords(_)
            | Block::MathDecoded(_)
            | Block::CheckYourself(_)
            | Block::Tasks(_) => builder.flow(ScreenItem::Block(index), block_room(block)),
        }
    }
    builder.finish()
}

/// Room a non-prose block takes, as [`room_needed`] counts it.
fn block_room(block: &Block) -> usize {
    const LINE: usize = 70;
    match block {
        Block::Tldr(tldr) => LINE + room_needed(tldr.text.as_str()),
        Block::Analogy(analogy) => 2 * LINE + room_needed(analogy.body.as_str()),
        // Folded keywords show their terms only.
        Block::Keywords(keywords) => LINE + keywords.terms.len() * LINE,
        Block::MathDecoded(math) => {
            3 * LINE
                + math.legend.len() * LINE
                + math
                    .note
                    .as_ref()
                    .map_or(0, |note| room_needed(note.as_str()))
        }
        Block::CheckYourself(check) => {
            LINE + check
                .questions
                .iter()
                .map(|question| LINE / 2 + room_needed(question.as_str()))
                .sum::<usize>()
        }
        Block::Tasks(list) => LINE + list.tasks.len() * LINE,
        Block::Html(html) => room_needed(html.as_str()),
        _ => SCREEN_ROOM,
    }
}

struct Builder<'a> {
    lesson: &'a Lesson,
    screens: Vec<Screen>,
    current: Screen,
    room_used: usize,
    section: Option<String>,
    anchor: Option<String>,
    /// First screen of the current section, counting `screens` then `current`.
    section_start: usize,
    section_notes: Vec<usize>,
}

impl<'a> Builder<'a> {
    fn new(lesson: &'a Lesson) -> Self {
        let mut current = Screen::empty(None, None);
        current.items.push(ScreenItem::Header);
        Builder {
            lesson,
            screens: Vec::new(),
            current,
            room_used: header_room(lesson),
            section: None,
            anchor: None,
            section_start: 0,
            section_notes: Vec::new(),
        }
    }

    fn prose(&mut self, block: usize, range: Range<usize>) {
        let Block::Html(html) = &self.lesson.blocks[block] else {
            return;
        };
        let fragment = &html.as_str()[range.clone()];
        let room = room_needed(fragment);
        match heading_level(fragment) {
            Some(2) => {
                self.close_section();
                self.section = Some(heading_text(fragment));
                self.anchor = first_id(fragment);
                self.start_screen();
            }
            Some(_) => {
                self.start_screen();
                self.anchor = first_id(fragment).or(self.anchor.take());
                self.current.anchor = self.anchor.clone();
            }
            None => {
                self.flow(ScreenItem::Prose { block, range }, room);
                return;
            }
        }
        self.current.items.push(ScreenItem::Prose { block, range });
        self.room_used = room;
    }

    /// Adds `item` to the current screen, or to a new one when it would not fit.
    fn flow(&mut self, item: ScreenItem, room: usize) {
        if self.current.interactive
            || (!self.current.items.is_empty() && self.room_used + room > SCREEN_ROOM)
        {
            self.start_screen();
        }
        self.current.items.push(item);
        self.room_used += room;
    }

    /// An interactive block on a screen of its own.
    fn step(&mut self, block: usize) {
        self.start_screen();
        self.current.items.push(ScreenItem::Block(block));
        self.current.interactive = true;
        self.room_used = SCREEN_ROOM;
    }

    /// Closes the current screen (dropped if empty) and opens an empty one in the same section.
    fn start_screen(&mut self) {
        let next = Screen::empty(self.section.clone(), self.anchor.clone());
        let done = std::mem::replace(&mut self.current, next);
        self.room_used = 0;
        if !done.items.is_empty() {
            self.screens.push(done);
        }
    }

    /// Closes the current section: its notes go to each of its screens.
    fn close_section(&mut self) {
        self.start_screen();
        let notes = std::mem::take(&mut self.section_notes);
        for screen in &mut self.screens[self.section_start..] {
            screen.notes.clone_from(&notes);
        }
        self.section_start = self.screens.len();
    }

    fn finish(mut self) -> Vec<Screen> {
        self.close_section();
        let lesson = self.lesson;
        for screen in &mut self.screens {
            screen.title = screen_title(lesson, screen);
        }
        self.screens
    }
}

impl Screen {
    fn empty(section: Option<String>, anchor: Option<String>) -> Self {
        Screen {
            title: String::new(),
            section,
            anchor,
            items: Vec::new(),
            notes: Vec::new(),
            interactive: false,
        }
    }
}

fn header_room(lesson: &Lesson) -> usize {
    const LINE: usize = 70;
    4 * LINE
        + lesson.meta.summary.chars().count()
        + lesson
            .meta
            .objectives
            .iter()
            .map(|objective| LINE / 2 + room_needed(objective.as_str()))
            .sum::<usize>()
}

/// What the presenter sees as the screen's name: its heading, its step, or its section "continued".
fn screen_title(lesson: &Lesson, screen: &Screen) -> String {
    let first = screen.items.first();
    let named = match first {
        Some(ScreenItem::Header) => Some(lesson.meta.title.clone()),
        Some(ScreenItem::Prose { block, range }) => match &lesson.blocks[*block] {
            Block::Html(html) if heading_level(&html.as_str()[range.clone()]).is_some() => {
                Some(heading_text(&html.as_str()[range.clone()]))
            }
            _ => None,
        },
        Some(ScreenItem::Block(block)) => block_title(&lesson.blocks[*block]),
        None => None,
    };
    named.unwrap_or_else(|| match &screen.section {
        Some(section) => format!("{section} (continued)"),
        None => "Introduction".to_string(),
    })
}

fn block_title(block: &Block) -> Option<String> {
    match block {
        Block::Predict(step) => Some(step.title.clone()),
        Block::Widget(widget) => Some(format!(
            "Interactive: {}",
            widget
                .caption
                .clone()
                .unwrap_or_else(|| widget.name.as_str().to_string())
        )),
        Block::RecallCard(card) => Some(format!("Recall: {}", plain_text(card.prompt.as_str()))),
        Block::ExplainToColleague(_) => Some("Explain to a colleague".to_string()),
        Block::CheckYourself(_) => Some("Check yourself".to_string()),
        Block::Analogy(analogy) => Some(format!("Analogy: {}", analogy.title)),
        Block::MathDecoded(_) => Some("Math, decoded".to_string()),
        Block::Keywords(_) => Some("Keywords".to_string()),
        Block::Tasks(list) => Some(list.title.clone()),
        Block::Tldr(_) | Block::Html(_) | Block::SpeakerNotes(_) => None,
    }
}

/// How much room the items of `screen` need, as the screen splitter counts it (for tests and tuning).
pub fn screen_room(lesson: &Lesson, screen: &Screen) -> usize {
    screen
        .items
        .iter()
        .map(|item| match item {
            ScreenItem::Header => header_room(lesson),
            ScreenItem::Block(block) => block_room(&lesson.blocks[*block]),
            ScreenItem::Prose { block, range } => match &lesson.blocks[*block] {
                Block::Html(html) => room_needed(&html.as_str()[range.clone()]),
                _ => 0,
            },
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::{Html, LessonMeta, PredictAnswer, PredictStep, SpeakerNotes, Tldr};

    fn lesson(blocks: Vec<Block>) -> Lesson {
        Lesson {
            meta: LessonMeta {
                slug: "x".into(),
                number: 1,
                title: "A lesson".into(),
                summary: "Summary.".into(),
                objectives: vec![Html("Learn.".into())],
                minutes: 5,
            },
            blocks,
            answers: Vec::new(),
        }
    }

    fn html(text: &str) -> Block {
        Block::Html(Html(text.into()))
    }

    fn predict(id: &str) -> Block {
        Block::Predict(PredictStep {
            id: id.into(),
            title: format!("Step {id}"),
            question: Html("Q?".into()),
            answer: PredictAnswer::Recall,
            reveal: Html("A.".into()),
        })
    }

    fn notes(text: &str) -> Block {
        Block::SpeakerNotes(SpeakerNotes {
            notes: Html(text.into()),
        })
    }

    #[test]
    fn sections_and_steps_start_screens() {
        let lesson = lesson(vec![
            html("<p>Intro.</p>"),
            html("<h2 id=\"one\">One <a href=\"#one\">#</a></h2>\n<p>First.</p>"),
            Block::Tldr(Tldr {
                text: Html("Short.".into()),
            }),
            predict("a"),
            html("<p>After.</p><h3 id=\"sub\">Sub</h3><p>Deeper.</p>"),
        ]);
        let screens = lesson_screens(&lesson);
        let titles: Vec<_> = screens.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(
            titles,
            ["A lesson", "One", "Step a", "One (continued)", "Sub"]
        );
        assert_eq!(
            screens[0].items,
            [
                ScreenItem::Header,
                ScreenItem::Prose {
                    block: 0,
                    range: 0..13
                }
            ]
        );
        assert_eq!(
            screens[1].items.len(),
            3,
            "heading, paragraph and TL;DR share a screen"
        );
        assert!(screens[2].interactive);
        assert_eq!(screens[2].section.as_deref(), Some("One"));
        assert_eq!(screens[4].anchor.as_deref(), Some("sub"));
        assert_eq!(screens[3].anchor.as_deref(), Some("one"));
    }

    #[test]
    fn long_prose_is_cut_between_paragraphs() {
        let paragraph = format!("<p>{}</p>", "word ".repeat(100));
        let lesson = lesson(vec![html(&format!(
            "<h2 id=\"s\">S</h2>{}",
            paragraph.repeat(6)
        ))]);
        let screens = lesson_screens(&lesson);
        assert!(
            screens.len() >= 4,
            "six 500-character paragraphs need several screens"
        );
        for screen in &screens[1..] {
            assert!(screen_room(&lesson, screen) <= SCREEN_ROOM, "{screen:?}");
        }
    }

    #[test]
    fn speaker_notes_belong_to_every_screen_of_their_section() {
        let lesson = lesson(vec![
            notes("intro"),
            html("<h2 id=\"a\">A</h2>"),
            predict("1"),
            notes("about a"),
            html("<h2 id=\"b\">B</h2><p>b</p>"),
        ]);
        let screens = lesson_screens(&lesson);
        let notes: Vec<_> = screens.iter().map(|s| s.notes.clone()).collect();
        assert_eq!(notes, [vec![0], vec![3], vec![3], vec![]]);
    }

    #[test]
    fn lesson_32_every_block_is_shown_once_and_every_screen_fits() {
        let lesson = crate::lesson::find("latency-throughput-slos").expect("lesson 32 ships");
        let screens = lesson_screens(lesson);
        let mut shown = vec![0usize; lesson.blocks.len()];
        for screen in &screens {
            for item in &screen.items {
                match item {
                    ScreenItem::Block(block) => shown[*block] += 1,
                    ScreenItem::Prose { block, .. } => shown[*block] = 1,
                    ScreenItem::Header => {}
                }
            }
            let single = screen.items.len() == 1;
            assert!(
                single || screen.interactive || screen_room(lesson, screen) <= SCREEN_ROOM,
                "screen {:?} needs {} of {}",
                screen.title,
                screen_room(lesson, screen),
                SCREEN_ROOM
            );
        }
        for (index, block) in lesson.blocks.iter().enumerate() {
            let expected = usize::from(!matches!(block, Block::SpeakerNotes(_)));
            assert_eq!(
                shown[index], expected,
                "block {index} shown {} times",
                shown[index]
            );
        }
        // Every prose byte that is not whitespace reaches a screen.
        for (index, block) in lesson.blocks.iter().enumerate() {
            if let Block::Html(html) = block {
                let on_screens: String = screens
                    .iter()
                    .flat_map(|s| s.items.iter())
                    .filter_map(|item| match item {
                        ScreenItem::Prose { block, range } if *block == index => {
                            Some(&html.as_str()[range.clone()])
                        }
                        _ => None,
                    })
                    .collect();
                let squash = |s: &str| s.split_whitespace().collect::<String>();
                assert_eq!(squash(&on_screens), squash(html.as_str()), "block {index}");
            }
        }
        let sections: Vec<_> = screens.iter().filter_map(|s| s.section.clone()).collect();
        for heading in [
            "Two clocks: TTFT and TPOT",
            "The knee",
            "Inside the batch",
            "Little's Law sizes the fleet",
            "Wrap-up",
        ] {
            assert!(
                sections.iter().any(|s| s == heading),
                "no screen in section {heading}"
            );
        }
        let steps = screens.iter().filter(|s| s.interactive).count();
        assert_eq!(
            steps,
            11 + 6 + 1 + 1,
            "eleven predict steps (the five guided ones, the chunked-prefill, queue-cap and morning-ramp ones, two \
             chart predictions, a recall), six widgets, one recall card, one explain card"
        );
        let knee_lab = screens
            .iter()
            .find(|s| s.title.contains("push the load"))
            .expect("the knee lab has a screen");
        assert!(
            !knee_lab.notes.is_empty(),
            "the knee section's notes reach the knee lab's screen"
        );
        let timeline = screens
            .iter()
            .find(|s| s.title.contains("Look inside the batch"))
            .expect("the batch timeline has a screen");
        assert!(timeline.interactive && !timeline.notes.is_empty());
    }
}
