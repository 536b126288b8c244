//! The `+++` TOML front matter at the top of a lesson.

use serde::Deserialize;

/// The front matter as written; `objectives` are inline markdown, rendered later.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FrontMatter {
    pub title: String,
    pub number: u32,
    pub slug: String,
    pub summary: String,
    pub objectives: Vec<String>,
    pub minutes: u32,
}

/// What the front matter must say, for error messages.
pub(super) const FIELDS_HINT: &str =
    "front matter is TOML between `+++` lines with title, number, slug, summary, objectives = [..] and minutes";

/// Parses the front matter text; on error, the byte offset in `text` and the message.
pub(super) fn parse(text: &str) -> Result<FrontMatter, (usize, String)> {
    toml::from_str(text).map_err(|e: toml::de::Error| {
        let offset = e.span().map_or(0, |span| span.start);
        (
            offset,
            format!(
                "bad front matter: {}; {FIELDS_HINT}",
                e.message().trim_end()
            ),
        )
    })
}

/// The `NN` and `slug` that a file name `NN-slug.md` promises.
pub(super) fn expected_from_file_name(file: &str) -> Option<(u32, String)> {
    let name = file.rsplit('/').next()?.strip_suffix(".md")?;
    let (number, slug) = name.split_once('-')?;
    Some((number.parse().ok()?, slug.to_string()))
}
