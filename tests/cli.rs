//! The `goodput-sim` command line.

use std::process::Command;

fn sim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_goodput-sim"))
        .args(args)
        .output()
        .expect("goodput-sim runs")
}

/// The standard output of a command that must have succeeded (its output and errors shown if not).
fn succeeded(out: std::process::Output) -> String {
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = sim(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

#[test]
fn a_textbook_run_prints_throughput_wait_sojourn_and_number_in_system() {
    let v = json(&[
        "run",
        "--preset",
        "textbook",
        "--servers",
        "4",
        "--load",
        "0.95",
        "--requests",
        "200000",
        "--seed",
        "7",
        "--json",
    ]);
    for key in ["wait", "sojourn"] {
        for stat in ["mean", "p50", "p99"] {
            assert!(
                v[key][stat].as_f64().is_some_and(|x| x >= 0.0),
                "{key}.{stat} in {v}"
            );
        }
    }
    let throughput = v["throughput"].as_f64().unwrap();
    assert!((throughput - 3.8).abs() < 0.1, "{throughput}");
    assert!(v["in_system_mean"].as_f64().unwrap() > 10.0);
    assert!(v["exact"]["mean_wait"].as_f64().is_some());
}

#[test]
fn a_closed_textbook_run_matches_mva() {
    let v = json(&[
        "run",
        "--preset",
        "textbook",
        "--servers",
        "4",
        "--users",
        "16",
        "--think",
        "4",
        "--json",
    ]);
    let (x, exact) = (
        v["throughput"].as_f64().unwrap(),
        v["exact"]["throughput"].as_f64().unwrap(),
    );
    assert!((x - exact).abs() / exact < 0.03, "{x} vs {exact}");
    assert_eq!(v["users"], 16);
}

#[test]
fn course_runs_open_and_closed_and_sweeps_as_csv() {
    let open = json(&[
        "run",
        "--preset",
        "course",
        "--load",
        "0.97",
        "--requests",
        "5000",
        "--json",
    ]);
    assert!(open["ttft"]["p99"].as_f64().is_some() && open["goodput"].as_f64().is_some());
    let closed = json(&[
        "run",
        "--preset",
        "course",
        "--load",
        "0.97",
        "--closed",
        "--requests",
        "5000",
        "--json",
    ]);
    assert!(closed["users"].as_u64().is_some_and(|u| u > 1));
    let out = sim(&[
        "sweep",
        "--preset",
        "course",
        "--from",
        "0.85",
        "--to",
        "1.0",
        "--step",
        "0.05",
        "--requests",
        "3000",
        "--csv",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("offered_load,stable,throughput"));
    assert_eq!(lines.len(), 1 + 4, "{text}");
    assert!(lines[4].starts_with("1.0000,false"));
}

#[test]
fn bad_flags_and_values_exit_non_zero_with_one_line() {
    for args in [
        &["run", "--bogus"][..],
        &["run", "--load", "abc"],
        &["run", "--preset", "textbook", "--servers", "0"],
        &["run", "--load", "NaN"],
        &["sweep", "--from", "0.9", "--to", "0.8"],
        &["frobnicate"],
    ] {
        let out = sim(args);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("goodput-sim: "), "{err}");
    }
}

#[test]
fn replicas_is_the_flag_and_servers_its_older_name() {
    let run = |flag: &str| {
        let out = sim(&[
            "run",
            "--preset",
            "textbook",
            flag,
            "3",
            "--load",
            "0.9",
            "--requests",
            "2000",
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{flag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    assert_eq!(run("--replicas"), run("--servers"));
    let out = sim(&["run", "--preset", "textbook", "--replicas", "0"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--replicas must be between 1 and"), "{err}");
    let help = String::from_utf8(sim(&["run", "--help"]).stdout).unwrap();
    assert!(
        help.contains("--replicas") && !help.contains("--servers <"),
        "{help}"
    );
}

/// Runs goodput-sim with `stdin` on its standard input.
fn sim_with_input(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_goodput-sim"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("goodput-sim runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin)
        .expect("stdin takes the input");
    child.wait_with_output().expect("goodput-sim finishes")
}

#[test]
fn a_printed_preset_run_as_a_scenario_file_gives_the_preset_s_results() {
    let printed = sim(&["scenario", "--preset", "distserve"]);
    assert!(printed.status.success());
    let scenario: goodput::model::Scenario = serde_json::from_slice(&printed.stdout).unwrap();
    assert_eq!(scenario, goodput::model::Scenario::distserve_preset());
    let from_file = sim_with_input(
        &["run", "--scenario", "-", "--json", "--seed", "5"],
        &printed.stdout,
    );
    assert!(
        from_file.status.success(),
        "{}",
        String::from_utf8_lossy(&from_file.stderr)
    );
    let from_preset = sim(&["run", "--preset", "distserve", "--json", "--seed", "5"]);
    assert_eq!(
        String::from_utf8(from_file.stdout).unwrap(),
        String::from_utf8(from_preset.stdout).unwrap()
    );
    // A file, and flags on top of it, sweep the same way.
    let path = std::env::temp_dir().join(format!("goodput-distserve-{}.json", std::process::id()));
    std::fs::write(&path, &printed.stdout).unwrap();
    let file = path.to_str().unwrap();
    let common = [
        "--from",
        "0.9",
        "--to",
        "0.95",
        "--step",
        "0.05",
        "--requests",
        "2000",
    ];
    let a = sim(&[
        &["sweep", "--scenario", file, "--max-num-seqs", "32"][..],
        &common,
        &["--csv"],
    ]
    .concat());
    let b = sim(&[
        &["sweep", "--preset", "distserve", "--max-num-seqs", "32"][..],
        &common,
        &["--csv"],
    ]
    .concat());
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn the_command_line_and_the_lab_build_the_same_scenario_from_the_same_settings() {
    use goodput::lab::{scenario_for, LabSettings};
    let cases: [(&[&str], &str); 3] = [
        (
            &[
                "--preset", "distserve", "--load", "0.97", "--servers", "2", "--max-num-seqs", "48",
                "--chunked-prefill", "true", "--gpu-memory-utilization", "0.8", "--arrival-cv", "2",
                "--slo-ttft", "0.3", "--slo-tpot", "0.05",
            ],
            "preset=distserve&load=97&replicas=2&max_num_seqs=48&chunked_prefill=on&gpu_memory_utilization=0.8\
             &arrival_cv=2&slo_ttft_ms=300&slo_tpot_ms=50",
        ),
        (
            &["--preset", "course", "--load", "0.9", "--closed"],
            "load=0.9&loop=closed",
        ),
        (
            &["--preset", "textbook", "--load", "0.95", "--servers", "8", "--slo-ttft", "2", "--slo-tpot", "0.04"],
            "preset=textbook&load=95&servers=8&slo_ttft_ms=2000",
        ),
    ];
    for (flags, query) in cases {
        let printed = sim(&[&["scenario"][..], flags].concat());
        assert!(
            printed.status.success(),
            "{}",
            String::from_utf8_lossy(&printed.stderr)
        );
        let from_cli: goodput::model::Scenario = serde_json::from_slice(&printed.stdout).unwrap();
        let (lab, notes) = LabSettings::default().with_query(query);
        assert!(notes.is_empty(), "{notes:?}");
        let from_lab = scenario_for(&lab, lab.load()).unwrap();
        assert_eq!(from_cli, from_lab, "{flags:?} vs {query}");
    }
}

#[test]
fn an_invalid_scenario_file_gets_one_line_naming_the_field() {
    let preset = sim(&["scenario", "--preset", "course"]).stdout;
    let text = String::from_utf8(preset).unwrap();
    for (edit, expected) in [
        (
            text.replace("\"fixed\": 0.0055", "\"fixed\": \"fast\""),
            "invalid service.llm.iteration.fixed: invalid type: string \"fast\", expected f64",
        ),
        (
            text.replace("\"max_num_seqs\"", "\"max_seqs\""),
            "invalid service.llm.max_seqs: unknown field `max_seqs`",
        ),
        (
            text.replace("\"uniform\"", "\"normal\""),
            "invalid service.llm.prompt_tokens: unknown variant `normal`",
        ),
        (
            text.replace(
                "\"gpu_memory_utilization\": 0.9",
                "\"gpu_memory_utilization\": 1.5",
            ),
            "invalid service.llm.kv_cache.memory.gpu_memory_utilization: must be between 0 and 1",
        ),
        (
            text.replace(
                "\"gpu_memory_utilization\": 0.9",
                "\"gpu_memory_utilization\": 0.1",
            ),
            "invalid service.llm.kv_cache: leaves no memory for the KV cache",
        ),
        (text[..40].to_owned(), "standard input: EOF while parsing"),
    ] {
        let out = sim_with_input(&["run", "--scenario", "-"], edit.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{expected}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.starts_with("goodput-sim: standard input: "), "{err}");
        assert!(err.contains(expected), "{err} lacks {expected}");
    }
    let missing = sim(&["run", "--scenario", "/nonexistent/scenario.json"]);
    assert!(String::from_utf8(missing.stderr)
        .unwrap()
        .contains("cannot read /nonexistent/scenario.json"));
}

#[test]
fn bursty_arrivals_and_the_kv_cache_show_in_a_run() {
    let bursty = json(&[
        "run",
        "--preset",
        "distserve",
        "--load",
        "0.95",
        "--burstiness",
        "0.25",
        "--requests",
        "4000",
        "--json",
    ]);
    let same = json(&[
        "run",
        "--preset",
        "distserve",
        "--load",
        "0.95",
        "--arrival-cv",
        "2",
        "--requests",
        "4000",
        "--json",
    ]);
    assert_eq!(bursty, same, "burstiness 0.25 is CV 2");
    let kv = &bursty["kv_cache"];
    assert!(kv["preemptions"].as_u64().is_some_and(|n| n > 0), "{kv}");
    assert!(kv["peak_usage"].as_f64().is_some_and(|u| u <= 1.0), "{kv}");
    // Below the knee, bursts alone stretch the tail.
    let ttft_p99 = |cv: &str| {
        json(&[
            "run",
            "--preset",
            "distserve",
            "--load",
            "0.8",
            "--arrival-cv",
            cv,
            "--requests",
            "4000",
            "--json",
        ])["ttft"]["p99"]
            .as_f64()
            .unwrap()
    };
    assert!(ttft_p99("1") < ttft_p99("2"));
    let table = String::from_utf8(sim(&["run", "--preset", "course", "--requests", "2000"]).stdout)
        .unwrap();
    for column in [
        "kv_usage_mean",
        "kv_usage_peak",
        "preemptions",
        "preemption_rate",
    ] {
        assert!(table.contains(column), "{column} in {table}");
    }
    for args in [
        &["run", "--preset", "course", "--closed", "--arrival-cv", "2"][..],
        &["run", "--preset", "textbook", "--max-num-seqs", "8"],
        &["run", "--preset", "course", "--think", "3"],
        &["run", "--preset", "course", "--burstiness", "0"],
        &[
            "run",
            "--preset",
            "course",
            "--arrival-cv",
            "2",
            "--burstiness",
            "1",
        ],
        &["run", "--preset", "distserve", "--kv-cache-tokens", "512"],
    ] {
        let out = sim(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

/// Asserts that `goodput-sim ARGS` (a `--help`) succeeds and mentions every one of `needles`.
fn help_mentions(args: &[&str], needles: &[&str]) {
    let out = sim(args);
    assert!(out.status.success(), "{args:?}");
    let help = String::from_utf8(out.stdout).unwrap();
    for needle in needles {
        assert!(
            help.contains(needle),
            "{needle} missing from {args:?}: {help}"
        );
    }
}

#[test]
fn help_documents_every_flag() {
    help_mentions(
        &["run", "--help"],
        &[
            "--preset",
            "--load",
            "--closed",
            "--users",
            "--think",
            "--servers",
            "--mean-service",
            "--requests",
            "--seed",
            "--json",
            "--csv",
            "--max-num-seqs",
            "--chunked-prefill",
            "--scenario",
            "--arrival-cv",
            "--burstiness",
            "--gpu-memory-utilization",
            "--kv-cache-tokens",
            "--max-num-queued-reqs",
            "--max-num-queued-tokens",
        ],
    );
}

#[test]
fn a_queue_cap_accepts_loads_past_saturation_and_reports_what_it_turned_away() {
    let args = |cap: &'static str| {
        [
            "run",
            "--preset",
            "course",
            "--load",
            "1.2",
            "--requests",
            "6000",
            "--max-num-queued-reqs",
            cap,
            "--json",
        ]
    };
    let v = json(&args("80"));
    assert_eq!(v["stability"]["state"], "stable", "{v}");
    let rejected = v["rejected"].as_u64().unwrap();
    let rate = v["rejection_rate"].as_f64().unwrap();
    assert!(
        rejected > 0 && rate > 0.1 && rate < 0.3,
        "{rejected} {rate}"
    );
    assert_eq!(
        v["rejected_by_reason"]["max_num_queued_reqs"].as_u64(),
        Some(rejected)
    );
    assert!(v["ttft"]["p99"].as_f64().is_some_and(|p99| p99 < 2.0));
    assert!(v["slo_attainment"].as_f64().unwrap() <= 100.0 * (1.0 - rate));
    // 0 removes the cap: 120% is unstable again, with nothing turned away and no steady state.
    let uncapped = json(&args("0"));
    assert_eq!(uncapped["stability"]["state"], "unstable");
    assert!(uncapped.get("rejected").is_none() && uncapped.get("ttft").is_none());
    // The table and CSV carry the counts; the scenario file carries the caps.
    let table = succeeded(sim(&args("80")[..9]));
    for column in ["rejected", "rejection_rate", "rejected_per_second"] {
        assert!(table.contains(column), "{column} in {table}");
    }
    let scenario: serde_json::Value = serde_json::from_str(&succeeded(sim(&[
        "scenario",
        "--max-num-queued-reqs",
        "80",
        "--max-num-queued-tokens",
        "28000",
    ])))
    .unwrap();
    assert_eq!(scenario["service"]["llm"]["max_num_queued_reqs"], 80);
    assert_eq!(scenario["service"]["llm"]["max_num_queued_tokens"], 28000);
    // Without a cap the fields stay out of the file, which reads as before.
    let plain = succeeded(sim(&["scenario"]));
    assert!(!plain.contains("max_num_queued"), "{plain}");
    // The textbook queue has no such flag.
    let out = sim(&["run", "--preset", "textbook", "--max-num-queued-reqs", "8"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--max-num-queued-reqs"), "{err}");
}

#[test]
fn bench_json_has_every_row_with_its_work_and_seconds() {
    let v = json(&["bench", "--quick", "--json"]);
    assert!(v["clock"].as_str().is_some_and(|c| !c.is_empty()), "{v}");
    let lines = v["lines"].as_array().expect("lines");
    let whats: Vec<&str> = lines.iter().filter_map(|l| l["what"].as_str()).collect();
    for what in [
        "M/M/4 open",
        "LLM course preset, open",
        "default sweep, course preset",
        "parse + find_signals",
    ] {
        assert!(
            whats.iter().any(|w| w.starts_with(what)),
            "{what} in {whats:?}"
        );
    }
    for line in lines {
        assert!(line["work"].as_u64().is_some_and(|n| n > 0), "{line}");
        assert!(line["seconds"].as_f64().is_some_and(|s| s > 0.0), "{line}");
        assert!(line["unit"].as_str().is_some(), "{line}");
    }
}

// ---- `goodput-sim metrics` and tools/cluster-probe.sh ----

const HEALTHY_PAGE: &str = "tests/fixtures/metrics/healthy.prom";
const PAST_THE_KNEE_PAGE: &str = "tests/fixtures/metrics/past-the-knee.prom";

#[test]
fn metrics_prints_the_four_signals_and_the_verdict_of_each_sample_page() {
    for (page, verdict) in [
        (HEALTHY_PAGE, "verdict: below the knee"),
        (PAST_THE_KNEE_PAGE, "verdict: past the knee"),
    ] {
        let out = sim(&["metrics", page]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
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
    let dir = std::env::temp_dir().join(format!("goodput-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    let _ = std::fs::remove_dir_all(&dir);
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
    let dir = std::env::temp_dir().join(format!("goodput-cli-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    // The files were written a moment apart; without --seconds their modification times give the length.
    let json: serde_json::Value =
        serde_json::from_slice(&sim(&["metrics", "--json", earlier, later]).stdout).unwrap();
    assert!(
        ["file_times", "unknown"].contains(&json["window_seconds_from"].as_str().unwrap()),
        "{json}"
    );
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
    let _ = std::fs::remove_dir_all(&dir);
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

#[test]
fn the_readme_s_scenario_file_example_is_the_distserve_preset() {
    let readme = include_str!("../README.md");
    let section = &readme[readme
        .find("### Scenario files")
        .expect("the README documents scenario files")..];
    let start = section.find("```json\n").expect("an example") + "```json\n".len();
    let example = &section[start..start + section[start..].find("```").unwrap()];
    let scenario: goodput::model::Scenario =
        serde_json::from_str(example).expect("the example parses");
    assert_eq!(scenario, goodput::model::Scenario::distserve_preset());
}
