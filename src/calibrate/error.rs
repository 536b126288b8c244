//! Why a calibration was refused, typed by what is at fault: a flag, one input, or the inputs together. A caller can
//! tell them apart (the page marks the field at fault, the command line names the flag), and each says itself in one
//! line that names the flag or file, as [`crate::model::ScenarioError`] names its field.

use crate::model::ScenarioError;
use std::fmt;

/// A refused calibration.
#[derive(Clone, Debug, PartialEq)]
pub enum CalibrateError {
    /// No file was given.
    NoInput,
    /// A flag outside what a server can have: the flag as the command line spells it, and what it must be.
    Flag {
        /// E.g. `--max-num-seqs` (the page's fields carry the same names).
        flag: &'static str,
        /// E.g. "must be between 1 and 65536 (got 0)".
        problem: String,
    },
    /// An input that cannot be read or used: its name (two scrapes' "earlier → later" for a window between them),
    /// and what is wrong with it.
    Input {
        /// The file's name.
        name: String,
        /// What is wrong, in a phrase that reads after the name.
        problem: String,
    },
    /// An input a reader refused: its name, and the reader's own line, which names it (and the line at fault:
    /// "trace.csv line 3: …"), since the readers also serve the metrics tools.
    Read {
        /// The file's name (two scrapes' "earlier → later" for a window between them).
        name: String,
        /// The reader's one line, starting with the name.
        said: String,
    },
    /// The inputs, read, do not determine the server's step time: why, and what to measure instead.
    Undetermined(String),
    /// The fitted scenario does not validate: the flags disagree with what the inputs show.
    Refused(ScenarioError),
    /// Checking the fit would simulate more than the work budget: what made it large (a flag or the inputs' lengths).
    TooMuchWork(String),
}

impl CalibrateError {
    /// A reader's refusal of the input `name`, said as the reader said it (with the name first, should it not be).
    pub fn read(name: &str, line: String) -> CalibrateError {
        let said = if line.starts_with(name) {
            line
        } else {
            format!("{name}: {line}")
        };
        CalibrateError::Read {
            name: name.to_owned(),
            said,
        }
    }
}

impl fmt::Display for CalibrateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CalibrateError::NoInput => f.write_str(
                "no input: give a vllm bench serve result, a request trace, or two /metrics scrapes",
            ),
            CalibrateError::Flag { flag, problem } => write!(f, "{flag} {problem}"),
            CalibrateError::Input { name, problem } => write!(f, "{name}: {problem}"),
            CalibrateError::Read { said, .. } => f.write_str(said),
            CalibrateError::Undetermined(why) => f.write_str(why),
            CalibrateError::TooMuchWork(why) => f.write_str(why),
            CalibrateError::Refused(error) => write!(
                f,
                "the fitted scenario is refused: {} {} (check the flags against the inputs)",
                said_as_input(&error.field),
                error.problem
            ),
        }
    }
}

impl std::error::Error for CalibrateError {}

/// A fitted scenario's field as the user knows it: the flag that sets it, or what in the inputs it came from.
fn said_as_input(field: &str) -> String {
    const SAID: [(&str, &str); 8] = [
        ("kv_cache", "the KV cache (--kv-cache-tokens)"),
        ("replicas", "--replicas"),
        ("max_num_seqs", "--max-num-seqs"),
        ("max_num_batched_tokens", "--max-num-batched-tokens"),
        (
            "open.cv",
            "the arrivals' burstiness (a result's \"burstiness\", a trace's send times)",
        ),
        ("prompt_tokens", "the inputs' prompt lengths"),
        ("output_tokens", "the inputs' output lengths"),
        ("iteration", "the fitted step time"),
    ];
    SAID.iter()
        .find(|(part, _)| field.contains(part))
        .map_or_else(|| field.replace('_', " "), |(_, said)| (*said).to_owned())
}
