//! Chart 1: latency percentiles against offered load, the picture of the knee.

use plotters::coord::combinators::IntoLogRange;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};

use super::format::{format_latency, format_percent};
use super::frame::{
    build_chart, decade_range, draw_gapped_band, draw_gapped_line, draw_measured, draw_note,
    draw_right_tags, draw_rule, draw_top_tags, end_tag, frame, is_narrow, measured_rings,
    plot_rect, Axes, Axis, Chart, LegendEntry, Margins, Measured, PlotRect, Rule, Scale, Series,
    Shade, Tag,
};
use super::style::{ChartStyle, Pen, Weight};
use super::surface::{start_overlay, ChartArea, ChartResult};

mod labels;
mod linear;
mod text;

pub use linear::LatencyScale;
use linear::{clip_at, draw_value_marks, linear_ceiling, ValueMark};
pub(crate) use text::measured_rows;
pub use text::{latency_summary, latency_table};

/// Which latency a chart shows.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum LatencyMetric {
    /// Time to first token: queueing delay plus prefill.
    #[default]
    Ttft,
    /// Time per output token (inter-token latency) while the request decodes.
    Tpot,
    /// Arrival to last token.
    EndToEnd,
}

impl LatencyMetric {
    /// The name used in titles, legends and sentences: "TTFT", "TPOT", "end-to-end latency".
    pub fn label(self) -> &'static str {
        match self {
            LatencyMetric::Ttft => "TTFT",
            LatencyMetric::Tpot => "TPOT",
            LatencyMetric::EndToEnd => "end-to-end latency",
        }
    }
}

/// A percentile an SLO can be stated on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Percentile {
    /// The median.
    P50,
    /// The 95th percentile (e.g. "p95 TPOT < 40 ms").
    P95,
    /// The 99th percentile (e.g. "p99 TTFT < 500 ms").
    #[default]
    P99,
}

impl Percentile {
    /// "p50", "p95" or "p99".
    pub fn label(self) -> &'static str {
        match self {
            Percentile::P50 => "p50",
            Percentile::P95 => "p95",
            Percentile::P99 => "p99",
        }
    }
}

/// A latency service-level objective: `percentile` of the metric must stay at or under `threshold_s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slo {
    /// The percentile the objective is stated on.
    pub percentile: Percentile,
    /// The threshold, in seconds.
    pub threshold_s: f64,
}

/// Simulated latency statistics at one offered load. `None` means there is no steady-state value — an open-loop queue
/// at or past 100% load grows without bound — and the chart leaves a gap there instead of drawing zero.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LatencyPoint {
    /// Offered load as a fraction of capacity (0.97 = 97%).
    pub offered_load: f64,
    /// Median, seconds.
    pub p50_s: Option<f64>,
    /// 95th percentile, seconds.
    pub p95_s: Option<f64>,
    /// 99th percentile, seconds.
    pub p99_s: Option<f64>,
    /// Mean, seconds.
    pub mean_s: Option<f64>,
    /// Confidence interval of the p99 estimate, `(low, high)` in seconds, drawn as a band around the p99 line.
    pub p99_ci_s: Option<(f64, f64)>,
}

/// An exact curve to draw beside the simulation, e.g. the Erlang C p99 of textbook (M/M/c) mode.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExactCurve {
    /// Legend and table heading, e.g. "p99 exact (Erlang C)".
    pub label: String,
    /// `(offered load, seconds)`, ordered by load.
    pub points: Vec<(f64, f64)>,
}

/// Everything chart 1 shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LatencyVsLoad {
    /// Which latency the percentiles are of.
    pub metric: LatencyMetric,
    /// One entry per simulated load, ordered by load.
    pub points: Vec<LatencyPoint>,
    /// The exact curve, in textbook mode.
    pub exact: Option<ExactCurve>,
    /// The SLO on this metric, drawn as a labelled horizontal line.
    pub slo: Option<Slo>,
    /// The load the slider is at, marked with a vertical line and a dot on each curve.
    pub current_load: f64,
    /// How the latency axis maps seconds.
    pub scale: LatencyScale,
    /// The learner's own server's runs, when the lab runs it: measured p50 and p99 beside the model's.
    pub measured: MeasuredLatency,
    /// The learner's own server's TTFT as the uncertainty of its fit allows, when the lab runs it as calibrated.
    pub fit_band: Option<FitBand>,
}

/// A calibrated server's p50 and p99 as ranges: what the fitted coefficients' uncertainty allows at each load.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FitBand {
    /// Ordered by load.
    pub points: Vec<FitBandPoint>,
    /// The knee (p99 TTFT twice its light-load value) as a range of loads, fractions.
    pub knee: Option<(f64, f64)>,
}

/// The range at one load.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FitBandPoint {
    /// Offered load, fraction.
    pub offered_load: f64,
    /// p50, lowest and highest, seconds.
    pub p50_s: (f64, f64),
    /// p99, lowest and highest, seconds.
    pub p99_s: (f64, f64),
}

impl FitBand {
    /// The p50 and p99 ranges at `load`, interpolated between the band's loads; `None` outside them.
    pub fn at(&self, load: f64) -> Option<((f64, f64), (f64, f64))> {
        self.points.windows(2).find_map(|pair| {
            let (a, b) = (&pair[0], &pair[1]);
            if load < a.offered_load || load > b.offered_load || b.offered_load <= a.offered_load {
                return None;
            }
            let t = (load - a.offered_load) / (b.offered_load - a.offered_load);
            let mix = |x: (f64, f64), y: (f64, f64)| (x.0 + t * (y.0 - x.0), x.1 + t * (y.1 - x.1));
            Some((mix(a.p50_s, b.p50_s), mix(a.p99_s, b.p99_s)))
        })
    }
}

/// "120 ms – 180 ms"
fn latency_range((low, high): (f64, f64)) -> String {
    format!("{} – {}", format_latency(low), format_latency(high))
}

/// A calibrated server's benchmark runs on the latency chart, each percentile in its line's colour.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeasuredLatency {
    /// Medians.
    pub p50: Vec<Measured>,
    /// 99th percentiles (a result file may not give them).
    pub p99: Vec<Measured>,
}

/// Draws latency percentiles against offered load: p50, p95, p99 (thickest, with its confidence band) and mean, the
/// exact curve dashed if given, the SLO as a dashed line tagged in the right margin, the current load, and each
/// curve's value there (a dot and its number).
///
/// The y axis is linear by default: near 100% load the tail grows like 1/(1 − ρ), and only a linear axis shows that
/// as the hockey stick that gives the knee its name. The axis stops at twice the sweep's median p99 (see
/// [`linear_ceiling`]), so p50, the mean and the SLO keep their height; a curve that runs past it leaves through the
/// top and is tagged there with its last value. On the log axis ([`LatencyScale::Log`]) every curve keeps its shape
/// and the gap between two lines is their ratio (p99/p50 = 4× looks the same wherever it happens).
pub fn latency_vs_load(
    area: &ChartArea<'_>,
    data: &LatencyVsLoad,
    style: &ChartStyle,
) -> ChartResult<Option<PlotRect>> {
    let lines = Lines::new(data, style);
    let narrow = is_narrow(area, style);
    let Some(body) = frame(
        area,
        style,
        &format!("{} vs offered load", data.metric.label()),
        &lines.legend(data, narrow),
    )?
    else {
        return Ok(None);
    };
    let measured_points = data.measured.p50.iter().chain(&data.measured.p99);
    let x_range = load_axis(data);
    let plot = Plot {
        area,
        body: &body,
        data,
        style,
        lines: &lines,
        narrow,
    };
    match data.scale {
        LatencyScale::Log => {
            let y_range = decade_range(
                latency_values(data)
                    .into_iter()
                    .chain(measured_points.map(|m| m.measured)),
            );
            let samples = [y_range.start, y_range.end, y_range.end / 2.0];
            plot.draw(x_range, y_range.log_scale(), (Scale::Log, &samples), None)
        }
        LatencyScale::Linear => {
            let ceiling = linear_ceiling(data);
            let samples = [0.0, ceiling, ceiling / 2.0];
            plot.draw(
                x_range,
                0.0..ceiling,
                (Scale::Linear, &samples),
                Some(ceiling),
            )
        }
    }
}

impl LatencyVsLoad {
    /// Whether this chart's base layer (everything but the load marker and the values read at it) is `earlier`'s:
    /// all it shows but the load is as it was, and the marker is in view in both or in neither (the row above the
    /// plot is kept for its tag only while it is).
    pub(crate) fn same_base_as(&self, earlier: &Self) -> bool {
        let LatencyVsLoad {
            metric,
            points,
            exact,
            slo,
            current_load,
            scale,
            measured,
            fit_band,
        } = self;
        *metric == earlier.metric
            && *points == earlier.points
            && *exact == earlier.exact
            && *slo == earlier.slo
            && *scale == earlier.scale
            && *measured == earlier.measured
            && *fit_band == earlier.fit_band
            && marker_stays_on_or_off(&load_axis(self), *current_load, earlier.current_load)
    }
}

/// The chart's load axis: the simulated loads, the measured runs' and the fit band's (from the first simulated load
/// up), and at least 85%–100%.
fn load_axis(data: &LatencyVsLoad) -> std::ops::Range<f64> {
    let first_simulated = data.points.first().map_or(0.0, |p| p.offered_load);
    let band_loads = data
        .fit_band
        .iter()
        .flat_map(|b| &b.points)
        .map(|p| p.offered_load)
        .filter(|load| *load >= first_simulated);
    let measured_loads = data
        .measured
        .p50
        .iter()
        .chain(&data.measured.p99)
        .map(|m| m.offered_load);
    load_range(
        data.points
            .iter()
            .map(|p| p.offered_load)
            .chain(measured_loads)
            .chain(band_loads),
    )
}

/// The series of the latency chart, each with its pen and legend name.
struct Lines {
    p50: Series,
    p95: Series,
    p99: Series,
    band: Shade,
    fit_p50: Shade,
    fit_p99: Shade,
    mean: Series,
    exact: Option<Series>,
    slo: Option<Series>,
    measured: Series,
}

impl Lines {
    fn new(data: &LatencyVsLoad, style: &ChartStyle) -> Lines {
        let palette = &style.palette;
        Lines {
            p50: Series::new("p50", Pen::solid(palette.p50, Weight::Main)),
            p95: Series::new("p95", Pen::solid(palette.p95, Weight::Main)),
            p99: Series::new("p99", Pen::solid(palette.p99, Weight::Emphasis)),
            band: Shade::new("p99 confidence band", palette.p99),
            fit_p50: Shade::new("p50 range of your fit", palette.p50),
            fit_p99: Shade::new("p99 range of your fit", palette.p99),
            mean: Series::new("mean", Pen::solid(palette.mean, Weight::Main)),
            exact: data.exact.as_ref().map(|exact| {
                Series::new(
                    exact.label.clone(),
                    Pen::dashed(palette.exact, Weight::Main),
                )
            }),
            slo: data.slo.map(|slo| {
                Series::new(
                    slo_text(&slo, data.metric),
                    Pen::dashed(palette.slo, Weight::Guide),
                )
            }),
            measured: Series::new(
                "○ your server, measured",
                Pen::solid(palette.marker, Weight::Main),
            ),
        }
    }

    /// p50, p95, p99 and the mean are named where their lines end (see `end_tags`), so the legend keeps only what
    /// has no end to name: the band, the exact curve, and on a phone the SLO.
    fn legend(&self, data: &LatencyVsLoad, narrow: bool) -> Vec<LegendEntry<'_>> {
        let mut legend: Vec<LegendEntry> = vec![(&self.band).into()];
        if data.fit_band.is_some() {
            legend.extend([
                LegendEntry::from(&self.fit_p50),
                LegendEntry::from(&self.fit_p99),
            ]);
        }
        legend.extend(self.exact.as_ref().map(LegendEntry::from));
        legend.extend(self.slo.as_ref().filter(|_| narrow).map(LegendEntry::from));
        if !data.measured.p50.is_empty() {
            legend.push((&self.measured).into());
        }
        legend
    }

    /// The simulated curves, bottom to top: the tail last so it is never hidden.
    fn curves(&self) -> [(Statistic, &Series); 4] {
        [
            (|p| p.mean_s, &self.mean),
            (|p| p.p50_s, &self.p50),
            (|p| p.p95_s, &self.p95),
            (|p| p.p99_s, &self.p99),
        ]
    }
}

/// One drawing of the latency chart, on either axis.
struct Plot<'p, 's> {
    area: &'p ChartArea<'s>,
    body: &'p ChartArea<'s>,
    data: &'p LatencyVsLoad,
    style: &'p ChartStyle,
    lines: &'p Lines,
    narrow: bool,
}

impl Plot<'_, '_> {
    /// Lays the chart out on `y_spec` (cut at `ceiling` on a linear axis) and draws it.
    fn draw<YS>(
        &self,
        x_range: std::ops::Range<f64>,
        y_spec: YS,
        (y_scale, y_samples): (Scale, &[f64]),
        ceiling: Option<f64>,
    ) -> ChartResult<Option<PlotRect>>
    where
        YS: AsRangedCoord<Value = f64> + Clone,
        YS::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let (data, style, lines) = (self.data, self.style, self.lines);
        let metric = data.metric.label();
        // On a phone the legend's "SLO: p99 TTFT ≤ 500 ms" names the line alone: its tag would be the widest.
        let mut right_tags = end_tags(&data.points, &lines.curves(), ceiling);
        right_tags.extend(
            data.slo
                .iter()
                .zip(&lines.slo)
                .filter(|_| !self.narrow)
                .map(|(slo, line)| Tag {
                    at: slo.threshold_s,
                    text: format!("SLO {}", format_latency(slo.threshold_s)),
                    color: line.pen.colour,
                }),
        );
        // Top to bottom, so a tag nudged clear of the one above keeps its place in the order.
        right_tags.sort_unstable_by(|a, b| b.at.total_cmp(&a.at));
        let (marker, marker_tag) = current_load_marker(style, data.current_load);
        let top_tags = [marker_tag];
        let margins = Margins {
            top_tags: &top_tags,
            right_tags: &right_tags,
            ..Margins::default()
        };
        let y_desc = match data.scale {
            LatencyScale::Linear => metric.to_owned(),
            LatencyScale::Log => format!("{metric} (log scale)"),
        };
        let axes = Axes {
            x_desc: "offered load (% of capacity)",
            y_desc: &y_desc,
            x_format: &|x| format_percent(*x),
            y_format: &|y| format_latency(*y),
            x_scale: Scale::Linear,
            y_scale,
            y_samples,
            x_labels: 8,
            y_labels: if y_scale == Scale::Log { 30 } else { 6 },
        };
        let mut chart = build_chart(self.body, style, x_range, y_spec, &axes, margins)?;
        draw_curves(&mut chart, style, data, lines, ceiling)?;
        if let (Some(line), Some(slo)) = (&lines.slo, &data.slo) {
            draw_rule(&mut chart, style, Rule::AtY(slo.threshold_s), line.pen)?;
        }
        draw_right_tags(self.body, &chart, style, &right_tags)?;
        if data.points.is_empty() {
            draw_note(&chart, style, "no results yet")?;
        }
        // What follows moves with the load: the marker, the values read at it, and the measured runs' labels, which
        // keep clear of those values.
        start_overlay(self.area)?;
        draw_rule(&mut chart, style, Rule::AtX(data.current_load), marker)?;
        let marks = value_marks(data, lines);
        let obstacles = label_obstacles(data, ceiling);
        let at = (data.current_load, marks.as_slice(), obstacles.as_slice());
        // The measured runs' labels last, where neither the values' labels nor any ring are (the rings sit among the
        // curves' dots at light load, where the runs were measured); the values' labels keep off the rings.
        let rings: Vec<_> = [&data.measured.p50, &data.measured.p99]
            .into_iter()
            .flat_map(|runs| measured_rings(&chart, style, runs))
            .collect();
        let mut drawn = draw_value_marks(
            self.body,
            &chart,
            style,
            at,
            ceiling,
            format_latency,
            &rings,
        )?;
        drawn.extend(rings);
        draw_measured(
            &mut chart,
            style,
            &data.measured.p50,
            style.palette.p50,
            &mut drawn,
        )?;
        draw_measured(
            &mut chart,
            style,
            &data.measured.p99,
            style.palette.p99,
            &mut drawn,
        )?;
        draw_top_tags(self.body, &chart, style, &top_tags)?;
        Ok(Some(plot_rect(self.area, &chart)))
    }
}

/// Each simulated curve's value at the sweep's point at the current load (none there, or a gap: no marks).
fn value_marks(data: &LatencyVsLoad, lines: &Lines) -> Vec<ValueMark> {
    let point = nearest(&data.points, |p| p.offered_load, data.current_load)
        .filter(|p| (p.offered_load - data.current_load).abs() < 0.005);
    let Some(point) = point else {
        return Vec::new();
    };
    lines
        .curves()
        .iter()
        .filter_map(|(value, line)| {
            Some(ValueMark {
                value: value(point).filter(|v| v.is_finite() && *v > 0.0)?,
                name: line.label.clone(),
                colour: line.pen.colour,
            })
        })
        .collect()
}

/// The lines the value labels keep clear of: each simulated curve as drawn (cut at `ceiling`, split at its gaps), the
/// exact curve and the SLO.
fn label_obstacles(data: &LatencyVsLoad, ceiling: Option<f64>) -> Vec<Vec<(f64, f64)>> {
    let statistics: [Statistic; 4] = [|p| p.mean_s, |p| p.p50_s, |p| p.p95_s, |p| p.p99_s];
    let mut curves: Vec<Vec<(f64, Option<f64>)>> = statistics
        .iter()
        .map(|value| {
            data.points
                .iter()
                .map(|p| (p.offered_load, value(p)))
                .collect()
        })
        .collect();
    curves.extend(
        data.exact
            .iter()
            .map(|exact| exact.points.iter().map(|&(x, y)| (x, Some(y))).collect()),
    );
    let x_range = load_range(data.points.iter().map(|p| p.offered_load));
    curves.extend(data.slo.map(|slo| {
        vec![
            (x_range.start, Some(slo.threshold_s)),
            (x_range.end, Some(slo.threshold_s)),
        ]
    }));
    let mut runs = Vec::new();
    for curve in curves {
        let curve = match ceiling {
            Some(top) => clip_at(curve, top),
            None => curve,
        };
        let mut run = Vec::new();
        for (x, y) in curve {
            match y.filter(|y| y.is_finite() && (ceiling.is_some() || *y > 0.0)) {
                Some(y) => run.push((x, y)),
                None => runs.push(std::mem::take(&mut run)),
            }
        }
        runs.push(run);
    }
    runs.retain(|run| run.len() > 1);
    runs
}

/// Everything drawn against the data: the p99 band, the simulated curves, the exact curve and the learner's measured
/// runs' rings, each cut at `ceiling` on a linear axis. Another series (an uncertainty band from a calibrated server,
/// say) belongs here, in the order it should sit among these.
fn draw_curves<X: Axis, Y: Axis>(
    chart: &mut Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    data: &LatencyVsLoad,
    lines: &Lines,
    ceiling: Option<f64>,
) -> ChartResult {
    // On a log axis a zero or negative latency has no place; treat it as missing like any other gap.
    let shown = |v: Option<f64>| match ceiling {
        Some(_) => v.filter(|v| v.is_finite()),
        None => v.filter(|v| *v > 0.0),
    };
    let cut = |points: Vec<(f64, Option<f64>)>| match ceiling {
        Some(ceiling) => clip_at(points, ceiling),
        None => points,
    };
    let band_points = data.points.iter().map(|p| {
        let ci = p
            .p99_ci_s
            .filter(|(lo, hi)| shown(Some(*lo)).is_some() && shown(Some(*hi)).is_some())
            .map(|(lo, hi)| match ceiling {
                Some(top) => (lo.min(top), hi.min(top)),
                None => (lo, hi),
            });
        (p.offered_load, ci)
    });
    draw_gapped_band(chart, style, band_points, &lines.band)?;
    if let Some(fit) = &data.fit_band {
        let clip = |(lo, hi): (f64, f64)| match ceiling {
            Some(top) => (lo.min(top), hi.min(top)),
            None => (lo, hi),
        };
        let range = |pick: fn(&FitBandPoint) -> (f64, f64)| {
            fit.points.iter().map(move |p| {
                (
                    p.offered_load,
                    shown(Some(pick(p).0)).map(|_| clip(pick(p))),
                )
            })
        };
        draw_gapped_band(chart, style, range(|p| p.p50_s), &lines.fit_p50)?;
        draw_gapped_band(chart, style, range(|p| p.p99_s), &lines.fit_p99)?;
    }
    for (value, line) in lines.curves() {
        let points = data
            .points
            .iter()
            .map(|p| (p.offered_load, shown(value(p))));
        draw_gapped_line(chart, style, cut(points.collect()), line.pen)?;
    }
    // The exact curve is drawn after the simulated series, dashed, on top of them: where simulation and theory agree
    // the dashes ride on the p99 line.
    if let (Some(line), Some(exact)) = (&lines.exact, &data.exact) {
        let points = exact.points.iter().map(|&(x, y)| (x, shown(Some(y))));
        draw_gapped_line(chart, style, cut(points.collect()), line.pen)?;
    }
    Ok(())
}

/// The current-load marker of the charts against load: a hairline at the slider's load, and its tag above the plot.
pub(crate) fn current_load_marker(style: &ChartStyle, load: f64) -> (Pen, Tag) {
    let marker = style.palette.marker;
    let tag = Tag {
        at: load,
        text: format!("load {}", format_percent(load)),
        color: marker,
    };
    (Pen::solid(marker, Weight::Hairline), tag)
}

/// Reads one statistic (p50, p95, p99, mean) of a point.
type Statistic = fn(&LatencyPoint) -> Option<f64>;

/// A tag in the right margin for each line, at the height of its last value (its heaviest load with a steady state).
/// On a linear axis a line that ends above `ceiling` is tagged at the top edge with that value: "p99 ↑ 14 s".
fn end_tags(
    points: &[LatencyPoint],
    series: &[(Statistic, &Series)],
    ceiling: Option<f64>,
) -> Vec<Tag> {
    // On a log axis a zero latency has no place: it counts as a gap.
    series
        .iter()
        .filter_map(|(value, line)| {
            let tag = end_tag(line, points.iter().map(|p| value(p).filter(|v| *v > 0.0)))?;
            Some(match ceiling {
                Some(top) if tag.at > top => Tag {
                    text: format!("{} ↑ {}", tag.text, format_latency(tag.at)),
                    at: top,
                    ..tag
                },
                _ => tag,
            })
        })
        .collect()
}

/// Whether `load` lies on `axis`: the load marker and its tag are drawn only then.
pub(crate) fn in_load_axis(axis: &std::ops::Range<f64>, load: f64) -> bool {
    load.is_finite() && load >= axis.start && load <= axis.end
}

/// For `same_base_as`: the marker at `load` is on `axis` exactly when the earlier one was, so the row kept above
/// the plot for its tag is the same. The axis is the earlier chart's too, since it depends only on the fields compared
/// before this.
pub(crate) fn marker_stays_on_or_off(
    axis: &std::ops::Range<f64>,
    load: f64,
    earlier_load: f64,
) -> bool {
    in_load_axis(axis, load) == in_load_axis(axis, earlier_load)
}

/// The load axis always spans at least 85%–100%, the lesson's range, and widens to any data outside it.
pub(crate) fn load_range(loads: impl IntoIterator<Item = f64>) -> std::ops::Range<f64> {
    let (mut lo, mut hi) = (0.85_f64, 1.0_f64);
    for load in loads.into_iter().filter(|l| l.is_finite()) {
        lo = lo.min(load);
        hi = hi.max(load);
    }
    lo..hi
}

fn latency_values(data: &LatencyVsLoad) -> Vec<f64> {
    let mut values = Vec::new();
    for p in &data.points {
        values.extend([p.p50_s, p.p95_s, p.p99_s, p.mean_s].into_iter().flatten());
        values.extend(p.p99_ci_s.into_iter().flat_map(|(lo, hi)| [lo, hi]));
    }
    if let Some(exact) = &data.exact {
        values.extend(exact.points.iter().map(|&(_, y)| y));
    }
    values.extend(data.slo.map(|slo| slo.threshold_s));
    values
}

/// "SLO: p99 TTFT ≤ 500 ms"
fn slo_text(slo: &Slo, metric: LatencyMetric) -> String {
    format!(
        "SLO: {} {} ≤ {}",
        slo.percentile.label(),
        metric.label(),
        format_latency(slo.threshold_s)
    )
}

/// The point nearest the current load: the summary describes what the reader sees under the marker.
pub(crate) fn nearest<T>(items: &[T], load_of: impl Fn(&T) -> f64, load: f64) -> Option<&T> {
    items
        .iter()
        .filter(|item| load_of(item).is_finite())
        .min_by(|a, b| {
            let (da, db) = ((load_of(a) - load).abs(), (load_of(b) - load).abs());
            da.total_cmp(&db)
        })
}
