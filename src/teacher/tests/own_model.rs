//! Asking the learner's own model, its pure parts: the server's address checked before anything is sent, the
//! request the Ask box streams, the stream read in pieces of any size, the two clocks it measures, and a fix named
//! for every failure.

use goodput_teacher::model::{
    chat_request, endpoint, first_model, Clocks, Failure, StreamEvent, StreamReader,
};

#[test]
fn the_server_address_is_checked_before_anything_is_sent() {
    let local = endpoint("http://localhost:8000/v1/", "https:").unwrap();
    assert_eq!(
        local.chat_completions(),
        "http://localhost:8000/v1/chat/completions"
    );
    assert_eq!(local.models(), "http://localhost:8000/v1/models");
    assert_eq!(local.origin, "http://localhost:8000");
    assert_eq!(
        endpoint("http://127.0.0.1:8000", "http:").unwrap().base,
        "http://127.0.0.1:8000/v1"
    );
    assert!(endpoint("http://[::1]:8000/v1", "http:")
        .unwrap_err()
        .contains("http://localhost"));
    assert_eq!(
        endpoint("https://gpu.example.com/v1", "https:")
            .unwrap()
            .base,
        "https://gpu.example.com/v1"
    );
    let mixed = endpoint("http://gpu-box:8000/v1", "https:").unwrap_err();
    assert!(
        mixed.contains("mixed content") && mixed.contains("ssh -L"),
        "{mixed}"
    );
    assert!(endpoint("localhost:8000", "http:")
        .unwrap_err()
        .contains("http://"));
    assert!(endpoint("ftp://localhost/v1", "http:")
        .unwrap_err()
        .contains("http://"));
    assert!(endpoint("http://user:key@localhost:8000/v1", "http:")
        .unwrap_err()
        .contains("key field"));
}

#[test]
fn the_request_streams_with_the_course_passages_and_a_system_prompt() {
    let body: serde_json::Value =
        serde_json::from_str(&chat_request("qwen", "What is TPOT?", "[Two clocks] text")).unwrap();
    assert_eq!(body["stream"], true);
    assert_eq!(body["model"], "qwen");
    assert_eq!(body["messages"][0]["role"], "system");
    assert!(body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains("[Two clocks] text"));
    assert_eq!(
        first_model(r#"{"object":"list","data":[{"id":"qwen3"},{"id":"other"}]}"#),
        Ok("qwen3".to_owned())
    );
    assert_eq!(first_model(r#"{"data":[]}"#), Err(Failure::NoModels));
}

#[test]
fn the_stream_is_read_across_pieces_of_any_size() {
    let stream = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n\
                  data: {\"choices\":[{\"delta\":{\"content\":\"Good\"}}]}\r\n\r\n\
                  : a comment\n\
                  data: {\"choices\":[{\"delta\":{\"content\":\"put\"}}]}\n\n\
                  data: {\"choices\":[],\"usage\":{\"completion_tokens\":2}}\n\n\
                  data: [DONE]\n\n";
    for size in [1, 3, 17, stream.len()] {
        let mut reader = StreamReader::new();
        let mut events = Vec::new();
        let bytes: Vec<char> = stream.chars().collect();
        for piece in bytes.chunks(size) {
            events.extend(reader.push(&piece.iter().collect::<String>()).unwrap());
        }
        events.extend(reader.finish().unwrap());
        assert_eq!(
            events,
            [
                StreamEvent::Text("Good".into()),
                StreamEvent::Text("put".into()),
                StreamEvent::Usage(2),
                StreamEvent::Done
            ],
            "pieces of {size}"
        );
    }
}

#[test]
fn replies_that_are_not_a_stream_are_named() {
    let mut reader = StreamReader::new();
    assert_eq!(
        reader.push("{\"choices\":[{\"message\":{\"content\":\"hi\"}}]}\n"),
        Err(Failure::NotStreaming)
    );
    let mut reader = StreamReader::new();
    assert_eq!(
        reader.push("{\"id\":1}").and_then(|_| reader.finish()),
        Err(Failure::NotStreaming)
    );
    let mut reader = StreamReader::new();
    assert!(matches!(
        reader.push("data: {not json\n"),
        Err(Failure::Malformed(_))
    ));
    let mut reader = StreamReader::new();
    assert_eq!(
        reader.push("data: {\"error\":{\"message\":\"model overloaded\"}}\n"),
        Err(Failure::ServerError("model overloaded".into()))
    );
}

#[test]
fn the_two_clocks_are_ttft_then_the_mean_gap_after_the_first_token() {
    let mut clocks = Clocks::started(1000.0);
    assert_eq!(clocks.line(), "Waiting for the first token…");
    clocks.text(1300.0, "The");
    assert_eq!(clocks.ttft(), Some(0.3));
    assert_eq!(clocks.tpot(), None);
    for i in 1..=10 {
        clocks.text(1300.0 + 40.0 * f64::from(i), " knee");
    }
    assert_eq!(clocks.tokens(), 11);
    assert!((clocks.tpot().unwrap() - 0.04).abs() < 1e-12);
    assert_eq!(
        clocks.line(),
        "TTFT: first token after 300 ms. TPOT: then 40 ms per token over 11 tokens (one per streamed piece)."
    );
    // The server's own count wins over the pieces counted.
    clocks.usage(21);
    assert!((clocks.tpot().unwrap() - 0.02).abs() < 1e-12);
}

#[test]
fn every_failure_names_its_fix() {
    let cases = [
        (
            Failure::NotListening {
                origin: "http://localhost:8000".into(),
            },
            "vllm serve",
        ),
        (
            Failure::CorsRefused {
                origin: "http://localhost:8000".into(),
                page_origin: "https://course.example".into(),
            },
            "--allowed-origins '[\"https://course.example\"]'",
        ),
        (Failure::Unauthorized { status: 401 }, "API key"),
        (
            Failure::NotFound {
                url: "http://localhost:8000/v1/chat/completions".into(),
                model: "x".into(),
            },
            "/v1",
        ),
        (Failure::NotStreaming, "stream"),
        (Failure::NoModels, "model field"),
    ];
    for (failure, fix) in cases {
        assert!(failure.message().contains(fix), "{}", failure.message());
    }
}
