//! The lab's sweep over offered load, computed in slices so the page never blocks: a rough pass over every load
//! point first (the learner sees curves within a frame or two), then passes that refine each point to the full run.

use super::settings::{LabSettings, LoopKind, Preset};
use crate::model::{Arrivals, Scenario, ScenarioError, ServiceKind, SlicedSweep, Slo};

/// Measured requests per load point after each pass. The last pass is the scenario's full run.
const PASSES: [u64; 2] = [1_500, 6_000];

/// The scenario the settings describe, at offered load `load` (a fraction).
pub fn scenario_for(settings: &LabSettings, load: f64) -> Scenario {
    let mut scenario = match settings.preset {
        Preset::Course => Scenario::course_preset(),
        Preset::DistServe => Scenario::distserve_preset(),
        // Time unit: one second of mean service, so the SLO inputs in milliseconds mean the same everywhere. The
        // preset's long run (200 000 customers) is cheap in this mode and needed: near ρ = 1 the M/M/c queue forgets
        // its past slowly, and a short run would sit visibly off the Erlang C curve.
        Preset::Textbook => Scenario::textbook_preset(),
    };
    match &mut scenario.service {
        ServiceKind::Textbook(station) => station.servers = settings.replicas,
        ServiceKind::Llm(fleet) => {
            fleet.replicas = settings.replicas;
            fleet.max_num_seqs = settings.max_num_seqs;
            // The token budget must hold a full batch of decodes.
            fleet.max_num_batched_tokens = fleet.max_num_batched_tokens.max(settings.max_num_seqs);
            fleet.chunked_prefill = settings.chunked_prefill;
        }
    }
    scenario.slo = Slo {
        ttft: settings.slo_ttft_ms / 1000.0,
        tpot: settings.slo_tpot_ms / 1000.0,
    };
    if settings.loop_kind == LoopKind::Closed {
        // Users think between requests: 5 s for the LLM presets (a chat user reading), 4 service times in the
        // textbook queue.
        let think_time = match settings.preset {
            Preset::Textbook => 4.0,
            _ => 5.0,
        };
        scenario.arrivals = Arrivals::Closed {
            users: 1,
            think_time,
        };
    }
    scenario.with_offered_load(load)
}

/// The lab's sweep of `settings` over `loads` (fractions), to be advanced a slice at a time: a rough pass over every
/// load, a better one, then each load's full run. Nothing is simulated yet.
pub fn sweep_for(settings: &LabSettings, loads: &[f64]) -> Result<SlicedSweep, ScenarioError> {
    let points = loads
        .iter()
        .map(|&load| (load, scenario_for(settings, load)));
    SlicedSweep::new(points, settings.seed, &PASSES)
}

/// Requests simulated for the simulated `/metrics` page: enough for stable histograms, quick enough to compute on
/// demand (a few milliseconds).
const METRICS_REQUESTS: u64 = 4_000;

/// The lab's current setting as the `/metrics` page a vLLM server would serve after a short run at the current load:
/// vLLM's metric names and histogram buckets, `model_name` naming the preset.
pub fn simulated_metrics(settings: &LabSettings) -> Result<String, ScenarioError> {
    let mut scenario = scenario_for(settings, settings.load());
    scenario.customers = METRICS_REQUESTS;
    scenario.warm_up = scenario.warm_up.min(METRICS_REQUESTS / 4);
    let (summary, traces) = crate::model::run_traced(&scenario, settings.seed, usize::MAX)?;
    let model_name = match settings.preset {
        Preset::Course => "course-27b-fp8",
        Preset::DistServe => "opt-13b",
        Preset::Textbook => "textbook-mmc",
    };
    Ok(crate::cluster::exposition::render_vllm_metrics(
        &summary, &traces, model_name,
    ))
}
