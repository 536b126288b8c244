//! The accuracy harness's data: the per-request traces of four real vLLM servers
//! (`tests/fixtures/vllm-otel/` and `tests/fixtures/PUBLIC-DATA.md`, sources and licences there), cut into the stages
//! of their guidellm sweeps,
//! and the figures a stage shows — measured, or replayed in a model.

use goodput_calibrate::inputs::InputFile;
use goodput_calibrate::ServerFlags;
use goodput_model::{replay_traced, Scenario, TraceRequest};

/// One measured request, arrival in seconds from the trace's first.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    pub arrival: f64,
    pub prompt: u32,
    pub output: u32,
    pub ttft: f64,
    pub e2e: f64,
}

/// A server the fit never saw: its trace and the flags its start-up log gives.
pub struct Server {
    pub name: &'static str,
    pub file: &'static str,
    pub flags: ServerFlags,
}

const CODELLAMA: &str = "codellama/CodeLlama-34b-Instruct-hf";

const BASELINE_PREFIX: Option<u32> = None;

/// The GPU of the four servers: "one 80 GB GPU" in their logs, an H100 SXM by the BLIS project's testbed (its
/// `hardware_config.json` has H100 and A100 only, and a 26 ms decode step of CodeLlama-34B is faster than an A100's
/// 2.0 TB/s can read its 67 GB of weights).
const GPU: &str = "H100 SXM";

fn flags(
    model: &str,
    max_num_seqs: u32,
    max_num_batched_tokens: u32,
    kv_cache_tokens: u64,
) -> ServerFlags {
    ServerFlags {
        model: Some(model.to_owned()),
        gpu: Some(GPU.to_owned()),
        max_num_seqs: Some(max_num_seqs),
        max_num_batched_tokens: Some(max_num_batched_tokens),
        chunked_prefill: Some(true),
        kv_cache_tokens: Some(kv_cache_tokens),
        shared_prefix_tokens: BASELINE_PREFIX,
        ..ServerFlags::default()
    }
}

/// The four servers, as their logs describe them (vLLM 0.11.0, one 80 GB GPU, chunked prefill and prefix caching),
/// those whose trace is here: the first is vendored (`tests/fixtures/vllm-otel/`); the other three are public files that belong in the steering
/// repository's `shared/data/inference-sim/` beside this clone (`tests/fixtures/PUBLIC-DATA.md`), and a server whose
/// trace is missing is named on stderr and left out.
pub fn servers() -> Vec<Server> {
    let all = vec![
        Server {
            name: "CodeLlama-34B, 4 096-token budget, long outputs",
            file: "codellama-34b-sweep.csv",
            flags: flags(CODELLAMA, 256, 4096, 40_592),
        },
        Server {
            name: "CodeLlama-34B, 4 096-token budget, long prompts, short outputs",
            file: "jan20-prefill-llama7b-tp1-1.csv",
            flags: flags(CODELLAMA, 256, 4096, 40_592),
        },
        Server {
            name: "CodeLlama-34B, 64-token budget, 32 sequences, long prompts",
            file: "jan20-codellama-prefill-1.csv",
            flags: flags(CODELLAMA, 32, 64, 44_640),
        },
        Server {
            name: "Llama-2-7B, 4 096-token budget",
            file: "jan21-llama7b-train-1.csv",
            flags: flags("meta-llama/Llama-2-7b-hf", 256, 4096, 119_008),
        },
    ];
    all.into_iter()
        .filter(|server| {
            let here = trace_path(server.file).is_some();
            if !here {
                eprintln!(
                    "left out, its trace is not here: {} ({})",
                    server.name, server.file
                );
            }
            here
        })
        .collect()
}

/// Where a server's trace is: vendored, or among the public data beside this clone.
fn trace_path(file: &str) -> Option<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    [
        format!("{root}/../../tests/fixtures/vllm-otel/{file}"),
        format!("{root}/../../../shared/data/inference-sim/{file}"),
    ]
    .into_iter()
    .find(|path| std::path::Path::new(path).exists())
}

/// The trace's requests, sorted by arrival, arrivals from 0.
pub fn read(file: &str) -> Vec<Measured> {
    let path = trace_path(file).unwrap_or_else(|| panic!("{file}: no such trace here"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut rows: Vec<Measured> = text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let number = |k: usize| -> f64 { f[k].parse().expect("a number") };
            Measured {
                arrival: number(0),
                prompt: number(1) as u32,
                output: number(2) as u32,
                ttft: number(3),
                e2e: number(4),
            }
        })
        .collect();
    rows.sort_by(|a, b| a.arrival.total_cmp(&b.arrival));
    let t0 = rows[0].arrival;
    for r in &mut rows {
        r.arrival -= t0;
    }
    rows
}

/// How a stage of a guidellm sweep sends its requests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Load {
    /// One at a time, each sent when the previous finished.
    Synchronous,
    /// All at once.
    AllAtOnce,
    /// A constant rate, requests per second (the median gap's inverse: a request the trace lacks leaves a double gap).
    Constant(f64),
}

/// A stage: its load and its requests (arrivals from the stage's first).
pub struct Stage {
    pub load: Load,
    pub requests: Vec<Measured>,
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A pause this long separates two stages of a sweep.
const PAUSE: f64 = 20.0;
/// Gaps compared on each side of a candidate boundary.
const WINDOW: usize = 5;
/// Fewest requests of a stage: a shorter run is a fragment of its neighbour (a lost request's double gap).
const MIN_STAGE: usize = 5;

/// Whether gap `i` starts a new stage: a pause of more than [`PAUSE`], or a gap half again as long as the ones
/// before it after which the spacing changes by more than 3% — guidellm's constant stages are evenly spaced — when
/// the gap is over a second or ends a bunch of near-simultaneous arrivals. A lost request leaves a double gap
/// without changing the spacing.
fn starts_stage(gaps: &[f64], i: usize, stage_start: usize) -> bool {
    let gap = gaps[i];
    if gap > PAUSE {
        return true;
    }
    let before = &gaps[stage_start.max(i.saturating_sub(WINDOW))..i];
    let after: Vec<f64> = gaps[i + 1..]
        .iter()
        .take(WINDOW)
        .take_while(|&&g| g <= PAUSE)
        .copied()
        .collect();
    if before.len() < 3 || after.len() < 3 {
        return false;
    }
    let (b, a) = (median(before), median(&after));
    let bunch_ends = b < 0.05 && a > 0.2;
    (gap > 1.0 || bunch_ends) && gap > 1.5 * b && (a - b).abs() > 0.03 * a.max(b)
}

/// Indices where the stages after the synchronous one start (into `rows`, from `first`), fragments merged.
fn boundaries(rows: &[Measured], first: usize) -> Vec<usize> {
    let gaps: Vec<f64> = rows[first..]
        .windows(2)
        .map(|w| w[1].arrival - w[0].arrival)
        .collect();
    let mut raw = vec![0];
    for i in 0..gaps.len() {
        if starts_stage(&gaps, i, raw[raw.len() - 1]) {
            raw.push(i + 1);
        }
    }
    // A fragment too short to be a stage runs on into the next one.
    let mut bounds = vec![first];
    for &at in &raw[1..] {
        if first + at - bounds[bounds.len() - 1] >= MIN_STAGE || bounds.len() == 1 {
            bounds.push(first + at);
        }
    }
    bounds.push(rows.len());
    bounds
}

/// The sweep's stages: the leading synchronous requests (each sent once the previous one finished), then the
/// stages [`starts_stage`] separates.
pub fn stages(rows: &[Measured]) -> Vec<Stage> {
    let sync = (1..rows.len())
        .find(|&i| rows[i].arrival < rows[i - 1].arrival + rows[i - 1].e2e)
        .map_or(rows.len(), |i| i - 1);
    let mut bounds = vec![0];
    bounds.extend(boundaries(rows, sync));
    bounds.dedup();
    bounds
        .windows(2)
        .enumerate()
        .map(|(k, w)| {
            let part = &rows[w[0]..w[1]];
            let t0 = part[0].arrival;
            let requests: Vec<Measured> = part
                .iter()
                .map(|r| Measured {
                    arrival: r.arrival - t0,
                    ..*r
                })
                .collect();
            let gaps: Vec<f64> = requests
                .windows(2)
                .map(|w| w[1].arrival - w[0].arrival)
                .collect();
            let load = if k == 0 {
                Load::Synchronous
            } else if gaps.is_empty() || median(&gaps) < 0.05 {
                Load::AllAtOnce
            } else {
                Load::Constant(1.0 / median(&gaps))
            };
            Stage { load, requests }
        })
        .collect()
}

/// A stage as the trace file `goodput-sim calibrate` reads (JSON lines with token times).
pub fn trace_file(name: String, requests: &[Measured]) -> InputFile {
    let text = requests
        .iter()
        .map(|r| {
            format!(
                "{{\"arrival_s\": {}, \"prompt_tokens\": {}, \"output_tokens\": {}, \"first_token_s\": {}, \"last_token_s\": {}}}\n",
                r.arrival,
                r.prompt,
                r.output,
                r.arrival + r.ttft,
                r.arrival + r.e2e
            )
        })
        .collect();
    InputFile { name, text }
}

/// What a stage shows: TTFT p50 and p99, mean TPOT, throughput, and whether its queue grew all through it.
#[derive(Clone, Copy, Debug)]
pub struct Figures {
    pub ttft_p50: f64,
    pub ttft_p99: f64,
    pub tpot_mean: f64,
    pub throughput: f64,
    pub saturated: bool,
}

/// numpy's linear interpolation between order statistics.
fn percentile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let h = (v.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    v[lo] + (h - lo as f64) * (v[hi] - v[lo])
}

/// The figures of requests given as (arrival, prompt, output, ttft, e2e). Saturated: the last quarter's median TTFT
/// is over four times the first quarter's and over a second — the queue grew from the first request to the last.
pub fn figures(requests: &[Measured]) -> Figures {
    let ttfts: Vec<f64> = requests.iter().map(|r| r.ttft).collect();
    let tpots: Vec<f64> = requests
        .iter()
        .filter(|r| r.output > 1)
        .map(|r| (r.e2e - r.ttft) / f64::from(r.output - 1))
        .collect();
    let end = requests
        .iter()
        .map(|r| r.arrival + r.e2e)
        .fold(0.0, f64::max);
    let quarter = (requests.len() / 4).max(1);
    let (first, last) = (
        median(&ttfts[..quarter]),
        median(&ttfts[ttfts.len() - quarter..]),
    );
    Figures {
        ttft_p50: percentile(&ttfts, 0.5),
        ttft_p99: percentile(&ttfts, 0.99),
        tpot_mean: tpots.iter().sum::<f64>() / tpots.len().max(1) as f64,
        throughput: requests.len() as f64 / end,
        saturated: last > 4.0 * first && last > 1.0,
    }
}

/// The stage's requests replayed in `scenario` (the same arrivals and lengths), as measured requests.
pub fn replayed(scenario: &Scenario, stage: &[Measured]) -> Vec<Measured> {
    let requests: Vec<TraceRequest> = stage
        .iter()
        .map(|r| TraceRequest {
            arrival_s: r.arrival,
            prompt_tokens: r.prompt,
            output_tokens: r.output,
        })
        .collect();
    let (_, mut lives) = replay_traced(scenario, &requests, None).expect("the stage replays");
    lives.sort_by_key(|l| l.index);
    lives
        .iter()
        .map(|l| Measured {
            arrival: l.arrival,
            prompt: l.prompt_tokens,
            output: l.output_tokens,
            ttft: l.first_token - l.arrival,
            e2e: l.finish - l.arrival,
        })
        .collect()
}
