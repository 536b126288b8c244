//! The knee lab without the page: its settings and their URL form ([`settings`]), made to agree with each other
//! ([`LabSettings::reconciled`]), the scenario they describe and the
//! sweep over load that runs it in passes ([`sweep`]), what the page shows from the results — charts, readouts and
//! the learner's tasks ([`figures`], [`tasks`]) — and the batch timeline at the same settings ([`timeline`]). Pure
//! Rust, tested natively; `src/components/widgets/knee_lab/` and `batch_timeline.rs` only drive it, the lab running
//! its sweep a slice at a time with `components::sliced_sweep`.

pub mod band;
pub mod figures;
mod reconcile;
pub mod settings;
pub mod sweep;
pub mod tasks;
pub mod timeline;

pub use figures::{Figures, ReadoutKey, Readouts};
pub use settings::{LabSettings, LoopKind, Preset, SettingNote};
pub use sweep::{measured_runs, scenario_for, simulated_metrics, sweep_for};
pub use tasks::LabTask;
pub use timeline::{timeline_figures, Compare, TimelineFigures, TimelineView};
