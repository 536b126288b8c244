//! The inter-token latencies of a finite run, in bounded memory. Every decode step gives each of its sequences one
//! gap of the step's length, so a run records one (length, tokens) pair a step: a long run at a low rate takes
//! hundreds of millions of steps. Up to [`MAX_EXACT_STEPS`] pairs are kept as they are (percentiles exact, as numpy
//! takes them); past that they are folded into a log histogram of 1024 buckets per octave (each 0.07% wide), whose
//! percentiles are within that of the exact ones, so the largest run allowed stays within a few hundred MB.

use super::bench_stats::BenchStats;
use std::collections::BTreeMap;

/// Most steps kept exactly: 64 MB of pairs.
pub const MAX_EXACT_STEPS: usize = 1 << 22;

/// Bits of the mantissa a histogram bucket keeps: 2¹⁰ buckets per octave.
const SUB_BITS: u32 = 10;
const SHIFT: u32 = 52 - SUB_BITS;

/// Gap lengths with how many tokens had each.
#[derive(Debug, Default)]
pub(crate) struct Itl {
    exact: Vec<(f64, u64)>,
    /// Once folded: tokens by bucket (the top bits of a length's `f64`, which order as the lengths do).
    folded: Option<BTreeMap<u64, u64>>,
    sum: f64,
    count: u64,
    max: f64,
}

impl Itl {
    /// `tokens` gaps of `length` seconds.
    pub fn record(&mut self, length: f64, tokens: u64) {
        if tokens == 0 {
            return;
        }
        let length = length.max(0.0);
        self.sum += length * tokens as f64;
        self.count += tokens;
        self.max = self.max.max(length);
        match &mut self.folded {
            Some(buckets) => *buckets.entry(length.to_bits() >> SHIFT).or_default() += tokens,
            None => {
                self.exact.push((length, tokens));
                if self.exact.len() >= MAX_EXACT_STEPS {
                    let mut buckets = BTreeMap::new();
                    for (v, c) in std::mem::take(&mut self.exact) {
                        *buckets.entry(v.to_bits() >> SHIFT).or_default() += c;
                    }
                    self.folded = Some(buckets);
                }
            }
        }
    }

    /// Mean, percentiles (numpy's linear interpolation between order statistics; within a bucket's width once
    /// folded) and maximum.
    pub fn stats(&mut self) -> BenchStats {
        if self.count == 0 {
            return BenchStats::default();
        }
        let n = self.count;
        let percentile = |at: &dyn Fn(u64) -> f64, q: f64| {
            let h = (n - 1) as f64 * q;
            let lo = h.floor() as u64;
            let (a, b) = (at(lo), at((lo + 1).min(n - 1)));
            a + (h - lo as f64) * (b - a)
        };
        let (sum, [p50, p90, p99]) = match &self.folded {
            None => {
                self.exact.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
                let exact = &self.exact;
                let at = |i: u64| order_statistic(exact.iter().copied(), i);
                // Summed in sorted order, as it always was: the same run gives the same digits.
                let sum = exact.iter().map(|&(v, c)| v * c as f64).sum();
                (sum, [0.5, 0.9, 0.99].map(|q| percentile(&at, q)))
            }
            Some(buckets) => {
                let max = self.max;
                let at = |i: u64| bucket_statistic(buckets, i).min(max);
                (self.sum, [0.5, 0.9, 0.99].map(|q| percentile(&at, q)))
            }
        };
        BenchStats {
            mean: sum / n as f64,
            p50,
            p90,
            p99,
            max: self.max,
            count: n,
        }
    }
}

/// The value of order statistic `i` (0-based) of sorted values with multiplicities.
fn order_statistic(sorted: impl Iterator<Item = (f64, u64)>, i: u64) -> f64 {
    let mut below = 0;
    let mut last = 0.0;
    for (v, c) in sorted {
        below += c;
        last = v;
        if i < below {
            return v;
        }
    }
    last
}

/// Order statistic `i` of the folded lengths: spread evenly inside its bucket.
fn bucket_statistic(buckets: &BTreeMap<u64, u64>, i: u64) -> f64 {
    let mut below = 0;
    let mut last = 0.0;
    for (&key, &c) in buckets {
        let (lo, hi) = (
            f64::from_bits(key << SHIFT),
            f64::from_bits((key + 1) << SHIFT),
        );
        last = hi;
        if i < below + c {
            let within = (i - below) as f64 + 0.5;
            return lo + (hi - lo) * within / c as f64;
        }
        below += c;
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folded_percentiles_stay_within_a_bucket_of_the_exact_ones() {
        let mut exact = Itl::default();
        let mut folded = Itl {
            folded: Some(BTreeMap::new()),
            ..Itl::default()
        };
        for k in 0..10_000u64 {
            let length = 0.02 + 1e-6 * (k * 7919 % 10_000) as f64;
            exact.record(length, 1 + k % 3);
            folded.record(length, 1 + k % 3);
        }
        let (a, b) = (exact.stats(), folded.stats());
        assert_eq!((a.count, a.max), (b.count, b.max));
        assert!((a.mean - b.mean).abs() < 1e-12 * a.mean);
        for (x, y) in [(a.p50, b.p50), (a.p90, b.p90), (a.p99, b.p99)] {
            assert!((x - y).abs() <= x / 1024.0, "{x} vs {y}");
        }
    }
}
