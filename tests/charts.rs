//! The knee lab's charts, drawn natively into SVG strings: every chart draws for typical, empty, one-point, gappy and
//! extreme data; the SVG holds the series the lesson needs; summaries and tables say exactly what the chart shows.

use goodput::charts::format::format_latency;
use goodput::charts::format::format_percent;
use goodput::charts::{
    chart_svg_layer, latency_summary, latency_table, latency_vs_load, throughput_vs_goodput,
    AnyChart, Chart, LatencyMetric, LatencyPoint, LatencyScale, LatencyVsLoad, Layer, Measured,
    MeasuredLatency, Percentile, Slo, ThroughputVsGoodput,
};

#[path = "support/chart_samples.rs"]
mod chart_samples;
use chart_samples::{goodput_sweep, growing_queue, knee_sweep, render, shedding_sweep};
#[path = "support/svg_text.rs"]
mod svg_text;
use svg_text::*;

// ---------------------------------------------------------------- latency vs load

#[test]
fn the_knee_chart_draws_every_percentile_the_band_the_exact_curve_and_the_slo() {
    let svg = render(1200, 600, |area| {
        latency_vs_load(area, &knee_sweep(), &style())
    });
    // The 100% point is missing, so each simulated series is one unbroken line over 85–99%, named where it ends
    // (a tag in its colour in the right margin) rather than by a legend swatch.
    assert_eq!(polylines(&svg, P50), 1, "p50 line, no legend swatch");
    assert_eq!(polylines(&svg, P95), 1);
    assert_eq!(polylines(&svg, MEAN), 1);
    assert_eq!(polylines(&svg, P99), 1);
    for name in ["p50", "p95", "p99", "mean"] {
        assert!(
            has_text(&svg, name),
            "the {name} line is named where it ends"
        );
    }
    assert!(
        polylines(&svg, EXACT) > 10,
        "the exact curve is dashed: many short strokes"
    );
    assert!(
        svg.contains("<polygon"),
        "the p99 confidence band is shaded"
    );
    assert!(
        has_text(&svg, "SLO 500 ms"),
        "the SLO line is tagged with its value"
    );
    let phone = render(320, 400, |area| {
        latency_vs_load(area, &knee_sweep(), &style())
    });
    assert!(
        has_text(&phone, "SLO: p99 TTFT ≤ 500 ms") && !has_text(&phone, "SLO 500 ms"),
        "on a phone the legend states the SLO in full instead of a tag"
    );
    assert!(has_text(&svg, "load 97%"), "the current load is marked");
    assert!(
        has_text(&svg, "TTFT (log scale)"),
        "the y axis says what it measures and that it is logarithmic"
    );
    assert!(has_text(&svg, "1.0 s"), "latency ticks carry units");
}

/// The y pixel of every vertex of the polylines stroked in `colour`.
fn polyline_ys(svg: &str, colour: &str) -> Vec<f64> {
    svg.lines()
        .filter(|line| line.contains("<polyline") && line.contains(&format!("stroke=\"{colour}\"")))
        .filter_map(|line| line.split("points=\"").nth(1)?.split('"').next())
        .flat_map(|points| points.split_whitespace())
        .filter_map(|pair| pair.split_once(',')?.1.parse().ok())
        .collect()
}

#[test]
fn on_the_linear_axis_the_tail_leaves_through_the_top_tagged_with_its_value() {
    let data = LatencyVsLoad {
        scale: LatencyScale::Linear,
        ..knee_sweep()
    };
    let mut plot = None;
    let svg = render(1200, 600, |area| {
        let drawn = latency_vs_load(area, &data, &style());
        plot = drawn.as_ref().ok().copied().flatten();
        drawn
    });
    let plot = plot.expect("a plot");
    assert!(has_text(&svg, "TTFT"), "the axis names the latency alone");
    assert!(!has_text(&svg, "TTFT (log scale)"));
    // Twice the median p99 (4.6 × 10 ms / (1 − 0.92) + 120 ms ≈ 695 ms) is the top: the p99 line at 99% (4.7 s)
    // leaves through it, ends on it, and its tag says where it went.
    let top = polyline_ys(&svg, P99)
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    assert!(
        top >= plot.top - 1.0,
        "the p99 line stays inside the plot: {top} above {}",
        plot.top
    );
    assert!(top <= plot.top + 1.0, "and reaches its top edge: {top}");
    assert!(
        has_text(&svg, "p99 ↑ 4.7 s"),
        "a line cut at the top is tagged with its last value: {:?}",
        texts(&svg)
    );
    assert!(
        has_text(&svg, "p50"),
        "p50 ends inside the plot, tagged by name"
    );
    assert!(has_text(&svg, "SLO 500 ms"), "the SLO stays in view");
    assert!(
        has_text(&svg, "0 s") || has_text(&svg, "0 ms"),
        "the axis starts at zero"
    );
}

#[test]
fn each_curve_marks_its_value_at_the_current_load() {
    for scale in [LatencyScale::Linear, LatencyScale::Log] {
        let data = LatencyVsLoad {
            scale,
            ..knee_sweep()
        };
        let svg = render(1200, 600, |area| latency_vs_load(area, &data, &style()));
        // At 97%: p50 220 ms, mean 453 ms, p95 1.1 s, p99 1.7 s (above the linear axis's top: an arrow says so).
        let p99 = if scale == LatencyScale::Linear {
            "p99 1.7 s ↑"
        } else {
            "p99 1.7 s"
        };
        for label in ["p50 220 ms", "mean 453 ms", p99] {
            assert!(
                has_text(&svg, label),
                "{scale:?}: {label} is marked at the current load: {:?}",
                texts(&svg)
            );
        }
        assert!(svg.contains("<circle"), "{scale:?}: a dot on each curve");
    }
}

#[test]
fn a_short_log_axis_labels_only_the_powers_of_ten() {
    let data = knee_sweep();
    // The knee sweep's axis spans two decades (100 ms – 10 s). A tall chart has room for 1-2-5 labels in each.
    let tall = render(900, 700, |area| latency_vs_load(area, &data, &style()));
    assert!(has_text(&tall, "100 ms") && has_text(&tall, "200 ms") && has_text(&tall, "500 ms"));
    // A short one (about 50 px a decade, where 1-2-5 labels need three labels' height and the space between)
    // keeps the decades alone rather than print labels over each other.
    let short = render(560, 260, |area| latency_vs_load(area, &data, &style()));
    assert!(has_text(&short, "100 ms") && has_text(&short, "1.0 s"));
    assert!(!has_text(&short, "200 ms") && !has_text(&short, "500 ms"));
}

#[test]
fn an_unstable_point_leaves_a_gap_instead_of_dropping_to_zero() {
    let mut data = knee_sweep();
    data.points[5].p50_s = None;
    let svg = render(1200, 600, |area| latency_vs_load(area, &data, &style()));
    assert_eq!(
        polylines(&svg, P50),
        2,
        "two runs either side of the gap (the line is named where it ends, not in the legend)"
    );
    assert_eq!(polylines(&svg, P95), 1, "other series are unaffected");
}

#[test]
fn the_knee_chart_survives_empty_single_point_extreme_and_zero_size_inputs() {
    let empty = LatencyVsLoad {
        current_load: 0.9,
        ..LatencyVsLoad::default()
    };
    let svg = render(800, 400, |area| latency_vs_load(area, &empty, &style()));
    assert!(has_text(&svg, "no results yet"));
    assert_eq!(
        polylines(&svg, P99),
        0,
        "no line, and no swatch: p99 is named where its line ends"
    );

    let mut one = knee_sweep();
    one.points.truncate(1);
    one.exact = None;
    let svg = render(800, 400, |area| latency_vs_load(area, &one, &style()));
    assert!(
        svg.contains(&format!("fill=\"{P99}\"")),
        "a lone p99 point is drawn as a dot, not lost"
    );

    let mut runaway = knee_sweep();
    runaway.points[14].p99_s = Some(1e3); // p99 = 1e6 ms
    runaway.points[14].p99_ci_s = Some((5e2, 2e3));
    let svg = render(800, 400, |area| latency_vs_load(area, &runaway, &style()));
    assert!(
        has_text(&svg, "1000 s"),
        "the axis grows to the runaway value: {:?}",
        texts(&svg)
    );
    assert!(
        has_text(&svg, "10 ms") || has_text(&svg, "100 ms"),
        "and still shows the bulk"
    );

    let svg = render(0, 0, |area| latency_vs_load(area, &knee_sweep(), &style()));
    assert!(
        !svg.contains("<polyline"),
        "nothing to draw on a zero-size canvas"
    );
}

#[test]
fn p99_separates_from_p50_near_saturation_in_the_summary() {
    let data = knee_sweep();
    let point = &data.points[12];
    assert_eq!(point.offered_load, 0.97);
    let (p99, p50, mean) = (
        point.p99_s.unwrap(),
        point.p50_s.unwrap(),
        point.mean_s.unwrap(),
    );
    assert_eq!(
        (
            format_latency(p99),
            format_latency(p50),
            format_latency(mean)
        ),
        ("1.7 s".into(), "220 ms".into(), "453 ms".into())
    );
    assert_eq!(
        latency_summary(&data),
        "At 97% load p99 TTFT is 1.7 s, 7.5× p50 (220 ms) and above the 500 ms SLO; the mean is 453 ms. Latency \
         axis: logarithmic."
    );
}

#[test]
fn the_summary_says_when_the_open_loop_queue_has_no_steady_state() {
    let mut data = knee_sweep();
    data.current_load = 1.0;
    assert_eq!(
        latency_summary(&data),
        "At 100% load p99 TTFT has no steady value: the queue grows without bound. Latency axis: logarithmic."
    );
    data.points.clear();
    assert_eq!(
        latency_summary(&data),
        "No TTFT results to show yet. Latency axis: logarithmic."
    );
}

#[test]
fn a_tpot_slo_on_p95_is_judged_on_p95() {
    let data = LatencyVsLoad {
        metric: LatencyMetric::Tpot,
        points: vec![LatencyPoint {
            offered_load: 0.9,
            p50_s: Some(0.020),
            p95_s: Some(0.038),
            p99_s: Some(0.055),
            mean_s: None,
            p99_ci_s: None,
        }],
        exact: None,
        slo: Some(Slo {
            percentile: Percentile::P95,
            threshold_s: 0.040,
        }),
        current_load: 0.9,
        scale: LatencyScale::Linear,
        measured: Default::default(),
        fit_band: None,
    };
    assert_eq!(
        latency_summary(&data),
        "At 90% load p99 TPOT is 55 ms, 2.8× p50 (20 ms); p95 is 38 ms, within the 40 ms SLO. Latency axis: \
         linear."
    );
}

#[test]
fn a_calibrated_servers_runs_are_rings_with_the_models_error_reaching_down_to_their_load() {
    let mut data = knee_sweep();
    let run = |load: f64, measured: f64, model: f64| Measured {
        offered_load: load,
        measured,
        model,
    };
    data.measured = MeasuredLatency {
        p50: vec![run(0.1, 0.080, 0.084), run(0.3, 0.095, 0.090)],
        p99: vec![run(0.1, 0.21, 0.20)],
    };
    let svg = render(1200, 600, |area| latency_vs_load(area, &data, &style()));
    // Each ring is a circle in its percentile's colour, and its error is written beside it.
    let rings = |colour: &str| {
        svg.lines()
            .filter(|l| l.contains("<circle") && l.contains(&format!("stroke=\"{colour}\"")))
            .count()
    };
    assert_eq!((rings(P50), rings(P99)), (2, 1), "{svg}");
    for error in ["model +5%", "model −5%"] {
        assert!(has_text(&svg, error), "{error} in {:?}", texts(&svg));
    }
    assert!(has_text(&svg, "○ your server, measured"));
    // The load axis reaches down to the runs (the lesson's 85%–100% otherwise).
    assert!(has_text(&svg, "20%"), "{:?}", texts(&svg));
    let table = latency_table(&data);
    let rows: Vec<_> = table
        .rows
        .iter()
        .filter(|r| r[0].starts_with("your server at"))
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][0], "your server at 10%");
    assert_eq!(rows[0][1], "80 ms measured, model 84 ms (+5%)");
    assert_eq!(rows[0][3], "210 ms measured, model 200 ms (−5%)");
    assert_eq!(rows[1][3], "—", "the second run gave no p99");
}

#[test]
fn the_latency_table_has_a_row_per_load_with_gaps_as_dashes() {
    let mut data = knee_sweep();
    data.points.truncate(2);
    data.points.push(LatencyPoint {
        offered_load: 1.0,
        ..LatencyPoint::default()
    });
    let table = latency_table(&data);
    assert_eq!(
        table.header,
        [
            "Offered load",
            "p50 TTFT",
            "p95 TTFT",
            "p99 TTFT",
            "p99 confidence interval",
            "Mean TTFT",
            "p99 exact (Erlang C)"
        ]
    );
    assert_eq!(
        table.rows[0],
        [
            "85%",
            "140 ms",
            "320 ms",
            "427 ms",
            "363 ms – 512 ms",
            "187 ms",
            "427 ms"
        ]
    );
    assert_eq!(table.rows[2], ["100%", "—", "—", "—", "—", "—", "—"]);
}

/// The stroke widths of the polylines stroked in `colour`, in drawing order (the legend swatch first).
fn stroke_widths(svg: &str, colour: &str) -> Vec<u32> {
    svg.lines()
        .filter(|line| line.contains("<polyline") && line.contains(&format!("stroke=\"{colour}\"")))
        .filter_map(|line| {
            line.split("stroke-width=\"")
                .nth(1)?
                .split('"')
                .next()?
                .parse()
                .ok()
        })
        .collect()
}

#[test]
fn every_legend_swatch_is_drawn_with_its_lines_pen() {
    let svg = render(1200, 600, |area| {
        latency_vs_load(area, &knee_sweep(), &style())
    });
    // p99 at the emphasis weight (1.5 × 2.5 px), p50 at the main weight (named by tags, they have no swatch), the
    // SLO as a guide.
    assert_eq!(stroke_widths(&svg, P99), [4]);
    assert_eq!(stroke_widths(&svg, P50), [3]);
    let slo = stroke_widths(&svg, "#000000");
    assert!(slo.len() > 2 && slo.iter().all(|w| *w == 2), "{slo:?}");
    // Dashed lines have dashed swatches: two strokes in the legend, then the dashes of the line.
    let exact = stroke_widths(&svg, EXACT);
    assert!(exact.len() > 2 && exact.iter().all(|w| *w == 3));
    let svg = render(1200, 600, |area| {
        throughput_vs_goodput(area, &goodput_sweep(), &style())
    });
    assert_eq!(
        stroke_widths(&svg, GOODPUT),
        [4],
        "goodput: solid, emphasised (named where it ends, no swatch)"
    );
    let throughput = stroke_widths(&svg, THROUGHPUT);
    assert!(throughput.len() > 3 && throughput.iter().all(|w| *w == 3));
    // The current-load marker is a hairline (0.5 × 2.5 px, rounded), below every series.
    assert_eq!(stroke_widths(&svg, "#555555"), [1]);
}

// ---------------------------------------------------------------- layers

/// The lines of an SVG document's elements, without its opening and closing tags.
fn svg_elements(svg: &str) -> Vec<&str> {
    let start = svg.find('>').map_or(0, |end| end + 1);
    let end = svg.rfind("</svg>").unwrap_or(svg.len());
    svg[start..end]
        .lines()
        .filter(|line| !line.is_empty())
        .collect()
}

/// `chart` drawn as `layer`, `size` pixels.
fn layer_svg(chart: &dyn Chart, size: (u32, u32), layer: Layer) -> String {
    chart_svg_layer(chart, &style(), size, layer).expect("chart draws")
}

/// A chart against load, drawn with the slider at the load it is given.
type AtLoad = Box<dyn Fn(f64) -> AnyChart>;

/// The charts against load, each as the lab draws it in one of its modes.
fn charts_against_load() -> Vec<(&'static str, AtLoad)> {
    fn latency(data: LatencyVsLoad) -> AtLoad {
        Box::new(move |load| {
            AnyChart::new(LatencyVsLoad {
                current_load: load,
                ..data.clone()
            })
        })
    }
    fn rates(data: ThroughputVsGoodput) -> AtLoad {
        Box::new(move |load| {
            AnyChart::new(ThroughputVsGoodput {
                current_load: load,
                ..data.clone()
            })
        })
    }
    let mut linear = knee_sweep();
    linear.scale = LatencyScale::Linear;
    let mut calibrated = linear.clone();
    calibrated.measured = MeasuredLatency {
        p50: vec![
            measured_run(0.1, 0.080, 0.084),
            measured_run(0.3, 0.095, 0.090),
        ],
        p99: vec![measured_run(0.1, 0.21, 0.20)],
    };
    let mut measured_rates = goodput_sweep();
    measured_rates.measured = vec![measured_run(0.5, 2.4, 2.5)];
    vec![
        ("log latency", latency(knee_sweep())),
        ("linear latency", latency(linear)),
        ("calibrated latency", latency(calibrated)),
        ("goodput", rates(goodput_sweep())),
        ("goodput with a measured run", rates(measured_rates)),
        ("shedding goodput", rates(shedding_sweep())),
    ]
}

fn measured_run(offered_load: f64, measured: f64, model: f64) -> Measured {
    Measured {
        offered_load,
        measured,
        model,
    }
}

#[test]
fn a_chart_against_load_is_its_base_from_any_load_under_its_overlay() {
    // The base is drawn at one load and kept while the slider moves: under each load's overlay it must give the
    // picture the whole chart at that load gives, at a desktop's size and a phone's.
    for (name, chart) in charts_against_load() {
        for size in [(1200, 600), (390, 320)] {
            let base = layer_svg(&chart(0.9), size, Layer::Base);
            assert!(
                !has_text(&base, "load 90%"),
                "{name}: the marker's tag is in the overlay"
            );
            for load in [0.85, 0.9, 0.931, 0.97, 0.99, 1.0] {
                let moved = chart(load);
                assert!(moved.same_base(&chart(0.9)), "{name} at {load}");
                let overlay = layer_svg(&moved, size, Layer::Overlay);
                assert!(
                    has_text(&overlay, &format!("load {}", format_percent(load))),
                    "{name} at {load}: {:?}",
                    texts(&overlay)
                );
                let whole = layer_svg(&moved, size, Layer::Whole);
                let layered = [svg_elements(&base), svg_elements(&overlay)].concat();
                let whole = svg_elements(&whole);
                let first_difference = whole.iter().zip(&layered).position(|(a, b)| a != b);
                assert!(
                    whole.len() == layered.len() && first_difference.is_none(),
                    "{name} at {load}, {size:?}: {} lines whole, {} layered, first differing: {:?}",
                    whole.len(),
                    layered.len(),
                    first_difference.map(|at| (whole[at], layered[at]))
                );
            }
        }
    }
}

#[test]
fn a_chart_against_load_draws_its_base_again_when_anything_but_the_load_changes() {
    let kept = |a: &dyn Chart, b: &dyn Chart| a.same_base(b);
    let knee = knee_sweep();
    let changed: [(&str, LatencyVsLoad); 6] = [
        ("the sweep", {
            let mut data = knee.clone();
            data.points.pop();
            data
        }),
        (
            "the axis",
            LatencyVsLoad {
                scale: LatencyScale::Linear,
                ..knee.clone()
            },
        ),
        (
            "the metric",
            LatencyVsLoad {
                metric: LatencyMetric::Tpot,
                ..knee.clone()
            },
        ),
        (
            "the SLO",
            LatencyVsLoad {
                slo: None,
                ..knee.clone()
            },
        ),
        (
            "the measured runs",
            LatencyVsLoad {
                measured: MeasuredLatency {
                    p50: vec![measured_run(0.1, 0.08, 0.084)],
                    p99: Vec::new(),
                },
                ..knee.clone()
            },
        ),
        // Off the axis the marker and its row above the plot go: the plot is laid out again.
        (
            "the marker leaving the axis",
            LatencyVsLoad {
                current_load: 0.5,
                ..knee.clone()
            },
        ),
    ];
    for (what, data) in changed {
        assert!(!kept(&data, &knee), "{what} changed");
        assert!(
            !AnyChart::new(data).same_base(&AnyChart::new(knee.clone())),
            "{what} changed, each chart held as any chart"
        );
    }
    let rates = goodput_sweep();
    let mut fewer = rates.clone();
    fewer.points.pop();
    assert!(!kept(&fewer, &rates));
    assert!(!kept(
        &ThroughputVsGoodput {
            rate_unit: "tok/s".to_owned(),
            ..rates.clone()
        },
        &rates
    ));
    assert!(kept(
        &ThroughputVsGoodput {
            current_load: 0.86,
            ..rates.clone()
        },
        &rates
    ));
    // Another kind of chart is never the same base, and a chart drawn in one layer never keeps one.
    assert!(!AnyChart::new(rates.clone()).same_base(&AnyChart::new(knee.clone())));
    let queue = growing_queue();
    assert!(!kept(&queue, &queue.clone()));
}
