//! The reader's colour theme: what they picked (or "follow the system"), how it is stored, and which chart theme
//! it means. The page applies it as `data-theme` on `<html>`; the colours live in `style/tokens.css`.

use crate::charts::ChartTheme;

/// The theme a reader picked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThemeChoice {
    /// Light or dark as the operating system prefers (`prefers-color-scheme`).
    #[default]
    System,
    /// Dark text on white.
    Light,
    /// Light text on near-black.
    Dark,
    /// Black on white, heavier lines and larger chart type: for projectors and low vision.
    HighContrast,
}

impl ThemeChoice {
    /// Every choice, in the order the switcher lists them.
    pub const ALL: [ThemeChoice; 4] = [
        ThemeChoice::System,
        ThemeChoice::Light,
        ThemeChoice::Dark,
        ThemeChoice::HighContrast,
    ];

    /// The stored and `<option value>` form.
    pub fn as_str(self) -> &'static str {
        match self {
            ThemeChoice::System => "system",
            ThemeChoice::Light => "light",
            ThemeChoice::Dark => "dark",
            ThemeChoice::HighContrast => "high-contrast",
        }
    }

    /// What the switcher says.
    pub fn label(self) -> &'static str {
        match self {
            ThemeChoice::System => "System",
            ThemeChoice::Light => "Light",
            ThemeChoice::Dark => "Dark",
            ThemeChoice::HighContrast => "High contrast",
        }
    }

    /// The choice stored as `stored`; anything unknown follows the system.
    pub fn parse(stored: &str) -> Self {
        stored.parse().unwrap_or_default()
    }

    /// The theme shown, given whether the system prefers dark.
    pub fn resolve(self, system_prefers_dark: bool) -> ChartTheme {
        match self {
            ThemeChoice::System if system_prefers_dark => ChartTheme::Dark,
            ThemeChoice::System | ThemeChoice::Light => ChartTheme::Light,
            ThemeChoice::Dark => ChartTheme::Dark,
            ThemeChoice::HighContrast => ChartTheme::HighContrast,
        }
    }

    /// The choice after the high-contrast key: high contrast, or back to `before` (what was picked before high
    /// contrast was switched on) when it is already on.
    pub fn toggle_contrast(self, before: ThemeChoice) -> ThemeChoice {
        match (self, before) {
            (ThemeChoice::HighContrast, ThemeChoice::HighContrast) => ThemeChoice::System,
            (ThemeChoice::HighContrast, before) => before,
            _ => ThemeChoice::HighContrast,
        }
    }
}

/// The stored form, [`ThemeChoice::as_str`]: how the page keeps it (`components::theme`).
impl std::fmt::Display for ThemeChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stored value that names no theme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownTheme;

impl std::str::FromStr for ThemeChoice {
    type Err = UnknownTheme;

    fn from_str(stored: &str) -> Result<Self, Self::Err> {
        ThemeChoice::ALL
            .into_iter()
            .find(|choice| choice.as_str() == stored.trim())
            .ok_or(UnknownTheme)
    }
}

/// The `data-theme` value on `<html>` for a shown theme.
pub fn theme_attribute(theme: ChartTheme) -> &'static str {
    match theme {
        ChartTheme::Light => "light",
        ChartTheme::Dark => "dark",
        ChartTheme::HighContrast => "high-contrast",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_choices_round_trip_and_junk_follows_the_system() {
        for choice in ThemeChoice::ALL {
            assert_eq!(ThemeChoice::parse(&choice.to_string()), choice);
        }
        assert_eq!(ThemeChoice::parse(" dark\n"), ThemeChoice::Dark);
        assert_eq!("neon".parse::<ThemeChoice>(), Err(UnknownTheme));
        assert_eq!(ThemeChoice::parse("neon"), ThemeChoice::System);
        assert_eq!(ThemeChoice::parse(""), ThemeChoice::System);
    }

    #[test]
    fn system_follows_the_preference_and_the_rest_do_not() {
        assert_eq!(ThemeChoice::System.resolve(true), ChartTheme::Dark);
        assert_eq!(ThemeChoice::System.resolve(false), ChartTheme::Light);
        assert_eq!(ThemeChoice::Light.resolve(true), ChartTheme::Light);
        assert_eq!(
            ThemeChoice::HighContrast.resolve(true),
            ChartTheme::HighContrast
        );
        assert_eq!(theme_attribute(ThemeChoice::Dark.resolve(false)), "dark");
    }

    #[test]
    fn the_contrast_key_goes_there_and_back() {
        assert_eq!(
            ThemeChoice::Dark.toggle_contrast(ThemeChoice::Dark),
            ThemeChoice::HighContrast
        );
        assert_eq!(
            ThemeChoice::HighContrast.toggle_contrast(ThemeChoice::Dark),
            ThemeChoice::Dark
        );
        assert_eq!(
            ThemeChoice::HighContrast.toggle_contrast(ThemeChoice::HighContrast),
            ThemeChoice::System
        );
    }
}
