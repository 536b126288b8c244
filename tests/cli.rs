//! The `goodput-sim` command line: runs, sweeps, scenario files, help and the bench (the metrics reader and the
//! probe are in `tests/cli_metrics.rs`).

#[path = "support/sim_cli.rs"]
mod sim_cli;
use sim_cli::{help_mentions, json, sim, sim_with_input, succeeded};

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
    let scratch = tempfile::Builder::new()
        .prefix("goodput-distserve-")
        .tempdir()
        .unwrap();
    let path = scratch.path().join("distserve.json");
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
