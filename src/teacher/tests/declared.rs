//! What a passage answers: the lesson's `@answers` blocks as the compiler reads them and the teacher uses them, the
//! closest passage for a question that names a part of the lesson but matches it weakly, and Little's Law worked for
//! whichever of its quantities a question asks.

use goodput::lesson::{find, PassageAnswer, QuestionKind};
use goodput_lesson_compiler::compile_lesson;
use goodput_teacher::answer::Answer;
use goodput_teacher::passages::{passages, quote_in, PassageKind};
use goodput_teacher::worked::{littles_law_answer, LittleQuantity};
use goodput_teacher::Teacher;
use std::path::Path;

fn teacher() -> Teacher {
    Teacher::new(find("latency-throughput-slos").expect("the course lesson"))
}

#[test]
fn the_sample_lessons_answers_name_their_passage() {
    // The lessons' compiler's sample, kept with the compiler's tests at the top of the workspace.
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/lessons/07-sample.md");
    let source = std::fs::read_to_string(path).expect("the sample lesson");
    let lesson = compile_lesson("tests/fixtures/lessons/07-sample.md", &source)
        .unwrap_or_else(|error| panic!("{error}"));
    let passages = passages(&lesson);
    assert_eq!(
        lesson.answers,
        [PassageAnswer {
            passage: 3,
            quote: "Time to first token".into(),
            kind: QuestionKind::Composition,
            asks: vec![
                "What is TTFT made of?".into(),
                "What goes into TTFT?".into()
            ],
        }]
    );
    assert_eq!(passages[3].text, "TTFT: Time to first token.");
}

#[test]
fn littles_law_is_worked_for_whichever_quantity_is_asked() {
    let worked = |question: &str| {
        let little = littles_law_answer(question).unwrap_or_else(|| panic!("{question}"));
        (little.asked, little.value())
    };
    assert_eq!(
        worked("how many reqs in flight at 20rps w/ 3s latency"),
        (LittleQuantity::InFlight, 60.0)
    );
    assert_eq!(
        worked("64 requests in flight at 8 req/s - what's the average latency?"),
        (LittleQuantity::Latency, 8.0)
    );
    assert_eq!(
        worked("what latency do I get with 40 in flight at 10 rps"),
        (LittleQuantity::Latency, 4.0)
    );
    assert_eq!(
        worked("what throughput does a replica get with 32 concurrent and 4s each?"),
        (LittleQuantity::Throughput, 8.0)
    );
    // "are in flight" is a count of requests inside; "how many requests" at a rate and a latency asks for L.
    assert_eq!(
        worked("avg latency if 90 requests are in flight at 45 rps"),
        (LittleQuantity::Latency, 2.0)
    );
    assert_eq!(
        worked("how many requests does the server hold at 16 rps and 2.5s each"),
        (LittleQuantity::InFlight, 40.0)
    );
    // The quantity asked by its symbol, the given ones by their units or as an equation.
    assert_eq!(
        worked("we see 90 requests in flight at 30 qps. whats W"),
        (LittleQuantity::Latency, 3.0)
    );
    assert_eq!(
        worked("L for 4 rps and 3000ms?"),
        (LittleQuantity::InFlight, 12.0)
    );
    assert_eq!(
        worked("what's X when L = 40 and W = 4 s"),
        (LittleQuantity::Throughput, 10.0)
    );
    assert_eq!(
        worked("W is 2 s and L is 30, so X?"),
        (LittleQuantity::Throughput, 15.0)
    );
    // A fleet asked for is a sizing; a question with one number, or that asks nothing, is no Little's Law sum.
    assert_eq!(
        littles_law_answer("30 QPS, 64 slots, 8 s per request: how many replicas?"),
        None
    );
    assert_eq!(
        littles_law_answer("how many requests in flight at 20 rps?"),
        None
    );
    assert_eq!(littles_law_answer("What is Little's Law?"), None);
    assert_eq!(
        littles_law_answer("0 rps and 0 s: how many in flight?"),
        None
    );

    let html =
        teacher().answer_html("30 QPS and 8 s per request: how many requests are in flight?");
    assert!(
        html.contains("<strong>240 requests in flight</strong>"),
        "{html}"
    );
    assert!(
        html.contains("L = X × W = 30 requests/s × 8.0 s = 240."),
        "{html}"
    );
    assert!(html.contains("#littles-law-sizes-the-fleet"), "{html}");
}

#[test]
fn the_lesson_says_what_its_passages_answer_for_every_kind_of_question() {
    let lesson = find("latency-throughput-slos").unwrap();
    let all = passages(lesson);
    for kind in QuestionKind::DECLARED {
        if kind == QuestionKind::Definition || kind == QuestionKind::Simple {
            continue; // keywords, TL;DRs and analogies answer these by their kind of block
        }
        assert!(
            lesson.answers.iter().any(|entry| entry.kind == kind),
            "no passage of the lesson declares a {kind:?} question"
        );
    }
    for entry in &lesson.answers {
        assert!(
            quote_in(&all[entry.passage].text, &entry.quote).is_some(),
            "{entry:?}"
        );
    }
}

#[test]
fn a_passage_declared_to_answer_the_question_asked_leads() {
    let teacher = teacher();
    let first = |question: &str| teacher.answer(question).shown()[0].text.clone();
    assert!(first("what is TTFT made of?").contains("queueing plus prefill"));
    assert!(first("how long does a new replica take to serve?").contains("4 min 38 s"));
    let metric = first("which metric shows requests stuck waiting?");
    assert!(metric.starts_with("num_requests_waiting:"), "{metric}");
    assert!(first("why not run GPUs at 99% busy?").contains("last few percent of load"));
    assert!(first("what happens to latency at full load?").starts_with("Raise the load"));
    // A comparison the glossary cannot set side by side is answered by the passage declared for it.
    assert!(first("ttft vs e2e??").contains("same total time"));
    // ... in whichever order its two terms come, and with the learner's word for one of them.
    assert!(first("round trip time vs ttft").contains("same total time"));
    // What a composition asks the parts of is named by its keyword, and "TPOT / ITL" names TPOT more than "ITL vs
    // TPOT" does.
    assert!(first("what factors go into tpot").starts_with("TPOT / ITL:"));
    let reversed = first("num_requests_waiting vs num_requests_running?");
    assert!(reversed.contains("num_requests_running"), "{reversed}");
}

#[test]
fn a_question_for_a_metric_is_not_answered_with_a_flag_nor_the_reverse() {
    let teacher = teacher();
    let first = |question: &str| teacher.answer(question).shown()[0].text.clone();
    // A flag's keyword holds "concurrency" and "Little's Law" too; the metric is what was asked for.
    let metric = first("which vllm metric gives the concurrency L for littles law");
    assert!(metric.contains("num_requests_running"), "{metric}");
    let flag = first("what setting limits how many seqs run at once");
    assert!(flag.starts_with("--max-num-seqs:"), "{flag}");
    // "Number" and "/metrics" say only what sort of answer is wanted: the live concurrency is what is asked about.
    let metric = first("which number on /metrics is the live concurrency");
    assert!(metric.contains("num_requests_running"), "{metric}");
    // Asked for a metric, the answer names one: the list of metrics, not the TTFT prose; TTFT is searched as the
    // metric spells it out (time_to_first_token).
    let metric = first("whats the prometheus metric name for ttft");
    assert!(metric.contains("time_to_first_token_seconds"), "{metric}");
    // Something to alert on is a metric, so a flag declared for words it shares ("at once", "caps") does not lead.
    let metric = first("what should i alert on once the queue is capped");
    assert!(metric.contains("admission_rejections_total"), "{metric}");
}

#[test]
fn a_question_that_names_a_part_of_the_lesson_but_matches_weakly_gets_that_parts_opening() {
    let teacher = teacher();
    match teacher.answer("TTFT and the network?") {
        Answer::Closest(opening) => {
            assert_eq!(
                opening.section_id.as_deref(),
                Some("two-clocks-ttft-and-tpot")
            );
            assert_eq!(opening.kind, PassageKind::Tldr);
        }
        other => panic!("expected the two clocks' opening, got {other:?}"),
    }
    let html = teacher.answer_html("TTFT and the network?");
    assert!(html.contains("The closest passage is the opening of <a href=\"lessons/latency-throughput-slos/#two-clocks-ttft-and-tpot\">"), "{html}");
    assert!(html.contains("<blockquote>"), "{html}");
    // Two words the lesson never uses are another subject, however the knee is named.
    assert!(matches!(
        teacher.answer("Which GPU vendor has the best drivers for the knee?"),
        Answer::NotCovered(Some(_))
    ));
}

#[test]
fn a_weak_match_whose_best_passages_share_one_section_is_answered_from_the_best_not_called_its_opening(
) {
    let teacher = teacher();
    let question = "why do my tokens/s look great while users wait forever";
    match teacher.answer(question) {
        Answer::ClosestIn(best) => assert_eq!(
            best.section_id.as_deref(),
            Some("goodput-throughput-that-meets-the-slo")
        ),
        other => panic!("expected the goodput section's best passage, got {other:?}"),
    }
    let html = teacher.answer_html(question);
    assert!(html.contains("The closest passage is in <a href=\"lessons/latency-throughput-slos/#goodput-throughput-that-meets-the-slo\">"), "{html}");
    assert!(!html.contains("opening"), "{html}");
    assert!(html.contains("<blockquote>"), "{html}");
}
