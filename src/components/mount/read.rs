//! Reading the lesson back from the pre-rendered page: each island's data from its attributes and the HTML around
//! it (the contract is [`crate::lesson::island_markup`]).
//!
//! What a component keeps for the page's lifetime is read once and kept (`&'static`): a predict step looked up again
//! — by the progress line, by a presentation screen that shows it a second time — is the same value.

use std::cell::RefCell;
use std::collections::HashMap;

use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::lesson::island_markup::{self as markup, OptionTexts};
use crate::lesson::{Html, PredictStep, Task, TaskList, WidgetEmbed, WidgetName};
use crate::views::reveal::RevealText;

thread_local! {
    static STEPS: RefCell<HashMap<String, &'static PredictStep>> = RefCell::default();
    static WIDGETS: RefCell<HashMap<String, &'static WidgetEmbed>> = RefCell::default();
}

/// Why an island could not be read: the page and the wasm come from the same build, so this is a bug to report.
pub type ReadError = String;

/// The elements below `root` that match `selector`, in document order.
pub fn all(root: &Element, selector: &str) -> Vec<Element> {
    let Ok(list) = root.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|index| list.item(index)?.dyn_into::<Element>().ok())
        .collect()
}

fn first(root: &Element, selector: &str) -> Result<Element, ReadError> {
    root.query_selector(selector)
        .ok()
        .flatten()
        .ok_or_else(|| format!("no {selector}"))
}

fn inner_html(root: &Element, selector: &str) -> Result<Html, ReadError> {
    first(root, selector).map(|element| Html(element.inner_html()))
}

fn text(root: &Element, selector: &str) -> Result<String, ReadError> {
    first(root, selector).map(|element| element.text_content().unwrap_or_default())
}

fn attribute(element: &Element, name: &str) -> Result<String, ReadError> {
    element
        .get_attribute(name)
        .ok_or_else(|| format!("no {name}"))
}

/// Reads once per key, then hands out the kept value.
fn kept<T: 'static>(
    cache: &'static std::thread::LocalKey<RefCell<HashMap<String, &'static T>>>,
    key: String,
    read: impl FnOnce() -> Result<T, ReadError>,
) -> Result<&'static T, ReadError> {
    if let Some(found) = cache.with_borrow(|map| map.get(&key).copied()) {
        return Ok(found);
    }
    let value: &'static T = Box::leak(Box::new(read()?));
    cache.with_borrow_mut(|map| map.insert(key, value));
    Ok(value)
}

/// The predict step of a `predict` island.
pub fn predict_step(island: &Element) -> Result<&'static PredictStep, ReadError> {
    let id = attribute(island, markup::STEP_ID)?;
    kept(&STEPS, id.clone(), || {
        let labels = all(island, &format!(".{}", markup::OPTION_LABEL_CLASS));
        let options: OptionTexts = labels
            .iter()
            .enumerate()
            .map(|(index, label)| {
                let why = island
                    .query_selector(&format!(
                        ".{}[{}=\"{index}\"]",
                        markup::OPTION_WHY_CLASS,
                        markup::OPTION_INDEX
                    ))
                    .ok()
                    .flatten()
                    .map(|why| Html(why.inner_html()));
                (Html(label.inner_html()), why)
            })
            .collect();
        let answer = markup::decode_answer(|name| island.get_attribute(name), options)?;
        Ok(PredictStep {
            title: text(island, "h3")?,
            question: inner_html(island, &format!(".{}", markup::QUESTION_CLASS))?,
            reveal: inner_html(island, &format!(".{}", markup::EXPLANATION_CLASS))?,
            answer,
            id,
        })
    })
    .map_err(|error| format!("predict step: {error}"))
}

/// Every predict step of the article, in reading order.
pub fn predict_steps(article: &Element) -> Vec<&'static PredictStep> {
    all(article, &island_selector(markup::IslandKind::Predict))
        .iter()
        .filter_map(|island| report(predict_step(island)))
        .collect()
}

/// The widget of a `widget` island.
pub fn widget(island: &Element) -> Result<&'static WidgetEmbed, ReadError> {
    let id = attribute(island, markup::WIDGET_ID)?;
    kept(&WIDGETS, id.clone(), || {
        let name = attribute(island, markup::WIDGET)?;
        Ok(WidgetEmbed {
            name: WidgetName::from_name(&name)
                .ok_or_else(|| format!("no widget called {name:?}"))?,
            caption: text(island, &format!(".{}", markup::CAPTION_CLASS)).ok(),
            settings: markup::decode_settings(&attribute(island, markup::SETTINGS)?)?,
            id: Some(id),
        })
    })
    .map_err(|error| format!("widget: {error}"))
}

/// The task list of a `tasks` island (read each time: the view owns its copy).
pub fn task_list(island: &Element) -> Result<TaskList, ReadError> {
    let read = || -> Result<TaskList, ReadError> {
        let tasks = all(island, &format!("[{}]", markup::TASK_ID))
            .iter()
            .map(|item| {
                Ok(Task {
                    id: attribute(item, markup::TASK_ID)?,
                    label: inner_html(item, &format!(".{}", markup::TASK_LABEL_CLASS))?,
                })
            })
            .collect::<Result<_, ReadError>>()?;
        Ok(TaskList {
            title: text(island, "h3")?,
            tasks,
            id: attribute(island, markup::LIST_ID)?,
        })
    };
    read().map_err(|error| format!("task list: {error}"))
}

/// The text of a `reveal` island (read each time: it is small, and a screen's copy owns nothing).
pub fn reveal(island: &Element) -> Result<RevealText, ReadError> {
    Ok(RevealText {
        id: attribute(island, markup::REVEAL_ID)?,
        show: attribute(island, markup::REVEAL_SHOW)?,
        hide: attribute(island, markup::REVEAL_HIDE)?,
        answer: inner_html(island, &format!(".{}", markup::REVEAL_ANSWER_CLASS))?,
    })
    .map_err(|error: ReadError| format!("reveal: {error}"))
}

/// `[data-island="kind"]`.
pub fn island_selector(kind: markup::IslandKind) -> String {
    format!("[{}=\"{}\"]", markup::ISLAND, kind.as_str())
}

/// The value, or `None` with the error on the console: a damaged island keeps its static version.
pub fn report<T>(result: Result<T, ReadError>) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(error) => {
            web_sys::console::error_1(&format!("goodput: cannot bring a part of the page to life ({error}); its static version stays").into());
            None
        }
    }
}
