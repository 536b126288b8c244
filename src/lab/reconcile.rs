//! Settings that are fine one by one but clash together. Every field of [`LabSettings`] is clamped to its own range
//! where it comes in (`settings::Clamp`); this is the one place that makes the fields agree with each other and with
//! the chosen preset, so whatever the URL, a field, a lesson directive or a synced window gives, the lab simulates.
//!
//! Each change comes with a [`SettingNote`] in the learner's words ("token budget raised to 64, the number of
//! sequences"): the model's field paths (`service.llm.…`) never reach the page.

use super::settings::{LabSettings, Preset, SettingNote};
use super::sweep::scenario_for;
use crate::model::ServiceKind;

impl LabSettings {
    /// These settings made consistent, with one note per change; unchanged settings give no notes.
    ///
    /// - [`Preset::Yours`] without a calibrated server in this browser (a link made in another) becomes the course
    ///   box.
    /// - A load past the range the settings allow ([`LabSettings::load_range_percent`]: past 100% needs a queue cap)
    ///   is brought within it, without a note, as the load slider would.
    /// - `--max-num-batched-tokens` below `--max-num-seqs` is raised to it, as vLLM requires (every running
    ///   sequence must fit one decode token into an iteration's budget).
    /// - Anything the model still refuses (which the clamps above should make impossible) falls back to the
    ///   preset's own vLLM flags, then to the lab's defaults, with a note saying so rather than a dead lab.
    pub fn reconciled(&self) -> (LabSettings, Vec<SettingNote>) {
        let mut lab = self.clone();
        let mut notes = Vec::new();
        // A link can name the learner's own server but not carry it: without one in this browser, the course box.
        if lab.preset == Preset::Yours && lab.your_server.is_none() {
            lab.preset = Preset::Course;
            notes.push(SettingNote {
                key: "preset".to_owned(),
                message: "this browser holds no calibrated server yet, so the course box is shown: load your \
                          benchmark or scenario file under \"Your server\" to run yours"
                    .to_owned(),
            });
        }
        // Past 100% only a queue cap has a steady state: with the cap switched off (or on the textbook queue, which
        // has none) the load comes back within the slider's range, silently, as the slider itself would put it.
        lab.load_percent = lab.effective_load_percent();
        if let Some(budget) = lab.token_budget() {
            if budget < lab.max_num_seqs {
                lab.max_num_batched_tokens = Some(lab.max_num_seqs);
                notes.push(SettingNote {
                    key: "max_num_batched_tokens".to_owned(),
                    message: format!(
                        "token budget (--max-num-batched-tokens) raised from {budget} to {}, the number of \
                         sequences: each running sequence needs room for one token per iteration",
                        lab.max_num_seqs
                    ),
                });
            }
        }
        if lab.simulates() {
            return (lab, notes);
        }
        let flags = lab.with_preset_flags();
        if flags.simulates() {
            notes.push(SettingNote {
                key: "preset".to_owned(),
                message: format!(
                    "these vLLM flags cannot run together on the {} scenario; using its own \
                     (--max-num-seqs {}, --max-num-batched-tokens {}, --gpu-memory-utilization {})",
                    lab.preset.label(),
                    flags.max_num_seqs,
                    flags.token_budget().unwrap_or(0),
                    flags.gpu_memory_utilization
                ),
            });
            return (flags, notes);
        }
        notes.push(SettingNote {
            key: "preset".to_owned(),
            message: "these settings cannot run together; using the lab's defaults".to_owned(),
        });
        (LabSettings::default(), notes)
    }

    /// Whether the model accepts these settings at every load the lab sweeps.
    fn simulates(&self) -> bool {
        let (low, high) = self.load_range_percent();
        [low, high]
            .iter()
            .all(|&percent| scenario_for(self, f64::from(percent) / 100.0).is_ok())
    }

    /// The same settings with the preset's own `--max-num-seqs`, token budget, chunking and memory utilisation.
    pub fn with_preset_flags(&self) -> LabSettings {
        let defaults = LabSettings::default();
        let mut lab = LabSettings {
            max_num_batched_tokens: None,
            gpu_memory_utilization: defaults.gpu_memory_utilization,
            ..self.clone()
        };
        if let ServiceKind::Llm(fleet) = self.base_scenario().service {
            lab.max_num_seqs = fleet.max_num_seqs;
            lab.chunked_prefill = fleet.chunked_prefill;
        }
        lab
    }
}
