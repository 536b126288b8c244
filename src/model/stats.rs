//! Statistics collected during a run: log-bucketed histograms (O(1) insertion, bounded memory, quantiles within a
//! fraction of a percent), batch means for confidence intervals, and time-weighted averages with a sampled time series.

use serde::{Deserialize, Serialize};

/// Mean, percentiles and maximum of one latency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    /// Arithmetic mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest observed value.
    pub max: f64,
}

/// A 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConfidenceInterval {
    /// Point estimate (over the whole run).
    pub estimate: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

impl ConfidenceInterval {
    /// Half-width relative to the estimate (0 when the estimate is 0).
    pub fn relative_half_width(&self) -> f64 {
        if self.estimate > 0.0 {
            (self.high - self.low) / 2.0 / self.estimate
        } else {
            0.0
        }
    }
}

/// One bar of a latency histogram: `count` observations in `[low, high)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    /// Lower edge.
    pub low: f64,
    /// Upper edge.
    pub high: f64,
    /// Observations in the bar.
    pub count: u64,
}

/// Number of bars in a [`LogHistogram::bins`] chart.
pub const CHART_BINS: usize = 40;

/// Values below `2^MIN_EXP` count as zero; values above `2^MAX_EXP` fall in the top bucket.
const MIN_EXP: i64 = -32;
const MAX_EXP: i64 = 32;

/// A histogram with `2^SUB_BITS` buckets per octave: relative bucket width `2^-SUB_BITS`.
#[derive(Clone, Debug)]
pub struct LogHistogram<const SUB_BITS: u32> {
    counts: Vec<u32>,
    total: u64,
    sum: f64,
    max: f64,
}

/// The fine histogram used for reported percentiles: 128 buckets per octave (0.8% wide, interpolated within).
pub type FineHistogram = LogHistogram<7>;
/// The coarse histogram used per batch for confidence intervals: 32 buckets per octave.
pub type CoarseHistogram = LogHistogram<5>;

impl<const SUB_BITS: u32> Default for LogHistogram<SUB_BITS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const SUB_BITS: u32> LogHistogram<SUB_BITS> {
    const SUBS: i64 = 1 << SUB_BITS;
    const BUCKETS: usize = 1 + ((MAX_EXP - MIN_EXP) as usize) * (1 << SUB_BITS);

    /// An empty histogram.
    pub fn new() -> Self {
        Self {
            counts: vec![0; Self::BUCKETS],
            total: 0,
            sum: 0.0,
            max: 0.0,
        }
    }

    #[inline]
    fn index(v: f64) -> usize {
        if v < f64::from_bits(((MIN_EXP + 1023) as u64) << 52) {
            return 0;
        }
        let bits = v.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i64 - 1023;
        let sub = ((bits >> (52 - SUB_BITS)) & ((1u64 << SUB_BITS) - 1)) as i64;
        let idx = 1 + (exp - MIN_EXP) * Self::SUBS + sub;
        (idx as usize).min(Self::BUCKETS - 1)
    }

    /// Lower and upper edge of a bucket.
    fn edges(idx: usize) -> (f64, f64) {
        if idx == 0 {
            return (0.0, 0.0);
        }
        let i = idx as i64 - 1;
        let exp = MIN_EXP + i / Self::SUBS;
        let sub = (i % Self::SUBS) as f64;
        let base = 2f64.powi(exp as i32);
        let w = base / Self::SUBS as f64;
        (base + sub * w, base + (sub + 1.0) * w)
    }

    /// Records one non-negative observation.
    #[inline]
    pub fn record(&mut self, v: f64) {
        let v = v.max(0.0);
        self.counts[Self::index(v)] += 1;
        self.total += 1;
        self.sum += v;
        if v > self.max {
            self.max = v;
        }
    }

    /// Adds another histogram's observations.
    pub fn merge(&mut self, other: &Self) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += *b;
        }
        self.total += other.total;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }

    /// Forgets every observation.
    pub fn clear(&mut self) {
        self.counts.fill(0);
        self.total = 0;
        self.sum = 0.0;
        self.max = 0.0;
    }

    /// Number of observations.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// Mean (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.sum / self.total as f64
        }
    }

    /// Largest observation.
    pub fn max(&self) -> f64 {
        self.max
    }

    /// The `q`-quantile (nearest rank, interpolated linearly inside its bucket, never above the maximum).
    pub fn quantile(&self, q: f64) -> f64 {
        self.quantiles(&[q])[0]
    }

    /// Several quantiles in one pass; `qs` must be ascending.
    pub fn quantiles<const N: usize>(&self, qs: &[f64; N]) -> [f64; N] {
        let mut out = [0.0; N];
        if self.total == 0 {
            return out;
        }
        let mut k = 0;
        let mut below = 0u64;
        for (idx, &c) in self.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let c = u64::from(c);
            while k < N {
                let rank = ((qs[k] * self.total as f64).ceil() as u64).clamp(1, self.total);
                if rank > below + c {
                    break;
                }
                let (lo, hi) = Self::edges(idx);
                let frac = (rank - below) as f64 / c as f64;
                out[k] = (lo + (hi - lo) * frac).min(self.max);
                k += 1;
            }
            below += c;
            if k == N {
                break;
            }
        }
        for v in out.iter_mut().skip(k) {
            *v = self.max;
        }
        out
    }

    /// Mean, percentiles and maximum.
    pub fn latency_stats(&self) -> LatencyStats {
        let [p50, p90, p95, p99] = self.quantiles(&[0.5, 0.9, 0.95, 0.99]);
        LatencyStats {
            mean: self.mean(),
            p50,
            p90,
            p95,
            p99,
            max: self.max,
        }
    }

    /// The distribution as [`CHART_BINS`] bars of equal width on a log scale, from the smallest observation to the
    /// largest, so the whole tail shows (on a linear scale the bulk would share one bar). Zeros are left out: they
    /// have no place on a log axis. Empty when nothing above zero was observed.
    pub fn bins(&self) -> Vec<Bin> {
        let Some(first) = self
            .counts
            .iter()
            .skip(1)
            .position(|&c| c > 0)
            .map(|i| i + 1)
        else {
            return Vec::new();
        };
        let low = Self::edges(first).0;
        let high = self.max.max(low * 1.01);
        let step = (high / low).ln() / CHART_BINS as f64;
        let mut bins: Vec<Bin> = (0..CHART_BINS)
            .map(|i| Bin {
                low: low * (step * i as f64).exp(),
                high: low * (step * (i + 1) as f64).exp(),
                count: 0,
            })
            .collect();
        for (idx, &c) in self.counts.iter().enumerate().skip(first) {
            if c > 0 {
                let (lo, hi) = Self::edges(idx);
                let mid = ((lo + hi) / 2.0).min(high);
                let b = (((mid / low).ln() / step).floor().max(0.0) as usize).min(CHART_BINS - 1);
                bins[b].count += u64::from(c);
            }
        }
        bins
    }
}

/// Number of batches kept before pairs are merged (so 16..32 batches of equal size exist once the run is long).
const MAX_BATCHES: usize = 32;

/// Batch means for a latency: the run is cut into consecutive batches of equal size; each batch's mean, p50 and p99
/// is one nearly independent observation, and their spread gives a confidence interval. Batches double in size
/// (pairs merge) when there are too many, so this works for runs of unknown length.
#[derive(Clone, Debug)]
pub struct BatchMeans {
    batch_size: u64,
    done: Vec<CoarseHistogram>,
    current: CoarseHistogram,
}

impl BatchMeans {
    /// Starts with batches of `initial_batch_size` observations.
    pub fn new(initial_batch_size: u64) -> Self {
        Self {
            batch_size: initial_batch_size.max(1),
            done: Vec::new(),
            current: CoarseHistogram::new(),
        }
    }

    /// Records one observation.
    #[inline]
    pub fn record(&mut self, v: f64) {
        self.current.record(v);
        if self.current.count() >= self.batch_size {
            self.close_batch();
        }
    }

    fn close_batch(&mut self) {
        let full = std::mem::take(&mut self.current);
        self.done.push(full);
        if self.done.len() == MAX_BATCHES {
            let mut merged = Vec::with_capacity(MAX_BATCHES / 2);
            let mut it = std::mem::take(&mut self.done).into_iter();
            while let (Some(mut a), Some(b)) = (it.next(), it.next()) {
                a.merge(&b);
                merged.push(a);
            }
            self.done = merged;
            self.batch_size *= 2;
        }
    }

    /// Confidence intervals for mean, p50 and p99 around the given whole-run estimates, or `None` with fewer than
    /// four complete batches.
    pub fn intervals(&self, mean: f64, p50: f64, p99: f64) -> Option<[ConfidenceInterval; 3]> {
        let b = self.done.len();
        if b < 4 {
            return None;
        }
        let t = student_t_975(b - 1);
        let mut out = [ConfidenceInterval {
            estimate: 0.0,
            low: 0.0,
            high: 0.0,
        }; 3];
        let estimates = [mean, p50, p99];
        for (i, est) in estimates.into_iter().enumerate() {
            let vals: Vec<f64> = self
                .done
                .iter()
                .map(|h| match i {
                    0 => h.mean(),
                    1 => h.quantile(0.5),
                    _ => h.quantile(0.99),
                })
                .collect();
            let m = vals.iter().sum::<f64>() / b as f64;
            let var = vals.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (b - 1) as f64;
            let half = t * (var / b as f64).sqrt();
            out[i] = ConfidenceInterval {
                estimate: est,
                low: (est - half).max(0.0),
                high: est + half,
            };
        }
        Some(out)
    }
}

/// Two-sided 95% Student-t quantile for `df` degrees of freedom.
fn student_t_975(df: usize) -> f64 {
    const T: [f64; 31] = [
        f64::INFINITY,
        12.706,
        4.303,
        3.182,
        2.776,
        2.571,
        2.447,
        2.365,
        2.306,
        2.262,
        2.228,
        2.201,
        2.179,
        2.160,
        2.145,
        2.131,
        2.120,
        2.110,
        2.101,
        2.093,
        2.086,
        2.080,
        2.074,
        2.069,
        2.064,
        2.060,
        2.056,
        2.052,
        2.048,
        2.045,
        2.042,
    ];
    T.get(df).copied().unwrap_or(1.96)
}

/// One sample of the occupancy time series, like vLLM's `num_requests_running`, `num_requests_waiting` and (with a
/// KV budget) `kv_cache_usage_perc` gauges and `num_preemptions_total` counter.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct OccupancySample {
    /// Time since measuring started.
    pub t: f64,
    /// Requests being served (in a running batch, or in service).
    pub running: u32,
    /// Requests queued.
    pub waiting: u32,
    /// Share of the fleet's KV-cache blocks in use, 0–1 (LLM replicas with a KV budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_usage: Option<f64>,
    /// Preemptions since measuring started (LLM replicas with a KV budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemptions: Option<u64>,
}

/// Most samples kept in a time series; when full, every other sample is dropped and the interval doubles.
pub const MAX_SERIES: usize = 512;

/// Time-weighted averages of the running and waiting counts (and KV blocks in use), plus a bounded, evenly sampled
/// series of them.
#[derive(Clone, Debug)]
pub struct Occupancy {
    start: f64,
    last: f64,
    running: u32,
    waiting: u32,
    running_area: f64,
    waiting_area: f64,
    /// The fleet's KV blocks, when it has a budget.
    kv_total: Option<u64>,
    kv_used: u64,
    kv_area: f64,
    kv_peak: u64,
    preemptions: u64,
    interval: f64,
    next_sample: f64,
    series: Vec<OccupancySample>,
    started: bool,
    waiting_at_start: u32,
}

impl Occupancy {
    /// A tracker expecting to measure for about `expected_duration`, of a fleet with `kv_total` KV blocks (`None`:
    /// no KV budget).
    pub fn new(expected_duration: f64, kv_total: Option<u64>) -> Self {
        let interval = if expected_duration.is_finite() && expected_duration > 0.0 {
            expected_duration / (MAX_SERIES / 2) as f64
        } else {
            1.0
        };
        Self {
            start: 0.0,
            last: 0.0,
            running: 0,
            waiting: 0,
            running_area: 0.0,
            waiting_area: 0.0,
            kv_total,
            kv_used: 0,
            kv_area: 0.0,
            kv_peak: 0,
            preemptions: 0,
            interval,
            next_sample: 0.0,
            series: Vec::with_capacity(MAX_SERIES),
            started: false,
            waiting_at_start: 0,
        }
    }

    /// Starts measuring at time `t` (earlier changes only set the state).
    pub fn start(&mut self, t: f64) {
        if !self.started {
            self.started = true;
            self.start = t;
            self.last = t;
            self.next_sample = t;
            self.waiting_at_start = self.waiting;
            self.kv_peak = self.kv_used;
        }
    }

    /// Whether measuring has started.
    pub fn started(&self) -> bool {
        self.started
    }

    /// Advances the clock to `t` (the state held since the last call) and then sets the new state: requests running
    /// and waiting, and KV blocks in use (0 without a budget).
    #[inline]
    pub fn set(&mut self, t: f64, running: u32, waiting: u32, kv_used: u64) {
        if self.started {
            self.advance(t);
            self.kv_peak = self.kv_peak.max(kv_used);
        }
        self.running = running;
        self.waiting = waiting;
        self.kv_used = kv_used;
    }

    /// A running sequence was preempted (counted once measuring has started).
    #[inline]
    pub fn preempted(&mut self) {
        if self.started {
            self.preemptions += 1;
        }
    }

    /// Preemptions since measuring started.
    pub fn preemptions(&self) -> u64 {
        self.preemptions
    }

    /// Time-averaged and peak share of the KV blocks in use, 0–1; `None` without a KV budget.
    pub fn kv_usage(&self) -> Option<(f64, f64)> {
        let total = self.kv_total? as f64;
        let d = self.duration();
        let mean = if d > 0.0 {
            self.kv_area / d
        } else {
            self.kv_used as f64
        };
        Some((mean / total, self.kv_peak as f64 / total))
    }

    /// Advances the clock to `t` without changing the state.
    #[inline]
    pub fn advance(&mut self, t: f64) {
        if !self.started || t <= self.last {
            return;
        }
        let dt = t - self.last;
        self.running_area += f64::from(self.running) * dt;
        self.waiting_area += f64::from(self.waiting) * dt;
        self.kv_area += self.kv_used as f64 * dt;
        self.last = t;
        while self.next_sample <= t {
            if self.series.len() == MAX_SERIES {
                let mut i = 0;
                self.series.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.interval *= 2.0;
                self.next_sample = self.start + self.series.len() as f64 * self.interval;
                continue;
            }
            let kv_usage = self
                .kv_total
                .map(|total| self.kv_used as f64 / total as f64);
            self.series.push(OccupancySample {
                t: self.next_sample - self.start,
                running: self.running,
                waiting: self.waiting,
                kv_usage,
                preemptions: self.kv_total.map(|_| self.preemptions),
            });
            self.next_sample += self.interval;
        }
    }

    /// Length of the measured window.
    pub fn duration(&self) -> f64 {
        self.last - self.start
    }

    /// Time-averaged running and waiting counts.
    pub fn means(&self) -> (f64, f64) {
        let d = self.duration();
        if d > 0.0 {
            (self.running_area / d, self.waiting_area / d)
        } else {
            (f64::from(self.running), f64::from(self.waiting))
        }
    }

    /// The sampled series.
    pub fn series(&self) -> &[OccupancySample] {
        &self.series
    }

    /// Current waiting count and the count when measuring started.
    pub fn waiting_now_and_at_start(&self) -> (u32, u32) {
        (self.waiting, self.waiting_at_start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_are_within_a_bucket_of_the_exact_ones() {
        let mut h = FineHistogram::new();
        let n = 100_000;
        for i in 1..=n {
            h.record(i as f64 / 1000.0);
        }
        for q in [0.5, 0.9, 0.99] {
            let exact = q * n as f64 / 1000.0;
            assert!(
                (h.quantile(q) - exact).abs() / exact < 0.01,
                "q={q}: {} vs {exact}",
                h.quantile(q)
            );
        }
        assert_eq!(h.max(), 100.0);
        assert!((h.mean() - 50.0005).abs() < 1e-9);
    }

    #[test]
    fn zero_observations_sit_in_the_zero_bucket() {
        let mut h = FineHistogram::new();
        for _ in 0..90 {
            h.record(0.0);
        }
        for _ in 0..10 {
            h.record(5.0);
        }
        assert_eq!(h.quantile(0.5), 0.0);
        assert!((h.quantile(0.95) - 5.0).abs() < 0.05);
    }

    #[test]
    fn batches_double_and_stay_between_16_and_32() {
        let mut b = BatchMeans::new(10);
        for i in 0..100_000 {
            b.record((i % 17) as f64);
        }
        assert!((16..32).contains(&b.done.len()));
        let ci = b.intervals(8.0, 8.0, 16.0).expect("enough batches");
        assert!(ci[0].low <= 8.0 && ci[0].high >= 8.0);
    }

    #[test]
    fn occupancy_series_stays_bounded_and_averages_by_time() {
        let mut o = Occupancy::new(10.0, None);
        o.start(0.0);
        for k in 0..100_000 {
            let t = k as f64 * 0.01;
            o.set(t, (k % 2) as u32, 0, 0);
        }
        o.advance(1000.0);
        assert!(o.series().len() <= MAX_SERIES);
        assert!((o.means().0 - 0.5).abs() < 0.01);
    }
}
