//! `goodput-sim`: the queue model from the command line, for slides, benchmarks and outside checks.
//!
//! ```text
//! goodput-sim run --preset textbook --servers 4 --load 0.95 --requests 1000000 --seed 7 --json
//! goodput-sim run --preset textbook --servers 4 --users 16 --think 4 --json
//! goodput-sim run --preset course --load 0.97 --closed --json
//! goodput-sim sweep --preset course --from 0.85 --to 1.0 --step 0.01 --csv
//! goodput-sim bench
//! goodput-sim metrics tests/fixtures/metrics/healthy.prom
//! curl -s localhost:8000/metrics | goodput-sim metrics -
//! goodput-sim metrics --json earlier.prom later.prom
//! ```

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::main());
}

/// Under WASI the binary runs the benchmark (used to compare wasm against native); in the browser build it is inert.
#[cfg(target_arch = "wasm32")]
fn main() {
    #[cfg(target_os = "wasi")]
    print!(
        "{}",
        bench::report(&bench::measure(bench::Size::Full), "wasm32-wasip1")
    );
}

#[cfg(any(not(target_arch = "wasm32"), target_os = "wasi"))]
mod bench {
    //! Throughput of the simulator, for BENCHMARKS.md.

    use goodput::cluster::{exposition::synthetic_page, metrics::parse, vllm::find_signals};
    use goodput::model::{
        default_load_points, run, sweep, Arrivals, Scenario, ServiceKind, TextbookService,
    };
    use std::time::Instant;

    /// How much work to time.
    #[derive(Clone, Copy)]
    pub enum Size {
        /// The BENCHMARKS.md figures.
        Full,
        /// A quick smoke run.
        #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
        Quick,
    }

    /// One measured line.
    pub struct Line {
        pub what: String,
        pub work: String,
        pub seconds: f64,
        pub rate: String,
    }

    /// CPU time this thread has run, in seconds, where Linux exposes it (`/proc/thread-self/schedstat`, in ns).
    /// Other engineers compile on the same machine, so CPU time is a fairer measure than the wall clock.
    fn cpu_seconds() -> Option<f64> {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        Some(text.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
    }

    /// Runs `f` and returns its result with the seconds it took: CPU time when available, else wall clock.
    /// One bench row: a whole run of `scenario` (warm-up included), as millions of `unit` per second.
    fn time_run(what: &str, scenario: &Scenario, unit: &str) -> Line {
        let n = scenario.customers + scenario.warm_up;
        let (_, secs) = timed(|| run(scenario, 7));
        Line {
            what: what.to_string(),
            work: format!("{n} {unit}"),
            seconds: secs,
            rate: format!("{:.2} M {unit}/s", n as f64 / secs / 1e6),
        }
    }

    fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
        let (start, cpu_start) = (Instant::now(), cpu_seconds());
        let out = f();
        let wall = start.elapsed().as_secs_f64();
        let secs = match (cpu_start, cpu_seconds()) {
            (Some(a), Some(b)) if b > a => b - a,
            _ => wall,
        };
        (out, secs)
    }

    fn textbook(servers: u32, arrivals: Arrivals, customers: u64) -> Scenario {
        let mut s = Scenario::textbook_preset();
        s.service = ServiceKind::Textbook(TextbookService {
            servers,
            mean_service: 1.0,
        });
        s.arrivals = arrivals;
        s.customers = customers;
        s.warm_up = 0;
        s
    }

    /// Runs every benchmark once (after a short warm-up run).
    pub fn measure(size: Size) -> Vec<Line> {
        let scale = match size {
            Size::Full => 1,
            Size::Quick => 20,
        };
        let mut lines = Vec::new();
        let mmc = [
            (
                "M/M/1 open, ρ = 0.9",
                textbook(1, Arrivals::Open { offered_load: 0.9 }, 10_000_000 / scale),
            ),
            (
                "M/M/4 open, ρ = 0.9",
                textbook(4, Arrivals::Open { offered_load: 0.9 }, 10_000_000 / scale),
            ),
            (
                "M/M/4 closed, N = 16, Z = 4",
                textbook(
                    4,
                    Arrivals::Closed {
                        users: 16,
                        think_time: 4.0,
                    },
                    5_000_000 / scale,
                ),
            ),
        ];
        let _ = run(&mmc[1].1.clone().with_offered_load(0.5), 1);
        for (what, s) in mmc {
            lines.push(time_run(what, &s, "customers"));
        }
        for (what, mut s) in [
            (
                "LLM course preset, open, ρ = 0.9",
                Scenario::course_preset(),
            ),
            (
                "LLM course preset, closed, ρ = 0.9",
                Scenario::course_closed_preset(),
            ),
            (
                "LLM DistServe preset, open, ρ = 0.9",
                Scenario::distserve_preset(),
            ),
        ] {
            s.customers = 1_000_000 / scale;
            s.warm_up = s.customers / 10;
            lines.push(time_run(what, &s, "requests"));
        }
        let loads = default_load_points();
        for (what, s) in [
            (
                "default sweep, course preset (85%..100%, 16 points)",
                Scenario::course_preset(),
            ),
            (
                "default sweep, textbook preset (85%..100%, 16 points)",
                Scenario::textbook_preset(),
            ),
        ] {
            let n = (s.customers + s.warm_up) * loads.len() as u64;
            let (_, secs) = timed(|| sweep(&s, &loads, 7));
            lines.push(Line {
                what: what.to_string(),
                work: format!("{n} requests"),
                seconds: secs,
                rate: format!("{:.0} ms per sweep", secs * 1e3),
            });
        }
        lines.push(time_metrics_page());
        lines
    }

    /// The metrics reader's claim: parsing a 1 MB `/metrics` page and finding its signals takes well under 100 ms.
    /// Best of five, since one parse is short enough for a scheduler hiccup to dominate.
    fn time_metrics_page() -> Line {
        let page = synthetic_page(1024 * 1024);
        let mut best = f64::INFINITY;
        let mut label_sets = 0;
        for _ in 0..5 {
            let (found, secs) = timed(|| parse(&page).map(|parsed| find_signals(&parsed).len()));
            label_sets = found.unwrap_or(0);
            best = best.min(secs);
        }
        Line {
            what: "parse + find_signals, 1 MB vLLM /metrics page (best of 5)".to_string(),
            work: format!("{} bytes, {label_sets} label sets", page.len()),
            seconds: best,
            rate: format!("{:.1} ms per page", best * 1e3),
        }
    }

    /// The measurements as a markdown table with the run conditions.
    pub fn report(lines: &[Line], target: &str) -> String {
        let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
        let clock = if cpu_seconds().is_some() {
            "thread CPU time"
        } else {
            "wall clock"
        };
        let mut out = format!(
            "Target: {target}; {cores} hardware threads visible; single-threaded; timed by {clock}; date {}.\n\n",
            today()
        );
        out.push_str("| benchmark | work | time (s) | rate |\n|---|---|---:|---:|\n");
        for l in lines {
            out.push_str(&format!(
                "| {} | {} | {:.3} | {} |\n",
                l.what, l.work, l.seconds, l.rate
            ));
        }
        out
    }

    /// Today's UTC date as YYYY-MM-DD (days-to-civil conversion, no calendar crate needed).
    fn today() -> String {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()) as i64;
        let z = secs.div_euclid(86_400) + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + i64::from(m <= 2);
        format!("{y:04}-{m:02}-{d:02}")
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use super::bench;
    use clap::{Args, Parser, Subcommand, ValueEnum};
    use goodput::cluster::report::{self, Options};
    use goodput::model::{
        exact_reference, load_points, run, sweep, Arrivals, LatencyStats, RunSummary, Scenario,
        ServiceKind, SweepPoint, TextbookService,
    };

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
        /// markdown table for BENCHMARKS.md.
        Bench {
            /// Time a twentieth of the work, for a smoke test.
            #[arg(long)]
            quick: bool,
        },
        /// Read a vLLM /metrics page (Prometheus text), or two scrapes of the same server, and print per model and
        /// label set: TTFT, TPOT (per request) and ITL (per engine step) p50/p95/p99 estimated from the histogram
        /// buckets, requests running and waiting, KV-cache usage, preemptions, and the knee verdict against the SLOs.
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
            /// window_seconds_from (flag, timestamps, file_times or unknown; null for one page), slo
            /// (ttft_p99, tpot_p95, seconds), gone (label sets only on the earlier page) and label_sets, one
            /// object per label set with: labels (name → value); span (since_start, window or
            /// since_restart, with restart saying why); requests (in the window, or since the start) and
            /// seconds (the window's length; null for one page or when unknown); ttft, tpot, itl, queue and e2e, each with metric (the
            /// name it came from), count, p50, p95, p99 in seconds (all null when the page lacks the
            /// histogram; a percentile null when there are no observations) and lower_bounds (percentiles that fell
            /// in the +Inf bucket, given as the last finite bound); running, waiting; kv_cache_usage (0–1) and
            /// kv_cache_metric; preemptions (over the span); verdict (below_the_knee, at_the_knee,
            /// past_the_knee or not_enough_data) and reasons.
            #[arg(long)]
            json: bool,
            /// Seconds between the two scrapes (default: from the samples' timestamps when both pages carry them,
            /// else from the two files' modification times, else unknown).
            #[arg(long, allow_negative_numbers = true)]
            seconds: Option<f64>,
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

    #[derive(Args)]
    struct OutputArgs {
        /// Print JSON.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// Print CSV.
        #[arg(long)]
        csv: bool,
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
            Command::Bench { quick } => {
                let size = if quick {
                    bench::Size::Quick
                } else {
                    bench::Size::Full
                };
                print!(
                    "{}",
                    bench::report(
                        &bench::measure(size),
                        &format!("native {}", std::env::consts::ARCH)
                    )
                );
                0
            }
            Command::Metrics {
                page,
                later_page,
                json,
                seconds,
                slo_ttft_ms,
                slo_tpot_ms,
            } => match Options::new(slo_ttft_ms, slo_tpot_ms, seconds, json)
                .and_then(|options| report::run(&page, later_page.as_deref(), &options))
            {
                Ok(report) => {
                    println!("{}", report.trim_end());
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
                f.max_num_batched_tokens =
                    a.max_num_batched_tokens.unwrap_or(f.max_num_batched_tokens);
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
            s.arrivals = Arrivals::Open { offered_load: load };
        }
        (s, a.seed)
    }

    /// Rows of named cells shared by the table and CSV renderers.
    fn columns(s: &RunSummary) -> Vec<(&'static str, String)> {
        let f = |x: f64| format!("{x:.6}");
        let mut c = vec![("offered_load", format!("{:.4}", s.offered_load))];
        if let Some(u) = s.users {
            c.push(("users", u.to_string()));
        }
        c.push(("stable", s.steady.is_some().to_string()));
        let st = s.steady.as_ref();
        let opt = |v: Option<f64>| v.map_or(String::new(), f);
        c.push(("throughput", opt(st.map(|x| x.throughput))));
        c.push(("arrival_rate", opt(st.map(|x| x.effective_arrival_rate))));
        let llm = s.service == "llm";
        if llm {
            c.push((
                "output_tokens_per_second",
                opt(st.and_then(|x| x.output_tokens_per_second)),
            ));
            c.push(("goodput", opt(st.map(|x| x.goodput))));
            c.push(("slo_attainment_percent", opt(st.map(|x| x.slo_attainment))));
        }
        let metrics: [(&str, Option<LatencyStats>); 3] = if llm {
            [
                ("ttft", st.and_then(|x| x.ttft)),
                ("tpot", st.and_then(|x| x.tpot)),
                ("e2e", st.and_then(|x| x.e2e)),
            ]
        } else {
            [
                ("wait", st.and_then(|x| x.wait)),
                ("sojourn", st.and_then(|x| x.sojourn)),
                ("", None),
            ]
        };
        const NAMES: [[&str; 4]; 3] = [
            ["ttft_mean", "ttft_p50", "ttft_p95", "ttft_p99"],
            ["tpot_mean", "tpot_p50", "tpot_p95", "tpot_p99"],
            ["e2e_mean", "e2e_p50", "e2e_p95", "e2e_p99"],
        ];
        const TEXTBOOK: [[&str; 4]; 2] = [
            ["wait_mean", "wait_p50", "wait_p95", "wait_p99"],
            ["sojourn_mean", "sojourn_p50", "sojourn_p95", "sojourn_p99"],
        ];
        for (i, (name, m)) in metrics.iter().enumerate() {
            if name.is_empty() {
                continue;
            }
            let names = if llm { NAMES[i] } else { TEXTBOOK[i] };
            let vals = [
                m.map(|x| x.mean),
                m.map(|x| x.p50),
                m.map(|x| x.p95),
                m.map(|x| x.p99),
            ];
            for (n, v) in names.iter().zip(vals) {
                c.push((n, opt(v)));
            }
        }
        c.push(("running_mean", opt(st.map(|x| x.running_mean))));
        c.push(("waiting_mean", opt(st.map(|x| x.waiting_mean))));
        c.push(("in_system_mean", opt(st.map(|x| x.in_system_mean))));
        c.push((
            "little_relative_error",
            opt(st.map(|x| x.little.relative_error)),
        ));
        let growth = match s.stability {
            goodput::model::Stability::Unstable {
                waiting_growth_rate,
                ..
            } => f(waiting_growth_rate),
            goodput::model::Stability::Stable => String::new(),
        };
        c.push(("queue_growth_rate", growth));
        c
    }

    fn render(rows: &[Vec<(&'static str, String)>], csv: bool) -> String {
        let Some(first) = rows.first() else {
            return String::new();
        };
        let headers: Vec<&str> = first.iter().map(|(h, _)| *h).collect();
        if csv {
            let mut out = headers.join(",") + "\n";
            for r in rows {
                out += &(r
                    .iter()
                    .map(|(_, v)| v.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
                    + "\n");
            }
            return out;
        }
        let widths: Vec<usize> = headers
            .iter()
            .enumerate()
            .map(|(i, h)| {
                rows.iter()
                    .map(|r| r[i].1.len())
                    .max()
                    .unwrap_or(0)
                    .max(h.len())
            })
            .collect();
        let line = |cells: Vec<&str>| {
            cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:>w$}"))
                .collect::<Vec<_>>()
                .join("  ")
                + "\n"
        };
        let mut out = line(headers.clone());
        for r in rows {
            out += &line(r.iter().map(|(_, v)| v.as_str()).collect());
        }
        out
    }

    fn print_run(scenario: &Scenario, summary: &RunSummary, output: &OutputArgs) -> i32 {
        if output.json {
            let mut v = serde_json::to_value(summary).expect("summaries serialise");
            if let (Some(e), Some(map)) = (exact_reference(scenario), v.as_object_mut()) {
                map.insert(
                    "exact".into(),
                    serde_json::to_value(e).expect("references serialise"),
                );
            }
            println!("{v}");
        } else if output.csv {
            print!("{}", render(&[columns(summary)], true));
        } else {
            for (k, v) in columns(summary) {
                println!("{k:>26}  {v}");
            }
        }
        0
    }

    fn print_sweep(points: &[SweepPoint], output: &OutputArgs) -> i32 {
        if output.json {
            println!(
                "{}",
                serde_json::to_string(points).expect("sweeps serialise")
            );
        } else {
            let rows: Vec<_> = points.iter().map(|p| columns(&p.summary)).collect();
            print!("{}", render(&rows, output.csv));
        }
        0
    }
}
