//! Chart data shared by the chart tests (`tests/charts.rs`) and the example that writes every chart out for a look
//! (`tests/examples/write_charts.rs`): deterministic sweeps shaped like the lesson's, and an SVG renderer.
// Each includer uses only some of these.
#![allow(dead_code)]

use goodput::charts::{
    ChartArea, ChartBackend, ChartResult, ExactCurve, LatencyDistribution, LatencyMetric,
    LatencyPoint, LatencyScale, LatencyVsLoad, Percentile, PlotRect, QueueOverTime, QueueSample,
    Slo, SvgSurface, ThroughputPoint, ThroughputVsGoodput,
};
use plotters::prelude::IntoDrawingArea;

/// Draws `chart` on a `width`×`height` SVG and returns the document.
pub fn render(
    width: u32,
    height: u32,
    chart: impl for<'a, 'b> FnOnce(&'b ChartArea<'a>) -> ChartResult<Option<PlotRect>>,
) -> String {
    let mut svg = String::new();
    {
        let root =
            ChartBackend::new(SvgSurface::new(&mut svg, (width, height))).into_drawing_area();
        chart(&root).expect("chart draws");
        root.present().expect("svg is written");
    }
    svg
}

/// A textbook-looking M/M/c sweep: the tail grows like 1/(1 − ρ); at 100% the open-loop queue has no steady state.
pub fn knee_sweep() -> LatencyVsLoad {
    let points = (85..=100)
        .map(|percent| {
            let rho = f64::from(percent) / 100.0;
            if percent == 100 {
                return LatencyPoint {
                    offered_load: rho,
                    ..LatencyPoint::default()
                };
            }
            let wait = 0.01 / (1.0 - rho);
            let p99 = 0.12 + 4.6 * wait;
            LatencyPoint {
                offered_load: rho,
                p50_s: Some(0.12 + 0.3 * wait),
                p95_s: Some(0.12 + 3.0 * wait),
                p99_s: Some(p99),
                mean_s: Some(0.12 + wait),
                p99_ci_s: Some((p99 * 0.85, p99 * 1.2)),
            }
        })
        .collect();
    let exact = ExactCurve {
        label: "p99 exact (Erlang C)".to_owned(),
        points: (850..995)
            .step_by(5)
            .map(|permille| {
                let rho = f64::from(permille) / 1000.0;
                (rho, 0.12 + 4.6 * 0.01 / (1.0 - rho))
            })
            .collect(),
    };
    LatencyVsLoad {
        metric: LatencyMetric::Ttft,
        points,
        exact: Some(exact),
        slo: Some(Slo {
            percentile: Percentile::P99,
            threshold_s: 0.5,
        }),
        current_load: 0.97,
        // The log axis, where every curve keeps its shape; the tests of the linear one say so.
        scale: LatencyScale::Log,
        measured: Default::default(),
        fit_band: None,
    }
}

pub fn goodput_sweep() -> ThroughputVsGoodput {
    let points = (85..=100)
        .map(|percent| {
            let rho = f64::from(percent) / 100.0;
            let throughput = 5.0 * rho;
            // Goodput follows throughput until the knee at 91%, then falls away.
            let met = if rho <= 0.91 {
                0.99
            } else {
                (0.99 - (rho - 0.91) * 7.0).max(0.05)
            };
            ThroughputPoint {
                offered_load: rho,
                throughput: Some(throughput),
                goodput: Some(throughput * met),
                turned_away: None,
            }
        })
        .collect();
    ThroughputVsGoodput {
        points,
        rate_unit: "req/s".to_owned(),
        current_load: 0.97,
        measured: Vec::new(),
    }
}

/// A capped server swept past saturation: throughput flattens at 5 req/s, the excess is turned away, goodput falls.
pub fn shedding_sweep() -> ThroughputVsGoodput {
    let points = (85..=120)
        .map(|percent| {
            let rho = f64::from(percent) / 100.0;
            let offered = 5.0 * rho;
            let throughput = offered.min(4.9);
            ThroughputPoint {
                offered_load: rho,
                throughput: Some(throughput),
                goodput: Some(throughput * (1.1 - rho).clamp(0.0, 0.25) * 4.0),
                turned_away: Some(offered - throughput),
            }
        })
        .collect();
    ThroughputVsGoodput {
        points,
        rate_unit: "req/s".to_owned(),
        current_load: 1.1,
        measured: Vec::new(),
    }
}

pub fn growing_queue() -> QueueOverTime {
    let samples = (0..=600)
        .map(|tenth| {
            let t = f64::from(tenth) / 10.0;
            // Running sits at the cap; the backlog climbs by about two requests a second, with some jitter.
            let jitter = ((tenth * 7919) % 13) as u32;
            QueueSample {
                time_s: t,
                running: 60 + jitter % 5,
                waiting: (2.0 * t) as u32 + jitter,
                ..Default::default()
            }
        })
        .collect();
    QueueOverTime {
        samples,
        max_num_seqs: Some(64),
        offered_load: 0.97,
    }
}

pub fn tail_heavy_samples() -> LatencyDistribution {
    // A deterministic mixture: most requests near 150 ms, a queued tail out to several seconds.
    let samples: Vec<f64> = (0..2000)
        .map(|i| {
            let u = (f64::from(i) + 0.5) / 2000.0;
            0.12 + 0.05 * u
                + if u > 0.8 {
                    // Queued requests: a tail that stretches as 1/(1 − u), out to a few seconds.
                    0.05 * (u - 0.8) / (1.0 - u + 0.002)
                } else {
                    0.0
                }
        })
        .collect();
    LatencyDistribution::from_samples(
        LatencyMetric::Ttft,
        samples,
        Some(Slo {
            percentile: Percentile::P99,
            threshold_s: 0.5,
        }),
        0.97,
    )
}
