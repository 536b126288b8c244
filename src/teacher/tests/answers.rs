//! The teacher's answers from the course: ranking, the sizing parser, the SLO table and the kinds of question (asking
//! the learner's own model is `own_model.rs`).

use goodput::cluster::autoscale::{Workload, SLO_SUGGESTIONS};
use goodput::lesson::find;
use goodput::lesson::Block;
use goodput::presentation::html::{first_id, heading_level, heading_text, top_level_fragments};
use goodput_teacher::answer::Answer;
use goodput_teacher::passages::PassageKind;
use goodput_teacher::quantities::{quantities, Quantity};
use goodput_teacher::untaught::UNTAUGHT;
use goodput_teacher::vocabulary::normalise;
use goodput_teacher::worked::{sizing_answer, slo_answer, SizingAnswer, SizingNeed};
use goodput_teacher::Teacher;

fn teacher() -> Teacher {
    Teacher::new(find("latency-throughput-slos").expect("the course lesson"))
}

/// Every `##` section of the lesson: (anchor, heading).
fn sections() -> Vec<(String, String)> {
    let lesson = find("latency-throughput-slos").unwrap();
    let mut found = Vec::new();
    for block in &lesson.blocks {
        if let Block::Html(html) = block {
            for range in top_level_fragments(html.as_str()) {
                let fragment = &html.as_str()[range];
                if heading_level(fragment) == Some(2) {
                    found.push((
                        first_id(fragment).expect("headings have anchors"),
                        heading_text(fragment),
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn each_sections_own_heading_question_finds_that_section_first() {
    let teacher = teacher();
    let sections = sections();
    assert!(sections.len() >= 8, "{sections:?}");
    for (id, heading) in sections {
        let question = format!("Tell me about {heading}?");
        let hits = teacher.search(&question);
        let (best, _) = hits
            .first()
            .unwrap_or_else(|| panic!("nothing found for {question}"));
        assert_eq!(
            best.section_id.as_deref(),
            Some(id.as_str()),
            "{question} found {}",
            best.section_title
        );
    }
}

#[test]
fn a_definition_is_answered_with_its_passage_and_section_link() {
    let teacher = teacher();
    match teacher.answer("What is goodput?") {
        Answer::Passages(found) => {
            assert!(
                found[0].text.to_lowercase().contains("goodput"),
                "{:?}",
                found[0]
            );
            assert!(found[0].section_id.is_some());
        }
        other => panic!("expected passages, got {other:?}"),
    }
    let html = teacher.answer_html("What does TTFT mean?");
    assert!(
        html.contains("<a href=\"lessons/latency-throughput-slos/#two-clocks-ttft-and-tpot\">"),
        "{html}"
    );
    assert!(html.contains("TTFT"), "{html}");
}

#[test]
fn stemming_meets_other_forms_of_a_word() {
    let teacher = teacher();
    let plural = teacher.search("reading latency percentiles");
    let singular = teacher.search("read latency percentile");
    assert!(!plural.is_empty());
    assert_eq!(
        plural.first().map(|(p, _)| p.text.clone()),
        singular.first().map(|(p, _)| p.text.clone())
    );
}

#[test]
fn a_misspelt_word_is_read_as_the_word_meant_but_a_short_one_only_through_a_swap() {
    let teacher = teacher();
    for (typed, meant) in [
        ("waht is goodptu", "what is goodput"),
        ("expalin the knee", "explain the knee"),
        (
            "wats the diffrence between ttft and tpot",
            "wats the difference between ttft and tpot",
        ),
    ] {
        assert_eq!(teacher.answer(typed), teacher.answer(meant), "{typed}");
    }
    // "spot" is one letter from the lesson's "slot", and another word: the untaught "spot instances" stay untaught.
    assert!(matches!(
        teacher.answer("how much are spot instances for this"),
        Answer::NotCovered(_)
    ));
}

#[test]
fn speaker_notes_are_never_passages() {
    let lesson = find("latency-throughput-slos").unwrap();
    let notes: Vec<String> = lesson
        .blocks
        .iter()
        .filter_map(|block| match block {
            Block::SpeakerNotes(notes) => Some(goodput::presentation::html::plain_text(
                notes.notes.as_str(),
            )),
            _ => None,
        })
        .collect();
    assert!(
        !notes.is_empty(),
        "the lesson has speaker notes to leave out"
    );
    let teacher = teacher();
    for note in notes {
        assert!(teacher.passages().iter().all(|p| p.text != note), "{note}");
    }
    let kinds: Vec<PassageKind> = teacher.passages().iter().map(|p| p.kind).collect();
    for kind in [
        PassageKind::Prose,
        PassageKind::Tldr,
        PassageKind::Keyword,
        PassageKind::Recall,
        PassageKind::Explanation,
    ] {
        assert!(kinds.contains(&kind), "no {kind:?} passage");
    }
}

#[test]
fn a_question_the_course_cannot_answer_says_so_and_points_at_the_closest_section() {
    let teacher = teacher();
    assert_eq!(
        teacher.answer("What is the capital of France?"),
        Answer::NotCovered(None)
    );
    let html = teacher.answer_html("What is the capital of France?");
    assert!(html.contains("cannot answer"), "{html}");
    match teacher.answer("Which GPU vendor has the best drivers for the knee?") {
        Answer::NotCovered(Some(closest)) => assert!(closest.section_id.is_some()),
        other => panic!("expected not covered, got {other:?}"),
    }
    assert!(teacher
        .answer_html("Which GPU vendor has the best drivers for the knee?")
        .contains("does not answer"));
    assert_eq!(teacher.answer("   "), Answer::Empty);
}

#[test]
fn a_topic_said_to_be_untaught_is_one_the_lesson_never_names() {
    let teacher = teacher();
    let lesson = normalise(
        &teacher
            .passages()
            .iter()
            .map(|p| format!("{} {}", p.section_title, p.text))
            .collect::<Vec<_>>()
            .join(" "),
    );
    for phrase in UNTAUGHT {
        assert!(
            !lesson.contains(&format!(" {phrase} ")),
            "the lesson names {phrase:?}"
        );
    }
}

#[test]
fn a_price_word_that_is_also_an_everyday_word_does_not_refuse_a_question_the_lesson_answers() {
    let teacher = teacher();
    for question in [
        "are spot instances ok for serving",
        "whats the hourly rate of an h100",
    ] {
        assert!(
            matches!(teacher.answer(question), Answer::NotCovered(_)),
            "{question}: {:?}",
            teacher.answer(question)
        );
    }
    for question in [
        "how do i spot the knee on my dashboard",
        "our hourly traffic doubles at lunch, how many replicas do i need at peak",
    ] {
        assert!(
            !matches!(teacher.answer(question), Answer::NotCovered(_)),
            "{question}: {:?}",
            teacher.answer(question)
        );
    }
}

#[test]
fn how_to_set_up_what_the_lesson_never_names_is_not_answered_but_how_to_set_up_what_it_does_is() {
    let teacher = teacher();
    for question in [
        "how do i deploy vllm on eks with terraform",
        "how do I write a helm chart for vllm",
        "does prefix caching help ttft",
    ] {
        assert!(
            matches!(teacher.answer(question), Answer::NotCovered(_)),
            "{question}: {:?}",
            teacher.answer(question)
        );
    }
    // Its setup verbs and tools aside, this one asks what the lesson teaches.
    let answer = teacher.answer("how do i configure the concurrency cap on a replica");
    assert!(
        answer
            .shown()
            .iter()
            .any(|p| p.text.contains("max-num-seqs")),
        "{answer:?}"
    );
    // A flag's name ("--enable-…") is not a setup verb.
    assert_eq!(
        goodput_teacher::untaught::set_up("is --enable-chunked-prefill on"),
        None
    );
}

#[test]
fn numbers_are_read_with_their_units() {
    assert_eq!(
        quantities("30 QPS, 64 concurrent sequences, 8 s per request"),
        [
            Quantity::RequestRate(30.0),
            Quantity::Concurrency(64.0),
            Quantity::Duration(8.0)
        ]
    );
    assert_eq!(quantities("300 ms"), [Quantity::Duration(0.3)]);
    assert_eq!(
        quantities("1.5 seconds and 2 minutes"),
        [Quantity::Duration(1.5), Quantity::Duration(120.0)]
    );
    assert_eq!(quantities("12 req/s"), [Quantity::RequestRate(12.0)]);
    assert_eq!(
        quantities("1,200 requests per second"),
        [Quantity::RequestRate(1200.0)]
    );
    assert_eq!(
        quantities("600 requests per minute"),
        [Quantity::RequestRate(10.0)]
    );
    assert_eq!(quantities("2k tokens"), [Quantity::Tokens(2000.0)]);
    assert_eq!(
        quantities("--max-num-seqs 256"),
        [Quantity::Concurrency(256.0)]
    );
    assert_eq!(quantities("80% headroom"), [Quantity::Fraction(0.8)]);
    assert_eq!(quantities("4 replicas"), [Quantity::Replicas(4.0)]);
    // Numbers without a unit say too little.
    assert_eq!(quantities("64 and 8"), []);
}

#[test]
fn number_words_are_read_too() {
    assert_eq!(
        quantities("thirty QPS, sixty-four slots, eight seconds per request"),
        [
            Quantity::RequestRate(30.0),
            Quantity::Concurrency(64.0),
            Quantity::Duration(8.0)
        ]
    );
    assert_eq!(
        quantities("a hundred requests per second"),
        [Quantity::RequestRate(100.0)]
    );
    assert_eq!(
        quantities("two hundred concurrent"),
        [Quantity::Concurrency(200.0)]
    );
}

#[test]
fn the_lessons_sizing_is_worked_to_four_replicas_and_five_with_headroom() {
    let Some(SizingAnswer::Worked {
        at_the_knee,
        with_headroom,
        ..
    }) = sizing_answer("30 QPS, 64 concurrent sequences, 8 s per request: how many replicas?")
    else {
        panic!("a worked sizing");
    };
    assert_eq!(at_the_knee.per_replica_max_qps, 8.0);
    assert_eq!(at_the_knee.replicas, 4);
    assert_eq!(with_headroom.input.headroom, 0.8);
    assert_eq!(with_headroom.replicas, 5);
    let html = teacher()
        .answer_html("30 QPS, 64 concurrent sequences, 8 s per request: how many replicas?");
    assert!(html.contains("⌈30 ÷ 8.0⌉ = ⌈3.8⌉ = 4"), "{html}");
    assert!(html.contains("data-sizer-peak-qps=\"30\""), "{html}");
    // A headroom in the question is used.
    let Some(SizingAnswer::Worked { with_headroom, .. }) =
        sizing_answer("peak 30 req/s, --max-num-seqs 64, 8 s latency, 50% headroom: replicas?")
    else {
        panic!("a worked sizing");
    };
    assert_eq!(with_headroom.replicas, 8);
}

#[test]
fn numbers_are_read_as_people_write_them() {
    let rate = |q: &str| quantities(q);
    assert_eq!(rate("max-num-seqs is 128"), [Quantity::Concurrency(128.0)]);
    assert_eq!(rate("--max-num-seqs=128"), [Quantity::Concurrency(128.0)]);
    assert_eq!(rate("a cap of 128"), [Quantity::Concurrency(128.0)]);
    assert_eq!(rate("the cap is 128"), [Quantity::Concurrency(128.0)]);
    assert_eq!(rate("128 slots"), [Quantity::Concurrency(128.0)]);
    for written in ["4 s", "4000 ms", "4 seconds", "4s", "4000ms"] {
        assert_eq!(rate(written), [Quantity::Duration(4.0)], "{written}");
    }
    for written in [
        "120 rps",
        "120rps",
        "120 requests per second",
        "120 req/s",
        "7.2k requests a minute",
        "7,200 requests per minute",
        "432k requests an hour",
    ] {
        assert_eq!(rate(written), [Quantity::RequestRate(120.0)], "{written}");
    }
    assert_eq!(
        rate("1,000 users who each send a request a minute"),
        [Quantity::Users(1000.0), Quantity::RequestRate(1.0 / 60.0)]
    );
    assert_eq!(
        rate("a request every 30 seconds"),
        [Quantity::RequestRate(1.0 / 30.0)]
    );
    // A verb of finishing or arriving stands for the request noun: "50 finish every second".
    assert_eq!(
        rate("50 finish every second"),
        [Quantity::RequestRate(50.0)]
    );
    // A count of requests next to a time is not a rate without a word joining them.
    assert_eq!(rate("64 requests, 8 s each"), [Quantity::Duration(8.0)]);
    // Requests inside, whatever the noun and the verb: Little's Law's L.
    for written in [
        "94 in flight",
        "60 reqs in the system",
        "120 requests are in flight",
        "30 queries outstanding",
        "64 requests running",
        "16 at once",
        "48 requests at a time",
    ] {
        assert!(
            matches!(rate(written)[..], [Quantity::Concurrency(_)]),
            "{written}"
        );
    }
    // "64 running and 30 waiting" are a dashboard's two gauges: together Little's L, never a concurrency cap.
    for written in [
        "64 running and 30 waiting",
        "30 waiting and 64 running",
        "64 requests running + 30 waiting",
    ] {
        assert_eq!(rate(written), [Quantity::InFlight(94.0)], "{written}");
    }
    // The running gauge alone is L too; the waiting one alone is only the queue.
    assert_eq!(
        rate("dashboard says 96 running"),
        [Quantity::InFlight(96.0)]
    );
    assert_eq!(rate("96 waiting"), []);
    // A figure read off a dashboard hovers, sits or averages around its value.
    assert_eq!(
        rate("concurrency sits at about 50"),
        [Quantity::Concurrency(50.0)]
    );
    assert_eq!(rate("in flight averages 60"), [Quantity::Concurrency(60.0)]);
    // Little's Law's symbols written as an equation.
    assert_eq!(
        rate("L=50 and W = 2"),
        [Quantity::Concurrency(50.0), Quantity::Duration(2.0)]
    );
    assert_eq!(rate("X = 10"), [Quantity::RequestRate(10.0)]);
    // A slash after a number is "per": "8/s" is a rate with no request noun, as "8 per second" is.
    assert_eq!(rate("throughput is 8/s"), [Quantity::RequestRate(8.0)]);
    assert_eq!(rate("8 per second"), [Quantity::RequestRate(8.0)]);
    assert_eq!(rate("480/min"), [Quantity::RequestRate(8.0)]);
}

#[test]
fn the_issues_sizing_in_its_own_words_is_four_replicas() {
    let question = "We peak at 120 requests per second, each request takes 4 seconds and max-num-seqs is 128. \
                    How many replicas?";
    let Some(SizingAnswer::Worked {
        at_the_knee,
        defaults,
        ..
    }) = sizing_answer(question)
    else {
        panic!("a worked sizing");
    };
    assert_eq!(at_the_knee.per_replica_max_qps, 32.0);
    assert_eq!(at_the_knee.replicas, 4);
    assert!(defaults.is_empty());
    let html = teacher().answer_html(question);
    assert!(html.contains("<strong>4 replicas</strong>"), "{html}");
    assert!(html.contains("Open the sizer with these numbers"), "{html}");
    assert!(!html.contains("course box"), "no default was taken: {html}");
    // People and what each sends make the peak: 1,000 a minute is 16.7 requests/s, 3 replicas of 8/s.
    let Some(SizingAnswer::Worked { at_the_knee, .. }) = sizing_answer(
        "1,000 users who each send a request a minute, 64 slots, 8 seconds each: how many replicas?",
    ) else {
        panic!("a worked sizing");
    };
    assert_eq!(at_the_knee.replicas, 3);
}

#[test]
fn the_course_box_stands_in_for_what_a_sizing_question_leaves_out_and_says_so() {
    for question in [
        "Work a Little's Law sizing for qwen36",
        "How many replicas do I need for the course box?",
    ] {
        let Some(SizingAnswer::Worked {
            at_the_knee,
            defaults,
            ..
        }) = sizing_answer(question)
        else {
            panic!("a worked sizing for {question}");
        };
        assert_eq!(at_the_knee.replicas, 4, "{question}");
        assert_eq!(
            defaults,
            [
                SizingNeed::PeakDemand,
                SizingNeed::ConcurrencyCap,
                SizingNeed::Latency
            ]
        );
        let html = teacher().answer_html(question);
        assert!(
            html.contains("--max-num-seqs 64 (the course box: Qwen3.6-27B")
                && html.contains("W = 8.0 s per request at the knee")
                && html.contains("a peak of 30 requests/s"),
            "{html}"
        );
    }
    let Some(SizingAnswer::Worked {
        at_the_knee,
        defaults,
        ..
    }) = sizing_answer("We peak at 60 QPS: how many replicas?")
    else {
        panic!("a worked sizing");
    };
    assert_eq!(at_the_knee.replicas, 8);
    assert_eq!(defaults, [SizingNeed::ConcurrencyCap, SizingNeed::Latency]);
}

#[test]
fn a_sizing_for_another_model_asks_for_its_numbers() {
    assert_eq!(
        sizing_answer("We peak at 30 QPS on Llama-3.1-70B: how many replicas?"),
        Some(SizingAnswer::Missing(vec![
            SizingNeed::ConcurrencyCap,
            SizingNeed::Latency
        ]))
    );
    // The idea, not a sizing.
    assert_eq!(sizing_answer("How does Little's Law size a fleet?"), None);
    assert_eq!(
        sizing_answer("How do I size --max-num-queued-tokens?"),
        None
    );
    let html = teacher().answer_html("We peak at 30 QPS on Mistral-7B: how many replicas?");
    assert!(
        html.contains("--max-num-seqs") && html.contains("per request"),
        "{html}"
    );
    // Numbers the sizer refuses are reported, not worked.
    assert!(matches!(
        sizing_answer("30 QPS, 64.5 concurrent sequences, 8 s per request: replicas?"),
        Some(SizingAnswer::Refused(_))
    ));
}

#[test]
fn slo_questions_get_the_sizers_table_for_each_application_named() {
    let workloads = |question: &str| {
        slo_answer(question)
            .iter()
            .map(|s| s.workload)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        workloads("What TTFT/TPOT SLOs for my RAG app?"),
        [Workload::Rag]
    );
    assert_eq!(
        workloads("SLO targets for chat and code completion"),
        [Workload::Chat, Workload::CodeCompletion]
    );
    assert_eq!(
        workloads("latency targets for our agents"),
        [Workload::Agent]
    );
    assert_eq!(
        workloads("What SLO for an offline batch job?"),
        [Workload::BatchSummarisation]
    );
    // No objective asked for: the lesson's words answer instead.
    assert!(workloads("What is RAG?").is_empty());
    let html = teacher().answer_html("What TTFT and TPOT SLOs should my RAG app have?");
    let rag = SLO_SUGGESTIONS
        .iter()
        .find(|s| s.workload == Workload::Rag)
        .unwrap();
    assert!(
        html.contains("p99 TTFT ≤ 1.5 s") && html.contains("p95 TPOT ≤ 50 ms"),
        "{html}"
    );
    assert!(html.contains(&rag.reasoning[..40]), "{html}");
}

#[test]
fn the_lesson_page_ends_with_an_ask_box_that_says_what_it_needs_without_javascript() {
    let site =
        goodput_pages::build_site(goodput::lesson::catalog()).expect("the course's pages build");
    let page = site
        .pages
        .iter()
        .find(|page| page.path == "lessons/latency-throughput-slos/index.html")
        .expect("the lesson's page");
    let body = &page.body;
    let ask = body.find("id=\"ask\"").expect("the Ask box");
    assert!(ask > body.find("</article>").unwrap(), "after the lesson");
    assert!(body.contains("data-lesson=\"latency-throughput-slos\""));
    assert!(body.contains("<label for=\"ask-question\">Ask a question about this lesson</label>"));
    // Without the wasm the fields cannot be used, and the box says why.
    let question = &body[body.find("id=\"ask-question\"").unwrap()..];
    assert!(question[..question.find('>').unwrap()].contains("disabled"));
    assert!(body.contains("The answers are worked out by JavaScript"));
    for id in [
        "ask-model-url",
        "ask-model-name",
        "ask-model-key",
        "ask-model-send",
        "ask-model-stop",
    ] {
        assert!(body.contains(&format!("id=\"{id}\"")), "{id}");
    }
    assert!(
        body.contains("type=\"password\""),
        "the key is not shown as typed"
    );
}

#[test]
fn each_kind_of_question_is_read_from_its_wording() {
    use goodput_teacher::kinds::{read, QuestionKind};
    let cases = [
        ("What is goodput?", QuestionKind::Definition),
        ("What does TPOT stand for?", QuestionKind::Definition),
        ("Explain goodput like I am five", QuestionKind::Simple),
        ("Explain the knee in plain words", QuestionKind::Simple),
        (
            "What happens if I turn off chunked prefill?",
            QuestionKind::Consequence,
        ),
        (
            "Does chunked prefill help TTFT or TPOT?",
            QuestionKind::Consequence,
        ),
        (
            "Which metric tells me to scale out?",
            QuestionKind::WhichSignal,
        ),
        ("Which flag caps concurrency?", QuestionKind::WhichSignal),
        (
            "Why does latency blow up near full load?",
            QuestionKind::Why,
        ),
        ("How should I drive a capacity test?", QuestionKind::Other),
        ("what is TTFT made of?", QuestionKind::Composition),
        (
            "Does W include the time in the queue?",
            QuestionKind::Composition,
        ),
        ("ttft is the sum of what", QuestionKind::Composition),
        ("what are the parts of TTFT", QuestionKind::Composition),
        // What a thing depends on is what it is made of; chat spellings are read as the words they stand for.
        (
            "what does the length of a decode step depend on",
            QuestionKind::Composition,
        ),
        (
            "wat happens 2 the queue when traffic doubles",
            QuestionKind::Consequence,
        ),
        // "In one line" asks for a length, not about a topic.
        ("whats goodput in one line", QuestionKind::Definition),
        (
            "is W just service time or is there more to it",
            QuestionKind::Composition,
        ),
        (
            "what does maxing out the batch do to ttft",
            QuestionKind::Consequence,
        ),
        (
            "what gauge shows how many requests are sitting in queue rn",
            QuestionKind::WhichSignal,
        ),
        (
            "how long does a new replica take to serve?",
            QuestionKind::Duration,
        ),
        (
            "How often does the HPA read its signal?",
            QuestionKind::Duration,
        ),
        // Two causes weighed ask what a thing is made of.
        (
            "is ttft due to queueing or prefill",
            QuestionKind::Composition,
        ),
        ("does ttft count the queue", QuestionKind::Composition),
        // "What does … say about …" asks more than what a word means.
        (
            "What does Little's Law say about my dashboard's 64 running and 30 waiting?",
            QuestionKind::Other,
        ),
    ];
    for (question, kind) in cases {
        assert_eq!(read(question).kind, kind, "{question}");
    }
    // "How does X work", "how do we compute X" ask what X is; a longer "how does" is something else.
    for question in [
        "how does goodput work?",
        "how do we compute goodput",
        "how is goodput measured",
    ] {
        assert_eq!(read(question).topic, "goodput", "{question}");
    }
    let longer = read("how does the batch of a replica near its knee actually work");
    assert_eq!(longer.kind, QuestionKind::Other);
    for (question, a, b) in [
        (
            "What is the difference between TTFT and TPOT?",
            "ttft",
            "tpot",
        ),
        (
            "Open loop vs. closed loop: which one hides the tail?",
            "open loop",
            "closed loop",
        ),
        (
            "How is goodput different from throughput?",
            "goodput",
            "throughput",
        ),
        (
            "Is inter-token latency the same thing as TPOT?",
            "inter-token latency",
            "tpot",
        ),
    ] {
        let reading = read(question);
        assert_eq!(reading.kind, QuestionKind::Comparison, "{question}");
        assert_eq!(
            reading.compared,
            Some((a.to_owned(), b.to_owned())),
            "{question}"
        );
    }
}

#[test]
fn each_kind_leads_with_the_block_that_suits_it() {
    let teacher = teacher();
    let lead = |question: &str| teacher.answer(question).shown()[0].kind;
    assert_eq!(lead("Explain the knee simply"), PassageKind::Analogy);
    assert_eq!(lead("What is goodput?"), PassageKind::Keyword);
    assert_eq!(lead("What is the knee?"), PassageKind::Tldr);
    // A formula's symbol, in the section its heading names: the formula's legend.
    assert_eq!(
        lead("What does W mean in Little's Law?"),
        PassageKind::Formula
    );
    assert_eq!(
        lead("What happens if I turn off chunked prefill on the course box?"),
        PassageKind::Explanation
    );
    let signal = teacher
        .answer("Which metric shows the queue depth?")
        .shown()[0];
    assert!(
        signal.text.starts_with("num_requests_waiting:"),
        "{signal:?}"
    );
    // A difference shows both terms, each with the passage that defines it.
    match teacher.answer("What is the difference between TTFT and TPOT?") {
        Answer::Compared(sides) => {
            assert_eq!(sides.len(), 2);
            assert!(sides[0].0.contains("TTFT") && sides[0].1.text.contains("first token"));
            assert!(
                sides[1].0.contains("TPOT") && sides[1].1.text.contains("between streamed tokens")
            );
        }
        other => panic!("expected the two terms side by side, got {other:?}"),
    }
    let html = teacher.answer_html("What is the difference between TTFT and TPOT?");
    assert!(html.contains("class=\"ask-compare\""), "{html}");
}

#[test]
fn learners_words_meet_the_lessons() {
    let teacher = teacher();
    for (question, expected) in [
        ("What is time to first byte?", "TTFT"),
        ("What should my HPA scale on?", "num_requests_waiting"),
        ("Why is my server returning 503s?", "503"),
        ("What happens when the KV cache is full?", "preempt"),
        // Chat spellings are written out before the vocabulary reads them: "b4", "reqs", "/sec", "tput".
        (
            "how long b4 a new pod is warmed up and serving",
            "4 min 38 s",
        ),
        (
            "which metric counts reqs that got kicked out of the kv cache",
            "num_preemptions_total",
        ),
    ] {
        let shown: Vec<_> = teacher.answer(question).shown();
        assert!(
            shown.iter().any(|p| p.text.contains(expected)),
            "{question}: {shown:?}"
        );
    }
}

#[test]
fn a_learners_own_model_gets_the_passages_the_answer_shows_first() {
    let teacher = teacher();
    for question in [
        "Explain goodput like I am five",
        "Which number tells me to add a replica?",
        "What is the difference between TTFT and TPOT?",
    ] {
        let context = teacher.model_context(question);
        let shown = teacher.answer(question).shown();
        assert!(!shown.is_empty(), "{question}");
        let mut at = 0;
        for passage in shown {
            let found = context[at..]
                .find(&passage.text)
                .unwrap_or_else(|| panic!("{question}: {} not in {context}", passage.text));
            at += found;
        }
    }
}

#[test]
fn the_answer_html_escapes_the_lesson_s_text_and_keeps_its_links_on_the_page() {
    let teacher = teacher();
    let passage = teacher
        .passages()
        .iter()
        .find(|p| p.text.contains('<') || p.text.contains('&'))
        .expect("some passage has a < or an & in its text");
    let html = teacher.answer_html(&passage.text);
    assert!(
        html.contains(&goodput::html_writer::escape_text(&passage.text)),
        "{html}"
    );
    for href in html.split("href=\"").skip(1) {
        assert!(
            href.starts_with("lessons/latency-throughput-slos/#"),
            "{href}"
        );
    }
}
