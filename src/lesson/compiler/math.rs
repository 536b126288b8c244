//! LaTeX to MathML at build time, so the page needs no math library.

use pulldown_latex::config::DisplayMode;
use pulldown_latex::{push_mathml, Parser, RenderConfig, Storage};

/// Renders `latex` as MathML, inline or as a display block; the error says what LaTeX the renderer refused.
pub(super) fn to_mathml(latex: &str, display: bool) -> Result<String, String> {
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
}
