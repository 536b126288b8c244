//! One screen of the lesson, scaled to the box it sits in: the whole window for the audience, a pane for the
//! presenter. Type is sized from the box (container query units in `style/present.css`), and if a screen still does
//! not fit, [`fit_slide`] steps the type down until it does.

use leptos::html;
use leptos::prelude::*;
use leptos_use_resize_observer::use_resize_observer;

use super::Deck;
use crate::components::lesson::{LessonBlock, LessonHeader};
use crate::components::theme::ChartProjection;
use crate::lesson::Block;
use crate::presentation::html::heading_level;
use crate::presentation::screens::ScreenItem;

/// How many steps, of about 8% each, the type may shrink to make a screen fit before the screen scrolls instead.
const MAX_FIT: u8 = 8;

/// The screen at `index` (none: "the end"). `current` marks the screen the `R` key reveals on.
#[component]
pub(super) fn Stage(
    deck: Deck,
    #[prop(into)] index: Signal<Option<usize>>,
    current: bool,
) -> impl IntoView {
    let stage_ref = NodeRef::<html::Section>::new();
    let slide_ref = NodeRef::<html::Div>::new();
    let content_ref = NodeRef::<html::Div>::new();
    let (stage_size, set_stage_size) = signal((0.0_f64, 0.0_f64));
    use_resize_observer(stage_ref, move |entries, _| {
        if let Some(entry) = entries.first() {
            let rect = entry.content_rect();
            set_stage_size.set((rect.width(), rect.height()));
        }
        fit_slide(slide_ref);
    });
    // A reveal, a chart or a folded keyword changed the content's height.
    use_resize_observer(content_ref, move |_, _| fit_slide(slide_ref));
    Effect::new(move |_| {
        index.track();
        request_animation_frame(move || fit_slide(slide_ref));
    });
    // Charts on the screen draw type and lines in proportion to the screen's type (17 px is the lesson page's).
    provide_context(ChartProjection(Signal::derive(move || {
        let (width, height) = stage_size.get();
        ((0.024 * width).min(0.036 * height) / 17.0).max(1.0)
    })));

    let label = move || match index.get() {
        Some(index) => format!(
            "Screen {} of {}: {}",
            index + 1,
            deck.count,
            deck.screen_title(index).unwrap_or_default()
        ),
        None => "After the last screen".to_string(),
    };
    view! {
        <section class="present-stage" class:present-current=current node_ref=stage_ref aria-label=label>
            <div class="present-slide" node_ref=slide_ref>
                <div class="present-content lesson" node_ref=content_ref>
                    {move || match index.get() {
                        Some(index) => view! { <ScreenContent deck index/> }.into_any(),
                        None => view! { <p class="present-end">"End of the lesson"</p> }.into_any(),
                    }}
                </div>
            </div>
        </section>
    }
}

/// The items of one screen, drawn by the lesson's own block components.
#[component]
fn ScreenContent(deck: Deck, index: usize) -> impl IntoView {
    let lesson = deck.lesson;
    let Some(screen) = deck
        .screens
        .with_value(|screens| screens.get(index).cloned())
    else {
        return ().into_any();
    };
    let prose = |block: usize, range: &std::ops::Range<usize>| match &lesson.blocks[block] {
        Block::Html(html) => html.as_str().get(range.clone()).unwrap_or_default(),
        _ => "",
    };
    let starts_with_heading = match screen.items.first() {
        Some(ScreenItem::Prose { block, range }) => heading_level(prose(*block, range)).is_some(),
        Some(ScreenItem::Header) => true,
        _ => false,
    };
    let kicker = screen
        .section
        .clone()
        .filter(|_| !starts_with_heading)
        .map(|section| view! { <p class="present-section">{section}</p> });
    let items = screen
        .items
        .iter()
        .map(|item| match item {
            ScreenItem::Header => view! { <LessonHeader meta=&lesson.meta/> }.into_any(),
            ScreenItem::Block(block) => {
                view! { <LessonBlock block=&lesson.blocks[*block] index=*block/> }.into_any()
            }
            ScreenItem::Prose { block, range } => {
                view! { <div class="lesson-prose" inner_html=prose(*block, range)></div> }
                    .into_any()
            }
        })
        .collect_view();
    view! { {kicker} {items} }.into_any()
}

/// Steps the slide's type down (`data-fit`, see `style/present.css`) until its content fits, or lets it scroll.
fn fit_slide(slide_ref: NodeRef<html::Div>) {
    let Some(slide) = slide_ref.get_untracked() else {
        return;
    };
    if slide.client_height() == 0 {
        return;
    }
    let overflows = || {
        slide.scroll_height() > slide.client_height() + 1
            || slide.scroll_width() > slide.client_width() + 1
    };
    // Each step is read back at once: setting the attribute and reading the size forces a synchronous layout.
    for level in 0..=MAX_FIT {
        let _ = slide.set_attribute("data-fit", &level.to_string());
        if !overflows() {
            return;
        }
    }
    let _ = slide.set_attribute("data-fit", "scroll");
}
