//! Tasks in the lab that tick themselves when the learner actually does them: each is a predicate over the lab's
//! settings and figures, checked whenever they change. The lesson's `@tasks` list words them (by the same ids).

use super::figures::Figures;
use super::settings::{LabSettings, LoopKind};
use crate::charts::LatencyMetric;

/// A lab task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LabTask {
    /// Open loop, goodput under 90% of throughput at the current load.
    GoodputBelow90,
    /// The current load is the first where p99 TTFT is above the SLO.
    FindTheCrossing,
    /// Open loop at 100%: no steady state.
    QueueRunsAway,
    /// Closed loop at 97% or more with p99 TTFT within the SLO.
    CloseTheLoop,
}

impl LabTask {
    /// Every task, in the order the checklist shows them.
    pub const ALL: [LabTask; 4] = [
        LabTask::GoodputBelow90,
        LabTask::FindTheCrossing,
        LabTask::QueueRunsAway,
        LabTask::CloseTheLoop,
    ];

    /// Stable id: the progress key, and the id the lesson's `@tasks` list uses.
    pub fn id(self) -> &'static str {
        match self {
            LabTask::GoodputBelow90 => "knee-lab/goodput-below-90",
            LabTask::FindTheCrossing => "knee-lab/p99-crosses-slo",
            LabTask::QueueRunsAway => "knee-lab/queue-runs-away",
            LabTask::CloseTheLoop => "knee-lab/closed-loop",
        }
    }

    /// Whether the lab, as it stands, shows the task done.
    pub fn is_done(self, settings: &LabSettings, figures: &Figures) -> bool {
        let r = &figures.readouts;
        let open = settings.loop_kind == LoopKind::Open;
        let slo_s = settings.slo_ttft_ms / 1000.0;
        match self {
            LabTask::GoodputBelow90 => open && r.goodput_share().is_some_and(|share| share < 0.9),
            LabTask::FindTheCrossing => {
                if settings.metric != LatencyMetric::Ttft {
                    return false;
                }
                let points = &figures.latency.points;
                let current = points
                    .iter()
                    .position(|p| (p.offered_load - settings.load()).abs() < 1e-9);
                current.is_some_and(|i| {
                    let above = |j: usize| points[j].p99_s.is_some_and(|p99| p99 > slo_s);
                    above(i) && (i == 0 || !above(i - 1))
                })
            }
            LabTask::QueueRunsAway => open && r.queue_growth_rate.is_some(),
            LabTask::CloseTheLoop => {
                !open
                    && settings.load_percent >= 97
                    && r.p99_s.is_some_and(|p99| p99 <= slo_s)
                    && settings.metric == LatencyMetric::Ttft
            }
        }
    }
}
