//! The flags that describe a scenario: a preset or a scenario file, and the changes to make to it. They become the
//! library's [`ScenarioSettings`], the same the knee lab's controls become, so the command line and the page build
//! a scenario one way.

use super::input::{display_name, read_text};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::Args;
use goodput::model::{
    Arrivals, LoopKind, Preset, Scenario, ScenarioError, ScenarioSettings, MAX_ARRIVAL_CV,
};

/// Largest scenario file accepted (one is a few kB).
const MAX_SCENARIO_BYTES: usize = 1024 * 1024;

#[derive(Args)]
pub struct ScenarioArgs {
    /// Starting scenario.
    #[arg(long, default_value = "course", value_parser = preset_parser())]
    preset: Preset,
    /// Start from a scenario file in the model's JSON format instead of a preset (`goodput-sim scenario` prints one
    /// to edit; - reads standard input). The other flags change it.
    #[arg(long, value_name = "FILE", conflicts_with = "preset")]
    scenario: Option<String>,
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
    /// Open loop: coefficient of variation of the gaps between arrivals, gamma-distributed (1 = Poisson, the
    /// default; below 1 smoother, 0 evenly spaced; above 1 burstier).
    #[arg(long, conflicts_with = "burstiness")]
    arrival_cv: Option<f64>,
    /// Open loop: vLLM bench serve's --burstiness B, the gamma shape of the gaps (1 = Poisson; smaller is burstier);
    /// the same as --arrival-cv 1/√B.
    #[arg(long)]
    burstiness: Option<f64>,
    /// Number of replicas (LLM), or servers of the textbook M/M/c queue. (`--servers`, the older name, still works.)
    #[arg(long, alias = "servers")]
    replicas: Option<u32>,
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
    /// LLM: vLLM --gpu-memory-utilization, which sizes the KV cache from GPU memory (the presets use 0.9).
    #[arg(long, conflicts_with = "kv_cache_tokens")]
    gpu_memory_utilization: Option<f64>,
    /// LLM: the KV cache of one replica in tokens, given directly (blocks of 16).
    #[arg(long)]
    kv_cache_tokens: Option<u64>,
    /// LLM: vLLM --max-num-queued-reqs, per replica: an arrival that finds this many requests waiting or running is
    /// turned away (HTTP 503) instead of queueing, so any --load, even above 1, has a steady state. Turned-away
    /// requests are counted (rejected, rejection_rate) and fail the SLOs. 0 removes a scenario file's cap. Default:
    /// no cap.
    #[arg(long)]
    max_num_queued_reqs: Option<u32>,
    /// LLM: vLLM --max-num-queued-tokens, per replica: an arrival whose prompt would take the prompt tokens still
    /// waiting for their first token past this is turned away. vLLM suggests about target TTFT × prefill throughput.
    /// 0 removes a scenario file's cap. Default: no cap.
    #[arg(long)]
    max_num_queued_tokens: Option<u64>,
    /// SLO threshold on TTFT (textbook: on the wait).
    #[arg(long)]
    slo_ttft: Option<f64>,
    /// SLO threshold on TPOT.
    #[arg(long)]
    slo_tpot: Option<f64>,
    /// Measured requests per run (after --warm-up); with --rate, the number of requests sent, every one measured.
    #[arg(long)]
    requests: Option<u64>,
    /// Requests discarded before measuring (default: a tenth of --requests, or the preset's).
    #[arg(long)]
    warm_up: Option<u64>,
}

/// `--preset`'s values: the library's preset list, each with its label in `--help`.
fn preset_parser() -> impl TypedValueParser<Value = Preset> {
    PossibleValuesParser::new(Preset::ALL.map(|p| PossibleValue::new(p.key()).help(p.label())))
        .map(|key| Preset::from_key(&key).expect("clap accepts only the presets' keys"))
}

/// The flag that sets each scenario field, by the end of the field's path (most specific first), for error
/// messages.
const FLAGS: [(&str, &str); 19] = [
    ("offered_load", "--load"),
    ("users", "--users"),
    ("think_time", "--think"),
    ("open.cv", "--arrival-cv or --burstiness"),
    ("closed.cv", "--arrival-cv or --burstiness"),
    ("servers", "--replicas"),
    ("replicas", "--replicas"),
    ("mean_service", "--mean-service"),
    ("max_num_seqs", "--max-num-seqs"),
    ("max_num_batched_tokens", "--max-num-batched-tokens"),
    ("chunked_prefill", "--chunked-prefill"),
    ("gpu_memory_utilization", "--gpu-memory-utilization"),
    ("kv_cache", "--kv-cache-tokens or --gpu-memory-utilization"),
    ("max_num_queued_reqs", "--max-num-queued-reqs"),
    ("max_num_queued_tokens", "--max-num-queued-tokens"),
    ("slo.ttft", "--slo-ttft"),
    ("slo.tpot", "--slo-tpot"),
    ("requests", "--requests"),
    ("warm_up", "--warm-up"),
];

impl ScenarioArgs {
    /// `--requests`, when given.
    pub fn requests(&self) -> Option<u64> {
        self.requests
    }

    /// The scenario these flags describe, or a one-line reason there is none.
    pub fn scenario(&self) -> Result<Scenario, String> {
        let base = match &self.scenario {
            Some(source) => read_scenario(source)?,
            None => self.preset.scenario(),
        };
        self.settings()?.apply(&base).map_err(|e| self.explain(&e))
    }

    fn settings(&self) -> Result<ScenarioSettings, String> {
        let arrival_cv = match (self.arrival_cv, self.burstiness) {
            (_, Some(b)) if !(b.is_finite() && b > 0.0) => {
                return Err("--burstiness must be a number above 0".to_owned());
            }
            (_, Some(b)) if Arrivals::cv_from_burstiness(b) > MAX_ARRIVAL_CV => {
                return Err(format!(
                    "--burstiness {b} is burstier than the model takes (at least {})",
                    1.0 / (MAX_ARRIVAL_CV * MAX_ARRIVAL_CV)
                ));
            }
            (cv, b) => cv.or(b.map(Arrivals::cv_from_burstiness)),
        };
        Ok(ScenarioSettings {
            load: self.load,
            loop_kind: (self.closed || self.users.is_some()).then_some(LoopKind::Closed),
            users: self.users,
            think_time: self.think,
            arrival_cv,
            servers: self.replicas,
            mean_service: self.mean_service,
            max_num_seqs: self.max_num_seqs,
            max_num_batched_tokens: self.max_num_batched_tokens,
            chunked_prefill: self.chunked_prefill,
            gpu_memory_utilization: self.gpu_memory_utilization,
            kv_cache_tokens: self.kv_cache_tokens,
            max_num_queued_reqs: self.max_num_queued_reqs,
            max_num_queued_tokens: self.max_num_queued_tokens,
            slo_ttft: self.slo_ttft,
            slo_tpot: self.slo_tpot,
            requests: self.requests,
            warm_up: self.warm_up,
        })
    }

    /// The model's error, after the file it may have come from and with the flag that sets the field.
    fn explain(&self, e: &ScenarioError) -> String {
        let flag = FLAGS
            .iter()
            .find(|(end, _)| e.field.ends_with(end))
            .map_or(String::new(), |(_, flag)| format!(" (flag: {flag})"));
        let file = self.scenario.as_deref().map_or(String::new(), |source| {
            format!("{}: ", display_name(source))
        });
        format!("{file}{e}{flag}")
    }
}

/// Largest file of lengths accepted (a million lengths is under 8 MB).
const MAX_LENGTHS_BYTES: usize = 16 * 1024 * 1024;

/// The scenario text with every `{"empirical": {"file": F}}` length distribution replaced by the lengths F lists
/// (one token count a line; blank lines and `#` comments skipped; F relative to the scenario file), or `None` when
/// there is none (or the text does not parse, which the caller reports).
fn resolve_length_files(text: &str, source: &str) -> Result<Option<String>, String> {
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(text) else {
        return Ok(None);
    };
    let name = display_name(source);
    let mut changed = false;
    for which in ["prompt_tokens", "output_tokens"] {
        let pointer = format!("/service/llm/{which}/empirical");
        let Some(dist) = value.pointer_mut(&pointer).and_then(|d| d.as_object_mut()) else {
            continue;
        };
        let Some(file) = dist.get("file").and_then(|f| f.as_str()).map(str::to_owned) else {
            continue;
        };
        if dist.contains_key("tokens") {
            return Err(format!(
                "{name}: invalid service.llm.{which}.empirical: give tokens or file, not both"
            ));
        }
        let base = std::path::Path::new(source)
            .parent()
            .filter(|_| source != "-");
        let path = base.map_or(std::path::PathBuf::from(&file), |dir| dir.join(&file));
        let path = path.to_string_lossy().into_owned();
        let lengths = read_text(&path, MAX_LENGTHS_BYTES, "one token count a line")?;
        let mut tokens = Vec::new();
        for (i, line) in lengths.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.parse::<u32>() {
                Ok(n) if n > 0 => tokens.push(serde_json::Value::from(n)),
                _ => {
                    return Err(format!(
                        "{path} line {}: not a token count (a whole number above 0): {line}",
                        i + 1
                    ))
                }
            }
        }
        dist.remove("file");
        dist.insert("tokens".to_owned(), tokens.into());
        changed = true;
    }
    Ok(changed.then(|| value.to_string()))
}

/// A scenario file, parsed; an error names the field at fault (e.g. `service.iteration.fixed`).
fn read_scenario(source: &str) -> Result<Scenario, String> {
    let text = read_text(source, MAX_SCENARIO_BYTES, "a scenario file is a few kB")?;
    let text = resolve_length_files(&text, source)?.unwrap_or(text);
    let name = display_name(source);
    let mut json = serde_json::Deserializer::from_str(&text);
    let scenario: Scenario = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let path = e.path().to_string();
        // A syntax error has no field to name: its line and column say where.
        if e.inner().is_syntax() || e.inner().is_eof() || path == "." {
            format!("{name}: {}", e.inner())
        } else {
            format!("{name}: invalid {path}: {}", e.inner())
        }
    })?;
    json.end()
        .map_err(|e| format!("{name}: {e} (after the scenario)"))?;
    Ok(scenario)
}
