//! Directive fences: ```` ```@name ```` with a TOML body, compiled into typed [`Block`]s.

use super::markdown::LessonBuilder;
use super::CompileError;
use crate::lesson::{
    Analogy, Axis, Block, CheckYourself, ChoiceOption, ExplainToColleague, Html, Keyword, Keywords,
    MathDecoded, PredictAnswer, PredictStep, RecallCard, SettingValue, SpeakerNotes, SymbolMeaning,
    Tldr, Tolerance, WidgetEmbed, WidgetName,
};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// Every directive, with the fields it takes, for documentation and error messages.
pub(super) const DIRECTIVES: [(&str, &str); 10] = [
    ("tldr", "text"),
    ("analogy", "title, body"),
    ("keywords", "[[terms]] with term, meaning"),
    (
        "math-decoded",
        "formula, [[legend]] with symbol, meaning; optional note",
    ),
    ("recall", "id, prompt, answer"),
    (
        "predict",
        "id, title, question, type, reveal, and the fields of its type",
    ),
    ("check-yourself", "questions"),
    ("explain", "prompt, answer"),
    ("speaker-notes", "notes"),
    ("widget", "name; optional id, caption, [settings]"),
];

/// A text field that may hold inline markdown; the span gives its line.
type Text = Spanned<String>;

/// Where a directive's TOML body sits in the lesson, to turn TOML spans into lesson lines.
struct Body<'b> {
    text: &'b str,
    fence_line: usize,
}

impl Body<'_> {
    /// The lesson line of a byte offset in the body (the body starts on the line after the fence).
    fn line(&self, offset: usize) -> usize {
        self.fence_line
            + 1
            + self.text[..offset.min(self.text.len())]
                .matches('\n')
                .count()
    }
}

/// Compiles the directive `name` whose fence opens on `fence_line`.
pub(super) fn compile(
    b: &mut LessonBuilder,
    name: &str,
    text: &str,
    fence_line: usize,
) -> Result<Block, CompileError> {
    let body = Body { text, fence_line };
    let mut directive = Directive { b, body, name };
    match name {
        "tldr" => directive.tldr(),
        "analogy" => directive.analogy(),
        "keywords" => directive.keywords(),
        "math-decoded" => directive.math_decoded(),
        "recall" => directive.recall(),
        "predict" => directive.predict(),
        "check-yourself" => directive.check_yourself(),
        "explain" => directive.explain(),
        "speaker-notes" => directive.speaker_notes(),
        "widget" => directive.widget(),
        _ => {
            let known = DIRECTIVES
                .iter()
                .map(|(name, _)| format!("@{name}"))
                .collect::<Vec<_>>()
                .join(", ");
            Err(directive.b.error(
                fence_line,
                format!("unknown directive `@{name}`; use one of {known}, or drop the `@` for a plain code block"),
            ))
        }
    }
}

/// One directive being compiled.
struct Directive<'x, 'a, 'b> {
    b: &'x mut LessonBuilder<'a>,
    body: Body<'b>,
    name: &'b str,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TldrSource {
    text: Text,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalogySource {
    title: String,
    body: Text,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeywordsSource {
    terms: Vec<TermSource>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TermSource {
    term: String,
    meaning: Text,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MathDecodedSource {
    formula: Text,
    legend: Vec<LegendSource>,
    note: Option<Text>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LegendSource {
    symbol: Text,
    meaning: Text,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecallSource {
    id: Text,
    prompt: Text,
    answer: Text,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PredictSource {
    id: Text,
    title: String,
    question: Text,
    #[serde(rename = "type")]
    kind: Text,
    reveal: Text,
    options: Option<Vec<OptionSource>>,
    answer: Option<f64>,
    tolerance: Option<f64>,
    relative_tolerance: Option<f64>,
    unit: Option<String>,
    x: Option<AxisSource>,
    y: Option<AxisSource>,
    curve: Option<Vec<[f64; 2]>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OptionSource {
    label: Text,
    #[serde(default)]
    correct: bool,
    explanation: Text,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AxisSource {
    label: String,
    #[serde(default)]
    unit: String,
    min: f64,
    max: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckYourselfSource {
    questions: Vec<Text>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExplainSource {
    prompt: Text,
    answer: Text,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpeakerNotesSource {
    notes: Text,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WidgetSource {
    id: Option<Text>,
    name: Text,
    caption: Option<String>,
    #[serde(default)]
    settings: BTreeMap<String, SettingValue>,
}

impl Directive<'_, '_, '_> {
    /// Parses the TOML body into `T`, pointing errors at the offending line.
    fn parse<T: DeserializeOwned>(&self) -> Result<T, CompileError> {
        toml::from_str(self.body.text).map_err(|e: toml::de::Error| {
            let line = e
                .span()
                .map_or(self.body.fence_line, |span| self.body.line(span.start));
            let fields = DIRECTIVES
                .iter()
                .find(|(name, _)| *name == self.name)
                .map_or("", |(_, fields)| fields);
            let what = e.message().trim_end().trim_end_matches('.');
            self.error(
                line,
                format!(
                    "in `@{}`: {what}; its TOML body takes {fields} (see lessons/README.md)",
                    self.name
                ),
            )
        })
    }

    fn error(&self, line: usize, message: impl Into<String>) -> CompileError {
        self.b.error(line, message)
    }

    /// The lesson line where a spanned value starts.
    fn line_of<T>(&self, value: &Spanned<T>) -> usize {
        self.body.line(value.span().start)
    }

    /// Renders an inline-markdown field.
    fn text(&mut self, field: &Text) -> Result<Html, CompileError> {
        let line = self.line_of(field);
        self.b.inline(field.get_ref(), line)
    }

    /// Claims a directive id, which must be usable as an anchor.
    fn id(&mut self, id: &Text) -> Result<String, CompileError> {
        let line = self.line_of(id);
        let value = id.get_ref();
        let valid = !value.is_empty()
            && value
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !valid {
            return Err(self.error(line, format!("the id `{value}` must be lowercase letters, digits and hyphens, e.g. `recall-knee`")));
        }
        self.b.claim_id(value, line)?;
        Ok(value.clone())
    }

    fn tldr(&mut self) -> Result<Block, CompileError> {
        let source: TldrSource = self.parse()?;
        Ok(Block::Tldr(Tldr {
            text: self.text(&source.text)?,
        }))
    }

    fn analogy(&mut self) -> Result<Block, CompileError> {
        let source: AnalogySource = self.parse()?;
        Ok(Block::Analogy(Analogy {
            title: source.title,
            body: self.text(&source.body)?,
        }))
    }

    fn keywords(&mut self) -> Result<Block, CompileError> {
        let source: KeywordsSource = self.parse()?;
        let terms = source
            .terms
            .iter()
            .map(|term| {
                Ok(Keyword {
                    term: term.term.clone(),
                    meaning: self.text(&term.meaning)?,
                })
            })
            .collect::<Result<_, CompileError>>()?;
        Ok(Block::Keywords(Keywords { terms }))
    }

    fn math_decoded(&mut self) -> Result<Block, CompileError> {
        let source: MathDecodedSource = self.parse()?;
        let formula = self.b.math(
            source.formula.get_ref(),
            true,
            self.line_of(&source.formula),
        )?;
        let legend = source
            .legend
            .iter()
            .map(|row| {
                let symbol = self
                    .b
                    .math(row.symbol.get_ref(), false, self.line_of(&row.symbol))?;
                Ok(SymbolMeaning {
                    symbol,
                    meaning: self.text(&row.meaning)?,
                })
            })
            .collect::<Result<_, CompileError>>()?;
        let note = source
            .note
            .as_ref()
            .map(|note| self.text(note))
            .transpose()?;
        Ok(Block::MathDecoded(MathDecoded {
            formula,
            legend,
            note,
        }))
    }

    fn recall(&mut self) -> Result<Block, CompileError> {
        let source: RecallSource = self.parse()?;
        Ok(Block::RecallCard(RecallCard {
            id: self.id(&source.id)?,
            prompt: self.text(&source.prompt)?,
            answer: self.text(&source.answer)?,
        }))
    }

    fn predict(&mut self) -> Result<Block, CompileError> {
        let source: PredictSource = self.parse()?;
        let id = self.id(&source.id)?;
        let answer = self.predict_answer(&source)?;
        Ok(Block::Predict(PredictStep {
            id,
            title: source.title,
            question: self.text(&source.question)?,
            answer,
            reveal: self.text(&source.reveal)?,
        }))
    }

    /// Checks that the fields of the predict step's `type` are there and make sense.
    fn predict_answer(&mut self, source: &PredictSource) -> Result<PredictAnswer, CompileError> {
        let line = self.line_of(&source.kind);
        let missing = |field: &str| {
            format!(
                "a `{}` predict step needs `{field}`; add it (see lessons/README.md)",
                source.kind.get_ref()
            )
        };
        match source.kind.get_ref().as_str() {
            "multiple-choice" => {
                let options = source.options.as_ref().ok_or_else(|| self.error(line, missing("[[options]]")))?;
                if options.len() < 2 || options.iter().filter(|option| option.correct).count() != 1 {
                    return Err(self.error(line, "a multiple-choice step needs at least two [[options]] and exactly one with `correct = true`"));
                }
                let options = options
                    .iter()
                    .map(|option| {
                        Ok(ChoiceOption {
                            label: self.text(&option.label)?,
                            correct: option.correct,
                            explanation: self.text(&option.explanation)?,
                        })
                    })
                    .collect::<Result<_, CompileError>>()?;
                Ok(PredictAnswer::MultipleChoice { options })
            }
            "numeric-estimate" => {
                let answer = source.answer.ok_or_else(|| self.error(line, missing("answer")))?;
                let tolerance = match (source.tolerance, source.relative_tolerance) {
                    (Some(delta), None) => Tolerance::Absolute(delta),
                    (None, Some(fraction)) => Tolerance::Relative(fraction),
                    _ => return Err(self.error(line, "a numeric-estimate step needs exactly one of `tolerance` (in units) or `relative_tolerance` (0.1 = ±10%)")),
                };
                Ok(PredictAnswer::NumericEstimate { answer, tolerance, unit: source.unit.clone().unwrap_or_default() })
            }
            "chart-prediction" => {
                let axis = |axis: &Option<AxisSource>, name: &str| {
                    axis.as_ref()
                        .map(|a| Axis { label: a.label.clone(), unit: a.unit.clone(), min: a.min, max: a.max })
                        .ok_or_else(|| self.error(line, missing(name)))
                };
                let (x, y) = (axis(&source.x, "[x]")?, axis(&source.y, "[y]")?);
                let curve = source.curve.clone().filter(|curve| curve.len() >= 2);
                let curve = curve.ok_or_else(|| self.error(line, missing("curve = [[x, y], ...] with at least two points")))?;
                Ok(PredictAnswer::ChartPrediction { x, y, curve })
            }
            "recall" => Ok(PredictAnswer::Recall),
            other => Err(self.error(
                line,
                format!("unknown predict type `{other}`; use multiple-choice, numeric-estimate, chart-prediction or recall"),
            )),
        }
    }

    fn check_yourself(&mut self) -> Result<Block, CompileError> {
        let source: CheckYourselfSource = self.parse()?;
        let questions = source
            .questions
            .iter()
            .map(|q| self.text(q))
            .collect::<Result<_, _>>()?;
        Ok(Block::CheckYourself(CheckYourself { questions }))
    }

    fn explain(&mut self) -> Result<Block, CompileError> {
        let source: ExplainSource = self.parse()?;
        Ok(Block::ExplainToColleague(ExplainToColleague {
            prompt: self.text(&source.prompt)?,
            answer: self.text(&source.answer)?,
        }))
    }

    fn speaker_notes(&mut self) -> Result<Block, CompileError> {
        let source: SpeakerNotesSource = self.parse()?;
        Ok(Block::SpeakerNotes(SpeakerNotes {
            notes: self.text(&source.notes)?,
        }))
    }

    fn widget(&mut self) -> Result<Block, CompileError> {
        let source: WidgetSource = self.parse()?;
        let name = WidgetName::from_name(source.name.get_ref()).ok_or_else(|| {
            let known = WidgetName::ALL.map(WidgetName::as_str).join(", ");
            self.error(
                self.line_of(&source.name),
                format!(
                    "unknown widget `{}`; known widgets: {known}",
                    source.name.get_ref()
                ),
            )
        })?;
        let id = source.id.as_ref().map(|id| self.id(id)).transpose()?;
        Ok(Block::Widget(WidgetEmbed {
            id,
            name,
            caption: source.caption,
            settings: source.settings,
        }))
    }
}
