//! Two scrapes of one server: the window between them is what happened in between. Scrapes are built from known
//! requests with the simulated exposition, so each window can be checked against the requests that made it.

use goodput::cluster::exposition::{SimulatedScrape, E2E_BUCKETS, TPOT_BUCKETS, TTFT_BUCKETS};
use goodput::cluster::metrics::parse;
use goodput::cluster::report::{render, Options, Source};
use goodput::cluster::vllm::{
    assess, find_signals, HistogramSeries, KneeVerdict, QuantileEstimate, SloTargets, Span,
};
use goodput::cluster::window::{between, seconds_between_timestamps};
use goodput::model::RequestTrace;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A request with the given TTFT, `output_tokens` tokens and a mean gap of `gap` seconds between them.
fn request(index: u64, arrival: f64, ttft: f64, output_tokens: u32, gap: f64) -> RequestTrace {
    let first_token = arrival + ttft;
    RequestTrace {
        index,
        arrival,
        first_token,
        finish: first_token + gap * f64::from(output_tokens.saturating_sub(1)),
        prompt_tokens: 1000,
        output_tokens,
        replica: 0,
    }
}

/// A fast first phase (TTFT 20–90 ms, 8–20 ms a token), then a slow second one (TTFT 0.3–6 s, 30–70 ms a token).
fn two_phases(first: usize, second: usize) -> Vec<RequestTrace> {
    let mut rng = StdRng::seed_from_u64(14);
    let mut traces = Vec::new();
    for i in 0..first + second {
        let slow = i >= first;
        let (ttft, gap) = if slow {
            (
                0.3 * 20f64.powf(rng.random::<f64>()),
                rng.random_range(0.03..0.07),
            )
        } else {
            (rng.random_range(0.02..0.09), rng.random_range(0.008..0.02))
        };
        traces.push(request(
            i as u64,
            i as f64 * 0.1,
            ttft,
            rng.random_range(1..400),
            gap,
        ));
    }
    traces
}

/// Requests before the first scrape, and between the two: the slow ones are under 1% of all, so the since-start
/// p99 stays fast while the window's is slow.
const FIRST: usize = 20_000;
const SECOND: usize = 150;

fn scrape(traces: &[RequestTrace]) -> String {
    SimulatedScrape {
        model_name: "m",
        traces,
        running: 30.0,
        waiting: 0.0,
        kv_cache_usage: None,
        preemptions: 0,
        rejected: None,
        show_hidden_metrics: false,
        comment: None,
    }
    .render()
}

/// The empirical quantile: the smallest value with at least `q × n` of the values at or below it.
fn exact_quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.max(1) - 1]
}

/// The bucket `(low, high]` of `bounds` that holds `value`.
fn bucket_of(bounds: &[f64], value: f64) -> (f64, f64) {
    let index = bounds
        .iter()
        .position(|&b| value <= b)
        .expect("below the last finite bound");
    (
        if index == 0 { 0.0 } else { bounds[index - 1] },
        bounds[index],
    )
}

/// Whether any reason contains `fragment`.
fn says(reasons: &[String], fragment: &str) -> bool {
    reasons.iter().any(|r| r.contains(fragment))
}

fn seconds(estimate: QuantileEstimate) -> f64 {
    match estimate {
        QuantileEstimate::Seconds(s) => s,
        other => panic!("expected an estimate in seconds, got {other:?}"),
    }
}

/// Asserts that the histogram's estimate of each percentile lies in the bucket that holds the exact percentile of
/// `values`: the bucket resolution Prometheus's `histogram_quantile` has.
fn within_bucket_resolution(
    name: &str,
    histogram: &HistogramSeries,
    bounds: &[f64],
    values: &[f64],
) {
    assert_eq!(histogram.count(), values.len() as f64, "{name}: count");
    for q in [0.5, 0.95, 0.99] {
        let exact = exact_quantile(values, q);
        let (low, high) = bucket_of(bounds, exact);
        let estimate = seconds(histogram.quantile(q));
        assert!(
            low <= estimate && estimate <= high,
            "{name} p{}: estimate {estimate} outside ({low}, {high}], the bucket of the exact {exact}",
            q * 100.0
        );
    }
}

#[test]
fn windowed_percentiles_are_those_of_the_requests_between_the_scrapes() {
    let (first, second) = (FIRST, SECOND);
    let traces = two_phases(first, second);
    let (earlier, later) = (scrape(&traces[..first]), scrape(&traces));
    let window = between(
        &parse(&earlier).unwrap(),
        &parse(&later).unwrap(),
        Some(300.0),
    );
    assert_eq!(window.servers.len(), 1);
    let server = &window.servers[0];
    assert_eq!(
        server.span,
        Span::Window {
            seconds: Some(300.0)
        }
    );
    assert_eq!(server.requests(), Some(second as f64));

    let added = &traces[first..];
    let ttft: Vec<f64> = added.iter().map(|t| t.first_token - t.arrival).collect();
    let e2e: Vec<f64> = added.iter().map(|t| t.finish - t.arrival).collect();
    // vLLM's per-request TPOT: the mean gap after the first token, 0 for a single token.
    let tpot: Vec<f64> = added
        .iter()
        .map(|t| match t.output_tokens {
            0 | 1 => 0.0,
            n => (t.finish - t.first_token) / f64::from(n - 1),
        })
        .collect();
    within_bucket_resolution(
        "TTFT",
        &server.ttft.as_ref().unwrap().value,
        &TTFT_BUCKETS,
        &ttft,
    );
    within_bucket_resolution(
        "TPOT",
        &server.tpot.as_ref().unwrap().value,
        &TPOT_BUCKETS,
        &tpot,
    );
    within_bucket_resolution(
        "e2e",
        &server.e2e.as_ref().unwrap().value,
        &E2E_BUCKETS,
        &e2e,
    );
    let gaps: u32 = added
        .iter()
        .map(|t| t.output_tokens.saturating_sub(1))
        .sum();
    assert_eq!(server.itl.as_ref().unwrap().value.count(), f64::from(gaps));
    let window_sum = server.ttft.as_ref().unwrap().value.sum.unwrap();
    assert!((window_sum - ttft.iter().sum::<f64>()).abs() < 1e-6);

    // The since-start figure of the later page is the history: its p99 sits in another bucket than the window's.
    let history = &find_signals(&parse(&later).unwrap())[0];
    let since_start = seconds(history.ttft.as_ref().unwrap().value.quantile(0.99));
    let present = seconds(server.ttft.as_ref().unwrap().value.quantile(0.99));
    assert!(
        bucket_of(&TTFT_BUCKETS, since_start) != bucket_of(&TTFT_BUCKETS, present),
        "{since_start} vs {present}"
    );
    assert!(
        present > 10.0 * since_start,
        "window p99 {present} s, since the start {since_start} s"
    );
    assert_eq!(
        assess(history, &SloTargets::COURSE).verdict,
        KneeVerdict::BelowTheKnee
    );
    assert_eq!(
        assess(server, &SloTargets::COURSE).verdict,
        KneeVerdict::PastTheKnee
    );
}

#[test]
fn a_restart_between_the_scrapes_is_reported_instead_of_a_negative_window() {
    let traces = two_phases(5_000, 40);
    let (before, after_restart) = (scrape(&traces[..5_000]), scrape(&traces[5_000..]));
    let window = between(
        &parse(&before).unwrap(),
        &parse(&after_restart).unwrap(),
        Some(60.0),
    );
    let server = &window.servers[0];
    assert_eq!(
        server.span,
        Span::Restarted {
            evidence: "vllm:time_to_first_token_seconds_count fell from 5000 to 40".to_owned()
        }
    );
    // What is left to show is the later page's own count, since the restart; never a negative one.
    assert_eq!(server.requests(), Some(40.0));
    assert!(server
        .ttft
        .as_ref()
        .unwrap()
        .value
        .buckets
        .iter()
        .all(|b| b.cumulative >= 0.0));
    let reasons = assess(server, &SloTargets::COURSE).reasons;
    assert!(
        says(&reasons, "no preemptions since the restart"),
        "{reasons:?}"
    );

    // The process start time gives a restart away even when the counts happen to have grown past the old ones.
    let page = include_str!("fixtures/metrics/vllm-0.13-two-engines.prom");
    let restarted = page.replace(
        "process_start_time_seconds 1768399987.41",
        "process_start_time_seconds 1768486387.02",
    );
    let window = between(&parse(page).unwrap(), &parse(&restarted).unwrap(), None);
    assert!(window.servers.iter().all(|s| matches!(&s.span, Span::Restarted { evidence } if evidence.contains("process_start_time_seconds changed"))));
    // So does an upgrade that renamed a histogram.
    let upgraded = page.replace(
        "vllm:request_time_per_output_token_seconds",
        "vllm:time_per_output_token_seconds",
    );
    let window = between(&parse(&upgraded).unwrap(), &parse(page).unwrap(), None);
    assert!(
        matches!(&window.servers[0].span, Span::Restarted { evidence } if evidence.contains("TPOT histogram changed from vllm:time_per_output_token_seconds to vllm:request_time_per_output_token_seconds")),
        "{:?}",
        window.servers[0].span
    );
    // Scrapes given in the wrong order look like a restart too, and the text says which counter fell.
    let report = render(
        &Source::text("later.prom", &scrape(&traces)),
        Some(&Source::text("earlier.prom", &scrape(&traces[..5_000]))),
        &Options::new(500.0, 40.0, Some(60.0), false).unwrap(),
    )
    .unwrap();
    assert!(report.contains("the server restarted between the scrapes (vllm:time_to_first_token_seconds_count fell from 5040 to 5000), so these figures count since the restart: 5000 requests"), "{report}");
}

#[test]
fn a_full_kv_cache_that_preempts_in_the_window_is_a_knee_of_its_own() {
    let traces = two_phases(2_000, 0);
    let page = |preemptions: u64, kv: f64| {
        SimulatedScrape {
            model_name: "m",
            traces: &traces,
            running: 48.0,
            waiting: 1.0,
            kv_cache_usage: Some(kv),
            preemptions,
            rejected: None,
            show_hidden_metrics: false,
            comment: None,
        }
        .render()
    };
    let judge = |earlier: &str, later: &str| {
        let window = between(&parse(earlier).unwrap(), &parse(later).unwrap(), Some(30.0));
        assess(&window.servers[0], &SloTargets::COURSE)
    };
    // No new requests, no queue: only the memory speaks.
    let full = judge(&page(10, 0.98), &page(25, 0.98));
    assert_eq!(full.verdict, KneeVerdict::PastTheKnee, "{:?}", full.reasons);
    assert!(says(&full.reasons, "KV cache 98% full and 15 preemptions in the window: past the memory knee, even with a short queue"), "{:?}", full.reasons);
    let emptied = judge(&page(10, 0.98), &page(25, 0.6));
    assert_eq!(emptied.verdict, KneeVerdict::AtTheKnee);
    assert!(says(
        &emptied.reasons,
        "15 preemptions in the window: the KV cache ran full at times (KV cache 60% full now)"
    ));
    let calm = judge(&page(25, 0.6), &page(25, 0.6));
    assert_eq!(
        calm.verdict,
        KneeVerdict::BelowTheKnee,
        "{:?}",
        calm.reasons
    );
    assert!(says(&calm.reasons, "no preemptions in the window"));
    assert!(
        says(&calm.reasons, "p99 TTFT: no requests"),
        "{:?}",
        calm.reasons
    );
    // On one scrape the same counter is history: reported, not judged.
    let once = assess(
        &find_signals(&parse(&page(25, 0.6)).unwrap())[0],
        &SloTargets::COURSE,
    );
    assert_eq!(
        once.verdict,
        KneeVerdict::BelowTheKnee,
        "{:?}",
        once.reasons
    );
    assert!(says(
        &once.reasons,
        "25 preemptions since the server started"
    ));
}

#[test]
fn label_sets_that_come_or_go_between_the_scrapes_are_named() {
    let page = include_str!("fixtures/metrics/vllm-0.13-two-engines.prom");
    let one_engine: String = page
        .lines()
        .filter(|l| !l.contains("engine=\"1\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let grown = between(&parse(&one_engine).unwrap(), &parse(page).unwrap(), None);
    assert_eq!(grown.servers.len(), 2);
    assert_eq!(grown.servers[0].span, Span::Window { seconds: None });
    assert_eq!(
        grown.servers[0].requests(),
        Some(0.0),
        "the same page twice: nothing happened"
    );
    assert_eq!(
        grown.servers[1].span,
        Span::Restarted {
            evidence: "this label set is not on the earlier page".to_owned()
        }
    );
    let shrunk = between(&parse(page).unwrap(), &parse(&one_engine).unwrap(), None);
    assert_eq!(shrunk.servers.len(), 1);
    assert_eq!(shrunk.gone.len(), 1);
    assert!(shrunk.gone[0].contains(&("engine".to_owned(), "1".to_owned())));
}

#[test]
fn the_window_length_comes_from_the_flag_or_the_timestamps_and_is_otherwise_unknown() {
    let stamped = |ms: i64| format!("vllm:num_requests_waiting{{engine=\"0\"}} 3 {ms}\n");
    let (a, b) = (
        parse(&stamped(1_768_400_000_000)).unwrap(),
        parse(&stamped(1_768_400_090_500)).unwrap(),
    );
    assert_eq!(seconds_between_timestamps(&a, &b), Some(90.5));
    assert_eq!(seconds_between_timestamps(&b, &a), None);
    assert_eq!(
        seconds_between_timestamps(&a, &parse("vllm:num_requests_waiting 3\n").unwrap()),
        None
    );
    let json = |earlier: &Source, later: &Source, seconds: Option<f64>| -> serde_json::Value {
        let options = Options::new(500.0, 40.0, seconds, true).unwrap();
        serde_json::from_str(&render(earlier, Some(later), &options).unwrap()).unwrap()
    };
    let (first, second) = (
        Source::text("a", &stamped(1_768_400_000_000)),
        Source::text("b", &stamped(1_768_400_090_500)),
    );
    let from_stamps = json(&first, &second, None);
    assert_eq!(
        (
            from_stamps["window_seconds"].as_f64(),
            from_stamps["window_seconds_from"].as_str()
        ),
        (Some(90.5), Some("timestamps"))
    );
    let from_flag = json(&first, &second, Some(60.0));
    assert_eq!(
        (
            from_flag["window_seconds"].as_f64(),
            from_flag["window_seconds_from"].as_str()
        ),
        (Some(60.0), Some("flag"))
    );
    let unknown = json(
        &Source::text("a", "vllm:num_requests_waiting 3\n"),
        &Source::text("b", "vllm:num_requests_waiting 3\n"),
        None,
    );
    assert!(unknown["window_seconds"].is_null());
    assert_eq!(unknown["window_seconds_from"], "unknown");
    assert!(Options::new(500.0, 40.0, Some(0.0), true).is_err());
    assert!(Options::new(500.0, 40.0, Some(f64::NAN), true).is_err());
}

#[test]
fn the_report_gives_the_windows_figures_as_text_and_as_json() {
    let (first, second) = (FIRST, SECOND);
    let traces = two_phases(first, second);
    let (earlier, later) = (
        Source::text("t0.prom", &scrape(&traces[..first])),
        Source::text("t1.prom", &scrape(&traces)),
    );
    let window = between(
        &parse(&earlier.text).unwrap(),
        &parse(&later.text).unwrap(),
        Some(300.0),
    );
    let ttft = window.servers[0].ttft.as_ref().unwrap().value.percentiles();

    let text = render(
        &earlier,
        Some(&later),
        &Options::new(500.0, 40.0, Some(300.0), false).unwrap(),
    )
    .unwrap();
    assert!(
        text.starts_with("Window from t0.prom to t1.prom, 300 s apart (--seconds)\n"),
        "{text}"
    );
    assert!(
        text.contains("  window between the two scrapes: 150 requests in 300 s, 0.50 requests/s\n"),
        "{text}"
    );
    let line = format!(
        "  TTFT  p50 ≈ {}   p95 ≈ {}   p99 ≈ {}   (vllm:time_to_first_token_seconds)\n",
        ttft.p50.describe(),
        ttft.p95.describe(),
        ttft.p99.describe()
    );
    assert!(text.contains(&line), "{line} in {text}");
    assert!(text.contains("preemptions 0 in the window"), "{text}");
    assert!(text.contains("verdict: past the knee"), "{text}");
    assert!(
        !text.contains("One scrape counts since the server started"),
        "{text}"
    );

    let json: serde_json::Value = serde_json::from_str(
        &render(
            &earlier,
            Some(&later),
            &Options::new(500.0, 40.0, Some(300.0), true).unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(json["pages"], serde_json::json!(["t0.prom", "t1.prom"]));
    let set = &json["label_sets"][0];
    assert_eq!(
        set["labels"],
        serde_json::json!({"engine": "0", "model_name": "m"})
    );
    assert_eq!(
        (
            set["span"].as_str(),
            set["requests"].as_f64(),
            set["seconds"].as_f64()
        ),
        (Some("window"), Some(150.0), Some(300.0))
    );
    assert_eq!(set["ttft"]["p99"].as_f64(), ttft.p99.at_least());
    assert_eq!(set["ttft"]["metric"], "vllm:time_to_first_token_seconds");
    assert_eq!(
        set["tpot"]["metric"],
        "vllm:request_time_per_output_token_seconds"
    );
    assert_eq!(set["itl"]["metric"], "vllm:inter_token_latency_seconds");
    assert!(set["itl"]["p95"].as_f64().is_some());
    assert!(
        set["queue"]["metric"].is_null() && set["queue"]["p99"].is_null(),
        "the simulated page has no queue histogram"
    );
    assert_eq!(
        (set["running"].as_f64(), set["waiting"].as_f64()),
        (Some(30.0), Some(0.0))
    );
    assert!(set["kv_cache_usage"].is_null());
    assert_eq!(set["preemptions"].as_f64(), Some(0.0));
    assert_eq!(set["verdict"], "past_the_knee");
    assert!(set["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r.as_str().unwrap().contains("p99 TTFT ≈")));
}

#[test]
fn the_sample_later_scrape_looks_healthy_since_the_start_but_the_window_is_past_the_knee() {
    let healthy = parse(include_str!("fixtures/metrics/healthy.prom")).unwrap();
    let later = parse(include_str!("fixtures/metrics/healthy-later.prom")).unwrap();
    let history = &find_signals(&later)[0];
    let since_start = seconds(history.ttft.as_ref().unwrap().value.quantile(0.99));
    assert!(
        since_start < SloTargets::COURSE.ttft_p99,
        "since the start p99 TTFT {since_start} s"
    );
    let window = between(&healthy, &later, Some(60.0));
    let present = &window.servers[0];
    assert_eq!(present.requests(), Some(150.0));
    let p99 = present
        .ttft
        .as_ref()
        .unwrap()
        .value
        .quantile(0.99)
        .at_least()
        .unwrap();
    assert!(p99 > 60.0, "the window's p99 TTFT {p99} s");
    let reasons = assess(present, &SloTargets::COURSE).reasons;
    assert!(says(&reasons, "p99 TTFT ≈ 80 s breaks"), "{reasons:?}");
}
