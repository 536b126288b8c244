//! The knee lab's settings: what the learner can change, the lesson's defaults, and the URL form an instructor shares.
//!
//! Every setting is declared once, in [`FIELDS`]: its name (the same in a lesson directive and in the URL), how its
//! value is read and written, its range or choices. Every way in goes through it and [`Clamp`], so a bad value never
//! reaches the model: it is clamped or replaced by the default, and a [`SettingNote`] says so in plain words for the
//! page to show.

pub use crate::address::query_pairs;
use crate::charts::{LatencyMetric, LatencyScale};
use crate::lesson::SettingValue;
use crate::model::Slo;
pub use crate::model::{LoopKind, Preset};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod fields;

use fields::{field, Clamp, Kind};
pub use fields::{lab_keys, Field, FIELDS};

/// Lowest and highest offered load the lab sweeps, in percent.
pub const LOAD_PERCENT_RANGE: (u32, u32) = (85, 100);
/// Highest offered load the lab sweeps when a queue cap sheds the excess, in percent: with the cap every load has a
/// steady state, so the lab goes past saturation.
pub const SHEDDING_MAX_LOAD_PERCENT: u32 = 120;
/// The largest load written as a fraction (`1.2` is 120%); a larger number is a percentage (`97` is 97%).
pub const MAX_LOAD_FRACTION: f64 = SHEDDING_MAX_LOAD_PERCENT as f64 / 100.0;
/// The lowest offered load the lab sweeps for the learner's own server, in percent: the runs it was calibrated from
/// are light, and the chart reaches down to them in steps of [`LIGHT_LOAD_STEP_PERCENT`].
pub const YOURS_MIN_LOAD_PERCENT: u32 = 1;
/// The sweep's step below [`LOAD_PERCENT_RANGE`]'s start, percent: the light loads need no finer grid.
pub const LIGHT_LOAD_STEP_PERCENT: u32 = 5;
/// Queue caps the lab accepts, as multiples of `--max-num-seqs` (the cap on waiting + running per replica).
pub const QUEUE_CAP_RANGE: (f64, f64) = (1.0, 8.0);
/// Replicas the lab lets the learner simulate.
pub const REPLICAS_RANGE: (u32, u32) = (1, 16);
/// `--max-num-seqs` values the lab accepts.
pub const MAX_NUM_SEQS_RANGE: (u32, u32) = (1, 1024);
/// `--max-num-batched-tokens` values the lab accepts (the model also wants at least `--max-num-seqs`).
pub const MAX_NUM_BATCHED_TOKENS_RANGE: (u32, u32) = (16, 65_536);
/// `--gpu-memory-utilization` values the lab accepts: every preset's KV cache still holds its longest sequence.
pub const GPU_MEMORY_UTILIZATION_RANGE: (f64, f64) = (0.4, 0.95);
/// Coefficients of variation of the gaps between open-loop arrivals the lab accepts (1 is Poisson).
pub const ARRIVAL_CV_RANGE: (f64, f64) = (0.0, 4.0);
/// TTFT SLO thresholds accepted, milliseconds.
pub const SLO_TTFT_MS_RANGE: (f64, f64) = (10.0, 60_000.0);
/// TPOT SLO thresholds accepted, milliseconds.
pub const SLO_TPOT_MS_RANGE: (f64, f64) = (1.0, 10_000.0);

/// A setting with a fixed list of values (a `<select>` or radio group in the page, a word in the URL).
pub trait Choice: Copy + PartialEq + 'static {
    /// Every value, in the order the page lists them.
    const ALL: &'static [Self];
    /// The URL and form value, e.g. `course`.
    fn key(self) -> &'static str;
    /// What the page shows.
    fn label(self) -> &'static str;
    /// Other spellings accepted in a URL or directive.
    fn aliases(self) -> &'static [&'static str] {
        &[]
    }
}

impl Choice for Preset {
    const ALL: &'static [Self] = &Preset::LAB;
    fn key(self) -> &'static str {
        Preset::key(self)
    }
    fn label(self) -> &'static str {
        Preset::label(self)
    }
}

impl Choice for LoopKind {
    const ALL: &'static [Self] = &[LoopKind::Open, LoopKind::Closed];
    fn key(self) -> &'static str {
        match self {
            LoopKind::Open => "open",
            LoopKind::Closed => "closed",
        }
    }
    fn label(self) -> &'static str {
        match self {
            LoopKind::Open => "Open loop",
            LoopKind::Closed => "Closed loop",
        }
    }
    fn aliases(self) -> &'static [&'static str] {
        match self {
            LoopKind::Open => &["open-loop"],
            LoopKind::Closed => &["closed-loop"],
        }
    }
}

impl Choice for LatencyMetric {
    const ALL: &'static [Self] = &[
        LatencyMetric::Ttft,
        LatencyMetric::Tpot,
        LatencyMetric::EndToEnd,
    ];
    fn key(self) -> &'static str {
        match self {
            LatencyMetric::Ttft => "ttft",
            LatencyMetric::Tpot => "tpot",
            LatencyMetric::EndToEnd => "e2e",
        }
    }
    fn label(self) -> &'static str {
        LatencyMetric::label(self)
    }
}

impl Choice for LatencyScale {
    const ALL: &'static [Self] = &[LatencyScale::Linear, LatencyScale::Log];
    fn key(self) -> &'static str {
        match self {
            LatencyScale::Linear => "linear",
            LatencyScale::Log => "log",
        }
    }
    fn label(self) -> &'static str {
        match self {
            LatencyScale::Linear => "Linear",
            LatencyScale::Log => "Log",
        }
    }
}

/// The value of `T` whose key (or an alias) is `key`.
pub fn choice_from_key<T: Choice>(key: &str) -> Option<T> {
    T::ALL
        .iter()
        .copied()
        .find(|c| c.key() == key || c.aliases().contains(&key))
}

fn choice_keys<T: Choice>() -> String {
    T::ALL
        .iter()
        .map(|c| c.key())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Everything the learner can set in the lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabSettings {
    /// Offered load in percent of saturation, within [`LOAD_PERCENT_RANGE`], or up to
    /// [`SHEDDING_MAX_LOAD_PERCENT`] with a queue cap (see [`LabSettings::load_range_percent`]).
    pub load_percent: u32,
    /// Open or closed loop.
    pub loop_kind: LoopKind,
    /// Open loop: coefficient of variation of the gaps between arrivals (1 is Poisson).
    pub arrival_cv: f64,
    /// The scenario.
    pub preset: Preset,
    /// Replicas (servers, in the textbook queue).
    pub replicas: u32,
    /// `--max-num-seqs` per replica (LLM presets only).
    pub max_num_seqs: u32,
    /// `--enable-chunked-prefill` (LLM presets only).
    pub chunked_prefill: bool,
    /// `--max-num-batched-tokens`, the token budget of one iteration; `None` keeps the preset's (LLM presets only).
    #[serde(default)]
    pub max_num_batched_tokens: Option<u32>,
    /// `--gpu-memory-utilization`, which sizes the KV cache (LLM presets only).
    pub gpu_memory_utilization: f64,
    /// The queue cap, vLLM's `--max-num-queued-reqs`, as a multiple of `--max-num-seqs` within [`QUEUE_CAP_RANGE`]
    /// (2: at most as many waiting as running); `None`, the default, queues without bound (LLM presets only).
    #[serde(default)]
    pub queue_cap: Option<f64>,
    /// p99 TTFT objective, milliseconds (in the textbook queue: the wait before service).
    pub slo_ttft_ms: f64,
    /// p95 TPOT objective, milliseconds.
    pub slo_tpot_ms: f64,
    /// Which latency the charts show.
    pub metric: LatencyMetric,
    /// How the latency chart's axis maps seconds (linear shows the knee's hockey stick).
    #[serde(default)]
    pub scale: LatencyScale,
    /// Random seed: "new sample" picks another.
    pub seed: u64,
    /// The learner's calibrated server, which [`Preset::Yours`] runs: held by this window (from its storage), never
    /// written to the URL or sent to another window.
    #[serde(skip)]
    pub your_server: Option<crate::model::your_server::HeldServer>,
}

impl Default for LabSettings {
    /// The course box at 85% load, open loop with Poisson arrivals, vLLM's default memory utilisation, SLOs p99 TTFT
    /// 500 ms and p95 TPOT 40 ms.
    fn default() -> Self {
        LabSettings {
            load_percent: 85,
            loop_kind: LoopKind::Open,
            arrival_cv: 1.0,
            preset: Preset::Course,
            replicas: 1,
            max_num_seqs: 64,
            chunked_prefill: true,
            max_num_batched_tokens: None,
            gpu_memory_utilization: 0.9,
            queue_cap: None,
            slo_ttft_ms: Slo::default().ttft * 1000.0,
            slo_tpot_ms: Slo::default().tpot * 1000.0,
            metric: LatencyMetric::Ttft,
            scale: LatencyScale::Linear,
            seed: 11,
            your_server: None,
        }
    }
}

/// How a setting that may keep the preset's own value writes that choice (`max_num_batched_tokens=preset`).
pub const PRESET_VALUE: &str = "preset";
/// How a setting that may be switched off writes that choice (`queue_cap=off`).
pub const OFF_VALUE: &str = "off";

/// A value that was not used as given, and what was used instead, for the page to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingNote {
    /// The setting's name as written (URL parameter or directive key).
    pub key: String,
    /// Plain-words explanation, e.g. "load=150 is above 100%; using 100%".
    pub message: String,
}

impl LabSettings {
    /// Offered load as a fraction, e.g. 0.97: [`load_percent`](Self::load_percent) within
    /// [`load_range_percent`](Self::load_range_percent) (a load past 100% left from before the queue cap was
    /// switched off counts as 100%).
    pub fn load(&self) -> f64 {
        f64::from(self.effective_load_percent()) / 100.0
    }

    /// The offered load in percent, within [`load_range_percent`](Self::load_range_percent).
    pub fn effective_load_percent(&self) -> u32 {
        let (lo, hi) = self.load_range_percent();
        self.load_percent.clamp(lo, hi)
    }

    /// Whether the scenario sheds load past a queue cap: a cap is set and the preset has LLM replicas (the
    /// textbook queue has no such flag).
    pub fn sheds(&self) -> bool {
        self.queue_cap.is_some() && self.preset != Preset::Textbook
    }

    /// `--max-num-queued-reqs` per replica: the queue cap times `--max-num-seqs`, rounded (at least `--max-num-seqs`);
    /// `None` when the scenario does not shed.
    pub fn max_num_queued_reqs(&self) -> Option<u32> {
        let multiple = self.queue_cap.filter(|_| self.sheds())?;
        let cap = (multiple * f64::from(self.max_num_seqs)).round();
        Some((cap as u32).max(self.max_num_seqs))
    }

    /// The loads the lab offers, in percent: [`LOAD_PERCENT_RANGE`], extended to [`SHEDDING_MAX_LOAD_PERCENT`] when a
    /// queue cap sheds the excess, and for the learner's own server down to its lightest measured run (a step of
    /// [`LIGHT_LOAD_STEP_PERCENT`] below it, at least [`YOURS_MIN_LOAD_PERCENT`]).
    pub fn load_range_percent(&self) -> (u32, u32) {
        let (mut lo, hi) = LOAD_PERCENT_RANGE;
        if let Some(lightest) = super::measured_runs(self)
            .iter()
            .map(|(load, _)| *load * 100.0)
            .reduce(f64::min)
        {
            let step = f64::from(LIGHT_LOAD_STEP_PERCENT);
            let below = ((lightest / step).floor() * step) as u32;
            lo = lo.min(below.max(YOURS_MIN_LOAD_PERCENT));
        }
        (
            lo,
            if self.sheds() {
                SHEDDING_MAX_LOAD_PERCENT
            } else {
                hi
            },
        )
    }

    /// The loads the lab sweeps, as fractions: every whole percent of [`load_range_percent`](Self::load_range_percent)
    /// from [`LOAD_PERCENT_RANGE`]'s start, every [`LIGHT_LOAD_STEP_PERCENT`] below it, and the range's start.
    pub fn load_points(&self) -> Vec<f64> {
        let (lo, hi) = self.load_range_percent();
        (lo..=hi)
            .filter(|percent| {
                *percent == lo
                    || *percent >= LOAD_PERCENT_RANGE.0
                    || percent % LIGHT_LOAD_STEP_PERCENT == 0
            })
            .map(|percent| f64::from(percent) / 100.0)
            .collect()
    }

    /// These settings switched to the learner's newly calibrated `server`: its replicas and vLLM flags, the rest
    /// (load, loop, SLOs, seed) kept.
    pub fn for_your_server(&self, server: &crate::model::your_server::HeldServer) -> LabSettings {
        let mut lab = LabSettings {
            preset: Preset::Yours,
            max_num_batched_tokens: None,
            your_server: Some(server.clone()),
            ..self.clone()
        };
        if let crate::model::ServiceKind::Llm(fleet) = &server.scenario.service {
            lab.replicas = fleet.replicas.clamp(REPLICAS_RANGE.0, REPLICAS_RANGE.1);
            lab.max_num_seqs = fleet.max_num_seqs;
            lab.chunked_prefill = fleet.chunked_prefill;
        }
        lab
    }

    /// Applies `key=value` pairs (URL parameters or directive settings), the load last, since its range depends on
    /// the queue cap and the preset; keys of no lab setting are ignored. The notes keep the pairs' order.
    fn apply_all(&mut self, pairs: Vec<(String, String)>, clamp: &mut Clamp) {
        let (load, others): (Vec<_>, Vec<_>) = pairs
            .into_iter()
            .enumerate()
            .filter_map(|(at, (key, raw))| field(&key).map(|f| (at, f, key, raw)))
            .partition(|(_, f, _, _)| matches!(f.kind, Kind::Load));
        let first_note = clamp.notes.len();
        let mut noted_at = Vec::new();
        for (at, field, key, raw) in others.into_iter().chain(load) {
            let before = clamp.notes.len();
            field.apply(&key, &raw, self, clamp);
            noted_at.extend(std::iter::repeat_n(at, clamp.notes.len() - before));
        }
        let mut notes: Vec<_> = noted_at
            .into_iter()
            .zip(clamp.notes.drain(first_note..))
            .enumerate()
            .map(|(made, (at, note))| ((at, made), note))
            .collect();
        // By pair, then in the order made: unstable sorts link less code into the page.
        notes.sort_unstable_by_key(|(order, _)| *order);
        clamp.notes.extend(notes.into_iter().map(|(_, note)| note));
    }

    /// The lab's starting settings from a lesson directive's `[settings]`; unknown keys are reported too, since a
    /// directive's settings are all the lab's.
    pub fn from_directive(
        settings: &BTreeMap<String, SettingValue>,
    ) -> (LabSettings, Vec<SettingNote>) {
        let mut lab = LabSettings::default();
        let mut clamp = Clamp::default();
        let mut pairs = Vec::new();
        for (key, value) in settings {
            let raw = match value {
                SettingValue::Bool(true) => "on".to_owned(),
                SettingValue::Bool(false) => "off".to_owned(),
                other => other.to_string(),
            };
            if field(key).is_none() {
                clamp.note(
                    key,
                    format!("the lab has no setting called {key:?}; ignored"),
                );
            } else {
                pairs.push((key.clone(), raw));
            }
        }
        lab.apply_all(pairs, &mut clamp);
        (lab, clamp.notes)
    }

    /// These settings overridden by the lab's parameters in a URL query (`load=0.97&loop=closed`, with or without the
    /// leading `?`); other parameters belong to the rest of the page and are left alone.
    pub fn with_query(&self, query: &str) -> (LabSettings, Vec<SettingNote>) {
        let mut lab = self.clone();
        let mut clamp = Clamp::default();
        lab.apply_all(query_pairs(query), &mut clamp);
        (lab, clamp.notes)
    }

    /// The URL query parameters whose written value differs from `defaults`', in [`FIELDS`] order, e.g.
    /// `[("load", "0.97")]`.
    pub fn to_query_pairs(&self, defaults: &LabSettings) -> Vec<(&'static str, String)> {
        FIELDS
            .iter()
            .filter_map(|f| {
                let value = f.encode(self);
                (value != f.encode(defaults)).then_some((f.key, value))
            })
            .collect()
    }

    /// `query` with the lab's parameters replaced by this state's (only those differing from `defaults`), the
    /// page's other parameters kept in order. Returns the query without `?`, empty when nothing is left.
    pub fn merge_into_query(&self, query: &str, defaults: &LabSettings) -> String {
        let pairs = self
            .to_query_pairs(defaults)
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v));
        crate::address::replace_params(query, |key| field(key).is_some(), pairs)
    }
}
