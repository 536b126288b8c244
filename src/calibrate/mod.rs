//! "Your server": the model calibrated from what an operator already has — `vllm bench serve --save-result` files,
//! a per-request trace, or two `/metrics` scrapes — into a scenario the model runs as it runs the presets. Pure
//! Rust, no web types; `goodput-sim calibrate` and the page share it.
//!
//! - [`inputs`]: recognising and reading the files, into [`bench_result`]'s runs and request lives;
//! - `gather`: the parsed inputs gathered for the fit (two scrapes in a row make a window), with each one's summary;
//! - `error`: [`CalibrateError`], what a refusal blames (a flag, an input, the inputs together);
//! - [`scrapes`]: two scrapes as the means of the window between them;
//! - [`observations`]: what each file shows, as rows linear in the step-time coefficients;
//! - [`check`]: each input's experiment run again in the calibrated model;
//! - [`fit`]: the least-squares fit (SVD), naming what the data cannot determine;
//! - [`report`]: the fit and the check of every input figure, as text;
//! - [`handoff`]: the calibrated server as the page keeps it;
//! - [`page`]: what the page's worker does with a learner's files;
//! - [`prefix`]: a prompt prefix every request shares, found in the idle requests' TTFTs;
//! - [`prior`]: the step time physics gives for the model on its GPUs, which the fit adjusts;
//! - [`uncertainty`]: the fit's uncertainty carried to the capacity and the knee, as ranges.
//!
//! The fitted step time is the model's `max(memory, compute)` form: a step costs `fixed + per_context_token ×`
//! the decoding sequences' context (weights and KV cache read), or `compute.per_token ×` the tokens it processes
//! when that is longer (a prefill); the front end adds `frontend_overhead` to every TTFT. `per_decode_seq` and
//! `per_prefill_token` stay 0: at the light loads a calibration wants, the per-sequence cost cannot be told apart
//! from the context cost, and the prefill's cost is the compute term. With the model and GPU named, the fit starts
//! from the roofline's coefficients ([`prior`]) and moves only those the inputs measure.

pub mod bench_result;
mod beside;
mod budget;
pub mod check;
mod error;
pub mod fit;
mod gather;
pub mod guidellm;
/// The calibrated server as the page keeps it: the model's, since the page reads it back and links no calibration.
pub use crate::model::handoff;
pub mod inference_perf;
pub mod inputs;
pub mod observations;
pub mod otel;
pub mod page;
pub mod prefix;
pub mod prior;
pub mod report;
pub mod scrapes;
pub mod uncertainty;
pub mod vllm_result;

// The crates this one builds on, under the names its modules use (`crate::model::…`, `crate::cluster::…`).
use goodput::{cluster, printable, server_files, server_protocol};
use goodput_model as model;

use crate::model::scenario::{
    Arrivals, ComputeTime, IterationModel, KvCache, LlmFleet, Scenario, ServiceKind, Slo,
};
pub use error::CalibrateError;
use fit::{Figure, Fit};
use inputs::{InputFile, Life, Parsed};
use observations::Shape;

/// What the data cannot give: the server's flags (from its command line and start-up log). `None` takes vLLM's
/// default, named in the report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerFlags {
    /// `--max-num-seqs`.
    pub max_num_seqs: Option<u32>,
    /// `--max-num-batched-tokens`.
    pub max_num_batched_tokens: Option<u32>,
    /// `--enable-chunked-prefill` (on by default in vLLM V1; off by default in V0).
    pub chunked_prefill: Option<bool>,
    /// The server runs vLLM's V0 engine (vLLM before 0.8, or `VLLM_USE_V1=0`), whose scheduler, without chunked
    /// prefill, runs waiting prompts in steps of their own while the running sequences wait.
    pub v0_engine: Option<bool>,
    /// The KV cache's tokens per replica ("GPU KV cache size: N tokens" in the start-up log).
    pub kv_cache_tokens: Option<u64>,
    /// Replicas behind the benchmarked endpoint.
    pub replicas: Option<u32>,
    /// Seconds between two `/metrics` scrapes, when the pages carry no timestamps.
    pub window_seconds: Option<f64>,
    /// Leading prompt tokens every request shares, cached after the first (`None`: found in the data, see
    /// [`prefix`]; `Some(0)`: none).
    pub shared_prefix_tokens: Option<u32>,
    /// The model served, by name (`--model`: a Hugging Face id of the table in [`crate::model::hardware`]);
    /// `None` takes a result file's `model_id`.
    pub model: Option<String>,
    /// The GPU, by name (`--gpu`); `None` takes a result file's `gpu_name`.
    pub gpu: Option<String>,
    /// GPUs one replica spans (`--tensor-parallel-size`); `None` takes a result file's `gpu_count`, else 1.
    pub tensor_parallel_size: Option<u32>,
    /// The model and GPU as figures typed in ("other"), which take the place of the names.
    pub deployment: Option<crate::model::hardware::Deployment>,
}

/// Shortest window between two scrapes accepted, seconds (Prometheus scrapes every few seconds at the fastest).
pub const MIN_WINDOW_SECONDS: f64 = 0.1;
/// Longest window between two scrapes accepted, seconds: a year.
pub const MAX_WINDOW_SECONDS: f64 = 365.0 * 86_400.0;

impl ServerFlags {
    /// Each flag given checked against what a server can have, in the command line's words (the page's fields
    /// carry the same names).
    pub fn check(&self) -> Result<(), CalibrateError> {
        use crate::model::scenario::{MAX_KV_TOKENS, MAX_SERVERS, MAX_TOKENS};
        let within = |flag: &'static str, value: Option<u64>, lo: u64, hi: u64| match value {
            Some(v) if !(lo..=hi).contains(&v) => Err(CalibrateError::Flag {
                flag,
                problem: format!("must be between {lo} and {hi} (got {v})"),
            }),
            _ => Ok(()),
        };
        within(
            "--replicas",
            self.replicas.map(u64::from),
            1,
            MAX_SERVERS.into(),
        )?;
        within(
            "--max-num-seqs",
            self.max_num_seqs.map(u64::from),
            1,
            65_536,
        )?;
        let seqs = self.max_num_seqs.unwrap_or(1);
        within(
            "--max-num-batched-tokens",
            self.max_num_batched_tokens.map(u64::from),
            seqs.into(),
            MAX_TOKENS.into(),
        )?;
        within(
            "--kv-cache-tokens",
            self.kv_cache_tokens,
            crate::model::scenario::KV_BLOCK_TOKENS,
            MAX_KV_TOKENS,
        )?;
        match self.window_seconds {
            Some(s)
                if !(s.is_finite() && (MIN_WINDOW_SECONDS..=MAX_WINDOW_SECONDS).contains(&s)) =>
            {
                Err(CalibrateError::Flag {
                    flag: "--seconds",
                    problem: format!(
                        "must be the seconds between the scrapes, from {MIN_WINDOW_SECONDS} to \
                         {MAX_WINDOW_SECONDS} (got {})",
                        readable(s)
                    ),
                })
            }
            _ => Ok(()),
        }
    }
}

/// A number as a person types it: plain in the usual range, in exponent form at the extremes (1e-300).
pub fn readable(x: f64) -> String {
    if x == 0.0 || (1e-4..1e15).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Most runs one calibration takes from all its inputs together (results `--append-result` wrote one after another,
/// a GuideLLM report's benchmarks), as many as files: each is repeated by the model and checked.
pub const MAX_RUNS: usize = inputs::MAX_INPUT_FILES;

/// `--max-num-seqs` when not given and the GPU is not known: vLLM's usual default (it picks more on large GPUs,
/// see [`vllm_batch_defaults`]).
pub const DEFAULT_MAX_NUM_SEQS: u32 = 256;
/// `--max-num-batched-tokens` when not given and the GPU is not known: vLLM V1's API server's budget on a
/// data-centre GPU.
pub const DEFAULT_MAX_NUM_BATCHED_TOKENS: u32 = 8192;

/// vLLM V1's API server's `--max-num-batched-tokens` and `--max-num-seqs` on a GPU, when they are not given
/// (`_set_default_args_v1` in vllm/engine/arg_utils.py): 8192 tokens and 1024 sequences on a GPU of at least 70 GiB
/// (since vLLM 0.8.5, PR #17073), 2048 and 256 on a smaller one — and, since vLLM 0.9 (PR #17885), on an A100 of
/// any size, where the larger budget cost throughput. With the rule in words.
pub fn vllm_batch_defaults(gpu_name: &str, memory_gib: f64) -> (u32, u32, &'static str) {
    let a100 = gpu_name.to_ascii_lowercase().contains("a100");
    if memory_gib >= 70.0 && !a100 {
        (8192, 1024, "vLLM's default on a GPU of 70 GiB or more")
    } else if a100 && memory_gib >= 70.0 {
        (
            2048,
            256,
            "vLLM's default on an A100 since 0.9 (0.8.5 gave 80 GB ones 8192 and 1024)",
        )
    } else {
        (2048, 256, "vLLM's default on a GPU of less than 70 GiB")
    }
}

/// One input as the report describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct InputSummary {
    /// The file's name (for scrapes: "earlier → later").
    pub name: String,
    /// What it was read as.
    pub kind: String,
    /// The requests it covers.
    pub requests: u64,
    /// The rate it was run at, requests per second, when it says.
    pub rate: Option<f64>,
    /// Each figure's measured mean and the fit's, seconds.
    pub residuals: Vec<(Figure, f64, f64)>,
    /// The input's experiment repeated in the calibrated model, when it has one.
    pub check: Option<check::Check>,
}

/// The calibrated scenario and everything the report says about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The scenario, accepted as is by `run --scenario`.
    pub scenario: Scenario,
    /// The fit.
    pub fit: Fit,
    /// The inputs, with their residuals.
    pub inputs: Vec<InputSummary>,
    /// Where the lengths came from.
    pub lengths_from: String,
    /// Flags taken as vLLM's defaults or from the user, in words.
    pub assumptions: Vec<String>,
    /// The fitted coefficients' covariance (`None` when the inputs leave no residual to tell).
    pub covariance: Option<[[f64; 4]; 4]>,
    /// How sure the fit is of the capacity and the knee: filled by [`Calibration::with_uncertainty`], which costs
    /// some tens of simulated runs (`None` until then, or when it cannot be estimated).
    pub uncertainty: Option<uncertainty::Uncertainty>,
    /// The step time physics gives for the model on its GPUs, which the fit adjusted (`None`: not named).
    pub prior: Option<prior::Prior>,
    /// The figures of its own inputs the calibrated model misses by more than [`check::TOLERANCES`], in words:
    /// when any, the step-time model does not describe the server, and the ranges are widened.
    pub unreproduced: Vec<String>,
}

/// Calibrates from the files; an error is one line naming the flag or file at fault and what is missing.
pub fn calibrate(files: &[InputFile], flags: &ServerFlags) -> Result<Calibration, CalibrateError> {
    if files.is_empty() {
        return Err(CalibrateError::NoInput);
    }
    inputs::check_sizes(files.iter().map(|f| (f.name.as_str(), f.text.len() as f64)))
        .map_err(CalibrateError::TooMuchInput)?;
    flags.check()?;
    let mut settings = Settings::from(flags);
    let prior = prior::choose(flags, files, &mut settings.assumptions)?;
    if let Some(p) = &prior {
        settings.batch_from(flags, p);
        if flags.kv_cache_tokens.is_none() {
            settings.kv_cache_from(p);
        }
    }
    let mut parsed: Vec<inputs::Input> = Vec::with_capacity(files.len());
    for file in files {
        parsed.extend(inputs::parse_all(file).map_err(|e| CalibrateError::read(&file.name, e))?);
        let requests: usize = parsed.iter().map(|i| i.parsed.requests_held()).sum();
        if requests > inputs::MAX_REQUESTS {
            return Err(CalibrateError::TooMuchInput(format!(
                "the inputs up to {} hold {requests} requests one by one, more than the {} one calibration takes \
                 (give a sample: a few thousand requests at light load determine the fit)",
                file.name,
                inputs::MAX_REQUESTS
            )));
        }
        if let Some(extra) = parsed.get(MAX_RUNS) {
            return Err(CalibrateError::TooMuchInput(format!(
                "more than {} runs in all (at {}): calibrate from the runs that differ, a few are enough",
                MAX_RUNS,
                extra.name
            )));
        }
    }
    settings
        .assumptions
        .extend(gather::leave_out_whole_runs(&mut parsed));
    let shared_prefix_tokens = settings.shared_prefix(flags, &parsed);
    let shape = Shape {
        replicas: f64::from(settings.replicas),
        max_num_batched_tokens: settings.max_num_batched_tokens,
        chunked_prefill: settings.chunked_prefill,
        prefill_first: settings.prefill_first,
        cached_prefix: f64::from(shared_prefix_tokens),
    };
    let mut gathered = gather::gather(&parsed, &shape, flags.window_seconds)?;
    if gathered.rows.is_empty() {
        let name = files
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(CalibrateError::Input {
            name,
            problem: "no latencies to fit (a trace needs first_token_s and last_token_s, or add a result file)"
                .to_owned(),
        });
    }
    // Checked at the door of the fit, naming the file: a non-finite or absurd row never reaches the SVD.
    if let Some((row, problem)) = gathered.rows.iter().find_map(|r| Some((r, r.problem()?))) {
        return Err(CalibrateError::Input {
            name: gathered.summaries[row.source].name.clone(),
            problem: format!("shows {problem}; check the file"),
        });
    }
    let undetermined =
        || CalibrateError::Undetermined("the inputs determine no step time".to_owned());
    let mut anchor = prior.as_ref().map(|p| p.anchor);
    let mut fit = fit::fit_around(&gathered.rows, anchor.as_ref()).ok_or_else(undetermined)?;
    // The KV cache is read as efficiently as the weights: once the inputs measure the one, the other's prior follows.
    if let Some(p) = prior
        .as_ref()
        .filter(|_| fit.coefficients[fit::FIXED].measured())
    {
        let read_as_measured = p.read_as_measured(fit.theta()[fit::FIXED]);
        fit = fit::fit_around(&gathered.rows, Some(&read_as_measured)).ok_or_else(undetermined)?;
        anchor = Some(read_as_measured);
    }
    let theta = fit.theta();
    if theta[fit::FIXED] <= 0.0 {
        let why = fit.coefficients[fit::FIXED]
            .not_determined
            .clone()
            .unwrap_or_else(|| "it fitted to 0".to_owned());
        return Err(CalibrateError::Undetermined(format!(
            "the inputs do not determine the decode step's time ({why}); calibrate from light loads, well below \
             the knee"
        )));
    }
    gathered.add_residuals(&theta);
    let (prompt_tokens, output_tokens, lengths_from) = gathered.lengths();
    let scenario = Scenario {
        service: ServiceKind::Llm(LlmFleet {
            replicas: settings.replicas,
            max_num_seqs: settings.max_num_seqs,
            max_num_batched_tokens: settings.max_num_batched_tokens,
            chunked_prefill: settings.chunked_prefill,
            prefill_first: settings.prefill_first,
            iteration: IterationModel {
                fixed: theta[fit::FIXED],
                per_prefill_token: 0.0,
                per_decode_seq: 0.0,
                per_context_token: theta[fit::PER_CONTEXT_TOKEN],
                compute: Some(ComputeTime {
                    fixed: 0.0,
                    per_token: theta[fit::PER_TOKEN],
                }),
            },
            prompt_tokens,
            output_tokens,
            kv_cache: settings.kv_cache,
            prefix_caching: true,
            frontend_overhead: theta[fit::FRONTEND],
            max_num_queued_reqs: None,
            max_num_queued_tokens: None,
            shared_prefix_tokens,
        }),
        arrivals: Arrivals::Open {
            offered_load: 0.8,
            cv: gathered.cv.unwrap_or(crate::model::scenario::POISSON_CV),
        },
        slo: Slo::default(),
        customers: 20_000,
        warm_up: 2_000,
    };
    scenario.validate().map_err(CalibrateError::Refused)?;
    let names = files
        .iter()
        .map(|f| f.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    budget::check(
        &scenario,
        &parsed.iter().map(|i| &i.parsed).collect::<Vec<_>>(),
        &names,
    )?;
    let mut summaries = gathered.summaries;
    for (summary, experiment) in summaries.iter_mut().zip(&gathered.experiments) {
        summary.check = experiment.and_then(|i| check::check(&scenario, &parsed[i].parsed));
    }
    let covariance = fit::covariance(&gathered.rows, &fit, anchor.as_ref());
    let unreproduced = summaries.iter().flat_map(check::misses).collect();
    Ok(Calibration {
        scenario,
        fit,
        inputs: summaries,
        lengths_from,
        assumptions: std::mem::take(&mut settings.assumptions),
        covariance,
        uncertainty: None,
        prior,
        unreproduced,
    })
}

/// The server's settings the calibration runs with: each flag as given, or vLLM's default, and the report's line
/// for each saying which.
struct Settings {
    replicas: u32,
    max_num_seqs: u32,
    max_num_batched_tokens: u32,
    chunked_prefill: bool,
    /// V0's scheduler without chunked prefill ([`LlmFleet::prefill_first`]).
    prefill_first: bool,
    kv_cache: KvCache,
    assumptions: Vec<String>,
}

impl From<&ServerFlags> for Settings {
    fn from(flags: &ServerFlags) -> Settings {
        let mut assumptions = Vec::new();
        let mut flag = |value: Option<u32>, default: u32, what: &str, option: &str| match value {
            Some(v) => {
                assumptions.push(format!("{what} {v} (given)"));
                v
            }
            None => {
                assumptions.push(format!(
                    "{what} {default} (assumed, vLLM's default; give {option})"
                ));
                default
            }
        };
        let replicas = flag(flags.replicas, 1, "replicas", "--replicas");
        let max_num_seqs = flag(
            flags.max_num_seqs,
            DEFAULT_MAX_NUM_SEQS,
            "max_num_seqs",
            "--max-num-seqs",
        );
        let max_num_batched_tokens = flag(
            flags.max_num_batched_tokens,
            DEFAULT_MAX_NUM_BATCHED_TOKENS.max(max_num_seqs),
            "max_num_batched_tokens",
            "--max-num-batched-tokens",
        );
        let v0 = flags.v0_engine.unwrap_or(false);
        assumptions.push(match flags.v0_engine {
            Some(true) => "engine V0 (given)".to_owned(),
            Some(false) => "engine V1 (given)".to_owned(),
            None => "engine V1 (assumed, vLLM's since 0.8; give --v0-engine on for VLLM_USE_V1=0 or an older vLLM)"
                .to_owned(),
        });
        let chunked_prefill = flags.chunked_prefill.unwrap_or(!v0);
        assumptions.push(match flags.chunked_prefill {
            Some(on) => format!("chunked prefill {} (given)", if on { "on" } else { "off" }),
            None if v0 => {
                "chunked prefill off (assumed, vLLM V0's default; give --chunked-prefill)"
                    .to_owned()
            }
            None => {
                "chunked prefill on (assumed, vLLM V1's default; give --chunked-prefill)".to_owned()
            }
        });
        let kv_cache = match flags.kv_cache_tokens {
            Some(tokens) => {
                assumptions.push(format!("KV cache {tokens} tokens per replica (given)"));
                KvCache::Tokens(tokens)
            }
            None => {
                assumptions.push(
                    "KV cache not limited (not determined: give --kv-cache-tokens, the \"GPU KV cache size\" of \
                     the start-up log)"
                        .to_owned(),
                );
                KvCache::Unlimited
            }
        };
        Settings {
            replicas,
            max_num_seqs,
            max_num_batched_tokens,
            chunked_prefill,
            prefill_first: v0 && !chunked_prefill,
            kv_cache,
            assumptions,
        }
    }
}

impl Settings {
    /// The batch limits vLLM picks for the prior's GPU, for those not given.
    fn batch_from(&mut self, flags: &ServerFlags, prior: &prior::Prior) {
        let deployment = &prior.deployment;
        let (tokens, seqs, rule) =
            vllm_batch_defaults(&deployment.gpu_name, deployment.gpu.memory_gib);
        let mut replace = |what: &str, value: u32, option: &str| {
            if let Some(line) = self
                .assumptions
                .iter_mut()
                .find(|l| l.starts_with(what) && l.contains("(assumed"))
            {
                *line = format!(
                    "{what} {value} (assumed, {rule}, the {}; give {option})",
                    deployment.gpu_name
                );
            }
        };
        if flags.max_num_seqs.is_none() {
            self.max_num_seqs = seqs;
            replace("max_num_seqs", seqs, "--max-num-seqs");
        }
        if flags.max_num_batched_tokens.is_none() {
            self.max_num_batched_tokens = tokens.max(self.max_num_seqs);
            replace(
                "max_num_batched_tokens",
                self.max_num_batched_tokens,
                "--max-num-batched-tokens",
            );
        }
    }

    /// The KV cache as vLLM would size it for the prior's model on its GPUs (`--gpu-memory-utilization` 0.9,
    /// [`prior::ACTIVATIONS_GIB`] a GPU for activations and graphs), in place of an unlimited one.
    fn kv_cache_from(&mut self, prior: &prior::Prior) {
        let memory = prior
            .deployment
            .roofline()
            .gpu_memory(0.9, prior::ACTIVATIONS_GIB);
        let tokens = memory.tokens();
        if tokens == 0 {
            return;
        }
        if let Some(line) = self
            .assumptions
            .iter_mut()
            .find(|l| l.starts_with("KV cache not limited"))
        {
            *line = format!(
                "KV cache {tokens} tokens per replica (from physics: 90% of {} × {} GiB less {:.1} GiB of weights \
                 and {} GiB a GPU of activations; give --kv-cache-tokens, the \"GPU KV cache size\" of the start-up \
                 log)",
                memory.gpus,
                memory.gpu_memory_gib,
                memory.weights_gib,
                prior::ACTIVATIONS_GIB
            );
        }
        self.kv_cache = KvCache::Memory(memory);
    }

    /// The prompt prefix every request shares, cached: as given, or found in the inputs' idle requests (0 when
    /// none is found), with the report's line saying which.
    fn shared_prefix(&mut self, flags: &ServerFlags, parsed: &[inputs::Input]) -> u32 {
        if let Some(tokens) = flags.shared_prefix_tokens {
            self.assumptions
                .push(format!("a shared prompt prefix of {tokens} tokens (given)"));
            return tokens;
        }
        let Some(found) = prefix::shared_prefix(&lives_of(parsed)) else {
            return 0;
        };
        self.assumptions.push(format!(
            "a shared prompt prefix of {} tokens, cached (found: the TTFTs of {} requests that found the server idle \
             grow with the prompt as if its first {} tokens were free)",
            found.tokens, found.requests, found.tokens
        ));
        found.tokens
    }
}

impl Calibration {
    /// The calibration with its capacity and knee as ranges ([`uncertainty::estimate`]): the command line's report
    /// gives them; the page's worker, which answers within 200 ms, does not.
    pub fn with_uncertainty(mut self) -> Calibration {
        let highest_measured = self.inputs.iter().filter_map(|s| s.rate).reduce(f64::max);
        self.uncertainty = self.widened_covariance().as_ref().and_then(|covariance| {
            uncertainty::estimate(
                &self.scenario,
                &self.fit.theta(),
                covariance,
                highest_measured,
            )
        });
        self
    }

    /// The calibration with its capacity and knee as ranges, as [`Calibration::with_uncertainty`], and the
    /// calibrated server for the lab with its [`band`](crate::model::your_server::Band): the capacity, the knee and
    /// the TTFT curves as the coefficients' uncertainty allows (some hundred simulated benchmarks, which the page's
    /// worker runs off the page's thread).
    pub fn with_band(mut self) -> (Calibration, crate::model::your_server::YourServer) {
        let highest_measured = self.inputs.iter().filter_map(|s| s.rate).reduce(f64::max);
        let (uncertainty, band) = self
            .widened_covariance()
            .as_ref()
            .and_then(|covariance| {
                uncertainty::band(
                    &self.scenario,
                    &self.fit.theta(),
                    covariance,
                    highest_measured,
                )
            })
            .unzip();
        self.uncertainty = uncertainty;
        let server = crate::model::your_server::YourServer {
            band,
            ..self.your_server()
        };
        (self, server)
    }

    /// The covariance the ranges are drawn from: the fit's, widened by the square of the worst miss's multiple of
    /// its tolerance when the fit does not reproduce its own inputs (a model that misses what it was fitted to is
    /// less sure than its residuals say).
    pub fn widened_covariance(&self) -> Option<[[f64; 4]; 4]> {
        let covariance = self.covariance?;
        let factor = self
            .inputs
            .iter()
            .map(check::worst_miss)
            .fold(1.0, f64::max)
            .min(check::MAX_WIDENING);
        Some(covariance.map(|row| row.map(|v| v * factor * factor)))
    }

    /// The calibrated server for the lab: the scenario, each input with a rate beside the model's repeat of it, and
    /// its measured capacity (a burst simulated, some tens of milliseconds).
    pub fn your_server(&self) -> crate::model::your_server::YourServer {
        crate::model::your_server::YourServer {
            band: None,
            capacity_ratio: crate::model::your_server::capacity_ratio(&self.scenario),
            scenario: self.scenario.clone(),
            measured: self
                .inputs
                .iter()
                .filter_map(|input| {
                    let check = input.check.as_ref()?;
                    Some(crate::model::your_server::MeasuredRun {
                        rate: input.rate?,
                        measured: check.measured,
                        model: check.model,
                    })
                })
                .collect(),
        }
    }
}

/// Every input's requests with their times.
fn lives_of(parsed: &[inputs::Input]) -> Vec<&[Life]> {
    parsed
        .iter()
        .filter_map(|input| match &input.parsed {
            Parsed::Bench(bench) => bench.lives.as_deref(),
            Parsed::Trace(lives) => Some(lives.as_slice()),
            Parsed::Metrics(_) => None,
        })
        .collect()
}
