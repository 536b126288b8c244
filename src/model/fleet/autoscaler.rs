//! The Kubernetes Horizontal Pod Autoscaler's rule, with its defaults: `desired = ceil(current × value ÷ target)`,
//! no change while the ratio is within the tolerance (0.1), clamped to the bounds; scale-up at once but at most
//! `max(4 pods, 100%)` per sync (the default scale-up policies), scale-down to the highest recommendation of the
//! stabilisation window (300 s by default), so a dip has to last the whole window before replicas go. With several
//! metrics (KEDA's triggers) each proposes a count and the largest wins; a metric without data keeps the others from
//! scaling down, as the HPA skips a scale-down it cannot check against every metric.

use std::collections::VecDeque;

/// The HPA's default tolerance: no action while `|value ÷ target − 1|` is at most this.
pub const TOLERANCE: f64 = 0.1;
/// The HPA's default scale-down stabilisation window, seconds.
pub const SCALE_DOWN_STABILIZATION: f64 = 300.0;
/// The default scale-up policy's pods per sync (the other policy doubles; the larger wins).
const SCALE_UP_PODS: u32 = 4;

/// The HPA's memory: its recent recommendations.
#[derive(Clone, Debug)]
pub struct Hpa {
    targets: Vec<f64>,
    min: u32,
    max: u32,
    stabilization: f64,
    /// Recommendations of the stabilisation window: (time, replicas).
    recent: VecDeque<(f64, u32)>,
}

impl Hpa {
    /// An autoscaler aiming each of its metrics at its `targets` entry, between `min` and `max` replicas
    /// (`1 ≤ min ≤ max`), with a scale-down stabilisation window of `stabilization` seconds.
    pub fn new(targets: Vec<f64>, min: u32, max: u32, stabilization: f64) -> Self {
        Self {
            targets,
            min,
            max,
            stabilization,
            recent: VecDeque::new(),
        }
    }

    /// The replica count the HPA sets at `t`, with `current` replicas (ready and starting) and its metrics reading
    /// `values`, one per target (`None`: no data).
    pub fn decide(&mut self, t: f64, current: u32, values: &[Option<f64>]) -> u32 {
        let proposals: Vec<Option<u32>> = values
            .iter()
            .zip(&self.targets)
            .map(|(value, &target)| value.map(|v| self.propose(current, v, target)))
            .collect();
        let largest = proposals.iter().flatten().copied().max();
        let recommendation = match largest {
            // Without every metric, only a scale-up.
            Some(n) if n > current || proposals.iter().all(Option::is_some) => n,
            _ => current.clamp(self.min, self.max),
        };
        self.recent.push_back((t, recommendation));
        while self
            .recent
            .front()
            .is_some_and(|&(at, _)| at < t - self.stabilization)
        {
            self.recent.pop_front();
        }
        if recommendation >= current {
            let limit = (current + SCALE_UP_PODS).max(current.saturating_mul(2));
            recommendation.min(limit)
        } else {
            let highest = self.recent.iter().map(|&(_, r)| r).max().unwrap_or(current);
            highest.min(current)
        }
    }

    /// What one metric reading `value` against `target` asks for: `ceil(current × value ÷ target)`, or `current`
    /// within the tolerance, within the bounds.
    fn propose(&self, current: u32, value: f64, target: f64) -> u32 {
        if ((value / target) - 1.0).abs() > TOLERANCE {
            let raw = (f64::from(current) * value / target).ceil();
            raw.clamp(f64::from(self.min), f64::from(self.max)) as u32
        } else {
            current.clamp(self.min, self.max)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_rounds_up_tolerates_a_tenth_and_waits_before_scaling_down() {
        let mut hpa = Hpa::new(vec![5.0], 1, 10, 300.0);
        // 2 replicas reading 8 waiting each against 5: ceil(2 × 8 ÷ 5) = 4.
        assert_eq!(hpa.decide(0.0, 2, &[Some(8.0)]), 4);
        // Within 10% of the target: no change.
        assert_eq!(hpa.decide(15.0, 4, &[Some(5.4)]), 4);
        // No data: no change.
        assert_eq!(hpa.decide(30.0, 4, &[None]), 4);
        // A quiet reading asks for 1, but the window still holds the recommendation of 4.
        assert_eq!(hpa.decide(45.0, 4, &[Some(0.5)]), 4);
        // Once the window has passed the high recommendations, it goes.
        assert_eq!(hpa.decide(346.0, 4, &[Some(0.5)]), 1);
        // Scale-up is limited to max(4 pods, 100%) per sync, and to the maximum.
        assert_eq!(hpa.decide(360.0, 1, &[Some(100.0)]), 5);
        assert_eq!(hpa.decide(375.0, 8, &[Some(100.0)]), 10);
    }

    #[test]
    fn with_several_metrics_the_largest_proposal_wins() {
        // Waiting against 5 and running against 40, on 4 replicas.
        let mut hpa = Hpa::new(vec![5.0, 40.0], 1, 10, 0.0);
        // The queue is empty (asks for 1) but 60 run per replica: ceil(4 × 60 ÷ 40) = 6.
        assert_eq!(hpa.decide(0.0, 4, &[Some(0.0), Some(60.0)]), 6);
        // A queue of 10 per replica asks for 12, more than running's 6: the queue wins, up to the maximum.
        assert_eq!(hpa.decide(15.0, 6, &[Some(10.0), Some(40.0)]), 10);
        // Both low: down to the larger of the two, running's ceil(10 × 12 ÷ 40) = 3.
        assert_eq!(hpa.decide(30.0, 10, &[Some(0.0), Some(12.0)]), 3);
        // One metric without data: no scale-down on the other alone, but a scale-up still goes.
        assert_eq!(hpa.decide(45.0, 3, &[None, Some(4.0)]), 3);
        assert_eq!(hpa.decide(60.0, 3, &[None, Some(80.0)]), 6);
    }
}
