//! A fleet through a day: replicas of a scenario's LLM replica behind a router, under traffic that ramps and spikes,
//! with an autoscaler that reads one signal every scrape.
//!
//! - **Replicas** are the replica model itself ([`ReplicaStepper`]): each has its own queue and scheduler, and the
//!   router hands it requests one at a time.
//! - **Traffic** ([`Traffic`]) is a piecewise-linear rate, Poisson within it.
//! - **The router** ([`Route`]) picks a ready replica for each request: round robin, the one with the fewest
//!   outstanding requests (join the shortest queue), or the better of two picked at random (power of two choices).
//! - **The autoscaler** ([`autoscaler::Hpa`]) reads its [`Signal`] every `interval` seconds and sets the replica
//!   count by the Kubernetes HPA rule. A new replica serves only after its start-up delay (pulling the image,
//!   loading the weights, capturing CUDA graphs); a replica scaled away stops taking requests and drains what it
//!   holds.
//!
//! Pure Rust, no web types, deterministic given a seed.
//!
//! ```
//! use goodput_model::fleet::{simulate, FleetSpec, Route, Signal, Traffic};
//! use goodput_model::Scenario;
//! let spec = FleetSpec {
//!     traffic: Traffic::parse("0:10,120:40").unwrap(),
//!     seconds: 240.0,
//!     ..FleetSpec::new(Signal::Waiting, &Scenario::course_preset())
//! };
//! let day = simulate(&Scenario::course_preset(), &spec).unwrap();
//! assert_eq!(day.series.len(), 16);
//! assert!(day.series.last().unwrap().replicas + day.series.last().unwrap().starting >= 2);
//! ```
//!
//! [`ReplicaStepper`]: crate::sim::llm::stepper::ReplicaStepper

pub mod autoscaler;
mod run;
pub mod traffic;

pub use run::simulate;
pub use traffic::{Shape, Traffic, TrafficPoint};

use super::budget;
use super::scenario::{Scenario, ServiceKind};
use serde::{Deserialize, Serialize};

/// How the router picks a replica for a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Route {
    /// Each ready replica in turn, blind to its load (`rr`).
    RoundRobin,
    /// The ready replica with the fewest outstanding requests, ties at random (`jsq`).
    ShortestQueue,
    /// Two ready replicas at random, the one with fewer outstanding requests (`p2c`).
    TwoChoices,
}

impl Route {
    /// Every route, in `--route`'s order.
    pub const ALL: [Route; 3] = [Route::RoundRobin, Route::ShortestQueue, Route::TwoChoices];

    /// The command line's word.
    pub fn key(self) -> &'static str {
        match self {
            Route::RoundRobin => "rr",
            Route::ShortestQueue => "jsq",
            Route::TwoChoices => "p2c",
        }
    }

    /// A short label.
    pub fn label(self) -> &'static str {
        match self {
            Route::RoundRobin => "round robin",
            Route::ShortestQueue => "join the shortest queue",
            Route::TwoChoices => "power of two choices",
        }
    }
}

/// What the autoscaler reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Signal {
    /// The share of the interval a replica's batch had work: what a GPU-utilisation dashboard shows (NVML's "percent
    /// of time during which one or more kernels was executing").
    Utilization,
    /// `vllm:num_requests_waiting`, averaged over the interval, per replica.
    Waiting,
    /// p99 TTFT of the first tokens in the last [`TTFT_WINDOW`] seconds, fleet-wide (a `histogram_quantile` over
    /// `rate(vllm:time_to_first_token_seconds_bucket[1m])`).
    TtftP99,
    /// `vllm:kv_cache_usage_perc`, averaged over the interval, per replica.
    Kv,
    /// `vllm:num_requests_running`, averaged over the interval, per replica: the batch, which grows with the load
    /// below the knee and stops at `--max-num-seqs` past it.
    Running,
    /// Requests running plus waiting, averaged over the interval, per replica: Little's Law's `L`, which keeps
    /// growing past the knee as the queue does.
    Inflight,
    /// Requests routed to the fleet per second over the interval, per replica (a gateway's request counter as a
    /// `rate()`): Little's Law's `λ`, in proportion to the load, past the knee too.
    Rate,
}

/// The window of the TTFT p99 signal, seconds.
pub const TTFT_WINDOW: f64 = 60.0;

/// The share of a replica's capacity the default targets of `running` and `inflight` aim at (Little's Law sizing's
/// 80% headroom).
pub const HEADROOM: f64 = 0.8;

impl Signal {
    /// Every signal, in `--scale-on`'s order.
    pub const ALL: [Signal; 7] = [
        Signal::Utilization,
        Signal::Waiting,
        Signal::TtftP99,
        Signal::Kv,
        Signal::Running,
        Signal::Inflight,
        Signal::Rate,
    ];

    /// The command line's word.
    pub fn key(self) -> &'static str {
        match self {
            Signal::Utilization => "utilization",
            Signal::Waiting => "waiting",
            Signal::TtftP99 => "ttft-p99",
            Signal::Kv => "kv",
            Signal::Running => "running",
            Signal::Inflight => "inflight",
            Signal::Rate => "rate",
        }
    }

    /// A short label.
    pub fn label(self) -> &'static str {
        match self {
            Signal::Utilization => "GPU utilisation",
            Signal::Waiting => "requests waiting",
            Signal::TtftP99 => "TTFT p99",
            Signal::Kv => "KV-cache usage",
            Signal::Running => "requests running",
            Signal::Inflight => "requests in flight",
            Signal::Rate => "request rate",
        }
    }

    /// The default target for `scenario`'s replica: 80% busy; 5 waiting per replica (vLLM production-stack's KEDA
    /// example); the TTFT SLO; 80% of the KV cache; Little's Law at [`HEADROOM`] of a replica's capacity for the
    /// rest: for requests running and in flight `L`, the batch it holds there ([`LlmFleet::batch_at`], rounded to
    /// a whole request), and for the request rate `λ`, that share of its saturation throughput (the sizer's
    /// requests/s per replica).
    ///
    /// [`LlmFleet::batch_at`]: crate::scenario::LlmFleet::batch_at
    pub fn default_target(self, scenario: &Scenario) -> f64 {
        match self {
            Signal::Utilization | Signal::Kv => 0.8,
            Signal::Waiting => 5.0,
            Signal::TtftP99 => scenario.slo.ttft,
            Signal::Running | Signal::Inflight => match &scenario.service {
                ServiceKind::Llm(llm) => llm.batch_at(HEADROOM).round().max(1.0),
                ServiceKind::Textbook(t) => HEADROOM * f64::from(t.servers),
            },
            Signal::Rate => rounded(HEADROOM * scenario.saturation_throughput()),
        }
    }

    /// The signals `text` lists, comma-separated keys (`"waiting,running"`), each once; the error is one sentence.
    pub fn parse_list(text: &str) -> Result<Vec<Signal>, String> {
        let mut signals = Vec::new();
        for word in text.split(',').map(str::trim) {
            let signal = Signal::ALL
                .into_iter()
                .find(|s| s.key() == word)
                .ok_or_else(|| {
                    let keys: Vec<&str> = Signal::ALL.iter().map(|s| s.key()).collect();
                    format!("{word:?} is no signal; the signals are {}", keys.join(", "))
                })?;
            if signals.contains(&signal) {
                return Err(format!("lists {word} twice"));
            }
            signals.push(signal);
        }
        Ok(signals)
    }
}

/// `x` to one decimal place, as a target is written (a rate under 1 is left as it is).
fn rounded(x: f64) -> f64 {
    if x >= 1.0 {
        (x * 10.0).round() / 10.0
    } else {
        x
    }
}

/// One of the autoscaler's triggers: a signal and the value it aims it at (as a KEDA `ScaledObject` lists them).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trigger {
    /// What it reads.
    pub signal: Signal,
    /// Its target (utilisation and KV usage 0–1, requests per replica, TTFT seconds).
    pub target: f64,
}

impl Trigger {
    /// `signal` at its default target for `scenario`.
    pub fn default_for(signal: Signal, scenario: &Scenario) -> Self {
        Trigger {
            signal,
            target: signal.default_target(scenario),
        }
    }
}

/// Most triggers one autoscaler takes: one per signal.
pub const MAX_TRIGGERS: usize = Signal::ALL.len();

/// Largest fleet the model runs.
pub const MAX_REPLICAS: u32 = 256;
/// Most requests a day may be expected to bring.
pub const MAX_DAY_REQUESTS: f64 = 2_000_000.0;
/// Longest day, seconds (a week).
pub const MAX_SECONDS: f64 = 604_800.0;

/// A day of the fleet: the traffic, the router and the autoscaler.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetSpec {
    /// The offered rate over the day.
    pub traffic: Traffic,
    /// The day's length, seconds: requests arrive from 0 until then (those in flight then still finish).
    pub seconds: f64,
    /// The router.
    pub route: Route,
    /// What the autoscaler reads, each signal with its target: every interval each trigger proposes a replica count
    /// and the largest wins (the HPA with several metrics, KEDA with several triggers).
    pub triggers: Vec<Trigger>,
    /// Fewest replicas; the day starts with this many, ready.
    pub min: u32,
    /// Most replicas.
    pub max: u32,
    /// Seconds from the decision to add a replica until it serves.
    pub start_up_delay: f64,
    /// Seconds between two readings of the signal (the HPA's sync period, a Prometheus scrape).
    pub interval: f64,
    /// The scale-down stabilisation window, seconds.
    pub stabilization: f64,
    /// Random seed.
    pub seed: u64,
}

impl FleetSpec {
    /// The defaults with `signal`: join the shortest queue, the signal's default target for `scenario`, 1 to 10
    /// replicas, a 120 s start-up, a 15 s interval, a 300 s stabilisation window, a steady one and a half replicas'
    /// worth of traffic for 30 minutes, seed 1.
    pub fn new(signal: Signal, scenario: &Scenario) -> Self {
        Self::on(&[signal], scenario)
    }

    /// The defaults of [`FleetSpec::new`] with a trigger for each of `signals`, each at its default target.
    pub fn on(signals: &[Signal], scenario: &Scenario) -> Self {
        let triggers = signals
            .iter()
            .map(|&s| Trigger::default_for(s, scenario))
            .collect();
        Self::with_triggers(triggers, scenario)
    }

    /// The defaults of [`FleetSpec::new`] with `triggers`.
    pub fn with_triggers(triggers: Vec<Trigger>, scenario: &Scenario) -> Self {
        Self {
            traffic: Shape::Steady.traffic(scenario.saturation_throughput()),
            seconds: 1800.0,
            route: Route::ShortestQueue,
            triggers,
            min: 1,
            max: 10,
            start_up_delay: 120.0,
            interval: 15.0,
            stabilization: autoscaler::SCALE_DOWN_STABILIZATION,
            seed: 1,
        }
    }

    /// Checks the spec against the scenario; the error names the flag's field in one sentence.
    pub fn validate(&self, scenario: &Scenario) -> Result<(), (String, String)> {
        let bad = |field: &str, problem: String| Err((field.to_owned(), problem));
        if !matches!(scenario.service, ServiceKind::Llm(_)) {
            return bad(
                "scenario",
                "must be an LLM replica, not the textbook queue".into(),
            );
        }
        if !(self.seconds.is_finite() && self.seconds > 0.0 && self.seconds <= MAX_SECONDS) {
            return bad(
                "seconds",
                format!("must be above 0 and at most {MAX_SECONDS} (a week)"),
            );
        }
        if self.seconds > scenario.longest_span() {
            return bad(
                "seconds",
                "is longer than the simulation's clock resolves".into(),
            );
        }
        let expected = self.traffic.expected_by(self.seconds);
        if expected > MAX_DAY_REQUESTS {
            return bad(
                "traffic",
                format!("brings about {expected:.0} requests; a day takes at most {MAX_DAY_REQUESTS:.0}"),
            );
        }
        if let Err(refused) = budget::check_mean(
            scenario,
            expected,
            budget::Sending::Rate(expected / self.seconds),
            "traffic",
        ) {
            return bad("traffic", refused.problem);
        }
        if self.triggers.is_empty() || self.triggers.len() > MAX_TRIGGERS {
            return bad(
                "signal",
                format!("must list from 1 to {MAX_TRIGGERS} signals"),
            );
        }
        for (i, trigger) in self.triggers.iter().enumerate() {
            if self.triggers[..i]
                .iter()
                .any(|t| t.signal == trigger.signal)
            {
                return bad("signal", format!("lists {} twice", trigger.signal.key()));
            }
            if !(trigger.target.is_finite() && trigger.target > 0.0) {
                return bad(
                    "target",
                    format!("of {} must be a number above 0", trigger.signal.key()),
                );
            }
        }
        if !(1..=MAX_REPLICAS).contains(&self.min) {
            return bad("min", format!("must be from 1 to {MAX_REPLICAS}"));
        }
        if !(self.min..=MAX_REPLICAS).contains(&self.max) {
            return bad(
                "max",
                format!("must be from --min ({}) to {MAX_REPLICAS}", self.min),
            );
        }
        if !(self.start_up_delay.is_finite() && (0.0..=86_400.0).contains(&self.start_up_delay)) {
            return bad("start_up_delay", "must be from 0 to 86400 seconds".into());
        }
        if !(self.interval.is_finite() && self.interval >= 1.0 && self.interval <= self.seconds) {
            return bad(
                "interval",
                "must be at least 1 second and no longer than the day".into(),
            );
        }
        if !(self.stabilization.is_finite() && (0.0..=86_400.0).contains(&self.stabilization)) {
            return bad("stabilization", "must be from 0 to 86400 seconds".into());
        }
        Ok(())
    }
}

/// What the day came to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetSummary {
    /// Share of the day's requests that met both SLOs, percent.
    pub slo_attainment: f64,
    /// Requests that met both SLOs ÷ the day's length, per second.
    pub goodput: f64,
    /// p99 TTFT over the day's requests, seconds.
    pub ttft_p99: f64,
    /// p99 TPOT over the day's requests (those with two or more output tokens), seconds.
    pub tpot_p99: f64,
    /// Replica-seconds paid for over the day: ready, starting and draining replicas.
    pub replica_seconds: f64,
    /// The longest run of intervals in breach of the TTFT SLO, seconds: an interval's first tokens had a p99 above
    /// it, or a request was still waiting for its first token longer than it.
    pub longest_breach_s: f64,
    /// Times the autoscaler changed the replica count.
    pub scale_events: u32,
}

/// One interval of the day, read at its end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// End of the interval, seconds.
    pub t: f64,
    /// Mean offered rate over the interval, requests per second.
    pub offered_rps: f64,
    /// Ready replicas after the autoscaler's decision.
    pub replicas: u32,
    /// Replicas starting (loading weights) after the decision.
    pub starting: u32,
    /// Mean `num_requests_waiting` per ready replica over the interval.
    pub waiting: f64,
    /// Mean `num_requests_running` per ready replica over the interval.
    pub running: f64,
    /// Mean share of the interval the ready replicas' batches had work, 0–1.
    pub utilization: f64,
    /// Fleet-wide p99 TTFT of the last [`TTFT_WINDOW`] seconds (`None` with no first token in it), seconds.
    pub ttft_p99: Option<f64>,
    /// Requests finished in the interval that met both SLOs, per second.
    pub goodput: f64,
    /// Requests finished in the interval, per second.
    pub throughput: f64,
    /// What each trigger read, in the spec's order (`None`: no data); gauges are summed over ready replicas and
    /// divided by ready and starting ones, as the HPA counts a replica not yet ready at zero.
    pub signals: Vec<Option<f64>>,
}

/// One replica's life, for checks such as Little's Law.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplicaTotals {
    /// When it started serving (`None`: removed while starting).
    pub ready_at: Option<f64>,
    /// When it finished its last request after being scaled away (`None`: still in the fleet at the end).
    pub retired_at: Option<f64>,
    /// Requests it finished.
    pub served: u64,
    /// ∫ requests in it dt, seconds × requests, over its life.
    pub in_system_area: f64,
    /// Sum of its requests' end-to-end latencies, seconds.
    pub latency_sum: f64,
}

/// A simulated day.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetDay {
    /// The day's figures.
    pub summary: FleetSummary,
    /// One point per interval.
    pub series: Vec<SeriesPoint>,
    /// Every replica that existed, in the order it was added.
    #[serde(skip)]
    pub replicas: Vec<ReplicaTotals>,
}
