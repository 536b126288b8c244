//! The flags and the subcommands.

use super::bench;
use super::calibrate::{self, CalibrateArgs};
use super::finite::{self, FiniteArgs};
use super::fleet::{self, FleetArgs};
use super::output::{print_run, print_sweep, OutputArgs};
use super::scenario_args::{whole, ScenarioArgs};
use clap::{Args, Parser, Subcommand};
use goodput::cluster::report::{self, Options};
use goodput::model::{
    load_points, measured_saturation_throughput, run, sweep, Slo, MAX_OFFERED_LOAD,
    MAX_SWEEP_POINTS,
};
use goodput::printable;
use goodput_calibrate::readable;

/// Simulate the goodput course's queue model: textbook M/M/c or LLM replicas with continuous batching, open or
/// closed loop. Prints a table by default, CSV or JSON on request. Times are seconds in the LLM presets and time
/// units (mean service 1 unless --mean-service) in the textbook preset.
///
/// Memory: under 2 GB for any input within the limits each command states (run --trace: 512 MB and 10 000 000
/// requests; calibrate: 32 files of 64 MB, 128 MB in all, 1 000 000 requests; run --rate: 10 000 000 requests);
/// the largest measured is 1.3 GB (BENCHMARKS.md, "Round two (issue 42)"). Inputs past a limit, or whose simulations would pass the work budget
/// (about a minute and a half), are refused at once in one line naming the input.
#[derive(Parser)]
#[command(name = "goodput-sim", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate one scenario and report its latencies, throughput, goodput, KV cache and checks: a steady state
    /// (measured requests after a warm-up, at an offered load below 1), or with --rate or --trace a finite run
    /// like `vllm bench serve` (N requests to an empty fleet, until the last finishes, at any rate).
    Run {
        #[command(flatten)]
        scenario: ScenarioArgs,
        #[command(flatten)]
        finite: FiniteArgs,
        #[command(flatten)]
        seed: SeedArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Simulate a range of offered loads with common random numbers (one seed for every point).
    Sweep {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// First offered load of the sweep.
        #[arg(long, default_value_t = 0.85, allow_negative_numbers = true)]
        from: f64,
        /// Last offered load of the sweep (included).
        #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
        to: f64,
        /// Step between offered loads (a sweep has at most 10 001 points: larger ranges are refused).
        #[arg(long, default_value_t = 0.01, allow_negative_numbers = true)]
        step: f64,
        #[command(flatten)]
        seed: SeedArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Print a scenario in the model's JSON format — a preset, or a scenario file, changed by the other flags — to
    /// edit and hand to `run` or `sweep` with --scenario.
    Scenario {
        #[command(flatten)]
        scenario: ScenarioArgs,
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
    /// Read a vLLM /metrics page (Prometheus text), or two scrapes of the same server, and print per model and
    /// label set: TTFT, TPOT (per request) and ITL (per engine step) p50/p95/p99 estimated from the histogram
    /// buckets, requests running and waiting, KV-cache usage, preemptions, requests turned away
    /// (vllm:admission_rejections_total by reason, else http_requests_total's 5xx answers) and their share of the
    /// arrivals, and the knee verdict against the SLOs. A server that turns requests away is past its knee, however
    /// short its queue and fast its admitted requests: its queue is held at a cap.
    ///
    /// One page counts everything since the server started. With a LATER_PAGE the figures are the window
    /// between the two scrapes (the bucket and counter differences, as Prometheus's rate() takes them): the
    /// present. A counter that fell between them means the server restarted, and the report says so.
    ///
    /// Both current metric names (vLLM 0.13: vllm:request_time_per_output_token_seconds,
    /// vllm:inter_token_latency_seconds, vllm:kv_cache_usage_perc) and older ones
    /// (vllm:time_per_output_token_seconds, vllm:gpu_cache_usage_perc) are read; each figure names the metric it
    /// came from. Exits 2 with one line naming the page (and the line at fault) when a page does not parse, and
    /// when it has no vLLM metrics.
    Metrics {
        /// The page: a file, or - for standard input (at most 5 MB).
        #[arg(default_value = "-")]
        page: String,
        /// A later scrape of the same server: report the window between the two pages.
        later_page: Option<String>,
        /// Print one JSON object instead of text: pages (the inputs), window_seconds and
        /// window_seconds_from (flag, timestamps or unknown; null for one page), slo
        /// (ttft_p99, tpot_p95, seconds), gone (label sets only on the earlier page) and label_sets, one
        /// object per label set with: labels (name → value); span (since_start, window or
        /// since_restart, with restart saying why); requests (in the window, or since the start) and
        /// seconds (the window's length; null for one page or when unknown); ttft, tpot, itl, queue and e2e, each with metric (the
        /// name it came from), count, p50, p95, p99 in seconds (all null when the page lacks the
        /// histogram; a percentile null when there are no observations) and lower_bounds (percentiles that fell
        /// in the +Inf bucket, given as the last finite bound); running, waiting; kv_cache_usage (0–1) and
        /// kv_cache_metric; preemptions (over the span); rejections (null when the page counts none:
        /// metric, count over the span, share_of_arrivals, by_reason, http_5xx, and the scope and
        /// label_sets the counter covers); waiting_by_reason and prefix_cache_hit_rate (null when absent);
        /// verdict (below_the_knee, at_the_knee, past_the_knee or not_enough_data) and reasons.
        #[arg(long)]
        json: bool,
        /// Seconds between the two scrapes (default: from the samples' timestamps when both pages carry them, else
        /// unknown: a file's modification time says when it was copied, not when it was scraped).
        #[arg(long, allow_negative_numbers = true)]
        seconds: Option<f64>,
        /// SLO on p99 time to first token, in milliseconds.
        #[arg(long, default_value_t = Slo::default().ttft * 1000.0, allow_negative_numbers = true)]
        slo_ttft_ms: f64,
        /// SLO on p95 time per output token, in milliseconds.
        #[arg(long, default_value_t = Slo::default().tpot * 1000.0, allow_negative_numbers = true)]
        slo_tpot_ms: f64,
    },
    /// Fit the model to your server: print a scenario file (for run --scenario, sweep --scenario, or the page's
    /// "Your server") fitted by least squares to vllm bench serve results, a request trace with token times, or two
    /// /metrics scrapes, and on standard error a report: each coefficient with where it came from and its
    /// uncertainty, every input figure measured against the fit and against the model's repeat of the same
    /// experiment, what the inputs could not determine, and the flags assumed. Calibrate from light loads (well
    /// below the knee) and read the knee off the model. Takes at most 32 files of at most 64 MB, 128 MB in all, 32 runs
    /// and 1 000 000 requests one by one, and refuses inputs whose simulations would pass the work budget (about a minute and a half). Exits 2 with one
    /// line naming the file at fault.
    Calibrate(CalibrateArgs),
    /// Simulate a fleet of the scenario's replica through a day: traffic that ramps and spikes (--traffic, Poisson
    /// at a piecewise-linear rate), a router (--route), and an autoscaler that reads one signal every --interval
    /// seconds and sets the replica count by the Kubernetes HPA rule, with a start-up delay before a new replica
    /// serves, a 300 s scale-down stabilisation window, and draining on scale-down. Prints the day's summary and a
    /// compact series, or --json.
    Fleet(FleetArgs),
}

/// The random seed of a run.
#[derive(Args)]
struct SeedArgs {
    /// Random seed; the same seed gives identical results.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = whole::<u64>)]
    seed: u64,
}

/// Longest error line printed: a message quotes content only as a short excerpt, and this catches any that would
/// not (a whole file echoed by a parser's message).
const MAX_MESSAGE_CHARS: usize = 600;

/// Prints the one-line error: control characters from an input escaped, cut at [`MAX_MESSAGE_CHARS`].
fn error(message: impl std::fmt::Display) -> i32 {
    eprintln!(
        "goodput-sim: {}",
        printable::excerpt(&message.to_string(), MAX_MESSAGE_CHARS)
    );
    2
}

pub fn main() -> i32 {
    end_quietly_on_a_closed_pipe();
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
    match execute(cli.command) {
        Ok(()) => 0,
        Err(message) => error(message),
    }
}

/// `goodput-sim … | head`: when the reader stops reading, the next write gets SIGPIPE, and the program ends as
/// other command-line tools do, silently. (Rust ignores SIGPIPE, so a write would fail and `println!` panic.)
fn end_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring a signal's default action before any thread starts, as the C runtime leaves it.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The loads of a sweep, or why the range is refused: every load an offered load the model takes, and no more
/// points than a sweep runs (refused up front rather than cut short).
fn sweep_loads(from: f64, to: f64, step: f64) -> Result<Vec<f64>, String> {
    if !(from.is_finite() && from > 0.0) {
        return Err(format!(
            "--from must be an offered load above 0 (got {})",
            readable(from)
        ));
    }
    if !(to.is_finite() && to >= from && to <= MAX_OFFERED_LOAD) {
        return Err(format!(
            "--to must be an offered load from --from ({}) to {MAX_OFFERED_LOAD} (got {})",
            readable(from),
            readable(to)
        ));
    }
    if !(step.is_finite() && step > 0.0) {
        return Err(format!(
            "--step must be a number above 0 (got {})",
            readable(step)
        ));
    }
    let points = ((to - from) / step).floor() + 1.0;
    if points > MAX_SWEEP_POINTS as f64 {
        return Err(format!(
            "--from {} --to {} --step {} makes {points:.0} points; a sweep runs at most \
             {MAX_SWEEP_POINTS} (take a larger --step)",
            readable(from),
            readable(to),
            readable(step)
        ));
    }
    Ok(load_points(from, to, step))
}

/// Runs one subcommand; an error is the one line to print.
fn execute(command: Command) -> Result<(), String> {
    match command {
        Command::Run {
            scenario,
            finite,
            seed,
            output,
        } => {
            if finite.wanted() {
                return finite::run(&finite, &scenario, seed.seed, &output);
            }
            let args = scenario;
            let scenario = args.scenario()?;
            let summary = run(&scenario, seed.seed).map_err(|e| args.explain(&e))?;
            // The capacity the simulated fleet really has (its KV cache included), to check "stable" against.
            let measured = (summary.is_llm() && scenario.is_open())
                .then(|| measured_saturation_throughput(&scenario, seed.seed).ok())
                .flatten();
            print_run(&scenario, &summary, measured, &output);
        }
        Command::Sweep {
            scenario,
            from,
            to,
            step,
            seed,
            output,
        } => {
            let args = scenario;
            let scenario = args.scenario()?;
            let loads = sweep_loads(from, to, step)?;
            let points = sweep(&scenario, &loads, seed.seed).map_err(|e| args.explain(&e))?;
            print_sweep(&points, &output);
        }
        Command::Scenario { scenario } => {
            let scenario = scenario.scenario()?;
            println!(
                "{}",
                serde_json::to_string_pretty(&scenario).expect("scenarios serialise")
            );
        }
        Command::Bench { quick, json } => {
            let size = if quick {
                bench::Size::Quick
            } else {
                bench::Size::Full
            };
            let target = format!("native {}", std::env::consts::ARCH);
            print!("{}", bench::render(&bench::measure(size), &target, json));
        }
        Command::Metrics {
            page,
            later_page,
            json,
            seconds,
            slo_ttft_ms,
            slo_tpot_ms,
        } => {
            let options = Options::new(slo_ttft_ms, slo_tpot_ms, seconds, json)?;
            let report = report::run(&page, later_page.as_deref(), &options)?;
            // Label values and names come from the server: nothing in them may act on the terminal.
            println!("{}", printable::for_terminal(report.trim_end()));
        }
        Command::Calibrate(args) => calibrate::run(&args)?,
        Command::Fleet(args) => fleet::run(&args)?,
    }
    Ok(())
}
