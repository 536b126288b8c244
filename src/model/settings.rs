//! From what a person chooses to a [`Scenario`]: the presets, and the changes the command line's flags and the knee
//! lab's controls make to one. Both go through [`ScenarioSettings::apply`], so the same settings give the same
//! scenario everywhere, and a setting that cannot be used fails the same check: `goodput-sim` prints the error, the
//! lab shows it.

use super::scenario::{Arrivals, KvCache, Scenario, ScenarioError, ServiceKind, POISSON_CV};
use serde::{Deserialize, Serialize};

/// The ready-made scenarios, in the order the lab's picker and `--help` list them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Preset {
    /// The course's 4×H100 box serving a ~27B model (see [`Scenario::course_preset`]).
    #[default]
    Course,
    /// DistServe's OPT-13B on one A100 (see [`Scenario::distserve_preset`]).
    DistServe,
    /// The textbook M/M/c queue, with the exact Erlang C curve beside the simulation.
    Textbook,
    /// The learner's own server, calibrated from its benchmark in the page (see [`super::your_server`]). Only the
    /// lab offers it: the command line runs a calibrated server with `--scenario`.
    Yours,
}

impl Preset {
    /// Every ready-made preset: the command line's choices.
    pub const ALL: [Preset; 3] = [Preset::Course, Preset::DistServe, Preset::Textbook];
    /// The lab's choices: the ready-made presets and the learner's own server.
    pub const LAB: [Preset; 4] = [
        Preset::Course,
        Preset::DistServe,
        Preset::Textbook,
        Preset::Yours,
    ];

    /// The name on the command line and in the URL, e.g. `course`.
    pub fn key(self) -> &'static str {
        match self {
            Preset::Course => "course",
            Preset::DistServe => "distserve",
            Preset::Textbook => "textbook",
            Preset::Yours => "yours",
        }
    }

    /// What the lab's picker and `--help` say about it.
    pub fn label(self) -> &'static str {
        match self {
            Preset::Course => "Course box: ~27B FP8 on 4×H100",
            Preset::DistServe => "DistServe: OPT-13B on one A100",
            Preset::Textbook => "Textbook M/M/c queue",
            Preset::Yours => "Your server (calibrated below)",
        }
    }

    /// The preset whose [`key`](Self::key) is `key`.
    pub fn from_key(key: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.key() == key)
    }

    /// Its scenario. [`Preset::Yours`] has none of its own (the lab's settings carry the calibrated server, and
    /// `LabSettings::base_scenario` runs it): here it stands for the course box, which the lab's reconciliation
    /// switches settings without a server to, with a note, so the stand-in is never shown as the learner's server.
    pub fn scenario(self) -> Scenario {
        match self {
            Preset::Course => Scenario::course_preset(),
            Preset::DistServe => Scenario::distserve_preset(),
            // Time unit: one second of mean service, so SLOs in milliseconds mean the same everywhere.
            Preset::Textbook => Scenario::textbook_preset(),
            Preset::Yours => Scenario::course_preset(),
        }
    }

    /// The `model_name` label a server running it would export.
    pub fn model_name(self) -> &'static str {
        match self {
            Preset::Course => "course-27b-fp8",
            Preset::DistServe => "opt-13b",
            Preset::Textbook => "textbook-mmc",
            Preset::Yours => "your-server",
        }
    }
}

/// Open loop (arrivals keep coming) or closed loop (a fixed number of users, each waiting for its answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LoopKind {
    /// Arrivals at a fixed rate, whatever the server does.
    #[default]
    Open,
    /// A fixed population of users who think between requests.
    Closed,
}

impl ServiceKind {
    /// Closed-loop users' mean think time when none is given: 5 s for LLM replicas (a chat user reading the
    /// answer), 4 service times in the textbook queue.
    pub fn default_think_time(&self) -> f64 {
        match self {
            ServiceKind::Textbook(_) => 4.0,
            ServiceKind::Llm(_) => 5.0,
        }
    }
}

/// Changes to a scenario; `None` keeps the scenario's own value. Times are the scenario's (seconds for LLM
/// replicas, time units in the textbook queue).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScenarioSettings {
    /// Offered load ρ; in closed loop it sets the number of users, unless `users` does.
    pub load: Option<f64>,
    /// Open or closed loop; `None` keeps the scenario's.
    pub loop_kind: Option<LoopKind>,
    /// Closed loop with exactly this many users.
    pub users: Option<u32>,
    /// Closed-loop users' mean think time (default [`ServiceKind::default_think_time`]).
    pub think_time: Option<f64>,
    /// Open-loop gaps' coefficient of variation (1 is Poisson).
    pub arrival_cv: Option<f64>,
    /// Servers (textbook) or replicas (LLM).
    pub servers: Option<u32>,
    /// Textbook: mean service time.
    pub mean_service: Option<f64>,
    /// LLM: `--max-num-seqs`.
    pub max_num_seqs: Option<u32>,
    /// LLM: `--max-num-batched-tokens`.
    pub max_num_batched_tokens: Option<u32>,
    /// LLM: `--enable-chunked-prefill`.
    pub chunked_prefill: Option<bool>,
    /// LLM: `--gpu-memory-utilization`, for a KV cache sized from GPU memory.
    pub gpu_memory_utilization: Option<f64>,
    /// LLM: the KV cache of one replica, in tokens, given directly.
    pub kv_cache_tokens: Option<u64>,
    /// LLM: `--max-num-queued-reqs` per replica; 0 removes the cap.
    pub max_num_queued_reqs: Option<u32>,
    /// LLM: `--max-num-queued-tokens` per replica; 0 removes the cap.
    pub max_num_queued_tokens: Option<u64>,
    /// SLO threshold on TTFT (textbook: on the wait).
    pub slo_ttft: Option<f64>,
    /// SLO threshold on TPOT.
    pub slo_tpot: Option<f64>,
    /// Measured requests (the warm-up becomes a tenth of them unless `warm_up` says otherwise).
    pub requests: Option<u64>,
    /// Requests discarded before measuring.
    pub warm_up: Option<u64>,
}

fn refuse(field: &str, problem: &str) -> ScenarioError {
    ScenarioError {
        field: field.to_owned(),
        problem: problem.to_owned(),
    }
}

impl ScenarioSettings {
    /// `base` with these changes, checked: an error names the scenario field at fault (and says when a setting does
    /// not apply to this kind of scenario).
    pub fn apply(&self, base: &Scenario) -> Result<Scenario, ScenarioError> {
        let mut s = base.clone();
        self.apply_to_service(&mut s.service)?;
        s.slo.ttft = self.slo_ttft.unwrap_or(s.slo.ttft);
        s.slo.tpot = self.slo_tpot.unwrap_or(s.slo.tpot);
        if let Some(n) = self.requests {
            s.customers = n;
            s.warm_up = n / 10;
        }
        s.warm_up = self.warm_up.unwrap_or(s.warm_up);
        self.apply_to_arrivals(&mut s)?;
        s.validate()?;
        Ok(s)
    }

    fn apply_to_service(&self, service: &mut ServiceKind) -> Result<(), ScenarioError> {
        match service {
            ServiceKind::Textbook(station) => {
                let llm_only = [
                    ("service.textbook.max_num_seqs", self.max_num_seqs.is_some()),
                    (
                        "service.textbook.max_num_batched_tokens",
                        self.max_num_batched_tokens.is_some(),
                    ),
                    (
                        "service.textbook.chunked_prefill",
                        self.chunked_prefill.is_some(),
                    ),
                    (
                        "service.textbook.kv_cache",
                        self.gpu_memory_utilization.is_some() || self.kv_cache_tokens.is_some(),
                    ),
                    (
                        "service.textbook.max_num_queued_reqs",
                        self.max_num_queued_reqs.is_some(),
                    ),
                    (
                        "service.textbook.max_num_queued_tokens",
                        self.max_num_queued_tokens.is_some(),
                    ),
                ];
                if let Some((field, _)) = llm_only.iter().find(|(_, given)| *given) {
                    return Err(refuse(field, "applies to LLM replicas only"));
                }
                station.servers = self.servers.unwrap_or(station.servers);
                station.mean_service = self.mean_service.unwrap_or(station.mean_service);
            }
            ServiceKind::Llm(fleet) => {
                if self.mean_service.is_some() {
                    return Err(refuse(
                        "service.llm.mean_service",
                        "applies to the textbook queue only",
                    ));
                }
                fleet.replicas = self.servers.unwrap_or(fleet.replicas);
                fleet.max_num_seqs = self.max_num_seqs.unwrap_or(fleet.max_num_seqs);
                fleet.max_num_batched_tokens = self
                    .max_num_batched_tokens
                    .unwrap_or(fleet.max_num_batched_tokens);
                fleet.chunked_prefill = self.chunked_prefill.unwrap_or(fleet.chunked_prefill);
                if let Some(n) = self.max_num_queued_reqs {
                    fleet.max_num_queued_reqs = (n > 0).then_some(n);
                }
                if let Some(t) = self.max_num_queued_tokens {
                    fleet.max_num_queued_tokens = (t > 0).then_some(t);
                }
                match (self.gpu_memory_utilization, self.kv_cache_tokens) {
                    (Some(_), Some(_)) => {
                        return Err(refuse(
                            "service.llm.kv_cache",
                            "give its tokens or the GPU memory utilization, not both",
                        ));
                    }
                    (Some(utilization), None) => match &mut fleet.kv_cache {
                        KvCache::Memory(memory) => memory.gpu_memory_utilization = utilization,
                        _ => {
                            return Err(refuse(
                                "service.llm.kv_cache",
                                "is not sized from GPU memory here, so a memory utilization does not apply (give \
                                 its tokens instead)",
                            ));
                        }
                    },
                    (None, Some(tokens)) => fleet.kv_cache = KvCache::Tokens(tokens),
                    (None, None) => {}
                }
            }
        }
        Ok(())
    }

    fn apply_to_arrivals(&self, s: &mut Scenario) -> Result<(), ScenarioError> {
        let was_open = s.is_open();
        let closed = self.users.is_some()
            || self
                .loop_kind
                .map_or(!was_open, |kind| kind == LoopKind::Closed);
        let load = self.load.unwrap_or(s.offered_load());
        if closed {
            if self.arrival_cv.is_some() {
                return Err(refuse(
                    "arrivals.closed.cv",
                    "applies to open-loop arrivals only",
                ));
            }
            let (users, think_time) = match s.arrivals {
                Arrivals::Closed { users, think_time } => (users, think_time),
                Arrivals::Open { .. } => (1, s.service.default_think_time()),
            };
            s.arrivals = Arrivals::Closed {
                users: self.users.unwrap_or(users),
                think_time: self.think_time.unwrap_or(think_time),
            };
            // The users follow the load, unless given, or unless a closed scenario was given no load.
            if self.users.is_none() && (was_open || self.load.is_some()) {
                *s = s.with_offered_load(load);
            }
        } else {
            if self.think_time.is_some() {
                return Err(refuse(
                    "arrivals.open.think_time",
                    "applies to closed-loop users only",
                ));
            }
            let cv = match s.arrivals {
                Arrivals::Open { cv, .. } => cv,
                Arrivals::Closed { .. } => POISSON_CV,
            };
            s.arrivals = Arrivals::Open {
                offered_load: load,
                cv: self.arrival_cv.unwrap_or(cv),
            };
        }
        Ok(())
    }
}
