//! Reading the lesson back from the pre-rendered page: each island's data decoded by its kind's decoder
//! ([`crate::views::island_codec`], tested natively on the built page) from the browser's DOM.
//!
//! What a component keeps for the page's lifetime is read once and kept (`&'static`): a predict step looked up again
//! — by the progress line, by a presentation screen that shows it a second time — is the same value.

use std::cell::RefCell;
use std::collections::HashMap;

use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::lesson::island_markup as markup;
use crate::lesson::{PredictStep, TaskList, WidgetEmbed};
use crate::views::island_codec::{self as codec, IslandElement};
use crate::views::reveal::RevealText;

thread_local! {
    static STEPS: RefCell<HashMap<String, &'static PredictStep>> = RefCell::default();
    static WIDGETS: RefCell<HashMap<String, &'static WidgetEmbed>> = RefCell::default();
}

/// Why an island could not be read: the page and the wasm come from the same build, so this is a bug to report.
pub type ReadError = codec::DecodeError;

/// The elements below `root` that match `selector`, in document order.
pub fn all(root: &Element, selector: &str) -> Vec<Element> {
    let Ok(list) = root.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|index| list.item(index)?.dyn_into::<Element>().ok())
        .collect()
}

/// The page's DOM, as the decoders read it.
impl IslandElement for Element {
    fn attribute(&self, name: &str) -> Option<String> {
        self.get_attribute(name)
    }

    fn select(&self, selector: &str) -> Vec<Element> {
        all(self, selector)
    }

    fn inner_html(&self) -> String {
        Element::inner_html(self)
    }

    fn text(&self) -> String {
        self.text_content().unwrap_or_default()
    }
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
    let id = island
        .get_attribute(markup::STEP_ID)
        .ok_or_else(|| format!("predict step: no {}", markup::STEP_ID))?;
    kept(&STEPS, id, || codec::predict_step(island))
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
    let id = island
        .get_attribute(markup::WIDGET_ID)
        .ok_or_else(|| format!("widget: no {}", markup::WIDGET_ID))?;
    kept(&WIDGETS, id, || codec::widget(island))
}

/// The task list of a `tasks` island (read each time: the view owns its copy).
pub fn task_list(island: &Element) -> Result<TaskList, ReadError> {
    codec::task_list(island)
}

/// The text of a `reveal` island (read each time: it is small, and a screen's copy owns nothing).
pub fn reveal(island: &Element) -> Result<RevealText, ReadError> {
    codec::reveal(island)
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
