//! The flags that describe a scenario: a preset or a scenario file, and the changes to make to it. They become the
//! library's [`ScenarioSettings`], the same the knee lab's controls become, so the command line and the page build
//! a scenario one way.

use super::input::{display_name, read_text};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::Args;
use goodput::model::{
    Arrivals, LoopKind, Preset, Scenario, ScenarioError, ScenarioSettings, MAX_ARRIVAL_CV,
};
use std::path::{Component, Path, PathBuf};

/// Largest scenario file accepted (one is a few kB).
const MAX_SCENARIO_BYTES: usize = 1024 * 1024;

#[derive(Args)]
pub struct ScenarioArgs {
    /// Starting scenario.
    #[arg(long, default_value = "course", value_parser = preset_parser())]
    preset: Preset,
    /// Start from a scenario file in the model's JSON format instead of a preset (`goodput-sim scenario` prints one
    /// to edit; - reads standard input). The other flags change it. A length distribution
    /// {"empirical": {"file": F}} reads F, one token count a line: a regular file in the scenario's folder, named by
    /// a relative path without .., at most 16 MB.
    #[arg(long, value_name = "FILE", conflicts_with = "preset")]
    scenario: Option<String>,
    /// Offered load ρ (arrival rate ÷ saturation throughput); in closed loop it sets the number of users.
    #[arg(long, allow_negative_numbers = true)]
    load: Option<f64>,
    /// Closed loop: users who think, send, wait for the response, and think again.
    #[arg(long)]
    closed: bool,
    /// Closed loop with exactly this many users (implies --closed).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>)]
    users: Option<u32>,
    /// Mean think time of closed-loop users (default 5 s for LLM presets, 4 time units for textbook).
    #[arg(long, allow_negative_numbers = true)]
    think: Option<f64>,
    /// Open loop: coefficient of variation of the gaps between arrivals, gamma-distributed (1 = Poisson, the
    /// default; below 1 smoother, 0 evenly spaced; above 1 burstier).
    #[arg(long, conflicts_with = "burstiness", allow_negative_numbers = true)]
    arrival_cv: Option<f64>,
    /// Open loop: vLLM bench serve's --burstiness B, the gamma shape of the gaps (1 = Poisson; smaller is burstier);
    /// the same as --arrival-cv 1/√B.
    #[arg(long, allow_negative_numbers = true)]
    burstiness: Option<f64>,
    /// Number of replicas (LLM), or servers of the textbook M/M/c queue. (`--servers`, the older name, still works.)
    #[arg(long, alias = "servers", allow_negative_numbers = true, value_parser = whole::<u32>)]
    replicas: Option<u32>,
    /// Textbook mean service time.
    #[arg(long, allow_negative_numbers = true)]
    mean_service: Option<f64>,
    /// LLM: vLLM --max-num-seqs.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>)]
    max_num_seqs: Option<u32>,
    /// LLM: vLLM --max-num-batched-tokens.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>)]
    max_num_batched_tokens: Option<u32>,
    /// LLM: chunked prefill on or off.
    #[arg(long)]
    chunked_prefill: Option<bool>,
    /// LLM: vLLM --gpu-memory-utilization, which sizes the KV cache from GPU memory (the presets use 0.9).
    #[arg(
        long,
        conflicts_with = "kv_cache_tokens",
        allow_negative_numbers = true
    )]
    gpu_memory_utilization: Option<f64>,
    /// LLM: the KV cache of one replica in tokens, given directly (blocks of 16).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>)]
    kv_cache_tokens: Option<u64>,
    /// LLM: vLLM --max-num-queued-reqs, per replica: an arrival that finds this many requests waiting or running is
    /// turned away (HTTP 503) instead of queueing, so any --load, even above 1, has a steady state. Turned-away
    /// requests are counted (rejected, rejection_rate) and fail the SLOs. 0 removes a scenario file's cap. Default:
    /// no cap.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>)]
    max_num_queued_reqs: Option<u32>,
    /// LLM: vLLM --max-num-queued-tokens, per replica: an arrival whose prompt would take the prompt tokens still
    /// waiting for their first token past this is turned away. vLLM suggests about target TTFT × prefill throughput.
    /// 0 removes a scenario file's cap. Default: no cap.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>)]
    max_num_queued_tokens: Option<u64>,
    /// SLO threshold on TTFT (textbook: on the wait).
    #[arg(long, allow_negative_numbers = true)]
    slo_ttft: Option<f64>,
    /// SLO threshold on TPOT.
    #[arg(long, allow_negative_numbers = true)]
    slo_tpot: Option<f64>,
    /// Measured requests per run (after --warm-up); with --rate, the number of requests sent, every one measured.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>)]
    requests: Option<u64>,
    /// Requests discarded before measuring (default: a tenth of --requests, or the preset's).
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>)]
    warm_up: Option<u64>,
}

/// `--preset`'s values: the library's preset list, each with its label in `--help`.
pub fn preset_parser() -> impl TypedValueParser<Value = Preset> {
    PossibleValuesParser::new(Preset::ALL.map(|p| PossibleValue::new(p.key()).help(p.label())))
        .map(|key| Preset::from_key(&key).expect("clap accepts only the presets' keys"))
}

/// A whole number for a count flag; a negative one or a fraction is refused in our words, not clap's.
pub fn whole<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.trim().parse().map_err(|_| {
        if text.trim().starts_with('-') {
            "must not be negative: give a whole number, 0 or more".to_owned()
        } else {
            "not a whole number".to_owned()
        }
    })
}

/// The flag that sets each scenario field, by the end of the field's path (most specific first), for error
/// messages.
const FLAGS: [(&str, &str); 20] = [
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
    ("kv_cache.tokens", "--kv-cache-tokens"),
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
                    "--burstiness {} is burstier than the model takes (at least {})",
                    goodput_calibrate::readable(b),
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

    /// Whether the user typed `flag` (one of [`FLAGS`]' names; "a or b" when either).
    fn typed(&self, flag: &str) -> bool {
        flag.split(" or ").any(|f| match f {
            "--load" => self.load.is_some(),
            "--users" => self.users.is_some(),
            "--think" => self.think.is_some(),
            "--arrival-cv" => self.arrival_cv.is_some(),
            "--burstiness" => self.burstiness.is_some(),
            "--replicas" => self.replicas.is_some(),
            "--mean-service" => self.mean_service.is_some(),
            "--max-num-seqs" => self.max_num_seqs.is_some(),
            "--max-num-batched-tokens" => self.max_num_batched_tokens.is_some(),
            "--chunked-prefill" => self.chunked_prefill.is_some(),
            "--gpu-memory-utilization" => self.gpu_memory_utilization.is_some(),
            "--kv-cache-tokens" => self.kv_cache_tokens.is_some(),
            "--max-num-queued-reqs" => self.max_num_queued_reqs.is_some(),
            "--max-num-queued-tokens" => self.max_num_queued_tokens.is_some(),
            "--slo-ttft" => self.slo_ttft.is_some(),
            "--slo-tpot" => self.slo_tpot.is_some(),
            "--requests" => self.requests.is_some(),
            "--warm-up" => self.warm_up.is_some(),
            _ => false,
        })
    }

    /// The model's error in the user's words: the flag they typed (`--load must be …`), or else the field of the
    /// scenario file (after the file's name) with the flag that would set it.
    pub fn explain(&self, e: &ScenarioError) -> String {
        let flag = FLAGS
            .iter()
            .find(|(end, _)| e.field.ends_with(end))
            .map(|(_, flag)| *flag);
        let file = self.scenario.as_deref().map_or(String::new(), |source| {
            format!("{}: ", display_name(source))
        });
        match flag {
            // The run as a whole (its length against the clock), not one field.
            _ if e.field == "run" => format!("{file}the run {}", e.problem),
            // Of "a or b", the one typed.
            Some(flag) if self.typed(flag) => {
                let typed: Vec<&str> = flag.split(" or ").filter(|f| self.typed(f)).collect();
                format!("{} {}", typed.join(" and "), e.problem)
            }
            Some(flag) if self.scenario.is_none() => {
                format!("{flag} (from --preset {}) {}", self.preset.key(), e.problem)
            }
            _ => {
                let hint = flag.map_or(String::new(), |flag| format!(" (flag: {flag})"));
                format!("{file}{e}{hint}")
            }
        }
    }
}

/// Largest file of lengths accepted (a million lengths is under 8 MB).
const MAX_LENGTHS_BYTES: usize = 16 * 1024 * 1024;

/// The path of a scenario's lengths file, or why it is refused. The rule: a relative path without `..`, naming a
/// regular file inside the scenario file's folder (the current folder for standard input), symbolic links
/// followed only while they stay inside it. So a scenario handed over by someone else reads nothing outside its own
/// folder, and never waits on a FIFO or a device.
fn lengths_path(file: &str, source: &str, name: &str) -> Result<PathBuf, String> {
    let refuse = |why: &str| {
        Err(format!(
            "{name}: empirical.file {file:?} {why} (it must name a regular file in the scenario's folder, by a \
             relative path without ..)"
        ))
    };
    let relative = Path::new(file);
    if file.is_empty()
        || !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return refuse("is not a relative path inside the scenario's folder");
    }
    let folder = match Path::new(source).parent().filter(|_| source != "-") {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (Ok(folder), Ok(path)) = (folder.canonicalize(), folder.join(relative).canonicalize())
    else {
        return refuse("cannot be found");
    };
    if !path.starts_with(&folder) {
        return refuse("leads outside the scenario's folder");
    }
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() => Ok(path),
        Ok(_) => refuse("is not a regular file"),
        Err(_) => refuse("cannot be read"),
    }
}

/// The token counts of a lengths file: one a line, blank lines and `#` comments skipped. An error names the line,
/// never its content (the file may not be what the scenario says it is).
fn read_lengths(path: &Path, file: &str) -> Result<Vec<serde_json::Value>, String> {
    let text = read_text(
        &path.to_string_lossy(),
        MAX_LENGTHS_BYTES,
        "one token count a line",
    )
    .map_err(|e| match e.rsplit_once(" is ") {
        // Name the file as the scenario does, not by its resolved path.
        Some((_, why)) => format!("{file} is {why}"),
        None => format!("cannot read {file}"),
    })?;
    let mut tokens = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match line.parse::<u32>() {
            Ok(n) if n > 0 => tokens.push(serde_json::Value::from(n)),
            _ => {
                return Err(format!(
                    "{file} line {}: not a token count (a whole number above 0)",
                    i + 1
                ))
            }
        }
    }
    Ok(tokens)
}

/// The scenario text with every `{"empirical": {"file": F}}` length distribution replaced by the lengths F lists
/// (see [`lengths_path`] for which files may be read), or `None` when there is none (or the text does not parse,
/// which the caller reports).
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
        let path = lengths_path(&file, source, name)?;
        let tokens = read_lengths(&path, &file).map_err(|e| format!("{name}: {e}"))?;
        dist.remove("file");
        dist.insert("tokens".to_owned(), tokens.into());
        changed = true;
    }
    Ok(changed.then(|| value.to_string()))
}

/// A scenario file, parsed; an error names the field at fault (e.g. `service.iteration.fixed`).
pub fn read_scenario(source: &str) -> Result<Scenario, String> {
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
