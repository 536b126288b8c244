//! The lab's sweep over offered load, computed in slices so the page never blocks: a rough pass over every load
//! point first (the learner sees curves within a frame or two), then passes that refine each point to the full run.

use super::settings::{LabSettings, LoopKind, Preset};
use crate::model::your_server::{HeldServer, MeasuredRun};
use crate::model::{Scenario, ScenarioError, ScenarioSettings, ServiceKind, SlicedSweep};

/// Measured requests per load point after each pass. The last pass is the scenario's full run.
const PASSES: [u64; 2] = [1_500, 6_000];

impl LabSettings {
    /// The changes these settings make to their preset at offered load `load` (a fraction): what
    /// `goodput-sim --preset … --load … --servers …` would give for the same choices.
    pub fn scenario_settings(&self, load: f64) -> ScenarioSettings {
        let llm = self.preset != Preset::Textbook;
        // A calibrated server's cache is given in tokens (its start-up log's), not sized from GPU memory.
        let sized_from_memory = llm && self.preset != Preset::Yours;
        let open = self.loop_kind == LoopKind::Open;
        ScenarioSettings {
            load: Some(load * self.capacity_ratio()),
            loop_kind: Some(self.loop_kind),
            arrival_cv: open.then_some(self.arrival_cv),
            servers: Some(self.replicas),
            max_num_seqs: llm.then_some(self.max_num_seqs),
            chunked_prefill: llm.then_some(self.chunked_prefill),
            max_num_batched_tokens: self.max_num_batched_tokens.filter(|_| llm),
            gpu_memory_utilization: sized_from_memory.then_some(self.gpu_memory_utilization),
            max_num_queued_reqs: self.max_num_queued_reqs(),
            slo_ttft: Some(self.slo_ttft_ms / 1000.0),
            slo_tpot: Some(self.slo_tpot_ms / 1000.0),
            ..ScenarioSettings::default()
        }
    }
}

impl LabSettings {
    /// How much of the capacity formula the fleet really serves: [`YourServer::capacity_ratio`] for the learner's
    /// server, 1 for the presets (whose load is the formula's, as the lesson and `goodput-sim --load` say).
    ///
    /// [`YourServer::capacity_ratio`]: crate::model::your_server::YourServer::capacity_ratio
    pub fn capacity_ratio(&self) -> f64 {
        self.running_server()
            .map_or(1.0, |server| server.capacity_ratio)
    }

    /// The learner's calibrated server when the lab runs it ([`Preset::Yours`] with a server held).
    pub fn running_server(&self) -> Option<&HeldServer> {
        self.your_server
            .as_ref()
            .filter(|_| self.preset == Preset::Yours)
    }

    /// The scenario the settings change: the preset's, or the learner's calibrated server for [`Preset::Yours`].
    pub fn base_scenario(&self) -> Scenario {
        match self.running_server() {
            Some(server) => server.scenario.clone(),
            None => self.preset.scenario(),
        }
    }

    /// The token budget of one iteration (`--max-num-batched-tokens`): the one set, else the preset's; `None` for
    /// the textbook queue, which has no batch.
    pub fn token_budget(&self) -> Option<u32> {
        match self.base_scenario().service {
            ServiceKind::Llm(fleet) => Some(
                self.max_num_batched_tokens
                    .unwrap_or(fleet.max_num_batched_tokens),
            ),
            ServiceKind::Textbook(_) => None,
        }
    }
}

/// The scenario the settings describe, at offered load `load` (a fraction), or why there is none. The textbook
/// preset keeps its long run (200 000 customers): cheap in that mode and needed, since near ρ = 1 the M/M/c queue
/// forgets its past slowly and a short run would sit visibly off the Erlang C curve.
pub fn scenario_for(settings: &LabSettings, load: f64) -> Result<Scenario, ScenarioError> {
    settings
        .scenario_settings(load)
        .apply(&settings.base_scenario())
}

/// The lab's sweep of `settings` over `loads` (fractions), to be advanced a slice at a time: a rough pass over every
/// load, a better one, then each load's full run. Nothing is simulated yet.
pub fn sweep_for(settings: &LabSettings, loads: &[f64]) -> Result<SlicedSweep, ScenarioError> {
    let points = loads
        .iter()
        .map(|&load| Ok((load, scenario_for(settings, load)?)))
        .collect::<Result<Vec<_>, ScenarioError>>()?;
    SlicedSweep::new(points, settings.seed, &PASSES)
}

/// The learner's own server's measured runs, each at its offered load under these settings (its rate as a fraction
/// of the capacity the settings give); none unless the lab runs [`Preset::Yours`].
pub fn measured_runs(settings: &LabSettings) -> Vec<(f64, MeasuredRun)> {
    let Some(server) = settings.running_server() else {
        return Vec::new();
    };
    // The arrival rate at 100% load: the capacity the lab's load is a share of.
    let Some(capacity) = scenario_for(settings, 1.0)
        .ok()
        .and_then(|s| s.arrival_rate())
    else {
        return Vec::new();
    };
    server
        .measured
        .iter()
        .map(|run| (run.rate / capacity, *run))
        .filter(|(load, _)| load.is_finite() && *load > 0.0)
        .collect()
}

/// Requests simulated for the simulated `/metrics` page: enough for stable histograms, quick enough to compute on
/// demand (a few milliseconds).
const METRICS_REQUESTS: u64 = 4_000;

/// The lab's current setting as the `/metrics` page a vLLM server would serve after a short run at the current load:
/// vLLM's metric names and histogram buckets, `model_name` naming the preset.
pub fn simulated_metrics(settings: &LabSettings) -> Result<String, ScenarioError> {
    let mut scenario = scenario_for(settings, settings.load())?;
    scenario.customers = METRICS_REQUESTS;
    scenario.warm_up = scenario.warm_up.min(METRICS_REQUESTS / 4);
    let (summary, traces) = crate::model::run_traced(&scenario, settings.seed, usize::MAX)?;
    Ok(crate::cluster::exposition::render_vllm_metrics(
        &summary,
        &traces,
        settings.preset.model_name(),
    ))
}
