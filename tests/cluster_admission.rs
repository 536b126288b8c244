//! The reader on servers that turn requests away (vLLM's `--max-num-queued-reqs` / `--max-num-queued-tokens`):
//! hand-built pages in vLLM's layout, where the queue and the latencies look fine and only the rejection counters
//! (`vllm:admission_rejections_total`, `http_requests_total` 5xx) show the overload.

use goodput::cluster::metrics::parse;
use goodput::cluster::report::{render, Options, Source};
use goodput::cluster::vllm::{assess, find_signals, KneeVerdict, ServerSignals, SloTargets};
use goodput::cluster::window::between;

/// What one scrape of the test server shows.
#[derive(Clone, Copy)]
struct Scrape {
    /// Requests that got their first token since the start (all within 80 ms: far inside the 500 ms SLO).
    served: u32,
    /// `vllm:admission_rejections_total{reason="max_num_queued_reqs"}`, when the page has the counter.
    rejected: Option<u32>,
    /// `http_requests_total` with a 5xx status (`status` label as given), when the page has any.
    http_5xx: Option<(u32, &'static str)>,
    waiting: u32,
}

const LABELS: &str = r#"model_name="m",engine="0""#;

/// A vLLM 0.13-style page: the API server's counters first (as a real page lists them), then the engine's gauges,
/// the rejection counter (no `engine` label) and fast TTFT and TPOT histograms.
fn page(s: Scrape) -> String {
    let mut text = String::from(
        "# HELP http_requests_total Total number of requests by method, status and handler.\n\
         # TYPE http_requests_total counter\n",
    );
    text += &format!(
        "http_requests_total{{handler=\"/v1/chat/completions\",method=\"POST\",status=\"2xx\"}} {}.0\n",
        s.served
    );
    text += "http_requests_total{handler=\"/metrics\",method=\"GET\",status=\"2xx\"} 40.0\n";
    if let Some((count, status)) = s.http_5xx {
        text += &format!(
            "http_requests_total{{handler=\"/v1/chat/completions\",method=\"POST\",status=\"{status}\"}} {count}.0\n"
        );
    }
    text += &format!(
        "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{{{LABELS}}} 64.0\n\
         # TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{{{LABELS}}} {}.0\n",
        s.waiting
    );
    if let Some(rejected) = s.rejected {
        text += &format!(
            "# HELP vllm:admission_rejections_total Requests rejected by admission control.\n\
             # TYPE vllm:admission_rejections_total counter\n\
             vllm:admission_rejections_total{{model_name=\"m\",reason=\"max_num_queued_reqs\"}} {rejected}.0\n\
             vllm:admission_rejections_total{{model_name=\"m\",reason=\"max_num_queued_tokens\"}} 0.0\n"
        );
    }
    for (name, bound) in [
        ("vllm:time_to_first_token_seconds", "0.08"),
        ("vllm:request_time_per_output_token_seconds", "0.025"),
    ] {
        let n = s.served;
        text += &format!(
            "# TYPE {name} histogram\n\
             {name}_bucket{{{LABELS},le=\"{bound}\"}} {n}.0\n\
             {name}_bucket{{{LABELS},le=\"+Inf\"}} {n}.0\n\
             {name}_count{{{LABELS}}} {n}.0\n\
             {name}_sum{{{LABELS}}} {}\n",
            f64::from(n) * 0.01
        );
    }
    text
}

fn window(earlier: Scrape, later: Scrape) -> ServerSignals {
    let (a, b) = (parse(&page(earlier)).unwrap(), parse(&page(later)).unwrap());
    let mut servers = between(&a, &b, Some(60.0)).servers;
    assert_eq!(servers.len(), 1, "one label set: {servers:?}");
    servers.remove(0)
}

/// The issue's server: in a minute, 1 500 requests arrived; 900 were turned away, the 600 admitted met their SLOs,
/// and the queue sat at 8 behind 64 running.
const BEFORE: Scrape = Scrape {
    served: 10_000,
    rejected: Some(2_000),
    http_5xx: Some((2_000, "5xx")),
    waiting: 8,
};
const AFTER: Scrape = Scrape {
    served: 10_600,
    rejected: Some(2_900),
    http_5xx: Some((2_900, "5xx")),
    waiting: 8,
};

#[test]
fn a_server_turning_away_900_of_1500_is_past_the_knee_though_its_queue_and_slos_look_fine() {
    let server = window(BEFORE, AFTER);
    let refusals = server
        .refusals
        .as_ref()
        .expect("the page counts rejections");
    assert_eq!(refusals.refused, 900.0);
    assert_eq!(refusals.admitted, Some(600.0));
    assert_eq!(refusals.share_of_arrivals(), Some(0.6));
    assert_eq!(refusals.http_5xx, Some(900.0));
    assert_eq!(
        refusals.by_reason,
        vec![
            ("max_num_queued_reqs".to_owned(), 900.0),
            ("max_num_queued_tokens".to_owned(), 0.0)
        ]
    );
    assert_eq!(refusals.label_sets, 1, "the counter covers the one engine");
    let assessment = assess(&server, &SloTargets::COURSE);
    assert_eq!(assessment.verdict, KneeVerdict::PastTheKnee);
    let first = &assessment.reasons[0];
    assert!(
        first.contains("turned away 900 of 1500 arriving requests (60%) in the window"),
        "{first}"
    );
    assert!(first.contains("900 max_num_queued_reqs"), "{first}");
    // The SLOs are met and the queue is small: without the counter the verdict would be "at the knee".
    assert!(assessment
        .reasons
        .iter()
        .any(|r| r.contains("meets the 500 ms SLO")));
    assert!(assessment
        .reasons
        .iter()
        .any(|r| r.contains("num_requests_waiting (8) no longer measures the overload")));
    let blind = ServerSignals {
        refusals: None,
        ..server
    };
    assert_eq!(
        assess(&blind, &SloTargets::COURSE).verdict,
        KneeVerdict::AtTheKnee
    );
}

#[test]
fn metrics_json_carries_the_rejections_per_label_set_and_per_reason() {
    let options = Options::new(500.0, 40.0, Some(60.0), true).unwrap();
    let json = render(
        &Source::text("before.prom", &page(BEFORE)),
        Some(&Source::text("after.prom", &page(AFTER))),
        &options,
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let set = &v["label_sets"][0];
    assert_eq!(set["verdict"], "past_the_knee");
    let rejections = &set["rejections"];
    assert_eq!(rejections["metric"], "vllm:admission_rejections_total");
    assert_eq!(rejections["count"], 900.0);
    assert_eq!(rejections["share_of_arrivals"], 0.6);
    assert_eq!(rejections["by_reason"]["max_num_queued_reqs"], 900.0);
    assert_eq!(rejections["by_reason"]["max_num_queued_tokens"], 0.0);
    assert_eq!(rejections["http_5xx"], 900.0);
    assert_eq!(rejections["scope"]["model_name"], "m");
    // The text report says it in one line.
    let text = render(
        &Source::text("before.prom", &page(BEFORE)),
        Some(&Source::text("after.prom", &page(AFTER))),
        &Options::new(500.0, 40.0, Some(60.0), false).unwrap(),
    )
    .unwrap();
    assert!(
        text.contains("turned away 900 of 1500 arriving (60%) in the window (vllm:admission_rejections_total; by reason: 900 max_num_queued_reqs, 0 max_num_queued_tokens; HTTP 5xx answers: 900)"),
        "{text}"
    );
    assert!(text.contains("verdict: past the knee"), "{text}");
}

#[test]
fn one_scrape_counts_rejections_since_the_start() {
    let servers = find_signals(&parse(&page(AFTER)).unwrap());
    let refusals = servers[0].refusals.as_ref().unwrap();
    assert_eq!(refusals.refused, 2_900.0);
    assert_eq!(refusals.admitted, Some(10_600.0));
    let assessment = assess(&servers[0], &SloTargets::COURSE);
    assert_eq!(assessment.verdict, KneeVerdict::PastTheKnee);
    assert!(
        assessment.reasons[0]
            .contains("2900 of 13500 arriving requests (21.5%) since the server started")
            && assessment.reasons[0].contains("a later scrape shows whether it still is"),
        "{:?}",
        assessment.reasons
    );
}

#[test]
fn a_page_with_only_http_5xx_answers_is_read_for_its_refusals() {
    // A server without the rejection counter (before PR #55812): the API server's 503s are all there is.
    for status in ["5xx", "503"] {
        let before = Scrape {
            rejected: None,
            http_5xx: Some((2_000, status)),
            ..BEFORE
        };
        let after = Scrape {
            rejected: None,
            http_5xx: Some((2_900, status)),
            ..AFTER
        };
        let server = window(before, after);
        let refusals = server.refusals.as_ref().unwrap();
        assert_eq!(refusals.metric, "http_requests_total");
        assert_eq!(refusals.refused, 900.0, "status {status}");
        assert_eq!(refusals.share_of_arrivals(), Some(0.6));
        assert!(refusals.by_reason.is_empty());
        let assessment = assess(&server, &SloTargets::COURSE);
        assert_eq!(assessment.verdict, KneeVerdict::PastTheKnee);
        assert!(
            assessment.reasons[0].contains("refused or failed 900 of 1500 arriving requests (60%)"),
            "{:?}",
            assessment.reasons
        );
        // One scrape of it too.
        let one = &find_signals(&parse(&page(after)).unwrap())[0];
        assert_eq!(one.refusals.as_ref().unwrap().refused, 2_900.0);
    }
    // No 5xx on the page: nothing to read, and the verdict is the queue's and the SLOs'.
    let calm = Scrape {
        rejected: None,
        http_5xx: None,
        waiting: 0,
        ..AFTER
    };
    let server = &find_signals(&parse(&page(calm)).unwrap())[0];
    assert!(server.refusals.is_none());
    assert_eq!(
        assess(server, &SloTargets::COURSE).verdict,
        KneeVerdict::BelowTheKnee
    );
}

#[test]
fn a_counter_that_first_appears_in_the_later_scrape_counts_whole_and_a_fall_is_a_restart() {
    let appeared = window(
        Scrape {
            rejected: None,
            http_5xx: None,
            ..BEFORE
        },
        Scrape {
            rejected: Some(30),
            http_5xx: Some((30, "503")),
            ..AFTER
        },
    );
    assert_eq!(appeared.refusals.as_ref().unwrap().refused, 30.0);
    let restarted = window(
        AFTER,
        Scrape {
            rejected: Some(5),
            ..AFTER
        },
    );
    assert!(matches!(
        restarted.span,
        goodput::cluster::vllm::Span::Restarted { ref evidence } if evidence.contains("vllm:admission_rejections_total fell from 2900 to 5")
    ));
}

#[test]
fn a_counter_without_an_engine_label_covers_every_engine_of_its_model() {
    // Two engines of model m; the rejection counter and the API server's counter cover both.
    let mut text = page(AFTER);
    for (name, count) in [
        ("vllm:num_requests_running", "64.0"),
        ("vllm:num_requests_waiting", "8.0"),
    ] {
        text += &format!("{name}{{model_name=\"m\",engine=\"1\"}} {count}\n");
    }
    let text = text.replace(
        "# TYPE vllm:request_time_per_output_token_seconds histogram\n",
        "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",engine=\"1\",le=\"+Inf\"} 400.0\n\
         # TYPE vllm:request_time_per_output_token_seconds histogram\n",
    );
    let servers = find_signals(&parse(&text).unwrap());
    assert_eq!(servers.len(), 2);
    for server in &servers {
        let refusals = server.refusals.as_ref().unwrap();
        assert_eq!(refusals.label_sets, 2);
        assert_eq!(refusals.admitted, Some(10_600.0 + 400.0));
        assert_eq!(refusals.refused, 2_900.0);
    }
    let reasons = assess(&servers[1], &SloTargets::COURSE).reasons;
    assert!(
        reasons[0].contains("the counter covers 2 label sets"),
        "{reasons:?}"
    );
}

#[test]
fn waiting_by_reason_and_the_prefix_cache_hit_rate_are_read_where_present() {
    let extra = |hits: u32, queries: u32| {
        format!(
            "# TYPE vllm:num_requests_waiting_by_reason gauge\n\
             vllm:num_requests_waiting_by_reason{{{LABELS},reason=\"capacity\"}} 6.0\n\
             vllm:num_requests_waiting_by_reason{{{LABELS},reason=\"deferred\"}} 2.0\n\
             # TYPE vllm:prefix_cache_hits_total counter\nvllm:prefix_cache_hits_total{{{LABELS}}} {hits}.0\n\
             # TYPE vllm:prefix_cache_queries_total counter\nvllm:prefix_cache_queries_total{{{LABELS}}} {queries}.0\n\
             # TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total{{{LABELS}}} {}.0\n",
            hits / 100
        )
    };
    let calm = Scrape {
        rejected: None,
        http_5xx: None,
        ..AFTER
    };
    let (a, b) = (
        page(calm) + &extra(1_000, 4_000),
        page(calm) + &extra(4_000, 8_000),
    );
    let one = &find_signals(&parse(&b).unwrap())[0];
    assert_eq!(
        one.waiting_by_reason,
        vec![("capacity".to_owned(), 6.0), ("deferred".to_owned(), 2.0)]
    );
    assert_eq!(one.prefix_cache.unwrap().hit_rate(), Some(0.5));
    let server = &between(&parse(&a).unwrap(), &parse(&b).unwrap(), Some(60.0)).servers[0];
    // In the window: 3 000 hits of 4 000 queries, and 30 preemptions beside them.
    assert_eq!(server.prefix_cache.unwrap().hit_rate(), Some(0.75));
    let reasons = assess(server, &SloTargets::COURSE).reasons;
    assert!(
        reasons.iter().any(|r| r.contains(
            "waiting by reason (vllm:num_requests_waiting_by_reason): 6 capacity, 2 deferred"
        )),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("prefix cache hit rate 75% in the window")),
        "{reasons:?}"
    );
    let v: serde_json::Value = serde_json::from_str(
        &render(
            &Source::text("a", &a),
            Some(&Source::text("b", &b)),
            &Options::new(500.0, 40.0, Some(60.0), true).unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    let set = &v["label_sets"][0];
    assert_eq!(set["waiting_by_reason"]["capacity"], 6.0);
    assert_eq!(set["prefix_cache_hit_rate"], 0.75);
    assert_eq!(set["rejections"], serde_json::Value::Null);
}

#[test]
fn the_simulated_page_of_a_capped_run_exports_its_rejections_and_reads_back_past_the_knee() {
    use goodput::cluster::exposition::render_vllm_metrics;
    use goodput::model::{run_traced, Scenario, ScenarioSettings};
    let run_at = |cap: Option<u32>| {
        let scenario = ScenarioSettings {
            load: Some(1.2),
            max_num_queued_reqs: cap,
            requests: Some(4_000),
            ..ScenarioSettings::default()
        }
        .apply(&Scenario::course_preset())
        .unwrap();
        run_traced(&scenario, 5, usize::MAX).unwrap()
    };
    let (summary, traces) = run_at(Some(80));
    let shed = summary.admission.unwrap();
    let text = render_vllm_metrics(&summary, &traces, "course-27b-fp8");
    let page = parse(&text).unwrap();
    let servers = find_signals(&page);
    assert_eq!(servers.len(), 1, "the counters cover the one engine");
    let refusals = servers[0].refusals.as_ref().unwrap();
    assert_eq!(refusals.refused, shed.rejected as f64);
    assert_eq!(refusals.http_5xx, Some(shed.rejected as f64));
    assert_eq!(refusals.admitted, Some(traces.len() as f64));
    let share = refusals.share_of_arrivals().unwrap();
    assert!((share - shed.rejection_rate).abs() < 1e-12, "{share}");
    assert_eq!(
        refusals.by_reason,
        vec![
            (
                "max_num_queued_reqs".to_owned(),
                shed.rejected_by_reason.max_num_queued_reqs as f64
            ),
            ("max_num_queued_tokens".to_owned(), 0.0)
        ]
    );
    assert_eq!(
        assess(&servers[0], &SloTargets::COURSE).verdict,
        KneeVerdict::PastTheKnee
    );
    // Without a cap, neither counter is on the page.
    let (summary, traces) = run_at(None);
    let text = render_vllm_metrics(&summary, &traces, "course-27b-fp8");
    assert!(!text.contains("admission_rejections") && !text.contains("http_requests_total"));
}

#[test]
fn many_label_sets_with_counters_of_their_own_read_fast() {
    // 20 000 engines, each with its own rejection counter and an API-server-style 5xx count per model: every counter is
    // matched to its label set directly, never every scope against every label set.
    let mut text = String::new();
    for i in 0..20_000 {
        let labels = format!("model_name=\"m{i}\",engine=\"0\"");
        text += &format!("vllm:num_requests_waiting{{{labels}}} 1\n");
        text += &format!(
            "vllm:admission_rejections_total{{{labels},reason=\"max_num_queued_reqs\"}} {i}\n"
        );
        text += &format!(
            "http_requests_total{{handler=\"/v1/completions\",method=\"POST\",status=\"503\",model_name=\"x{i}\"}} 1\n"
        );
    }
    let page = parse(&text).unwrap();
    let start = std::time::Instant::now();
    let servers = find_signals(&page);
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(servers.len(), 20_000);
    assert_eq!(servers[7].refusals.as_ref().unwrap().refused, 7.0);
    assert_eq!(servers[7].refusals.as_ref().unwrap().label_sets, 1);
    println!("20 000 label sets read in {seconds:.3} s");
    assert!(seconds < 2.0, "{seconds} s");
}
