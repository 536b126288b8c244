//! The page and its `server-worker` agree: every message the one writes, the other reads back the same, and a
//! message that does not read is an error naming the field, never a default.

use goodput::cluster::vllm::SloTargets;
use goodput::server_protocol::{FlagFields, FromWorker, HardwareFigures, Sample, ToWorker};
use goodput_calibrate::inputs::InputFile;

fn to_worker() -> Vec<ToWorker> {
    let mut messages = vec![
        ToWorker::Read {
            first: "vllm:num_requests_running 3\n".to_owned(),
            later: String::new(),
            seconds: Some(30.5),
            slo: SloTargets {
                ttft_p99: 0.5,
                tpot_p95: 0.04,
            },
            shown: 6,
            request: 17,
        },
        ToWorker::Read {
            first: String::new(),
            later: "x".to_owned(),
            seconds: None,
            slo: SloTargets {
                ttft_p99: 1.25,
                tpot_p95: 0.1,
            },
            shown: usize::MAX,
            request: 0,
        },
        ToWorker::Calibrate {
            flags: FlagFields {
                max_num_seqs: "256".to_owned(),
                max_num_batched_tokens: String::new(),
                chunked_prefill: false,
                v0_engine: true,
                kv_cache_tokens: "40592".to_owned(),
                replicas: " 2 ".to_owned(),
                model: "other".to_owned(),
                gpu: "GeForce RTX 4090".to_owned(),
                tensor_parallel: "2".to_owned(),
                figures: Box::new(HardwareFigures {
                    parameters_billions: "8.03".to_owned(),
                    layers: "32".to_owned(),
                    head_size: "128".to_owned(),
                    memory_gb: "24".to_owned(),
                    ..HardwareFigures::default()
                }),
            },
            files: vec![
                InputFile {
                    name: "a.json".to_owned(),
                    text: "{\"completed\": 200}".to_owned(),
                },
                InputFile {
                    name: "empty.csv".to_owned(),
                    text: String::new(),
                },
            ],
        },
        ToWorker::Calibrate {
            flags: FlagFields::default(),
            files: Vec::new(),
        },
    ];
    messages.extend(Sample::ALL.map(ToWorker::Sample));
    messages
}

fn from_worker() -> Vec<FromWorker> {
    vec![
        FromWorker::Reading {
            alert_html: String::new(),
            result_html: "<p>read</p>".to_owned(),
            request: 4_000_000_000,
        },
        FromWorker::Sample {
            first: "a".to_owned(),
            later: String::new(),
        },
        FromWorker::Calibrated {
            handoff: "goodput your-server 1\n1 2".to_owned(),
            report: "Fitted…".to_owned(),
            scenario_json: "{}".to_owned(),
            milliseconds: 180,
        },
        FromWorker::Banded {
            handoff: "goodput your-server 1\n1 2\n1 3 4".to_owned(),
            report: "How sure:".to_owned(),
        },
        FromWorker::Refused("a.json: no rate".to_owned()),
        FromWorker::Unreadable("why".to_owned()),
        FromWorker::Failed("offline".to_owned()),
        FromWorker::Crashed("panicked at".to_owned()),
    ]
}

#[test]
fn every_message_the_page_sends_reads_back_the_same_in_the_worker() {
    for message in to_worker() {
        assert_eq!(ToWorker::decode(&message.encode()), Ok(message));
    }
}

#[test]
fn every_answer_the_worker_sends_reads_back_the_same_in_the_page() {
    for message in from_worker() {
        assert_eq!(FromWorker::decode(&message.encode()), Ok(message));
    }
}

fn parts(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn an_objective_that_does_not_read_is_an_error_naming_it_not_the_course_default() {
    let read = |ttft: &str, tpot: &str| {
        ToWorker::decode(&parts(&["read", "", "", "", ttft, tpot, "6", "1"]))
            .unwrap_err()
            .to_string()
    };
    assert!(
        read("half a second", "0.04").contains("TTFT objective"),
        "{}",
        read("half a second", "0.04")
    );
    assert!(read("0.5", "").contains("TPOT objective"));
    assert!(read("0.5", "-1").contains("not a positive number"));
    assert!(read("NaN", "0.04").contains("TTFT objective"));
}

#[test]
fn a_short_long_or_unknown_message_is_refused_by_name() {
    let error = |words: &[&str]| ToWorker::decode(&parts(words)).unwrap_err().to_string();
    assert!(error(&["read", "", ""]).contains("seconds is missing"));
    assert!(error(&["sample", "busy"]).contains("\"busy\" is no sample"));
    assert!(error(&["sample", "healthy", "more"]).contains("too many"));
    assert!(error(&["calibrate", "", "", "maybe", "", ""]).contains("chunked prefill"));
    assert!(error(&["calibrate", "", "", "on", "2", "", ""]).contains("V0 engine"));
    // Six flags, model, GPU, tensor parallel and the nine typed figures, then a file with a name and no text.
    let mut lonely = vec!["calibrate", "", "", "on", "off", "", ""];
    lonely.extend([""; 3 + HardwareFigures::NAMES.len()]);
    lonely.push("lonely.json");
    assert!(error(&lonely).contains("no text"));
    assert!(error(&["shout"]).contains("no request the worker knows"));
    assert!(error(&[]).contains("empty"));
    let answer = |words: &[&str]| FromWorker::decode(&parts(words)).unwrap_err().to_string();
    assert!(answer(&["reading", "", "", "soon"]).contains("request number"));
    assert!(answer(&["calibrated", "h", "r", "s", "fast"]).contains("milliseconds"));
    assert!(answer(&["hello"]).contains("no answer the page knows"));
}
