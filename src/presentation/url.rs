//! The presentation's place in the URL: `?present=1&view=presenter&screen=3`. One parser, clamping bad values
//! with a note the page shows, and one writer, which keeps the address's other parameters (the lab's settings).

/// Which window this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The projected screen.
    Audience,
    /// The instructor's window: current and next screen, notes, timer.
    Presenter,
}

impl View {
    /// The `view=` value.
    pub fn as_str(self) -> &'static str {
        match self {
            View::Audience => "audience",
            View::Presenter => "presenter",
        }
    }
}

/// Whether a `present=` value asks for presentation mode.
pub fn wants_presentation(present: Option<&str>) -> bool {
    matches!(present.map(str::trim), Some("1" | "true" | "yes" | "on"))
}

/// Where a presentation window starts, read from its URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresentPlace {
    /// Which window.
    pub view: View,
    /// The screen, counted from 0, always below the screen count.
    pub screen: usize,
    /// What was wrong with the URL and what was shown instead, if anything.
    pub note: Option<String>,
}

/// Reads `view=` and `screen=` (counted from 1, as people count) for a lesson of `screen_count` screens.
pub fn parse_place(view: Option<&str>, screen: Option<&str>, screen_count: usize) -> PresentPlace {
    let last = screen_count.max(1);
    let mut notes = Vec::new();
    let view = match view.map(str::trim) {
        None | Some("" | "audience") => View::Audience,
        Some("presenter") => View::Presenter,
        Some(other) => {
            notes.push(format!(
                "There is no “{other}” view; showing the audience view."
            ));
            View::Audience
        }
    };
    let screen = match screen.map(str::trim) {
        None | Some("") => 1,
        Some(text) => match text.parse::<u64>() {
            Ok(0) => {
                notes.push(format!(
                    "Screens are counted from 1; showing screen 1 of {last}."
                ));
                1
            }
            Ok(n) if n > last as u64 => {
                notes.push(format!(
                    "This lesson has {last} screens, not {n}; showing the last one."
                ));
                last
            }
            Ok(n) => n as usize,
            Err(_) => {
                notes.push(format!(
                    "“{text}” is not a screen number; showing screen 1 of {last}."
                ));
                1
            }
        },
    };
    PresentPlace {
        view,
        screen: screen - 1,
        note: (!notes.is_empty()).then(|| notes.join(" ")),
    }
}

/// The parameters a presentation owns in the address.
pub fn is_place_key(key: &str) -> bool {
    matches!(key, "present" | "view" | "screen")
}

/// `query` with the presentation's place set to `view` at `screen` (counted from 0), every other parameter (the
/// lab's settings, say) kept. Returns the query without `?`.
pub fn merge_place(query: &str, view: View, screen: usize) -> String {
    let mut place = vec![("present".to_owned(), "1".to_owned())];
    if view == View::Presenter {
        place.push(("view".to_owned(), View::Presenter.as_str().to_owned()));
    }
    place.push(("screen".to_owned(), (screen + 1).to_string()));
    crate::address::replace_params(query, is_place_key, place)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn present_flag_accepts_the_usual_spellings() {
        assert!(wants_presentation(Some("1")));
        assert!(wants_presentation(Some("true")));
        assert!(!wants_presentation(Some("0")));
        assert!(!wants_presentation(None));
    }

    #[test]
    fn a_good_place_round_trips() {
        let place = parse_place(Some("presenter"), Some("4"), 10);
        assert_eq!(
            place,
            PresentPlace {
                view: View::Presenter,
                screen: 3,
                note: None
            }
        );
        assert_eq!(
            merge_place("", place.view, place.screen),
            "present=1&view=presenter&screen=4"
        );
        assert_eq!(merge_place("", View::Audience, 0), "present=1&screen=1");
        assert_eq!(parse_place(None, None, 10).screen, 0);
    }

    #[test]
    fn the_place_is_written_beside_the_lab_s_settings() {
        let query = "?present=1&load=0.97&screen=2&loop=closed";
        assert_eq!(
            merge_place(query, View::Audience, 4),
            "load=0.97&loop=closed&present=1&screen=5"
        );
        assert_eq!(
            merge_place("load=0.97", View::Presenter, 0),
            "load=0.97&present=1&view=presenter&screen=1"
        );
    }

    #[test]
    fn bad_places_are_clamped_with_a_note() {
        let past_end = parse_place(None, Some("99"), 12);
        assert_eq!(past_end.screen, 11);
        assert_eq!(
            past_end.note.as_deref(),
            Some("This lesson has 12 screens, not 99; showing the last one.")
        );
        let zero = parse_place(None, Some("0"), 12);
        assert_eq!(zero.screen, 0);
        assert!(zero.note.unwrap().contains("counted from 1"));
        let word = parse_place(Some("speaker"), Some("-2"), 12);
        assert_eq!((word.view, word.screen), (View::Audience, 0));
        let note = word.note.unwrap();
        assert!(
            note.contains("“speaker” view") && note.contains("“-2” is not a screen number"),
            "{note}"
        );
        assert_eq!(
            parse_place(None, Some("5"), 0).screen,
            0,
            "an empty lesson still has its header screen"
        );
    }
}
