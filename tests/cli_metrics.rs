//! `goodput-sim metrics` and `tools/cluster-probe.sh`: one scrape, a stand-in server, and two scrapes read as the
//! window between them.

use std::process::Command;

#[path = "support/sim_cli.rs"]
mod sim_cli;
use sim_cli::{help_mentions, sim, succeeded};

const HEALTHY_PAGE: &str = "tests/fixtures/metrics/healthy.prom";
const PAST_THE_KNEE_PAGE: &str = "tests/fixtures/metrics/past-the-knee.prom";

#[test]
fn metrics_prints_the_four_signals_and_the_verdict_of_each_sample_page() {
    for (page, verdict) in [
        (HEALTHY_PAGE, "verdict: below the knee"),
        (PAST_THE_KNEE_PAGE, "verdict: past the knee"),
    ] {
        let text = succeeded(sim(&["metrics", page]));
        assert!(text.contains("model_name=\"course-27b-fp8\""), "{text}");
        for signal in [
            "TTFT  p50 ≈ ",
            "TPOT  p50 ≈ ",
            "ITL   p50 ≈ ",
            "(vllm:request_time_per_output_token_seconds)",
            "(vllm:inter_token_latency_seconds)",
            "p95 ≈ ",
            "p99 ≈ ",
            "running ",
            "waiting ",
            "preemptions 0 since the server started",
            "since the server started: ",
            "ITL counts every engine step",
        ] {
            assert!(text.contains(signal), "{signal} missing from {text}");
        }
        assert!(text.contains(verdict), "{text}");
        assert!(
            text.contains("estimates from the histogram buckets"),
            "{text}"
        );
    }
    let overloaded = String::from_utf8(sim(&["metrics", PAST_THE_KNEE_PAGE]).stdout).unwrap();
    assert!(
        overloaded.contains("running 64   waiting 1789"),
        "{overloaded}"
    );
}

#[test]
fn metrics_refuses_bad_pages_with_one_line_naming_the_line() {
    // Removed when the test ends, passed or failed.
    let scratch = tempfile::Builder::new()
        .prefix("goodput-cli-")
        .tempdir()
        .unwrap();
    let dir = scratch.path();
    let broken = dir.join("broken.prom");
    std::fs::write(
        &broken,
        "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m} 3\n",
    )
    .unwrap();
    let not_vllm = dir.join("node.prom");
    std::fs::write(&not_vllm, "node_load1 0.5\n").unwrap();
    let huge = dir.join("huge.prom");
    std::fs::write(&huge, "# padding\n".repeat(600_000)).unwrap();
    for (path, expected) in [
        (&broken, "line 2: the value of label model_name"),
        (&not_vllm, "has no vLLM metrics"),
        (&huge, "larger than the 5 MB limit"),
    ] {
        let out = sim(&["metrics", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{path:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(expected), "{err}");
    }
}

/// Serves `body` to every request on a random local port, as a stand-in vLLM server; returns the port.
fn serve(body: &'static str) -> u16 {
    serve_pages(vec![body.to_owned()])
}

/// Serves `pages` one per request, in order, and the last one from then on: a server whose counters move between
/// scrapes. Returns the port.
fn serve_pages(pages: Vec<String>) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for (served, mut stream) in listener.incoming().flatten().enumerate() {
            let body = &pages[served.min(pages.len() - 1)];
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain; version=0.0.4\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

fn probe(args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .arg("tools/cluster-probe.sh")
        .args(args)
        .env("GOODPUT_SIM", env!("CARGO_BIN_EXE_goodput-sim"))
        .output()
        .expect("bash runs the probe")
}

#[test]
fn the_probe_prints_the_four_signals_of_a_server() {
    let port = serve(include_str!("fixtures/metrics/past-the-knee.prom"));
    let out = probe(&[&format!("127.0.0.1:{port}")]);
    let text = succeeded(out);
    assert!(
        text.contains(&format!("http://127.0.0.1:{port}/metrics")),
        "{text}"
    );
    assert!(
        text.contains("TTFT  p50 ≈ 30 s   p95 ≈ 74 s   p99 ≈ 79 s"),
        "{text}"
    );
    assert!(text.contains("TPOT  p50 ≈ 37 ms"), "{text}");
    assert!(text.contains("running 64   waiting 1789"), "{text}");
    assert!(text.contains("past the knee"), "{text}");
    assert!(text.contains(": since the server started\n"), "{text}");
}

#[test]
fn the_probe_prints_what_a_shedding_server_turned_away() {
    // A server with --max-num-queued-reqs: its queue and latencies look fine, its rejections do not.
    let port = serve_pages(vec![
        include_str!("fixtures/metrics/shedding.prom").to_owned(),
        include_str!("fixtures/metrics/shedding-later.prom").to_owned(),
    ]);
    let out = probe(&[&format!("127.0.0.1:{port}"), "--every", "1", "--count", "2"]);
    let text = succeeded(out);
    let probes: Vec<&str> = text.split("\n# ").collect();
    assert_eq!(probes.len(), 2, "{text}");
    assert!(
        probes[0].contains("turned away 2000 of 12000 arriving (16.7%) since the server started"),
        "{}",
        probes[0]
    );
    assert!(
        probes[1].contains("turned away 900 of 1500 arriving (60%) in the window"),
        "{}",
        probes[1]
    );
    assert!(
        probes[1].contains("verdict: past the knee"),
        "{}",
        probes[1]
    );
    assert!(
        probes[1].contains("900 max_num_queued_reqs"),
        "{}",
        probes[1]
    );
}

#[test]
fn the_probe_fails_in_one_line_when_the_server_is_unreachable_or_not_vllm() {
    let closed_port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let not_vllm = serve("node_load1 0.5\n");
    for (target, expected) in [
        (format!("127.0.0.1:{closed_port}"), "cannot reach"),
        (
            format!("http://127.0.0.1:{not_vllm}/metrics"),
            "has no vLLM metrics",
        ),
    ] {
        let out = probe(&[&target]);
        assert!(!out.status.success(), "{target} should fail");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.starts_with("cluster-probe: "), "{err}");
        assert!(err.contains(expected), "{err}");
    }
    let help = probe(&["--help"]);
    assert!(help.status.success());
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(
        help.contains("--every N") && help.contains("HOST:PORT") && help.contains("--count K"),
        "{help}"
    );
    for (args, expected) in [
        (
            &["--count", "2"][..],
            "--count only makes sense with --every",
        ),
        (
            &["--every", "1", "--count", "0"],
            "--count needs a positive whole number",
        ),
    ] {
        let out = probe(args);
        assert!(!out.status.success());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(expected),
            "{args:?}"
        );
    }
}

// ---- Two scrapes: the window between them ----

use goodput::cluster::exposition::SimulatedScrape;
use goodput::cluster::metrics::parse;
use goodput::cluster::vllm::find_signals;
use goodput::cluster::window::between;
use goodput::model::RequestTrace;

/// A page of `fast` requests with a 50 ms TTFT, then `slow` with 4 s: scrapes of a server that fell behind.
fn page_of(fast: usize, slow: usize) -> String {
    let traces: Vec<RequestTrace> = (0..fast + slow)
        .map(|i| {
            let ttft = if i < fast { 0.05 } else { 4.0 };
            RequestTrace {
                index: i as u64,
                arrival: i as f64,
                first_token: i as f64 + ttft,
                finish: i as f64 + ttft + 2.0,
                prompt_tokens: 500,
                output_tokens: 101,
                replica: 0,
            }
        })
        .collect();
    SimulatedScrape {
        model_name: "m",
        traces: &traces,
        running: 40.0,
        waiting: if slow > 0 { 30.0 } else { 0.0 },
        kv_cache_usage: None,
        preemptions: 0,
        rejected: None,
        show_hidden_metrics: false,
        comment: None,
    }
    .render()
}

/// The TTFT p99 as the reports write it: the window between two pages, or one page since its start.
fn ttft_p99(earlier: Option<&str>, later: &str) -> String {
    let later = parse(later).unwrap();
    let server = match earlier {
        Some(earlier) => between(&parse(earlier).unwrap(), &later, None)
            .servers
            .remove(0),
        None => find_signals(&later).remove(0),
    };
    server.ttft.unwrap().value.quantile(0.99).describe()
}

#[test]
fn metrics_reads_two_scrapes_as_the_window_and_prints_it_as_text_or_json() {
    // Removed when the test ends, passed or failed.
    let scratch = tempfile::Builder::new()
        .prefix("goodput-cli-window-")
        .tempdir()
        .unwrap();
    let dir = scratch.path();
    let (earlier, later) = (dir.join("t0.prom"), dir.join("t1.prom"));
    std::fs::write(&earlier, page_of(10_000, 0)).unwrap();
    std::fs::write(&later, page_of(10_000, 60)).unwrap();
    let (earlier, later) = (earlier.to_str().unwrap(), later.to_str().unwrap());

    let out = sim(&["metrics", "--seconds", "30", earlier, later]);
    let text = succeeded(out);
    assert!(
        text.starts_with(&format!(
            "Window from {earlier} to {later}, 30 s apart (--seconds)\n"
        )),
        "{text}"
    );
    assert!(
        text.contains("window between the two scrapes: 60 requests in 30 s, 2.0 requests/s"),
        "{text}"
    );
    // All 60 requests of the window took 4 s: the window's p99 is in (2.5 s, 5 s]; since the start it is 50 ms's.
    let window = ttft_p99(Some(&page_of(10_000, 0)), &page_of(10_000, 60));
    let ttft = text.lines().find(|l| l.starts_with("  TTFT")).unwrap();
    assert!(
        ttft.contains(&format!(
            "p99 ≈ {window}   (vllm:time_to_first_token_seconds)"
        )),
        "{window} in {ttft}"
    );
    assert!(text.contains("verdict: past the knee"), "{text}");

    let json: serde_json::Value = serde_json::from_slice(
        &sim(&["metrics", "--json", "--seconds", "30", earlier, later]).stdout,
    )
    .unwrap();
    let set = &json["label_sets"][0];
    assert_eq!(
        (
            set["span"].as_str(),
            set["requests"].as_f64(),
            set["seconds"].as_f64()
        ),
        (Some("window"), Some(60.0), Some(30.0))
    );
    assert!(
        set["ttft"]["p99"]
            .as_f64()
            .is_some_and(|p99| (2.5..=5.0).contains(&p99)),
        "{set}"
    );
    for key in ["p50", "p95", "p99"] {
        // Every request's gap is 20 ms, in vLLM's (10 ms, 25 ms] bucket.
        assert!(
            set["tpot"][key]
                .as_f64()
                .is_some_and(|v| v > 0.01 && v <= 0.025),
            "tpot {key}: {set}"
        );
        assert!(set["itl"][key].as_f64().is_some(), "itl {key}: {set}");
    }
    assert!(set["kv_cache_usage"].is_null());
    assert_eq!(set["preemptions"], 0.0);
    assert_eq!(set["verdict"], "past_the_knee");
    // The files were written a moment apart, but a file's time says when it was copied, not when the server was
    // scraped: without --seconds or timestamps the window's length is unknown, and no rate is made up from it.
    let json: serde_json::Value =
        serde_json::from_slice(&sim(&["metrics", "--json", earlier, later]).stdout).unwrap();
    assert_eq!(json["window_seconds_from"], "unknown", "{json}");
    assert!(json["window_seconds"].is_null(), "{json}");
    // One page as JSON: since the start, no window.
    let json: serde_json::Value =
        serde_json::from_slice(&sim(&["metrics", "--json", later]).stdout).unwrap();
    assert_eq!(json["label_sets"][0]["span"], "since_start");
    assert!(json["window_seconds"].is_null());

    for (args, expected) in [
        (
            &["metrics", "-", "-"][..],
            "only one of the two pages can come from standard input",
        ),
        (
            &["metrics", "--seconds", "-3", earlier, later],
            "--seconds must be a positive number",
        ),
        (
            &["metrics", earlier, "/nonexistent/later.prom"],
            "cannot read /nonexistent/later.prom",
        ),
    ] {
        let out = sim(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}

#[test]
fn metrics_help_documents_the_later_page_the_window_and_the_json() {
    help_mentions(
        &["metrics", "--help"],
        &[
            "[LATER_PAGE]",
            "--json",
            "--seconds",
            "label_sets",
            "kv_cache_usage",
            "preemptions",
            "rejections",
            "share_of_arrivals",
            "admission_rejections_total",
            "since_restart",
            "lower_bounds",
            "window",
            "vllm:request_time_per_output_token_seconds",
        ],
    );
}

#[test]
fn the_probe_every_second_shows_the_windows_p99_not_the_since_start_one() {
    // The server's page moves on between scrapes: 10 000 quick requests, then 60 slow ones, then 60 more.
    let pages = vec![
        page_of(10_000, 0),
        page_of(10_000, 60),
        page_of(10_000, 120),
    ];
    let since_start = ttft_p99(None, &pages[1]);
    let window = ttft_p99(Some(&pages[0]), &pages[1]);
    assert_ne!(since_start, window);
    let port = serve_pages(pages);
    let out = probe(&[&format!("127.0.0.1:{port}"), "--every", "1", "--count", "3"]);
    let text = succeeded(out);
    let probes: Vec<&str> = text.split("\n# ").collect();
    assert_eq!(probes.len(), 3, "{text}");
    assert!(
        probes[0].contains(": since the server started\n"),
        "{}",
        probes[0]
    );
    assert!(probes[0].contains("TTFT  p50 ≈ 50 ms"), "{}", probes[0]);
    for later in &probes[1..] {
        assert!(
            later.contains(": the window since the previous probe\n"),
            "{later}"
        );
        assert!(
            later.contains("window between the two scrapes: 60 requests in "),
            "{later}"
        );
        assert!(
            !later.contains("Window from"),
            "temporary file names stay out: {later}"
        );
        let ttft = later.lines().find(|l| l.starts_with("  TTFT")).unwrap();
        assert!(
            ttft.contains(&format!("p99 ≈ {window}")),
            "the window's p99 {window}: {ttft}"
        );
        assert!(
            !ttft.contains(&format!("p99 ≈ {since_start}")),
            "not the since-start p99 {since_start}: {ttft}"
        );
        // About a second between probes (the probe measures it and passes it on).
        let seconds: f64 = later
            .split("60 requests in ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((0.9..5.0).contains(&seconds), "{later}");
    }
}
