//! The markup contract between the static pages and the islands: which elements of a pre-rendered page the wasm
//! brings to life, and how the data each one needs is written into the page.
//!
//! The build writes every page as complete HTML (`goodput-pages`, native), so a lesson reads before — or without —
//! any WebAssembly. An interactive part is an *island*: an element with [`ISLAND`] naming its [`IslandKind`], whose
//! children are the version a reader without JavaScript gets (a predict step's answer folded in a closed
//! `<details>`, a static picture of a widget). The wasm (`crate::islands`) finds the islands, reads their data back
//! from the attributes and classes named here, empties them and mounts the live component in their place. The
//! encoders and decoders sit side by side so a round trip is tested natively. The islands written once
//! (`crate::views`: reveals, task lists) are rendered by the page from the component the wasm mounts, so their
//! classes and attributes are the view's own; their wrappers still carry the data attributes named here.
//!
//! Presentation mode reads the page too: every block the projector shows carries [`SCREEN`], the screen it belongs
//! to, and the first element of each screen carries the screen's title, section kicker and anchor.

use super::{ChartTarget, LoadRange, PredictAnswer, SettingValue, Tolerance, WidgetName};
use std::collections::BTreeMap;

/// The attribute that marks an island; its value is an [`IslandKind`].
pub const ISLAND: &str = "data-island";
/// Set by the wasm on an island once its live component is mounted (the CSS stops reserving room for it then).
pub const MOUNTED_CLASS: &str = "island-mounted";
/// On a pre-rendered control: the selector, within its island, of the live element that takes focus if the control
/// had it when the island came to life (the answer a reader opened before the wasm arrived, for instance).
pub const LIVE_FOCUS: &str = "data-live-focus";
/// An answer a reader can open on the pre-rendered page (a `<details>`): if it is open when the island comes to
/// life, the live copy shows the answer too.
pub const OPENABLE_ANSWER: &str = "data-openable-answer";

/// The interactive parts of a page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IslandKind {
    /// The theme picker in the site header.
    ThemeSwitcher,
    /// The lesson's progress line and "Reset my progress".
    ProgressSummary,
    /// A predict-then-reveal step.
    Predict,
    /// A recall or explain card's answer button.
    Reveal,
    /// A self-ticking task list.
    Tasks,
    /// An embedded widget (knee lab, goodput chart, sizer, metrics reader).
    Widget,
}

impl IslandKind {
    /// Every kind.
    pub const ALL: [IslandKind; 6] = [
        IslandKind::ThemeSwitcher,
        IslandKind::ProgressSummary,
        IslandKind::Predict,
        IslandKind::Reveal,
        IslandKind::Tasks,
        IslandKind::Widget,
    ];

    /// The attribute value.
    pub fn as_str(self) -> &'static str {
        match self {
            IslandKind::ThemeSwitcher => "theme-switcher",
            IslandKind::ProgressSummary => "progress-summary",
            IslandKind::Predict => "predict",
            IslandKind::Reveal => "reveal",
            IslandKind::Tasks => "tasks",
            IslandKind::Widget => "widget",
        }
    }

    /// The kind an attribute value names.
    pub fn from_name(name: &str) -> Option<IslandKind> {
        IslandKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }
}

/// On `<body>`: which page this is, `home`, `lesson` or `not-found`.
pub const PAGE: &str = "data-page";
/// On the lesson's `<article>`: the lesson's slug (the key of its saved progress).
pub const LESSON_SLUG: &str = "data-lesson-slug";

/// On a `<details>` whose open state presentation windows share: the sync key (keywords).
pub const SYNC_KEY: &str = "data-sync-key";

/// Predict steps: the step's id.
pub const STEP_ID: &str = "data-step-id";
/// Predict steps: the answer's type, [`answer_kind`].
pub const ANSWER_KIND: &str = "data-answer";
/// Multiple choice: the indices of the correct options, space-separated.
pub const CORRECT: &str = "data-correct";
/// Numeric estimate: the exact answer.
pub const VALUE: &str = "data-value";
/// Numeric estimate and chart prediction: the tolerance, [`encode_tolerance`] (numeric) or a load fraction (chart).
pub const TOLERANCE: &str = "data-tolerance";
/// Numeric estimate: the unit.
pub const UNIT: &str = "data-unit";
/// Chart prediction: the target's author name.
pub const TARGET: &str = "data-target";
/// Chart prediction: the loads, [`encode_loads`].
pub const LOADS: &str = "data-loads";
/// Predict steps and task lists: the class of the heading that holds the title.
pub const TITLE_CLASS: &str = "island-title";
/// Predict steps: the class of the question's container.
pub const QUESTION_CLASS: &str = "predict-question";
/// Predict steps: the class of each option's label, in order, in the question part.
pub const OPTION_LABEL_CLASS: &str = "predict-option-label";
/// Predict steps: the class of an option's explanation in the folded answer; [`OPTION_INDEX`] says whose.
pub const OPTION_WHY_CLASS: &str = "predict-why";
/// The option an explanation belongs to.
pub const OPTION_INDEX: &str = "data-option";
/// Predict steps: the class of the explanation shown after the reveal.
pub const EXPLANATION_CLASS: &str = "predict-explanation";

/// Reveals: the answer element's id.
pub const REVEAL_ID: &str = "data-reveal-id";
/// Reveals: the button's text while the answer is hidden.
pub const REVEAL_SHOW: &str = "data-show";
/// Reveals: the button's text while the answer is shown.
pub const REVEAL_HIDE: &str = "data-hide";
/// Reveals: the class of the answer's content inside the folded fallback.
pub const REVEAL_ANSWER_CLASS: &str = "reveal-answer-text";

/// Task lists: the list's id.
pub const LIST_ID: &str = "data-list-id";
/// Task lists: on each item, the task's id.
pub const TASK_ID: &str = "data-task";
/// Task lists: the class of each task's label.
pub const TASK_LABEL_CLASS: &str = "task-label";

/// Widgets: the widget's author name.
pub const WIDGET: &str = "data-widget-name";
/// Widgets: the widget's id (its anchor).
pub const WIDGET_ID: &str = "data-widget-id";
/// Widgets: the on-demand module the widget's code is in ([`Module`]), so that an
/// address naming the widget can fetch it while the page's own wasm downloads (tools/split-page.mjs).
pub const MODULE: &str = "data-module";
/// Widgets: the author's settings, [`encode_settings`].
pub const SETTINGS: &str = "data-settings";
/// Widgets: the class of the caption.
pub const CAPTION_CLASS: &str = "widget-caption";

/// The page's on-demand modules, one for each split point of its binary: `#[wasm_split(NAME, …)]` in `src/main.rs`,
/// whose module the build's loader fetches with its `__wasm_split_load_NAME`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Module {
    KneeLab,
    Sizer,
    MetricsReader,
    BatchTimeline,
    Fleet,
    /// The knee lab's "Your server" panel, fetched when it is opened.
    YourServer,
    PredictChart,
    Presentation,
}

impl Module {
    /// The module that holds a widget's code (the knee lab's and the goodput chart's are one).
    pub fn of_widget(name: WidgetName) -> Module {
        match name {
            WidgetName::KneeLab | WidgetName::GoodputChart => Module::KneeLab,
            WidgetName::LittlesLawSizer => Module::Sizer,
            WidgetName::MetricsReader => Module::MetricsReader,
            WidgetName::BatchTimeline => Module::BatchTimeline,
            WidgetName::FleetDay => Module::Fleet,
        }
    }

    /// Every module.
    pub const ALL: [Module; 8] = [
        Module::KneeLab,
        Module::Sizer,
        Module::MetricsReader,
        Module::BatchTimeline,
        Module::Fleet,
        Module::YourServer,
        Module::PredictChart,
        Module::Presentation,
    ];

    /// The split point's name: a widget's island names its module by it ([`MODULE`]), and the loader
    /// (tools/split-page.mjs) prefetches by it.
    pub fn as_str(self) -> &'static str {
        match self {
            Module::KneeLab => "knee_lab",
            Module::Sizer => "sizer",
            Module::MetricsReader => "metrics_reader",
            Module::BatchTimeline => "batch_timeline",
            Module::Fleet => "fleet",
            Module::YourServer => "your_server",
            Module::PredictChart => "predict_chart",
            Module::Presentation => "presentation",
        }
    }
}

/// Presentation: the screen (from 0) an element is shown on.
pub const SCREEN: &str = "data-screen";
/// Presentation: on a screen's first element, the screen's title.
pub const SCREEN_TITLE: &str = "data-screen-title";
/// Presentation: on a screen's first element, the section named above it (when it does not start with a heading).
pub const SCREEN_KICKER: &str = "data-screen-kicker";
/// Presentation: on a screen's first element, the anchor on the lesson page nearest to the screen.
pub const SCREEN_ANCHOR: &str = "data-screen-anchor";
/// Presentation: on speaker notes, the screens they belong to, space-separated.
pub const NOTES_FOR: &str = "data-notes-for";

/// The [`ANSWER_KIND`] value of an answer.
pub fn answer_kind(answer: &PredictAnswer) -> &'static str {
    match answer {
        PredictAnswer::MultipleChoice { .. } => "multiple-choice",
        PredictAnswer::NumericEstimate { .. } => "numeric-estimate",
        PredictAnswer::ChartPrediction { .. } => "chart-prediction",
        PredictAnswer::Recall => "recall",
    }
}

/// The attributes that carry `answer`'s data, apart from option labels and explanations (which are HTML in the page).
pub fn answer_attributes(answer: &PredictAnswer) -> Vec<(&'static str, String)> {
    let mut attributes = vec![(ANSWER_KIND, answer_kind(answer).to_owned())];
    match answer {
        PredictAnswer::MultipleChoice { options } => {
            let correct: Vec<String> = options
                .iter()
                .enumerate()
                .filter(|(_, option)| option.correct)
                .map(|(index, _)| index.to_string())
                .collect();
            attributes.push((CORRECT, correct.join(" ")));
        }
        PredictAnswer::NumericEstimate {
            answer,
            tolerance,
            unit,
        } => {
            attributes.push((VALUE, answer.to_string()));
            attributes.push((TOLERANCE, encode_tolerance(*tolerance)));
            attributes.push((UNIT, unit.clone()));
        }
        PredictAnswer::ChartPrediction {
            target,
            loads,
            tolerance,
        } => {
            attributes.push((TARGET, target.as_str().to_owned()));
            attributes.push((LOADS, encode_loads(*loads)));
            attributes.push((TOLERANCE, tolerance.to_string()));
        }
        PredictAnswer::Recall => {}
    }
    attributes
}

/// The options of a multiple choice as the page holds them: each label's HTML and its explanation's, in order.
pub type OptionTexts = Vec<(super::Html, Option<super::Html>)>;

/// Reads an answer back from its attributes (`attribute(name)` gives an attribute's value) and, for a multiple
/// choice, the options' texts. The error names what is missing or malformed.
pub fn decode_answer(
    attribute: impl Fn(&str) -> Option<String>,
    options: OptionTexts,
) -> Result<PredictAnswer, String> {
    let required = |name: &str| attribute(name).ok_or_else(|| format!("no {name}"));
    let number = |name: &str| -> Result<f64, String> {
        let text = required(name)?;
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite())
            .ok_or_else(|| format!("{name} = {text:?} is not a number"))
    };
    let kind = required(ANSWER_KIND)?;
    match kind.as_str() {
        "multiple-choice" => {
            let correct = decode_indices(&required(CORRECT)?)
                .ok_or_else(|| format!("{CORRECT} is not a list of option numbers"))?;
            if options.is_empty() || correct.iter().any(|&index| index >= options.len()) {
                return Err(format!(
                    "{CORRECT} names an option the page does not have ({} options)",
                    options.len()
                ));
            }
            Ok(PredictAnswer::MultipleChoice {
                options: options
                    .into_iter()
                    .enumerate()
                    .map(|(index, (label, explanation))| super::ChoiceOption {
                        label,
                        correct: correct.contains(&index),
                        explanation,
                    })
                    .collect(),
            })
        }
        "numeric-estimate" => Ok(PredictAnswer::NumericEstimate {
            answer: number(VALUE)?,
            tolerance: decode_tolerance(&required(TOLERANCE)?)
                .ok_or_else(|| format!("{TOLERANCE} is not absolute:N or relative:N"))?,
            unit: required(UNIT)?,
        }),
        "chart-prediction" => Ok(PredictAnswer::ChartPrediction {
            target: ChartTarget::from_name(&required(TARGET)?)
                .ok_or_else(|| format!("{TARGET} is not a chart target"))?,
            loads: decode_loads(&required(LOADS)?)
                .ok_or_else(|| format!("{LOADS} is not FROM TO STEP"))?,
            tolerance: number(TOLERANCE)?,
        }),
        "recall" => Ok(PredictAnswer::Recall),
        other => Err(format!("{ANSWER_KIND} = {other:?} is not an answer type")),
    }
}

/// Space-separated option numbers, e.g. `"0 2"`.
pub fn decode_indices(text: &str) -> Option<Vec<usize>> {
    text.split_whitespace()
        .map(|part| part.parse::<usize>().ok())
        .collect()
}

/// `absolute:0.5` or `relative:0.1`.
pub fn encode_tolerance(tolerance: Tolerance) -> String {
    match tolerance {
        Tolerance::Absolute(delta) => format!("absolute:{delta}"),
        Tolerance::Relative(fraction) => format!("relative:{fraction}"),
    }
}

/// The inverse of [`encode_tolerance`].
pub fn decode_tolerance(text: &str) -> Option<Tolerance> {
    let (kind, value) = text.split_once(':')?;
    let value = value.trim().parse::<f64>().ok().filter(|v| v.is_finite())?;
    match kind.trim() {
        "absolute" => Some(Tolerance::Absolute(value)),
        "relative" => Some(Tolerance::Relative(value)),
        _ => None,
    }
}

/// `FROM TO STEP`, e.g. `0.85 1 0.01`.
pub fn encode_loads(loads: LoadRange) -> String {
    format!("{} {} {}", loads.from, loads.to, loads.step)
}

/// The inverse of [`encode_loads`].
pub fn decode_loads(text: &str) -> Option<LoadRange> {
    let numbers: Vec<f64> = text
        .split_whitespace()
        .map(|part| part.parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect::<Option<_>>()?;
    match numbers.as_slice() {
        &[from, to, step] => Some(LoadRange { from, to, step }),
        _ => None,
    }
}

/// A widget's settings as a JSON object, for [`SETTINGS`].
pub fn encode_settings(settings: &BTreeMap<String, SettingValue>) -> String {
    let object: serde_json::Map<String, serde_json::Value> = settings
        .iter()
        .map(|(key, value)| (key.clone(), setting_json(value)))
        .collect();
    serde_json::Value::Object(object).to_string()
}

fn setting_json(value: &SettingValue) -> serde_json::Value {
    match value {
        SettingValue::Bool(flag) => serde_json::Value::Bool(*flag),
        SettingValue::Number(number) => serde_json::Number::from_f64(*number)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        SettingValue::Text(text) => serde_json::Value::String(text.clone()),
    }
}

/// The inverse of [`encode_settings`]. Read through `serde_json::Value` (which the page already parses saved
/// progress with) rather than a derived deserialiser, so the wasm carries no extra decoder for it.
pub fn decode_settings(text: &str) -> Result<BTreeMap<String, SettingValue>, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|error| format!("{SETTINGS} is not JSON: {error}"))?;
    let serde_json::Value::Object(object) = value else {
        return Err(format!("{SETTINGS} is not a JSON object"));
    };
    object
        .into_iter()
        .map(|(key, value)| {
            let setting = match value {
                serde_json::Value::Bool(flag) => SettingValue::Bool(flag),
                serde_json::Value::Number(number) => {
                    SettingValue::Number(number.as_f64().unwrap_or(f64::NAN))
                }
                serde_json::Value::String(text) => SettingValue::Text(text),
                other => return Err(format!("setting {key} = {other} is not a scalar")),
            };
            Ok((key, setting))
        })
        .collect()
}

/// Screen numbers, space-separated, for [`NOTES_FOR`].
pub fn encode_indices(indices: impl IntoIterator<Item = usize>) -> String {
    indices
        .into_iter()
        .map(|index| index.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::{ChoiceOption, Html};

    fn round_trip(answer: &PredictAnswer) -> PredictAnswer {
        let attributes: BTreeMap<&str, String> = answer_attributes(answer).into_iter().collect();
        let options = match answer {
            PredictAnswer::MultipleChoice { options } => options
                .iter()
                .map(|o| (o.label.clone(), o.explanation.clone()))
                .collect(),
            _ => Vec::new(),
        };
        decode_answer(|name| attributes.get(name).cloned(), options).unwrap()
    }

    #[test]
    fn every_answer_type_reads_back_as_written() {
        let answers = [
            PredictAnswer::MultipleChoice {
                options: vec![
                    ChoiceOption {
                        label: Html("<em>A</em>".into()),
                        correct: false,
                        explanation: Some(Html("no".into())),
                    },
                    ChoiceOption {
                        label: Html("B".into()),
                        correct: true,
                        explanation: None,
                    },
                    ChoiceOption {
                        label: Html("C".into()),
                        correct: true,
                        explanation: None,
                    },
                ],
            },
            PredictAnswer::NumericEstimate {
                answer: 4.5,
                tolerance: Tolerance::Relative(0.1),
                unit: "replicas".into(),
            },
            PredictAnswer::NumericEstimate {
                answer: -2.0,
                tolerance: Tolerance::Absolute(0.25),
                unit: "ms".into(),
            },
            PredictAnswer::ChartPrediction {
                target: ChartTarget::SloCrossing,
                loads: LoadRange {
                    from: 0.85,
                    to: 1.0,
                    step: 0.01,
                },
                tolerance: 0.02,
            },
            PredictAnswer::Recall,
        ];
        for answer in &answers {
            assert_eq!(&round_trip(answer), answer);
        }
    }

    #[test]
    fn a_damaged_answer_says_what_is_wrong() {
        let attributes = |pairs: &[(&'static str, &'static str)]| {
            let map: BTreeMap<&str, String> =
                pairs.iter().map(|(k, v)| (*k, (*v).to_owned())).collect();
            move |name: &str| map.get(name).cloned()
        };
        let error = decode_answer(attributes(&[(ANSWER_KIND, "guess")]), Vec::new()).unwrap_err();
        assert!(error.contains("guess"), "{error}");
        let error = decode_answer(
            attributes(&[(ANSWER_KIND, "multiple-choice"), (CORRECT, "3")]),
            vec![(Html("A".into()), None)],
        )
        .unwrap_err();
        assert!(error.contains("1 options"), "{error}");
        let error = decode_answer(
            attributes(&[
                (ANSWER_KIND, "numeric-estimate"),
                (VALUE, "many"),
                (TOLERANCE, "absolute:1"),
                (UNIT, "ms"),
            ]),
            Vec::new(),
        )
        .unwrap_err();
        assert!(error.contains("many"), "{error}");
    }

    #[test]
    fn settings_read_back_as_written_and_junk_is_refused() {
        let mut settings = BTreeMap::new();
        settings.insert("load".to_owned(), SettingValue::Number(0.97));
        settings.insert(
            "loop".to_owned(),
            SettingValue::Text("closed \"quoted\"".into()),
        );
        settings.insert("chunked_prefill".to_owned(), SettingValue::Bool(false));
        assert_eq!(decode_settings(&encode_settings(&settings)), Ok(settings));
        assert!(decode_settings("[1, 2]").is_err());
        assert!(decode_settings("{\"a\": [1]}").unwrap_err().contains('a'));
    }

    #[test]
    fn island_kinds_read_back() {
        for kind in IslandKind::ALL {
            assert_eq!(IslandKind::from_name(kind.as_str()), Some(kind));
        }
        assert_eq!(IslandKind::from_name("nope"), None);
    }
}
