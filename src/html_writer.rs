//! A small HTML writer: elements with escaped attributes and text, and the lesson compiler's sanitised fragments
//! passed through as they are. The static pages (`goodput-pages`) are written with it, and so are the metrics reader's
//! answer, in the server worker (`crate::cluster::reader_view`), and the Ask box's, in the teacher's worker
//! (`goodput_teacher`).

use crate::charts::DataTable;
use crate::lesson::Html;

/// Text escaped for element content.
pub fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

/// Text escaped for a double-quoted attribute value.
pub fn escape_attribute(value: &str) -> String {
    escape_text(value).replace('"', "&quot;")
}

/// HTML being written, element by element.
#[derive(Debug, Default)]
pub struct HtmlWriter {
    out: String,
}

impl HtmlWriter {
    /// An empty document fragment.
    pub fn new() -> Self {
        HtmlWriter::default()
    }

    /// `<tag attributes…>`, what `inner` writes, `</tag>`. An attribute with an empty value is written bare
    /// (`hidden`, `open`).
    pub fn element(
        &mut self,
        tag: &str,
        attributes: &[(&str, &str)],
        inner: impl FnOnce(&mut HtmlWriter),
    ) -> &mut Self {
        self.open(tag, attributes);
        inner(self);
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
        self
    }

    /// An element with only text in it.
    pub fn text_element(
        &mut self,
        tag: &str,
        attributes: &[(&str, &str)],
        text: &str,
    ) -> &mut Self {
        self.element(tag, attributes, |m| {
            m.text(text);
        })
    }

    /// An element with a compiled fragment in it.
    pub fn html_element(
        &mut self,
        tag: &str,
        attributes: &[(&str, &str)],
        html: &Html,
    ) -> &mut Self {
        self.element(tag, attributes, |m| {
            m.html(html);
        })
    }

    /// An element that has no end tag (`<img>`, `<meta>`).
    pub fn void(&mut self, tag: &str, attributes: &[(&str, &str)]) -> &mut Self {
        self.open(tag, attributes);
        self
    }

    /// Escaped text.
    pub fn text(&mut self, text: &str) -> &mut Self {
        self.out.push_str(&escape_text(text));
        self
    }

    /// A fragment from the lesson compiler: already sanitised, written as it is.
    pub fn html(&mut self, html: &Html) -> &mut Self {
        self.out.push_str(html.as_str());
        self
    }

    /// Markup this crate wrote itself (an SVG drawn by the chart code), written as it is.
    pub fn trusted(&mut self, markup: &str) -> &mut Self {
        self.out.push_str(markup);
        self
    }

    /// The HTML written so far.
    /// A chart's data as a `<table>` (headings in `<th scope="col">`, each row's cells in `<td>`).
    pub fn data_table(&mut self, table: &DataTable) -> &mut Self {
        self.element("table", &[], |m| {
            m.element("thead", &[], |m| {
                m.element("tr", &[], |m| {
                    for heading in &table.header {
                        m.text_element("th", &[("scope", "col")], heading);
                    }
                });
            });
            m.element("tbody", &[], |m| {
                for row in &table.rows {
                    m.element("tr", &[], |m| {
                        for cell in row {
                            m.text_element("td", &[], cell);
                        }
                    });
                }
            });
        })
    }

    pub fn finish(self) -> String {
        self.out
    }

    fn open(&mut self, tag: &str, attributes: &[(&str, &str)]) {
        self.out.push('<');
        self.out.push_str(tag);
        for (name, value) in attributes {
            self.out.push(' ');
            self.out.push_str(name);
            if !value.is_empty() {
                self.out.push_str("=\"");
                self.out.push_str(&escape_attribute(value));
                self.out.push('"');
            }
        }
        self.out.push('>');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_attributes_are_escaped_and_fragments_are_not() {
        let mut m = HtmlWriter::new();
        m.element("p", &[("title", "a \"b\" <c>"), ("hidden", "")], |m| {
            m.text("1 < 2 & 3").html(&Html("<em>x</em>".into()));
        });
        assert_eq!(
            m.finish(),
            "<p title=\"a &quot;b&quot; &lt;c&gt;\" hidden>1 &lt; 2 &amp; 3<em>x</em></p>"
        );
    }
}
