//! A lesson's page: its whole article, in reading order, with every interactive part an island and every block
//! marked with the presentation screen it is shown on (see [`goodput::lesson::island_markup`]).

use std::collections::HashMap;

use super::ask;
use super::frame::page_frame;
use super::predict::{self, SimulatedAnswer};
use super::widgets::{self, WidgetFallback};
use super::{blocks, Asset, Page, PagesError};
use goodput::html_writer::HtmlWriter;
use goodput::lesson::island_markup::{self as islands, IslandKind};
use goodput::lesson::{Block, Html, Lesson, LessonMeta};
use goodput::presentation::html::{heading_level, top_level_fragments};
use goodput::presentation::screens::{lesson_screens, Screen, ScreenItem};
use goodput::views::progress::progress_line;

/// The lesson's page and the pictures it refers to.
pub fn lesson_page(lesson: &'static Lesson) -> Result<(Page, Vec<Asset>), PagesError> {
    let slug = &lesson.meta.slug;
    let computed = Computed::for_lesson(lesson)?;
    let placement = Placement::of(lesson);
    let body = page_frame(|m| {
        article(m, lesson, &placement, &computed);
        ask::ask_box(m, lesson);
    });
    let page = Page {
        path: format!("lessons/{slug}/index.html"),
        title: format!("{} · goodput", lesson.meta.title),
        description: Some(lesson.meta.summary.clone()),
        base: Some("../../"),
        head: lab_first_meta(lesson),
        kind: "lesson",
        // The page's base is the site root (so its assets resolve at any depth); an in-page link must then name
        // the page, or it would lead to the home page.
        body: body.replace(" href=\"#", &format!(" href=\"lessons/{slug}/#")),
    };
    Ok((page, computed.assets()))
}

/// The `<meta>` naming the lesson's (first) knee lab for `src/boot.js` ([`widgets::lab_first_meta`]); none without
/// one.
fn lab_first_meta(lesson: &Lesson) -> String {
    lesson
        .blocks
        .iter()
        .enumerate()
        .find_map(|(index, block)| match block {
            Block::Widget(widget) => {
                widgets::lab_first_meta(widget, &widgets::widget_id(widget, index))
            }
            _ => None,
        })
        .unwrap_or_default()
}

/// What the build works out for a lesson's widgets and chart predictions before writing it.
struct Computed {
    widgets: HashMap<usize, WidgetFallback>,
    predictions: HashMap<usize, SimulatedAnswer>,
}

impl Computed {
    fn for_lesson(lesson: &Lesson) -> Result<Computed, PagesError> {
        let folder = format!("pictures/{}", lesson.meta.slug);
        let mut computed = Computed {
            widgets: HashMap::new(),
            predictions: HashMap::new(),
        };
        for (index, block) in lesson.blocks.iter().enumerate() {
            match block {
                Block::Widget(widget) => {
                    let stem = format!("{folder}/{}", widgets::widget_id(widget, index));
                    computed
                        .widgets
                        .insert(index, widgets::fallback(widget, &stem)?);
                }
                Block::Predict(step) => {
                    if let Some(answer) = predict::simulate(step, &format!("{folder}/{}", step.id))?
                    {
                        computed.predictions.insert(index, answer);
                    }
                }
                _ => {}
            }
        }
        Ok(computed)
    }

    fn assets(self) -> Vec<Asset> {
        let widget_assets = self
            .widgets
            .into_values()
            .flat_map(|fallback| fallback.assets());
        let prediction_assets = self
            .predictions
            .into_values()
            .flat_map(|answer| answer.picture.files);
        let mut assets: Vec<Asset> = widget_assets.chain(prediction_assets).collect();
        assets.sort_by(|a, b| a.path.cmp(&b.path));
        assets
    }
}

/// Where each part of the lesson is shown in presentation mode: [`lesson_screens`], indexed for the writer.
struct Placement {
    screens: Vec<Screen>,
    /// The screen of each block shown whole.
    block_screen: HashMap<usize, usize>,
    /// The screen of each prose fragment, by block and the fragment's first byte.
    prose_screen: HashMap<(usize, usize), usize>,
    /// The screens each speaker-notes block belongs to.
    notes_for: HashMap<usize, Vec<usize>>,
}

impl Placement {
    fn of(lesson: &Lesson) -> Placement {
        let screens = lesson_screens(lesson);
        let mut placement = Placement {
            screens: Vec::new(),
            block_screen: HashMap::new(),
            prose_screen: HashMap::new(),
            notes_for: HashMap::new(),
        };
        for (index, screen) in screens.iter().enumerate() {
            for item in &screen.items {
                match item {
                    ScreenItem::Header => {}
                    ScreenItem::Block(block) => {
                        placement.block_screen.insert(*block, index);
                    }
                    ScreenItem::Prose { block, range } => {
                        placement.prose_screen.insert((*block, range.start), index);
                    }
                }
            }
            for notes in &screen.notes {
                placement.notes_for.entry(*notes).or_default().push(index);
            }
        }
        placement.screens = screens;
        placement
    }

    /// The presentation attributes of an element that shows `item` on `screen`: the screen's number, and on its
    /// first item the screen's title, section kicker and anchor.
    fn attributes(
        &self,
        lesson: &Lesson,
        screen: usize,
        item: &ScreenItem,
    ) -> Vec<(&'static str, String)> {
        let mut attributes = vec![(islands::SCREEN, screen.to_string())];
        let Some(shown) = self.screens.get(screen) else {
            return attributes;
        };
        if shown.items.first() != Some(item) {
            return attributes;
        }
        attributes.push((islands::SCREEN_TITLE, shown.title.clone()));
        let starts_with_heading = match item {
            ScreenItem::Header => true,
            ScreenItem::Prose { block, range } => match &lesson.blocks[*block] {
                Block::Html(html) => heading_level(&html.as_str()[range.clone()]).is_some(),
                _ => false,
            },
            ScreenItem::Block(_) => false,
        };
        if let Some(section) = shown.section.as_ref().filter(|_| !starts_with_heading) {
            attributes.push((islands::SCREEN_KICKER, section.clone()));
        }
        if let Some(anchor) = &shown.anchor {
            attributes.push((islands::SCREEN_ANCHOR, anchor.clone()));
        }
        attributes
    }

    fn block_attributes(&self, lesson: &Lesson, block: usize) -> Vec<(&'static str, String)> {
        match self.block_screen.get(&block) {
            Some(&screen) => self.attributes(lesson, screen, &ScreenItem::Block(block)),
            None => Vec::new(),
        }
    }
}

fn article(
    m: &mut HtmlWriter,
    lesson: &'static Lesson,
    placement: &Placement,
    computed: &Computed,
) {
    let slug = &lesson.meta.slug;
    m.element(
        "article",
        &[
            ("class", "lesson"),
            ("aria-labelledby", "lesson-title"),
            (islands::LESSON_SLUG, slug),
        ],
        |m| {
            m.element("p", &[("class", "lesson-tools")], |m| {
                m.text_element(
                    "a",
                    &[
                        ("class", "present-link"),
                        ("href", &format!("lessons/{slug}/?present=1")),
                    ],
                    "Present this lesson",
                );
            });
            let header = placement.attributes(lesson, 0, &ScreenItem::Header);
            lesson_header(m, &lesson.meta, &borrowed(&header));
            progress_summary(m, lesson);
            for (index, block) in lesson.blocks.iter().enumerate() {
                write_block(m, lesson, placement, computed, index, block);
            }
        },
    );
}

fn write_block(
    m: &mut HtmlWriter,
    lesson: &Lesson,
    placement: &Placement,
    computed: &Computed,
    index: usize,
    block: &'static Block,
) {
    let owned = placement.block_attributes(lesson, index);
    let screen = borrowed(&owned);
    match block {
        Block::Html(html) => prose(m, lesson, placement, index, html),
        Block::Tldr(tldr) => blocks::tldr(m, tldr, &screen),
        Block::Analogy(analogy) => blocks::analogy(m, analogy, &screen),
        Block::Keywords(keywords) => blocks::keywords(m, keywords, index, &screen),
        Block::MathDecoded(math) => blocks::math_decoded(m, math, &screen),
        Block::RecallCard(card) => blocks::recall_card(m, card, &screen),
        Block::Predict(step) => {
            predict::write_step(m, step, computed.predictions.get(&index), &screen)
        }
        Block::CheckYourself(check) => blocks::check_yourself(m, check, &screen),
        Block::ExplainToColleague(card) => blocks::explain(m, card, index, &screen),
        Block::SpeakerNotes(notes) => {
            let screens = placement.notes_for.get(&index).cloned().unwrap_or_default();
            blocks::speaker_notes(m, notes, &islands::encode_indices(screens));
        }
        Block::Widget(widget) => {
            let id = widgets::widget_id(widget, index);
            if let Some(fallback) = computed.widgets.get(&index) {
                widgets::write_widget(m, widget, &id, fallback, &screen);
            }
        }
        Block::Tasks(list) => blocks::tasks(m, list, &screen),
    }
}

/// A prose block, cut where presentation screens change: one `div.lesson-prose` per run of its top-level elements
/// that share a screen (on the page they read as one).
fn prose(m: &mut HtmlWriter, lesson: &Lesson, placement: &Placement, block: usize, html: &Html) {
    let text = html.as_str();
    let mut runs: Vec<(Option<usize>, Vec<std::ops::Range<usize>>)> = Vec::new();
    for range in top_level_fragments(text) {
        let screen = placement.prose_screen.get(&(block, range.start)).copied();
        match runs.last_mut() {
            Some((last, ranges)) if *last == screen => ranges.push(range),
            _ => runs.push((screen, vec![range])),
        }
    }
    for (screen, ranges) in runs {
        let mut attributes = vec![("class", "lesson-prose".to_owned())];
        if let (Some(screen), Some(first)) = (screen, ranges.first()) {
            let item = ScreenItem::Prose {
                block,
                range: first.clone(),
            };
            attributes.extend(placement.attributes(lesson, screen, &item));
        }
        m.element("div", &borrowed(&attributes), |m| {
            for range in ranges {
                m.html(&Html(text[range].to_owned()));
            }
        });
    }
}

/// Number, title, summary, time and "today's win".
fn lesson_header(m: &mut HtmlWriter, meta: &LessonMeta, screen: &[(&str, &str)]) {
    let mut attributes = screen.to_vec();
    attributes.push(("class", "lesson-header"));
    m.element("header", &attributes, |m| {
        m.element("p", &[("class", "lesson-kicker")], |m| {
            m.text_element(
                "span",
                &[("class", "lesson-number")],
                &format!("Lesson {}", meta.number),
            );
            m.text_element(
                "span",
                &[("class", "lesson-minutes")],
                &format!("about {} min", meta.minutes),
            );
        });
        m.text_element("h1", &[("id", "lesson-title")], &meta.title);
        m.text_element("p", &[("class", "lesson-summary")], &meta.summary);
        m.element(
            "section",
            &[
                ("class", "lesson-objectives"),
                ("aria-label", "Today's win"),
            ],
            |m| {
                m.text_element("h2", &[("class", "lesson-objectives-title")], "Today's win");
                m.element("ul", &[], |m| {
                    for objective in &meta.objectives {
                        m.html_element("li", &[], objective);
                    }
                });
            },
        );
    });
}

/// The progress line's island ([`goodput::views::progress`]): the lesson's step count until the learner's saved
/// progress is read (and without JavaScript).
fn progress_summary(m: &mut HtmlWriter, lesson: &Lesson) {
    let steps = lesson
        .blocks
        .iter()
        .filter(|block| matches!(block, Block::Predict(_)))
        .count();
    let count = format!("{steps} predict-then-reveal steps in this lesson.");
    let attributes = [
        (islands::ISLAND, IslandKind::ProgressSummary.as_str()),
        ("class", "island island-progress"),
    ];
    // The reset does nothing here: it is inert until the live line replaces this one.
    let view = progress_line(move || count.clone(), || None, || {});
    super::write_island(m, &attributes, view);
}

/// Attribute pairs as the writer takes them.
fn borrowed<'a>(attributes: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    attributes
        .iter()
        .map(|(name, value)| (*name, value.as_str()))
        .collect()
}
