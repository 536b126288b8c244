//! Planning a presentation: the lesson's screens read from the pre-rendered article, each with the elements it
//! shows and the speaker notes that belong to it (the build marks them, see [`crate::lesson::island_markup`]).

use web_sys::Element;

use crate::components::mount::read::all;
use crate::lesson::island_markup as markup;
use crate::lesson::Html;

/// One presentation screen, read from the article.
pub struct PlannedScreen {
    /// The screen's short name.
    pub title: String,
    /// The section named above it, when it does not start with a heading.
    pub kicker: Option<String>,
    /// The anchor on the lesson page nearest to it.
    pub anchor: Option<String>,
    /// The article's elements it shows, in order (copied onto the screen when it is shown).
    pub items: Vec<Element>,
    /// The speaker notes for it, as HTML.
    pub notes: Vec<Html>,
}

/// The screens of the lesson in `article`, in order: the elements marked with each screen's number, and the notes
/// marked as belonging to it. Never empty for a lesson page (its header is screen 0).
pub fn screen_plan(article: &Element) -> Vec<PlannedScreen> {
    let mut screens: Vec<PlannedScreen> = Vec::new();
    for element in all(article, &format!("[{}]", markup::SCREEN)) {
        let Some(index) = element
            .get_attribute(markup::SCREEN)
            .and_then(|value| value.parse::<usize>().ok())
        else {
            continue;
        };
        while screens.len() <= index {
            screens.push(PlannedScreen {
                title: String::new(),
                kicker: None,
                anchor: None,
                items: Vec::new(),
                notes: Vec::new(),
            });
        }
        let screen = &mut screens[index];
        if let Some(title) = element.get_attribute(markup::SCREEN_TITLE) {
            screen.title = title;
            screen.kicker = element.get_attribute(markup::SCREEN_KICKER);
            screen.anchor = element.get_attribute(markup::SCREEN_ANCHOR);
        }
        screen.items.push(element);
    }
    for notes in all(article, &format!("[{}]", markup::NOTES_FOR)) {
        let html = notes
            .query_selector("div")
            .ok()
            .flatten()
            .map(|body| Html(body.inner_html()))
            .unwrap_or_default();
        let owners = notes.get_attribute(markup::NOTES_FOR).unwrap_or_default();
        for index in markup::decode_indices(&owners).unwrap_or_default() {
            if let Some(screen) = screens.get_mut(index) {
                screen.notes.push(html.clone());
            }
        }
    }
    screens
}
