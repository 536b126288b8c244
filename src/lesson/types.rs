//! The typed lesson data shared by the build-time compiler and the page.
//!
//! Everything here is plain data: the compiler (`build.rs`) produces it from `lessons/*.md`, serialises it to JSON,
//! and the page deserialises it and renders it. Text fields that may carry inline markdown are stored as
//! [`Html`]: already sanitised (no raw HTML, allow-listed links), with math as MathML.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An HTML fragment produced by the lesson compiler: sanitised, links allow-listed, code highlighted with CSS
/// classes and math rendered to MathML. Safe to set as `inner_html`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Html(pub String);

impl Html {
    /// The fragment as a string, for `inner_html`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One compiled lesson: its front matter and its body, in reading order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    /// What the lesson is: number, slug, title and the rest of the front matter.
    pub meta: LessonMeta,
    /// The body, in reading order.
    pub blocks: Vec<Block>,
}

/// A lesson's front matter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonMeta {
    /// URL segment, `lessons/<slug>/`; matches the file name `NN-<slug>.md`.
    pub slug: String,
    /// Position in the course; matches the file name's `NN-` prefix.
    pub number: u32,
    /// Plain-text title.
    pub title: String,
    /// One plain-text sentence for the catalog.
    pub summary: String,
    /// "Today's win": what the learner can do after the lesson, one item each.
    pub objectives: Vec<Html>,
    /// Estimated reading and playing time.
    pub minutes: u32,
}

/// One piece of a lesson body: prose or a typed directive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "data", rename_all = "kebab-case")]
pub enum Block {
    /// Ordinary prose: paragraphs, headings (with `id` anchors), lists, tables, alerts, code and math.
    Html(Html),
    /// The one-sentence summary of a section.
    Tldr(Tldr),
    /// A callout mapping the idea onto something familiar.
    Analogy(Analogy),
    /// Terms whose plain meaning unfolds on tap.
    Keywords(Keywords),
    /// A formula with a legend of its symbols.
    MathDecoded(MathDecoded),
    /// A prompt whose answer stays hidden until the learner asks for it.
    RecallCard(RecallCard),
    /// A predict-then-reveal step.
    Predict(PredictStep),
    /// Questions to answer from memory.
    CheckYourself(CheckYourself),
    /// A sentence to finish in your own words, with a model answer.
    ExplainToColleague(ExplainToColleague),
    /// Notes for an instructor presenting the lesson; hidden from learners by default.
    SpeakerNotes(SpeakerNotes),
    /// An interactive widget embedded by name.
    Widget(WidgetEmbed),
}

/// A TL;DR line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tldr {
    /// The summary itself.
    pub text: Html,
}

/// An analogy callout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analogy {
    /// Short plain-text heading, e.g. "The pantry road".
    pub title: String,
    /// The analogy.
    pub body: Html,
}

/// A group of unfoldable keywords.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Keywords {
    /// The terms, in the order written.
    pub terms: Vec<Keyword>,
}

/// One keyword and its plain meaning.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Keyword {
    /// The term as the learner meets it, e.g. "TTFT".
    pub term: String,
    /// What it means, in plain words.
    pub meaning: Html,
}

/// A formula and the meaning of each symbol in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MathDecoded {
    /// The formula as display MathML.
    pub formula: Html,
    /// One row per symbol.
    pub legend: Vec<SymbolMeaning>,
    /// Optional sentence after the legend.
    pub note: Option<Html>,
}

/// One row of a [`MathDecoded`] legend.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolMeaning {
    /// The symbol as inline MathML.
    pub symbol: Html,
    /// What it stands for.
    pub meaning: Html,
}

/// A recall card: prompt visible, answer revealed on request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecallCard {
    /// Unique within the lesson; stable so progress can be remembered.
    pub id: String,
    /// What to recall.
    pub prompt: Html,
    /// The answer to check against.
    pub answer: Html,
}

/// A predict-then-reveal step: the learner commits to a guess, then sees the answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PredictStep {
    /// Unique within the lesson; stable so answers can be remembered.
    pub id: String,
    /// Short plain-text heading, e.g. "Step 3: the knee".
    pub title: String,
    /// The question.
    pub question: Html,
    /// How the learner answers.
    pub answer: PredictAnswer,
    /// The explanation shown after the reveal.
    pub reveal: Html,
}

/// The ways a learner can commit to a prediction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum PredictAnswer {
    /// Pick one option; each option explains why it is right or wrong.
    MultipleChoice {
        /// The options, in the order written; exactly one is correct.
        options: Vec<ChoiceOption>,
    },
    /// Estimate a number; counted right within the tolerance.
    NumericEstimate {
        /// The exact answer.
        answer: f64,
        /// How far off still counts as right.
        tolerance: Tolerance,
        /// Unit shown beside the input, e.g. "replicas" or "ms".
        unit: String,
    },
    /// Sketch or pick the shape of a curve on a chart, compared with the true curve.
    ChartPrediction {
        /// The horizontal axis.
        x: Axis,
        /// The vertical axis.
        y: Axis,
        /// Points of the true curve, `[x, y]`, in increasing x.
        curve: Vec<[f64; 2]>,
    },
    /// Answer from memory, then compare with the reveal yourself.
    Recall,
}

/// One option of a multiple-choice prediction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChoiceOption {
    /// What the learner picks.
    pub label: Html,
    /// Whether this is the right answer.
    pub correct: bool,
    /// Why it is right or wrong, shown after the reveal.
    pub explanation: Html,
}

/// How close a numeric estimate must be.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tolerance {
    /// Within plus or minus this many units.
    Absolute(f64),
    /// Within this fraction of the answer (0.1 = ±10%).
    Relative(f64),
}

impl Tolerance {
    /// Whether `guess` counts as right for `answer`.
    pub fn accepts(self, answer: f64, guess: f64) -> bool {
        let allowed = match self {
            Tolerance::Absolute(delta) => delta,
            Tolerance::Relative(fraction) => fraction * answer.abs(),
        };
        (guess - answer).abs() <= allowed
    }
}

/// A chart axis for a chart prediction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    /// Axis title, e.g. "offered load".
    pub label: String,
    /// Unit, e.g. "%" or "ms"; empty if none.
    pub unit: String,
    /// Lower end of the axis.
    pub min: f64,
    /// Upper end of the axis.
    pub max: f64,
}

/// A "check yourself" list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckYourself {
    /// The questions, in order.
    pub questions: Vec<Html>,
}

/// An "explain to a colleague" card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExplainToColleague {
    /// The sentence to finish, e.g. "We should autoscale when…".
    pub prompt: Html,
    /// A model answer, revealed on request.
    pub answer: Html,
}

/// Notes for whoever presents the lesson.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpeakerNotes {
    /// The notes.
    pub notes: Html,
}

/// An interactive widget placed in the lesson.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WidgetEmbed {
    /// Unique within the lesson when given; the widget's anchor.
    pub id: Option<String>,
    /// Which widget.
    pub name: WidgetName,
    /// Short plain-text caption shown above the widget.
    pub caption: Option<String>,
    /// Initial settings, as written by the author; each widget reads the keys it knows.
    pub settings: BTreeMap<String, SettingValue>,
}

impl WidgetEmbed {
    /// The number setting `key`, or `default` when the author did not give it. A value that is not a finite number
    /// also gives `default`, together with a note for the widget to show, so an authoring slip is visible but harmless.
    ///
    /// ```
    /// # use goodput::lesson::{WidgetEmbed, WidgetName, SettingValue};
    /// let mut widget = WidgetEmbed { id: None, name: WidgetName::LittlesLawSizer, caption: None, settings: Default::default() };
    /// widget.settings.insert("peak_qps".into(), SettingValue::Text("lots".into()));
    /// let (value, note) = widget.number_setting("peak_qps", 30.0);
    /// assert_eq!(value, 30.0);
    /// assert!(note.unwrap().contains("peak_qps"));
    /// ```
    pub fn number_setting(&self, key: &str, default: f64) -> (f64, Option<String>) {
        match self.settings.get(key) {
            None => (default, None),
            Some(SettingValue::Number(value)) if value.is_finite() => (*value, None),
            Some(other) => (
                default,
                Some(format!(
                    "The lesson sets {key} = {other}, which is not a number; using {default} instead."
                )),
            ),
        }
    }
}

/// The widgets a lesson may embed. Closed on purpose: a misspelt widget is a build error, not an empty box.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WidgetName {
    /// Offered load against p50/p99 latency, open or closed loop: find the knee.
    KneeLab,
    /// Throughput against goodput as load rises.
    GoodputChart,
    /// Concurrency cap and latency to per-replica QPS and replica count.
    LittlesLawSizer,
    /// Reads a vLLM `/metrics` scrape and says where the replica is.
    MetricsReader,
}

impl WidgetName {
    /// Every widget, for error messages and documentation.
    pub const ALL: [WidgetName; 4] = [
        WidgetName::KneeLab,
        WidgetName::GoodputChart,
        WidgetName::LittlesLawSizer,
        WidgetName::MetricsReader,
    ];

    /// The name an author writes, e.g. `knee-lab`.
    pub fn as_str(self) -> &'static str {
        match self {
            WidgetName::KneeLab => "knee-lab",
            WidgetName::GoodputChart => "goodput-chart",
            WidgetName::LittlesLawSizer => "littles-law-sizer",
            WidgetName::MetricsReader => "metrics-reader",
        }
    }

    /// The widget whose author name is `name`, if any.
    pub fn from_name(name: &str) -> Option<WidgetName> {
        WidgetName::ALL
            .into_iter()
            .find(|widget| widget.as_str() == name)
    }
}

/// One widget setting: a TOML scalar.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SettingValue {
    /// `true` or `false`.
    Bool(bool),
    /// Any number (TOML integers become floats).
    Number(f64),
    /// A string.
    Text(String),
}

impl std::fmt::Display for SettingValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingValue::Bool(value) => write!(f, "{value}"),
            SettingValue::Number(value) => write!(f, "{value}"),
            SettingValue::Text(value) => write!(f, "{value}"),
        }
    }
}
