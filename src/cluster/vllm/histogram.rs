//! Percentiles from a Prometheus histogram's cumulative buckets, interpolated within a bucket the way
//! `histogram_quantile` does, with the estimate saying when it only knows a lower bound.

use crate::charts::format::format_latency;

/// One cumulative bucket: `cumulative` observations were `≤ upper_bound`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    /// The `le` bound (the last bucket's is `+Inf`).
    pub upper_bound: f64,
    /// Observations at or below the bound.
    pub cumulative: f64,
}

/// One histogram series (one label set) with its buckets in rising order.
#[derive(Clone, Debug, PartialEq)]
pub struct HistogramSeries {
    /// Buckets in rising order of bound, ending with `+Inf` (the parser guarantees it).
    pub buckets: Vec<Bucket>,
    /// `_sum`, when the page has it and it is finite.
    pub sum: Option<f64>,
}

/// A percentile estimated from histogram buckets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QuantileEstimate {
    /// An estimate in seconds, interpolated within its bucket.
    Seconds(f64),
    /// The rank falls in the `+Inf` bucket: all we know is that it lies above the last finite bound (seconds).
    AboveLastBound(f64),
    /// The histogram has no observations (none yet, or none in the window).
    NoObservations,
}

impl QuantileEstimate {
    /// The estimate as text: `"412 ms"`, `"above the last finite bound 80 s"` or `"no requests"`.
    pub fn describe(&self) -> String {
        match self {
            Self::Seconds(s) => format_latency(*s),
            Self::AboveLastBound(bound) => {
                format!("above the last finite bound {}", format_latency(*bound))
            }
            Self::NoObservations => "no requests".to_owned(),
        }
    }

    /// A lower bound on the true value usable for SLO comparison (`None` without observations).
    pub fn at_least(&self) -> Option<f64> {
        match self {
            Self::Seconds(s) | Self::AboveLastBound(s) => Some(*s),
            Self::NoObservations => None,
        }
    }
}

impl HistogramSeries {
    /// Total observations (the `+Inf` bucket).
    pub fn count(&self) -> f64 {
        self.buckets.last().map_or(0.0, |b| b.cumulative)
    }

    /// Mean from `_sum ÷ _count`, when both are known and the count is positive.
    pub fn mean(&self) -> Option<f64> {
        let count = self.count();
        self.sum
            .filter(|sum| count > 0.0 && sum.is_finite())
            .map(|sum| sum / count)
    }

    /// Estimates quantile `q` (0 < q < 1) the way Prometheus's `histogram_quantile` does: find the first bucket whose
    /// cumulative count reaches rank `q × count`, then interpolate **linearly within that bucket**, assuming its
    /// observations are spread evenly between the previous bound (0 for the first bucket) and its own bound. So the
    /// answer is an estimate whose error is at most the bucket's width. A rank that lands in the `+Inf` bucket gives
    /// [`QuantileEstimate::AboveLastBound`] rather than a made-up number. `q` outside (0, 1) is clamped.
    pub fn quantile(&self, q: f64) -> QuantileEstimate {
        let count = self.count();
        if count.is_nan() || count <= 0.0 || !count.is_finite() {
            return QuantileEstimate::NoObservations;
        }
        let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
        let rank = q * count;
        let mut lower_bound = 0.0;
        let mut lower_count = 0.0;
        for (index, bucket) in self.buckets.iter().enumerate() {
            if bucket.cumulative >= rank && bucket.cumulative > lower_count {
                if bucket.upper_bound == f64::INFINITY {
                    return QuantileEstimate::AboveLastBound(lower_bound);
                }
                if index == 0 && bucket.upper_bound <= 0.0 {
                    return QuantileEstimate::Seconds(bucket.upper_bound);
                }
                let within = (rank - lower_count) / (bucket.cumulative - lower_count);
                let estimate = lower_bound + (bucket.upper_bound - lower_bound) * within;
                return QuantileEstimate::Seconds(estimate);
            }
            lower_bound = bucket.upper_bound;
            lower_count = bucket.cumulative;
        }
        QuantileEstimate::AboveLastBound(lower_bound)
    }

    /// p50, p95 and p99.
    pub fn percentiles(&self) -> Percentiles {
        Percentiles {
            p50: self.quantile(0.50),
            p95: self.quantile(0.95),
            p99: self.quantile(0.99),
        }
    }
}

/// The three percentiles the lesson reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Percentiles {
    /// Median.
    pub p50: QuantileEstimate,
    /// 95th percentile (the TPOT SLO's).
    pub p95: QuantileEstimate,
    /// 99th percentile (the TTFT SLO's).
    pub p99: QuantileEstimate,
}
