//! The knee lab's charts, drawn natively into SVG strings: every chart draws for typical, empty, one-point, gappy and
//! extreme data; the SVG holds the series the lesson needs; summaries and tables say exactly what the chart shows.

use goodput::charts::format::format_latency;
use goodput::charts::surface::{estimated_text_size, Paint, Surface, SurfaceResult, TextSpec};
use goodput::charts::{
    distribution_summary, distribution_table, latency_distribution, latency_summary, latency_table,
    latency_vs_load, queue_over_time, queue_summary, queue_table, throughput_summary,
    throughput_table, throughput_vs_goodput, ChartBackend, ChartSpec, ChartStyle, ChartTheme,
    DataTable, LatencyDistribution, LatencyMetric, LatencyPoint, LatencyScale, LatencyVsLoad,
    Measured, MeasuredLatency, Percentile, PlotRect, PredictionChart, PredictionMetric,
    QueueOverTime, QueueSample, Slo, ThroughputVsGoodput,
};
use plotters::prelude::IntoDrawingArea;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::FontTransform;
use plotters_backend::BackendCoord;

#[path = "support/chart_samples.rs"]
mod chart_samples;
use chart_samples::{
    goodput_sweep, growing_queue, knee_sweep, render, shedding_sweep, tail_heavy_samples,
};

/// Polylines stroked in `colour` (plotters writes every line series and every dash as one `<polyline>`).
fn polylines(svg: &str, colour: &str) -> usize {
    svg.lines()
        .filter(|line| line.contains("<polyline") && line.contains(&format!("stroke=\"{colour}\"")))
        .count()
}

fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            t.split_once('>')
                .and_then(|(_, rest)| rest.split_once("</text>"))
        })
        .map(|(text, _)| text.trim().replace("&apos;", "'"))
        .collect()
}

fn has_text(svg: &str, wanted: &str) -> bool {
    texts(svg).iter().any(|t| t == wanted)
}

const P50: &str = "#0072B2";
const P95: &str = "#E69F00";
const P99: &str = "#D55E00";
const MEAN: &str = "#009E73";
const EXACT: &str = "#CC79A7";
const THROUGHPUT: &str = "#0072B2";
const GOODPUT: &str = "#009E73";

fn style() -> ChartStyle {
    ChartStyle::new(ChartTheme::Light, 1.0)
}

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

// ---------------------------------------------------------------- throughput vs goodput

#[test]
fn throughput_keeps_rising_dashed_while_goodput_peels_off_solid() {
    let svg = render(1200, 600, |area| {
        throughput_vs_goodput(area, &goodput_sweep(), &style())
    });
    assert!(
        polylines(&svg, THROUGHPUT) > 10,
        "throughput is dashed: many short strokes"
    );
    assert_eq!(polylines(&svg, GOODPUT), 1, "goodput is one solid line");
    assert!(
        has_text(&svg, "goodput") && has_text(&svg, "throughput"),
        "each line is named where it ends"
    );
    assert!(svg.contains("<polygon"), "the gap between them is shaded");
    assert!(has_text(&svg, "work you paid for but can't count"));
    assert!(has_text(&svg, "completed (req/s)"));
    assert!(has_text(&svg, "load 97%"));
}

#[test]
fn a_capped_server_s_chart_adds_what_it_turned_away() {
    let data = shedding_sweep();
    let svg = render(1200, 600, |area| {
        throughput_vs_goodput(area, &data, &style())
    });
    assert!(has_text(&svg, "turned away (queue full)"));
    assert_eq!(
        polylines(&svg, EXACT),
        1 + 1,
        "turned away is one solid line (in its own colour), plus its legend swatch"
    );
    assert!(
        has_text(&svg, "120%"),
        "the load axis reaches past saturation"
    );
    assert_eq!(
        throughput_summary(&data),
        "At 110% load goodput is 0% of throughput (0.0 of 4.9 req/s), and 0.60 req/s are turned away; goodput peaks \
         at 85% load (4.2 req/s)."
    );
    let table = throughput_table(&data);
    assert_eq!(table.header[4], "Turned away (req/s)");
    assert_eq!(table.rows[25], ["110%", "4.9", "0.0", "0%", "0.60"]);
    // Without a cap there is no such series, legend entry or column.
    let plain = render(1200, 600, |area| {
        throughput_vs_goodput(area, &goodput_sweep(), &style())
    });
    assert!(!has_text(&plain, "turned away (queue full)"));
    assert_eq!(throughput_table(&goodput_sweep()).header.len(), 4);
}

#[test]
fn the_goodput_chart_survives_empty_single_point_missing_and_extreme_inputs() {
    let empty = ThroughputVsGoodput {
        rate_unit: "req/s".into(),
        current_load: 0.9,
        ..Default::default()
    };
    assert!(has_text(
        &render(800, 400, |a| throughput_vs_goodput(a, &empty, &style())),
        "no results yet"
    ));

    let mut data = goodput_sweep();
    data.points.truncate(1);
    let svg = render(800, 400, |a| throughput_vs_goodput(a, &data, &style()));
    assert!(
        svg.contains(&format!("fill=\"{GOODPUT}\"")),
        "a lone goodput point is a dot"
    );

    let mut data = goodput_sweep();
    data.points[3].goodput = None;
    data.points[15].throughput = Some(1e9);
    let svg = render(800, 400, |a| throughput_vs_goodput(a, &data, &style()));
    assert_eq!(
        polylines(&svg, GOODPUT),
        2,
        "the missing goodput point splits the line"
    );

    render(10, 10, |a| {
        throughput_vs_goodput(a, &goodput_sweep(), &style())
    });
}

#[test]
fn goodput_share_falls_past_the_knee_in_the_summary_and_table() {
    let data = goodput_sweep();
    assert_eq!(
        throughput_summary(&data),
        "At 97% load goodput is 57% of throughput (2.8 of 4.8 req/s); goodput peaks at 91% load (4.5 req/s)."
    );
    let table = throughput_table(&data);
    assert_eq!(
        table.header,
        [
            "Offered load",
            "Throughput (req/s)",
            "Goodput (req/s)",
            "Goodput share"
        ]
    );
    assert_eq!(table.rows[0], ["85%", "4.2", "4.2", "99%"]);
    assert_eq!(table.rows[12], ["97%", "4.8", "2.8", "57%"]);
}

// ---------------------------------------------------------------- queue over time

#[test]
fn the_waiting_queue_climbs_past_the_running_cap() {
    let svg = render(1200, 600, |area| {
        queue_over_time(area, &growing_queue(), &style())
    });
    assert_eq!(
        polylines(&svg, P50),
        1 + 1,
        "running: one line plus the legend swatch"
    );
    assert_eq!(
        polylines(&svg, P99),
        1 + 1,
        "waiting: one line plus the legend swatch"
    );
    assert!(has_text(&svg, "cap 64"), "the max_num_seqs cap is tagged");
    assert!(has_text(&svg, "Requests in the server at 97% load"));
    assert_eq!(
        queue_summary(&growing_queue()),
        "At 97% load over 60 s, on average 62 requests run (cap 64) and 66 wait, at most 130; the waiting queue is growing."
    );
}

#[test]
fn a_quiet_queue_reads_as_none_waiting() {
    let quiet = QueueOverTime {
        samples: (0..10)
            .map(|i| QueueSample {
                time_s: f64::from(i),
                running: 3,
                waiting: 0,
                ..Default::default()
            })
            .collect(),
        max_num_seqs: None,
        offered_load: 0.85,
    };
    assert_eq!(
        queue_summary(&quiet),
        "At 85% load over 9 s, on average 3.0 requests run and none wait."
    );
    assert_eq!(
        queue_summary(&QueueOverTime::default()),
        "No queue samples at 0% load yet."
    );
}

#[test]
fn the_queue_table_is_thinned_to_a_readable_length_and_keeps_the_last_sample() {
    let table = queue_table(&growing_queue());
    assert_eq!(table.header, ["Time (s)", "Running", "Waiting"]);
    assert!(
        (50..=60).contains(&table.rows.len()),
        "{} rows",
        table.rows.len()
    );
    assert_eq!(table.rows[0], ["0.0", "60", "0"]);
    assert_eq!(table.rows.last().unwrap()[0], "60.0");
}

#[test]
fn with_a_kv_budget_the_queue_chart_draws_the_cache_and_marks_preemptions() {
    let mut data = growing_queue();
    for (i, s) in data.samples.iter_mut().enumerate() {
        s.kv_usage = Some((0.5 + i as f64 / 1200.0).min(1.0));
        // Ten preemptions in the second half, one every thirty samples.
        s.preemptions = Some((i.saturating_sub(300) / 30) as u64);
    }
    assert!(data.has_kv_cache());
    assert_eq!(data.preemptions(), Some(10));
    let svg = render(1200, 600, |area| queue_over_time(area, &data, &style()));
    assert!(has_text(&svg, "KV cache in use (full at the cap)"));
    assert!(has_text(&svg, "preemptions per interval"));
    assert!(has_text(&svg, "cap 64, KV full"));
    let summary = queue_summary(&data);
    assert!(
        summary.ends_with(
            " The KV cache is 75% full on average, 100% at peak; 10 sequences were preempted."
        ),
        "{summary}"
    );
    let table = queue_table(&data);
    assert_eq!(
        table.header,
        [
            "Time (s)",
            "Running",
            "Waiting",
            "KV cache in use",
            "Preemptions so far"
        ]
    );
    assert_eq!(table.rows[0][3..], ["50%", "0"]);
    assert_eq!(table.rows.last().unwrap()[4], "10");
    // Without a budget nothing changes.
    assert_eq!(queue_table(&growing_queue()).header.len(), 3);
    assert!(!queue_summary(&growing_queue()).contains("KV"));
}

#[test]
fn the_queue_chart_survives_empty_single_sample_and_extreme_inputs() {
    let empty = QueueOverTime::default();
    assert!(has_text(
        &render(800, 400, |a| queue_over_time(a, &empty, &style())),
        "no samples yet"
    ));
    let one = QueueOverTime {
        samples: vec![QueueSample {
            time_s: 5.0,
            running: 8,
            waiting: 2,
            ..Default::default()
        }],
        max_num_seqs: Some(8),
        offered_load: 0.9,
    };
    let svg = render(800, 400, |a| queue_over_time(a, &one, &style()));
    assert!(
        svg.contains(&format!("fill=\"{P99}\"")),
        "a single sample is a dot"
    );
    let huge = QueueOverTime {
        samples: vec![
            QueueSample {
                time_s: 0.0,
                running: 64,
                waiting: 0,
                ..Default::default()
            },
            QueueSample {
                time_s: 1e6,
                running: 64,
                waiting: u32::MAX,
                ..Default::default()
            },
        ],
        max_num_seqs: Some(64),
        offered_load: 1.0,
    };
    render(800, 400, |a| queue_over_time(a, &huge, &style()));
    render(0, 0, |a| queue_over_time(a, &huge, &style()));
}

// ---------------------------------------------------------------- latency distribution

#[test]
fn the_distribution_marks_p50_p99_and_the_slo_above_a_long_tail() {
    let data = tail_heavy_samples();
    let svg = render(1200, 600, |area| {
        latency_distribution(area, &data, &style())
    });
    let bars = svg
        .lines()
        .filter(|l| l.contains("<rect") && l.contains("fill=\"#56B4E9\""))
        .count();
    assert!(
        bars >= 40,
        "one bar per bin plus the legend swatch, got {bars}"
    );
    assert!(has_text(
        &svg,
        &format!("p50 {}", format_latency(data.p50_s.unwrap()))
    ));
    assert!(has_text(
        &svg,
        &format!("p99 {}", format_latency(data.p99_s.unwrap()))
    ));
    assert!(has_text(&svg, "SLO 500 ms"));
    assert_eq!(
        distribution_summary(&data),
        "At 97% load the median TTFT is 145 ms and p99 is 944 ms; 2.5% of 2000 requests exceed the 500 ms SLO."
    );
}

#[test]
fn the_distribution_table_lists_log_spaced_bins_that_add_up() {
    let table = distribution_table(&tail_heavy_samples());
    assert_eq!(table.header, ["TTFT range", "Requests", "Share"]);
    assert_eq!(table.rows.len(), 40);
    let total: usize = table
        .rows
        .iter()
        .map(|row| row[1].parse::<usize>().unwrap())
        .sum();
    assert_eq!(total, 2000);
    assert_eq!(table.rows[0][0], "120 ms – 131 ms");
}

#[test]
fn the_distribution_survives_empty_single_and_extreme_samples() {
    let empty = LatencyDistribution::default();
    assert!(has_text(
        &render(800, 400, |a| latency_distribution(a, &empty, &style())),
        "no requests yet"
    ));
    assert_eq!(
        distribution_summary(&empty),
        "No TTFT samples at 0% load yet."
    );
    assert_eq!(
        distribution_table(&empty),
        DataTable {
            header: vec!["TTFT range".into(), "Requests".into(), "Share".into()],
            rows: vec![]
        }
    );

    let one = LatencyDistribution::from_samples(LatencyMetric::Tpot, vec![0.02], None, 0.9);
    assert_eq!(
        distribution_summary(&one),
        "At 90% load the median TPOT is 20 ms and p99 is 20 ms."
    );
    render(800, 400, |a| latency_distribution(a, &one, &style()));

    let extreme = LatencyDistribution::from_samples(
        LatencyMetric::EndToEnd,
        vec![0.001, 0.5, 1e3, f64::NAN, -1.0],
        None,
        1.0,
    );
    let svg = render(800, 400, |a| latency_distribution(a, &extreme, &style()));
    assert!(has_text(&svg, "p99 1000 s"));
    render(0, 0, |a| latency_distribution(a, &extreme, &style()));
}

// ---------------------------------------------------------------- themes and scale

#[test]
fn every_theme_paints_its_own_background_and_scales_with_the_device() {
    for (theme, background) in [
        (ChartTheme::Light, "#FFFFFF"),
        (ChartTheme::Dark, "#121418"),
        (ChartTheme::HighContrast, "#FFFFFF"),
    ] {
        let svg = render(1200, 600, |area| {
            latency_vs_load(area, &knee_sweep(), &ChartStyle::new(theme, 1.0))
        });
        assert!(svg.contains(&format!("fill=\"{background}\"")), "{theme:?}");
    }
    let crisp = ChartStyle::new(ChartTheme::Light, 2.0);
    assert_eq!(crisp.px(crisp.line_px), 5);
    assert!(
        ChartStyle::new(ChartTheme::Light, 1.0).text_px >= 14.0,
        "labels legible from the back of a room"
    );
    assert_eq!(ChartStyle::new(ChartTheme::Light, f64::NAN).scale, 1.0);
}

#[test]
fn a_projected_chart_has_larger_type_and_thicker_lines_at_the_same_pixel_scale() {
    let desk = ChartStyle::new(ChartTheme::HighContrast, 2.0);
    let projected = desk.clone().with_projection(2.0);
    assert_eq!(
        projected.scale, desk.scale,
        "the canvas resolution is the device's, not the projection's"
    );
    assert_eq!(projected.text_px, 2.0 * desk.text_px);
    assert_eq!(projected.title_px, 2.0 * desk.title_px);
    assert_eq!(projected.px(projected.line_px), 2 * desk.px(desk.line_px));
    assert_eq!(
        desk.clone().with_projection(0.5),
        desk,
        "projection never shrinks a chart"
    );
    assert_eq!(desk.clone().with_projection(f64::INFINITY), desk);
    let svg = render(1920, 1080, |area| {
        latency_vs_load(area, &knee_sweep(), &projected)
    });
    assert!(svg.contains("p99"), "a projected chart still draws");
}

#[test]
fn one_chart_spec_gives_the_picture_the_label_and_the_table_from_the_same_data() {
    use goodput::charts::{chart_svg, ChartSpec};
    let spec = ChartSpec::ThroughputVsGoodput(goodput_sweep());
    assert_eq!(spec.summary(), throughput_summary(&goodput_sweep()));
    assert_eq!(spec.table(), throughput_table(&goodput_sweep()));
    let svg = chart_svg(&spec, &style(), 1200, 600).expect("svg");
    assert!(has_text(&svg, "work you paid for but can't count"));
    assert!(
        svg.contains("font-size=\"14\""),
        "SVG text is the same 14 px as on the canvas, not 14 ÷ 1.24"
    );
}

#[test]
fn projected_type_grows_with_the_screen_but_never_past_what_the_chart_holds() {
    use goodput::charts::ChartStyle;
    // A big chart on a big screen takes the screen's factor; a small one is capped by its own size.
    assert_eq!(ChartStyle::fit_projection(2.7, 1700.0, 1000.0), 2.7);
    assert_eq!(ChartStyle::fit_projection(2.7, 400.0, 280.0), 1.0);
    assert!((ChartStyle::fit_projection(2.7, 630.0, 280.0) - 1.12).abs() < 1e-9);
    assert!((ChartStyle::fit_projection(2.7, 765.0, 540.0) - 1.7).abs() < 1e-9);
    // The lesson page (factor 1) and nonsense stay at 1.
    assert_eq!(ChartStyle::fit_projection(1.0, 2000.0, 2000.0), 1.0);
    assert_eq!(ChartStyle::fit_projection(f64::NAN, 800.0, 400.0), 1.0);
    assert_eq!(ChartStyle::fit_projection(3.0, 0.0, 0.0), 1.0);
}

// ---------------------------------------------------------------- layout on a phone

/// One text a chart drew and the box it covers, in device pixels: `(left, top, right, bottom)`.
#[derive(Clone, Debug)]
struct Placed {
    text: String,
    rect: (f64, f64, f64, f64),
}

impl Placed {
    fn overlaps(&self, other: &Placed) -> bool {
        let (a, b) = (self.rect, other.rect);
        a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
    }
}

/// A surface that keeps where every text went, measured as the SVG surface measures it (generous: 0.6 em a
/// character, where real sans-serif digits are 0.55 em), so a layout that fits here fits on the canvas.
struct TextRecorder<'a> {
    size: (u32, u32),
    placed: &'a mut Vec<Placed>,
}

impl Surface for TextRecorder<'_> {
    fn size(&self) -> (u32, u32) {
        self.size
    }
    fn line(&mut self, _: BackendCoord, _: BackendCoord, _: Paint) -> SurfaceResult {
        Ok(())
    }
    fn rect(&mut self, _: BackendCoord, _: BackendCoord, _: Paint, _: bool) -> SurfaceResult {
        Ok(())
    }
    fn path(&mut self, _: &[BackendCoord], _: Paint) -> SurfaceResult {
        Ok(())
    }
    fn polygon(&mut self, _: &[BackendCoord], _: Paint) -> SurfaceResult {
        Ok(())
    }
    fn circle(&mut self, _: BackendCoord, _: u32, _: Paint, _: bool) -> SurfaceResult {
        Ok(())
    }
    fn text(&mut self, text: &str, spec: &TextSpec<'_>, (x, y): BackendCoord) -> SurfaceResult {
        if text.is_empty() {
            return Ok(());
        }
        let (w, h) = estimated_text_size(text, spec);
        let (w, h) = (f64::from(w), f64::from(h));
        let dx = match spec.anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -w / 2.0,
            HPos::Right => -w,
        };
        let dy = match spec.anchor.v_pos {
            VPos::Top => 0.0,
            VPos::Center => -h / 2.0,
            VPos::Bottom => -h,
        };
        // The corners of the text's box around its anchor, turned as the text is (the y axis description reads
        // upwards), then moved to where it was drawn.
        let corners = [(dx, dy), (dx + w, dy), (dx, dy + h), (dx + w, dy + h)].map(|(cx, cy)| {
            let (tx, ty) = match spec.transform {
                FontTransform::None => (cx, cy),
                FontTransform::Rotate90 => (-cy, cx),
                FontTransform::Rotate180 => (-cx, -cy),
                FontTransform::Rotate270 => (cy, -cx),
            };
            (f64::from(x) + tx, f64::from(y) + ty)
        });
        let xs = corners.map(|c| c.0);
        let ys = corners.map(|c| c.1);
        let min = |v: [f64; 4]| v.into_iter().fold(f64::INFINITY, f64::min);
        let max = |v: [f64; 4]| v.into_iter().fold(f64::NEG_INFINITY, f64::max);
        self.placed.push(Placed {
            text: text.to_owned(),
            rect: (min(xs), min(ys), max(xs), max(ys)),
        });
        Ok(())
    }
    fn text_size(&self, text: &str, spec: &TextSpec<'_>) -> SurfaceResult<(u32, u32)> {
        Ok(estimated_text_size(text, spec))
    }
    fn present(&mut self) -> SurfaceResult {
        Ok(())
    }
}

/// Draws `chart` at `css` size and `ratio` device pixels per CSS pixel; returns the plot and every text drawn.
fn lay_out(chart: &ChartSpec, css: (f64, f64), ratio: f64) -> (PlotRect, Vec<Placed>) {
    lay_out_styled(chart, css, &ChartStyle::new(ChartTheme::Light, ratio))
}

/// [`lay_out`] in a given style (at the style's own scale).
fn lay_out_styled(
    chart: &ChartSpec,
    (width, height): (f64, f64),
    style: &ChartStyle,
) -> (PlotRect, Vec<Placed>) {
    let ratio = style.scale;
    let size = (
        (width * ratio).round() as u32,
        (height * ratio).round() as u32,
    );
    let mut placed = Vec::new();
    let plot = {
        let surface = TextRecorder {
            size,
            placed: &mut placed,
        };
        let root = ChartBackend::new(surface).into_drawing_area();
        chart
            .draw(&root, style)
            .expect("chart draws")
            .expect("room for a plot")
    };
    (plot, placed)
}

/// The prediction chart after Reveal: marker, curve, level and the real load, every tag it can have.
fn revealed_prediction() -> PredictionChart {
    let points: Vec<(f64, Option<f64>)> = (0..20)
        .map(|i| {
            let load = 0.8 + 0.01 * f64::from(i);
            (load, Some(0.12 + 0.004 / (1.0 - load)))
        })
        .collect();
    PredictionChart {
        metric: PredictionMetric::P99Ttft,
        target: "the SLO crossing".to_owned(),
        load_range: (0.8, 0.99),
        expected_points: points.len(),
        points,
        level: Some((0.5, "SLO 500 ms".to_owned())),
        guess: Some(0.9),
        actual: Some(0.99),
    }
}

/// Canvas sizes, CSS px, as style/lab.css sets them (`.chart-canvas`, less its border): on a 390 px and a 360 px wide
/// phone the lab's charts are 319 and 289 wide and 25rem tall, a chart prediction's 279 and 249; on a tablet, in one
/// column, 24rem tall.
const LAB_SIZES: [(f64, f64); 4] = [
    (319.0, 398.0),
    (289.0, 398.0),
    (560.0, 382.0),
    (720.0, 382.0),
];
const PREDICTION_SIZES: [(f64, f64); 3] = [(279.0, 398.0), (249.0, 398.0), (520.0, 382.0)];
const TIMELINE_SIZES: [(f64, f64); 4] = [
    (319.0, 574.0),
    (289.0, 574.0),
    (560.0, 542.0),
    (1000.0, 542.0),
];

/// The least plot height a chart keeps, CSS px: room for three decades of a log axis with a label each.
const MIN_PLOT_HEIGHT: f64 = 150.0;

#[test]
fn on_a_phone_or_a_tablet_every_chart_keeps_a_readable_plot_and_no_two_labels_overlap() {
    let mut runaway = knee_sweep();
    runaway.points[14].p99_s = Some(1e3);
    runaway.points[14].p99_ci_s = Some((5e2, 2e3));
    let lab = [
        ChartSpec::LatencyVsLoad(knee_sweep()),
        ChartSpec::LatencyVsLoad(runaway),
        ChartSpec::ThroughputVsGoodput(goodput_sweep()),
        ChartSpec::ThroughputVsGoodput(shedding_sweep()),
        ChartSpec::QueueOverTime(growing_queue()),
        ChartSpec::LatencyDistribution(tail_heavy_samples()),
    ]
    .map(|chart| (chart, &LAB_SIZES[..]));
    let prediction = (
        ChartSpec::Prediction(revealed_prediction()),
        &PREDICTION_SIZES[..],
    );
    // The batch timeline has a taller canvas of its own (style/lab.css, `.batch-timeline .chart-canvas`).
    let timeline = (
        ChartSpec::BatchTimeline(
            goodput::lab::timeline_figures(
                &goodput::lab::LabSettings {
                    load_percent: 99,
                    ..Default::default()
                },
                &Default::default(),
            )
            .main,
        ),
        &TIMELINE_SIZES[..],
    );
    for (chart, sizes) in lab.iter().chain([&prediction, &timeline]) {
        for &css in *sizes {
            for ratio in [1.0, 2.0, 3.0] {
                let at = format!(
                    "{} at {}×{} CSS px, ratio {ratio}",
                    chart.file_stem(),
                    css.0,
                    css.1
                );
                let (plot, mut placed) = lay_out(chart, css, ratio);
                // plotters lists each power of ten of a log axis twice (the last tick of a decade and the first of
                // the next) and prints the label twice on the same spot, which reads as one.
                placed.dedup_by(|b, a| a.text == b.text && a.rect == b.rect);
                let plot = plot.per(ratio);
                assert!(
                    plot.height() >= MIN_PLOT_HEIGHT,
                    "{at}: the plot is {:.0} px tall",
                    plot.height()
                );
                assert!(
                    plot.width() >= css.0 / 2.0,
                    "{at}: the plot is {:.0} px wide",
                    plot.width()
                );
                let (width, height) = (css.0 * ratio, css.1 * ratio);
                for (i, a) in placed.iter().enumerate() {
                    let (left, top, right, bottom) = a.rect;
                    assert!(
                        left >= 0.0 && top >= 0.0 && right <= width && bottom <= height,
                        "{at}: {:?} leaves the canvas at {:?}",
                        a.text,
                        a.rect
                    );
                    for b in &placed[i + 1..] {
                        assert!(
                            !a.overlaps(b),
                            "{at}: {:?} {:?} overlaps {:?} {:?}",
                            a.text,
                            a.rect,
                            b.text,
                            b.rect
                        );
                    }
                }
            }
        }
    }
}

/// The canvases of the charts a learner watches while dragging the load (the lab's latency and goodput charts, a
/// chart prediction), CSS px less the border, as style/lab.css sizes them: a 360 and a 390 px phone, a tablet's
/// single column, a 1280 px laptop's two columns, a 1920 px screen's.
const WATCHED_SIZES: [(f64, f64); 6] = [
    (289.0, 398.0),
    (319.0, 398.0),
    (700.0, 366.0),
    (590.0, 366.0),
    (640.0, 400.0),
    (900.0, 430.0),
];

#[test]
fn the_charts_a_learner_watches_spend_most_of_their_height_on_the_plot() {
    let mut runaway = knee_sweep();
    runaway.points[14].p99_s = Some(1e3);
    runaway.points[14].p99_ci_s = Some((5e2, 2e3));
    let watched = [
        ChartSpec::LatencyVsLoad(knee_sweep()),
        ChartSpec::LatencyVsLoad(runaway),
        ChartSpec::ThroughputVsGoodput(goodput_sweep()),
        ChartSpec::Prediction(revealed_prediction()),
    ];
    for chart in &watched {
        for css in WATCHED_SIZES {
            for ratio in [1.0, 2.0] {
                // As the page draws them: the figure's caption is the title.
                let style = ChartStyle::new(ChartTheme::Light, ratio).untitled();
                let (plot, mut placed) = lay_out_styled(chart, css, &style);
                placed.dedup_by(|b, a| a.text == b.text && a.rect == b.rect);
                let plot = plot.per(ratio);
                let at = format!(
                    "{} at {}×{}, ratio {ratio}",
                    chart.file_stem(),
                    css.0,
                    css.1
                );
                assert!(
                    plot.height() >= 0.6 * css.1,
                    "{at}: the plot is {:.0} of {:.0} px",
                    plot.height(),
                    css.1
                );
                for (i, a) in placed.iter().enumerate() {
                    for b in &placed[i + 1..] {
                        assert!(!a.overlaps(b), "{at}: {:?} overlaps {:?}", a.text, b.text);
                    }
                }
            }
        }
    }
}
