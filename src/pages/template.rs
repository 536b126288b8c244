//! Trunk's `index.html` as the frame of every page: its `<head>` (stylesheets, the wasm loader, the security policy)
//! is kept, the title, description and `<base>` are set per page, and the body is replaced by the page's content.

use super::{Page, PagesError};
use goodput::html_writer::{escape_attribute, escape_text};

/// The parts of Trunk's `index.html` a page is made from.
#[derive(Clone, Debug)]
pub struct PageTemplate {
    /// From the start up to and including `<head>`.
    before_head: String,
    /// The rest of the head up to `<title>`.
    head_until_title: String,
    /// After `</title>` up to and including `<body`.
    after_title_until_body: String,
    /// The description meta tag's content as the template has it, to replace per page.
    description: Option<String>,
    /// After the body: `</body>` and what follows.
    after_body: String,
}

impl PageTemplate {
    /// Splits `html` (Trunk's output, already hardened by `tools/harden-page.mjs`).
    pub fn parse(html: &str) -> Result<PageTemplate, PagesError> {
        let missing = |what: &str| PagesError::Template(format!("has no {what}"));
        let head_end = html.find("<head>").ok_or_else(|| missing("<head>"))? + "<head>".len();
        let title_start = html.find("<title>").ok_or_else(|| missing("<title>"))?;
        let title_end =
            html.find("</title>").ok_or_else(|| missing("</title>"))? + "</title>".len();
        let body_start = html.find("<body").ok_or_else(|| missing("<body>"))?;
        let body_open_end = body_start
            + html[body_start..]
                .find('>')
                .ok_or_else(|| missing("<body>"))?;
        let body_end = html.rfind("</body>").ok_or_else(|| missing("</body>"))?;
        if !(head_end <= title_start && title_end <= body_start && body_open_end < body_end) {
            return Err(PagesError::Template(
                "its head and body are out of order".into(),
            ));
        }
        let description = html
            .find("<meta name=\"description\" content=\"")
            .map(|at| at + "<meta name=\"description\" content=\"".len())
            .and_then(|at| {
                html[at..]
                    .find('"')
                    .map(|end| html[at..at + end].to_owned())
            });
        Ok(PageTemplate {
            before_head: html[..head_end].to_owned(),
            head_until_title: html[head_end..title_start].to_owned(),
            after_title_until_body: html[title_end..body_open_end].to_owned(),
            description,
            after_body: html[body_end..].to_owned(),
        })
    }

    /// The whole page: the template's head with `page`'s title, description and base, and `page`'s body.
    pub fn render(&self, page: &Page) -> String {
        let mut head = self.head_until_title.clone();
        if let (Some(own), Some(template)) = (&page.description, &self.description) {
            head = head.replacen(
                &format!("content=\"{template}\""),
                &format!("content=\"{}\"", escape_attribute(own)),
                1,
            );
        }
        // First in <head>: every relative URL after it resolves against the base.
        let base = page
            .base
            .map(|href| format!("<base href=\"{href}\">"))
            .unwrap_or_default();
        format!(
            "{}{base}{head}<title>{}</title>{}{} data-page=\"{}\">\n{}\n{}",
            self.before_head,
            escape_text(&page.title),
            page.head,
            self.after_title_until_body,
            page.kind,
            page.body,
            self.after_body
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRUNK: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n  <head>\n    <meta charset=\"utf-8\" />\n    <meta name=\"description\" content=\"The course.\" />\n    <title>goodput</title>\n<script type=\"module\">import init from './x.js';</script>\n  </head>\n  <body>\n    <noscript>old</noscript>\n  </body>\n</html>\n";

    #[test]
    fn a_page_keeps_the_head_and_replaces_title_description_and_body() {
        let template = PageTemplate::parse(TRUNK).unwrap();
        let page = Page {
            path: "lessons/x/index.html".into(),
            title: "Latency & SLOs · goodput".into(),
            description: Some("Why \"p99\" tears away.".into()),
            base: Some("../../"),
            head: String::new(),
            kind: "lesson",
            body: "<main>Hello</main>".into(),
        };
        let html = template.render(&page);
        assert!(
            html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n  <head><base href=\"../../\">")
        );
        assert!(html.contains("<title>Latency &amp; SLOs · goodput</title>"));
        assert!(html.contains("content=\"Why &quot;p99&quot; tears away.\""));
        assert!(html.contains("<script type=\"module\">import init from './x.js';</script>"));
        assert!(html.contains("<body data-page=\"lesson\">\n<main>Hello</main>\n</body>\n</html>"));
        assert!(
            !html.contains("noscript"),
            "the old body is replaced: {html}"
        );
    }

    #[test]
    fn a_template_without_a_body_is_refused_by_name() {
        let error = PageTemplate::parse("<html><head><title>x</title></head></html>").unwrap_err();
        assert!(error.to_string().contains("<body>"), "{error}");
    }
}
