//! `goodput-sim fleet`: the flags, the defaults, the JSON shape, the table, and one-line errors.

use std::process::Command;

fn sim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_goodput-sim"))
        .arg("fleet")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = sim(&[args, &["--json"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// The one line a refused command prints, after checking it exits 2 and prints nothing else.
fn refused(args: &[&str]) -> String {
    let out = sim(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

const RAMP: [&str; 4] = ["--traffic", "0:5,600:60", "--seconds", "600"];

#[test]
fn the_json_has_the_summary_and_one_series_point_per_interval() {
    let v = json(&RAMP);
    let summary = v["summary"].as_object().unwrap();
    for key in [
        "slo_attainment",
        "goodput",
        "ttft_p99",
        "tpot_p99",
        "replica_seconds",
        "longest_breach_s",
        "scale_events",
    ] {
        assert!(summary[key].is_number(), "{key}");
    }
    let series = v["series"].as_array().unwrap();
    assert_eq!(series.len(), 600 / 15, "the default interval is 15 s");
    for key in [
        "t",
        "offered_rps",
        "replicas",
        "starting",
        "waiting",
        "utilization",
        "ttft_p99",
        "goodput",
    ] {
        assert!(series[0].get(key).is_some(), "{key}");
    }
    assert_eq!(series[0]["t"], 15.0);
    // The ramp outgrows one replica (about 27 requests/s): the default signal, waiting, adds replicas.
    let most = series
        .iter()
        .map(|p| p["replicas"].as_u64().unwrap() + p["starting"].as_u64().unwrap())
        .max()
        .unwrap();
    assert!((2..=10).contains(&most), "{most}");
    assert!(summary["scale_events"].as_u64().unwrap() >= 1);
    // offered_rps is the mean of the curve over the interval: 5 + 55 × 7.5 / 600 for the first.
    let first = series[0]["offered_rps"].as_f64().unwrap();
    assert!((first - (5.0 + 55.0 * 7.5 / 600.0)).abs() < 1e-9, "{first}");
}

#[test]
fn the_flags_change_the_day() {
    let fixed = json(&[&RAMP[..], &["--min", "3", "--max", "3", "--route", "rr"]].concat());
    assert_eq!(fixed["summary"]["scale_events"], 0);
    assert!(fixed["series"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["replicas"] == 3));
    let coarse = json(&[&RAMP[..], &["--interval", "60", "--scale-on", "kv"]].concat());
    assert_eq!(coarse["series"].as_array().unwrap().len(), 10);
    // The course box's KV cache is never the bottleneck: scaling on it never adds a replica.
    assert_eq!(coarse["summary"]["scale_events"], 0);
    let busy = json(
        &[
            &RAMP[..],
            &["--scale-on", "utilization", "--scale-up-delay", "0"],
        ]
        .concat(),
    );
    let series = busy["series"].as_array().unwrap();
    assert!(
        series[3]["replicas"].as_u64().unwrap() >= 2,
        "utilisation scales at a fifth of one replica's capacity"
    );
    let a = json(
        &[
            &RAMP[..],
            &["--seed", "4", "--scale-on", "ttft-p99", "--target", "0.3"],
        ]
        .concat(),
    );
    let b = json(
        &[
            &RAMP[..],
            &["--seed", "4", "--scale-on", "ttft-p99", "--target", "0.3"],
        ]
        .concat(),
    );
    assert_eq!(a, b, "the same seed gives the same day");
    let p2c = json(&[&RAMP[..], &["--route", "p2c", "--seed", "5"]].concat());
    assert_ne!(p2c["summary"], a["summary"]);
}

#[test]
fn the_table_prints_the_summary_and_a_compact_series() {
    let out = sim(&["--traffic", "0:20", "--seconds", "1800"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for word in [
        "jsq route, scaling on waiting (target 5),",
        "slo_attainment",
        "replica_seconds",
        "longest_breach_s",
        "series (every 3 intervals",
        "offered",
    ] {
        assert!(text.contains(word), "{word}: {text}");
    }
    let rows = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("t_s"))
        .skip(1)
        .count();
    assert_eq!(rows, 40, "120 intervals, every third");
}

#[test]
fn help_names_the_defaults_of_every_signal() {
    let out = sim(&["--help"]);
    let text = String::from_utf8(out.stdout).unwrap();
    for word in [
        "utilization 0.8",
        "waiting 5 per replica",
        "ttft-p99 the scenario's TTFT SLO",
        "kv 0.8",
        "running and inflight Little's Law at the knee with 80% headroom",
        "largest proposal wins",
        "[default: jsq]",
        "[default: 15]",
        "[default: 120]",
        "300 s",
    ] {
        assert!(text.contains(word), "{word}");
    }
}

#[test]
fn bad_flags_are_refused_in_one_line_naming_the_flag() {
    // Each command after `fleet`, split at spaces; a day of "--traffic 0:5 --seconds 60" is `DAY`.
    const DAY: &str = "--traffic 0:5 --seconds 60";
    for (command, words) in [
        ("--seconds 60", "--traffic is required"),
        ("--traffic 0:5", "--seconds is required"),
        (
            "--traffic 0:5,abc --seconds 60",
            "--traffic point 2: \"abc\" is not time_s:requests_per_s",
        ),
        (
            "--traffic 60:5,30:5 --seconds 60",
            "--traffic point 2: the time",
        ),
        ("--traffic 0:-5 --seconds 60", "--traffic point 1: the rate"),
        ("--traffic 0:5 --seconds -1", "--seconds must be"),
        ("DAY --min 3 --max 2", "--max must be from --min (3)"),
        ("DAY --min -1", "must not be negative"),
        ("DAY --interval 0", "--interval must be at least 1 second"),
        ("DAY --target 0", "--target of waiting must be a number above 0"),
        (
            "DAY --scale-on waiting,running --target 5,-1",
            "--target of running must be a number above 0",
        ),
        (
            "DAY --scale-on waiting,running --target 5",
            "--target lists 1 value for 2 signals (--scale-on waiting,running): give one target per signal",
        ),
        (
            "DAY --scale-on running --target 5,40",
            "--target lists 2 values for 1 signal (--scale-on running)",
        ),
        ("DAY --scale-on waiting,waiting", "--scale-on lists waiting twice"),
        ("DAY --scale-on waiting,gpu", "'gpu' for '--scale-on"),
        ("DAY --scale-on waiting,", "a value is required for '--scale-on"),
        ("DAY --scale-on running --target 4O", "'4O' for '--target"),
        ("DAY --scale-up-delay -3", "--scale-up-delay must be from 0"),
        ("DAY --route random", "'random' for '--route"),
        ("DAY --scale-on gpu", "'gpu' for '--scale-on"),
        (
            "DAY --preset textbook",
            "--preset or --scenario must be an LLM replica",
        ),
        (
            "--traffic 0:99999 --seconds 604800",
            "--traffic brings about",
        ),
    ] {
        let command = command.replace("DAY", DAY);
        let args: Vec<&str> = command.split(' ').collect();
        let err = refused(&args);
        assert!(err.contains(words), "{command}: {err}");
    }
}

#[test]
fn the_help_states_the_little_law_targets_the_model_uses() {
    use goodput::model::fleet::Signal;
    use goodput::model::Scenario;
    let help = String::from_utf8(sim(&["--help"]).stdout).unwrap();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let course = Scenario::course_preset();
    for (signal, words) in [
        (
            Signal::Running,
            "requests per replica for the course preset",
        ),
        (Signal::Rate, "requests/s per replica for the course preset"),
    ] {
        let figure = format!("{} {words}", signal.default_target(&course));
        assert!(help.contains(&figure), "{figure} not in the help");
    }
    assert_eq!(
        Signal::Running.default_target(&course),
        Signal::Inflight.default_target(&course)
    );
}

#[test]
fn several_triggers_each_read_and_the_largest_proposal_wins() {
    let both = json(
        &[
            &RAMP[..],
            &["--scale-on", "waiting,running", "--target", "5,40"],
        ]
        .concat(),
    );
    let running = json(&[&RAMP[..], &["--scale-on", "running", "--target", "40"]].concat());
    let fleet = |v: &serde_json::Value| -> Vec<u64> {
        v["series"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["replicas"].as_u64().unwrap() + p["starting"].as_u64().unwrap())
            .collect()
    };
    for p in both["series"].as_array().unwrap() {
        let read = p["signals"].as_array().unwrap();
        assert_eq!(read.len(), 2, "one reading per trigger");
        assert!(
            (read[0].as_f64().unwrap() - p["waiting"].as_f64().unwrap()).abs() < 1e-9
                || p["starting"] != 0
        );
    }
    // Until the two days part, they are the same day; where they part, the queue has asked for more.
    let (a, b) = (fleet(&both), fleet(&running));
    let parted = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .expect("the queue adds a replica");
    assert!(a[parted] > b[parted], "{a:?} vs {b:?}");
    let out = sim(&[
        &RAMP[..],
        &["--scale-on", "waiting,running", "--target", "5,40"],
    ]
    .concat());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("scaling on waiting (target 5) and running (target 40),"),
        "{text}"
    );
}
