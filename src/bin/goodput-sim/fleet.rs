//! `goodput-sim fleet`: a fleet of a scenario's replica through a day of traffic, behind a router, with an
//! autoscaler reading one signal or several (the largest proposal wins).

use super::scenario_args::{preset_parser, read_scenario, whole};
use clap::{Args, ValueEnum};
use goodput::model::fleet::{
    autoscaler, simulate, FleetDay, FleetSpec, Route, Signal, Traffic, Trigger, TTFT_WINDOW,
};
use goodput::model::{Preset, Scenario};
use serde_json::json;

/// `--route`'s values.
#[derive(Clone, Copy, ValueEnum)]
pub enum RouteArg {
    /// Round robin: each ready replica in turn.
    Rr,
    /// Join the shortest queue: the replica with the fewest outstanding requests.
    Jsq,
    /// Power of two choices: the less loaded of two replicas picked at random.
    P2c,
}

/// `--scale-on`'s values.
#[derive(Clone, Copy, ValueEnum)]
pub enum SignalArg {
    /// Share of the interval a replica's batch had work (a GPU-utilisation dashboard); default target 0.8.
    Utilization,
    /// Mean vllm:num_requests_waiting per replica over the interval; default target 5.
    Waiting,
    /// Fleet-wide p99 TTFT of the last 60 s; default target the scenario's TTFT SLO.
    #[value(name = "ttft-p99")]
    TtftP99,
    /// Mean vllm:kv_cache_usage_perc per replica over the interval (0–1); default target 0.8.
    Kv,
    /// Mean vllm:num_requests_running per replica over the interval; default target Little's Law's batch at 80% of
    /// a replica's capacity (below).
    Running,
    /// Mean requests running + waiting per replica over the interval; default target the same batch as running.
    Inflight,
    /// Requests routed per second over the interval, per replica; default target 80% of a replica's saturation
    /// throughput (the sizer's requests/s per replica).
    Rate,
}

impl SignalArg {
    fn signal(self) -> Signal {
        match self {
            SignalArg::Utilization => Signal::Utilization,
            SignalArg::Waiting => Signal::Waiting,
            SignalArg::TtftP99 => Signal::TtftP99,
            SignalArg::Kv => Signal::Kv,
            SignalArg::Running => Signal::Running,
            SignalArg::Inflight => Signal::Inflight,
            SignalArg::Rate => Signal::Rate,
        }
    }
}

/// The flags of `fleet`.
#[derive(Args)]
pub struct FleetArgs {
    /// The replica every member of the fleet is (its replica count is ignored).
    #[arg(long, default_value = "course", value_parser = preset_parser())]
    preset: Preset,
    /// Start from a scenario file in the model's JSON format instead of a preset (- reads standard input).
    #[arg(long, value_name = "FILE", conflicts_with = "preset")]
    scenario: Option<String>,
    /// The offered load over the day: time_s:requests_per_s points, linear in between, constant after the last
    /// (two points at one time make a step). Poisson arrivals at that rate.
    #[arg(long, value_name = "T:R,T:R,…", allow_hyphen_values = true)]
    traffic: Option<String>,
    /// The day's length in seconds: requests arrive until then, and those in flight still finish.
    #[arg(long, allow_negative_numbers = true)]
    seconds: Option<f64>,
    /// The router.
    #[arg(long, value_enum, default_value = "jsq")]
    route: RouteArg,
    /// The signals the autoscaler reads, comma-separated (e.g. waiting,running): each proposes
    /// ceil(current × value ÷ target) replicas (none within 10% of its target) and the largest proposal wins, as the
    /// HPA does with several metrics and KEDA with several triggers; clamped to --min and --max; up at once, at most
    /// max(4, double) per interval; down only to the highest recommendation of the last 300 s.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "waiting",
        value_name = "SIGNAL,…"
    )]
    scale_on: Vec<SignalArg>,
    /// The signals' targets, one per signal in --scale-on's order (default: utilization 0.8, waiting 5 per
    /// replica, ttft-p99 the scenario's TTFT SLO in seconds, kv 0.8; running and inflight Little's Law at the knee
    /// with 80% headroom: L = λW with λ = 0.8 × a replica's saturation throughput and W the time a request holds its
    /// batch slot at that load, E[O] iterations of the batch b solving b = λ·E[O]·t(b), rounded (24 requests per
    /// replica for the course preset, well under 0.8 × its 64 slots because a smaller batch iterates faster); rate
    /// that λ, to 0.1 (21.7 requests/s per replica for the course preset)).
    #[arg(
        long,
        value_delimiter = ',',
        allow_negative_numbers = true,
        value_name = "TARGET,…"
    )]
    target: Vec<f64>,
    /// Fewest replicas; the day starts with this many, ready.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = whole::<u32>)]
    min: u32,
    /// Most replicas.
    #[arg(long, default_value_t = 10, allow_negative_numbers = true, value_parser = whole::<u32>)]
    max: u32,
    /// Seconds from the decision to add a replica until it serves (image pull, weights, CUDA graphs).
    #[arg(long, default_value_t = 120.0, allow_negative_numbers = true)]
    scale_up_delay: f64,
    /// Seconds between two readings of the signal (the HPA's sync period); one series point each.
    #[arg(long, default_value_t = 15.0, allow_negative_numbers = true)]
    interval: f64,
    /// Random seed; the same seed gives identical results.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = whole::<u64>)]
    seed: u64,
    /// Print JSON: {"summary": {slo_attainment (percent), goodput (req/s), ttft_p99, tpot_p99 (s),
    /// replica_seconds, longest_breach_s, scale_events}, "series": [{t, offered_rps, replicas (ready), starting,
    /// waiting, running, utilization (0–1), ttft_p99 (s, last 60 s; null with no first token), goodput, throughput
    /// (req/s), signals (what each --scale-on signal read, in its order; null with no data)}, one per interval]}.
    #[arg(long)]
    json: bool,
}

impl FleetArgs {
    fn spec(&self, scenario: &Scenario) -> Result<FleetSpec, String> {
        let Some(text) = &self.traffic else {
            return Err(
                "--traffic is required: time_s:requests_per_s points, e.g. --traffic 0:5,600:30"
                    .into(),
            );
        };
        let traffic = Traffic::parse(text).map_err(|e| format!("--traffic {e}"))?;
        let Some(seconds) = self.seconds else {
            return Err("--seconds is required: the day's length, e.g. --seconds 1800".into());
        };
        let signals: Vec<Signal> = self.scale_on.iter().map(|s| s.signal()).collect();
        let keys = || {
            signals
                .iter()
                .map(|s| s.key())
                .collect::<Vec<_>>()
                .join(",")
        };
        if !self.target.is_empty() && self.target.len() != signals.len() {
            return Err(format!(
                "--target lists {} for {} (--scale-on {}): give one target per signal, in the same order",
                count(self.target.len(), "value"),
                count(signals.len(), "signal"),
                keys()
            ));
        }
        let triggers = signals
            .iter()
            .enumerate()
            .map(|(i, &signal)| Trigger {
                signal,
                target: self
                    .target
                    .get(i)
                    .copied()
                    .unwrap_or_else(|| signal.default_target(scenario)),
            })
            .collect();
        Ok(FleetSpec {
            traffic,
            seconds,
            route: match self.route {
                RouteArg::Rr => Route::RoundRobin,
                RouteArg::Jsq => Route::ShortestQueue,
                RouteArg::P2c => Route::TwoChoices,
            },
            triggers,
            min: self.min,
            max: self.max,
            start_up_delay: self.scale_up_delay,
            interval: self.interval,
            stabilization: autoscaler::SCALE_DOWN_STABILIZATION,
            seed: self.seed,
        })
    }
}

/// "1 value", "2 signals".
fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// The flag a spec field comes from.
fn flag(field: &str) -> &str {
    match field {
        "start_up_delay" => "--scale-up-delay",
        "signal" => "--scale-on",
        "scenario" => "--preset or --scenario",
        "seconds" => "--seconds",
        "traffic" => "--traffic",
        "target" => "--target",
        "min" => "--min",
        "max" => "--max",
        "interval" => "--interval",
        _ => field,
    }
}

/// Runs the day and prints it.
pub fn run(args: &FleetArgs) -> Result<(), String> {
    let scenario = match &args.scenario {
        Some(source) => read_scenario(source)?,
        None => args.preset.scenario(),
    };
    let spec = args.spec(&scenario)?;
    spec.validate(&scenario)
        .map_err(|(field, problem)| format!("{} {problem}", flag(&field)))?;
    let day = simulate(&scenario, &spec).map_err(|e| format!("{}: {}", e.field, e.problem))?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!(day)).expect("a day serialises")
        );
    } else {
        print!("{}", table(&day, &spec));
    }
    Ok(())
}

/// Most series rows the table prints.
const TABLE_ROWS: usize = 40;

/// The summary, then a compact series (every k-th interval, so at most [`TABLE_ROWS`] rows).
fn table(day: &FleetDay, spec: &FleetSpec) -> String {
    let s = &day.summary;
    let triggers: Vec<String> = spec
        .triggers
        .iter()
        .map(|t| format!("{} (target {})", t.signal.key(), t.target))
        .collect();
    let mut out = format!(
        "fleet: {} route, scaling on {}, {}–{} replicas, {} s start-up, every {} s\n",
        spec.route.key(),
        triggers.join(" and "),
        spec.min,
        spec.max,
        spec.start_up_delay,
        spec.interval
    );
    for (name, value) in [
        ("slo_attainment", format!("{:.2}%", s.slo_attainment)),
        ("goodput", format!("{:.3} req/s", s.goodput)),
        ("ttft_p99", format!("{:.3} s", s.ttft_p99)),
        ("tpot_p99", format!("{:.4} s", s.tpot_p99)),
        ("replica_seconds", format!("{:.0}", s.replica_seconds)),
        ("longest_breach_s", format!("{:.0}", s.longest_breach_s)),
        ("scale_events", s.scale_events.to_string()),
    ] {
        out += &format!("{name:<17} {value}\n");
    }
    let every = day.series.len().div_ceil(TABLE_ROWS).max(1);
    out +=
        &format!(
        "\nseries (every {}; ttft_p99 over the last {TTFT_WINDOW} s; --json has every interval)\n",
        if every == 1 { "interval".to_owned() } else { format!("{every} intervals") }
    );
    out += &format!(
        "{:>7} {:>9} {:>8} {:>8} {:>8} {:>8} {:>6} {:>9} {:>8}  {}\n",
        "t_s",
        "offered",
        "replicas",
        "starting",
        "waiting",
        "running",
        "util",
        "ttft_p99",
        "goodput",
        if spec.triggers.len() == 1 {
            "signal"
        } else {
            "signals"
        }
    );
    for p in day.series.iter().skip(every - 1).step_by(every) {
        let opt =
            |x: Option<f64>, digits: usize| x.map_or("-".to_owned(), |x| format!("{x:.digits$}"));
        let read: Vec<String> = p.signals.iter().map(|&x| opt(x, 3)).collect();
        out += &format!(
            "{:>7.0} {:>9.2} {:>8} {:>8} {:>8.2} {:>8.2} {:>6.2} {:>9} {:>8.2}  {}\n",
            p.t,
            p.offered_rps,
            p.replicas,
            p.starting,
            p.waiting,
            p.running,
            p.utilization,
            opt(p.ttft_p99, 3),
            p.goodput,
            read.join(" ")
        );
    }
    out
}
