//! The `goodput-sim` command line.

use std::process::Command;

fn sim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_goodput-sim"))
        .args(args)
        .output()
        .expect("goodput-sim runs")
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
fn help_documents_every_flag() {
    let out = sim(&["run", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for flag in [
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
    ] {
        assert!(help.contains(flag), "{flag} missing from help");
    }
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
        (PAST_THE_KNEE_PAGE, "verdict: past the knee (queue growing)"),
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
            "p95 ≈ ",
            "p99 ≈ ",
            "running ",
            "waiting ",
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
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
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
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
        help.contains("--every N") && help.contains("HOST:PORT"),
        "{help}"
    );
}
