//! The Ask box and its `teacher-worker` agree: every message reads back the same on the other side, a question with
//! any text in it arrives whole, and a message that does not read is an error naming the field.

use goodput::teacher_protocol::{FromWorker, ModelServer, ToWorker};

fn parts(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// Questions as learners type them, with what could upset a wire format: commas, quotes, new lines, nothing at all.
const QUESTIONS: [&str; 5] = [
    "why does my p99 blow up at 90% load??",
    "what's \"goodput\", vs throughput, in one line",
    "ttft vs tpot\nwhich one is prefill",
    "",
    "how many replicas for 40 req/s, 2 s each, cap 256 — with 20% headroom?",
];

#[test]
fn every_question_the_page_sends_reads_back_the_same_in_the_worker() {
    for question in QUESTIONS {
        let asks = [
            ToWorker::Ask {
                slug: "latency-throughput-slos".to_owned(),
                question: question.to_owned(),
            },
            ToWorker::AskModel {
                slug: "latency-throughput-slos".to_owned(),
                question: question.to_owned(),
                server: ModelServer {
                    base_url: "http://localhost:8000/v1".to_owned(),
                    model: String::new(),
                    key: "sk-local".to_owned(),
                    page_protocol: "https:".to_owned(),
                    page_origin: "https://course.example".to_owned(),
                },
            },
            ToWorker::Stop,
        ];
        for message in asks {
            assert_eq!(ToWorker::decode(&message.encode()), Ok(message));
        }
    }
}

#[test]
fn every_answer_the_worker_sends_reads_back_the_same_in_the_page() {
    let answers = [
        FromWorker::Answer("<p>Goodput counts only requests that met the SLO.</p>".to_owned()),
        FromWorker::Status("Asking Qwen/Qwen2.5-7B-Instruct…".to_owned()),
        FromWorker::Text(" the queue".to_owned()),
        FromWorker::Text(String::new()),
        FromWorker::Clocks("TTFT 182 ms · TPOT 21 ms".to_owned()),
        FromWorker::End("The answer is complete.".to_owned()),
        FromWorker::Unreadable("a \"model\" message's page origin is missing".to_owned()),
        FromWorker::Failed("NetworkError".to_owned()),
        FromWorker::Crashed("panicked at src/teacher/rank.rs".to_owned()),
    ];
    for message in answers {
        assert_eq!(FromWorker::decode(&message.encode()), Ok(message));
    }
}

#[test]
fn a_message_that_does_not_read_is_refused_by_name() {
    let request = |words: &[&str]| ToWorker::decode(&parts(words)).unwrap_err().to_string();
    assert!(request(&[]).contains("empty message"));
    assert!(request(&["ask", "latency-throughput-slos"]).contains("question is missing"));
    assert!(request(&["ask", "a", "b", "c"]).contains("too many"));
    let model = [
        "model",
        "latency-throughput-slos",
        "q",
        "http://localhost:8000",
        "",
        "",
        "https:",
    ];
    assert!(request(&model).contains("page origin is missing"));
    assert!(request(&model[..3]).contains("server address is missing"));
    assert!(request(&["stop", "now"]).contains("too many"));
    assert!(request(&["answer", "x"]).contains("no request the teacher knows"));

    let answer = |words: &[&str]| FromWorker::decode(&parts(words)).unwrap_err().to_string();
    assert!(answer(&["text"]).contains("text is missing"));
    assert!(answer(&["end", "done", "really"]).contains("too many"));
    assert!(answer(&["ask", "q"]).contains("no answer the Ask box knows"));
}
