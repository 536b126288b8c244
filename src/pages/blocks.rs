//! The lesson's directive blocks as static HTML, with the markup the page's stylesheet expects. Blocks that only
//! read need nothing more; a recall or explain card's answer and a task list are islands the wasm brings to life.

use goodput::html_writer::HtmlWriter;
use goodput::lesson::island_markup::{self as islands, IslandKind};
use goodput::lesson::{
    Analogy, CheckYourself, ExplainToColleague, Html, Keywords, MathDecoded, RecallCard,
    SpeakerNotes, TaskList, Tldr,
};
use goodput::views::reveal::{FoldedReveal, RevealText};
use goodput::views::tasks::TasksView;
use leptos::prelude::*;

/// A TL;DR line.
pub fn tldr(m: &mut HtmlWriter, tldr: &Tldr, screen: &[(&str, &str)]) {
    m.element(
        "aside",
        &with(screen, &[("class", "lesson-tldr"), ("aria-label", "TL;DR")]),
        |m| {
            m.text_element("span", &[("class", "lesson-label")], "TL;DR");
            m.html_element("p", &[], &tldr.text);
        },
    );
}

/// An analogy callout.
pub fn analogy(m: &mut HtmlWriter, analogy: &Analogy, screen: &[(&str, &str)]) {
    let label = format!("Analogy: {}", analogy.title);
    m.element(
        "aside",
        &with(
            screen,
            &[("class", "lesson-analogy"), ("aria-label", &label)],
        ),
        |m| {
            m.element("p", &[("class", "lesson-label")], |m| {
                m.text("Analogy · ").text(&analogy.title);
            });
            m.html_element("div", &[], &analogy.body);
        },
    );
}

/// Keywords that unfold (native `<details>`, so they work without JavaScript); `index` keeps their sync keys unique.
pub fn keywords(m: &mut HtmlWriter, keywords: &Keywords, index: usize, screen: &[(&str, &str)]) {
    m.element(
        "section",
        &with(
            screen,
            &[("class", "lesson-keywords"), ("aria-label", "Keywords")],
        ),
        |m| {
            m.text_element(
                "p",
                &[("class", "lesson-label")],
                "Keywords — tap to unfold the plain meaning",
            );
            m.element("div", &[("class", "keyword-list")], |m| {
                for keyword in &keywords.terms {
                    let key = format!("keyword/{index}/{}", keyword.term);
                    m.element(
                        "details",
                        &[("class", "keyword"), (islands::SYNC_KEY, &key)],
                        |m| {
                            m.text_element("summary", &[("class", "keyword-term")], &keyword.term);
                            m.html_element(
                                "div",
                                &[("class", "keyword-meaning")],
                                &keyword.meaning,
                            );
                        },
                    );
                }
            });
        },
    );
}

/// A formula with the legend of its symbols.
pub fn math_decoded(m: &mut HtmlWriter, math: &MathDecoded, screen: &[(&str, &str)]) {
    labelled_section(m, screen, ("lesson-math", None), "Math, decoded", |m| {
        // Focusable: a wide formula scrolls sideways on a phone.
        m.html_element(
            "div",
            &[("class", "math-formula"), ("tabindex", "0")],
            &math.formula,
        );
        m.element("dl", &[("class", "math-legend")], |m| {
            for row in &math.legend {
                m.html_element("dt", &[], &row.symbol);
                m.html_element("dd", &[], &row.meaning);
            }
        });
        if let Some(note) = &math.note {
            m.html_element("p", &[("class", "math-note")], note);
        }
    });
}

/// A recall card: the prompt, and the answer behind a reveal.
pub fn recall_card(m: &mut HtmlWriter, card: &RecallCard, screen: &[(&str, &str)]) {
    labelled_section(
        m,
        screen,
        ("lesson-recall", Some(&card.id)),
        "Recall",
        |m| {
            m.html_element("p", &[("class", "recall-prompt")], &card.prompt);
            reveal(
                m,
                &format!("{}-answer", card.id),
                "Show answer",
                "Hide answer",
                &card.answer,
            );
        },
    );
}

/// "Check yourself" questions.
pub fn check_yourself(m: &mut HtmlWriter, check: &CheckYourself, screen: &[(&str, &str)]) {
    labelled_section(m, screen, ("lesson-check", None), "Check yourself", |m| {
        m.element("ol", &[], |m| {
            for question in &check.questions {
                m.html_element("li", &[], question);
            }
        });
    });
}

/// "Explain to a colleague": the sentence to finish and a model answer behind a reveal.
pub fn explain(
    m: &mut HtmlWriter,
    card: &ExplainToColleague,
    index: usize,
    screen: &[(&str, &str)],
) {
    labelled_section(
        m,
        screen,
        ("lesson-explain", None),
        "Explain to a colleague",
        |m| {
            m.html_element("p", &[("class", "explain-prompt")], &card.prompt);
            reveal(
                m,
                &format!("explain-{index}-answer"),
                "Compare with a model answer",
                "Hide the model answer",
                &card.answer,
            );
        },
    );
}

/// Speaker notes, folded; `notes_for` lists the presentation screens they belong to.
pub fn speaker_notes(m: &mut HtmlWriter, notes: &SpeakerNotes, notes_for: &str) {
    m.element(
        "details",
        &[
            ("class", "lesson-speaker-notes"),
            (islands::NOTES_FOR, notes_for),
        ],
        |m| {
            m.text_element("summary", &[], "Speaker notes (for instructors)");
            m.html_element("div", &[], &notes.notes);
        },
    );
}

/// A task list (`goodput::views::tasks`): the tasks tick themselves in the live page; here nothing is done.
pub fn tasks(m: &mut HtmlWriter, list: &TaskList, screen: &[(&str, &str)]) {
    let island = with(
        screen,
        &[
            (islands::ISLAND, IslandKind::Tasks.as_str()),
            ("class", "island island-tasks"),
            (islands::LIST_ID, &list.id),
        ],
    );
    let list = list.clone();
    super::write_island(
        m,
        &island,
        view! { <TasksView list ticked=|_: &str| false/> },
    );
}

/// An answer behind a reveal (`goodput::views::reveal`): folded in a `<details>` without JavaScript.
fn reveal(m: &mut HtmlWriter, id: &str, show: &str, hide: &str, answer: &Html) {
    let attributes = [
        (islands::ISLAND, IslandKind::Reveal.as_str()),
        ("class", "island island-reveal"),
        (islands::REVEAL_ID, id),
        (islands::REVEAL_SHOW, show),
        (islands::REVEAL_HIDE, hide),
    ];
    let text = RevealText {
        id: id.to_owned(),
        show: show.to_owned(),
        hide: hide.to_owned(),
        answer: answer.clone(),
    };
    super::write_island(m, &attributes, view! { <FoldedReveal text/> });
}

/// A card: a `<section>` of the class (and id) given, named `label` for screen readers and in its visible label,
/// with what `inner` writes after the label.
fn labelled_section(
    m: &mut HtmlWriter,
    screen: &[(&str, &str)],
    (class, id): (&str, Option<&str>),
    label: &str,
    inner: impl FnOnce(&mut HtmlWriter),
) {
    let id = id.map(|id| ("id", id));
    let own: Vec<_> = [("class", class)]
        .into_iter()
        .chain(id)
        .chain([("aria-label", label)])
        .collect();
    m.element("section", &with(screen, &own), |m| {
        m.text_element("p", &[("class", "lesson-label")], label);
        inner(m);
    });
}

/// `screen` (a block's presentation attributes) followed by the block's own attributes.
fn with<'a>(screen: &[(&'a str, &'a str)], own: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    screen.iter().chain(own).copied().collect()
}
