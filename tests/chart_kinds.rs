//! The throughput-and-goodput, queue and latency-distribution charts, drawn natively into SVG strings: each draws
//! for typical, empty, one-point and extreme data, and its summary and table say what it shows.

use goodput::charts::format::format_latency;
use goodput::charts::{
    distribution_summary, distribution_table, latency_distribution, queue_over_time, queue_summary,
    queue_table, throughput_summary, throughput_table, throughput_vs_goodput, DataTable,
    LatencyDistribution, LatencyMetric, QueueOverTime, QueueSample, ThroughputVsGoodput,
};

#[path = "support/chart_samples.rs"]
mod chart_samples;
use chart_samples::{goodput_sweep, growing_queue, render, shedding_sweep, tail_heavy_samples};
#[path = "support/svg_text.rs"]
mod svg_text;
use svg_text::*;

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
