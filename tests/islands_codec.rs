//! The islands' codec round trip: every island of the lesson page, as the build writes it, parsed as a browser
//! parses it and read back by the decoders the wasm uses (`goodput::views::island_codec`), gives the lesson's own
//! data: its predict steps, reveals, task lists and widgets.

use goodput::lesson::island_markup::{self as markup, IslandKind};
use goodput::lesson::{Block, Html, Lesson};
use goodput::views::island_codec::{self as codec, IslandElement};
use scraper::{ElementRef, Selector};

#[allow(dead_code)]
#[path = "support/markup.rs"]
mod markup_scan;
use markup_scan::lesson_page;

/// An element of a parsed page, as the decoders read it.
#[derive(Clone, Copy)]
struct Parsed<'a>(ElementRef<'a>);

impl IslandElement for Parsed<'_> {
    fn attribute(&self, name: &str) -> Option<String> {
        self.0.value().attr(name).map(str::to_owned)
    }

    fn select(&self, selector: &str) -> Vec<Self> {
        let selector = Selector::parse(selector).expect("a decoder's selector parses");
        self.0.select(&selector).map(Parsed).collect()
    }

    fn inner_html(&self) -> String {
        self.0.inner_html()
    }

    fn text(&self) -> String {
        self.0.text().collect()
    }
}

/// HTML as a browser serialises it after parsing it in a `<div>`: what `inner_html` gives back of a fragment.
fn as_parsed(html: &Html) -> Html {
    let fragment = scraper::Html::parse_fragment(&html.0);
    Html(fragment.root_element().inner_html())
}

fn lesson() -> &'static Lesson {
    goodput::lesson::find("latency-throughput-slos").expect("the lesson ships")
}

/// The islands of `kind` on the lesson page, in document order.
fn islands<'a>(page: &'a scraper::Html, kind: IslandKind) -> Vec<Parsed<'a>> {
    let selector = Selector::parse(&format!("[{}=\"{}\"]", markup::ISLAND, kind.as_str())).unwrap();
    page.select(&selector).map(Parsed).collect()
}

/// What the decoder reads back from every island of `kind` on the lesson page, in document order.
fn read_back<T>(
    kind: IslandKind,
    decode: fn(&Parsed<'_>) -> Result<T, codec::DecodeError>,
) -> Vec<T> {
    let page = parsed_page();
    islands(&page, kind)
        .iter()
        .map(|island| decode(island).unwrap_or_else(|error| panic!("{error}")))
        .collect()
}

/// What the lesson wrote: `pick` of each of its blocks, in reading order.
fn written<T>(pick: impl Fn(&Block) -> Option<T>) -> Vec<T> {
    let found: Vec<T> = lesson().blocks.iter().filter_map(pick).collect();
    assert!(!found.is_empty());
    found
}

fn parsed_page() -> scraper::Html {
    scraper::Html::parse_document(&format!(
        "<!doctype html><html><body>{}</body></html>",
        lesson_page().body
    ))
}

#[test]
fn every_predict_step_reads_back_as_the_lesson_wrote_it() {
    let read = read_back(IslandKind::Predict, |island| codec::predict_step(island));
    let written = written(|block| match block {
        Block::Predict(step) => Some(step.clone()),
        _ => None,
    });
    assert_eq!(read.len(), written.len());
    for (read, mut written) in read.into_iter().zip(written) {
        written.question = as_parsed(&written.question);
        written.reveal = as_parsed(&written.reveal);
        if let goodput::lesson::PredictAnswer::MultipleChoice { options } = &mut written.answer {
            for option in options {
                option.label = as_parsed(&option.label);
                option.explanation = option.explanation.as_ref().map(as_parsed);
            }
        }
        assert_eq!(read, written, "{}", written.id);
    }
}

#[test]
fn every_widget_reads_back_with_its_name_caption_and_settings() {
    let read = read_back(IslandKind::Widget, |island| codec::widget(island));
    let written = written(|block| match block {
        Block::Widget(widget) => Some(widget.clone()),
        _ => None,
    });
    assert_eq!(read.len(), written.len());
    for (read, written) in read.iter().zip(&written) {
        assert_eq!(read.name, written.name);
        assert_eq!(read.caption, written.caption);
        assert_eq!(read.settings, written.settings);
        // A widget the author gave no id gets one from its name on the page.
        assert_eq!(
            read.id.as_deref(),
            Some(written.id.as_deref().unwrap_or(read.name.as_str()))
        );
    }
}

#[test]
fn every_task_list_reads_back_with_its_tasks() {
    let read = read_back(IslandKind::Tasks, |island| codec::task_list(island));
    let written = written(|block| match block {
        Block::Tasks(list) => Some(list.clone()),
        _ => None,
    });
    assert_eq!(read.len(), written.len());
    for (read, mut written) in read.into_iter().zip(written) {
        for task in &mut written.tasks {
            task.label = as_parsed(&task.label);
        }
        assert_eq!(read, written);
    }
}

#[test]
fn every_reveal_reads_back_with_its_answer() {
    let read = read_back(IslandKind::Reveal, |island| codec::reveal(island));
    // The recall and explain cards' answers, in reading order.
    let written = written(|block| match block {
        Block::RecallCard(card) => Some(as_parsed(&card.answer)),
        Block::ExplainToColleague(card) => Some(as_parsed(&card.answer)),
        _ => None,
    });
    assert_eq!(read.len(), written.len());
    for (read, written) in read.iter().zip(&written) {
        assert_eq!(&read.answer, written, "{}", read.id);
        assert!(
            !read.show.is_empty() && !read.hide.is_empty(),
            "{}",
            read.id
        );
    }
}

/// A view that stops writing what its decoder reads is an error naming what is missing, not a silently static
/// island.
#[test]
fn an_island_missing_a_part_is_an_error_naming_it() {
    let page = scraper::Html::parse_fragment(
        "<div data-island=\"tasks\" data-list-id=\"l\"><h3>No title class</h3></div>",
    );
    let island = islands(&page, IslandKind::Tasks)[0];
    let error = codec::task_list(&island).unwrap_err();
    assert!(error.contains(markup::TITLE_CLASS), "{error}");
}
