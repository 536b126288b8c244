//! The knee lab's settings: what the learner can change, the lesson's defaults, and the URL form an instructor shares.
//!
//! Every way in (lesson directive, URL) goes through [`Clamp`], so a bad value never reaches the model: it is clamped
//! or replaced by the default, and a [`SettingNote`] says so in plain words for the page to show.

use crate::charts::LatencyMetric;
use crate::lesson::SettingValue;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Lowest and highest offered load the lab sweeps, in percent.
pub const LOAD_PERCENT_RANGE: (u32, u32) = (85, 100);
/// Replicas the lab lets the learner simulate.
pub const REPLICAS_RANGE: (u32, u32) = (1, 16);
/// `--max-num-seqs` values the lab accepts.
pub const MAX_NUM_SEQS_RANGE: (u32, u32) = (1, 1024);
/// TTFT SLO thresholds accepted, milliseconds.
pub const SLO_TTFT_MS_RANGE: (f64, f64) = (10.0, 60_000.0);
/// TPOT SLO thresholds accepted, milliseconds.
pub const SLO_TPOT_MS_RANGE: (f64, f64) = (1.0, 10_000.0);

/// The lab's setting names, the same in a lesson directive and in the URL (`arrivals` and `servers` are accepted
/// spellings of `loop` and `replicas`).
pub const LAB_KEYS: [&str; 12] = [
    "load",
    "loop",
    "arrivals",
    "preset",
    "replicas",
    "servers",
    "max_num_seqs",
    "chunked_prefill",
    "slo_ttft_ms",
    "slo_tpot_ms",
    "metric",
    "seed",
];

/// Which scenario the lab simulates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Preset {
    /// The course's 4×H100 box serving a ~27B model (see `Scenario::course_preset`).
    #[default]
    Course,
    /// DistServe's OPT-13B on one A100.
    DistServe,
    /// The textbook M/M/c queue, with the exact Erlang C curve beside the simulation.
    Textbook,
}

impl Preset {
    /// Every preset, in the order the picker lists them.
    pub const ALL: [Preset; 3] = [Preset::Course, Preset::DistServe, Preset::Textbook];

    /// The URL and form value, e.g. `course`.
    pub fn key(self) -> &'static str {
        match self {
            Preset::Course => "course",
            Preset::DistServe => "distserve",
            Preset::Textbook => "textbook",
        }
    }

    /// What the picker shows.
    pub fn label(self) -> &'static str {
        match self {
            Preset::Course => "Course box: ~27B FP8 on 4×H100",
            Preset::DistServe => "DistServe: OPT-13B on one A100",
            Preset::Textbook => "Textbook M/M/c queue",
        }
    }

    /// The preset whose [`key`](Self::key) is `key`.
    pub fn from_key(key: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.key() == key)
    }
}

/// Open loop (arrivals keep coming) or closed loop (a fixed number of users, each waiting for its answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LoopKind {
    /// Poisson arrivals at a fixed rate.
    #[default]
    Open,
    /// A fixed population of users who think between requests.
    Closed,
}

impl LoopKind {
    /// The URL value.
    pub fn key(self) -> &'static str {
        match self {
            LoopKind::Open => "open",
            LoopKind::Closed => "closed",
        }
    }

    fn from_key(key: &str) -> Option<LoopKind> {
        match key {
            "open" | "open-loop" => Some(LoopKind::Open),
            "closed" | "closed-loop" => Some(LoopKind::Closed),
            _ => None,
        }
    }
}

/// The URL value of a latency metric.
pub fn metric_key(metric: LatencyMetric) -> &'static str {
    match metric {
        LatencyMetric::Ttft => "ttft",
        LatencyMetric::Tpot => "tpot",
        LatencyMetric::EndToEnd => "e2e",
    }
}

/// The latency metric whose [`metric_key`] is `key`.
pub fn metric_from_key(key: &str) -> Option<LatencyMetric> {
    [
        LatencyMetric::Ttft,
        LatencyMetric::Tpot,
        LatencyMetric::EndToEnd,
    ]
    .into_iter()
    .find(|m| metric_key(*m) == key)
}

/// Everything the learner can set in the lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabSettings {
    /// Offered load in percent of saturation, within [`LOAD_PERCENT_RANGE`].
    pub load_percent: u32,
    /// Open or closed loop.
    pub loop_kind: LoopKind,
    /// The scenario.
    pub preset: Preset,
    /// Replicas (servers, in the textbook queue).
    pub replicas: u32,
    /// `--max-num-seqs` per replica (LLM presets only).
    pub max_num_seqs: u32,
    /// `--enable-chunked-prefill` (LLM presets only).
    pub chunked_prefill: bool,
    /// p99 TTFT objective, milliseconds (in the textbook queue: the wait before service).
    pub slo_ttft_ms: f64,
    /// p95 TPOT objective, milliseconds.
    pub slo_tpot_ms: f64,
    /// Which latency the charts show.
    pub metric: LatencyMetric,
    /// Random seed: "new sample" picks another.
    pub seed: u64,
}

impl Default for LabSettings {
    /// The course box at 85% load, open loop, SLOs p99 TTFT 500 ms and p95 TPOT 40 ms.
    fn default() -> Self {
        LabSettings {
            load_percent: 85,
            loop_kind: LoopKind::Open,
            preset: Preset::Course,
            replicas: 1,
            max_num_seqs: 64,
            chunked_prefill: true,
            slo_ttft_ms: 500.0,
            slo_tpot_ms: 40.0,
            metric: LatencyMetric::Ttft,
            seed: 11,
        }
    }
}

/// A value that was not used as given, and what was used instead, for the page to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingNote {
    /// The setting's name as written (URL parameter or directive key).
    pub key: String,
    /// Plain-words explanation, e.g. "load=150 is above 100%; using 100%".
    pub message: String,
}

/// Collects notes while values are read and clamped.
#[derive(Default)]
struct Clamp {
    notes: Vec<SettingNote>,
}

impl Clamp {
    fn note(&mut self, key: &str, message: String) {
        self.notes.push(SettingNote {
            key: key.to_owned(),
            message,
        });
    }

    /// A number within `range`; out-of-range values are clamped, unreadable ones keep `current`.
    fn number(&mut self, key: &str, raw: &str, range: (f64, f64), current: f64, unit: &str) -> f64 {
        match raw.trim().parse::<f64>() {
            Ok(value) if value.is_finite() => {
                let clamped = value.clamp(range.0, range.1);
                if clamped != value {
                    let side = if value < range.0 { "below" } else { "above" };
                    let bound = if value < range.0 { range.0 } else { range.1 };
                    self.note(
                        key,
                        format!("{key}={raw} is {side} {bound}{unit}; using {clamped}{unit}"),
                    );
                }
                clamped
            }
            _ => {
                self.note(
                    key,
                    format!("{key}={raw:?} is not a number; using {current}{unit}"),
                );
                current
            }
        }
    }

    /// A whole number within `range` (fractions are rounded, with a note).
    fn whole(&mut self, key: &str, raw: &str, range: (u32, u32), current: u32, unit: &str) -> u32 {
        let value = self.number(
            key,
            raw,
            (f64::from(range.0), f64::from(range.1)),
            f64::from(current),
            unit,
        );
        if value.fract() != 0.0 {
            self.note(
                key,
                format!(
                    "{key}={raw} is not a whole number; using {}{unit}",
                    value.round()
                ),
            );
        }
        value.round() as u32
    }

    /// An offered load written as a fraction (0.97) or a percentage (97; anything above 10 is read as one), as a
    /// whole percentage within [`LOAD_PERCENT_RANGE`].
    fn load(&mut self, raw: &str, current: u32) -> u32 {
        let key = "load";
        let (lo, hi) = (
            f64::from(LOAD_PERCENT_RANGE.0),
            f64::from(LOAD_PERCENT_RANGE.1),
        );
        let Some(value) = raw.trim().parse::<f64>().ok().filter(|v| v.is_finite()) else {
            self.note(
                key,
                format!("{key}={raw:?} is not a number; using {current}%"),
            );
            return current;
        };
        let percent = if value <= 10.0 { value * 100.0 } else { value };
        let used = percent.round().clamp(lo, hi);
        if percent > hi + 1e-9 {
            self.note(key, format!("{key}={raw} is above 100%; using {used}%"));
        } else if percent < lo - 1e-9 {
            self.note(key, format!("{key}={raw} is below {lo}%; using {used}%"));
        } else if (percent - used).abs() > 1e-9 {
            self.note(
                key,
                format!("{key}={raw} is between whole percentages; using {used}%"),
            );
        }
        used as u32
    }

    fn flag(&mut self, key: &str, raw: &str, current: bool) -> bool {
        match raw.trim() {
            "on" | "true" | "1" | "yes" => true,
            "off" | "false" | "0" | "no" => false,
            _ => {
                let used = if current { "on" } else { "off" };
                self.note(key, format!("{key}={raw:?} is not on or off; using {used}"));
                current
            }
        }
    }

    fn choice<T: Copy>(
        &mut self,
        key: &str,
        raw: &str,
        parse: impl Fn(&str) -> Option<T>,
        allowed: &str,
        current: T,
        current_key: &str,
    ) -> T {
        parse(raw.trim()).unwrap_or_else(|| {
            self.note(
                key,
                format!("{key}={raw:?} is not one of {allowed}; using {current_key}"),
            );
            current
        })
    }
}

impl LabSettings {
    /// Offered load as a fraction, e.g. 0.97.
    pub fn load(&self) -> f64 {
        f64::from(self.load_percent) / 100.0
    }

    /// Applies one `key=value` pair (URL parameter or directive setting); keys not in [`LAB_KEYS`] are ignored.
    fn apply(&mut self, key: &str, raw: &str, clamp: &mut Clamp) {
        match key {
            "load" => self.load_percent = clamp.load(raw, self.load_percent),
            "loop" | "arrivals" => {
                self.loop_kind = clamp.choice(
                    key,
                    raw,
                    LoopKind::from_key,
                    "open, closed",
                    self.loop_kind,
                    self.loop_kind.key(),
                );
            }
            "preset" => {
                self.preset = clamp.choice(
                    key,
                    raw,
                    Preset::from_key,
                    "course, distserve, textbook",
                    self.preset,
                    self.preset.key(),
                );
            }
            "replicas" | "servers" => {
                self.replicas = clamp.whole(key, raw, REPLICAS_RANGE, self.replicas, "");
            }
            "max_num_seqs" => {
                self.max_num_seqs =
                    clamp.whole(key, raw, MAX_NUM_SEQS_RANGE, self.max_num_seqs, "");
            }
            "chunked_prefill" => self.chunked_prefill = clamp.flag(key, raw, self.chunked_prefill),
            "slo_ttft_ms" => {
                self.slo_ttft_ms =
                    clamp.number(key, raw, SLO_TTFT_MS_RANGE, self.slo_ttft_ms, " ms");
            }
            "slo_tpot_ms" => {
                self.slo_tpot_ms =
                    clamp.number(key, raw, SLO_TPOT_MS_RANGE, self.slo_tpot_ms, " ms");
            }
            "metric" => {
                self.metric = clamp.choice(
                    key,
                    raw,
                    metric_from_key,
                    "ttft, tpot, e2e",
                    self.metric,
                    metric_key(self.metric),
                );
            }
            "seed" => match raw.trim().parse::<u64>() {
                Ok(seed) => self.seed = seed,
                Err(_) => clamp.note(
                    key,
                    format!("seed={raw:?} is not a whole number; using {}", self.seed),
                ),
            },
            _ => {}
        }
    }

    /// The lab's starting settings from a lesson directive's `[settings]`; unknown keys are reported too, since a
    /// directive's settings are all the lab's.
    pub fn from_directive(
        settings: &BTreeMap<String, SettingValue>,
    ) -> (LabSettings, Vec<SettingNote>) {
        let mut lab = LabSettings::default();
        let mut clamp = Clamp::default();
        for (key, value) in settings {
            let raw = match value {
                SettingValue::Bool(true) => "on".to_owned(),
                SettingValue::Bool(false) => "off".to_owned(),
                other => other.to_string(),
            };
            if !LabSettings::is_lab_key(key) {
                clamp.note(
                    key,
                    format!("the lab has no setting called {key:?}; ignored"),
                );
            } else {
                lab.apply(key, &raw, &mut clamp);
            }
        }
        (lab, clamp.notes)
    }

    /// Whether `key` is one of the lab's settings (directive keys and URL parameters are the same names).
    fn is_lab_key(key: &str) -> bool {
        LAB_KEYS.contains(&key)
    }

    /// These settings overridden by the lab's parameters in a URL query (`load=0.97&loop=closed`, with or without the
    /// leading `?`); other parameters belong to the rest of the page and are left alone.
    pub fn with_query(&self, query: &str) -> (LabSettings, Vec<SettingNote>) {
        let mut lab = self.clone();
        let mut clamp = Clamp::default();
        for (key, raw) in query_pairs(query) {
            lab.apply(&key, &raw, &mut clamp);
        }
        (lab, clamp.notes)
    }

    /// The URL query parameters that differ from `defaults`, in a fixed order, e.g. `[("load", "0.97")]`.
    pub fn to_query_pairs(&self, defaults: &LabSettings) -> Vec<(&'static str, String)> {
        let onoff = |b: bool| if b { "on" } else { "off" }.to_owned();
        let candidates = [
            (
                "load",
                self.load_percent != defaults.load_percent,
                format!("{:.2}", self.load()),
            ),
            (
                "loop",
                self.loop_kind != defaults.loop_kind,
                self.loop_kind.key().to_owned(),
            ),
            (
                "preset",
                self.preset != defaults.preset,
                self.preset.key().to_owned(),
            ),
            (
                "replicas",
                self.replicas != defaults.replicas,
                self.replicas.to_string(),
            ),
            (
                "max_num_seqs",
                self.max_num_seqs != defaults.max_num_seqs,
                self.max_num_seqs.to_string(),
            ),
            (
                "chunked_prefill",
                self.chunked_prefill != defaults.chunked_prefill,
                onoff(self.chunked_prefill),
            ),
            (
                "slo_ttft_ms",
                self.slo_ttft_ms != defaults.slo_ttft_ms,
                trim_number(self.slo_ttft_ms),
            ),
            (
                "slo_tpot_ms",
                self.slo_tpot_ms != defaults.slo_tpot_ms,
                trim_number(self.slo_tpot_ms),
            ),
            (
                "metric",
                self.metric != defaults.metric,
                metric_key(self.metric).to_owned(),
            ),
            ("seed", self.seed != defaults.seed, self.seed.to_string()),
        ];
        candidates
            .into_iter()
            .filter(|(_, differs, _)| *differs)
            .map(|(key, _, value)| (key, value))
            .collect()
    }

    /// `query` with the lab's parameters replaced by this state's (only those differing from `defaults`), the
    /// page's other parameters kept in order. Returns the query without `?`, empty when nothing is left.
    pub fn merge_into_query(&self, query: &str, defaults: &LabSettings) -> String {
        let mut pairs: Vec<(String, String)> = query_pairs(query)
            .into_iter()
            .filter(|(key, _)| !LabSettings::is_lab_key(key))
            .collect();
        pairs.extend(
            self.to_query_pairs(defaults)
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v)),
        );
        pairs
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

fn trim_number(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Splits a query string into decoded `(key, value)` pairs (`+` is a space; bad `%` escapes are kept literally).
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .trim_start_matches('?')
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(key), decode(value))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (escaped, bytes[i]) {
            (Some(byte), _) => {
                out.push(byte);
                i += 3;
            }
            (None, b'+') => {
                out.push(b' ');
                i += 1;
            }
            (None, byte) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
