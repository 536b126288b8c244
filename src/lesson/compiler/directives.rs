//! Directive fences: ```` ```@name ```` with a TOML body, compiled into typed [`Block`]s.

use super::answers::DeclaredAnswer;
use super::{CompileError, LessonContext};
use goodput_lesson::{
    Analogy, Block, ChartTarget, CheckYourself, ChoiceOption, ExplainToColleague, Html, Keyword,
    Keywords, LoadRange, MathDecoded, PredictAnswer, PredictStep, QuestionKind, RecallCard,
    SettingValue, SpeakerNotes, SymbolMeaning, Task, TaskList, Tldr, Tolerance, WidgetEmbed,
    WidgetName,
};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// Every directive, with the fields it takes, for documentation and error messages.
pub(super) const DIRECTIVES: [(&str, &str); 12] = [
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
    ("tasks", "id, title, [[tasks]] with id, label"),
    ("answers", "[[questions]] with passage, kind, asks"),
];

/// The most loads a chart prediction may simulate: each is one run of the model on the learner's machine.
const MAX_CHART_LOADS: usize = 60;

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
    b: &mut dyn LessonContext,
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
        "tasks" => directive.tasks(),
        _ => {
            let known = DIRECTIVES
                .iter()
                .map(|(name, _)| format!("@{name}"))
                .collect::<Vec<_>>()
                .join(", ");
            Err(directive.error(
                fence_line,
                format!("unknown directive `@{name}`; use one of {known}, or drop the `@` for a plain code block"),
            ))
        }
    }
}

/// Compiles an `@answers` block whose fence opens on `fence_line`: what the passages beside it answer. The quotes
/// are checked against the lesson's passages once the whole lesson is compiled (`super::answers`).
pub(super) fn answers(
    b: &mut dyn LessonContext,
    text: &str,
    fence_line: usize,
) -> Result<Vec<DeclaredAnswer>, CompileError> {
    let body = Body { text, fence_line };
    let directive = Directive {
        b,
        body,
        name: "answers",
    };
    let source: AnswersSource = directive.parse()?;
    if source.questions.is_empty() {
        return Err(directive.error(fence_line, "an `@answers` block needs at least one [[questions]] entry with `passage`, `kind` and `asks`"));
    }
    source
        .questions
        .iter()
        .map(|entry| {
            let kind = QuestionKind::from_name(entry.kind.get_ref()).ok_or_else(|| {
                let known = QuestionKind::DECLARED.map(QuestionKind::as_str).join(", ");
                directive.error(
                    directive.line_of(&entry.kind),
                    format!("unknown question kind `{}`; use one of {known}", entry.kind.get_ref()),
                )
            })?;
            let asks: Vec<String> = entry.asks.get_ref().iter().map(|ask| ask.trim().to_owned()).collect();
            if asks.is_empty() || asks.iter().any(String::is_empty) {
                return Err(directive.error(
                    directive.line_of(&entry.asks),
                    "`asks` lists the questions the passage answers, in a learner's words: at least one, none empty",
                ));
            }
            Ok(DeclaredAnswer {
                quote: entry.passage.get_ref().clone(),
                line: directive.line_of(&entry.passage),
                kind,
                asks,
            })
        })
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswersSource {
    #[serde(default)]
    questions: Vec<AnswerSource>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerSource {
    passage: Text,
    kind: Text,
    asks: Spanned<Vec<String>>,
}

/// One directive being compiled.
struct Directive<'x, 'b> {
    b: &'x mut dyn LessonContext,
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
    target: Option<Text>,
    from: Option<f64>,
    to: Option<f64>,
    step: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OptionSource {
    label: Text,
    #[serde(default)]
    correct: bool,
    explanation: Option<Text>,
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
struct TasksSource {
    id: Text,
    title: String,
    tasks: Vec<TaskSource>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskSource {
    id: Text,
    label: Text,
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

impl Directive<'_, '_> {
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
        self.b.error(line, message.into())
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
        let kind = source.kind.get_ref().as_str();
        let fields: [(&str, bool); 9] = [
            ("options", source.options.is_some()),
            ("answer", source.answer.is_some()),
            ("tolerance", source.tolerance.is_some()),
            ("relative_tolerance", source.relative_tolerance.is_some()),
            ("unit", source.unit.is_some()),
            ("target", source.target.is_some()),
            ("from", source.from.is_some()),
            ("to", source.to.is_some()),
            ("step", source.step.is_some()),
        ];
        let allowed: Option<&[&str]> = match kind {
            "multiple-choice" => Some(&["options"]),
            "numeric-estimate" => Some(&["answer", "tolerance", "relative_tolerance", "unit"]),
            "chart-prediction" => Some(&["target", "from", "to", "step", "tolerance"]),
            "recall" => Some(&[]),
            _ => None, // reported below with the known types
        };
        let stray = allowed.and_then(|allowed| {
            fields
                .iter()
                .find(|(field, present)| *present && !allowed.contains(field))
        });
        if let Some((stray, _)) = stray {
            return Err(self.error(line, format!("`{stray}` is not a field of a `{kind}` predict step; remove it or change `type` (see lessons/README.md)")));
        }
        match kind {
            "multiple-choice" => {
                let options = source.options.as_ref().ok_or_else(|| self.error(line, missing("[[options]]")))?;
                let right = options.iter().filter(|option| option.correct).count();
                if options.len() < 2 || right == 0 || right == options.len() {
                    return Err(self.error(line, "a multiple-choice step needs at least two [[options]]: at least one with `correct = true` and at least one without"));
                }
                let options = options
                    .iter()
                    .map(|option| {
                        Ok(ChoiceOption {
                            label: self.text(&option.label)?,
                            correct: option.correct,
                            explanation: option.explanation.as_ref().map(|e| self.text(e)).transpose()?,
                        })
                    })
                    .collect::<Result<_, CompileError>>()?;
                Ok(PredictAnswer::MultipleChoice { options })
            }
            "numeric-estimate" => {
                let answer = source.answer.ok_or_else(|| self.error(line, missing("answer")))?;
                let tolerance = match (source.tolerance, source.relative_tolerance) {
                    (Some(delta), None) if delta >= 0.0 => Tolerance::Absolute(delta),
                    (None, Some(fraction)) if fraction >= 0.0 => Tolerance::Relative(fraction),
                    _ => return Err(self.error(line, "a numeric-estimate step needs exactly one of `tolerance` (in units) or `relative_tolerance` (0.1 = ±10%), not negative")),
                };
                Ok(PredictAnswer::NumericEstimate { answer, tolerance, unit: source.unit.clone().unwrap_or_default() })
            }
            "chart-prediction" => self.chart_prediction(source, line),
            "recall" => Ok(PredictAnswer::Recall),
            other => Err(self.error(
                line,
                format!("unknown predict type `{other}`; use multiple-choice, numeric-estimate, chart-prediction or recall"),
            )),
        }
    }

    /// A chart prediction: what to mark, the loads to simulate (in % of capacity) and the tolerance (in points).
    fn chart_prediction(
        &self,
        source: &PredictSource,
        line: usize,
    ) -> Result<PredictAnswer, CompileError> {
        let known = || ChartTarget::ALL.map(ChartTarget::as_str).join(", ");
        let target = source.target.as_ref().ok_or_else(|| {
            self.error(
                line,
                format!(
                    "a `chart-prediction` step needs `target`, one of {}",
                    known()
                ),
            )
        })?;
        let target = ChartTarget::from_name(target.get_ref()).ok_or_else(|| {
            self.error(
                self.line_of(target),
                format!(
                    "unknown chart target `{}`; use one of {}",
                    target.get_ref(),
                    known()
                ),
            )
        })?;
        let (Some(from), Some(to)) = (source.from, source.to) else {
            return Err(self.error(line, "a `chart-prediction` step needs `from` and `to`: the loads to simulate, in % of capacity (e.g. from = 80, to = 99)"));
        };
        let step = source.step.unwrap_or(1.0);
        if !(from > 0.0 && to > from && to <= 120.0 && step > 0.0) {
            return Err(self.error(line, format!("the loads from = {from} to = {to} in steps of {step} make no range; use 0 < from < to ≤ 120 (% of capacity) and step > 0")));
        }
        let loads = LoadRange {
            from: from / 100.0,
            to: to / 100.0,
            step: step / 100.0,
        };
        let count = loads.points().len();
        if count > MAX_CHART_LOADS {
            return Err(self.error(line, format!("from = {from} to = {to} in steps of {step} is {count} loads to simulate; at most {MAX_CHART_LOADS}, so widen `step`")));
        }
        let tolerance = source.tolerance.ok_or_else(|| {
            self.error(line, "a `chart-prediction` step needs `tolerance`: how many points of load off still count as right (e.g. tolerance = 2)")
        })?;
        if !(tolerance > 0.0 && tolerance < to - from) {
            return Err(self.error(line, format!("tolerance = {tolerance} must be above 0 and below the range's width ({} points)", to - from)));
        }
        Ok(PredictAnswer::ChartPrediction {
            target,
            loads,
            tolerance: tolerance / 100.0,
        })
    }

    fn tasks(&mut self) -> Result<Block, CompileError> {
        let source: TasksSource = self.parse()?;
        let id = self.id(&source.id)?;
        if source.tasks.is_empty() {
            return Err(self.error(
                self.line_of(&source.id),
                "a `@tasks` list needs at least one [[tasks]] entry with `id` and `label`",
            ));
        }
        let tasks = source
            .tasks
            .iter()
            .map(|task| {
                let line = self.line_of(&task.id);
                let value = task.id.get_ref();
                let valid = Task::is_valid_id(value);
                if !valid {
                    return Err(self.error(line, format!("the task id `{value}` must be lowercase letters, digits and hyphens, in parts separated by `/`, e.g. `knee-lab/p99-crosses-slo`")));
                }
                self.b.claim_id(value, line)?;
                Ok(Task { id: value.clone(), label: self.text(&task.label)? })
            })
            .collect::<Result<_, CompileError>>()?;
        Ok(Block::Tasks(TaskList {
            id,
            title: source.title,
            tasks,
        }))
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
