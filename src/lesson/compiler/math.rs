//! LaTeX to MathML at build time, so the page needs no math library.

use pulldown_latex::config::DisplayMode;
use pulldown_latex::{push_mathml, Parser, RenderConfig, Storage};

/// Renders `latex` as MathML, inline or as a display block; the error says what LaTeX the renderer refused.
pub(super) fn to_mathml(latex: &str, display: bool) -> Result<String, String> {
    if let Some(symbol) = backslash_before_non_ascii(latex) {
        return Err(format!(
            "`\\{symbol}` is not a LaTeX command: after a backslash write a command name in ASCII letters \
             (`\\alpha`) or one ASCII symbol (`\\{{`), or drop the backslash"
        ));
    }
    // pulldown-latex 0.7 panics on some malformed input (fuzzing found slicing inside a multi-byte character);
    // a lesson must get an error naming its line, never a crashed build.
    std::panic::catch_unwind(|| render(latex, display)).unwrap_or_else(|_| {
        Err("the LaTeX renderer crashed on this formula; look for a character it cannot read where it expects a \
             command or a number, and write it differently"
            .to_string())
    })
}

/// The first non-ASCII character that directly follows a lone backslash: pulldown-latex 0.7 panics on it.
fn backslash_before_non_ascii(latex: &str) -> Option<char> {
    let mut chars = latex.chars();
    while let Some(c) = chars.next() {
        // The next character is consumed either way: `\\` (a line break) and `\x` are read whole.
        if c == '\\' {
            if let Some(next) = chars.next().filter(|next| !next.is_ascii()) {
                return Some(next);
            }
        }
    }
    None
}

fn render(latex: &str, display: bool) -> Result<String, String> {
    let storage = Storage::new();
    let mut events = Vec::new();
    for event in Parser::new(latex, &storage) {
        // pulldown-latex would draw a red error inside the formula; a lesson should not ship one, so refuse it.
        events.push(Ok::<_, pulldown_latex::ParserError>(
            event.map_err(|e| e.to_string())?,
        ));
    }
    let config = RenderConfig {
        display_mode: if display {
            DisplayMode::Block
        } else {
            DisplayMode::Inline
        },
        annotation: Some(latex),
        ..RenderConfig::default()
    };
    let mut mathml = String::new();
    push_mathml(&mut mathml, events.into_iter(), config).map_err(|e| e.to_string())?;
    Ok(mathml)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn littles_law_becomes_mathml() {
        let mathml = to_mathml(r"L = \lambda W", false).unwrap();
        assert!(mathml.starts_with("<math"), "{mathml}");
        assert!(mathml.contains("<mi>L</mi>"), "{mathml}");
    }

    #[test]
    fn unknown_commands_are_refused() {
        assert!(to_mathml(r"\notacommand{x}", true).is_err());
    }

    // Found by `make fuzz` (tests/fuzz_parsers.rs): pulldown-latex 0.7 panicked on a backslash before `¡`.
    #[test]
    fn a_backslash_before_a_non_ascii_character_is_refused_not_a_panic() {
        let error = to_mathml(r"8\¡\text{s}", false).unwrap_err();
        assert!(error.contains(r"`\¡` is not a LaTeX command"), "{error}");
        assert!(
            to_mathml(r"\alpha é", false).is_ok(),
            "a command, then é, is fine"
        );
        assert_eq!(
            backslash_before_non_ascii(r"a \\ é"),
            None,
            "`\\` is a line break"
        );
        assert_eq!(backslash_before_non_ascii(r"a \\\é"), Some('é'));
    }

    #[test]
    fn other_input_that_crashes_the_renderer_is_an_error() {
        for latex in [r"\kern é", r"\char é", r"\char`\é", r"x^é", r"\hspace{é}"] {
            match to_mathml(latex, false) {
                Ok(mathml) => assert!(mathml.starts_with("<math"), "{latex}: {mathml}"),
                Err(error) => assert!(!error.is_empty(), "{latex}: empty error"),
            }
        }
    }
}
