//! The markdown pass: walks pulldown-cmark events, refuses what a lesson may not contain, turns math into MathML and
//! code into highlighted HTML, gives headings anchors, and cuts the body into prose and directive blocks.

use super::{answers, directives, front_matter, highlight, links, CompileError, LessonContext};
use goodput_lesson::{Block, Html, Lesson, LessonMeta};
use pulldown_cmark::{
    CodeBlockKind, CowStr, Event, MetadataBlockKind, Options, Parser, Tag, TagEnd,
};
use std::collections::HashMap;
use std::ops::Range;

/// The markdown extensions a lesson may use.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS
        | Options::ENABLE_MATH
        | Options::ENABLE_GFM
}

/// What the event walk yields: prose to render, or a directive fence to compile.
enum Piece {
    Prose(Vec<Event<'static>>),
    Directive {
        name: String,
        body: String,
        line: usize,
    },
}

/// The state of compiling one lesson: where ids were claimed and which in-page links wait to be checked.
pub(super) struct LessonBuilder<'a> {
    file: &'a str,
    source: &'a str,
    line_starts: Vec<usize>,
    ids: HashMap<String, usize>,
    internal_links: Vec<(String, usize)>,
}

impl<'a> LessonBuilder<'a> {
    /// A builder for `source`, which errors will call `file`.
    pub(super) fn new(file: &'a str, source: &'a str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        LessonBuilder {
            file,
            source,
            line_starts,
            ids: HashMap::new(),
            internal_links: Vec::new(),
        }
    }

    /// An error at `line` of this lesson.
    fn error(&self, line: usize, message: impl Into<String>) -> CompileError {
        LessonContext::error(self, line, message.into())
    }

    /// The 1-based line of a byte offset in the lesson.
    fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    /// Compiles the whole lesson.
    pub(super) fn build(mut self) -> Result<Lesson, CompileError> {
        let source = self.source;
        let mut events = Parser::new_ext(source, options())
            .into_offset_iter()
            .peekable();
        let front_matter = match events.next() {
            Some((Event::Start(Tag::MetadataBlock(MetadataBlockKind::PlusesStyle)), _)) => {
                match events.next() {
                    Some((Event::Text(text), range)) => {
                        events.next(); // the closing `+++`
                        (text, range.start)
                    }
                    _ => (CowStr::Borrowed(""), 0),
                }
            }
            _ => {
                return Err(self.error(
                    1,
                    format!("missing front matter; {}", front_matter::FIELDS_HINT),
                ))
            }
        };
        let meta = self.meta(&front_matter.0, front_matter.1)?;

        let mut blocks = Vec::new();
        // Each `@answers` entry, with the number of blocks before it (its section).
        let mut declared = Vec::new();
        for piece in self.walk(events, &|offset| offset, true)? {
            match piece {
                Piece::Prose(events) => blocks.push(Block::Html(render(events))),
                Piece::Directive { name, body, line } if name == "answers" => {
                    let at = blocks.len();
                    declared.extend(
                        directives::answers(&mut self, &body, line)?
                            .into_iter()
                            .map(|entry| (at, entry)),
                    );
                }
                Piece::Directive { name, body, line } => {
                    blocks.push(directives::compile(&mut self, &name, &body, line)?)
                }
            }
        }
        self.check_internal_links()?;
        let answers = answers::resolve(&self, &meta.title, &blocks, declared)?;
        Ok(Lesson {
            meta,
            blocks,
            answers,
        })
    }

    /// Parses and checks the front matter that starts at byte `offset`.
    fn meta(&mut self, text: &str, offset: usize) -> Result<LessonMeta, CompileError> {
        let parsed = front_matter::parse(text)
            .map_err(|(at, message)| self.error(self.line_of(offset + at), message))?;
        let line_of_key = |key: &str| {
            let at = text
                .find(&format!("{key} "))
                .or_else(|| text.find(key))
                .unwrap_or(0);
            self.line_of(offset + at)
        };
        if let Some((number, slug)) = front_matter::expected_from_file_name(self.file) {
            if parsed.number != number {
                return Err(self.error(
                    line_of_key("number"),
                    format!("front matter says number = {} but the file name says {number}; make them agree", parsed.number),
                ));
            }
            if parsed.slug != slug {
                return Err(self.error(
                    line_of_key("slug"),
                    format!("front matter says slug = \"{}\" but the file name says \"{slug}\"; make them agree", parsed.slug),
                ));
            }
        } else {
            return Err(self.error(
                1,
                "a lesson file is named `NN-slug.md`, e.g. `32-latency-throughput-slos.md`",
            ));
        }
        let objectives_line = line_of_key("objectives");
        let objectives = parsed
            .objectives
            .iter()
            .map(|objective| self.inline(objective, objectives_line))
            .collect::<Result<_, _>>()?;
        Ok(LessonMeta {
            slug: parsed.slug,
            number: parsed.number,
            title: parsed.title,
            summary: parsed.summary,
            objectives,
            minutes: parsed.minutes,
        })
    }

    /// Walks markdown events: checks and converts them, and cuts out directive fences. `offset_base` maps an
    /// event's offset to an offset in the lesson, for line numbers.
    fn walk<'s>(
        &mut self,
        events: impl Iterator<Item = (Event<'s>, Range<usize>)>,
        offset_base: &dyn Fn(usize) -> usize,
        directives_allowed: bool,
    ) -> Result<Vec<Piece>, CompileError> {
        let mut pieces = Vec::new();
        let mut prose: Vec<Event<'static>> = Vec::new();
        let mut depth = 0usize;
        let mut events = events.peekable();
        while let Some((event, range)) = events.next() {
            let line = self.line_of(offset_base(range.start));
            match event {
                Event::Start(Tag::CodeBlock(kind)) => {
                    let info = match kind {
                        CodeBlockKind::Fenced(info) => info.trim().to_string(),
                        CodeBlockKind::Indented => String::new(),
                    };
                    let mut code = String::new();
                    for (event, _) in events.by_ref() {
                        match event {
                            Event::Text(text) => code.push_str(&text),
                            Event::End(TagEnd::CodeBlock) => break,
                            _ => {}
                        }
                    }
                    if let Some(name) = info.strip_prefix('@') {
                        if !directives_allowed || depth > 0 {
                            return Err(self.error(line, format!("the `@{name}` directive must stand on its own at the top level, not inside a list, quote or another directive")));
                        }
                        pieces.push(Piece::Prose(std::mem::take(&mut prose)));
                        pieces.push(Piece::Directive {
                            name: name.to_string(),
                            body: code,
                            line,
                        });
                    } else {
                        let language = info.split_whitespace().next().unwrap_or("text");
                        let html = highlight::code_block(&code, language).map_err(|e| {
                            self.error(
                                line,
                                format!("cannot highlight this `{language}` block: {e}"),
                            )
                        })?;
                        prose.push(Event::Html(html.into()));
                    }
                }
                Event::Start(Tag::Heading {
                    level,
                    id,
                    classes,
                    attrs,
                }) => {
                    let mut inner = Vec::new();
                    let mut text = String::new();
                    for (event, range) in events.by_ref() {
                        match &event {
                            Event::End(TagEnd::Heading(_)) => break,
                            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) => {
                                text.push_str(t)
                            }
                            _ => {}
                        }
                        inner.push((event, range));
                    }
                    let anchor = match self.heading_id(id, &classes, &attrs, line)? {
                        Some(id) => id,
                        None => links::heading_anchor(&text),
                    };
                    if !anchor.is_empty() {
                        self.claim_id(&anchor, line)?;
                    }
                    let self_link = (!anchor.is_empty()).then(|| heading_self_link(&anchor, &text));
                    let id = (!anchor.is_empty()).then(|| CowStr::from(anchor));
                    prose.push(Event::Start(Tag::Heading {
                        level,
                        id,
                        classes: Vec::new(),
                        attrs: Vec::new(),
                    }));
                    for (event, range) in inner {
                        prose.push(self.check(event, self.line_of(offset_base(range.start)))?);
                    }
                    if let Some(self_link) = self_link {
                        prose.push(Event::Html(self_link.into()));
                    }
                    prose.push(Event::End(TagEnd::Heading(level)));
                }
                Event::Start(tag) => {
                    depth += 1;
                    if matches!(tag, Tag::Table(_)) {
                        prose.push(Event::Html(SCROLL_X_OPEN.into()));
                    }
                    prose.push(self.check(Event::Start(tag), line)?);
                }
                Event::End(tag) => {
                    depth = depth.saturating_sub(1);
                    let closes_table = tag == TagEnd::Table;
                    prose.push(Event::End(tag));
                    if closes_table {
                        prose.push(Event::Html(SCROLL_X_CLOSE.into()));
                    }
                }
                other => prose.push(self.check(other, line)?),
            }
        }
        pieces.push(Piece::Prose(prose));
        pieces.retain(|piece| !matches!(piece, Piece::Prose(events) if events.is_empty()));
        Ok(pieces)
    }

    /// Refuses raw HTML and unsafe links, records in-page links, and renders math; everything else passes.
    fn check<'s>(&mut self, event: Event<'s>, line: usize) -> Result<Event<'static>, CompileError> {
        match event {
            Event::Html(html) | Event::InlineHtml(html) => Err(self.error(
                line,
                format!(
                    "raw HTML is not allowed in a lesson (found `{}`); write markdown, or use a directive (lessons/README.md) for anything interactive",
                    html.trim().chars().take(40).collect::<String>()
                ),
            )),
            Event::Start(Tag::HtmlBlock) => Err(self.error(line, "raw HTML is not allowed in a lesson; write markdown, or use a directive (lessons/README.md) for anything interactive")),
            Event::InlineMath(latex) => Ok(Event::InlineHtml(self.math(&latex, false, line)?.0.into())),
            Event::DisplayMath(latex) => {
                let mathml = self.math(&latex, true, line)?.0;
                Ok(Event::InlineHtml(format!("{SCROLL_X_OPEN}{mathml}{SCROLL_X_CLOSE}").into()))
            }
            Event::Start(Tag::Link { ref dest_url, .. }) | Event::Start(Tag::Image { ref dest_url, .. }) => {
                if let Some(scheme) = links::refused_scheme(dest_url) {
                    return Err(self.error(
                        line,
                        format!("the link `{dest_url}` uses the `{scheme}:` scheme; only http, https, mailto, #anchors and relative links are allowed"),
                    ));
                }
                if let Some(anchor) = dest_url.strip_prefix('#') {
                    self.internal_links.push((anchor.to_string(), line));
                }
                Ok(event.into_static())
            }
            other => Ok(other.into_static()),
        }
    }

    /// Every `#anchor` link must name a heading or a directive id of this lesson.
    fn check_internal_links(&self) -> Result<(), CompileError> {
        for (anchor, line) in &self.internal_links {
            if !self.ids.contains_key(anchor) {
                return Err(self.error(
                    *line,
                    format!("the link `#{anchor}` matches no heading or id in this lesson; a heading `## The knee` is `#the-knee`, or give the target an `id`"),
                ));
            }
        }
        Ok(())
    }

    /// The id a heading's `{#id}` gives it, if any. Lessons are contributed text, so a heading takes nothing else (no
    /// class, no attribute such as `onclick`), and its id only characters that are safe in an `href` and a selector.
    fn heading_id(
        &self,
        id: Option<CowStr<'_>>,
        classes: &[CowStr<'_>],
        attrs: &[(CowStr<'_>, Option<CowStr<'_>>)],
        line: usize,
    ) -> Result<Option<String>, CompileError> {
        let refused = classes
            .iter()
            .map(|class| format!(".{class}"))
            .chain(attrs.iter().map(|(key, _)| key.to_string()))
            .next();
        if let Some(refused) = refused {
            return Err(self.error(
                line,
                format!("a heading takes only an id, as `{{#some-id}}`, not `{refused}`; the lesson's look comes from the course's styles"),
            ));
        }
        let Some(id) = id else { return Ok(None) };
        let safe = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if id.is_empty() || !id.chars().all(safe) {
            return Err(self.error(
                line,
                format!("the heading id `{id}` may hold only letters A–Z and a–z, digits, `-` and `_`, e.g. `{{#the-knee}}`"),
            ));
        }
        Ok(Some(id.to_string()))
    }
}

impl LessonContext for LessonBuilder<'_> {
    fn error(&self, line: usize, message: String) -> CompileError {
        CompileError {
            file: self.file.to_string(),
            line,
            message,
        }
    }

    fn inline(&mut self, text: &str, line: usize) -> Result<Html, CompileError> {
        let events = Parser::new_ext(text, options()).into_offset_iter();
        let base = self.line_starts[line - 1];
        // Every event of a field reports the field's own line: `walk` maps offsets back through `base`.
        let pieces = self.walk(events, &|_| base, false)?;
        let html = render(
            pieces
                .into_iter()
                .flat_map(|piece| match piece {
                    Piece::Prose(events) => events,
                    Piece::Directive { .. } => Vec::new(), // `walk` refuses directives when they are not allowed
                })
                .collect(),
        );
        let trimmed = html.0.trim_end();
        let single_paragraph = trimmed.starts_with("<p>")
            && trimmed.ends_with("</p>")
            && trimmed.matches("<p>").count() == 1;
        Ok(if single_paragraph {
            Html(trimmed[3..trimmed.len() - 4].to_string())
        } else {
            html
        })
    }

    fn claim_id(&mut self, id: &str, line: usize) -> Result<(), CompileError> {
        if let Some(first) = self.ids.get(id) {
            return Err(self.error(
                line,
                format!("duplicate id `{id}`, already used on line {first}; rename one (a heading can take another with `{{#new-id}}`)"),
            ));
        }
        self.ids.insert(id.to_string(), line);
        Ok(())
    }
}

/// Wide tables and formulas scroll sideways on a phone; `tabindex` lets a keyboard user scroll them too. A `span`
/// (styled as a block) because display math sits inside a paragraph.
const SCROLL_X_OPEN: &str = "<span class=\"scroll-x\" tabindex=\"0\">";
const SCROLL_X_CLOSE: &str = "</span>";

/// A `#` link after a heading's text, so a reader can copy a link to the section.
fn heading_self_link(id: &str, heading_text: &str) -> String {
    let label = heading_text
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;");
    format!(" <a class=\"heading-anchor\" href=\"#{id}\" aria-label=\"Link to this section: {label}\">#</a>")
}

/// Renders checked events to HTML.
fn render(events: Vec<Event<'static>>) -> Html {
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    Html(alignment_as_class(html))
}

/// pulldown-cmark writes a GFM table column's alignment as `style="text-align: …"`, which the page's
/// Content-Security-Policy (`style-src 'self'`, no inline styles) refuses; `style/lesson.css` styles these classes
/// instead. Only whole `<th`/`<td` tags are rewritten: lesson text cannot forge one, since `<` in text is escaped.
fn alignment_as_class(html: String) -> String {
    let mut html = html;
    for cell in ["th", "td"] {
        for side in ["left", "center", "right"] {
            html = html.replace(
                &format!("<{cell} style=\"text-align: {side}\">"),
                &format!("<{cell} class=\"align-{side}\">"),
            );
        }
    }
    html
}
