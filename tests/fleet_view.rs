//! The fleet widget's view, as its worker renders it: both charts as SVG with both series, their figures at the
//! scrubbed time as the picture's name, and the model's own summary of the day.

use goodput::charts::fleet::{FleetChart, FleetPanel, FleetPoint};
use goodput::charts::ChartTheme;
use goodput::fleet_protocol::{FleetSettings, Policy};
use goodput::fleet_view::{
    chart_data, controls_html, render, simulate_day, summary_html, summary_line, ChartBox,
};
use goodput::model::fleet::Signal;

#[test]
fn the_view_draws_both_charts_with_the_days_own_figures() {
    let settings = FleetSettings::default();
    let day = simulate_day(&settings).expect("the lesson's morning runs");
    let (charts, summary) =
        render(&day, 900.0, ChartTheme::Light, ChartBox::on_page(720), 150).expect("draws");
    assert_eq!(charts.matches("<svg").count(), 2, "two charts");
    for series in [
        "offered load",
        "ready",
        "ready + starting",
        "p99 TTFT",
        "SLO 500 ms",
        "throughput",
        "goodput",
    ] {
        assert!(charts.contains(series), "no {series:?} in the charts");
    }
    // The names read the interval the scrubber is in, from the model's series.
    let point = day
        .series
        .iter()
        .find(|p| p.t >= 900.0)
        .expect("a point at 15:00");
    let label = format!(
        "At 15:00, {} req/s are offered",
        goodput::charts::format::format_number(point.offered_rps)
    );
    assert!(charts.contains(&label), "{label} not in {}", &charts[..400]);
    assert!(
        charts.contains(&format!(
            "{} ready, {} starting",
            point.replicas, point.starting
        )) || point.replicas == 1
    );
    assert_eq!(
        charts.matches("<table>").count(),
        2,
        "a data table per chart"
    );
    // The summary is the model's four figures: attainment, replica-hours, longest breach and scale events.
    let s = &day.summary;
    assert_eq!(summary, summary_html(s));
    assert!(
        summary.contains(&format!("<dt>Scale events</dt><dd>{}</dd>", s.scale_events)),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("<dd>{:.1}</dd>", s.replica_seconds / 3600.0)),
        "{summary}"
    );
    assert_eq!(summary.matches("<dd>").count(), 4, "{summary}");
    assert!(summary.contains("SLO attainment"), "{summary}");
}

#[test]
fn the_signal_changes_the_day_and_scrubbing_only_moves_the_mark() {
    let waiting = simulate_day(&FleetSettings::default()).unwrap();
    let busy = simulate_day(&FleetSettings {
        policy: Policy::One(Signal::Utilization),
        ..FleetSettings::default()
    })
    .unwrap();
    assert_ne!(summary_line(&waiting.summary), summary_line(&busy.summary));
    let early = chart_data(&waiting, 60.0);
    let late = chart_data(&waiting, 1500.0);
    assert_eq!(early.points, late.points);
    assert_ne!(
        FleetPanel::Load.summary(&early),
        FleetPanel::Load.summary(&late)
    );
}

#[test]
fn tables_are_thinned_but_keep_the_last_interval() {
    let data = FleetChart {
        points: (1..=120)
            .map(|i| FleetPoint {
                t: f64::from(i) * 15.0,
                offered_rps: 1.0,
                ready: 1,
                ..FleetPoint::default()
            })
            .collect(),
        per_replica_rps: 27.0,
        slo_ttft: 0.5,
        at: 0.0,
    };
    for rows in [13, 31, 200] {
        let table = FleetPanel::Service.table(&data, rows);
        assert!(table.rows.len() <= rows.max(1));
        assert_eq!(table.rows.last().unwrap()[0], "30:00");
    }
}

#[test]
fn the_controls_name_every_choice_and_start_at_the_lessons_morning() {
    let html = controls_html("fleet-widget");
    for (name, count) in [("policy", 8), ("route", 3), ("delay", 4), ("shape", 3)] {
        let select = format!("<select id=\"fleet-widget-{name}\" name=\"{name}\">");
        let at = html
            .find(&select)
            .unwrap_or_else(|| panic!("no {name} in {html}"));
        let options = &html[at..at + html[at..].find("</select>").unwrap()];
        assert_eq!(options.matches("<option").count(), count, "{options}");
        assert_eq!(options.matches(" selected").count(), 1, "{options}");
        assert!(html.contains(&format!("<label for=\"fleet-widget-{name}\">")));
    }
    assert!(
        html.contains("<option value=\"1\" selected>join the shortest queue</option>"),
        "{html}"
    );
    assert!(
        html.contains("<option value=\"2\" selected>2 min</option>"),
        "{html}"
    );
    assert!(
        html.contains("<option value=\"1\" selected>requests waiting</option>"),
        "{html}"
    );
    assert!(
        html.contains("<option value=\"0\" selected>Morning ramp</option>"),
        "{html}"
    );
    assert!(html.contains("aria-valuetext=\"15:00\""));
    assert!(html.contains("class=\"fleet-charts\""));
    assert!(
        html.contains("<option value=\"7\">request rate, start-up headroom</option>"),
        "{html}"
    );
    assert!(html.contains("class=\"fleet-compared\""));
}

#[test]
fn the_worker_writes_its_data_tables_as_the_page_view_does() {
    use goodput::charts::DataTable;
    use goodput::html_writer::HtmlWriter;
    use goodput::views::data_table::folded_table_html;
    let tables = [
        DataTable::default(),
        DataTable {
            header: vec![
                "time".to_owned(),
                "replicas".to_owned(),
                "p99 TTFT".to_owned(),
            ],
            rows: vec![
                vec!["08:00".to_owned(), "4".to_owned(), "0.38 s".to_owned()],
                vec!["08:01".to_owned(), "5".to_owned(), "— & <none>".to_owned()],
            ],
        },
    ];
    for table in &tables {
        let mut m = HtmlWriter::new();
        goodput::fleet_view::write_table(&mut m, table, "Replicas & SLO");
        let view = folded_table_html(table, "Replicas & SLO").replace("<!>", "");
        assert_eq!(m.finish(), view);
    }
}
