//! What the fleet widget shows, as HTML: the day of the reader's settings simulated by the fleet model
//! ([`crate::model::fleet::simulate`], what `goodput-sim fleet` runs) and drawn as [`crate::charts::fleet`]'s two
//! SVG charts, each with its figures at the scrubbed time as the picture's name and its data table, and the day's
//! summary line. The `fleet-worker` calls it (the page only inserts the result), the static pages draw the same
//! charts as pictures, and `tests/fleet_view.rs` reads it natively.

use crate::charts::fleet::{clock, FleetChart, FleetPanel, FleetPoint};
use crate::charts::format::{format_count, format_percent};
use crate::charts::DataTable;
use crate::charts::{ChartStyle, ChartTheme};
use crate::fleet_protocol::{FleetSettings, Policy, START_UP_DELAYS};
use crate::html_writer::HtmlWriter;
use crate::model::fleet::{simulate, FleetDay, FleetSpec, FleetSummary, Route, Shape};
use crate::model::Scenario;

/// Rows of each live data table: one per minute of a 30-minute day, and the last.
pub const TABLE_ROWS: usize = 31;

/// The day's spec: the course box through the shape's 30 minutes, the policy's signals at their default targets.
pub fn spec(settings: &FleetSettings, scenario: &Scenario) -> FleetSpec {
    FleetSpec {
        traffic: settings.shape.traffic(scenario.saturation_throughput()),
        route: settings.route,
        start_up_delay: f64::from(settings.start_up_delay),
        ..FleetSpec::with_triggers(settings.policy.triggers(scenario), scenario)
    }
}

/// Simulates the day of `settings` on the course box.
pub fn simulate_day(settings: &FleetSettings) -> Result<FleetDay, String> {
    let scenario = Scenario::course_preset();
    simulate(&scenario, &spec(settings, &scenario)).map_err(|error| error.to_string())
}

/// The charts' data: `day` with the scrubbed time `at`, seconds.
pub fn chart_data(day: &FleetDay, at: f64) -> FleetChart {
    let scenario = Scenario::course_preset();
    FleetChart {
        points: day
            .series
            .iter()
            .map(|p| FleetPoint {
                t: p.t,
                offered_rps: p.offered_rps,
                ready: p.replicas,
                starting: p.starting,
                ttft_p99: p.ttft_p99,
                goodput: p.goodput,
                throughput: p.throughput,
            })
            .collect(),
        per_replica_rps: scenario.saturation_throughput(),
        slo_ttft: scenario.slo.ttft,
        at,
    }
}

/// The day's summary line, the model's own figures.
pub fn summary_line(summary: &FleetSummary) -> String {
    let events = match summary.scale_events {
        1 => "1 scale event".to_owned(),
        n => format!("{n} scale events"),
    };
    let breach = if summary.longest_breach_s > 0.0 {
        format!(
            "longest SLO breach {}",
            minutes_and_seconds(summary.longest_breach_s)
        )
    } else {
        "no SLO breach".to_owned()
    };
    format!(
        "SLO attainment {}; {} replica-seconds ({} replica-hours); {breach}; {events}.",
        format_percent(summary.slo_attainment / 100.0),
        format_count(summary.replica_seconds.round()),
        format_hours(summary.replica_seconds),
    )
}

/// The day's summary as the widget shows it: the model's four figures (SLO attainment, replica-hours, the longest SLO
/// breach, scale events), each a term and its value, large on a projected screen like the lab's (`style/present.css`).
pub fn summary_html(summary: &FleetSummary) -> String {
    let breach = if summary.longest_breach_s > 0.0 {
        minutes_and_seconds(summary.longest_breach_s)
    } else {
        "none".to_owned()
    };
    let figures = [
        (
            "SLO attainment",
            format_percent(summary.slo_attainment / 100.0),
        ),
        ("Replica-hours", format_hours(summary.replica_seconds)),
        ("Longest SLO breach", breach),
        ("Scale events", summary.scale_events.to_string()),
    ];
    let mut m = HtmlWriter::new();
    m.element("dl", &[("class", "fleet-figures")], |m| {
        for (term, value) in &figures {
            m.element("div", &[("class", "fleet-figure")], |m| {
                m.text_element("dt", &[], term);
                m.text_element("dd", &[], value);
            });
        }
    });
    m.finish()
}

/// The same day under every choice of the autoscaler, side by side: each one's SLO attainment and replica-hours, the
/// day shown marked. `days` holds each choice with its day's summary, in the widget's order.
pub fn comparison_html(days: &[(Policy, &FleetSummary)], shown: Policy) -> String {
    let mut m = HtmlWriter::new();
    m.element("table", &[("class", "fleet-compare")], |m| {
        m.text_element(
            "caption",
            &[],
            "This day under each choice of the autoscaler",
        );
        m.element("thead", &[], |m| {
            m.element("tr", &[], |m| {
                for heading in ["Scales on", "SLO attainment", "Replica-hours"] {
                    m.text_element("th", &[("scope", "col")], heading);
                }
            });
        });
        m.element("tbody", &[], |m| {
            for &(policy, summary) in days {
                let row: &[(&str, &str)] = if policy == shown {
                    &[("class", "fleet-shown"), ("aria-current", "true")]
                } else {
                    &[]
                };
                m.element("tr", row, |m| {
                    m.text_element("th", &[("scope", "row")], policy.label());
                    m.text_element("td", &[], &format_percent(summary.slo_attainment / 100.0));
                    m.text_element("td", &[], &format_hours(summary.replica_seconds));
                });
            }
        });
    });
    m.finish()
}

/// Replica-seconds as replica-hours, to one decimal place, as the widget writes them.
pub fn format_hours(seconds: f64) -> String {
    format!("{:.1}", seconds / 3600.0)
}

/// "4 min 15 s", or "45 s" under a minute.
fn minutes_and_seconds(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match (s / 60, s % 60) {
        (0, s) => format!("{s} s"),
        (m, 0) => format!("{m} min"),
        (m, s) => format!("{m} min {s} s"),
    }
}

/// Where the charts are drawn: each `width` CSS px wide and, when `height` is not 0, that tall (a projected screen
/// gives both charts the same box), with type `projection` times the page's (see `ChartStyle::fit_projection`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChartBox {
    pub width: u32,
    pub height: u32,
    pub projection: f64,
}

impl ChartBox {
    /// A chart `width` px wide on the lesson page, as tall as its panel makes it.
    pub fn on_page(width: u32) -> Self {
        ChartBox {
            width,
            height: 0,
            projection: 1.0,
        }
    }
}

/// Both charts as figures: the SVG (named by its figures at the scrubbed time) and its data table, in `size`, in
/// `theme`.
pub fn charts_html(
    data: &FleetChart,
    theme: ChartTheme,
    size: ChartBox,
    table_rows: usize,
) -> Result<String, String> {
    let mut m = HtmlWriter::new();
    for panel in FleetPanel::ALL {
        let height = match size.height {
            0 => panel.height(size.width),
            h => h,
        };
        let projection =
            ChartStyle::fit_projection(size.projection, f64::from(size.width), f64::from(height));
        let style = ChartStyle::new(theme, 1.0).with_projection(projection);
        let svg = panel.svg_sized(data, &style, (size.width, height))?;
        let summary = panel.summary(data);
        let class = format!("chart fleet-chart fleet-{}", panel.key());
        m.element("figure", &[("class", &class)], |m| {
            m.text_element("figcaption", &[], panel.caption());
            m.element(
                "div",
                &[
                    ("class", "fleet-svg"),
                    ("role", "img"),
                    ("aria-label", &summary),
                ],
                |m| {
                    m.trusted(&svg);
                },
            );
            write_table(m, &panel.table(data, table_rows), panel.caption());
        });
    }
    Ok(m.finish())
}

/// What the worker posts for a day that took `milliseconds` to simulate: both charts at `at`, with a line saying how
/// long the day took, and the summary's figures ([`summary_html`]).
pub fn render(
    day: &FleetDay,
    at: f64,
    theme: ChartTheme,
    size: ChartBox,
    milliseconds: u32,
) -> Result<(String, String), String> {
    let data = chart_data(day, at);
    let size = ChartBox {
        width: size.width.clamp(280, 1600),
        height: size.height.min(1200),
        projection: size.projection,
    };
    let mut charts = charts_html(&data, theme, size, TABLE_ROWS)?;
    charts.push_str(&format!(
        "<p class=\"sizer-hint fleet-took\">Simulating this day took {milliseconds} ms in this browser, with the \
         fleet model goodput-sim fleet runs.</p>"
    ));
    Ok((charts, summary_html(&day.summary)))
}

/// The day's length, seconds (the shapes' 30 minutes): the scrubber's end.
pub const DAY: f64 = 1800.0;
/// The scrubber's step, seconds: one autoscaler interval.
pub const STEP: f64 = 15.0;
/// Where the scrubber starts, seconds.
pub const START_AT: f64 = 900.0;

/// The widget's controls and the places its answers go, for the widget `id`: the four settings (at their defaults),
/// the summary line, Play and the time scrubber, a note for what went wrong, the charts' box and the time a day took,
/// then the comparison of every choice.
/// The worker sends it once, so the page's wasm does not hold it; the page never redraws it, so focus stays put.
pub fn controls_html(id: &str) -> String {
    let defaults = FleetSettings::default();
    let delays = START_UP_DELAYS.map(|s| match s {
        0..60 => format!("{s} s"),
        _ => format!("{} min", s / 60),
    });
    let mut m = HtmlWriter::new();
    let select =
        |m: &mut HtmlWriter, name: &str, label: &str, labels: Vec<String>, picked: usize| {
            let field = format!("{id}-{name}");
            m.element("div", &[("class", "lab-field")], |m| {
                m.text_element("label", &[("for", &field)], label);
                m.element("select", &[("id", &field), ("name", name)], |m| {
                    for (i, text) in labels.iter().enumerate() {
                        let value = i.to_string();
                        let mut attributes = vec![("value", value.as_str())];
                        if i == picked {
                            attributes.push(("selected", ""));
                        }
                        m.text_element("option", &attributes, text);
                    }
                });
            });
        };
    let settings = [
        ("class", "lab-controls fleet-controls"),
        ("role", "group"),
        ("aria-label", "Settings of the day"),
    ];
    m.element("div", &settings, |m| {
        let at = |all: &[_], item| all.iter().position(|x| *x == item).unwrap_or(0);
        let labels = Policy::ALL.map(|p| p.label().to_owned()).to_vec();
        select(
            m,
            "policy",
            "Autoscaler scales on",
            labels,
            at(&Policy::ALL, defaults.policy),
        );
        let labels = Route::ALL.map(|r| r.label().to_owned()).to_vec();
        let route = Route::ALL
            .iter()
            .position(|r| *r == defaults.route)
            .unwrap_or(0);
        select(m, "route", "Router", labels, route);
        let delay = START_UP_DELAYS
            .iter()
            .position(|d| *d == defaults.start_up_delay)
            .unwrap_or(0);
        select(m, "delay", "Start-up delay", delays.to_vec(), delay);
        let labels = Shape::ALL.map(|s| s.label().to_owned()).to_vec();
        let shape = Shape::ALL
            .iter()
            .position(|s| *s == defaults.shape)
            .unwrap_or(0);
        select(m, "shape", "Traffic", labels, shape);
    });
    m.element(
        "div",
        &[("class", "fleet-summary"), ("role", "status")],
        |_| {},
    );
    let time = format!("{id}-time");
    let clock_now = clock(START_AT);
    m.element("div", &[("class", "lab-controls fleet-controls")], |m| {
        let play = [
            ("type", "button"),
            ("class", "widget-button fleet-play"),
            ("name", "play"),
            ("aria-controls", time.as_str()),
        ];
        m.text_element("button", &play, "Play");
        m.element("div", &[("class", "lab-load")], |m| {
            m.text_element("label", &[("for", &time)], "Time of day");
            let (max, step, value) = (DAY.to_string(), STEP.to_string(), START_AT.to_string());
            let range = [
                ("id", time.as_str()),
                ("class", "fleet-time"),
                ("name", "time"),
                ("type", "range"),
                ("min", "0"),
                ("max", &max),
                ("step", &step),
                ("value", &value),
                ("aria-valuetext", &clock_now),
            ];
            m.void("input", &range);
            let output = [
                ("for", time.as_str()),
                ("class", "lab-load-value fleet-clock"),
            ];
            m.text_element("output", &output, &clock_now);
        });
    });
    // Plain text, so that an empty note shows nothing.
    m.element("p", &[("class", "fleet-note"), ("role", "alert")], |_| {});
    m.element("div", &[("class", "fleet-charts")], |_| {});
    m.element("div", &[("class", "fleet-compared")], |_| {});
    m.finish()
}

/// A chart's data table as the page's view writes it ([`crate::views::data_table`]). Written here a second time
/// because this runs in the fleet's worker, where Leptos cannot render a view to HTML (that needs its `ssr` feature,
/// which the wasm build does not have); `tests/fleet_view.rs` checks that the two write the same table.
pub fn write_table(m: &mut HtmlWriter, table: &DataTable, caption: &str) {
    m.element("details", &[("class", "chart-data")], |m| {
        m.text_element("summary", &[], &format!("Data table: {caption}"));
        let label = format!("{caption} data");
        // In the order Leptos writes them (`class` last), so the test can compare the two byte for byte.
        let region = [
            ("tabindex", "0"),
            ("role", "region"),
            ("aria-label", label.as_str()),
            ("class", "scroll-x"),
        ];
        m.element("div", &region, |m| {
            m.data_table(table);
        });
    });
}
