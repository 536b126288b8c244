//! The table of lab settings, [`FIELDS`]: each setting's name, how its value is read from text and clamped (with a
//! [`SettingNote`] when it is not used as given), and how it is written back into a URL.

use super::{
    choice_from_key, choice_keys, Choice, LabSettings, LatencyMetric, LatencyScale, LoopKind,
    Preset, SettingNote, ARRIVAL_CV_RANGE, GPU_MEMORY_UTILIZATION_RANGE, MAX_LOAD_FRACTION,
    MAX_NUM_BATCHED_TOKENS_RANGE, MAX_NUM_SEQS_RANGE, OFF_VALUE, PRESET_VALUE, QUEUE_CAP_RANGE,
    REPLICAS_RANGE, SHEDDING_MAX_LOAD_PERCENT, SLO_TPOT_MS_RANGE, SLO_TTFT_MS_RANGE,
};

/// One lab setting: its name, other accepted spellings, and how its value is read and written.
pub struct Field {
    /// The name in a lesson directive and in the URL.
    pub key: &'static str,
    /// Other names accepted (never written).
    pub aliases: &'static [&'static str],
    pub(super) kind: Kind,
}

/// How a setting's value is read from text, clamped, and written back.
pub(super) enum Kind {
    /// The offered load: a fraction (at most [`MAX_LOAD_FRACTION`], e.g. `0.97`) or a percentage (above it, or
    /// ending in `%`, e.g. `97`), as a whole percentage within [`LabSettings::load_range_percent`].
    Load,
    /// A number within `range`, with `unit` in notes.
    Number {
        range: (f64, f64),
        unit: &'static str,
        get: fn(&LabSettings) -> f64,
        set: fn(&mut LabSettings, f64),
    },
    /// A number within `range`, or `off` (`None`).
    NumberOrOff {
        range: (f64, f64),
        get: fn(&LabSettings) -> Option<f64>,
        set: fn(&mut LabSettings, Option<f64>),
    },
    /// A whole number within `range`, or `preset` for the preset's own value (`None`).
    WholeOrPreset {
        range: (u32, u32),
        get: fn(&LabSettings) -> Option<u32>,
        set: fn(&mut LabSettings, Option<u32>),
    },
    /// A whole number within `range` (a fraction is rounded, with a note).
    Whole {
        range: (u32, u32),
        get: fn(&LabSettings) -> u32,
        set: fn(&mut LabSettings, u32),
    },
    /// On or off.
    Flag {
        get: fn(&LabSettings) -> bool,
        set: fn(&mut LabSettings, bool),
    },
    /// One of a [`Choice`]'s keys.
    Choice {
        allowed: fn() -> String,
        get: fn(&LabSettings) -> &'static str,
        /// Sets the value whose key is given; false when there is none.
        set: fn(&mut LabSettings, &str) -> bool,
    },
    /// The random seed, any whole number.
    Seed,
}

impl Field {
    /// A setting read as a number within `range` (`unit` after it in notes).
    const fn number(
        key: &'static str,
        range: (f64, f64),
        unit: &'static str,
        get: fn(&LabSettings) -> f64,
        set: fn(&mut LabSettings, f64),
    ) -> Field {
        Field {
            key,
            aliases: &[],
            kind: Kind::Number {
                range,
                unit,
                get,
                set,
            },
        }
    }

    /// A setting read as a whole number within `range`.
    const fn whole(
        key: &'static str,
        aliases: &'static [&'static str],
        range: (u32, u32),
        get: fn(&LabSettings) -> u32,
        set: fn(&mut LabSettings, u32),
    ) -> Field {
        Field {
            key,
            aliases,
            kind: Kind::Whole { range, get, set },
        }
    }

    /// A setting read as one of a [`Choice`]'s keys.
    const fn choice<T: Choice>(
        key: &'static str,
        aliases: &'static [&'static str],
        get: fn(&LabSettings) -> &'static str,
        set: fn(&mut LabSettings, &str) -> bool,
    ) -> Field {
        Field {
            key,
            aliases,
            kind: Kind::Choice {
                allowed: choice_keys::<T>,
                get,
                set,
            },
        }
    }
}

/// Every lab setting, in the order the URL writes them.
pub static FIELDS: [Field; 15] = [
    Field {
        key: "load",
        aliases: &[],
        kind: Kind::Load,
    },
    Field::choice::<LoopKind>(
        "loop",
        &["arrivals"],
        |s| s.loop_kind.key(),
        |s, key| choice_from_key(key).map(|v| s.loop_kind = v).is_some(),
    ),
    Field::number(
        "arrival_cv",
        ARRIVAL_CV_RANGE,
        "",
        |s| s.arrival_cv,
        |s, v| s.arrival_cv = v,
    ),
    Field::choice::<Preset>(
        "preset",
        &[],
        |s| s.preset.key(),
        |s, key| choice_from_key(key).map(|v| s.preset = v).is_some(),
    ),
    Field::whole(
        "replicas",
        &["servers"],
        REPLICAS_RANGE,
        |s| s.replicas,
        |s, v| s.replicas = v,
    ),
    Field::whole(
        "max_num_seqs",
        &[],
        MAX_NUM_SEQS_RANGE,
        |s| s.max_num_seqs,
        |s, v| s.max_num_seqs = v,
    ),
    Field {
        key: "chunked_prefill",
        aliases: &[],
        kind: Kind::Flag {
            get: |s| s.chunked_prefill,
            set: |s, v| s.chunked_prefill = v,
        },
    },
    Field {
        key: "max_num_batched_tokens",
        aliases: &[],
        kind: Kind::WholeOrPreset {
            range: MAX_NUM_BATCHED_TOKENS_RANGE,
            get: |s| s.max_num_batched_tokens,
            set: |s, v| s.max_num_batched_tokens = v,
        },
    },
    Field::number(
        "gpu_memory_utilization",
        GPU_MEMORY_UTILIZATION_RANGE,
        "",
        |s| s.gpu_memory_utilization,
        |s, v| s.gpu_memory_utilization = v,
    ),
    Field {
        key: "queue_cap",
        aliases: &[],
        kind: Kind::NumberOrOff {
            range: QUEUE_CAP_RANGE,
            get: |s| s.queue_cap,
            set: |s, v| s.queue_cap = v,
        },
    },
    Field::number(
        "slo_ttft_ms",
        SLO_TTFT_MS_RANGE,
        " ms",
        |s| s.slo_ttft_ms,
        |s, v| s.slo_ttft_ms = v,
    ),
    Field::number(
        "slo_tpot_ms",
        SLO_TPOT_MS_RANGE,
        " ms",
        |s| s.slo_tpot_ms,
        |s, v| s.slo_tpot_ms = v,
    ),
    Field::choice::<LatencyMetric>(
        "metric",
        &[],
        |s| s.metric.key(),
        |s, key| choice_from_key(key).map(|v| s.metric = v).is_some(),
    ),
    Field::choice::<LatencyScale>(
        "scale",
        &[],
        |s| s.scale.key(),
        |s, key| choice_from_key(key).map(|v| s.scale = v).is_some(),
    ),
    Field {
        key: "seed",
        aliases: &[],
        kind: Kind::Seed,
    },
];

/// Every name a lab setting answers to (keys and aliases), e.g. for telling the lab's URL parameters from the page's.
pub fn lab_keys() -> impl Iterator<Item = &'static str> {
    FIELDS
        .iter()
        .flat_map(|f| std::iter::once(f.key).chain(f.aliases.iter().copied()))
}

/// The field answering to `key`.
pub(super) fn field(key: &str) -> Option<&'static Field> {
    FIELDS
        .iter()
        .find(|f| f.key == key || f.aliases.contains(&key))
}

/// Collects notes while values are read and clamped.
#[derive(Default)]
pub(super) struct Clamp {
    pub(super) notes: Vec<SettingNote>,
}

impl Clamp {
    pub(super) fn note(&mut self, key: &str, message: String) {
        self.notes.push(SettingNote {
            key: key.to_owned(),
            message,
        });
    }

    /// A number within `range`; out-of-range values are clamped, unreadable ones keep `current`; a `whole` number
    /// is rounded (with a note).
    fn number(
        &mut self,
        key: &str,
        raw: &str,
        (range, unit, whole): ((f64, f64), &str, bool),
        current: f64,
    ) -> f64 {
        let Some(value) = raw.trim().parse::<f64>().ok().filter(|v| v.is_finite()) else {
            self.note(
                key,
                format!("{key}={raw:?} is not a number; using {current}{unit}"),
            );
            return current;
        };
        let clamped = value.clamp(range.0, range.1);
        if clamped != value {
            let (side, bound) = if value < range.0 {
                ("below", range.0)
            } else {
                ("above", range.1)
            };
            self.note(
                key,
                format!("{key}={raw} is {side} {bound}{unit}; using {clamped}{unit}"),
            );
        }
        if whole && clamped.fract() != 0.0 {
            self.note(
                key,
                format!(
                    "{key}={raw} is not a whole number; using {}{unit}",
                    clamped.round()
                ),
            );
        }
        if whole {
            clamped.round()
        } else {
            clamped
        }
    }

    /// An offered load written as a fraction (at most [`MAX_LOAD_FRACTION`]: `0.97`, `1.1`) or a percentage (above
    /// it, or ending in `%`: `97`, `97%`), as a whole percentage within `range` (see
    /// [`LabSettings::load_range_percent`]).
    fn load(&mut self, raw: &str, current: u32, range: (u32, u32)) -> u32 {
        let key = "load";
        let text = raw.trim();
        let (number, percent_sign) = match text.strip_suffix('%') {
            Some(number) => (number.trim(), true),
            None => (text, false),
        };
        let Some(value) = number.parse::<f64>().ok().filter(|v| v.is_finite()) else {
            self.note(
                key,
                format!("{key}={raw:?} is not a number; using {current}%"),
            );
            return current;
        };
        let fraction = !percent_sign && value <= MAX_LOAD_FRACTION;
        let percent = if !fraction { value } else { value * 100.0 };
        let (lo, hi) = (f64::from(range.0), f64::from(range.1));
        let used = percent.round().clamp(lo, hi);
        // Name the reading when it may surprise: a number above 1.2 is a percentage, so 1.5 is 1.5%, not 150%.
        let read_as = if !percent_sign && !fraction && percent < lo {
            format!(" (read as {percent}%: a fraction is at most {MAX_LOAD_FRACTION})")
        } else {
            String::new()
        };
        if percent > hi + 1e-9 {
            let why = if hi < f64::from(SHEDDING_MAX_LOAD_PERCENT) {
                " (past 100% needs a queue_cap)"
            } else {
                ""
            };
            self.note(
                key,
                format!("{key}={raw} is above {hi}%{why}; using {used}%"),
            );
        } else if percent < lo - 1e-9 {
            self.note(
                key,
                format!("{key}={raw} is below {lo}%{read_as}; using {used}%"),
            );
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
}

impl Field {
    /// Reads `raw` into `lab`, noting any value not used as given.
    pub(super) fn apply(&self, key: &str, raw: &str, lab: &mut LabSettings, clamp: &mut Clamp) {
        match &self.kind {
            Kind::Load => {
                lab.load_percent = clamp.load(raw, lab.load_percent, lab.load_range_percent())
            }
            Kind::Number {
                range,
                unit,
                get,
                set,
            } => {
                let value = clamp.number(key, raw, (*range, unit, false), get(lab));
                set(lab, value);
            }
            Kind::Whole { range, get, set } => {
                let range = (f64::from(range.0), f64::from(range.1));
                let value = clamp.number(key, raw, (range, "", true), f64::from(get(lab)));
                set(lab, value as u32);
            }
            Kind::NumberOrOff { range, get, set } => {
                if raw.trim() == OFF_VALUE {
                    set(lab, None);
                } else {
                    let current = get(lab).unwrap_or(range.0);
                    let readable = raw.trim().parse::<f64>().is_ok_and(f64::is_finite);
                    if readable {
                        set(
                            lab,
                            Some(clamp.number(key, raw, (*range, "", false), current)),
                        );
                    } else {
                        let used = get(lab).map_or(OFF_VALUE.to_owned(), |v| v.to_string());
                        clamp.note(
                            key,
                            format!("{key}={raw:?} is not a number (or {OFF_VALUE}); using {used}"),
                        );
                    }
                }
            }
            Kind::WholeOrPreset { range, get, set } => {
                let readable = raw.trim().parse::<f64>().is_ok_and(f64::is_finite);
                if raw.trim() == PRESET_VALUE {
                    set(lab, None);
                } else if !readable {
                    let used = get(lab).map_or("the preset's".to_owned(), |v| v.to_string());
                    clamp.note(
                        key,
                        format!("{key}={raw:?} is not a number (or {PRESET_VALUE}); using {used}"),
                    );
                } else {
                    let range = (f64::from(range.0), f64::from(range.1));
                    let value = clamp.number(key, raw, (range, "", true), range.1);
                    set(lab, Some(value as u32));
                }
            }
            Kind::Flag { get, set } => {
                let value = clamp.flag(key, raw, get(lab));
                set(lab, value);
            }
            Kind::Choice { allowed, get, set } => {
                if !set(lab, raw.trim()) {
                    clamp.note(
                        key,
                        format!(
                            "{key}={raw:?} is not one of {}; using {}",
                            allowed(),
                            get(lab)
                        ),
                    );
                }
            }
            Kind::Seed => match raw.trim().parse::<u64>() {
                Ok(seed) => lab.seed = seed,
                Err(_) => clamp.note(
                    key,
                    format!("{key}={raw:?} is not a whole number; using {}", lab.seed),
                ),
            },
        }
    }

    /// The value as the URL writes it.
    pub(super) fn encode(&self, lab: &LabSettings) -> String {
        match &self.kind {
            Kind::Load => format!("{:.2}", lab.load()),
            // Rust writes an f64 as the shortest text that reads back as the same number (`37.5`, `4`).
            Kind::Number { get, .. } => get(lab).to_string(),
            Kind::Whole { get, .. } => get(lab).to_string(),
            Kind::NumberOrOff { get, .. } => {
                get(lab).map_or(OFF_VALUE.to_owned(), |v| v.to_string())
            }
            Kind::WholeOrPreset { get, .. } => {
                get(lab).map_or(PRESET_VALUE.to_owned(), |v| v.to_string())
            }
            Kind::Flag { get, .. } => if get(lab) { "on" } else { "off" }.to_owned(),
            Kind::Choice { get, .. } => get(lab).to_owned(),
            Kind::Seed => lab.seed.to_string(),
        }
    }
}
