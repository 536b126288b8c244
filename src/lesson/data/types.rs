//! The typed lesson data shared by the build-time compiler and the page.
//!
//! Everything here is plain data: the compiler (`goodput-lesson-compiler`, run by the page's `build.rs`) produces it from `lessons/*.md` and serialises it to
//! JSON, the static pages are written from it (`goodput-pages`), and the page's islands read back the parts they need
//! from that HTML (`goodput::lesson::island_markup`). Text fields that may carry inline markdown are stored as
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
    /// What its passages answer, as the author declared beside them in `@answers` blocks: the Ask box's teacher
    /// reads them.
    pub answers: Vec<PassageAnswer>,
}

/// One question a passage of the lesson answers, declared by the lesson's author in an `@answers` block beside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassageAnswer {
    /// The passage: its index among the lesson's passages in reading order (`crate::passages`).
    pub passage: usize,
    /// The words of the passage that answer, as the author quoted them (the build found them there).
    pub quote: String,
    /// The kind of question it answers.
    pub kind: QuestionKind,
    /// The questions it answers, in a learner's words.
    pub asks: Vec<String>,
}

/// The kind of a learner's question: what the teacher reads from its wording, and what an `@answers` block says a
/// passage answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuestionKind {
    /// "What is goodput?", "What does TPOT mean?"
    Definition,
    /// "What is the difference between TTFT and TPOT?", "open loop vs closed loop"
    Comparison,
    /// "Explain goodput like I am five", "in simple terms"
    Simple,
    /// "What happens if I turn off chunked prefill?", "What happens to latency at full load?"
    Consequence,
    /// "Which metric tells me to add a replica?", "What flag caps concurrency?"
    WhichSignal,
    /// "Why does latency blow up near full load?"
    Why,
    /// "What is TTFT made of?"
    Composition,
    /// "How long does a new replica take to serve?"
    Duration,
    /// Anything else: the best match leads. Never declared.
    Other,
}

impl QuestionKind {
    /// The kinds an `@answers` block may declare.
    pub const DECLARED: [QuestionKind; 8] = [
        QuestionKind::Definition,
        QuestionKind::Comparison,
        QuestionKind::Simple,
        QuestionKind::Consequence,
        QuestionKind::WhichSignal,
        QuestionKind::Why,
        QuestionKind::Composition,
        QuestionKind::Duration,
    ];

    /// The kind's name in a lesson (`which-signal`).
    pub fn as_str(self) -> &'static str {
        match self {
            QuestionKind::Definition => "definition",
            QuestionKind::Comparison => "comparison",
            QuestionKind::Simple => "simple",
            QuestionKind::Consequence => "consequence",
            QuestionKind::WhichSignal => "which-signal",
            QuestionKind::Why => "why",
            QuestionKind::Composition => "composition",
            QuestionKind::Duration => "duration",
            QuestionKind::Other => "other",
        }
    }

    /// The declarable kind named `name`.
    pub fn from_name(name: &str) -> Option<QuestionKind> {
        Self::DECLARED
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }
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

impl Lesson {
    /// The lesson's predict steps, in reading order.
    pub fn predict_steps(&self) -> Vec<&PredictStep> {
        self.blocks
            .iter()
            .filter_map(|block| match block {
                Block::Predict(step) => Some(step),
                _ => None,
            })
            .collect()
    }

    /// The lesson's embedded widgets, in order.
    pub fn widgets(&self) -> Vec<&WidgetEmbed> {
        self.blocks
            .iter()
            .filter_map(|block| match block {
                Block::Widget(widget) => Some(widget),
                _ => None,
            })
            .collect()
    }
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
    /// A checklist of tasks that tick themselves when the learner does them in a widget.
    Tasks(TaskList),
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
    /// Pick among options; one or several are correct, and the learner is right when they pick exactly those.
    MultipleChoice {
        /// The options, in the order written; at least one is correct and at least one is not.
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
    /// Place a marker on the load axis where the learner expects something to happen; Reveal simulates the course
    /// scenario at every load of the range and draws the real curve over the guess.
    ChartPrediction {
        /// What the marker marks.
        target: ChartTarget,
        /// The loads the reveal simulates.
        loads: LoadRange,
        /// How far from the real load (a fraction of capacity: 0.02 = 2 points) the marker may be and still count.
        tolerance: f64,
    },
    /// Cover the screen, say the answer out loud, then check it against the reveal.
    Recall,
}

/// One option of a multiple-choice prediction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChoiceOption {
    /// What the learner picks.
    pub label: Html,
    /// Whether this option belongs to the right answer.
    pub correct: bool,
    /// Why it is right or wrong, shown after the reveal; optional.
    pub explanation: Option<Html>,
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
    /// How far from `answer` a guess may be and still count.
    pub fn allowance(self, answer: f64) -> f64 {
        match self {
            Tolerance::Absolute(delta) => delta.abs(),
            Tolerance::Relative(fraction) => (fraction * answer).abs(),
        }
    }

    /// Whether `guess` counts as right for `answer`.
    pub fn accepts(self, answer: f64, guess: f64) -> bool {
        (guess - answer).abs() <= self.allowance(answer)
    }
}

/// What a chart prediction asks the learner to mark on the load axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChartTarget {
    /// The knee: the first load at which p99 TTFT has doubled from its value at the lightest load of the range. This
    /// is the predict step's operational reading of the lesson's knee (where throughput flattens and latency bends);
    /// a live server is judged by `goodput::cluster::vllm::KneeVerdict` instead.
    Knee,
    /// The load at which p99 TTFT crosses the scenario's TTFT SLO.
    SloCrossing,
    /// The load at which goodput falls below 90% of throughput.
    GoodputBelow90,
}

impl ChartTarget {
    /// Every target, for error messages and documentation.
    pub const ALL: [ChartTarget; 3] = [
        ChartTarget::Knee,
        ChartTarget::SloCrossing,
        ChartTarget::GoodputBelow90,
    ];

    /// The name an author writes, e.g. `slo-crossing`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChartTarget::Knee => "knee",
            ChartTarget::SloCrossing => "slo-crossing",
            ChartTarget::GoodputBelow90 => "goodput-below-90",
        }
    }

    /// The target whose author name is `name`, if any.
    pub fn from_name(name: &str) -> Option<ChartTarget> {
        ChartTarget::ALL
            .into_iter()
            .find(|target| target.as_str() == name)
    }
}

/// Offered loads `from, from + step, …, to`, as fractions of capacity (0.9 = 90%).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadRange {
    /// The lightest load.
    pub from: f64,
    /// The heaviest load.
    pub to: f64,
    /// The distance between two simulated loads.
    pub step: f64,
}

/// The step a chart prediction's marker moves in: half a point of load, as its slider does.
pub const MARKER_STEP: f64 = 0.005;

impl LoadRange {
    /// The marker's load at `across` (0 at the axis's left end, 1 at its right), snapped to [`MARKER_STEP`] and kept
    /// within the range: where a press or drag on a prediction chart puts the marker.
    pub fn marker_at(self, across: f64) -> f64 {
        let across = if across.is_finite() {
            across.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let load = self.from + across * (self.to - self.from);
        snap_marker(load).clamp(self.from, self.to.max(self.from))
    }

    /// The loads of the range, computed from an integer count so no floating-point drift creeps in.
    pub fn points(self) -> Vec<f64> {
        if !(self.step > 0.0 && self.to >= self.from) {
            return Vec::new();
        }
        let n = ((self.to - self.from) / self.step + 1e-9).floor() as usize;
        (0..=n.min(1_000))
            .map(|i| self.from + self.step * i as f64)
            .collect()
    }
}

/// `load` on the marker's grid of [`MARKER_STEP`]s.
pub fn snap_marker(load: f64) -> f64 {
    // Dividing by the whole number of steps per unit gives the double nearest the decimal (0.88, not 0.8800000001).
    let steps_per_unit = (1.0 / MARKER_STEP).round();
    (load * steps_per_unit).round() / steps_per_unit
}

/// A checklist of tasks done in a widget, each ticked by the widget when the learner does it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskList {
    /// Unique within the lesson; the checklist's anchor.
    pub id: String,
    /// Short plain-text heading, e.g. "In the knee lab".
    pub title: String,
    /// The tasks, in order.
    pub tasks: Vec<Task>,
}

/// One self-ticking task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// The id a widget ticks, e.g. `knee-lab/p99-crosses-slo`; unique within the lesson.
    pub id: String,
    /// What to do.
    pub label: Html,
}

impl Task {
    /// Whether `id` is a task id: lowercase letters, digits and hyphens in `/`-separated parts, e.g.
    /// `knee-lab/p99-crosses-slo`.
    pub fn is_valid_id(id: &str) -> bool {
        id.len() <= 200
            && id.split('/').all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            })
    }
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
    /// # use goodput_lesson::{WidgetEmbed, WidgetName, SettingValue};
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
    /// Inside the batch: one replica's iterations at the lab's settings, one request followed through them.
    BatchTimeline,
    /// A fleet through a day: the autoscaler's signal, the router, the start-up delay and the traffic, over time.
    FleetDay,
}

impl WidgetName {
    /// Every widget, for error messages and documentation.
    pub const ALL: [WidgetName; 6] = [
        WidgetName::KneeLab,
        WidgetName::GoodputChart,
        WidgetName::LittlesLawSizer,
        WidgetName::MetricsReader,
        WidgetName::BatchTimeline,
        WidgetName::FleetDay,
    ];

    /// The name an author writes, e.g. `knee-lab`.
    pub fn as_str(self) -> &'static str {
        match self {
            WidgetName::KneeLab => "knee-lab",
            WidgetName::GoodputChart => "goodput-chart",
            WidgetName::LittlesLawSizer => "littles-law-sizer",
            WidgetName::MetricsReader => "metrics-reader",
            WidgetName::BatchTimeline => "batch-timeline",
            WidgetName::FleetDay => "fleet-day",
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
