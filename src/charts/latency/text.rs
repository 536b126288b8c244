//! The latency chart in words: its accessible name (what the reader sees at the current load, the fit's band) and
//! its data table.

use super::super::format::{format_latency, format_percent, format_ratio};
use super::super::frame::Measured;
use super::super::DataTable;
use super::{latency_range, nearest, LatencyVsLoad, Percentile};

/// The chart's `aria-label`: p99 against p50 and the SLO at the current load, e.g.
/// "At 97% load p99 TTFT is 1.9 s, 4.1× p50 (460 ms) and above the 500 ms SLO; the mean is 610 ms. Latency axis:
/// linear." (the scale last, after the numbers).
pub fn latency_summary(data: &LatencyVsLoad) -> String {
    format!(
        "{}{} Latency axis: {}.",
        latency_findings(data),
        fit_findings(data),
        data.scale.adjective()
    )
}

/// What the fit's band says at the current load, and the knee's range: " Your fit's uncertainty allows p99 TTFT of
/// 120 ms – 180 ms here; its knee is at 62%–71% load."
fn fit_findings(data: &LatencyVsLoad) -> String {
    let Some(band) = &data.fit_band else {
        return String::new();
    };
    let metric = data.metric.label();
    let mut text = match band.at(data.current_load) {
        Some((p50, p99)) => format!(
            " Your fit's uncertainty allows p50 {metric} of {} and p99 of {} here.",
            latency_range(p50),
            latency_range(p99)
        ),
        None => String::new(),
    };
    if let Some((low, high)) = band.knee {
        text += &format!(
            " Its knee, where p99 {metric} doubles from light load, is at {}–{} load.",
            format_percent(low),
            format_percent(high)
        );
    }
    text
}

fn latency_findings(data: &LatencyVsLoad) -> String {
    let metric = data.metric.label();
    let Some(point) = nearest(&data.points, |p| p.offered_load, data.current_load) else {
        return format!("No {metric} results to show yet.");
    };
    let load = format_percent(point.offered_load);
    let Some(p99) = point.p99_s else {
        return format!(
            "At {load} load p99 {metric} has no steady value: the queue grows without bound."
        );
    };
    let mut sentence = format!("At {load} load p99 {metric} is {}", format_latency(p99));
    if let Some(p50) = point.p50_s.filter(|p50| *p50 > 0.0) {
        sentence += &format!(
            ", {} p50 ({})",
            format_ratio(p99 / p50),
            format_latency(p50)
        );
    }
    if let Some(slo) = &data.slo {
        let verdict = |value: f64| {
            if value > slo.threshold_s {
                "above"
            } else {
                "within"
            }
        };
        let threshold = format_latency(slo.threshold_s);
        match slo.percentile {
            Percentile::P99 => sentence += &format!(" and {} the {threshold} SLO", verdict(p99)),
            other => {
                let value = match other {
                    Percentile::P50 => point.p50_s,
                    _ => point.p95_s,
                };
                if let Some(value) = value {
                    let name = other.label();
                    sentence += &format!(
                        "; {name} is {}, {} the {threshold} SLO",
                        format_latency(value),
                        verdict(value)
                    );
                }
            }
        }
    }
    if let Some(mean) = point.mean_s {
        sentence += &format!("; the mean is {}", format_latency(mean));
    }
    sentence + "."
}

/// The chart's data table: one row per simulated load.
pub fn latency_table(data: &LatencyVsLoad) -> DataTable {
    let metric = data.metric.label();
    let mut header = vec![
        "Offered load".to_owned(),
        format!("p50 {metric}"),
        format!("p95 {metric}"),
        format!("p99 {metric}"),
        "p99 confidence interval".to_owned(),
        format!("Mean {metric}"),
    ];
    if let Some(exact) = &data.exact {
        header.push(exact.label.clone());
    }
    if data.fit_band.is_some() {
        header.extend([
            format!("p50 {metric}, range of your fit"),
            format!("p99 {metric}, range of your fit"),
        ]);
    }
    let cell = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), format_latency);
    let rows = data
        .points
        .iter()
        .map(|p| {
            let mut row = vec![
                format_percent(p.offered_load),
                cell(p.p50_s),
                cell(p.p95_s),
                cell(p.p99_s),
                p.p99_ci_s.map_or_else(
                    || "—".to_owned(),
                    |(lo, hi)| format!("{} – {}", format_latency(lo), format_latency(hi)),
                ),
                cell(p.mean_s),
            ];
            if let Some(exact) = &data.exact {
                row.push(cell(interpolate(&exact.points, p.offered_load)));
            }
            if let Some(band) = &data.fit_band {
                let (p50, p99) = band.at(p.offered_load).map_or_else(
                    || ("—".to_owned(), "—".to_owned()),
                    |(a, b)| (latency_range(a), latency_range(b)),
                );
                row.extend([p50, p99]);
            }
            row
        })
        .collect();
    let mut table = DataTable { header, rows };
    measured_rows(
        &mut table,
        &[(1, &data.measured.p50), (3, &data.measured.p99)],
        format_latency,
    );
    table
}

/// Appends the measured runs to a chart's table: a row per run, "your server at 12%" with each measured value
/// and the model's in its column (`(column, runs)`, the runs of every column in the same order).
pub(crate) fn measured_rows(
    table: &mut DataTable,
    columns: &[(usize, &Vec<Measured>)],
    format_value: fn(f64) -> String,
) {
    let runs = columns
        .iter()
        .map(|(_, runs)| runs.len())
        .max()
        .unwrap_or(0);
    for run in 0..runs {
        let mut row = vec!["—".to_owned(); table.header.len()];
        for (column, values) in columns {
            if let Some(m) = values.get(run) {
                row[0] = format!("your server at {}", format_percent(m.offered_load));
                row[*column] = format!(
                    "{} measured, model {} ({})",
                    format_value(m.measured),
                    format_value(m.model),
                    m.error_text()
                );
            }
        }
        table.rows.push(row);
    }
}

/// Linear interpolation in an ordered curve; `None` outside it. The exact curve is usually on a finer grid than the
/// simulated loads, so the table reads it at each simulated load.
fn interpolate(curve: &[(f64, f64)], x: f64) -> Option<f64> {
    curve
        .windows(2)
        .find_map(|pair| {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            if x < x0.min(x1) || x > x0.max(x1) {
                None
            } else if x1 == x0 {
                Some(y0)
            } else {
                Some(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
            }
        })
        .or_else(|| curve.iter().find(|(x0, _)| *x0 == x).map(|&(_, y)| y))
}
