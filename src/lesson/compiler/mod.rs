//! The lesson compiler: `lessons/NN-slug.md` (TOML front matter, CommonMark + GFM, math, `@directive` fences) into a
//! typed [`Lesson`]. Runs in `build.rs` and in native tests, never in the wasm.
//!
//! Every problem is a [`CompileError`] that prints as `lessons/FILE.md:LINE: what is wrong and how to fix it`.
//!
//! Two passes share one lesson: `markdown` walks the text and hands each `@directive` fence to `directives`,
//! which reaches the lesson only through the `LessonContext` the markdown pass implements.

mod answers;
mod directives;
mod front_matter;
mod highlight;
mod links;
mod markdown;
mod math;

use goodput_lesson::{Html, Lesson};
use std::fmt;
use std::path::Path;

/// A problem in a lesson file, pointing at the author's line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// The file as the author knows it, e.g. `lessons/32-latency-throughput-slos.md`.
    pub file: String,
    /// 1-based line in that file.
    pub line: usize,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for CompileError {}

/// What compiling a directive needs from the lesson around it: errors that name the lesson's line, ids unique in
/// the lesson, and text fields rendered as the lesson's own markdown and math are.
trait LessonContext {
    /// An error at `line` of this lesson.
    fn error(&self, line: usize, message: String) -> CompileError;

    /// Renders a text field (inline markdown) found at `line`; a single paragraph loses its `<p>`.
    fn inline(&mut self, text: &str, line: usize) -> Result<Html, CompileError>;

    /// Records that `id` is defined at `line`; ids (heading anchors and directive ids) are unique in a lesson.
    fn claim_id(&mut self, id: &str, line: usize) -> Result<(), CompileError>;

    /// Renders LaTeX found at `line` as MathML.
    fn math(&self, latex: &str, display: bool, line: usize) -> Result<Html, CompileError> {
        math::to_mathml(latex, display).map(Html).map_err(|e| {
            self.error(line, format!("cannot render the math `{latex}`: {e}; check the LaTeX (MathML supports the usual commands)"))
        })
    }
}

/// Compiles the text of one lesson. `file` names it in errors (e.g. `lessons/32-latency-throughput-slos.md`) and
/// must end in `NN-slug.md`, which the front matter has to agree with.
pub fn compile_lesson(file: &str, source: &str) -> Result<Lesson, CompileError> {
    markdown::LessonBuilder::new(file, source).build()
}

/// Compiles every `*.md` in `dir` except `README.md`, sorted by lesson number. `shown_dir` is how errors name the
/// directory (e.g. `lessons`). Two lessons with the same number or slug are an error.
pub fn compile_dir(dir: &Path, shown_dir: &str) -> Result<Vec<Lesson>, CompileError> {
    let unreadable = |line, message: String| CompileError {
        file: shown_dir.to_string(),
        line,
        message,
    };
    let entries = std::fs::read_dir(dir)
        .map_err(|e| unreadable(0, format!("cannot read the lessons folder: {e}")))?;
    let mut paths: Vec<_> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .filter(|path| path.file_name().is_some_and(|name| name != "README.md"))
        .collect();
    paths.sort();

    let mut lessons: Vec<(String, Lesson)> = Vec::new();
    for path in paths {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let file = format!("{shown_dir}/{name}");
        let source = std::fs::read_to_string(&path)
            .map_err(|e| unreadable(0, format!("cannot read {file}: {e}")))?;
        let lesson = compile_lesson(&file, &source)?;
        if let Some((other, _)) = lessons.iter().find(|(_, seen)| {
            seen.meta.number == lesson.meta.number || seen.meta.slug == lesson.meta.slug
        }) {
            return Err(CompileError {
                file,
                line: 1,
                message: format!(
                    "lesson number {} or slug `{}` is already used by {other}; every lesson needs its own number and slug",
                    lesson.meta.number, lesson.meta.slug
                ),
            });
        }
        lessons.push((file, lesson));
    }
    lessons.sort_by_key(|(_, lesson)| lesson.meta.number);
    Ok(lessons.into_iter().map(|(_, lesson)| lesson).collect())
}
