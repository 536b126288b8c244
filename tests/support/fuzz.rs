//! What every fuzz target shares: the runner (a case count, or a time budget under `make fuzz`) and mutations of
//! seed inputs with a dictionary of the format's own tokens.

#![allow(dead_code)]

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::fmt::Debug;
use std::time::{Duration, Instant};

/// Runs `property` over `strategy`: 256 cases, or, when `GOODPUT_FUZZ_SECONDS` is set, batches of cases until that
/// many seconds have passed. Panics with proptest's shrunk counterexample on the first failure.
pub fn fuzz<S>(target: &str, strategy: S, property: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S: Strategy,
    S::Value: Debug,
{
    let budget = std::env::var("GOODPUT_FUZZ_SECONDS")
        .ok()
        .and_then(|seconds| seconds.parse::<u64>().ok())
        .map(Duration::from_secs);
    let config = Config {
        cases: 256,
        // Regressions are kept as the plain tests at the end of this file, not in a side file.
        failure_persistence: None,
        ..Config::default()
    };
    let started = Instant::now();
    let mut cases = 0u64;
    loop {
        // A fresh runner per batch: a runner counts its cases and would run no more; each draws a new random seed.
        if let Err(failure) = TestRunner::new(config.clone()).run(&strategy, &property) {
            panic!("fuzz target `{target}` failed after about {cases} cases: {failure}");
        }
        cases += u64::from(config.cases);
        if budget.is_none_or(|budget| started.elapsed() >= budget) {
            break;
        }
    }
    if budget.is_some() {
        eprintln!(
            "fuzz target `{target}`: {cases} cases in {:.0} s, no failure",
            started.elapsed().as_secs_f64()
        );
    }
}

/// One edit of a seed input: at a position (a fraction of its length), delete some bytes, insert a token, or
/// repeat a slice.
#[derive(Clone, Debug)]
pub enum Edit {
    Delete { at: f64, len: usize },
    Insert { at: f64, token: String },
    Repeat { at: f64, len: usize },
}

pub fn edits(tokens: &'static [&'static str]) -> impl Strategy<Value = Vec<Edit>> {
    let token = prop_oneof![
        4 => proptest::sample::select(tokens).prop_map(str::to_string),
        1 => any::<String>(),
        1 => proptest::char::any().prop_map(String::from),
    ];
    let edit = prop_oneof![
        (0.0..1.0, 1usize..40).prop_map(|(at, len)| Edit::Delete { at, len }),
        (0.0..1.0, token).prop_map(|(at, token)| Edit::Insert { at, token }),
        (0.0..1.0, 1usize..200).prop_map(|(at, len)| Edit::Repeat { at, len }),
    ];
    proptest::collection::vec(edit, 1..8)
}

/// Applies edits at character boundaries, so the result stays a `&str` as the parsers receive it.
pub fn mutate(seed: &str, edits: &[Edit]) -> String {
    let mut text = seed.to_string();
    let boundary = |text: &str, at: f64| {
        let mut index = ((text.len() as f64) * at) as usize;
        while !text.is_char_boundary(index) {
            index -= 1;
        }
        index
    };
    let end_from = |text: &str, start: usize, len: usize| {
        let mut end = (start + len).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        end
    };
    for edit in edits {
        match edit {
            Edit::Delete { at, len } => {
                let start = boundary(&text, *at);
                let end = end_from(&text, start, *len);
                text.replace_range(start..end, "");
            }
            Edit::Insert { at, token } => {
                let start = boundary(&text, *at);
                text.insert_str(start, token);
            }
            Edit::Repeat { at, len } => {
                let start = boundary(&text, *at);
                let end = end_from(&text, start, *len);
                let slice = text[start..end].to_string();
                text.insert_str(end, &slice);
            }
        }
    }
    text
}
