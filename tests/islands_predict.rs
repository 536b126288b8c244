//! The predict step's views (`goodput::views::predict`) rendered to HTML natively: the pre-rendered step of each
//! kind (choice, numeric, recall, chart) as the page build writes it, the pieces the live step shares with it, and
//! the lesson page's steps as exactly these renderings. The other islands' views: `tests/islands_html.rs`.

use goodput::lesson::island_markup as markup;
use goodput::lesson::{
    ChartTarget, ChoiceOption, Html, LoadRange, PredictAnswer, PredictStep, Tolerance,
};
use goodput::views::predict::{
    predict_heading, reveal_hint, tally_summary, FoldedPredict, SimulatedCurve,
};
use leptos::prelude::*;

#[path = "support/markup.rs"]
mod markup_scan;
use markup_scan::{has, lesson_page, tag};

fn predict_step(id: &str, answer: PredictAnswer) -> PredictStep {
    PredictStep {
        id: id.to_owned(),
        title: "Step 1: which phase sets TTFT?".to_owned(),
        question: Html("A 6,000-token prompt: <em>which</em> phase decides the wait?".to_owned()),
        answer,
        reveal: Html("Prefill reads the <strong>whole</strong> prompt first.".to_owned()),
    }
}

fn choice(label: &str, correct: bool, why: Option<&str>) -> ChoiceOption {
    ChoiceOption {
        label: Html(label.to_owned()),
        correct,
        explanation: why.map(|why| Html(why.to_owned())),
    }
}

fn choice_step() -> PredictStep {
    predict_step(
        "step-1-ttft",
        PredictAnswer::MultipleChoice {
            options: vec![
                choice(
                    "<strong>Prefill</strong>: one pass",
                    true,
                    Some("Right: the prompt first."),
                ),
                choice("Decode", false, None),
                choice(
                    "Neither",
                    false,
                    Some("The network adds <em>milliseconds</em>."),
                ),
            ],
        },
    )
}

fn knee_step() -> PredictStep {
    predict_step(
        "predict-knee",
        PredictAnswer::ChartPrediction {
            target: ChartTarget::Knee,
            loads: LoadRange {
                from: 0.5,
                to: 0.95,
                step: 0.05,
            },
            tolerance: 0.05,
        },
    )
}

fn folded(step: PredictStep, simulated: Option<SimulatedCurve>) -> String {
    view! { <FoldedPredict step simulated/> }.to_html()
}

/// The part of `html` from `start` (included) to the first `end` after it (included).
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html
        .find(start)
        .unwrap_or_else(|| panic!("no {start} in {html}"));
    let to = from + html[from..].find(end).expect("it ends") + end.len();
    &html[from..to]
}

/// What every pre-rendered step has: its section, heading, hints, folded answer and folded tally.
fn assert_folded_step(html: &str, id: &str, label: &str, js_hint: &str) {
    let section = tag(html, "aria-labelledby");
    assert!(
        section.starts_with("<section ") && has(section, "id", id),
        "{html}"
    );
    assert!(has(section, "class", "lesson-predict"), "{html}");
    assert!(
        has(section, "aria-labelledby", &format!("{id}-title")),
        "{html}"
    );
    assert!(
        html.contains(&format!("<p class=\"lesson-label\">{label}</p>")),
        "{html}"
    );
    // The wasm reads the title back from the step's titled <h3>, the question from its container, as they are
    // written (`tests/islands_codec.rs` reads them back).
    assert!(
        html.contains(&format!(
            "<h3 id=\"{id}-title\" tabindex=\"-1\" class=\"island-title\">Step 1: which phase sets TTFT?</h3>"
        )),
        "{html}"
    );
    assert!(
        html.contains(&format!(
            "<div class=\"{}\">A 6,000-token prompt: <em>which</em> phase decides the wait?</div>",
            markup::QUESTION_CLASS
        )),
        "{html}"
    );
    assert!(
        html.contains(
            "<p class=\"predict-hint no-js-only\">Make your guess, then open the answer.</p>"
        ),
        "{html}"
    );
    assert!(
        html.contains(&format!("<p class=\"predict-hint js-only\">{js_hint}</p>")),
        "{html}"
    );
    let details = tag(html, markup::OPENABLE_ANSWER);
    assert!(
        details.starts_with("<details ") && has(details, "class", "predict-answer"),
        "{html}"
    );
    let summary = tag(html, markup::LIVE_FOCUS);
    assert!(
        has(summary, markup::LIVE_FOCUS, ".predict-outcome"),
        "{html}"
    );
    assert!(
        html.contains(&format!("{summary}Show the answer</summary>")),
        "{html}"
    );
    assert!(
        html.contains(&format!(
            "<div class=\"{}\">Prefill reads the <strong>whole</strong> prompt first.</div></details>",
            markup::EXPLANATION_CLASS
        )),
        "the explanation closes the folded answer: {html}"
    );
    assert!(
        html.ends_with(
            "<details class=\"predict-tally needs-js\"><summary>Class tally (for instructors)</summary></details></section>"
        ),
        "{html}"
    );
    assert!(
        !html.contains("<button") && !html.contains("<input"),
        "no control that needs JavaScript: {html}"
    );
}

#[test]
fn a_pre_rendered_choice_step_lists_its_options_and_folds_which_is_right() {
    let html = folded(choice_step(), None);
    assert_folded_step(
        &html,
        "step-1-ttft",
        "Predict, then reveal",
        "Reveal unlocks once you commit a guess.",
    );
    let options = between(&html, "<p class=\"predict-static-prompt\">", "</ol>");
    assert!(
        options.starts_with("<p class=\"predict-static-prompt\">Your prediction: pick one</p>"),
        "{options}"
    );
    // The wasm reads the options back from their labels, in order: only the question part has them.
    let label = |text: &str| {
        format!(
            "<li><span class=\"{}\">{text}</span></li>",
            markup::OPTION_LABEL_CLASS
        )
    };
    assert!(
        options.contains(&format!(
            "<ol class=\"predict-static-options\">{}{}{}",
            label("<strong>Prefill</strong>: one pass"),
            label("Decode"),
            label("Neither")
        )),
        "{options}"
    );
    assert_eq!(
        html.matches(&format!("class=\"{}\"", markup::OPTION_LABEL_CLASS))
            .count(),
        3,
        "{html}"
    );
    // The folded answer: which is right, and each option's explanation marked with its option's index.
    let answer = between(&html, "<ul class=\"predict-options\">", "</ul>");
    let rows: Vec<&str> = answer.split("<li ").skip(1).collect();
    assert_eq!(rows.len(), 3, "{answer}");
    assert!(
        rows[0].starts_with("class=\"predict-correct\"><strong class=\"predict-tag\">Right answer</strong> <span class=\"predict-answer-label\"><strong>Prefill</strong>: one pass</span>"),
        "{answer}"
    );
    for row in &rows[1..] {
        assert!(
            row.starts_with("class=\"\"><strong class=\"predict-tag\">Not this one</strong> "),
            "{answer}"
        );
    }
    for (index, why) in [
        (0, "Right: the prompt first."),
        (2, "The network adds <em>milliseconds</em>."),
    ] {
        let span = tag(&html, &format!("{}=\"{index}\"", markup::OPTION_INDEX));
        assert!(has(span, "class", markup::OPTION_WHY_CLASS), "{html}");
        assert!(html.contains(&format!("{span}{why}</span>")), "{html}");
    }
    assert!(
        !html.contains(&format!("{}=\"1\"", markup::OPTION_INDEX)),
        "no explanation, no span: {html}"
    );

    let mut several = choice_step();
    if let PredictAnswer::MultipleChoice { options } = &mut several.answer {
        options[2].correct = true;
    }
    let html = folded(several, None);
    assert!(
        html.contains(
            "<p class=\"predict-static-prompt\">Your prediction: pick every one that applies</p>"
        ),
        "{html}"
    );
    assert_eq!(html.matches("Right answer").count(), 2, "{html}");
}

#[test]
fn a_pre_rendered_numeric_step_asks_in_its_unit_and_folds_the_answer_with_its_tolerance() {
    let step = predict_step(
        "step-2-tpot",
        PredictAnswer::NumericEstimate {
            answer: 4.5,
            tolerance: Tolerance::Absolute(0.5),
            unit: "ms".to_owned(),
        },
    );
    let html = folded(step, None);
    assert_folded_step(
        &html,
        "step-2-tpot",
        "Predict, then reveal",
        "Reveal unlocks once you commit a guess.",
    );
    assert!(
        html.contains("<p class=\"predict-static-prompt\">Your estimate, in ms.</p>"),
        "{html}"
    );
    assert!(
        html.contains("</summary><p class=\"predict-numbers\"><strong>The answer: 4.5 ms</strong> (anything within ±0.5 ms counts as right).</p><div class=\"predict-explanation\">"),
        "{html}"
    );
    assert!(!html.contains("predict-options"), "{html}");
}

#[test]
fn a_pre_rendered_recall_step_says_how_to_recall_and_folds_only_the_explanation() {
    let html = folded(predict_step("recall-knee", PredictAnswer::Recall), None);
    assert_folded_step(
        &html,
        "recall-knee",
        "Recall: cover the screen, say it, then check",
        "Say it first, then reveal.",
    );
    assert!(
        html.contains("<p class=\"predict-recall-help\">Cover the screen, say your answer out loud (or to a neighbour), then open the answer.</p>"),
        "{html}"
    );
    assert!(!html.contains("predict-static-prompt"), "{html}");
    assert!(
        html.contains("<summary data-live-focus=\".predict-outcome\">Show the answer</summary><div class=\"predict-explanation\">"),
        "nothing but the explanation behind the summary: {html}"
    );
}

#[test]
fn a_pre_rendered_chart_step_keeps_room_for_the_chart_and_folds_the_simulated_answer() {
    let figure = "<figcaption>Where the knee really is</figcaption><picture><img src=\"pictures/knee.svg\" alt=\"A curve\"></picture>";
    let html = folded(
        knee_step(),
        Some(SimulatedCurve {
            actual: Some(0.875),
            figure: Html(figure.to_owned()),
        }),
    );
    assert_folded_step(
        &html,
        "predict-knee",
        "Predict, then reveal",
        "Reveal unlocks once you commit a guess.",
    );
    assert!(
        html.contains("<p class=\"predict-static-prompt\">Your prediction: a load between 50% and 95%. (With JavaScript you place a marker on the chart and the simulation draws the real curve over it.)</p>"),
        "{html}"
    );
    let room = tag(&html, "predict-chart-room");
    assert!(
        room.starts_with("<div ")
            && has(room, "class", "predict-chart-room js-only")
            && has(room, "aria-hidden", "true"),
        "{html}"
    );
    assert!(
        html.contains(&format!("</summary><p class=\"predict-numbers\"><strong>The simulation puts the knee at 87.5% load.</strong></p><figure class=\"chart chart-static\">{figure}</figure><div class=\"predict-explanation\">")),
        "the picture is written as the page build drew it: {html}"
    );

    let html = folded(
        knee_step(),
        Some(SimulatedCurve {
            actual: None,
            figure: Html(figure.to_owned()),
        }),
    );
    assert!(
        html.contains(
            "<strong>The simulated curve does not reach the knee within these loads.</strong>"
        ),
        "{html}"
    );
}

#[test]
fn the_live_step_shares_its_heading_hint_and_tally_summary_with_the_pre_rendered_one() {
    let step = choice_step();
    let heading = predict_heading(
        "step-1-ttft-title".to_owned(),
        false,
        step.title.clone(),
        step.question.clone(),
        NodeRef::new(),
    )
    .to_html();
    assert!(folded(choice_step(), None).contains(&heading), "{heading}");

    let hint = |locked: bool| {
        reveal_hint(
            Some("step-1-ttft-reveal-hint".to_owned()),
            false,
            Signal::stored(locked),
        )
        .to_html()
    };
    // The live Reveal button is described by the hint; once the step is committed there is nothing left to say.
    let open = hint(false);
    let p = tag(&open, "id=\"step-1-ttft-reveal-hint\"");
    assert!(has(p, "class", "predict-hint js-only"), "{open}");
    assert!(
        open.contains(&format!("{p}Reveal unlocks once you commit a guess.</p>")),
        "{open}"
    );
    let locked = hint(true);
    let p = tag(&locked, "id=\"step-1-ttft-reveal-hint\"");
    let text = &locked[locked.find(p).expect("the hint") + p.len()..];
    assert_eq!(
        text.trim(),
        "</p>",
        "nothing to say (the live page's :empty hides it): {locked}"
    );

    let recall = reveal_hint(None, true, Signal::stored(false)).to_html();
    assert_eq!(
        recall,
        "<p class=\"predict-hint js-only\">Say it first, then reveal.</p>"
    );

    assert_eq!(
        tally_summary().to_html(),
        "<summary>Class tally (for instructors)</summary>"
    );
}

#[test]
fn the_lesson_page_writes_its_predict_steps_from_the_view() {
    let lesson = goodput::lesson::find("latency-throughput-slos").expect("the lesson ships");
    let page = lesson_page();
    let mut kinds = std::collections::BTreeSet::new();
    for step in lesson.predict_steps() {
        let wrapper = tag(&page.body, &format!("{}=\"{}\"", markup::STEP_ID, step.id));
        assert!(has(wrapper, markup::ISLAND, "predict"), "{wrapper}");
        // The data the wasm reads back from the wrapper.
        for (name, value) in markup::answer_attributes(&step.answer) {
            assert!(has(wrapper, name, &value), "{name} in {wrapper}");
        }
        let at = page.body.find(wrapper).expect("the wrapper") + wrapper.len();
        let island = &page.body[at..];
        // A chart prediction's answer is simulated and drawn by the page build: the view is given what the page
        // shows (the load it names, its picture), and the rest must match.
        let simulated = match step.answer {
            PredictAnswer::ChartPrediction { .. } => {
                let figure = between(island, "<figure class=\"chart chart-static\">", "</figure>");
                let figure = &figure["<figure class=\"chart chart-static\">".len()
                    ..figure.len() - "</figure>".len()];
                let sentence =
                    between(island, "<p class=\"predict-numbers\"><strong>", "</strong>");
                let actual = sentence
                    .split(" at ")
                    .nth(1)
                    .and_then(|rest| rest.split('%').next())
                    .map(|percent| percent.parse::<f64>().expect("a percentage") / 100.0);
                Some(SimulatedCurve {
                    actual,
                    figure: Html(figure.to_owned()),
                })
            }
            _ => None,
        };
        let view = folded(step.clone(), simulated);
        assert!(
            island.starts_with(&format!("{view}</div>")),
            "{}: {view}\n\n{}",
            step.id,
            &island[..view.len().min(island.len())]
        );
        kinds.insert(markup::answer_kind(&step.answer));
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        [
            "chart-prediction",
            "multiple-choice",
            "numeric-estimate",
            "recall"
        ],
        "the lesson has every kind of step"
    );
}
