//! The lesson compiler: every authoring mistake fails with `file:line: message`, the shipped lessons compile, and a
//! sample lesson compiles into exactly the typed data it describes.

use goodput_lesson::*;
use goodput_lesson_compiler::{compile_lesson, CompileError};
use std::collections::BTreeMap;
use std::path::Path;

#[path = "../../../../tests/support/sample_lesson.rs"]
mod sample_lesson;
use sample_lesson::{FILE, FRONT_MATTER};

/// Compiles `body` after the standard front matter and returns the error it must produce.
fn error_of(body: &str) -> CompileError {
    let source = format!("{FRONT_MATTER}{body}");
    compile_lesson(FILE, &source).expect_err("this lesson must not compile")
}

/// Asserts the error's line and that its message says `expected`.
fn assert_error(error: &CompileError, line: usize, expected: &str) {
    assert_eq!(error.file, FILE);
    assert_eq!(error.line, line, "wrong line for: {error}");
    assert!(
        error.message.contains(expected),
        "message `{}` lacks `{expected}`",
        error.message
    );
    assert!(
        error.to_string().starts_with(&format!("{FILE}:{line}: ")),
        "{error}"
    );
}

#[test]
fn bad_toml_in_a_directive_points_at_the_broken_line() {
    let error = error_of("Intro.\n\n```@tldr\ntext = \"never closed\n```\n");
    assert_error(&error, 12, "in `@tldr`:");
    assert_error(&error, 12, "its TOML body takes text");
}

#[test]
fn a_missing_required_field_is_named() {
    let error = error_of("```@recall\nid = \"r\"\nprompt = \"What is the knee?\"\n```\n");
    assert_error(&error, 10, "missing field `answer`");
}

#[test]
fn an_unknown_field_is_refused() {
    let error = error_of("```@tldr\ntext = \"t\"\ntxet = \"typo\"\n```\n");
    assert_error(&error, 11, "unknown field `txet`");
}

#[test]
fn an_unknown_directive_lists_the_known_ones() {
    let error = error_of("Intro.\n\n```@recal\nid = \"r\"\n```\n");
    assert_error(
        &error,
        11,
        "unknown directive `@recal`; use one of @tldr, @analogy",
    );
    assert_error(&error, 11, "or drop the `@` for a plain code block");
}

#[test]
fn an_unknown_widget_lists_the_known_ones() {
    let error = error_of("```@widget\ncaption = \"Try it\"\nname = \"knee-labb\"\n```\n");
    assert_error(
        &error,
        11,
        "unknown widget `knee-labb`; known widgets: knee-lab, goodput-chart, littles-law-sizer, metrics-reader",
    );
}

#[test]
fn a_duplicate_heading_anchor_names_the_first_use() {
    let error = error_of("## The knee\n\nText.\n\n## The knee\n");
    assert_error(
        &error,
        13,
        "duplicate id `the-knee`, already used on line 9",
    );
}

#[test]
fn a_directive_id_may_not_repeat_a_heading_anchor() {
    let error =
        error_of("## Knee\n\n```@recall\nid = \"knee\"\nprompt = \"p\"\nanswer = \"a\"\n```\n");
    assert_error(&error, 12, "duplicate id `knee`, already used on line 9");
}

#[test]
fn bad_front_matter_points_into_the_front_matter() {
    let source = FRONT_MATTER.replace("number = 99", "number = \"ninety-nine\"");
    let error = compile_lesson(FILE, &source).unwrap_err();
    assert_error(
        &error,
        3,
        "bad front matter: invalid type: string \"ninety-nine\", expected u32",
    );
}

#[test]
fn front_matter_missing_a_field_is_named() {
    let source = FRONT_MATTER.replace("minutes = 3\n", "");
    let error = compile_lesson(FILE, &source).unwrap_err();
    assert_error(&error, 2, "missing field `minutes`");
}

#[test]
fn a_lesson_without_front_matter_is_refused() {
    let error = compile_lesson(FILE, "# Title\n").unwrap_err();
    assert_error(
        &error,
        1,
        "missing front matter; front matter is TOML between `+++` lines",
    );
}

#[test]
fn front_matter_must_agree_with_the_file_name() {
    let source = FRONT_MATTER.replace("slug = \"sample\"", "slug = \"other\"");
    let error = compile_lesson(FILE, &source).unwrap_err();
    assert_error(
        &error,
        4,
        "front matter says slug = \"other\" but the file name says \"sample\"",
    );
}

#[test]
fn a_broken_internal_link_is_refused() {
    let error = error_of("## The knee\n\nSee [the knee](#the-knee) and [goodput](#goodput).\n");
    assert_error(
        &error,
        11,
        "the link `#goodput` matches no heading or id in this lesson",
    );
}

#[test]
fn raw_html_blocks_are_refused() {
    let error = error_of("Intro.\n\n<script>alert(1)</script>\n");
    assert_error(&error, 11, "raw HTML is not allowed in a lesson");
}

#[test]
fn inline_raw_html_is_refused() {
    let error = error_of("Intro.\n\nSome <b onclick=\"x()\">bold</b> text.\n");
    assert_error(
        &error,
        11,
        "raw HTML is not allowed in a lesson (found `<b onclick=\"x()\">`)",
    );
}

#[test]
fn raw_html_inside_a_directive_field_is_refused_at_the_field() {
    let error = error_of(
        "```@explain\nprompt = \"Say it\"\nanswer = \"<img src=x onerror=alert(1)>\"\n```\n",
    );
    assert_error(&error, 11, "raw HTML is not allowed in a lesson");
}

#[test]
fn script_links_are_refused() {
    let error = error_of("Intro.\n\n[click](javascript:alert(1))\n");
    assert_error(
        &error,
        11,
        "the link `javascript:alert(1)` uses the `javascript:` scheme; only http, https, mailto",
    );
}

#[test]
fn data_images_are_refused() {
    let error = error_of("![x](data:image/svg+xml,evil)\n");
    assert_error(&error, 9, "uses the `data:` scheme");
}

#[test]
fn broken_math_is_refused() {
    let error = error_of("Text.\n\n$$\\notacommand{L}$$\n");
    assert_error(&error, 11, "cannot render the math `\\notacommand{L}`");
}

#[test]
fn a_predict_step_needs_the_fields_of_its_type() {
    let body = "```@predict\nid = \"p\"\ntitle = \"t\"\nquestion = \"q\"\nreveal = \"r\"\ntype = \"numeric-estimate\"\nanswer = 4\n```\n";
    let error = error_of(body);
    assert_error(
        &error,
        14,
        "needs exactly one of `tolerance` (in units) or `relative_tolerance`",
    );
}

#[test]
fn a_multiple_choice_step_needs_exactly_one_right_option() {
    let body = "```@predict\nid = \"p\"\ntitle = \"t\"\nquestion = \"q\"\nreveal = \"r\"\ntype = \"multiple-choice\"\n\n[[options]]\nlabel = \"a\"\nexplanation = \"e\"\n\n[[options]]\nlabel = \"b\"\nexplanation = \"e\"\n```\n";
    let error = error_of(body);
    assert_error(&error, 14, "at least one with `correct = true`");
}

/// A predict step of `type` with `fields` after the common ones; the `type` line is line 14.
fn predict_step(kind: &str, fields: &str) -> String {
    format!("```@predict\nid = \"p\"\ntitle = \"t\"\nquestion = \"q\"\nreveal = \"r\"\ntype = \"{kind}\"\n{fields}```\n")
}

#[test]
fn a_multiple_choice_step_may_have_several_right_options_but_not_only_right_ones() {
    let options =
        "[[options]]\nlabel = \"a\"\ncorrect = true\n[[options]]\nlabel = \"b\"\ncorrect = true\n";
    assert_error(
        &error_of(&predict_step("multiple-choice", options)),
        14,
        "at least one without",
    );
    let source = format!(
        "{FRONT_MATTER}{}",
        predict_step(
            "multiple-choice",
            &format!("{options}[[options]]\nlabel = \"c\"\nexplanation = \"Not c.\"\n")
        )
    );
    let lesson = compile_lesson(FILE, &source).unwrap_or_else(|error| panic!("{error}"));
    let Block::Predict(step) = &lesson.blocks[0] else {
        panic!("{:?}", lesson.blocks)
    };
    let PredictAnswer::MultipleChoice { options } = &step.answer else {
        panic!("{:?}", step.answer)
    };
    let right: Vec<bool> = options.iter().map(|option| option.correct).collect();
    assert_eq!(right, [true, true, false]);
    assert_eq!(options[0].explanation, None, "explanations are optional");
    assert_eq!(options[2].explanation, Some(html("Not c.")));
}

#[test]
fn a_field_of_another_predict_type_is_refused() {
    let error = error_of(&predict_step(
        "numeric-estimate",
        "answer = 4\ntolerance = 1\ntarget = \"knee\"\n",
    ));
    assert_error(
        &error,
        14,
        "`target` is not a field of a `numeric-estimate` predict step",
    );
}

#[test]
fn a_chart_prediction_needs_a_known_target_and_a_sensible_range() {
    let error = error_of(&predict_step(
        "chart-prediction",
        "target = \"kneee\"\nfrom = 80\nto = 99\ntolerance = 2\n",
    ));
    assert_error(
        &error,
        15,
        "unknown chart target `kneee`; use one of knee, slo-crossing, goodput-below-90",
    );
    let error = error_of(&predict_step(
        "chart-prediction",
        "target = \"knee\"\nto = 99\ntolerance = 2\n",
    ));
    assert_error(&error, 14, "needs `from` and `to`");
    let error = error_of(&predict_step(
        "chart-prediction",
        "target = \"knee\"\nfrom = 99\nto = 80\ntolerance = 2\n",
    ));
    assert_error(&error, 14, "make no range");
    let error = error_of(&predict_step(
        "chart-prediction",
        "target = \"knee\"\nfrom = 10\nto = 100\nstep = 1\ntolerance = 2\n",
    ));
    assert_error(&error, 14, "91 loads to simulate; at most 60");
    let error = error_of(&predict_step(
        "chart-prediction",
        "target = \"knee\"\nfrom = 80\nto = 90\ntolerance = 20\n",
    ));
    assert_error(&error, 14, "below the range's width (10 points)");
    let error = error_of(&predict_step(
        "chart-prediction",
        "target = \"knee\"\nfrom = 80\nto = 90\n",
    ));
    assert_error(&error, 14, "needs `tolerance`");
}

#[test]
fn a_task_list_needs_well_formed_unique_task_ids() {
    let list = |ids: &[&str]| {
        let tasks: String = ids
            .iter()
            .map(|id| format!("[[tasks]]\nid = \"{id}\"\nlabel = \"Do it.\"\n"))
            .collect();
        format!("```@tasks\nid = \"lab-tasks\"\ntitle = \"In the lab\"\n{tasks}```\n")
    };
    // Line 9 is the fence, 10 the body's first line, 12 the first task's `[[tasks]]`, 13 its id, 16 the second id.
    assert_error(
        &error_of(&list(&["Knee/Go"])),
        13,
        "the task id `Knee/Go` must be lowercase",
    );
    assert_error(
        &error_of(&list(&["lab//go"])),
        13,
        "in parts separated by `/`",
    );
    assert_error(
        &error_of(&list(&["lab/go", "lab/go"])),
        16,
        "duplicate id `lab/go`, already used on line 13",
    );
    assert_error(&error_of(&list(&[])), 10, "missing field `tasks`");
    let source = format!(
        "{FRONT_MATTER}{}",
        list(&["knee-lab/p99-crosses-slo", "knee-lab/closed-loop"])
    );
    let lesson = compile_lesson(FILE, &source).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        lesson.blocks,
        [Block::Tasks(TaskList {
            id: "lab-tasks".into(),
            title: "In the lab".into(),
            tasks: vec![
                Task {
                    id: "knee-lab/p99-crosses-slo".into(),
                    label: html("Do it.")
                },
                Task {
                    id: "knee-lab/closed-loop".into(),
                    label: html("Do it.")
                },
            ],
        })]
    );
}

#[test]
fn a_load_range_lists_its_loads_without_drift() {
    let loads = LoadRange {
        from: 0.8,
        to: 0.99,
        step: 0.01,
    }
    .points();
    assert_eq!(loads.len(), 20);
    assert!((loads[19] - 0.99).abs() < 1e-12);
    assert!(LoadRange {
        from: 0.9,
        to: 0.8,
        step: 0.01
    }
    .points()
    .is_empty());
    assert!(LoadRange {
        from: 0.8,
        to: 0.9,
        step: 0.0
    }
    .points()
    .is_empty());
}

#[test]
fn directives_may_not_hide_inside_lists() {
    let error = error_of("- item\n\n  ```@tldr\n  text = \"t\"\n  ```\n");
    assert_error(&error, 11, "must stand on its own at the top level");
}

fn sample() -> Lesson {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/lessons/07-sample.md");
    let source = std::fs::read_to_string(path).unwrap();
    compile_lesson("tests/fixtures/lessons/07-sample.md", &source)
        .unwrap_or_else(|error| panic!("{error}"))
}

fn html(text: &str) -> Html {
    Html(text.to_string())
}

#[test]
fn the_sample_lesson_compiles_into_typed_data() {
    let lesson = sample();
    assert_eq!(
        lesson.meta,
        LessonMeta {
            slug: "sample".into(),
            number: 7,
            title: "A sample lesson".into(),
            summary: "Every directive once.".into(),
            objectives: vec![html("Read <strong>bold</strong> objectives.")],
            minutes: 5,
        }
    );
    let blocks = &lesson.blocks;
    assert_eq!(blocks.len(), 14, "{blocks:#?}");

    let Block::Html(prose) = &blocks[0] else {
        panic!("prose first: {:?}", blocks[0])
    };
    assert!(
        prose.as_str().starts_with(
            "<h2 id=\"knee\">The knee <a class=\"heading-anchor\" href=\"#knee\" \
             aria-label=\"Link to this section: The knee\">#</a></h2>"
        ),
        "{}",
        prose.as_str()
    );
    assert!(
        prose.as_str().contains("<math display=\"inline\">"),
        "{}",
        prose.as_str()
    );
    assert!(
        prose.as_str().contains("<a href=\"#recall-knee\">link</a>"),
        "{}",
        prose.as_str()
    );

    assert_eq!(
        blocks[1],
        Block::Tldr(Tldr {
            text: html("Short <em>summary</em>.")
        })
    );
    assert_eq!(
        blocks[2],
        Block::Analogy(Analogy {
            title: "Pantry".into(),
            body: html("A road to the pantry.")
        })
    );
    assert_eq!(
        blocks[3],
        Block::Keywords(Keywords {
            terms: vec![
                Keyword {
                    term: "TTFT".into(),
                    meaning: html("Time to <strong>first</strong> token.")
                },
                Keyword {
                    term: "TPOT".into(),
                    meaning: html("Time per output token.")
                },
            ]
        })
    );

    let Block::MathDecoded(math) = &blocks[4] else {
        panic!("math: {:?}", blocks[4])
    };
    assert!(
        math.formula
            .as_str()
            .starts_with("<math display=\"block\">"),
        "{}",
        math.formula.as_str()
    );
    assert_eq!(math.legend.len(), 1);
    assert!(math.legend[0].symbol.as_str().contains("<mi>L</mi>"));
    assert_eq!(math.legend[0].meaning, html("in flight"));
    assert_eq!(math.note, Some(html("Little's Law.")));

    assert_eq!(
        blocks[5],
        Block::RecallCard(RecallCard {
            id: "recall-knee".into(),
            prompt: html("What is the knee?"),
            answer: html("Where throughput saturates."),
        })
    );
    assert_eq!(
        blocks[6],
        Block::Predict(PredictStep {
            id: "predict-choice".into(),
            title: "Step 1".into(),
            question: html("Which phase sets TTFT?"),
            answer: PredictAnswer::MultipleChoice {
                options: vec![
                    ChoiceOption {
                        label: html("Prefill"),
                        correct: true,
                        explanation: Some(html("One pass over the prompt."))
                    },
                    ChoiceOption {
                        label: html("Decode"),
                        correct: false,
                        explanation: Some(html("That sets TPOT."))
                    },
                ]
            },
            reveal: html("Prefill."),
        })
    );
    let Block::Predict(numeric) = &blocks[7] else {
        panic!("numeric: {:?}", blocks[7])
    };
    assert_eq!(
        numeric.answer,
        PredictAnswer::NumericEstimate {
            answer: 4.0,
            tolerance: Tolerance::Relative(0.25),
            unit: "replicas".into()
        }
    );
    let Block::Predict(chart) = &blocks[8] else {
        panic!("chart: {:?}", blocks[8])
    };
    assert_eq!(
        chart.answer,
        PredictAnswer::ChartPrediction {
            target: ChartTarget::SloCrossing,
            loads: LoadRange {
                from: 0.8,
                to: 0.99,
                step: 0.01
            },
            tolerance: 0.02,
        }
    );
    assert_eq!(
        blocks[9],
        Block::CheckYourself(CheckYourself {
            questions: vec![html("One?"), html("Two?")]
        })
    );
    assert_eq!(
        blocks[10],
        Block::ExplainToColleague(ExplainToColleague {
            prompt: html("We should autoscale when…"),
            answer: html("…the queue grows."),
        })
    );
    assert_eq!(
        blocks[11],
        Block::SpeakerNotes(SpeakerNotes {
            notes: html("Pause here.")
        })
    );
    let settings = BTreeMap::from([
        ("load".to_string(), SettingValue::Number(0.85)),
        ("mode".to_string(), SettingValue::Text("p99".into())),
        ("open_loop".to_string(), SettingValue::Bool(true)),
    ]);
    assert_eq!(
        blocks[12],
        Block::Widget(WidgetEmbed {
            id: Some("lab".into()),
            name: WidgetName::KneeLab,
            caption: Some("Try it".into()),
            settings,
        })
    );
    let Block::Html(code) = &blocks[13] else {
        panic!("code: {:?}", blocks[13])
    };
    assert!(
        code.as_str().starts_with(
            "<pre class=\"code language-bash\" tabindex=\"0\"><code><span class=\"hl-"
        ),
        "{}",
        code.as_str()
    );
}

/// A section with two paragraphs, then another section, then `answers` (an `@answers` body) on line 19.
fn with_answers(answers: &str) -> String {
    format!(
        "## First\n\nQueueing plus prefill make TTFT.\n\nThe knee is a bend.\n\n## Second\n\nThe knee, again.\n\n```@answers\n{answers}```\n"
    )
}

#[test]
fn an_answers_entry_must_point_at_one_passage_of_its_section() {
    let entry = |passage: &str| {
        format!("[[questions]]\nkind = \"composition\"\npassage = \"{passage}\"\nasks = [\"What is TTFT made of?\"]\n")
    };
    assert_error(
        &error_of(&with_answers(&entry("pantry"))),
        22,
        "points nowhere",
    );
    assert_error(
        &error_of(&with_answers(&entry("the knee"))),
        22,
        "is in 2 passages",
    );
    assert_error(
        &error_of(&with_answers(&entry("queueing plus PREFILL"))),
        22,
        "not in the section this `@answers` block stands in",
    );
    let source = format!("{FRONT_MATTER}{}", with_answers(&entry("KNEE, again")));
    let lesson = compile_lesson(FILE, &source).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(lesson.answers[0].passage, 2, "{:?}", lesson.answers);
}

#[test]
fn an_answers_entry_needs_a_known_kind_and_questions() {
    assert_error(
        &error_of(&with_answers(
            "[[questions]]\nkind = \"recipe\"\npassage = \"again\"\nasks = [\"How?\"]\n",
        )),
        21,
        "unknown question kind `recipe`; use one of definition, comparison,",
    );
    assert_error(
        &error_of(&with_answers(
            "[[questions]]\nkind = \"why\"\npassage = \"again\"\nasks = []\n",
        )),
        23,
        "`asks` lists the questions the passage answers",
    );
    assert_error(
        &error_of(&with_answers("")),
        19,
        "needs at least one [[questions]] entry",
    );
}

#[test]
fn lesson_data_survives_the_json_the_page_reads() {
    let lesson = sample();
    let json = serde_json::to_string(&lesson).unwrap();
    let back: Lesson = serde_json::from_str(&json).unwrap();
    assert_eq!(back, lesson);
}

#[test]
fn numeric_tolerance_accepts_close_estimates_only() {
    assert!(Tolerance::Relative(0.25).accepts(4.0, 5.0));
    assert!(!Tolerance::Relative(0.25).accepts(4.0, 5.5));
    assert!(Tolerance::Absolute(2.0).accepts(10.0, 8.0));
    assert!(!Tolerance::Absolute(2.0).accepts(10.0, 7.9));
}

#[test]
fn the_readme_example_compiles() {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../lessons/README.md"),
    )
    .unwrap();
    let start = readme
        .find("````markdown\n")
        .expect("README has a complete example")
        + "````markdown\n".len();
    let end = start
        + readme[start..]
            .find("\n````\n")
            .expect("the example is closed");
    let lesson = compile_lesson("lessons/07-queues.md", &readme[start..=end])
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(lesson.meta.slug, "queues");
    assert!(lesson
        .blocks
        .iter()
        .any(|block| matches!(block, Block::Predict(_))));
}

#[test]
fn table_alignment_is_a_class_because_the_csp_refuses_inline_styles() {
    let source = format!(
        "{FRONT_MATTER}Intro.\n\n| load | p99 |\n|:--|--:|\n| 85% | 120 ms |\n\nText that says style=\"text-align: right\" stays text.\n"
    );
    let lesson = compile_lesson(FILE, &source).unwrap_or_else(|error| panic!("{error}"));
    let json = serde_json::to_string(&lesson).unwrap();
    assert!(
        json.contains(r#"<th class=\"align-left\">load</th>"#),
        "{json}"
    );
    assert!(
        json.contains(r#"<td class=\"align-right\">120 ms</td>"#),
        "{json}"
    );
    assert!(
        !json.contains("<th style") && !json.contains("<td style"),
        "{json}"
    );
    assert!(
        json.contains(r#"says style=\"text-align: right\" stays"#),
        "{json}"
    );
}

#[test]
fn a_heading_takes_only_a_safe_id() {
    // Lessons are contributed text: attributes on a heading would reach the page as they were written.
    let error = error_of("Intro.\n\n## Title {onclick=alert(1) style=color:red}\n");
    assert_error(&error, 11, "a heading takes only an id");
    assert_error(&error, 11, "not `onclick`");
    assert_error(&error_of("## Title {.shout}\n"), 9, "not `.shout`");
    assert_error(
        &error_of("Intro.\n\n## Title {#ok data-x=1}\n"),
        11,
        "not `data-x`",
    );
    // An id that would end the heading link's href and add attributes of its own.
    let error = error_of("## Title {#x\"onmouseover=\"alert(1)}\n");
    assert_error(&error, 9, "may hold only letters");
    for unsafe_id in ["a'b", "café", "a&b", "a`b"] {
        let error = error_of(&format!("## Title {{#{unsafe_id}}}\n"));
        assert_error(&error, 9, "may hold only letters");
    }
}

#[test]
fn a_safe_heading_id_is_the_anchor_and_its_link() {
    let source = format!("{FRONT_MATTER}## The knee {{#Knee_2-b}}\n\nSee [it](#Knee_2-b).\n");
    let lesson = compile_lesson(FILE, &source).expect("a safe id compiles");
    let Block::Html(Html(html)) = &lesson.blocks[0] else {
        panic!("prose first: {:?}", lesson.blocks[0]);
    };
    assert!(html.starts_with("<h2 id=\"Knee_2-b\">The knee"), "{html}");
    assert!(html.contains("href=\"#Knee_2-b\""), "{html}");
}
