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

// ---------------------------------------------------------------- the page's view of it (cluster::reader_view)

use goodput::cluster::reader_view::{
    outcome, parse_box, render as render_view, Outcome, EMPTY_STATUS, REPORTS_PER_STEP,
    SHOW_MORE_ATTRIBUTE,
};

/// The page's view of two boxes holding `first` and `later`.
fn view(
    first: &str,
    later: &str,
    shown: usize,
) -> (Outcome, goodput::cluster::reader_view::ReaderHtml) {
    let o = outcome(&parse_box(first), &parse_box(later), None, &lesson_slo());
    let html = render_view(&o, &lesson_slo(), shown);
    (o, html)
}

#[test]
fn the_pages_view_is_the_reading_as_html_with_its_verdict_and_estimates() {
    let (_, html) = view(HEALTHY, "", REPORTS_PER_STEP);
    assert!(html.alert.is_empty());
    let result = &html.result;
    assert!(result.contains(r#"<p class="reader-verdict verdict-below">Verdict: <strong>below the knee</strong></p>"#), "{result}");
    // The same estimates the CLI prints for this page, in the table's TTFT row.
    assert!(
        result.contains("<td>43 ms</td><td>98 ms</td><td>217 ms</td><td>p99 ≤ 500 ms</td>"),
        "{result}"
    );
    assert!(
        result.contains(r#"<code class="reader-metric">vllm:time_to_first_token_seconds</code>"#)
    );
    let suggestion = &result[result
        .find("reader-suggestion")
        .expect("a replica suggestion")..];
    assert!(
        suggestion.contains(
            "<li>In flight now (Little's L) = running 19 + waiting 1.0 = 20 requests</li>"
        ),
        "{suggestion}"
    );
    assert!(
        !result.contains(SHOW_MORE_ATTRIBUTE),
        "one label set: nothing more to show"
    );
    // The window between two scrapes says so in its caption.
    let (_, window) = view(HEALTHY, HEALTHY_LATER, REPORTS_PER_STEP);
    assert!(window
        .result
        .contains("Estimated from the bucket differences between the two scrapes"));
}

#[test]
fn the_pages_view_of_empty_refused_and_many_label_sets() {
    let (o, html) = view("  \n", "", REPORTS_PER_STEP);
    assert_eq!(o, Outcome::Empty);
    assert!(html.result.contains(EMPTY_STATUS));
    let (_, later_only) = view("", HEALTHY, REPORTS_PER_STEP);
    assert!(later_only
        .result
        .contains("A later scrape needs the earlier one"));

    // A refused page: the alert quotes the line, escaped; the status points at it.
    let (_, refused) = view(
        "vllm:num_requests_running <script>alert(1)</script>\n",
        "",
        12,
    );
    assert!(
        refused
            .alert
            .starts_with(r#"<div class="reader-alert"><p>Cannot read this page: "#),
        "{}",
        refused.alert
    );
    assert!(
        refused
            .alert
            .contains("Line 1: <code>vllm:num_requests_running &lt;script&gt;"),
        "{}",
        refused.alert
    );
    assert!(!refused.alert.contains("<script>"));
    assert!(refused
        .result
        .contains("The page could not be read; see the error above."));

    // Thirty label sets: the first twelve drawn, and a button for twelve more.
    let page: String = (0..30)
        .map(|i| {
            format!(
                "vllm:num_requests_running{{model_name=\"m{i}\"}} 1\nvllm:num_requests_waiting{{model_name=\"m{i}\"}} 0\n"
            )
        })
        .collect();
    let (_, many) = view(&page, "", REPORTS_PER_STEP);
    assert_eq!(
        many.result
            .matches(r#"<section class="reader-server""#)
            .count(),
        REPORTS_PER_STEP
    );
    assert!(many
        .result
        .contains("Showing the first 12 of 30 label sets. "));
    assert!(many.result.contains(&format!(
        r#"<button type="button" class="widget-button" {SHOW_MORE_ATTRIBUTE}>Show 12 more</button>"#
    )));
    let (_, all) = view(&page, "", 30);
    assert_eq!(
        all.result
            .matches(r#"<section class="reader-server""#)
            .count(),
        30
    );
    assert!(!all.result.contains(SHOW_MORE_ATTRIBUTE));
}
