//! The page's "Your server", without the page: what its worker does with the files a learner gives it and the flags
//! they type, and what it sends back. Pure, so it is tested natively; `src/bin/server-worker.rs` only carries the
//! messages.

use super::inputs::InputFile;
use super::{calibrate, handoff, report, Calibration, ServerFlags};
use crate::model::your_server::YourServer;
use crate::model::{Scenario, ServiceKind};

/// A calibration as the page shows and keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibrated {
    /// The server in the form the lab reads back ([`handoff`]).
    pub handoff: String,
    /// The fit's report, as `goodput-sim calibrate` prints it.
    pub report: String,
    /// The scenario file to download, which `goodput-sim run --scenario` reads.
    pub scenario_json: String,
    /// The fit, for [`banded_for_page`] to work out how sure it is (`None` for a scenario file, taken as it is).
    pub fit: Option<Calibration>,
}

/// The server's flags from the page's fields, each empty when not given; an error names the field.
pub fn flags_from_fields(
    max_num_seqs: &str,
    max_num_batched_tokens: &str,
    chunked_prefill: bool,
    kv_cache_tokens: &str,
    replicas: &str,
) -> Result<ServerFlags, String> {
    fn field<T: std::str::FromStr + PartialOrd + From<u8>>(
        text: &str,
        name: &str,
    ) -> Result<Option<T>, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        match text.parse::<T>() {
            Ok(value) if value >= T::from(1) => Ok(Some(value)),
            _ => Err(format!(
                "{name}: {text:?} is not a whole number of at least 1"
            )),
        }
    }
    Ok(ServerFlags {
        max_num_seqs: field(max_num_seqs, "--max-num-seqs")?,
        max_num_batched_tokens: field(max_num_batched_tokens, "--max-num-batched-tokens")?,
        chunked_prefill: Some(chunked_prefill),
        kv_cache_tokens: field(kv_cache_tokens, "KV cache tokens")?,
        replicas: field(replicas, "replicas")?,
        window_seconds: None,
        shared_prefix_tokens: None,
        model: None,
        gpu: None,
        tensor_parallel_size: None,
        deployment: None,
    })
}

/// Splits pasted text into the files it holds: several pasted together are separated by a line of `---`.
pub fn pasted_files(text: &str) -> Vec<InputFile> {
    let mut files: Vec<InputFile> = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, files: &mut Vec<InputFile>| {
        if !current.trim().is_empty() {
            files.push(InputFile {
                name: format!("pasted text {}", files.len() + 1),
                text: std::mem::take(current),
            });
        }
        current.clear();
    };
    for line in text.lines() {
        if line.trim() == "---" {
            flush(&mut current, &mut files);
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    flush(&mut current, &mut files);
    if let [only] = files.as_mut_slice() {
        only.name = "pasted text".to_owned();
    }
    files
}

/// Calibrates from `files` as `goodput-sim calibrate` does, or takes a scenario file (its output, given alone) as it
/// is; an error is one line naming the file and what is missing.
pub fn calibrate_for_page(files: &[InputFile], flags: &ServerFlags) -> Result<Calibrated, String> {
    let scenario_file = files.iter().find_map(|file| {
        serde_json::from_str::<Scenario>(&file.text)
            .ok()
            .map(|s| (file, s))
    });
    let (server, report, fit) = match scenario_file {
        Some((file, scenario)) => {
            if files.len() > 1 {
                return Err(format!(
                    "{}: a scenario file is taken as it is, so give it alone",
                    file.name
                ));
            }
            if !matches!(scenario.service, ServiceKind::Llm(_)) {
                return Err(format!(
                    "{}: a textbook queue, not an LLM server (the lab has its own textbook preset)",
                    file.name
                ));
            }
            scenario
                .validate()
                .map_err(|e| format!("{}: {e}", file.name))?;
            let report = format!(
                "Read {} as a scenario file: nothing to fit, so the lab runs it as it is.\n",
                file.name
            );
            (
                YourServer {
                    capacity_ratio: crate::model::your_server::capacity_ratio(&scenario),
                    band: None,
                    scenario,
                    measured: Vec::new(),
                },
                report,
                None,
            )
        }
        None => {
            let calibration = calibrate(files, flags).map_err(|e| e.to_string())?;
            (
                calibration.your_server(),
                report::render(&calibration),
                Some(calibration),
            )
        }
    };
    Ok(Calibrated {
        handoff: handoff::encode(&server).expect("only LLM fleets reach here"),
        report,
        scenario_json: serde_json::to_string_pretty(&server.scenario).expect("scenarios serialise"),
        fit,
    })
}

/// The server of `fit` again with its band ([`Calibration::with_band`]: the capacity, the knee and the TTFT curves as
/// ranges, some hundred simulated benchmarks) and the report with its ranges: what the worker sends once the lab
/// already runs the server. `None` when the fit left no residual to measure its uncertainty by.
pub fn banded_for_page(fit: Calibration) -> Option<Calibrated> {
    let (fit, server) = fit.with_band();
    server.band.as_ref()?;
    Some(Calibrated {
        handoff: handoff::encode(&server)?,
        report: report::render(&fit),
        scenario_json: serde_json::to_string_pretty(&server.scenario).ok()?,
        fit: None,
    })
}
