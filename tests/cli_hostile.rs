//! `goodput-sim` fed what a careless or hostile user would feed it (issue 30): every flag checked in the user's
//! words, negative numbers answered by our message rather than clap's, scenario times that would never finish
//! refused, a sweep too long refused up front, and a scenario's lengths file kept to regular files in its folder.
//! The inputs, made small where they can be.

use std::path::Path;
use std::process::Command;

#[path = "support/sim_cli.rs"]
mod sim_cli;
use sim_cli::{refused_within, sim};

/// The one line of a command that must have been refused (exit 2) quickly.
fn refused(args: &[&str]) -> String {
    refused_within(args, 20)
}

#[test]
fn negative_numbers_reach_our_message_naming_the_flag() {
    for (flag, value) in [
        ("--replicas", "-1"),
        ("--load", "-1"),
        ("--requests", "-5"),
        ("--max-num-seqs", "-3"),
        ("--kv-cache-tokens", "-16"),
        ("--think", "-2"),
        ("--seed", "-1"),
    ] {
        let mut args = vec!["run", "--preset", "course", flag, value];
        if flag == "--think" {
            args.push("--closed");
        }
        let e = refused(&args);
        assert!(!e.contains("unexpected argument"), "{flag}: {e}");
        assert!(e.contains(flag), "{flag}: {e}");
    }
}

#[test]
fn a_value_out_of_range_names_the_flag_typed_not_the_field() {
    for (args, flag) in [
        (vec!["--load", "0"], "--load"),
        (vec!["--replicas", "0"], "--replicas"),
        (
            vec!["--max-num-batched-tokens", "0"],
            "--max-num-batched-tokens",
        ),
        (vec!["--kv-cache-tokens", "1"], "--kv-cache-tokens"),
        (vec!["--slo-ttft", "0"], "--slo-ttft"),
    ] {
        let mut all = vec!["run", "--preset", "course"];
        all.extend(args);
        let e = refused(&all);
        assert!(e.starts_with(flag), "{flag}: {e}");
        for internal in ["arrivals.", "service.", "invalid "] {
            assert!(!e.contains(internal), "{flag}: names an internal path: {e}");
        }
    }
}

#[test]
fn calibrate_flags_are_checked_before_any_file_is_fitted() {
    let fixture = "tests/fixtures/your-server/light-0.3rps.json";
    for (flag, value) in [
        ("--replicas", "0"),
        ("--max-num-batched-tokens", "0"),
        ("--seconds", "1e-300"),
        ("--replicas", "-1"),
    ] {
        let e = refused(&["calibrate", flag, value, fixture]);
        assert!(e.contains(flag), "{flag} {value}: {e}");
        assert!(!e.contains("unexpected argument"), "{e}");
    }
}

#[test]
fn a_think_time_that_would_stop_the_clock_is_refused() {
    // --think 1e20 printed every latency as 0 with 100% SLO attainment.
    let e = refused(&["run", "--preset", "course", "--closed", "--think", "1e20"]);
    assert!(e.starts_with("--think must be"), "{e}");
    // Within the range, a run long enough to outgrow the clock's resolution is refused too, and says why.
    let e = refused(&[
        "run",
        "--preset",
        "course",
        "--users",
        "1",
        "--think",
        "1e6",
        "--requests",
        "100000000",
    ]);
    assert!(e.starts_with("the run would last about"), "{e}");
    assert!(e.contains("latencies would read 0"), "{e}");
}

/// A scenario file next to its lengths files, in a fresh folder under the target directory.
fn folder(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn course_with(change: impl FnOnce(&mut serde_json::Value)) -> serde_json::Value {
    let out = sim(&["scenario", "--preset", "course"]);
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    change(&mut v);
    v
}

#[test]
fn scenario_times_of_1e308_are_refused_instead_of_looping() {
    let dir = folder("times-1e308");
    for (field, pointer) in [
        ("fixed", "/service/llm/iteration/fixed"),
        (
            "per_context_token",
            "/service/llm/iteration/per_context_token",
        ),
        ("frontend_overhead", "/service/llm/frontend_overhead"),
    ] {
        let v = course_with(|v| {
            // frontend_overhead is left out of a scenario when 0: add it.
            v["service"]["llm"]["frontend_overhead"] = 0.0.into();
            *v.pointer_mut(pointer).unwrap() = 1e308.into();
        });
        let path = dir.join(format!("{field}.json"));
        std::fs::write(&path, v.to_string()).unwrap();
        let e = refused(&["run", "--scenario", path.to_str().unwrap()]);
        assert!(e.contains(field) && e.contains("at most"), "{field}: {e}");
    }
    let closed = course_with(|v| {
        v["arrivals"] = serde_json::json!({"closed": {"users": 4, "think_time": 1e308}});
    });
    let path = dir.join("think.json");
    std::fs::write(&path, closed.to_string()).unwrap();
    let e = refused(&["run", "--scenario", path.to_str().unwrap()]);
    assert!(
        e.contains("think_time") && e.contains("(flag: --think)"),
        "{e}"
    );
}

#[test]
fn a_sweep_of_more_points_than_it_runs_is_refused_up_front() {
    let e = refused(&[
        "sweep", "--preset", "course", "--from", "0.1", "--to", "0.9", "--step", "1e-9",
    ]);
    assert!(
        e.contains("800000001 points") && e.contains("at most 10001"),
        "{e}"
    );
    let e = refused(&["sweep", "--preset", "course", "--from", "-1"]);
    assert!(e.starts_with("--from"), "{e}");
}

#[test]
fn a_rate_too_low_for_the_clock_is_refused() {
    let e = refused(&[
        "run",
        "--preset",
        "distserve",
        "--rate",
        "1e-300",
        "--requests",
        "10",
    ]);
    assert!(e.starts_with("--rate spreads the requests"), "{e}");
}

#[test]
fn run_help_states_the_memory_of_the_largest_run() {
    let out = sim(&["run", "--help"]);
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("GB"), "{help}");
}

fn with_lengths_file(dir: &Path, file: &str) -> String {
    let v = course_with(|v| {
        v["service"]["llm"]["prompt_tokens"] = serde_json::json!({"empirical": {"file": file}});
    });
    let path = dir.join("scenario.json");
    std::fs::write(&path, v.to_string()).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn a_lengths_file_must_be_a_regular_file_in_the_scenario_folder() {
    let dir = folder("lengths-rule");
    std::fs::write(dir.join("lengths.txt"), "# prompts\n512\n\n1024\n").unwrap();
    let scenario = with_lengths_file(&dir, "lengths.txt");
    let out = sim(&["scenario", "--scenario", &scenario]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1024"));

    // A secret outside the folder: refused by its path, and its content never echoed.
    let secret = dir.parent().unwrap().join("lengths-rule-secret.txt");
    std::fs::write(&secret, "root:x:0:0:secret\n").unwrap();
    for file in [
        secret.to_str().unwrap().to_owned(),
        "../lengths-rule-secret.txt".to_owned(),
        "/etc/passwd".to_owned(),
    ] {
        let scenario = with_lengths_file(&dir, &file);
        let e = refused(&["run", "--scenario", &scenario]);
        assert!(e.contains("relative path"), "{file}: {e}");
        assert!(!e.contains("root:"), "{file}: echoes the file: {e}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&secret, dir.join("link.txt")).unwrap();
        let e = refused(&["run", "--scenario", &with_lengths_file(&dir, "link.txt")]);
        assert!(e.contains("leads outside"), "{e}");
        assert!(!e.contains("root:"), "{e}");
    }
    // Inside the folder but not lengths: the line is named, its content is not.
    std::fs::write(dir.join("notes.txt"), "root:x:0:0:secret\n").unwrap();
    let e = refused(&["run", "--scenario", &with_lengths_file(&dir, "notes.txt")]);
    assert!(e.contains("notes.txt line 1"), "{e}");
    assert!(!e.contains("root:"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_fifo_named_as_the_lengths_file_is_refused_without_blocking() {
    let dir = folder("lengths-fifo");
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("no mkfifo here: skipped");
        return;
    }
    let e = refused(&["run", "--scenario", &with_lengths_file(&dir, "fifo")]);
    assert!(e.contains("not a regular file"), "{e}");
}

#[test]
fn a_csv_trace_names_the_line_at_fault_after_many_rows_and_blank_lines() {
    let dir = folder("csv-lines");
    let mut text = String::from("arrival_s,prompt_tokens,output_tokens\n");
    for i in 0..20_000 {
        text.push_str(&format!("{}.0,100,10\n", i));
        if i % 1000 == 0 {
            text.push('\n');
        }
    }
    text.push_str("20000.0,100,0\n");
    let path = dir.join("trace.csv");
    std::fs::write(&path, &text).unwrap();
    let e = refused(&[
        "run",
        "--preset",
        "distserve",
        "--trace",
        path.to_str().unwrap(),
    ]);
    let line = text.lines().count();
    assert!(e.contains(&format!("line {line}: output_tokens")), "{e}");
}
