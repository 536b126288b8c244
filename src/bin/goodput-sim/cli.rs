//! The flags and the subcommands.

use super::output::{print_run, print_sweep, OutputArgs};
use super::{bench, metrics};
use clap::{Args, Parser, Subcommand, ValueEnum};
use goodput::model::{load_points, run, sweep, Arrivals, Scenario, ServiceKind, TextbookService};

/// Simulate the goodput course's queue model: textbook M/M/c or LLM replicas with continuous batching, open or
/// closed loop. Prints a table by default, CSV or JSON on request. Times are seconds in the LLM presets and time
/// units (mean service 1 unless --mean-service) in the textbook preset.
#[derive(Parser)]
#[command(name = "goodput-sim", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate one scenario and report its latencies, throughput, goodput and checks.
    Run {
        #[command(flatten)]
        scenario: ScenarioArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Simulate a range of offered loads with common random numbers (one seed for every point).
    Sweep {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// First offered load of the sweep.
        #[arg(long, default_value_t = 0.85)]
        from: f64,
        /// Last offered load of the sweep (included).
        #[arg(long, default_value_t = 1.0)]
        to: f64,
        /// Step between offered loads.
        #[arg(long, default_value_t = 0.01)]
        step: f64,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Time the simulator (customers per second for both service kinds, a full default sweep) and print a
    /// markdown table for BENCHMARKS.md, or JSON.
    Bench {
        /// Time a twentieth of the work, for a smoke test.
        #[arg(long)]
        quick: bool,
        /// Print JSON (what tools/bench.mjs reads).
        #[arg(long)]
        json: bool,
    },
    /// Read a vLLM /metrics page (Prometheus text) and print, per model and label set, the four signals: TTFT and
    /// TPOT p50/p95/p99 (estimated from the histogram buckets), requests running and waiting, and the knee
    /// verdict against the SLOs. Exits 2 with one line naming the line at fault when the page does not parse,
    /// and when it has no vLLM metrics.
    Metrics {
        /// The page: a file, or - for standard input (at most 5 MB).
        #[arg(default_value = "-")]
        page: String,
        /// SLO on p99 time to first token, in milliseconds.
        #[arg(long, default_value_t = 500.0)]
        slo_ttft_ms: f64,
        /// SLO on p95 time per output token, in milliseconds.
        #[arg(long, default_value_t = 40.0)]
        slo_tpot_ms: f64,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Preset {
    /// ~27B FP8 model on 4×H100 (vLLM, max-num-seqs 64, chunked prefill, 8192-token budget).
    Course,
    /// OPT-13B on one A100 with DistServe's fitted iteration times.
    Distserve,
    /// The M/M/c queue, mean service 1 time unit.
    Textbook,
}

#[derive(Args)]
struct ScenarioArgs {
    /// Starting scenario.
    #[arg(long, value_enum, default_value = "course")]
    preset: Preset,
    /// Offered load ρ (arrival rate ÷ saturation throughput); in closed loop it sets the number of users.
    #[arg(long)]
    load: Option<f64>,
    /// Closed loop: users who think, send, wait for the response, and think again.
    #[arg(long)]
    closed: bool,
    /// Closed loop with exactly this many users (implies --closed).
    #[arg(long)]
    users: Option<u32>,
    /// Mean think time of closed-loop users (default 5 s for LLM presets, 4 time units for textbook).
    #[arg(long)]
    think: Option<f64>,
    /// Number of servers (textbook) or replicas (LLM).
    #[arg(long)]
    servers: Option<u32>,
    /// Textbook mean service time.
    #[arg(long)]
    mean_service: Option<f64>,
    /// LLM: vLLM --max-num-seqs.
    #[arg(long)]
    max_num_seqs: Option<u32>,
    /// LLM: vLLM --max-num-batched-tokens.
    #[arg(long)]
    max_num_batched_tokens: Option<u32>,
    /// LLM: chunked prefill on or off.
    #[arg(long)]
    chunked_prefill: Option<bool>,
    /// SLO threshold on TTFT (textbook: on the wait).
    #[arg(long)]
    slo_ttft: Option<f64>,
    /// SLO threshold on TPOT.
    #[arg(long)]
    slo_tpot: Option<f64>,
    /// Measured requests per run.
    #[arg(long)]
    requests: Option<u64>,
    /// Requests discarded before measuring (default: a tenth of --requests, or the preset's).
    #[arg(long)]
    warm_up: Option<u64>,
    /// Random seed; the same seed gives identical results.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn error(message: impl std::fmt::Display) -> i32 {
    eprintln!("goodput-sim: {message}");
    2
}

pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            print!("{e}");
            return 0;
        }
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("bad arguments");
            return error(first.trim_start_matches("error: "));
        }
    };
    match cli.command {
        Command::Run { scenario, output } => {
            let (scenario, seed) = build(&scenario);
            match run(&scenario, seed) {
                Ok(summary) => print_run(&scenario, &summary, &output),
                Err(e) => error(e),
            }
        }
        Command::Sweep {
            scenario,
            from,
            to,
            step,
            output,
        } => {
            let (scenario, seed) = build(&scenario);
            let loads = load_points(from, to, step);
            if loads.is_empty() {
                return error("invalid load range: need finite --from <= --to and --step > 0");
            }
            match sweep(&scenario, &loads, seed) {
                Ok(points) => print_sweep(&points, &output),
                Err(e) => error(e),
            }
        }
        Command::Bench { quick, json } => {
            let size = if quick {
                bench::Size::Quick
            } else {
                bench::Size::Full
            };
            let target = format!("native {}", std::env::consts::ARCH);
            print!("{}", bench::render(&bench::measure(size), &target, json));
            0
        }
        Command::Metrics {
            page,
            slo_ttft_ms,
            slo_tpot_ms,
        } => match metrics::run(&page, slo_ttft_ms, slo_tpot_ms) {
            Ok(report) => {
                print!("{report}");
                0
            }
            Err(message) => error(message),
        },
    }
}

fn build(a: &ScenarioArgs) -> (Scenario, u64) {
    let mut s = match a.preset {
        Preset::Course => Scenario::course_preset(),
        Preset::Distserve => Scenario::distserve_preset(),
        Preset::Textbook => Scenario::textbook_preset(),
    };
    let textbook = matches!(s.service, ServiceKind::Textbook(_));
    match &mut s.service {
        ServiceKind::Textbook(TextbookService {
            servers,
            mean_service,
        }) => {
            *servers = a.servers.unwrap_or(*servers);
            *mean_service = a.mean_service.unwrap_or(*mean_service);
        }
        ServiceKind::Llm(f) => {
            f.replicas = a.servers.unwrap_or(f.replicas);
            f.max_num_seqs = a.max_num_seqs.unwrap_or(f.max_num_seqs);
            f.max_num_batched_tokens = a.max_num_batched_tokens.unwrap_or(f.max_num_batched_tokens);
            f.chunked_prefill = a.chunked_prefill.unwrap_or(f.chunked_prefill);
        }
    }
    s.slo.ttft = a.slo_ttft.unwrap_or(s.slo.ttft);
    s.slo.tpot = a.slo_tpot.unwrap_or(s.slo.tpot);
    if let Some(n) = a.requests {
        s.customers = n;
        s.warm_up = n / 10;
    }
    s.warm_up = a.warm_up.unwrap_or(s.warm_up);
    let load = a.load.unwrap_or(s.offered_load());
    if a.closed || a.users.is_some() {
        let think_time = a.think.unwrap_or(if textbook { 4.0 } else { 5.0 });
        s.arrivals = Arrivals::Closed {
            users: a.users.unwrap_or(1),
            think_time,
        };
        if a.users.is_none() {
            s = s.with_offered_load(load);
        }
    } else {
        s.arrivals = Arrivals::poisson(load);
    }
    (s, a.seed)
}
