//! The reading both the CLI and the page's metrics reader show: one scrape since the server started, or the window
//! between two, with each label set's verdict and replica suggestion.

use goodput::cluster::reading::{read, typed_seconds, PageProblem, Scrape, QUOTED_LINE_CHARS};
use goodput::cluster::report::{render, Options, Source};
use goodput::cluster::vllm::{KneeVerdict, SloTargets, Span};

const HEALTHY: &str = include_str!("fixtures/metrics/healthy.prom");
const HEALTHY_LATER: &str = include_str!("fixtures/metrics/healthy-later.prom");
const PAST_THE_KNEE: &str = include_str!("fixtures/metrics/past-the-knee.prom");

/// The lesson's SLOs: p99 TTFT 500 ms, p95 TPOT 40 ms.
fn lesson_slo() -> SloTargets {
    SloTargets {
        ttft_p99: 0.5,
        tpot_p95: 0.04,
    }
}

#[test]
fn one_healthy_scrape_reads_below_the_knee_since_the_start() {
    let reading = read(&Scrape::read(HEALTHY).unwrap(), None, None, &lesson_slo());
    assert!(!reading.servers.is_empty());
    for server in &reading.servers {
        assert_eq!(server.signals.span, Span::SinceStart);
        assert_eq!(server.assessment.verdict, KneeVerdict::BelowTheKnee);
        assert!(
            server.suggestion.is_some(),
            "the sample has both gauges, so Little's Law applies"
        );
    }
    assert!(reading.gone.is_empty());
    let summary = reading.summary();
    assert!(summary.starts_with("Read 1 label set: "), "{summary}");
    assert!(!summary.contains("window"), "{summary}");
}

#[test]
fn a_later_scrape_makes_the_reading_the_window_between_the_two() {
    let (first, later) = (
        Scrape::read(HEALTHY).unwrap(),
        Scrape::read(HEALTHY_LATER).unwrap(),
    );
    let since_start = read(&first, None, None, &lesson_slo());
    let window = read(&first, Some(&later), Some(60.0), &lesson_slo());
    assert!(window.servers.iter().all(|s| s.signals.span
        == Span::Window {
            seconds: Some(60.0)
        }));
    assert!(
        window
            .summary()
            .contains("over the window between the two scrapes"),
        "{}",
        window.summary()
    );
    // The window holds only the requests served between the scrapes, not the history the first page counts.
    assert_ne!(
        since_start.servers[0].signals.requests(),
        window.servers[0].signals.requests()
    );
    // The library reading is exactly what the CLI prints.
    let options = Options::new(500.0, 40.0, Some(60.0), false).unwrap();
    let text = render(
        &Source::text("before.prom", HEALTHY),
        Some(&Source::text("after.prom", HEALTHY_LATER)),
        &options,
    )
    .unwrap();
    for server in &window.servers {
        assert!(
            text.contains(server.assessment.verdict.describe()),
            "{text}"
        );
    }
}

#[test]
fn a_server_past_the_knee_reads_so() {
    let reading = read(
        &Scrape::read(PAST_THE_KNEE).unwrap(),
        None,
        None,
        &lesson_slo(),
    );
    assert!(reading
        .servers
        .iter()
        .any(|s| s.assessment.verdict == KneeVerdict::PastTheKnee));
    assert!(
        reading.summary().contains("past the knee"),
        "{}",
        reading.summary()
    );
}

#[test]
fn a_refused_page_quotes_its_offending_line_and_no_more() {
    let long_line = format!("vllm:num_requests_running{{ {}", "x".repeat(400));
    let text = format!("# a comment\n{long_line}\n");
    let Err(PageProblem::Refused { message, line }) = Scrape::read(&text) else {
        panic!("an unclosed label set must be refused");
    };
    let (number, quoted) = line.expect("a syntax error has a line");
    assert_eq!(number, 2);
    assert_eq!(quoted.chars().count(), QUOTED_LINE_CHARS);
    assert!(long_line.starts_with(&quoted));
    assert!(PageProblem::Refused {
        message: message.clone(),
        line: None
    }
    .about("page.prom")
    .starts_with("page.prom: "));
}

#[test]
fn a_page_without_vllm_signals_says_so_in_the_same_words_everywhere() {
    let problem = Scrape::read("process_cpu_seconds_total 12\n").unwrap_err();
    assert_eq!(problem, PageProblem::NotVllm);
    let sentence = problem.about("other.prom");
    assert!(
        sentence.starts_with("other.prom has no vLLM metrics: "),
        "{sentence}"
    );
    let options = Options::new(500.0, 40.0, None, false).unwrap();
    let cli = render(
        &Source::text("other.prom", "process_cpu_seconds_total 12\n"),
        None,
        &options,
    )
    .unwrap_err();
    assert_eq!(cli, sentence);
}

#[test]
fn only_a_positive_number_of_seconds_is_taken() {
    assert_eq!(typed_seconds(""), Ok(None));
    assert_eq!(typed_seconds("  "), Ok(None));
    assert_eq!(typed_seconds(" 60 "), Ok(Some(60.0)));
    assert_eq!(typed_seconds("0.5"), Ok(Some(0.5)));
    for bad in ["0", "-3", "soon", "inf", "NaN"] {
        assert!(typed_seconds(bad).is_err(), "{bad}");
    }
}
