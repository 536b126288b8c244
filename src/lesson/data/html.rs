//! Reading the compiler's sanitised HTML just enough to cut a prose block into screens: its top-level elements,
//! their plain text, and a rough measure of how much room each takes on a projected screen.

use std::ops::Range;

/// Elements that never have a closing tag.
const VOID_ELEMENTS: [&str; 13] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// Elements whose start and end separate words in plain text.
const BLOCK_ELEMENTS: [&str; 21] = [
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "td",
    "th",
    "table",
    "blockquote",
    "pre",
    "dt",
    "dd",
    "section",
];

/// Byte ranges of the top-level nodes of `html` (whole elements, or runs of text between them), in order.
/// Whitespace between nodes is left out. Unbalanced markup never loses text: an element that is never closed runs
/// to the end of the input.
pub fn top_level_fragments(html: &str) -> Vec<Range<usize>> {
    let bytes = html.as_bytes();
    let mut fragments = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at].is_ascii_whitespace() {
            at += 1;
            continue;
        }
        let start = at;
        if bytes[at] == b'<' {
            let mut depth = 0usize;
            loop {
                let Some(tag) = next_tag(html, at) else {
                    at = bytes.len();
                    break;
                };
                match tag.kind {
                    TagKind::Open => depth += 1,
                    TagKind::Close => depth = depth.saturating_sub(1),
                    TagKind::Standalone => {}
                }
                at = tag.end;
                if depth == 0 {
                    break;
                }
                // Skip text up to the next tag.
                match html[at..].find('<') {
                    Some(offset) => at += offset,
                    None => {
                        at = bytes.len();
                        break;
                    }
                }
            }
        } else {
            at = html[at..]
                .find('<')
                .map_or(bytes.len(), |offset| at + offset);
        }
        let end = start + html[start..at].trim_end().len();
        if end > start {
            fragments.push(start..end);
        }
    }
    fragments
}

#[derive(Debug, PartialEq)]
enum TagKind {
    Open,
    Close,
    /// Void, self-closed (`<mspace />`), a comment or a doctype.
    Standalone,
}

struct Tag {
    kind: TagKind,
    /// Byte just past the tag's `>`.
    end: usize,
}

/// The tag starting at `at` (which must be a `<`), reading quoted attribute values whole.
fn next_tag(html: &str, at: usize) -> Option<Tag> {
    let rest = &html[at..];
    if let Some(comment) = rest.strip_prefix("<!--") {
        let end = comment.find("-->").map_or(html.len(), |i| at + 4 + i + 3);
        return Some(Tag {
            kind: TagKind::Standalone,
            end,
        });
    }
    let bytes = rest.as_bytes();
    let mut quote = None;
    let mut close_at = None;
    for (i, &byte) in bytes.iter().enumerate().skip(1) {
        match (quote, byte) {
            (Some(q), b) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(byte),
            (None, b'>') => {
                close_at = Some(i);
                break;
            }
            _ => {}
        }
    }
    let close_at = close_at?;
    let inside = &rest[1..close_at];
    let kind = if inside.starts_with('/') {
        TagKind::Close
    } else if inside.starts_with('!')
        || inside.ends_with('/')
        || VOID_ELEMENTS.contains(&tag_name(inside).as_str())
    {
        TagKind::Standalone
    } else {
        TagKind::Open
    };
    Some(Tag {
        kind,
        end: at + close_at + 1,
    })
}

fn tag_name(inside: &str) -> String {
    inside
        .trim_start_matches('/')
        .split(|c: char| c.is_whitespace() || c == '/')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// The text a reader sees in `html`: tags removed, the common entities decoded, whitespace collapsed.
pub fn plain_text(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut at = 0;
    while at < html.len() {
        if html.as_bytes()[at] == b'<' {
            match next_tag(html, at) {
                Some(tag) => {
                    // Block elements separate words; inline ones (`<em>`, `<code>`, MathML) do not.
                    if BLOCK_ELEMENTS.contains(&tag_name(&html[at + 1..tag.end - 1]).as_str()) {
                        text.push(' ');
                    }
                    at = tag.end;
                }
                None => break,
            }
        } else {
            let next = html[at..]
                .find('<')
                .map_or(html.len(), |offset| at + offset);
            text.push_str(&html[at..next]);
            at = next;
        }
    }
    let decoded = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The level of a fragment that is a section heading (`<h2>` → 2, `<h3>` → 3), if it is one.
pub fn heading_level(fragment: &str) -> Option<u8> {
    let bytes = fragment.as_bytes();
    match bytes {
        [b'<', b'h' | b'H', level @ b'1'..=b'6', next, ..]
            if *next == b'>' || next.is_ascii_whitespace() =>
        {
            Some(level - b'0')
        }
        _ => None,
    }
}

/// A heading's text without the self-link mark the compiler appends (`#`).
pub fn heading_text(fragment: &str) -> String {
    plain_text(fragment)
        .trim_end_matches('#')
        .trim_end()
        .to_string()
}

/// The `id` of the fragment's first element, if it has one (a heading's anchor).
pub fn first_id(fragment: &str) -> Option<String> {
    let tag_end = fragment.find('>')?;
    let tag = &fragment[..tag_end];
    let value = tag.split(" id=\"").nth(1)?;
    Some(value[..value.find('"')?].to_string())
}

/// Roughly how much room `html` takes on a projected screen, in characters of running text: its text, plus a
/// line's worth for each paragraph, list item, table row, code line and display formula, which take height beyond
/// their characters.
pub fn room_needed(html: &str) -> usize {
    const LINE: usize = 70;
    let count = |needle: &str| html.matches(needle).count();
    let code_lines = if html.contains("<pre") {
        html.lines().count()
    } else {
        0
    };
    plain_text(html).chars().count()
        + LINE / 2 * (count("<p>") + count("<p "))
        + LINE / 2 * count("<li")
        + LINE * count("<tr")
        + LINE * code_lines
        + 2 * LINE * count("<math display=\"block\"")
        + LINE * (count("<h2") + count("<h3"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(html: &str) -> Vec<&str> {
        top_level_fragments(html)
            .into_iter()
            .map(|range| &html[range])
            .collect()
    }

    #[test]
    fn top_level_elements_come_out_whole() {
        let html = "<h2 id=\"a\">A <a href=\"#a\">#</a></h2>\n<p>One <em>two</em></p>\n<ul>\n<li>x</li>\n</ul>\n";
        assert_eq!(
            pieces(html),
            [
                "<h2 id=\"a\">A <a href=\"#a\">#</a></h2>",
                "<p>One <em>two</em></p>",
                "<ul>\n<li>x</li>\n</ul>"
            ]
        );
    }

    #[test]
    fn void_and_self_closed_elements_do_not_open_a_level() {
        let html = "<p>a<br>b</p><p><math><mspace width=\"1em\" /><mi>x</mi></math></p><hr>";
        assert_eq!(
            pieces(html),
            [
                "<p>a<br>b</p>",
                "<p><math><mspace width=\"1em\" /><mi>x</mi></math></p>",
                "<hr>"
            ]
        );
    }

    #[test]
    fn quoted_angle_brackets_and_comments_are_read_whole() {
        let html = "<p title=\"a > b\">x</p><!-- <p> --><p>y</p>";
        assert_eq!(
            pieces(html),
            ["<p title=\"a > b\">x</p>", "<!-- <p> -->", "<p>y</p>"]
        );
    }

    #[test]
    fn loose_text_and_unclosed_elements_keep_their_text() {
        assert_eq!(
            pieces("text <p>para</p> tail"),
            ["text", "<p>para</p>", "tail"]
        );
        assert_eq!(pieces("<div><p>never closed"), ["<div><p>never closed"]);
    }

    #[test]
    fn plain_text_strips_tags_and_decodes_entities() {
        assert_eq!(
            plain_text("<p>a &lt; b &amp;&amp; <em>c</em>\n d</p><p>e</p>"),
            "a < b && c d e"
        );
        assert_eq!(
            plain_text("what is <em>the knee</em>?"),
            "what is the knee?"
        );
    }

    #[test]
    fn headings_are_recognised_with_their_text_and_anchor() {
        let h2 = "<h2 id=\"the-knee\">The knee <a class=\"heading-anchor\" href=\"#the-knee\">#</a></h2>";
        assert_eq!(heading_level(h2), Some(2));
        assert_eq!(heading_level("<h3>x</h3>"), Some(3));
        assert_eq!(heading_level("<hr>"), None);
        assert_eq!(heading_level("<header>"), None);
        assert_eq!(heading_text(h2), "The knee");
        assert_eq!(first_id(h2).as_deref(), Some("the-knee"));
        assert_eq!(first_id("<p>x</p>"), None);
    }

    #[test]
    fn a_table_needs_more_room_than_its_text() {
        let table = "<table><tr><td>1</td></tr><tr><td>2</td></tr></table>";
        assert!(room_needed(table) >= 140);
        assert_eq!(room_needed("abc"), 3);
    }
}
