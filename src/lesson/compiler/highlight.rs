//! Syntax highlighting with CSS classes (`hl-*`), so the page needs no inline styles; the theme is in
//! `style/lesson.css`.

use std::sync::OnceLock;
use syntect::html::{ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

/// The class prefix of every highlighted token; `style/lesson.css` styles these.
pub(super) const CLASS_STYLE: ClassStyle = ClassStyle::SpacedPrefixed { prefix: "hl-" };

fn syntaxes() -> &'static SyntaxSet {
    static SYNTAXES: OnceLock<SyntaxSet> = OnceLock::new();
    SYNTAXES.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// A `<pre>` block of `code`, highlighted when `language` is one syntect knows and plain otherwise.
pub(super) fn code_block(code: &str, language: &str) -> Result<String, String> {
    let set = syntaxes();
    let syntax = set
        .find_syntax_by_token(language)
        .unwrap_or_else(|| set.find_syntax_plain_text());
    let mut generator = ClassedHTMLGenerator::new_with_class_style(syntax, set, CLASS_STYLE);
    for line in LinesWithEndings::from(code) {
        generator
            .parse_html_for_line_which_includes_newline(line)
            .map_err(|e| e.to_string())?;
    }
    let language_class = language
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect::<String>();
    Ok(format!(
        // tabindex: a long line scrolls sideways, and a keyboard user must be able to scroll it too.
        "<pre class=\"code language-{language_class}\" tabindex=\"0\"><code>{}</code></pre>\n",
        generator.finalize()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_is_highlighted_with_classes_only() {
        let html = code_block("curl -s localhost:8000/metrics | grep waiting\n", "bash").unwrap();
        assert!(html.contains("class=\"hl-"), "{html}");
        assert!(!html.contains("style="), "{html}");
    }

    #[test]
    fn code_is_escaped() {
        let html = code_block("<script>alert(1)</script>\n", "text").unwrap();
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }
}
