//! Running `goodput-sim` from a test: shared by the command line's tests (`tests/cli.rs`, `tests/cli_metrics.rs`).
// Each includer uses only some of these.
#![allow(dead_code)]

use std::process::Command;

pub fn sim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_goodput-sim"))
        .args(args)
        .output()
        .expect("goodput-sim runs")
}

/// The standard output of a command that must have succeeded (its output and errors shown if not).
pub fn succeeded(out: std::process::Output) -> String {
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

pub fn json(args: &[&str]) -> serde_json::Value {
    let out = sim(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// Runs goodput-sim with `stdin` on its standard input.
pub fn sim_with_input(args: &[&str], stdin: &[u8]) -> std::process::Output {
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

/// Asserts that `goodput-sim ARGS` (a `--help`) succeeds and mentions every one of `needles`.
pub fn help_mentions(args: &[&str], needles: &[&str]) {
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

/// The one line of a command that must have been refused (exit 2) within `seconds`, without its `goodput-sim: `.
pub fn refused_within(args: &[&str], seconds: u64) -> String {
    let started = std::time::Instant::now();
    let out = sim(args);
    let elapsed = started.elapsed();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: one line: {err}"
    );
    assert!(
        elapsed < std::time::Duration::from_secs(seconds),
        "{args:?} took {elapsed:?} to refuse"
    );
    err.trim_start_matches("goodput-sim: ")
        .trim_end()
        .to_owned()
}
