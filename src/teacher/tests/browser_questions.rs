//! The questions the browser tests type into the Ask box (tests/browser/teacher.test.mjs), asked natively: the
//! answer's HTML must hold what those tests wait for, so a change to the teacher that would break them fails here,
//! without a browser.

use goodput::lesson::find;
use goodput_teacher::Teacher;

fn teacher() -> Teacher {
    Teacher::new(find("latency-throughput-slos").expect("the course lesson"))
}

/// The text of every `<tag …>…</tag>` element of `html`, in order, its inner tags dropped.
fn elements(html: &str, tag: &str, class: Option<&str>) -> Vec<String> {
    let open = match class {
        Some(class) => format!("<{tag} class=\"{class}\">"),
        None => format!("<{tag}>"),
    };
    let close = format!("</{tag}>");
    html.split(&open)
        .skip(1)
        .map(|rest| {
            let inner = rest.split(&close).next().unwrap_or("");
            let mut text = String::new();
            let mut in_tag = false;
            for c in inner.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    _ if !in_tag => text.push(c),
                    _ => {}
                }
            }
            text.trim().to_owned()
        })
        .collect()
}

/// The first passage the answer shows (its first blockquote), as the browser test reads it.
fn first_shown(teacher: &Teacher, question: &str) -> String {
    let html = teacher.answer_html(question);
    elements(&html, "blockquote", None)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{question:?} shows no passage: {html}"))
}

/// The worked result's line (`.ask-result`).
fn result(teacher: &Teacher, question: &str) -> String {
    let html = teacher.answer_html(question);
    elements(&html, "p", Some("ask-result"))
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{question:?} works nothing out: {html}"))
}

#[test]
fn a_definition_and_a_question_the_course_cannot_answer() {
    let teacher = teacher();
    let html = teacher.answer_html("What is goodput?");
    assert!(
        html.contains(">Goodput: throughput that meets the SLO</a>"),
        "{html}"
    );
    assert!(
        html.contains("Goodput counts only the requests that meet both"),
        "{html}"
    );
    let html = teacher.answer_html("What is the capital of France?");
    assert!(
        html.contains("I cannot answer that from the course"),
        "{html}"
    );
    let html = teacher.answer_html("What is TTFT?");
    assert!(html.contains("Time to first token"), "{html}");
}

#[test]
fn sizing_questions_are_worked_as_the_browser_tests_expect() {
    let teacher = teacher();
    let html = teacher
        .answer_html("Thirty QPS, 64 concurrent sequences, 8 s per request: how many replicas?");
    for expected in [
        "4 replicas",
        "64 ÷ 8.0 = 8.0 requests/s",
        "Replicas = ⌈30 ÷ 8.0⌉ = ⌈3.8⌉ = 4.",
        "At 80% headroom each replica carries 6.4 requests/s, so plan on 5 replicas",
    ] {
        assert!(html.contains(expected), "{expected:?} not in {html}");
    }
    let question = "We peak at 120 requests per second, each request takes 4 seconds and max-num-seqs is 128. \
                    How many replicas?";
    let html = teacher.answer_html(question);
    assert!(result(&teacher, question).contains("4 replicas"), "{html}");
    assert!(html.contains("128 ÷ 4.0 = 32 requests/s"), "{html}");
}

#[test]
fn explain_simply_and_a_difference_as_the_browser_tests_expect() {
    let teacher = teacher();
    let html = teacher.answer_html("Explain goodput simply");
    assert!(first_shown(&teacher, "Explain goodput simply").contains("Goodput"));
    let lead = &elements(&html, "p", Some("ask-source"))[0];
    assert!(
        ["Analogy ·", "TL;DR ·", "Keyword ·"]
            .iter()
            .any(|kind| lead.starts_with(kind)),
        "{lead}"
    );
    let html = teacher.answer_html("What is the difference between TTFT and TPOT?");
    let terms = elements(&html, "p", Some("ask-term"));
    assert_eq!(terms.len(), 2, "{html}");
    assert!(
        terms[0].contains("TTFT") && terms[1].contains("TPOT"),
        "{terms:?}"
    );
    let sides = elements(&html, "blockquote", None);
    assert!(sides[0].to_lowercase().contains("first token"), "{sides:?}");
    let second = sides[1].to_lowercase();
    assert!(
        second.contains("between streamed tokens") || second.contains("per output token"),
        "{sides:?}"
    );
}

#[test]
fn the_question_asked_not_a_neighbouring_one_as_the_browser_tests_expect() {
    let teacher = teacher();
    // (question, what the first passage shown holds; a leading "^" that it starts with it), case aside.
    for (question, expected) in [
        ("what is TTFT made of?", "queueing plus prefill"),
        ("ttft vs e2e??", "same total time"),
        ("what happens to latency at full load?", "^Raise the load"),
        ("how long does a new replica take to serve?", "4 min 38 s"),
        (
            "which metric shows requests stuck waiting?",
            "^num_requests_waiting:",
        ),
        (
            "which vllm metric gives the concurrency L for littles law",
            "num_requests_running",
        ),
        (
            "num_requests_waiting vs num_requests_running?",
            "num_requests_running",
        ),
        (
            "whats the prometheus metric name for ttft",
            "time_to_first_token_seconds",
        ),
    ] {
        let shown = first_shown(&teacher, question).to_lowercase();
        let fits = match expected.strip_prefix('^') {
            Some(start) => shown.starts_with(&start.to_lowercase()),
            None => shown.contains(&expected.to_lowercase()),
        };
        assert!(fits, "{question:?} showed {shown:?}, not {expected:?}");
    }
    for (question, expected) in [
        (
            "how many reqs in flight at 20rps w/ 3s latency",
            "60 requests in flight",
        ),
        (
            "we see 90 requests in flight at 30 qps. whats W",
            "3.0 s per request",
        ),
        (
            "we have 60 reqs in the system and latency is 3 sec, whats our throughput",
            "20 requests/s",
        ),
    ] {
        let shown = result(&teacher, question);
        assert!(
            shown.contains(expected),
            "{question:?} worked {shown:?}, not {expected:?}"
        );
    }
    let html = teacher.answer_html("how many reqs in flight at 20rps w/ 3s latency");
    assert!(
        html.contains("L = X × W = 20 requests/s × 3.0 s = 60."),
        "{html}"
    );
    let html = teacher.answer_html("TTFT and the network?");
    assert!(
        html.contains("The closest passage is the opening of"),
        "{html}"
    );
    assert!(!first_shown(&teacher, "TTFT and the network?").is_empty());
}

#[test]
fn slos_for_an_application_as_the_browser_tests_expect() {
    let html = teacher().answer_html("What TTFT and TPOT SLOs for my RAG app?");
    assert!(html.contains("p99 TTFT ≤ 1.5 s"), "{html}");
}
