//! A question longer than the teacher reads: a pasted log or document is refused with its length, at once, and a
//! learner's model gets no passages for it; a question at the limit, however its characters are spelt, is read.

use goodput::lesson::find;
use goodput_teacher::answer::{Answer, QUESTION_LIMIT_CHARS};
use goodput_teacher::Teacher;

fn teacher() -> Teacher {
    Teacher::new(find("latency-throughput-slos").expect("the course lesson"))
}

/// A question of exactly `chars` characters: a real one, padded with a word the lesson uses.
fn question_of(chars: usize, filler: &str) -> String {
    let mut question = String::from("what is goodput? ");
    while question.chars().count() + filler.chars().count() <= chars {
        question.push_str(filler);
    }
    while question.chars().count() < chars {
        question.push(' ');
    }
    question
}

#[test]
fn a_pasted_log_is_refused_with_its_length_and_nothing_is_ranked() {
    let teacher = teacher();
    // 64 kB of a vLLM log line, as a learner might paste after their question.
    let log = "INFO 12-06 11:02:16 metrics.py:455] Avg prompt throughput: 1024.0 tokens/s, Running: 64 reqs, \
               Waiting: 12 reqs, GPU KV cache usage: 97.3%.\n";
    let pasted = format!(
        "why is ttft so high here? {}",
        log.repeat(64 * 1024 / log.len())
    );
    let chars = pasted.chars().count();
    assert!(chars > QUESTION_LIMIT_CHARS);
    assert_eq!(teacher.answer(&pasted), Answer::TooLong(chars));
    let html = teacher.answer_html(&pasted);
    assert!(
        html.contains(&format!("{chars} characters"))
            && html.contains(&QUESTION_LIMIT_CHARS.to_string())
            && html.contains("still in the box"),
        "{html}"
    );
    assert!(teacher.ranked(&pasted).is_empty());
    assert_eq!(teacher.model_context(&pasted), "");
}

#[test]
fn a_question_at_the_limit_is_read_whatever_its_characters_weigh() {
    let teacher = teacher();
    // Plain letters, and a filler of two-byte letters: the limit counts characters, not bytes.
    for filler in ["goodput ", "débit "] {
        let at_limit = question_of(QUESTION_LIMIT_CHARS, filler);
        assert_eq!(at_limit.chars().count(), QUESTION_LIMIT_CHARS);
        let answer = teacher.answer(&at_limit);
        assert!(
            !matches!(answer, Answer::TooLong(_) | Answer::Empty),
            "{filler:?}: {answer:?}"
        );
        let over = format!("{at_limit}x");
        assert_eq!(
            teacher.answer(&over),
            Answer::TooLong(QUESTION_LIMIT_CHARS + 1)
        );
    }
}
