//! A learner's model server is outside input: its event stream is read in time linear in its length, in bounded
//! memory, and its own count of tokens is believed only when what it streamed bears it out.

use std::time::Instant;

use goodput_teacher::model::{
    read_stream, Clocks, Failure, StreamEvent, StreamReader, TokenCount, MAX_LINE_BYTES,
    MAX_STREAM_BYTES,
};

/// One `data:` line holding a piece of the answer, as vLLM streams it.
fn chunk(text: &str) -> String {
    format!(
        "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{}}}}}]}}\n\n",
        serde_json::to_string(text).unwrap()
    )
}

fn usage(tokens: &str) -> String {
    format!("data: {{\"choices\":[],\"usage\":{{\"prompt_tokens\":900,\"completion_tokens\":{tokens}}}}}\n\n")
}

/// The events of `pieces`, read well within the time a linear reader needs (quadratic work would take minutes).
fn read_quickly<'a>(pieces: impl IntoIterator<Item = &'a str>, what: &str) -> Vec<StreamEvent> {
    let started = Instant::now();
    let events = read_stream(pieces).expect("a long but whole stream is read");
    let took = started.elapsed();
    assert!(took.as_secs_f64() < 3.0, "{took:?} for {what}");
    events
}

#[test]
fn a_long_line_in_tiny_pieces_is_read_in_linear_time() {
    // A 512 kB chunk (a server that sends the whole answer at once), one byte at a time: searching the unfinished
    // line from its start on every piece would look at some 10^11 bytes.
    let answer = "x".repeat(512 * 1024);
    let stream = format!("{}data: [DONE]\n\n", chunk(&answer));
    let bytes = stream.as_bytes().chunks(1);
    let events = read_quickly(
        bytes.map(|b| std::str::from_utf8(b).unwrap()),
        "1-byte pieces",
    );
    assert_eq!(events, [StreamEvent::Text(answer), StreamEvent::Done]);
}

#[test]
fn many_lines_in_one_piece_are_read_in_linear_time() {
    // 50 000 tokens in one piece: taking each line off the front of the buffer would move the rest each time.
    let stream: String = (0..50_000).map(|i| chunk(&format!("t{i} "))).collect();
    assert!(stream.len() < MAX_STREAM_BYTES);
    let events = read_quickly([stream.as_str()], "one piece of 50 000 lines");
    assert_eq!(events.len(), 50_000);
    assert_eq!(events[49_999], StreamEvent::Text("t49999 ".into()));
}

#[test]
fn a_line_that_never_ends_is_refused_at_the_bound() {
    let mut reader = StreamReader::new();
    let block = format!(
        "data: {{\"choices\":[{{\"delta\":{{\"content\":\"{}",
        "y".repeat(64 * 1024)
    );
    let mut sent = 0;
    let failure = loop {
        match reader.push(&block) {
            Ok(events) => assert!(events.is_empty()),
            Err(failure) => break failure,
        }
        sent += block.len();
        assert!(sent <= MAX_LINE_BYTES, "still buffering after {sent} bytes");
    };
    assert_eq!(failure, Failure::LineTooLong);
    assert!(failure.message().contains("without a line break"));
}

#[test]
fn a_stream_that_never_stops_is_cut_off() {
    let mut reader = StreamReader::new();
    let piece: String = (0..1000).map(|_| chunk("more ")).collect();
    let mut sent = 0;
    let failure = loop {
        match reader.push(&piece) {
            Ok(events) => assert_eq!(events.len(), 1000),
            Err(failure) => break failure,
        }
        sent += piece.len();
        assert!(sent <= MAX_STREAM_BYTES, "still reading after {sent} bytes");
    };
    assert_eq!(failure, Failure::TooLong);
    assert!(
        failure.message().contains("cut off"),
        "{}",
        failure.message()
    );
}

#[test]
fn the_same_events_whatever_the_pieces() {
    let stream = format!(
        ": keep-alive\n{}{}{}{}data: [DONE]\n\n",
        chunk("Good"),
        chunk("put\r\n"),
        chunk("é✓"),
        usage("3")
    );
    let whole = read_stream([stream.as_str()]).unwrap();
    assert_eq!(whole.len(), 5);
    let chars: Vec<char> = stream.chars().collect();
    for size in [1, 2, 7, 64] {
        let pieces: Vec<String> = chars.chunks(size).map(|c| c.iter().collect()).collect();
        assert_eq!(
            read_stream(pieces.iter().map(String::as_str)).unwrap(),
            whole,
            "{size}"
        );
    }
}

#[test]
fn a_count_that_is_no_whole_number_is_left_out() {
    for nonsense in ["-1", "2.5", "1e10", "\"12\"", "null"] {
        let stream = format!("{}{}data: [DONE]\n", chunk("hi"), usage(nonsense));
        assert_eq!(
            read_stream([stream.as_str()]),
            Ok(vec![StreamEvent::Text("hi".into()), StreamEvent::Done]),
            "{nonsense}"
        );
    }
}

/// Clocks over `pieces` pieces of `text`, 40 ms apart after a first at 300 ms.
fn clocks(pieces: u32, text: &str) -> Clocks {
    let mut clocks = Clocks::started(0.0);
    for i in 0..pieces {
        clocks.text(300.0 + 40.0 * f64::from(i), text);
    }
    clocks
}

#[test]
fn the_servers_count_is_used_when_the_stream_bears_it_out() {
    // vLLM with speculative decoding: 11 pieces, some of two tokens; its count includes the end token.
    let mut run = clocks(11, " knee");
    run.usage(16);
    assert_eq!(run.count(), TokenCount::Server(16));
    assert!((run.tpot().unwrap() - 0.4 / 15.0).abs() < 1e-12);
    assert!(
        run.line().ends_with("over 16 tokens (the server's count)."),
        "{}",
        run.line()
    );
    // Without a count, each piece is a token.
    let run = clocks(11, " knee");
    assert_eq!(run.count(), TokenCount::Pieces(11));
    assert!((run.tpot().unwrap() - 0.04).abs() < 1e-12);
    assert!(run
        .line()
        .ends_with("over 11 tokens (one per streamed piece)."));
}

#[test]
fn a_count_the_stream_cannot_hold_is_not_believed() {
    // A server that claims 5000 tokens for 11 pieces of 5 bytes would make TPOT 450 times too short.
    let mut inflated = clocks(11, " knee");
    inflated.usage(5000);
    assert_eq!(
        inflated.count(),
        TokenCount::Disputed {
            pieces: 11,
            claimed: 5000
        }
    );
    assert!((inflated.tpot().unwrap() - 0.04).abs() < 1e-12);
    assert!(
        inflated.line().ends_with(
            "over 11 tokens (one per streamed piece; the server's count of 5000 cannot be right)."
        ),
        "{}",
        inflated.line()
    );
    // Fewer tokens than the pieces sent: each piece holds at least one.
    let mut deflated = clocks(11, " knee");
    deflated.usage(2);
    assert_eq!(deflated.tokens(), 11);
    // A count of zero with one piece leaves TPOT unknown rather than dividing by it.
    let mut zero = clocks(1, "x");
    zero.usage(0);
    assert_eq!(zero.tpot(), None);
    assert_eq!(zero.line(), "TTFT: first token after 300 ms.");
}
