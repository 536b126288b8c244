//! LaTeX to MathML at build time, so the page needs no math library.

use pulldown_latex::config::DisplayMode;
use pulldown_latex::event::{Content, Event};
use pulldown_latex::{push_mathml, Parser, RenderConfig, Storage};

/// pulldown-latex 0.7 writes a formula's text, symbols and annotation into the MathML as they are, unescaped: `$a<b$`
/// would break the page's markup and `\text{</mtext><input …>}` would add an element. So every character HTML gives a
/// meaning (`&`, `<`, `>`, `"`) is swapped for a private-use stand-in before rendering, and each stand-in for its
/// entity after; the only `<` left is a relation's, which [`escape_relations`] escapes.
const STAND_INS: [(char, char, &str); 4] = [
    ('&', '\u{E000}', "&amp;"),
    ('<', '\u{E001}', "&lt;"),
    ('>', '\u{E002}', "&gt;"),
    ('"', '\u{E003}', "&quot;"),
];

/// Renders `latex` as MathML, inline or as a display block; the error says what LaTeX the renderer refused.
pub(super) fn to_mathml(latex: &str, display: bool) -> Result<String, String> {
    if let Some((_, stand_in, _)) = STAND_INS
        .iter()
        .find(|(_, stand_in, _)| latex.contains(*stand_in))
    {
        return Err(format!(
            "the private-use character U+{:04X} has no meaning in a formula; remove it",
            u32::from(*stand_in)
        ));
    }
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
        events.push(event.map_err(|e| e.to_string())?);
    }
    // The texts with stand-ins, owned here so that the rewritten events can borrow them.
    let texts: Vec<Option<String>> = events
        .iter()
        .map(|event| match event {
            Event::Content(
                Content::Text(text) | Content::Number(text) | Content::Function(text),
            ) => Some(with_stand_ins_keeping_entities(text)),
            _ => None,
        })
        .collect();
    let events = events.into_iter().zip(&texts).map(|(event, text)| {
        Ok::<_, pulldown_latex::ParserError>(match (event, text) {
            (Event::Content(Content::Text(_)), Some(text)) => Event::Content(Content::Text(text)),
            (Event::Content(Content::Number(_)), Some(text)) => {
                Event::Content(Content::Number(text))
            }
            (Event::Content(Content::Function(_)), Some(text)) => {
                Event::Content(Content::Function(text))
            }
            (Event::Content(content), _) => Event::Content(symbol_with_stand_in(content)),
            (event, _) => event,
        })
    });
    let annotation = with_stand_ins(latex);
    let config = RenderConfig {
        display_mode: if display {
            DisplayMode::Block
        } else {
            DisplayMode::Inline
        },
        annotation: Some(&annotation),
        ..RenderConfig::default()
    };
    let mut mathml = String::new();
    push_mathml(&mut mathml, events, config).map_err(|e| e.to_string())?;
    Ok(escape_relations(&entities_for_stand_ins(&mathml)))
}

fn stand_in(c: char) -> char {
    STAND_INS
        .iter()
        .find(|(plain, _, _)| *plain == c)
        .map_or(c, |(_, stand_in, _)| *stand_in)
}

fn with_stand_ins(text: &str) -> String {
    text.chars().map(stand_in).collect()
}

/// A text the renderer made, with stand-ins, but the entities it writes itself kept: `\ ` is the text `&nbsp;`.
/// (An entity writes one character, never markup; an `&` that starts none is the author's, and escaped.)
fn with_stand_ins_keeping_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let entity = (c == '&').then(|| entity_length(rest)).flatten();
        match entity {
            Some(length) => {
                out.push_str(&rest[..length]);
                rest = &rest[length..];
            }
            None => {
                out.push(stand_in(c));
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// The length of the character reference `text` starts with (`&nbsp;`, `&#160;`, `&#xA0;`), if it starts with one.
fn entity_length(text: &str) -> Option<usize> {
    let body = text.strip_prefix('&')?;
    let end = body.find(';')?;
    let name = &body[..end];
    let well_formed = match name.strip_prefix('#') {
        Some(number) => match number.strip_prefix(['x', 'X']) {
            Some(hex) => !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()),
            None => !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()),
        },
        None => !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()),
    };
    (well_formed && end <= 32).then_some(end + 2)
}

/// A one-character symbol with its stand-in. (A relation's character cannot be rewritten: pulldown-latex keeps it
/// private. Its `<` is escaped after rendering.)
fn symbol_with_stand_in(content: Content<'_>) -> Content<'_> {
    match content {
        Content::Ordinary { content, stretchy } => Content::Ordinary {
            content: stand_in(content),
            stretchy,
        },
        Content::LargeOp { content, small } => Content::LargeOp {
            content: stand_in(content),
            small,
        },
        Content::BinaryOp { content, small } => Content::BinaryOp {
            content: stand_in(content),
            small,
        },
        Content::Delimiter { content, size, ty } => Content::Delimiter {
            content: stand_in(content),
            size,
            ty,
        },
        Content::Punctuation(content) => Content::Punctuation(stand_in(content)),
        other => other,
    }
}

fn entities_for_stand_ins(mathml: &str) -> String {
    let mut out = String::with_capacity(mathml.len());
    for c in mathml.chars() {
        match STAND_INS.iter().find(|(_, stand_in, _)| *stand_in == c) {
            Some((_, _, entity)) => out.push_str(entity),
            None => out.push(c),
        }
    }
    out
}

/// After the stand-ins, every `<` the renderer wrote opens or closes one of its own tags, except a relation's
/// symbol (`a < b` is `<mo><</mo>`): a `<` that no tag name follows is that symbol, and becomes `&lt;`.
fn escape_relations(mathml: &str) -> String {
    let mut out = String::with_capacity(mathml.len());
    for (at, c) in mathml.char_indices() {
        if c != '<' {
            out.push(c);
            continue;
        }
        let rest = mathml[at + 1..]
            .strip_prefix('/')
            .unwrap_or(&mathml[at + 1..]);
        if rest.starts_with(|next: char| next.is_ascii_lowercase()) {
            out.push('<');
        } else {
            out.push_str("&lt;");
        }
    }
    out
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
    fn the_renderers_own_entities_stay_and_an_authors_ampersand_is_escaped() {
        let mathml = to_mathml(r"8\ \text{s}", false).unwrap();
        assert!(mathml.contains("<mtext>&nbsp;</mtext>"), "{mathml}");
        assert!(!mathml.contains("&amp;nbsp;"), "{mathml}");
        let mathml = to_mathml(r"\text{a&b <c>}", false).unwrap_or_default();
        assert!(
            !mathml.contains("a&b") && !mathml.contains("<c>"),
            "{mathml}"
        );
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
