//! The page theme: light, dark, high contrast or the system's choice, picked in the site header (or with `C` while
//! presenting), remembered in `localStorage`, applied as `data-theme` on `<html>` for the CSS, and handed to charts
//! through [`use_chart_theme`]. Other windows of the site follow a change through the `storage` event.
//!
//! ```ignore
//! view! { <ChartCanvas chart=spec theme=use_chart_theme() caption="p99 against load" /> }
//! ```

use codee::string::FromToStringCodec;
use leptos::prelude::*;
use leptos_use_preferences::use_preferred_dark;
use leptos_use_storage::use_local_storage;

use crate::charts::ChartTheme;
use crate::theme::{theme_attribute, ThemeChoice};
use crate::views::theme::theme_picker;

/// Where the choice is kept, as its plain name (`src/boot.js` reads it before the first paint).
const STORAGE_KEY: &str = "goodput-theme";

/// The page's theme state, provided once per page under the islands' shared owner (`crate::islands`).
#[derive(Clone, Copy)]
pub struct ThemeState {
    choice: Signal<ThemeChoice>,
    set_choice: WriteSignal<ThemeChoice>,
    system_prefers_dark: Signal<bool>,
    /// What was picked before high contrast was switched on with `C`, to switch back to.
    before_contrast: RwSignal<ThemeChoice>,
}

impl ThemeState {
    /// The reader's choice.
    pub fn choice(&self) -> ThemeChoice {
        self.choice.get()
    }

    /// The theme shown.
    pub fn shown(&self) -> ChartTheme {
        self.choice.get().resolve(self.system_prefers_dark.get())
    }

    /// Picks `choice` and remembers it (if storage is available: else for this page only).
    pub fn pick(&self, choice: ThemeChoice) {
        if choice != ThemeChoice::HighContrast {
            self.before_contrast.set(choice);
        }
        self.set_choice.set(choice);
    }

    /// High contrast on, or back to the previous choice.
    pub fn toggle_contrast(&self) {
        let next = self
            .choice
            .get_untracked()
            .toggle_contrast(self.before_contrast.get_untracked());
        self.pick(next);
    }
}

/// Reads the stored choice, follows the system preference and other windows (the `storage` event), and keeps
/// `<html data-theme>` current.
pub fn provide_theme() {
    // Anything unreadable (or storage refused) follows the system.
    let (choice, set_choice, _) = use_local_storage::<ThemeChoice, FromToStringCodec>(STORAGE_KEY);
    let stored = choice.get_untracked();
    let state = ThemeState {
        choice,
        set_choice,
        system_prefers_dark: use_preferred_dark(),
        before_contrast: RwSignal::new(if stored == ThemeChoice::HighContrast {
            ThemeChoice::System
        } else {
            stored
        }),
    };
    Effect::new(move |_| {
        let shown = theme_attribute(state.shown());
        // src/boot.js has set it before the lesson was parsed; setting it again would restyle the whole page.
        let Some(root) = document().document_element() else {
            return;
        };
        if root.get_attribute("data-theme").as_deref() != Some(shown) {
            let _ = root.set_attribute("data-theme", shown);
        }
    });
    provide_context(state);
}

/// The page's theme state; a light theme that follows nothing when none was provided (a component on its own).
pub fn use_theme() -> ThemeState {
    use_context::<ThemeState>().unwrap_or_else(|| {
        let (choice, set_choice) = signal(ThemeChoice::Light);
        ThemeState {
            choice: choice.into(),
            set_choice,
            system_prefers_dark: Signal::stored(false),
            before_contrast: RwSignal::new(ThemeChoice::Light),
        }
    })
}

/// The theme charts must be drawn in: pass it to `ChartCanvas`'s `theme`.
pub fn use_chart_theme() -> Signal<ChartTheme> {
    let state = use_theme();
    Signal::derive(move || state.shown())
}

/// How much larger chart type and lines are drawn where the chart sits: 1 on the lesson page, more on a projected
/// screen (see `ChartStyle::with_projection`). Provided by each presentation screen.
#[derive(Clone, Copy)]
pub struct ChartProjection(pub Signal<f64>);

/// The projection factor for a chart here (1 outside presentation mode).
pub fn use_chart_projection() -> Signal<f64> {
    use_context::<ChartProjection>()
        .map_or_else(|| Signal::derive(|| 1.0), |projection| projection.0)
}

/// The theme picker of the site header (and of the presenter's window): its view ([`crate::views::theme`]) showing
/// and setting the page's theme.
#[component]
pub fn ThemeSwitcher() -> impl IntoView {
    let state = use_theme();
    theme_picker(move || state.choice(), move |choice| state.pick(choice))
}
