//! Text from outside (a scrape's label values, a file's bad line) made safe to print: a terminal acts on control
//! characters instead of showing them (ESC starts a colour, a cursor move or a title; a carriage return or a
//! newline in a label value can write a line that looks like the report's own verdict), and a bidirectional override
//! reorders what follows. Each such character is written as a JSON-style `\uXXXX` escape, which reads the same in a
//! terminal and stays valid inside a JSON string; echoed content is cut to a short excerpt.

use std::borrow::Cow;

/// How many characters of a file's content an error message quotes.
pub const EXCERPT_CHARS: usize = 80;

/// Whether a terminal could act on `c` rather than show it: the C0 and C1 controls and DEL, and the
/// bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
fn acts_on_terminal(c: char) -> bool {
    c.is_control()
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

fn escaped(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| acts_on_terminal(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' if !keep(c) => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' if !keep(c) => out.push_str("\\t"),
            c if acts_on_terminal(c) && !keep(c) => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)))
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A whole report for a terminal: its own line breaks and tabs kept, every other control character escaped.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    escaped(text, |c| c == '\n' || c == '\t')
}

/// One value on one line (a label value, a name from a file): every control character escaped, line breaks too.
pub fn one_line(text: &str) -> Cow<'_, str> {
    escaped(text, |_| false)
}

/// At most `chars` characters of `text` on one line, escaped, with `…` where it was cut: what a message quotes of
/// a file's content, so that a wrong file (a binary, `/proc/self/environ`) is never printed whole.
pub fn excerpt(text: &str, chars: usize) -> String {
    let cut = text
        .char_indices()
        .nth(chars)
        .map_or(text.len(), |(at, _)| at);
    let mut quoted = one_line(&text[..cut]).into_owned();
    if cut < text.len() {
        quoted.push('…');
    }
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_sequences_a_terminal_would_run() {
        assert_eq!(
            for_terminal("a\u{1b}]0;title\u{7}b"),
            "a\\u001b]0;title\\u0007b"
        );
        assert_eq!(for_terminal("csi \u{9b}2J"), "csi \\u009b2J");
        assert_eq!(for_terminal("line\nnext\ttab"), "line\nnext\ttab");
        assert_eq!(for_terminal("back\rover"), "back\\rover");
        assert_eq!(one_line("x\nverdict: fine"), "x\\nverdict: fine");
        assert_eq!(one_line("\u{202e}txt"), "\\u202etxt");
        assert!(matches!(for_terminal("plain é ✓"), Cow::Borrowed(_)));
    }

    #[test]
    fn an_excerpt_is_short_and_says_it_was_cut() {
        let long = "x".repeat(10_000);
        assert_eq!(excerpt(&long, 5), "xxxxx…");
        assert_eq!(excerpt("ab", 5), "ab");
        assert_eq!(excerpt("a\u{0}b\u{0}", 80), "a\\u0000b\\u0000");
    }

    #[test]
    fn escapes_keep_json_strings_valid() {
        let text = for_terminal("\u{85}\u{9b}\u{7f}").into_owned();
        let parsed: String = serde_json::from_str(&format!("\"{text}\"")).unwrap();
        assert_eq!(parsed, "\u{85}\u{9b}\u{7f}");
    }
}
