//! Which key does what in presentation mode, decided without a browser: the page passes in the key and what has
//! focus, and gets back an action or nothing.

/// Something a key asks the presentation to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyAction {
    /// The next screen.
    Next,
    /// The previous screen.
    Previous,
    /// The first screen.
    First,
    /// The last screen.
    Last,
    /// Press the current screen's next unused Reveal button.
    Reveal,
    /// Enter or leave full screen.
    Fullscreen,
    /// Blank the audience screen, or bring it back.
    Blank,
    /// Switch the high-contrast theme on or off.
    Contrast,
    /// Show or hide the list of keys.
    Help,
    /// Open the other window: the presenter's from the audience, the audience's from the presenter.
    OpenOtherWindow,
    /// Close the help, un-blank, or leave full screen.
    Close,
    /// Go to the Ask box and its question field (on the lesson page too: `crate::components::ask` handles it).
    Ask,
}

/// What kind of element has keyboard focus, as far as stealing its keys goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FocusKind {
    /// Nothing that takes keys (the page, a heading, a slide).
    Page,
    /// A field being typed in: text and number inputs, text areas, selects, editable content. No key fires.
    Typing,
    /// A control that moves with the arrow keys: a slider or a radio group. Its own keys stay its own.
    Adjustable,
    /// Something pressed with Space or Enter: a button, a checkbox, a link, a disclosure.
    Pressable,
}

/// The focus kind of an element with tag `tag` (any case), `type` attribute `input_type` and `isContentEditable`.
pub fn focus_kind(tag: &str, input_type: Option<&str>, editable: bool) -> FocusKind {
    if editable {
        return FocusKind::Typing;
    }
    match tag.to_ascii_lowercase().as_str() {
        "textarea" | "select" => FocusKind::Typing,
        "input" => match input_type.unwrap_or("text").to_ascii_lowercase().as_str() {
            "range" | "radio" => FocusKind::Adjustable,
            "checkbox" | "button" | "submit" | "reset" | "image" | "color" | "file" => {
                FocusKind::Pressable
            }
            _ => FocusKind::Typing,
        },
        "button" | "a" | "summary" => FocusKind::Pressable,
        _ => FocusKind::Page,
    }
}

/// A key press as the browser reports it: `key` is `KeyboardEvent.key` ("ArrowRight", " ", "r", "?"), `code` is
/// `KeyboardEvent.code` ("ArrowRight", "Space", "KeyR", "Slash").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyPress<'a> {
    /// `KeyboardEvent.key`: what the key types on the reader's layout.
    pub key: &'a str,
    /// `KeyboardEvent.code`: which physical key it is, whatever the layout.
    pub code: &'a str,
    /// Shift held.
    pub shift: bool,
    /// Control held.
    pub ctrl: bool,
    /// Alt (Option) held.
    pub alt: bool,
    /// Meta (Command, Windows) held.
    pub meta: bool,
}

impl<'a> KeyPress<'a> {
    /// `key` with no modifier.
    pub fn plain(key: &'a str) -> Self {
        KeyPress {
            key,
            ..KeyPress::default()
        }
    }
}

/// What `press` does while `focus` has focus. Control, Alt and Meta combinations are left to the browser, as is
/// every key while typing, and the keys a focused control uses itself.
pub fn action_for(press: KeyPress<'_>, focus: FocusKind) -> Option<KeyAction> {
    if press.ctrl || press.alt || press.meta || focus == FocusKind::Typing {
        return None;
    }
    let action = match (press.key, press.shift) {
        ("ArrowRight" | "PageDown", false) => KeyAction::Next,
        ("ArrowLeft" | "PageUp", false) => KeyAction::Previous,
        (" " | "Spacebar", false) => KeyAction::Next,
        (" " | "Spacebar", true) => KeyAction::Previous,
        ("Home", false) => KeyAction::First,
        ("End", false) => KeyAction::Last,
        (".", false) => KeyAction::Blank,
        ("?", _) => KeyAction::Help,
        ("Escape", false) => KeyAction::Close,
        (_, true) => return None,
        (_, false) => match letter(&press)? {
            'r' => KeyAction::Reveal,
            'f' => KeyAction::Fullscreen,
            'b' => KeyAction::Blank,
            'c' => KeyAction::Contrast,
            'p' => KeyAction::OpenOtherWindow,
            'a' => KeyAction::Ask,
            _ => return None,
        },
    };
    let owned_by_control = match focus {
        FocusKind::Adjustable => matches!(
            press.key,
            "ArrowRight"
                | "ArrowLeft"
                | "ArrowUp"
                | "ArrowDown"
                | "PageUp"
                | "PageDown"
                | "Home"
                | "End"
                | " "
        ),
        FocusKind::Pressable => press.key == " ",
        FocusKind::Page | FocusKind::Typing => false,
    };
    (!owned_by_control).then_some(action)
}

/// The Latin letter a press stands for, lower case: the letter it types on a Latin layout, else the letter of its
/// physical key (`code` "KeyR"), so that the letter keys also work on a Cyrillic, Greek or other layout, whose `key`
/// is no Latin letter.
fn letter(press: &KeyPress<'_>) -> Option<char> {
    let mut typed = press.key.chars();
    match (typed.next(), typed.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => Some(c.to_ascii_lowercase()),
        _ => {
            let mut physical = press.code.strip_prefix("Key")?.chars();
            match (physical.next(), physical.next()) {
                (Some(c), None) if c.is_ascii_alphabetic() => Some(c.to_ascii_lowercase()),
                _ => None,
            }
        }
    }
}

/// The keys as the help overlay lists them: (keys, what they do).
pub const KEY_HELP: [(&str, &str); 12] = [
    ("→  Space  Page Down", "Next screen"),
    ("←  Shift+Space  Page Up", "Previous screen"),
    ("Home  End", "First and last screen"),
    ("R", "Reveal the answer on this screen"),
    ("B  .", "Blank the audience screen, or bring it back"),
    ("C", "High contrast on or off"),
    ("F", "Full screen on or off"),
    (
        "P",
        "Open the presenter window (from the presenter: the audience window)",
    ),
    ("A", "Ask the teacher a question (the Ask box)"),
    ("?", "Show or hide this list"),
    ("Esc", "Close this list, un-blank, leave full screen"),
    ("Tab", "Move between the controls on the screen"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clicker_keys_move_between_screens() {
        let on_page = |key| action_for(KeyPress::plain(key), FocusKind::Page);
        assert_eq!(on_page("ArrowRight"), Some(KeyAction::Next));
        assert_eq!(on_page("PageDown"), Some(KeyAction::Next));
        assert_eq!(on_page(" "), Some(KeyAction::Next));
        assert_eq!(on_page("ArrowLeft"), Some(KeyAction::Previous));
        assert_eq!(on_page("PageUp"), Some(KeyAction::Previous));
        assert_eq!(on_page("Home"), Some(KeyAction::First));
        assert_eq!(on_page("End"), Some(KeyAction::Last));
        assert_eq!(on_page("."), Some(KeyAction::Blank));
        assert_eq!(on_page("b"), Some(KeyAction::Blank));
        let shift_space = KeyPress {
            key: " ",
            shift: true,
            ..KeyPress::default()
        };
        assert_eq!(
            action_for(shift_space, FocusKind::Page),
            Some(KeyAction::Previous)
        );
    }

    #[test]
    fn letter_keys_work_on_a_non_latin_layout_by_their_place() {
        let cyrillic_r = KeyPress {
            key: "к",
            code: "KeyR",
            ..KeyPress::default()
        };
        assert_eq!(
            action_for(cyrillic_r, FocusKind::Page),
            Some(KeyAction::Reveal)
        );
        let greek_b = KeyPress {
            key: "β",
            code: "KeyB",
            ..KeyPress::default()
        };
        assert_eq!(action_for(greek_b, FocusKind::Page), Some(KeyAction::Blank));
        // On a Latin layout the letter typed counts, wherever its key sits (Dvorak's "r" is on QWERTY's "O").
        let dvorak_r = KeyPress {
            key: "r",
            code: "KeyO",
            ..KeyPress::default()
        };
        assert_eq!(
            action_for(dvorak_r, FocusKind::Page),
            Some(KeyAction::Reveal)
        );
        let digit = KeyPress {
            key: "1",
            code: "Digit1",
            ..KeyPress::default()
        };
        assert_eq!(action_for(digit, FocusKind::Page), None);
    }

    #[test]
    fn letters_work_in_either_case_but_not_with_shift_or_modifiers() {
        assert_eq!(
            action_for(KeyPress::plain("R"), FocusKind::Page),
            Some(KeyAction::Reveal)
        );
        assert_eq!(
            action_for(KeyPress::plain("c"), FocusKind::Page),
            Some(KeyAction::Contrast)
        );
        let shifted = KeyPress {
            key: "R",
            shift: true,
            ..KeyPress::default()
        };
        assert_eq!(action_for(shifted, FocusKind::Page), None);
        let question = KeyPress {
            key: "?",
            shift: true,
            ..KeyPress::default()
        };
        assert_eq!(action_for(question, FocusKind::Page), Some(KeyAction::Help));
        for modified in [
            KeyPress {
                key: "ArrowRight",
                ctrl: true,
                ..KeyPress::default()
            },
            KeyPress {
                key: "r",
                meta: true,
                ..KeyPress::default()
            },
            KeyPress {
                key: "f",
                alt: true,
                ..KeyPress::default()
            },
            KeyPress {
                key: "ArrowLeft",
                shift: true,
                ..KeyPress::default()
            },
        ] {
            assert_eq!(action_for(modified, FocusKind::Page), None, "{modified:?}");
        }
    }

    #[test]
    fn nothing_fires_while_typing() {
        for (tag, kind, editable) in [
            ("INPUT", Some("text"), false),
            ("input", None, false),
            ("input", Some("number"), false),
            ("TEXTAREA", None, false),
            ("select", None, false),
            ("div", None, true),
        ] {
            let focus = focus_kind(tag, kind, editable);
            assert_eq!(focus, FocusKind::Typing, "{tag} {kind:?}");
            for key in ["ArrowRight", " ", "r", "b", "?", "Escape", "Home"] {
                assert_eq!(
                    action_for(KeyPress::plain(key), focus),
                    None,
                    "{key} in {tag}"
                );
            }
        }
    }

    #[test]
    fn a_focused_slider_or_button_keeps_its_own_keys() {
        let slider = focus_kind("input", Some("range"), false);
        assert_eq!(slider, FocusKind::Adjustable);
        assert_eq!(
            focus_kind("input", Some("radio"), false),
            FocusKind::Adjustable
        );
        for key in ["ArrowRight", "ArrowLeft", "PageDown", "Home", "End", " "] {
            assert_eq!(
                action_for(KeyPress::plain(key), slider),
                None,
                "{key} on a slider"
            );
        }
        assert_eq!(
            action_for(KeyPress::plain("r"), slider),
            Some(KeyAction::Reveal)
        );
        let button = focus_kind("BUTTON", None, false);
        assert_eq!(action_for(KeyPress::plain(" "), button), None);
        assert_eq!(
            action_for(KeyPress::plain("ArrowRight"), button),
            Some(KeyAction::Next)
        );
        assert_eq!(focus_kind("main", None, false), FocusKind::Page);
    }
}
