//! "Your server": the model calibrated from what an operator already has — `vllm bench serve --save-result` files,
//! a per-request trace, or two `/metrics` scrapes — into a scenario the model runs as it runs the presets. Pure
//! Rust, no web types; `goodput-sim calibrate` and the page share it.
//!
//! - [`inputs`]: recognising and reading the files, into [`bench_result`]'s runs and request lives;
//! - [`scrapes`]: two scrapes as the means of the window between them;
//! - [`observations`]: what each file shows, as rows linear in the step-time coefficients;
//! - [`check`]: each input's experiment run again in the calibrated model;
//! - [`fit`]: the least-squares fit (SVD), naming what the data cannot determine;
//! - [`report`]: the fit and the check of every input figure, as text;
//! - [`handoff`]: the calibrated server as the page keeps it;
//! - [`page`]: what the page's worker does with a learner's files;
//! - [`prefix`]: a prompt prefix every request shares, found in the idle requests' TTFTs;
//! - [`uncertainty`]: the fit's uncertainty carried to the capacity and the knee, as ranges.
//!
//! The fitted step time is the model's `max(memory, compute)` form: a step costs `fixed + per_context_token ×`
//! the decoding sequences' context (weights and KV cache read), or `compute.per_token ×` the tokens it processes
//! when that is longer (a prefill); the front end adds `frontend_overhead` to every TTFT. `per_decode_seq` and
//! `per_prefill_token` stay 0: at the light loads a calibration wants, the per-sequence cost cannot be told apart
//! from the context cost, and the prefill's cost is the compute term.

pub mod bench_result;
pub mod check;
pub mod fit;
pub mod guidellm;
pub mod handoff;
pub mod inputs;
pub mod observations;
pub mod otel;
pub mod page;
pub mod prefix;
pub mod report;
pub mod scrapes;
pub mod uncertainty;
pub mod vllm_result;

use crate::model::scenario::{
    Arrivals, ComputeTime, IterationModel, KvCache, LengthDist, LlmFleet, Scenario, ServiceKind,
    Slo, MAX_EMPIRICAL_LENGTHS,
};
use fit::{Figure, Fit, Row};
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
    /// `--enable-chunked-prefill` (on by default in vLLM V1).
    pub chunked_prefill: Option<bool>,
    /// The KV cache's tokens per replica ("GPU KV cache size: N tokens" in the start-up log).
    pub kv_cache_tokens: Option<u64>,
    /// Replicas behind the benchmarked endpoint.
    pub replicas: Option<u32>,
    /// Seconds between two `/metrics` scrapes, when the pages carry no timestamps.
    pub window_seconds: Option<f64>,
    /// Leading prompt tokens every request shares, cached after the first (`None`: found in the data, see
    /// [`prefix`]; `Some(0)`: none).
    pub shared_prefix_tokens: Option<u32>,
}

/// Shortest window between two scrapes accepted, seconds (Prometheus scrapes every few seconds at the fastest).
pub const MIN_WINDOW_SECONDS: f64 = 0.1;
/// Longest window between two scrapes accepted, seconds: a year.
pub const MAX_WINDOW_SECONDS: f64 = 365.0 * 86_400.0;

impl ServerFlags {
    /// Each flag given checked against what a server can have, in the command line's words (the page's fields
    /// carry the same names); an error is one line.
    pub fn check(&self) -> Result<(), String> {
        use crate::model::scenario::{MAX_KV_TOKENS, MAX_SERVERS, MAX_TOKENS};
        let within = |flag: &str, value: Option<u64>, lo: u64, hi: u64| match value {
            Some(v) if !(lo..=hi).contains(&v) => {
                Err(format!("{flag} must be between {lo} and {hi} (got {v})"))
            }
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
            Some(s) if !(s.is_finite() && (MIN_WINDOW_SECONDS..=MAX_WINDOW_SECONDS).contains(&s)) => {
                Err(format!(
                    "--seconds must be the seconds between the scrapes, from {MIN_WINDOW_SECONDS} to \
                     {MAX_WINDOW_SECONDS} (got {})",
                    readable(s)
                ))
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

/// `--max-num-seqs` when not given: vLLM's usual default (some versions pick more on large GPUs).
pub const DEFAULT_MAX_NUM_SEQS: u32 = 256;
/// `--max-num-batched-tokens` when not given: vLLM V1's API server's budget on a data-centre GPU.
pub const DEFAULT_MAX_NUM_BATCHED_TOKENS: u32 = 8192;

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
}

/// Calibrates from the files; an error is one line naming the file and what is missing.
pub fn calibrate(files: &[InputFile], flags: &ServerFlags) -> Result<Calibration, String> {
    if files.is_empty() {
        return Err(
            "no input: give a vllm bench serve result, a request trace, or two /metrics scrapes"
                .to_owned(),
        );
    }
    flags.check()?;
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
    let chunked_prefill = flags.chunked_prefill.unwrap_or(true);
    assumptions.push(match flags.chunked_prefill {
        Some(on) => format!("chunked prefill {} (given)", if on { "on" } else { "off" }),
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
                "KV cache not limited (not determined: give --kv-cache-tokens, the \"GPU KV cache size\" of the \
                 start-up log)"
                    .to_owned(),
            );
            KvCache::Unlimited
        }
    };
    let mut parsed: Vec<inputs::Input> = Vec::with_capacity(files.len());
    for file in files {
        parsed.extend(inputs::parse_all(file)?);
    }
    let shared_prefix = match flags.shared_prefix_tokens {
        Some(tokens) => {
            assumptions.push(format!("a shared prompt prefix of {tokens} tokens (given)"));
            None
        }
        None => prefix::shared_prefix(&lives_of(&parsed)),
    };
    if let Some(p) = shared_prefix {
        assumptions.push(format!(
            "a shared prompt prefix of {} tokens, cached (found: the TTFTs of {} requests that found the server idle \
             grow with the prompt as if its first {} tokens were free)",
            p.tokens, p.requests, p.tokens
        ));
    }
    let shared_prefix_tokens = flags
        .shared_prefix_tokens
        .or(shared_prefix.map(|p| p.tokens))
        .unwrap_or(0);
    let shape = Shape {
        replicas: f64::from(replicas),
        max_num_batched_tokens,
        chunked_prefill,
        cached_prefix: f64::from(shared_prefix_tokens),
    };
    // Which parsed input each summary repeats in the check (none for a window between scrapes).
    let mut experiments: Vec<Option<usize>> = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut summaries = Vec::new();
    let (mut prompts, mut outputs): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    let (mut mean_prompt, mut mean_output, mut weight) = (0.0, 0.0, 0.0);
    let mut pending_page: Option<(&str, &crate::cluster::metrics::Exposition)> = None;
    let mut cv = None;
    for (index, input) in parsed.iter().enumerate() {
        let source = summaries.len();
        let name = input.name.as_str();
        match &input.parsed {
            Parsed::Bench(bench) => {
                experiments.push(Some(index));
                let before = rows.len();
                rows.extend(observations::bench_rows(source, bench, &shape));
                if rows.len() == before {
                    return Err(format!("{name}: shows no TTFT or TPOT to fit"));
                }
                if let Some(lives) = &bench.lives {
                    collect_lengths(lives, &mut prompts, &mut outputs);
                }
                let n = bench.completed as f64;
                mean_prompt += bench.mean_prompt * n;
                mean_output += bench.mean_output * n;
                weight += n;
                cv = cv.or(bench.burstiness.map(Arrivals::cv_from_burstiness));
                summaries.push(InputSummary {
                    name: name.to_owned(),
                    kind: bench_kind(bench),
                    requests: bench.completed,
                    // A closed loop's arrivals keep pace with its completions.
                    rate: bench
                        .request_rate
                        .or(bench.closed_loop_users().map(|_| bench.request_throughput)),
                    residuals: Vec::new(),
                    check: None,
                });
            }
            Parsed::Trace(lives) => {
                experiments.push(Some(index));
                collect_lengths(lives, &mut prompts, &mut outputs);
                let before = rows.len();
                rows.extend(observations::trace_rows(source, lives, &shape));
                let timed = rows.len() > before;
                let span = lives.last().and_then(|l| l.arrival).unwrap_or(0.0);
                summaries.push(InputSummary {
                    name: name.to_owned(),
                    kind: if timed {
                        "request trace with token times".to_owned()
                    } else {
                        "request trace, lengths only".to_owned()
                    },
                    requests: lives.len() as u64,
                    rate: (span > 0.0).then(|| (lives.len() - 1) as f64 / span),
                    residuals: Vec::new(),
                    check: None,
                });
            }
            Parsed::Metrics(page) => match pending_page.take() {
                None => pending_page = Some((name, page)),
                Some((earlier_name, earlier)) => {
                    let name = format!("{earlier_name} → {name}");
                    let w = scrapes::window(&name, earlier, page, flags.window_seconds)?;
                    experiments.push(None);
                    rows.extend(observations::window_rows(source, &w.means, &shape));
                    if let Some(p) = w.prompt_lengths {
                        prompts.extend(p);
                    }
                    if let Some(o) = w.output_lengths {
                        outputs.extend(o);
                    }
                    mean_prompt += w.means.prompt * w.means.requests;
                    mean_output += w.means.output * w.means.requests;
                    weight += w.means.requests;
                    summaries.push(InputSummary {
                        name,
                        kind: format!("two /metrics scrapes (window length {})", w.seconds_from),
                        requests: w.means.requests.round() as u64,
                        rate: (w.means.rate > 0.0).then_some(w.means.rate),
                        residuals: Vec::new(),
                        check: None,
                    });
                    // The later page may start the next window.
                    pending_page = Some((input.name.as_str(), page));
                }
            },
        }
    }
    if let Some((name, _)) = pending_page {
        if !summaries.iter().any(|s| s.kind.starts_with("two /metrics")) {
            return Err(format!(
                "{name}: one /metrics scrape counts since the server started; give a second, later scrape of the same \
                 server"
            ));
        }
    }
    if rows.is_empty() {
        let name = files
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(format!(
            "{name}: no latencies to fit (a trace needs first_token_s and last_token_s, or add a result file)"
        ));
    }
    // Checked at the door of the fit, naming the file: a non-finite or absurd row never reaches the SVD.
    if let Some((row, problem)) = rows.iter().find_map(|r| Some((r, r.problem()?))) {
        return Err(format!(
            "{}: shows {problem}; check the file",
            summaries[row.source].name
        ));
    }
    let fit = fit::fit(&rows).ok_or_else(|| "the inputs determine no step time".to_owned())?;
    let theta = fit.theta();
    if theta[fit::FIXED] <= 0.0 {
        let why = fit.coefficients[fit::FIXED]
            .not_determined
            .clone()
            .unwrap_or_else(|| "it fitted to 0".to_owned());
        return Err(format!(
            "the inputs do not determine the decode step's time ({why}); calibrate from light loads, well below \
             the knee"
        ));
    }
    for (index, summary) in summaries.iter_mut().enumerate() {
        let mut by_figure: Vec<(Figure, f64, f64, f64)> = Vec::new();
        for row in rows.iter().filter(|r| r.source == index) {
            match by_figure.iter_mut().find(|e| e.0 == row.figure) {
                Some(e) => {
                    e.1 += row.y;
                    e.2 += row.value(&theta);
                    e.3 += 1.0;
                }
                None => by_figure.push((row.figure, row.y, row.value(&theta), 1.0)),
            }
        }
        summary.residuals = by_figure
            .into_iter()
            .map(|(figure, y, fitted, n)| (figure, y / n, fitted / n))
            .collect();
    }

    let (prompt_tokens, output_tokens, lengths_from) = if !prompts.is_empty() {
        (
            empirical(prompts),
            empirical(outputs),
            "empirical: the inputs' own per-request lengths".to_owned(),
        )
    } else {
        let (p, o) = (mean_prompt / weight.max(1.0), mean_output / weight.max(1.0));
        (
            LengthDist::Fixed {
                tokens: p.round().max(1.0) as u32,
            },
            LengthDist::Fixed {
                tokens: o.round().max(1.0) as u32,
            },
            "fixed at the inputs' means: they list no per-request lengths".to_owned(),
        )
    };
    let scenario = Scenario {
        service: ServiceKind::Llm(LlmFleet {
            replicas,
            max_num_seqs,
            max_num_batched_tokens,
            chunked_prefill,
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
            kv_cache,
            prefix_caching: true,
            frontend_overhead: theta[fit::FRONTEND],
            max_num_queued_reqs: None,
            max_num_queued_tokens: None,
            shared_prefix_tokens,
        }),
        arrivals: Arrivals::Open {
            offered_load: 0.8,
            cv: cv.unwrap_or(crate::model::scenario::POISSON_CV),
        },
        slo: Slo::default(),
        customers: 20_000,
        warm_up: 2_000,
    };
    scenario.validate().map_err(|e| {
        format!("the fitted scenario is refused: {e} (check the flags against the inputs)")
    })?;
    for (summary, experiment) in summaries.iter_mut().zip(&experiments) {
        summary.check = experiment.and_then(|i| check::check(&scenario, &parsed[i].parsed));
    }
    let covariance = fit::covariance(&rows, &fit);
    Ok(Calibration {
        scenario,
        fit,
        inputs: summaries,
        lengths_from,
        assumptions,
        covariance,
        uncertainty: None,
    })
}

impl Calibration {
    /// The calibration with its capacity and knee as ranges ([`uncertainty::estimate`]): the command line's report
    /// gives them; the page's worker, which answers within 200 ms, does not.
    pub fn with_uncertainty(mut self) -> Calibration {
        let highest_measured = self.inputs.iter().filter_map(|s| s.rate).reduce(f64::max);
        self.uncertainty = self.covariance.as_ref().and_then(|covariance| {
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
            .covariance
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

/// A result as the report describes it: its source, what it keeps, how it was run, and what had to be derived.
fn bench_kind(bench: &inputs::BenchResult) -> String {
    let mut kind = bench.kind.clone();
    kind.push_str(match (&bench.lives, bench.is_timed()) {
        (_, true) => ", per request with send times",
        (Some(_), false) => ", per request",
        (None, _) => ", summary",
    });
    if let Some(users) = bench.closed_loop_users() {
        kind.push_str(&format!(
            ", closed loop of {users} (each request sent as one ends)"
        ));
    }
    for derived in &bench.derived {
        kind.push_str("; ");
        kind.push_str(derived);
    }
    kind
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

fn collect_lengths(lives: &[Life], prompts: &mut Vec<u32>, outputs: &mut Vec<u32>) {
    prompts.extend(lives.iter().map(|l| l.prompt));
    outputs.extend(lives.iter().map(|l| l.output));
}

/// An empirical distribution of at most [`MAX_EMPIRICAL_LENGTHS`] lengths (every k-th when there are more).
fn empirical(mut tokens: Vec<u32>) -> LengthDist {
    if tokens.len() > MAX_EMPIRICAL_LENGTHS {
        let step = tokens.len().div_ceil(MAX_EMPIRICAL_LENGTHS);
        tokens = tokens.into_iter().step_by(step).collect();
    }
    LengthDist::Empirical { tokens }
}
