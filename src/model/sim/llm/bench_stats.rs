//! A finite run's latency figures as `vllm bench serve` reports them: the mean, percentiles interpolated linearly
//! between order statistics (numpy's), the largest, and how many values. Both the exact figures of a run's requests
//! ([`stats`]) and the inter-token latencies kept in bounded memory (`super::itl`) are given in this form.

use serde::{Deserialize, Serialize};

/// Mean and percentiles of one latency over a finite run, seconds (numpy's linear interpolation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BenchStats {
    /// Arithmetic mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest value.
    pub max: f64,
    /// How many values (requests, or token gaps for ITL).
    pub count: u64,
}

/// The `q` quantile of `sorted`, interpolating linearly between order statistics as numpy does.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n => {
            let h = (n - 1) as f64 * q;
            let lo = h.floor() as usize;
            let hi = (lo + 1).min(n - 1);
            sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
        }
    }
}

/// The mean, percentiles and largest of `values` (sorted in place).
pub(crate) fn stats(values: &mut [f64]) -> BenchStats {
    if values.is_empty() {
        return BenchStats::default();
    }
    values.sort_unstable_by(f64::total_cmp);
    let n = values.len();
    BenchStats {
        mean: values.iter().sum::<f64>() / n as f64,
        p50: percentile(values, 0.5),
        p90: percentile(values, 0.9),
        p99: percentile(values, 0.99),
        max: values[n - 1],
        count: n as u64,
    }
}
