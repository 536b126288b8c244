//! Chart 4: the distribution of per-request latency at the current load, with p50, p99 and the SLO marked. It shows
//! *who* the tail is: a long right shoulder of requests that waited in the queue.

use plotters::coord::combinators::IntoLogRange;
use plotters::element::Rectangle;

use super::format::{format_latency, format_percent};
use super::frame::{
    build_chart, decade_range, draw_note, draw_rule, draw_top_tags, frame, linear_range, plot_rect,
    Axes, LegendEntry, Margins, PlotRect, Rule, Scale, Series, Shade, Tag,
};
use super::latency::{LatencyMetric, Slo};
use super::style::{ChartStyle, Pen, Weight};
use super::surface::{ChartArea, ChartResult};
use super::DataTable;

/// Upper bound on histogram bins, so a million samples still give bars wide enough to see.
const MAX_BINS: usize = 40;

/// Everything chart 4 shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LatencyDistribution {
    /// Which latency the samples are of.
    pub metric: LatencyMetric,
    /// Histogram bars, log-spaced and ordered by latency (see [`LatencyDistribution::from_samples`], or the model's
    /// own histogram).
    pub bins: Vec<LatencyBin>,
    /// Median, seconds, as the model reports it (so chart, readouts and table agree).
    pub p50_s: Option<f64>,
    /// 99th percentile, seconds, as the model reports it.
    pub p99_s: Option<f64>,
    /// The SLO on this metric; its threshold is drawn as a dashed line.
    pub slo: Option<Slo>,
    /// The load the samples were taken at.
    pub offered_load: f64,
    /// No steady state (an open-loop queue at or past full load): the samples are the requests a finite run finished,
    /// and a longer run would shift them right, so p50 and p99 are floors.
    pub growing: bool,
}

/// One histogram bar: requests with latency in `[low_s, high_s)` (the last bar includes its upper edge).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LatencyBin {
    /// Lower edge, seconds.
    pub low_s: f64,
    /// Upper edge, seconds.
    pub high_s: f64,
    /// Requests in the bar.
    pub count: u64,
}

impl LatencyDistribution {
    /// A distribution binned from per-request latencies (log-spaced bars between the fastest and the slowest request),
    /// with p50 and p99 by the nearest-rank method, for callers that have samples rather than a histogram.
    /// Non-finite and non-positive samples are ignored: they have no place on the chart's log axis.
    pub fn from_samples(
        metric: LatencyMetric,
        samples_s: Vec<f64>,
        slo: Option<Slo>,
        offered_load: f64,
    ) -> Self {
        let mut sorted: Vec<f64> = samples_s
            .iter()
            .copied()
            .filter(|s| s.is_finite() && *s > 0.0)
            .collect();
        sorted.sort_unstable_by(f64::total_cmp);
        let rank = |q: f64| -> Option<f64> {
            let index =
                ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len().max(1)) - 1;
            sorted.get(index).copied()
        };
        LatencyDistribution {
            metric,
            p50_s: rank(0.50),
            p99_s: rank(0.99),
            bins: log_bins(&sorted),
            slo,
            offered_load,
            growing: false,
        }
    }

    /// Requests in all bars.
    pub fn total(&self) -> u64 {
        self.bins.iter().map(|bin| bin.count).sum()
    }

    /// Share of requests slower than `threshold_s`, counting a bar that straddles it in proportion to the part of the
    /// bar (on the log scale) above the threshold.
    pub fn share_above(&self, threshold_s: f64) -> f64 {
        let above: f64 = self
            .bins
            .iter()
            .map(|bin| {
                if bin.low_s >= threshold_s {
                    bin.count as f64
                } else if bin.high_s <= threshold_s {
                    0.0
                } else {
                    let part = (bin.high_s / threshold_s).ln() / (bin.high_s / bin.low_s).ln();
                    bin.count as f64 * part
                }
            })
            .sum();
        above / self.total().max(1) as f64
    }
}

/// Bars equal in width on a log scale between the fastest and slowest of `valid` (finite, positive samples).
fn log_bins(valid: &[f64]) -> Vec<LatencyBin> {
    let (Some(lo), Some(hi)) = (
        valid.iter().copied().reduce(f64::min),
        valid.iter().copied().reduce(f64::max),
    ) else {
        return Vec::new();
    };
    let (lo, hi) = if hi > lo * 1.000_001 {
        (lo, hi)
    } else {
        (lo / 1.2, hi * 1.2)
    };
    let count = ((valid.len() as f64).sqrt().ceil() as usize).clamp(1, MAX_BINS);
    let (ln_lo, ln_hi) = (lo.ln(), hi.ln());
    let step = (ln_hi - ln_lo) / count as f64;
    let mut bins: Vec<LatencyBin> = (0..count)
        .map(|i| LatencyBin {
            low_s: (ln_lo + step * i as f64).exp(),
            high_s: (ln_lo + step * (i + 1) as f64).exp(),
            count: 0,
        })
        .collect();
    for sample in valid {
        let index = (((sample.ln() - ln_lo) / step).floor().max(0.0) as usize).min(count - 1);
        bins[index].count += 1;
    }
    bins
}

/// Draws a histogram of per-request latency (share of requests per bin, log-spaced bins on a log axis) with p50 and
/// p99 as solid lines and the SLO as a dashed line, each tagged with its value above the plot.
pub fn latency_distribution(
    area: &ChartArea<'_>,
    data: &LatencyDistribution,
    style: &ChartStyle,
) -> ChartResult<Option<PlotRect>> {
    let palette = &style.palette;
    let metric = data.metric.label();
    let bars = Shade::new("share of requests", palette.histogram);
    let p50 = Series::new("p50", Pen::solid(palette.p50, Weight::Main));
    let p99 = Series::new("p99", Pen::solid(palette.p99, Weight::Main));
    let slo = Series::new("SLO", Pen::dashed(palette.slo, Weight::Guide));
    let mut legend: Vec<LegendEntry> = vec![(&bars).into(), (&p50).into(), (&p99).into()];
    if data.slo.is_some() {
        legend.push((&slo).into());
    }
    let title = format!(
        "{metric} distribution at {} load{}",
        format_percent(data.offered_load),
        if data.growing {
            ", so far (growing)"
        } else {
            ""
        }
    );
    let Some(body) = frame(area, style, &title, &legend)? else {
        return Ok(None);
    };
    let (bins, total) = (&data.bins, data.total());
    let markers = [data.p50_s, data.p99_s, data.slo.map(|slo| slo.threshold_s)];
    let x_range = decade_range(
        bins.iter()
            .flat_map(|b| [b.low_s, b.high_s])
            .chain(markers.into_iter().flatten()),
    );
    let share = |bin: &LatencyBin| bin.count as f64 / total.max(1) as f64;
    let y_range = linear_range(bins.iter().map(share), true, 0.1);
    let y_samples = [y_range.end];
    let axes = Axes {
        x_desc: &format!("{metric} (log scale)"),
        y_desc: "share of requests",
        x_format: &|x| format_latency(*x),
        y_format: &|y| format_percent(*y),
        x_scale: Scale::Log,
        y_scale: Scale::Linear,
        y_samples: &y_samples,
        x_labels: 30,
        y_labels: 6,
    };
    // Each marker is drawn with the pen its legend entry shows, and tagged with its value above the plot.
    let marks: Vec<(f64, &Series)> = [
        (data.p50_s, &p50),
        (data.p99_s, &p99),
        (data.slo.map(|slo| slo.threshold_s), &slo),
    ]
    .into_iter()
    .filter_map(|(value, line)| Some((value.filter(|v| *v > 0.0)?, line)))
    .collect();
    let tags: Vec<Tag> = marks
        .iter()
        .map(|(value, line)| Tag {
            at: *value,
            text: format!(
                "{} {}{}",
                line.label,
                floor(data, line),
                format_latency(*value)
            ),
            color: line.pen.colour,
        })
        .collect();
    let margins = Margins {
        top_tags: &tags,
        right_tags: &[],
        ..Margins::default()
    };
    let mut chart = build_chart(&body, style, x_range.log_scale(), y_range, &axes, margins)?;

    let fill = style.bar(bars.colour);
    chart.draw_series(
        bins.iter()
            .map(|bin| Rectangle::new([(bin.low_s, 0.0), (bin.high_s, share(bin))], fill)),
    )?;

    for (value, line) in &marks {
        draw_rule(&mut chart, style, Rule::AtX(*value), line.pen)?;
    }
    draw_top_tags(&body, &chart, style, &tags)?;
    if bins.is_empty() {
        draw_note(&chart, style, "no requests yet")?;
    }
    Ok(Some(plot_rect(area, &chart)))
}

/// "≥ " before a percentile that is a floor (a growing queue's finished requests), nothing before the SLO.
fn floor(data: &LatencyDistribution, line: &Series) -> &'static str {
    if data.growing && line.label != "SLO" {
        "≥ "
    } else {
        ""
    }
}

/// The chart's `aria-label`, e.g. "At 97% load the median TTFT is 460 ms and p99 is 1.9 s; 3.2% of 10000 requests
/// exceed the 500 ms SLO."
pub fn distribution_summary(data: &LatencyDistribution) -> String {
    let metric = data.metric.label();
    let load = format_percent(data.offered_load);
    let total = data.total();
    if total == 0 {
        return format!("No {metric} samples at {load} load yet.");
    }
    let mut sentence = format!("At {load} load");
    if data.growing {
        sentence += &format!(
            ", where the queue grows without bound, the {total} requests the run finished so far"
        );
        sentence += &growing_findings(data);
        return sentence + ".";
    }
    match (data.p50_s, data.p99_s) {
        (Some(p50), Some(p99)) => {
            sentence += &format!(
                " the median {metric} is {} and p99 is {}",
                format_latency(p50),
                format_latency(p99)
            )
        }
        (Some(p50), None) => {
            sentence += &format!(" the median {metric} is {}", format_latency(p50))
        }
        (None, Some(p99)) => sentence += &format!(" p99 {metric} is {}", format_latency(p99)),
        (None, None) => sentence += &format!(" {total} {metric} samples were drawn"),
    }
    if let Some(slo) = &data.slo {
        sentence += &format!(
            "; {} of {total} requests exceed the {} SLO",
            format_percent(data.share_above(slo.threshold_s)),
            format_latency(slo.threshold_s)
        );
    }
    sentence + "."
}

/// What a growing queue's finished requests say: p50 and p99 as floors, and the share over the SLO so far.
fn growing_findings(data: &LatencyDistribution) -> String {
    let metric = data.metric.label();
    let mut findings = String::new();
    if let (Some(p50), Some(p99)) = (data.p50_s, data.p99_s) {
        findings += &format!(
            " put the median {metric} at ≥ {} and p99 at ≥ {}, and growing",
            format_latency(p50),
            format_latency(p99)
        );
    }
    if let Some(slo) = &data.slo {
        findings += &format!(
            "; {} exceed the {} SLO",
            format_percent(data.share_above(slo.threshold_s)),
            format_latency(slo.threshold_s)
        );
    }
    findings
}

/// The chart's data table: one row per histogram bin.
pub fn distribution_table(data: &LatencyDistribution) -> DataTable {
    let header = vec![
        format!("{} range", data.metric.label()),
        "Requests".to_owned(),
        "Share".to_owned(),
    ];
    let total = data.total();
    let rows = data
        .bins
        .iter()
        .map(|bin| {
            vec![
                format!(
                    "{} – {}",
                    format_latency(bin.low_s),
                    format_latency(bin.high_s)
                ),
                bin.count.to_string(),
                format_percent(bin.count as f64 / total.max(1) as f64),
            ]
        })
        .collect();
    DataTable { header, rows }
}
