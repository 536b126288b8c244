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
