//! The codec between the page build and the wasm, one decoder per island kind: what the views and the page build
//! write into the pre-rendered page (the attributes and classes of [`crate::lesson::island_markup`]) read back into
//! the island's data. The decoders see the page only through [`IslandElement`]: the browser's DOM in the wasm
//! (`crate::components::mount::read`), a parsed page in the native tests (`tests/islands_codec.rs` reads every
//! island of the lesson page back and compares it with the lesson), so a view that stops writing what its decoder
//! reads fails a native test instead of leaving an island silently static.

use crate::lesson::island_markup::{self as markup, OptionTexts};
use crate::lesson::{Html, PredictStep, Task, TaskList, WidgetEmbed, WidgetName};
use crate::views::reveal::RevealText;

/// What a decoder needs of an element of the page.
pub trait IslandElement: Sized {
    /// The attribute's value, if the element has it.
    fn attribute(&self, name: &str) -> Option<String>;
    /// The elements below this one that match the CSS `selector`, in document order.
    fn select(&self, selector: &str) -> Vec<Self>;
    /// The element's content as HTML.
    fn inner_html(&self) -> String;
    /// The element's text.
    fn text(&self) -> String;
}

/// Why an island could not be read: the page and the wasm come from the same build, so this is a bug to report.
pub type DecodeError = String;

fn attribute<E: IslandElement>(element: &E, name: &str) -> Result<String, DecodeError> {
    element.attribute(name).ok_or_else(|| format!("no {name}"))
}

fn first<E: IslandElement>(root: &E, selector: &str) -> Result<E, DecodeError> {
    root.select(selector)
        .into_iter()
        .next()
        .ok_or_else(|| format!("no {selector}"))
}

fn class(name: &str) -> String {
    format!(".{name}")
}

fn inner_html<E: IslandElement>(root: &E, class_name: &str) -> Result<Html, DecodeError> {
    first(root, &class(class_name)).map(|element| Html(element.inner_html()))
}

fn title<E: IslandElement>(island: &E) -> Result<String, DecodeError> {
    first(island, &class(markup::TITLE_CLASS)).map(|element| element.text())
}

/// The predict step of a `predict` island.
pub fn predict_step<E: IslandElement>(island: &E) -> Result<PredictStep, DecodeError> {
    let read = || {
        let id = attribute(island, markup::STEP_ID)?;
        let options: OptionTexts = island
            .select(&class(markup::OPTION_LABEL_CLASS))
            .iter()
            .enumerate()
            .map(|(index, label)| {
                let why = island
                    .select(&format!(
                        ".{}[{}=\"{index}\"]",
                        markup::OPTION_WHY_CLASS,
                        markup::OPTION_INDEX
                    ))
                    .into_iter()
                    .next()
                    .map(|why| Html(why.inner_html()));
                (Html(label.inner_html()), why)
            })
            .collect();
        let answer = markup::decode_answer(|name| island.attribute(name), options)?;
        Ok(PredictStep {
            title: title(island)?,
            question: inner_html(island, markup::QUESTION_CLASS)?,
            reveal: inner_html(island, markup::EXPLANATION_CLASS)?,
            answer,
            id,
        })
    };
    read().map_err(|error: DecodeError| format!("predict step: {error}"))
}

/// The widget of a `widget` island.
pub fn widget<E: IslandElement>(island: &E) -> Result<WidgetEmbed, DecodeError> {
    let read = || {
        let name = attribute(island, markup::WIDGET)?;
        Ok(WidgetEmbed {
            name: WidgetName::from_name(&name)
                .ok_or_else(|| format!("no widget called {name:?}"))?,
            caption: first(island, &class(markup::CAPTION_CLASS))
                .ok()
                .map(|caption| caption.text()),
            settings: markup::decode_settings(&attribute(island, markup::SETTINGS)?)?,
            id: Some(attribute(island, markup::WIDGET_ID)?),
        })
    };
    read().map_err(|error: DecodeError| format!("widget: {error}"))
}

/// The task list of a `tasks` island.
pub fn task_list<E: IslandElement>(island: &E) -> Result<TaskList, DecodeError> {
    let read = || {
        let tasks = island
            .select(&format!("[{}]", markup::TASK_ID))
            .iter()
            .map(|item| {
                Ok(Task {
                    id: attribute(item, markup::TASK_ID)?,
                    label: inner_html(item, markup::TASK_LABEL_CLASS)?,
                })
            })
            .collect::<Result<_, DecodeError>>()?;
        Ok(TaskList {
            title: title(island)?,
            tasks,
            id: attribute(island, markup::LIST_ID)?,
        })
    };
    read().map_err(|error: DecodeError| format!("task list: {error}"))
}

/// The text of a `reveal` island.
pub fn reveal<E: IslandElement>(island: &E) -> Result<RevealText, DecodeError> {
    let read = || {
        Ok(RevealText {
            id: attribute(island, markup::REVEAL_ID)?,
            show: attribute(island, markup::REVEAL_SHOW)?,
            hide: attribute(island, markup::REVEAL_HIDE)?,
            answer: inner_html(island, markup::REVEAL_ANSWER_CLASS)?,
        })
    };
    read().map_err(|error: DecodeError| format!("reveal: {error}"))
}
